import Foundation
import Repository
import Transfer

/// Records shaped alike for the C baseline and for records import: record i (from 1) has keys
/// `field1`…`fieldK` with values `value-i-k`, and becomes a section titled "Record i" with one
/// field row per key.
struct RecordsFile {
    let records: Int
    let fields: Int

    /// Sections plus rows the records become.
    var items: Int { records * (1 + fields) }

    /// "100K records x 5 fields".
    var label: String { "\(Format.shortCount(records)) records x \(fields) fields" }

    /// Writes the records as one JSON array, or with `newlineDelimited` one object per line.
    func write(to path: String, newlineDelimited: Bool) throws {
        precondition(records > 0 && fields > 0)
        var text = newlineDelimited ? "" : "[\n"
        text.reserveCapacity(records * fields * 24)
        for record in 1...records {
            var object = "{"
            for field in 1...fields {
                if field > 1 { object += "," }
                object += "\"field\(field)\":\"value-\(record)-\(field)\""
            }
            object += "}"
            if newlineDelimited {
                text += object + "\n"
            } else {
                text += object + (record < records ? ",\n" : "\n")
            }
        }
        if !newlineDelimited { text += "]\n" }
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
    }

    /// Why the database at `path` does not hold exactly what these records become, or nil.
    func mismatch(in path: String) throws -> String? {
        let baseline = try Baseline(path: path)
        let sections = try baseline.queryInt("SELECT count(*) FROM sections")
        let rows = try baseline.queryInt("SELECT count(*) FROM rows")
        guard sections == Int64(records) && rows == Int64(records * fields) else {
            return "the database holds \(Format.count(Int(sections))) sections and \(Format.count(Int(rows))) rows,"
                + " not \(Format.count(records)) and \(Format.count(records * fields))"
        }
        return nil
    }
}

