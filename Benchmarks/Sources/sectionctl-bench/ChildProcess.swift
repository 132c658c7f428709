import Foundation

/// Runs another program and reports how it ended, how long it took and its peak memory.
///
/// On Linux a child's `ru_maxrss` starts from the high-water mark of the memory it was
/// spawned from: a program spawned straight from this one, after it has held large inputs,
/// would report this program's peak. So the program runs under a small intermediary, this
/// benchmark started afresh in its `--child-peak-memory` mode, which spawns it, waits for it,
/// and reads its peak from `getrusage(RUSAGE_CHILDREN)` (its one child).
enum ChildProcess {
    struct Outcome {
        /// The exit status, or 128 + the signal number when a signal ended it.
        var status: Int32
        var seconds: Double
        /// The child's peak resident set size, in bytes.
        var peakMemory: Int
        /// What it wrote on stderr.
        var errorOutput: String
        /// Its I/O counters, read from `/proc/PID/io` before it was reaped.
        var io = IOCounters()

        /// The first line of stderr, for a report.
        var firstErrorLine: String {
            errorOutput.split(separator: "\n").first.map(String.init) ?? "no message"
        }
    }

    /// The intermediary's option: `--child-peak-memory ERRORFILE PROGRAM ARGUMENTS…`.
    static let peakMemoryOption = "--child-peak-memory"

    /// Runs `executable` with `arguments` under the intermediary, stdin and stdout on
    /// /dev/null and stderr captured in `errorFile`.
    static func run(_ executable: String, _ arguments: [String], errorFile: String) throws -> Outcome {
        let resultFile = errorFile + ".result"
        let intermediary = try spawn(
            ownPath, [peakMemoryOption, errorFile, executable] + arguments, output: resultFile, errors: errorFile + ".intermediary")
        let result = (try? String(contentsOfFile: resultFile, encoding: .utf8)) ?? ""
        let fields = result.split(separator: " ").compactMap { Double($0.trimmingCharacters(in: .whitespacesAndNewlines)) }
        guard intermediary.status == 0, fields.count == 9 else {
            let message = (try? String(contentsOfFile: errorFile + ".intermediary", encoding: .utf8)) ?? ""
            throw BenchmarkError("measuring \(executable) failed (exit \(intermediary.status)): \(message)")
        }
        return Outcome(
            status: Int32(fields[0]), seconds: fields[2], peakMemory: Int(fields[1]) * 1024,
            errorOutput: (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? "",
            io: IOCounters(
                readCharacters: Int(fields[3]), writtenCharacters: Int(fields[4]), readCalls: Int(fields[5]), writeCalls: Int(fields[6]),
                storageRead: Int(fields[7]), storageWritten: Int(fields[8])))
    }

    /// Runs `executable` with `arguments` directly, without the intermediary (so no peak
    /// memory): stdin and stdout on /dev/null, stderr in `errorFile`. Returns its exit status,
    /// its wall time from spawn to the end of its wait, and its I/O counters.
    static func timed(_ executable: String, _ arguments: [String], errorFile: String) throws -> (
        status: Int32, seconds: Double, io: IOCounters
    ) {
        try spawn(executable, arguments, output: "/dev/null", errors: errorFile)
    }

    /// Runs `executable` with `arguments` directly, stdout written to the file `output` and
    /// stderr to `errorFile`; returns its exit status, wall time and I/O counters.
    static func timed(_ executable: String, _ arguments: [String], output: String, errorFile: String) throws -> (
        status: Int32, seconds: Double, io: IOCounters
    ) {
        try spawn(executable, arguments, output: output, errors: errorFile)
    }

    /// The intermediary's work: runs the program, then prints its exit status, its peak
    /// resident set size in KiB, its run time in seconds and its I/O counters (`rchar`, `wchar`,
    /// `syscr`, `syscw`, `read_bytes`, `write_bytes`), on one line.
    static func runAsIntermediary(_ arguments: [String]) -> Int32 {
        guard arguments.count >= 2 else {
            Log.progress("usage: sectionctl-bench \(peakMemoryOption) ERRORFILE PROGRAM [ARGUMENTS…]")
            return 2
        }
        do {
            let child = try spawn(arguments[1], Array(arguments.dropFirst(2)), output: "/dev/null", errors: arguments[0])
            var usage = rusage()
            getrusage(__rusage_who_t(RUSAGE_CHILDREN.rawValue), &usage)
            let io = child.io
            print(
                "\(child.status) \(usage.ru_maxrss) \(child.seconds) \(io.readCharacters) \(io.writtenCharacters) \(io.readCalls)"
                    + " \(io.writeCalls) \(io.storageRead) \(io.storageWritten)")
            return 0
        } catch {
            Log.progress("sectionctl-bench: error: \(error)")
            return 1
        }
    }

    /// Spawns a program with stdin on /dev/null and stdout and stderr in files, and waits. Its
    /// I/O counters are read once it has ended and before it is reaped: `waitid` with `WNOWAIT`
    /// leaves it a zombie whose `/proc/PID/io` still holds its totals, then `waitpid` reaps it.
    private static func spawn(_ executable: String, _ arguments: [String], output: String, errors: String) throws
        -> (status: Int32, seconds: Double, io: IOCounters)
    {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }

        let started = ContinuousClock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchmarkError("cannot run \(executable): error \(spawned)") }
        var ended = siginfo_t()
        while waitid(P_PID, id_t(pid), &ended, WEXITED | WNOWAIT) < 0 {
            guard errno == EINTR else { throw BenchmarkError("waiting for \(executable) failed: errno \(errno)") }
        }
        let seconds = Measurement.seconds(ContinuousClock.now - started)
        let io = (try? IOCounters.of(pid: pid)) ?? IOCounters()
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { throw BenchmarkError("waiting for \(executable) failed: errno \(errno)") }
        }
        let signal = status & 0x7f
        return (signal == 0 ? (status >> 8) & 0xff : 128 + signal, seconds, io)
    }

    /// The path of this program.
    static var ownPath: String {
        (try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")) ?? CommandLine.arguments[0]
    }

    /// The directory holding this program.
    static var ownDirectory: String {
        URL(fileURLWithPath: ownPath).deletingLastPathComponent().path
    }
}
