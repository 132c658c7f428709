import Foundation

/// Runs another program and reports how it ended, how long it took and its peak memory.
enum ChildProcess {
    struct Outcome {
        /// The exit status, or 128 + the signal number when a signal ended it.
        var status: Int32
        var seconds: Double
        /// The child's peak resident set size, in bytes (`ru_maxrss`).
        var peakMemory: Int
        /// What it wrote on stderr.
        var errorOutput: String

        /// The first line of stderr, for a report.
        var firstErrorLine: String {
            errorOutput.split(separator: "\n").first.map(String.init) ?? "no message"
        }
    }

    /// Runs `executable` with `arguments`, stdin and stdout on /dev/null and stderr captured
    /// in `errorFile`, and waits for it with `wait4`, which gives that one child's resource
    /// usage (the accounting `getrusage(RUSAGE_CHILDREN)` sums over every child waited for).
    static func run(_ executable: String, _ arguments: [String], errorFile: String) throws -> Outcome {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile, O_WRONLY | O_CREAT | O_TRUNC, 0o644)

        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }

        let started = ContinuousClock.now
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        guard spawned == 0 else { throw BenchmarkError("cannot run \(executable): error \(spawned)") }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            guard errno == EINTR else { throw BenchmarkError("waiting for \(executable) failed: errno \(errno)") }
        }
        let seconds = Measurement.seconds(ContinuousClock.now - started)
        let signal = status & 0x7f
        let errorOutput = (try? String(contentsOfFile: errorFile, encoding: .utf8)) ?? ""
        return Outcome(
            status: signal == 0 ? (status >> 8) & 0xff : 128 + signal, seconds: seconds,
            peakMemory: Int(usage.ru_maxrss) * 1024, errorOutput: errorOutput)
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