extension Benchmark {
    /// Scenario 6: the C baseline's bulk insert rate; the rate of the library's records import
    /// and native import against it (≥ 50 %), repetitions interleaved; and the peak memory of
    /// a newline-delimited records import at two sizes, each in a child process (flat:
    /// peak(large) ≤ 2 × peak(small) + 64 MiB) — through the `sectionctl` binary, or when it
    /// cannot do it yet, through this program's own child mode, which calls the library.
    func importRows() throws -> [ResultRow] {
        let plan = self.plan
        let sectionctl = sectionctlPath
        return try withScratch("import") { scratch in
            var rows: [ResultRow] = []
            let bulk = RecordsFile(records: plan.bulkRecords, fields: plan.fieldsPerRecord)
            let recordsFile = scratch.file("records.json")
            try bulk.write(to: recordsFile, newlineDelimited: false)
            let nativeFile = scratch.file("native.json")

            var baselineTimes: [Double] = []
            var plainTimes: [Double] = []
            var recordsTimes: [Double] = []
            var nativeTimes: [Double] = []
            var recordsProblem: String?
            var nativeProblem: String?
            for repetition in 0..<min(plan.rounds, 3) {
                // The C baseline: prepared INSERTs in one transaction.
                let path = scratch.file("baseline.db")
                let listID = try Self.createDatabase(at: path)
                let baseline = try Baseline(path: path)
                Log.progress("  C baseline: \(bulk.label)…")
                baselineTimes.append(
                    try Measurement.time {
                        try baseline.insertRecords(intoList: listID, records: bulk.records, fields: bulk.fields)
                    })
                if let mismatch = try bulk.mismatch(in: path) { throw BenchmarkError("C baseline: \(mismatch)") }
                scratch.removeDatabase(path)

                // The same inserts into plain tables: sectionctl's columns and unique indexes,
                // none of its triggers, rank, journal or undo tables.
                let plainPath = scratch.file("plain.db")
                let plainList = try Baseline.createPlain(at: plainPath)
                let plain = try Baseline(path: plainPath)
                Log.progress("  plain-table C baseline: \(bulk.label)…")
                plainTimes.append(
                    try Measurement.time {
                        try plain.insertRecords(intoList: plainList, records: bulk.records, fields: bulk.fields, plainTables: true)
                    })
                if let mismatch = try bulk.mismatch(in: plainPath) { throw BenchmarkError("plain-table C baseline: \(mismatch)") }
                scratch.removeDatabase(plainPath)

                // The library's imports, in this process; reading the file is part of the time.
                if recordsProblem == nil {
                    let database = scratch.file("records.db")
                    switch try timeImport(
                        "records", into: database, of: bulk,
                        { store in
                            try store.importRecords(
                                Data(contentsOf: URL(fileURLWithPath: recordsFile)), options: RecordsImportOptions(list: "default"))
                        })
                    {
                    case .measured(let seconds):
                        recordsTimes.append(seconds)
                        if repetition == 0 {
                            let native = try SectionStore(path: database).list("default").exportJSON()
                            try Data(native.utf8).write(to: URL(fileURLWithPath: nativeFile))
                        }
                    case .unavailable(let reason):
                        recordsProblem = reason
                    }
                    scratch.removeDatabase(database)
                }
                if recordsProblem == nil && nativeProblem == nil {
                    let database = scratch.file("native.db")
                    switch try timeImport(
                        "native", into: database, of: bulk,
                        { store in
                            try store.importJSON(Data(contentsOf: URL(fileURLWithPath: nativeFile)))
                        })
                    {
                    case .measured(let seconds): nativeTimes.append(seconds)
                    case .unavailable(let reason): nativeProblem = reason
                    }
                    scratch.removeDatabase(database)
                }
            }
            let baseline = Measurement.median(baselineTimes)
            rows.append(
                .info(
                    "6. bulk insert, C baseline (one transaction, 50 rows a statement)",
                    measured: "\(bulk.label) = \(Format.count(bulk.items)) inserts in \(Format.duration(baseline))",
                    ratio: "\(Format.rate(Double(bulk.records) / baseline)) records, \(Format.rate(Double(bulk.items) / baseline)) inserts"))
            let plain = Measurement.median(plainTimes)
            rows.append(
                .info(
                    "6. bulk insert, plain-table C baseline (no triggers, no rank tables)",
                    measured: "\(bulk.label) = \(Format.count(bulk.items)) inserts in \(Format.duration(plain));"
                        + " same-schema C takes \(Format.ratio(baseline / plain))x as long",
                    ratio: "\(Format.rate(Double(bulk.records) / plain)) records, \(Format.rate(Double(bulk.items) / plain)) inserts"))
            let nativeIssue = recordsProblem.map { _ in "needs a list filled by records import" } ?? nativeProblem
            rows.append(
                importRow("6. records import (library) vs C", bulk, recordsProblem, recordsTimes, baseline: baseline))
            rows.append(plainRow("6. records import (library) vs plain-table C", bulk, recordsProblem, recordsTimes, plain: plain))
            rows.append(importRow("6. native import (library) vs C", bulk, nativeIssue, nativeTimes, baseline: baseline))
            rows.append(plainRow("6. native import (library) vs plain-table C", bulk, nativeIssue, nativeTimes, plain: plain))
            rows.append(try peerRow(bulk, recordsFile: recordsFile, sectionctl: sectionctl, scratch: scratch))
            rows.append(try memoryRow(sectionctl: sectionctl, scratch: scratch))
            rows.append(try progressRow(bulk, scratch: scratch))
            return rows
        }
    }

