import Foundation

extension Benchmark {
    /// Scenario 17: what a short command costs as a whole process, against a C program doing the
    /// same work (`Benchmarks/Peers/sectionctl-cpeer.c`, compiled in the run with the system's C
    /// compiler and linked with SQLite alone) on a plain-table file of the same rows: start
    /// (`--version`), open and read (`row get`), open and a durable commit (`row move`). Each
    /// pair of processes is timed from `posix_spawn` to `waitpid`, alternating in rounds; the peak
    /// resident set of each is read by the C peer, which spawns it (`measure`): a child's peak
    /// starts at its spawner's, and this program's is far above a short command's.
    /// Targets: `--version` ≤ 5 ms and ≤ 12 MiB; a committed `row move` ≤ 2× the C commit.
    func startRows() throws -> [ResultRow] {
        let plan = self.plan
        let sectionctl = sectionctlPath
        return try withScratch("start") { scratch in
            guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
                return [.skipped("17. process start", reason: "no sectionctl binary at \(sectionctl)")]
            }
            guard let peer = try Self.compilePeer(into: scratch.file("sectionctl-cpeer")) else {
                return [.skipped("17. process start", reason: "no C compiler (cc or clang) on the PATH to build the C peer")]
            }
            let rows = plan.startSectionRows
            let product = try SectionFixture.create(at: scratch.file("product.db"), rows: rows)
            let plain = try SectionFixture.createPlain(at: scratch.file("plain.db"), rows: rows)
            let middle = "0:\(rows / 2)"
            // The C peer on the plain tables, and on a copy of sectionctl's own file (the same
            // schema: SQLite reads its triggers at open, and its UPDATE fires them as any plain
            // SQL write does).
            let sameSchema = try product.copy(to: scratch.file("same-schema.db"))
            let pairs: [(name: String, sectionctl: [String], peer: [String])] = [
                ("--version", ["--version"], ["version"]),
                ("row get \(middle)", ["--db", product.path, "row", "get", middle], ["get", plain.path, "0", "\(rows / 2)"]),
                ("row get \(middle), same schema", ["--db", product.path, "row", "get", middle], ["get", sameSchema.path, "0", "\(rows / 2)"]),
                ("row move 0:0 0:end", ["--db", product.path, "row", "move", "0:0", "0:end"], ["move", plain.path, "0"]),
                ("row move 0:0 0:end, same schema", ["--db", product.path, "row", "move", "0:0", "0:end"], ["move", sameSchema.path, "0"]),
            ]
            var results: [ResultRow] = []
            for pair in pairs {
                Log.progress("  timing sectionctl \(pair.name) and the C peer: \(plan.rounds) rounds of \(plan.startRunsPerRound)…")
                let errors = scratch.file("process.err")
                var samples: [[Double]] = [[], []]
                for round in 0...plan.rounds {
                    for (index, (program, arguments)) in [(sectionctl, pair.sectionctl), (peer, pair.peer)].enumerated() {
                        var elapsed = 0.0
                        for _ in 0..<plan.startRunsPerRound {
                            let outcome = try ChildProcess.timed(program, arguments, errorFile: errors)
                            guard outcome.status == 0 else {
                                let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                                throw BenchmarkError("\(program) \(arguments.joined(separator: " ")) exited \(outcome.status): \(message)")
                            }
                            elapsed += outcome.seconds
                        }
                        if round > 0 { samples[index].append(elapsed / Double(plan.startRunsPerRound)) }
                    }
                }
                let ours = Measurement.median(samples[0])
                let theirs = Measurement.median(samples[1])
                let ourPeak = try Self.peakMemory(of: sectionctl, pair.sectionctl, measuredBy: peer, scratch: scratch)
                let theirPeak = try Self.peakMemory(of: peer, pair.peer, measuredBy: peer, scratch: scratch)
                let measured =
                    "sectionctl \(Format.duration(ours)), \(Format.mebibytes(ourPeak)) peak;"
                    + " C \(Format.duration(theirs)), \(Format.mebibytes(theirPeak))"
                switch pair.name {
                case "--version":
                    results.append(
                        .atMost("17. sectionctl --version: time (a whole process)", measured: measured, ratio: ours * 1000, limit: 5, suffix: " ms"))
                    results.append(
                        .atMost(
                            "17. sectionctl --version: peak memory", measured: measured, ratio: Double(ourPeak) / 1_048_576, limit: 12, suffix: " MiB"
                        ))
                case let name where name.hasPrefix("row move"):
                    let against = name.hasSuffix("same schema") ? "on a copy of sectionctl's file" : "on plain tables"
                    results.append(
                        .atMost(
                            "17. sectionctl row move 0:0 0:end, committed, vs a C process's durable commit \(against) (\(Format.shortCount(rows)) rows)",
                            measured: measured, ratio: ours / theirs, limit: 2))
                default:
                    let against = pair.name.hasSuffix("same schema") ? "on a copy of sectionctl's file" : "on plain tables"
                    results.append(
                        .info(
                            "17. sectionctl row get \(middle) vs a C process's same read \(against) (\(Format.shortCount(rows)) rows)",
                            measured: measured, ratio: Format.ratio(ours / theirs)))
                }
            }
            return results
        }
    }

    /// The peak resident set of `program` run with `arguments`, in bytes, as the small C peer
    /// that spawns it reads it from `wait4`.
    static func peakMemory(of program: String, _ arguments: [String], measuredBy peer: String, scratch: Scratch) throws -> Int {
        let output = scratch.file("measure.out")
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let argv: [UnsafeMutablePointer<CChar>?] = ([peer, "measure", program] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        guard posix_spawn(&pid, peer, &actions, nil, argv, environ) == 0 else { throw BenchmarkError("cannot run \(peer)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let fields = ((try? String(contentsOfFile: output, encoding: .utf8)) ?? "").split(separator: " ").compactMap {
            Int($0.trimmingCharacters(in: .whitespacesAndNewlines))
        }
        guard status == 0, fields.count == 2, fields[0] == 0 else {
            throw BenchmarkError("measuring \(program) \(arguments.joined(separator: " ")) failed: \(fields)")
        }
        return fields[1] * 1024
    }

    /// Compiles the C peer with `cc` (or `clang`) into `path`; `nil` when there is no compiler.
    static func compilePeer(into path: String) throws -> String? {
        let source = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../Peers/sectionctl-cpeer.c").standardizedFileURL.path
        let searchPath = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let compilers = ["cc", "clang"].flatMap { name in searchPath.split(separator: ":").map { "\($0)/\(name)" } }
        guard let compiler = compilers.first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else { return nil }
        let errors = path + ".err"
        let built = try ChildProcess.timed(compiler, ["-O2", source, "-lsqlite3", "-o", path], errorFile: errors)
        guard built.status == 0 else {
            throw BenchmarkError("\(compiler) could not build \(source): \((try? String(contentsOfFile: errors, encoding: .utf8)) ?? "")")
        }
        return path
    }
}
