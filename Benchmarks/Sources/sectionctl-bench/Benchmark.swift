import Foundation

/// One run of the benchmark: the chosen scenarios, in order, each in a scratch directory of
/// its own that is removed when it ends.
final class Benchmark {
    let options: Options
    let plan: Plan
    let directory: TemporaryDirectory
    /// Scenario 1's and 3's shared measurement, made once.
    var endMoves: EndMoveTimes?

    init(options: Options) throws {
        self.options = options
        self.plan = Plan(options: options)
        self.directory = try TemporaryDirectory(inside: options.directory)
    }

    func run() -> Report {
        var report = Report()
        for scenario in options.scenarios {
            Log.progress("[\(scenario.rawValue)] \(scenario.summary)")
            let started = ContinuousClock.now
            let before = IOCounters.current()
            do {
                report.add(contentsOf: try rows(for: scenario))
            } catch {
                report.add(ResultRow(scenario: label(scenario), measured: "error: \(error)", ratio: "", target: "", verdict: .fail))
            }
            // The whole scenario's I/O: this process and every process it ran and reaped, fixtures
            // included (a PostgreSQL server's own processes are not its children, so not counted).
            let io = IOCounters.current().since(before)
            report.add(
                .info(
                    "\(label(scenario)): the scenario's I/O in all",
                    measured: "\(Format.duration(Measurement.seconds(ContinuousClock.now - started))),"
                        + " fixtures and whole processes included; \(Format.mebibytes(io.storageRead)) from storage,"
                        + " \(Format.mebibytes(io.storageWritten)) to it",
                    io: io.cell))
            Log.progress("[\(scenario.rawValue)] done in \(Format.duration(Measurement.seconds(ContinuousClock.now - started)))")
        }
        return report
    }

    private func rows(for scenario: Scenario) throws -> [ResultRow] {
        switch scenario {
        case .ends: return try endMoveRows()
        case .writes: return try positionWriteRows()
        case .single: return try singleMoveRows()
        case .session: return try sessionRows()
        case .seed: return try seedDesignRows()
        case .import: return try importRows()
        case .reads: return try readRows()
        case .observe: return try observeRows()
        case .stream: return try streamRows()
        case .native: return try nativeImportRows()
        case .largeSession: return try largeSessionRows()
        case .demo: return try demoRows()
        case .ui: return try fullScreenRows()
        case .postgres: return try serverRows()
        case .readDuringImport: return try readDuringImportRows()
        case .sections: return try manySectionRows()
        case .start: return try startRows()
        case .undo: return try bulkUndoRows()
        case .wal: return try sessionLogRows()
        case .replica: return try replicaRows()
        case .shapes: return try userShapeRows()
        }
    }

    private func label(_ scenario: Scenario) -> String {
        "\((Scenario.allCases.firstIndex(of: scenario) ?? 0) + 1). \(scenario.rawValue)"
    }

    /// Runs `body` with a fresh scratch directory named `name`, removed afterwards (kept, with
    /// its files, when the environment sets `SECTIONCTL_BENCH_KEEP`, for a look at them afterwards
    /// with `sqlite3`; the run's directory is then kept too).
    func withScratch<T>(_ name: String, _ body: (Scratch) throws -> T) throws -> T {
        let scratch = Scratch(path: directory.file(name), keep: Self.keepFiles)
        try FileManager.default.createDirectory(atPath: scratch.path, withIntermediateDirectories: true)
        defer { if !scratch.keep { try? FileManager.default.removeItem(atPath: scratch.path) } }
        return try body(scratch)
    }

    /// The `sectionctl` binary the whole-process scenarios run: `--sectionctl`, else the one next
    /// to this program.
    var sectionctlPath: String { options.sectionctl ?? ChildProcess.ownDirectory + "/sectionctl" }

    /// Whether scratch files are kept (`SECTIONCTL_BENCH_KEEP` set).
    static let keepFiles = ProcessInfo.processInfo.environment["SECTIONCTL_BENCH_KEEP"] != nil

    func cleanUp() {
        if !Self.keepFiles { directory.remove() }
    }
}

/// A scenario's scratch directory.
struct Scratch {
    let path: String
    /// Whether its files stay after the scenario (`SECTIONCTL_BENCH_KEEP`): `removeDatabase` then
    /// leaves them too.
    var keep = false
    func file(_ name: String) -> String { path + "/" + name }

    /// Removes a database file with its -wal and -shm companions.
    func removeDatabase(_ path: String) {
        guard !keep else { return }
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: path + suffix)
        }
    }
}