    /// What reporting progress costs a newline-delimited import: the same records imported with
    /// and without a progress handler that does what `sectionctl`'s progress line does (a clock
    /// read per report, a line formatted at most 10 times a second), repetitions interleaved.
    /// Compared in CPU time (user + system) of this process, the least of each, which the
    /// fsync and other processes on the machine disturb less than wall time (≤ 2 % more); the
    /// time spent inside the handler itself is shown beside it.
    private func progressRow(_ file: RecordsFile, scratch: Scratch) throws -> ResultRow {
        let scenario = "6. --nl import with progress reports vs without"
        let input = scratch.file("records.jsonl")
        try file.write(to: input, newlineDelimited: true)
        var plain: [Double] = []
        var reported: [Double] = []
        var wall: (plain: [Double], reported: [Double]) = ([], [])
        var reports = 0
        var inHandler: Duration = .zero
        for repetition in 0..<(2 * max(3, min(plan.rounds, 7))) {
            let withProgress = repetition % 2 == 1
            let database = scratch.file("progress.db")
            _ = try Self.createDatabase(at: database)
            let store = try SectionStore(path: database)
            guard let handle = FileHandle(forReadingAtPath: input) else { throw BenchmarkError("cannot read \(input)") }
            Log.progress("  --nl import \(withProgress ? "with" : "without") progress: \(file.label)…")
            let cpu = processCPUSeconds()
            if withProgress {
                let clock = ContinuousClock()
                var nextDraw = clock.now
                var line = ""
                wall.reported.append(
                    try Measurement.time {
                        try store.importRecords(lines: handle, options: RecordsImportOptions(list: "default")) { progress in
                            let start = clock.now
                            reports += 1
                            if start >= nextDraw {
                                nextDraw = start + .milliseconds(100)
                                line = "import: \(progress.rows) rows, \(progress.bytes) bytes"
                            }
                            inHandler += clock.now - start
                        }
                    })
                reported.append(processCPUSeconds() - cpu)
                if line.isEmpty && reports == 0 { throw BenchmarkError("no progress was reported") }
            } else {
                wall.plain.append(try Measurement.time { try store.importRecords(lines: handle, options: RecordsImportOptions(list: "default")) })
                plain.append(processCPUSeconds() - cpu)
            }
            if let mismatch = try file.mismatch(in: database) { throw BenchmarkError("progress import: \(mismatch)") }
            scratch.removeDatabase(database)
        }
        let (fastestPlain, fastestReported) = (plain.min()!, reported.min()!)
        let handlerShare = Measurement.seconds(inHandler) / Double(reported.count) / Measurement.median(wall.reported) * 100
        return .atMost(
            scenario,
            measured: "\(file.label): CPU \(Format.duration(fastestReported)) with \(Format.count(reports / reported.count)) reports,"
                + " \(Format.duration(fastestPlain)) without (wall \(Format.duration(Measurement.median(wall.reported))) vs"
                + " \(Format.duration(Measurement.median(wall.plain)))); in the handler \(Format.ratio(handlerShare))%",
            ratio: (fastestReported / fastestPlain - 1) * 100, limit: 2, suffix: "%")
    }

    /// Peak memory of newline-delimited imports of two sizes, each in a child process: through
    /// the `sectionctl` binary, else through the library.
    private func memoryRow(sectionctl: String, scratch: Scratch) throws -> ResultRow {
        let small = RecordsFile(records: plan.memorySmallRecords, fields: plan.fieldsPerRecord)
        let large = RecordsFile(records: plan.memoryLargeRecords, fields: plan.fieldsPerRecord)
        let scenario = "6. --nl import peak memory, \(Format.shortCount(small.records)) vs \(Format.shortCount(large.records)) records"
        let target = "≤ 2x + 64 MiB"
        let inputs = try [small, large].map { file in
            let path = scratch.file("records-\(file.records).jsonl")
            try file.write(to: path, newlineDelimited: true)
            return (file: file, path: path)
        }
        var attempts: [(how: String, command: (String, String) -> (String, [String]))] = []
        var notes: [String] = []
        if FileManager.default.isExecutableFile(atPath: sectionctl) {
            attempts.append(
                (
                    "sectionctl binary",
                    { database, input in
                        (sectionctl, ["--db", database, "import", "--records", input, "--nl"])
                    }
                ))
        } else {
            notes.append("sectionctl binary: none at \(sectionctl)")
        }
        let ownPath = ChildProcess.ownPath
        attempts.append(("library, child process", { database, input in (ownPath, [ChildImport.option, database, input]) }))

        for attempt in attempts {
            var peaks: [Int] = []
            var seconds: [Double] = []
            var problem: String?
            for (index, input) in inputs.enumerated() where problem == nil {
                let database = scratch.file("nl-\(index).db")
                _ = try Self.createDatabase(at: database)
                let (executable, arguments) = attempt.command(database, input.path)
                Log.progress("  --nl import of \(input.file.label), \(attempt.how)…")
                let outcome = try ChildProcess.run(executable, arguments, errorFile: database + ".err")
                if outcome.status != 0 {
                    problem = "exit \(outcome.status): \(outcome.firstErrorLine)"
                } else if let mismatch = try input.file.mismatch(in: database) {
                    problem = "exit 0, but \(mismatch)"
                } else {
                    peaks.append(outcome.peakMemory)
                    seconds.append(outcome.seconds)
                }
                scratch.removeDatabase(database)
            }
            if let problem {
                notes.append("\(attempt.how): \(problem)")
                continue
            }
            let bound = 2 * peaks[0] + 64 * 1_048_576
            let skippedNote = notes.isEmpty ? "" : " (not via \(notes.joined(separator: "; ")))"
            return ResultRow(
                scenario: scenario,
                measured: "peak RSS \(Format.mebibytes(peaks[0])) vs \(Format.mebibytes(peaks[1])) (bound \(Format.mebibytes(bound))),"
                    + " \(Format.duration(seconds[0])) vs \(Format.duration(seconds[1])); \(attempt.how)\(skippedNote)",
                ratio: "\(Format.ratio(Double(peaks[1]) / Double(peaks[0])))x",
                target: target, verdict: peaks[1] <= bound ? .pass : .fail)
        }
        return .skipped(scenario, reason: notes.joined(separator: "; "), target: target)
    }

    /// The outcome of one timed import.
    enum ImportTiming {
        case measured(seconds: Double)
        /// Why it could not be measured: the import is not available yet, or failed.
        case unavailable(String)
    }

    /// Creates a database at `path`, opens it, and times `body` importing into it; then checks
    /// that it holds exactly what `file` becomes.
    private func timeImport(_ name: String, into path: String, of file: RecordsFile, _ body: (SectionStore) throws -> Void) throws
        -> ImportTiming
    {
        _ = try Self.createDatabase(at: path)
        let store = try SectionStore(path: path)
        Log.progress("  \(name) import: \(file.label)…")
        do {
            let seconds = try Measurement.time { try body(store) }
            if let mismatch = try file.mismatch(in: path) { return .unavailable(mismatch) }
            return .measured(seconds: seconds)
        } catch let error as RepositoryError {
            return .unavailable("the import failed: \(error)")
        }
    }

    private func importRow(
        _ scenario: String, _ file: RecordsFile, _ problem: String?, _ times: [Double], baseline: Double
    ) -> ResultRow {
        if let problem { return .skipped(scenario, reason: problem, target: "≥ 70%") }
        let seconds = Measurement.median(times)
        return .atLeast(
            scenario,
            measured: "\(file.label) in \(Format.duration(seconds)), C \(Format.duration(baseline));"
                + " \(Format.rate(Double(file.records) / seconds)) records",
            ratio: baseline / seconds * 100, limit: 70, suffix: "%")
    }

    /// An import's rate against the plain-table C baseline's, the schema's own cost included in
    /// the import and not in the baseline. Target: at least half.
    private func plainRow(_ scenario: String, _ file: RecordsFile, _ problem: String?, _ times: [Double], plain: Double) -> ResultRow {
        if let problem { return .skipped(scenario, reason: problem, target: "≥ 50%") }
        let seconds = Measurement.median(times)
        return .atLeast(
            scenario,
            measured: "\(file.label) in \(Format.duration(seconds)), plain-table C \(Format.duration(plain))",
            ratio: plain / seconds * 100, limit: 50, suffix: "%")
    }

    /// `sectionctl import --records` of the JSON file against `sqlite-utils insert` of the same
    /// file into a new database, each a whole process, alternately, medians; records per second.
    /// Skipped when `sqlite-utils` is not on the PATH.
    private func peerRow(_ file: RecordsFile, recordsFile: String, sectionctl: String, scratch: Scratch) throws -> ResultRow {
        let scenario = "6. records import, sectionctl vs sqlite-utils insert (whole processes)"
        guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
            return .skipped(scenario, reason: "no sectionctl binary at \(sectionctl)", target: "≥ 1x sqlite-utils' rate")
        }
        guard let sqliteUtils = Self.programOnPath("sqlite-utils") else {
            return .skipped(scenario, reason: "sqlite-utils is not installed (pip install sqlite-utils)", target: "≥ 1x sqlite-utils' rate")
        }
        var ours: [Double] = []
        var theirs: [Double] = []
        for _ in 0..<min(plan.rounds, 3) {
            let database = scratch.file("peer-sectionctl.db")
            _ = try Self.createDatabase(at: database)
            Log.progress("  sectionctl import --records: \(file.label)…")
            let outcome = try ChildProcess.timed(sectionctl, ["--db", database, "import", "--records", recordsFile], errorFile: database + ".err")
            guard outcome.status == 0 else {
                return .skipped(scenario, reason: "sectionctl import --records exited \(outcome.status): \(Self.firstLine(of: database + ".err"))")
            }
            if let mismatch = try file.mismatch(in: database) { throw BenchmarkError("sectionctl import --records: \(mismatch)") }
            ours.append(outcome.seconds)
            scratch.removeDatabase(database)

            let peer = scratch.file("peer-sqlite-utils.db")
            Log.progress("  sqlite-utils insert: \(file.label)…")
            let inserted = try ChildProcess.timed(sqliteUtils, ["insert", peer, "records", recordsFile], errorFile: peer + ".err")
            guard inserted.status == 0 else {
                return .skipped(scenario, reason: "sqlite-utils insert exited \(inserted.status): \(Self.firstLine(of: peer + ".err"))")
            }
            let count = try Baseline.queryInt("SELECT count(*) FROM records", inFile: peer)
            guard count == Int64(file.records) else {
                throw BenchmarkError("sqlite-utils insert: the table holds \(count) records, not \(file.records)")
            }
            theirs.append(inserted.seconds)
            scratch.removeDatabase(peer)
        }
        let (sectionctlTime, peerTime) = (Measurement.median(ours), Measurement.median(theirs))
        return .atLeast(
            scenario,
            measured: "\(file.label), one JSON file: sectionctl \(Format.duration(sectionctlTime))"
                + " (\(Format.rate(Double(file.records) / sectionctlTime)) records, \(Format.count(file.items)) sections and rows),"
                + " sqlite-utils \(Format.duration(peerTime)) (\(Format.rate(Double(file.records) / peerTime)) records,"
                + " one table row each, a commit every 100)",
            ratio: peerTime / sectionctlTime, limit: 1, suffix: "x sqlite-utils' rate")
    }

    /// The first line of a file, for a report.
    static func firstLine(of path: String) -> String {
        ((try? String(contentsOfFile: path, encoding: .utf8)) ?? "").split(separator: "\n").first.map(String.init) ?? "no message"
    }

    /// The path of an executable named `name` in a directory of `PATH`, if any.
    static func programOnPath(_ name: String) -> String? {
        let directories = (ProcessInfo.processInfo.environment["PATH"] ?? "/usr/local/bin:/usr/bin:/bin").split(separator: ":")
        return directories.map { "\($0)/\(name)" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Creates a database through the Repository and returns the id of its default list.
    static func createDatabase(at path: String) throws -> Int64 {
        _ = try SectionStore(path: path, create: true)
        return try Baseline(path: path).queryInt("SELECT id FROM lists WHERE name = 'default'")
    }
}

/// The child mode `sectionctl-bench --child-import-nl DB FILE`: imports newline-delimited
/// records from FILE into the default list of DB through the library, so that the parent can
/// read the child's peak memory.
enum ChildImport {
    static let option = "--child-import-nl"

    static func run(database: String, input: String) -> Int32 {
        do {
            let store = try SectionStore(path: database)
            guard let handle = FileHandle(forReadingAtPath: input) else { throw BenchmarkError("cannot read \(input)") }
            try store.importRecords(lines: handle, options: RecordsImportOptions(list: "default"))
            return 0
        } catch {
            Log.progress("sectionctl-bench: error: \(error)")
            return 1
        }
    }
}
