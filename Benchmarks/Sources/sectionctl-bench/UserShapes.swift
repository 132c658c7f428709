import Foundation
import Repository

extension Benchmark {
    /// Scenario 21: fixtures made the way users make them, with `sectionctl import`, measured in
    /// pages read and written (`/proc/self/io`, `/proc/PID/io`) as well as time.
    ///
    /// - 1,000 committed moves `S:0 → T:0` and back (S = s/2, T = S + 1) through the library, and
    ///   a few as whole `sectionctl row move` processes, in a list of 1M one-row sections made by
    ///   `sectionctl import` against the same list built by C (scenario 16's fixture): ≤ 1.2× in
    ///   pages read and in time. The import leaves its changeset in the journal; the C fill
    ///   leaves none.
    /// - A 10-row import of a new list, a whole process, into a file holding 10M rows against an
    ///   empty file: ≤ 1.5×.
    /// - 100,000 lists of one one-row section in one document against 10,000: time per list
    ///   ≤ 1.5×.
    func userShapeRows() throws -> [ResultRow] {
        let sectionctl = sectionctlPath
        guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
            return [.skipped("21. shapes", reason: "no sectionctl binary at \(sectionctl)", target: "≤ 1.2x")]
        }
        return try withScratch("shapes") { scratch in
            var rows = try movesAfterImportRows(sectionctl: sectionctl, scratch: scratch)
            rows += try importIntoLargeFileRows(sectionctl: sectionctl, scratch: scratch)
            rows += try manyListsRows(sectionctl: sectionctl, scratch: scratch)
            return rows
        }
    }

    /// Writes a native document of `sections` sections of one text row ("Section i" holding
    /// "Row i") in the list `default`: the shape scenario 16's C fixture has.
    static func writeOneRowSections(to path: String, sections: Int) throws {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw BenchmarkError("cannot write \(path)")
        }
        defer { try? handle.close() }
        var text = #"{"format": "sectionctl", "version": 1, "lists": [{"name": "default", "sections": ["#
        for index in 0..<sections {
            text += (index == 0 ? "\n" : ",\n")
            text += #"{"title": "Section \#(index)", "rows": [{"kind": "text", "title": "Row \#(index)", "value": null}]}"#
            if text.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(text.utf8))
                text = ""
            }
        }
        text += "\n]}]}\n"
        try handle.write(contentsOf: Data(text.utf8))
    }

    /// Runs `sectionctl ARGUMENTS` on `database` and fails unless it exits 0.
    private func sectionctlRun(_ sectionctl: String, _ database: String, _ arguments: [String], scratch: Scratch) throws -> (
        seconds: Double, io: IOCounters
    ) {
        let errors = scratch.file("sectionctl.err")
        let outcome = try ChildProcess.timed(sectionctl, ["--db", database] + arguments, errorFile: errors)
        guard outcome.status == 0 else {
            let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
            throw BenchmarkError("sectionctl \(arguments.joined(separator: " ")) exited \(outcome.status): \(message)")
        }
        return (outcome.seconds, outcome.io)
    }

    /// Part (a): moves in a list made by `sectionctl import` against the same list built by C.
    private func movesAfterImportRows(sectionctl: String, scratch: Scratch) throws -> [ResultRow] {
        let plan = self.plan
        let count = plan.shapeSections
        let size = Format.shortCount(count)
        var rows: [ResultRow] = []

        Log.progress("  writing and importing \(Format.count(count)) one-row sections with sectionctl import…")
        let document = scratch.file("sections.json")
        try Self.writeOneRowSections(to: document, sections: count)
        let imported = scratch.file("imported.db")
        _ = try Self.createDatabase(at: imported)
        let importOutcome = try ChildProcess.run(sectionctl, ["--db", imported, "import", document], errorFile: scratch.file("import.err"))
        guard importOutcome.status == 0 else {
            throw BenchmarkError("sectionctl import of \(count) sections exited \(importOutcome.status): \(importOutcome.firstErrorLine)")
        }
        try? FileManager.default.removeItem(atPath: document)
        let journal = try Baseline(path: imported).queryInt("SELECT coalesce(max(length(changes)), 0) FROM journal")
        rows.append(
            .info(
                "21. fixture: \(size) one-row sections by sectionctl import",
                measured: "a whole process, \(Format.duration(importOutcome.seconds)), peak \(Format.mebibytes(importOutcome.peakMemory));"
                    + " its journal entry \(Format.mebibytes(Int(journal))); file \(Format.mebibytes(fileSize(imported)))",
                io: importOutcome.io.cell))

        Log.progress("  building \(Format.count(count)) one-row sections by C…")
        var built: SectionsFixture?
        let buildIO = try IOCounters.measure {
            built = try SectionsFixture.create(at: scratch.file("built.db"), sections: count)
        }
        rows.append(
            .info(
                "21. fixture: the same list built by C (scenario 16's)", measured: "file \(Format.mebibytes(fileSize(built!.path)))",
                io: buildIO.cell))

        let paths = [imported, built!.path]
        let middle = count / 2
        // Both files' stores, each warmed by one committed write (as scenario 16 does).
        let stores = try paths.map { path in
            let store = try SectionStore(path: path)
            try store.list("default").apply(.renameSection(.index(0), title: "Section 0"))
            guard try store.list("default").row(at: RowPath(section: middle, row: 0)).row.content.title == "Row \(middle)" else {
                throw BenchmarkError("\(path): the row at \(middle):0 is not Row \(middle)")
            }
            return store
        }
        let movers = stores.map { store in
            RepositoryMover(
                store: store,
                cycling: [.moveRow(.at(middle, 0), to: .at(middle + 1, 0)), .moveRow(.at(middle + 1, 0), to: .at(middle, 0))])
        }

        // The library: rounds of `shapeMovesPerRound` moves, the two files alternating, one
        // warm-up round, then rounds until each file has had `shapeMoves` moves.
        let rounds = max(1, plan.shapeMoves / plan.shapeMovesPerRound)
        Log.progress("  timing \(Format.count(plan.shapeMoves)) moves in each file (\(rounds) rounds)…")
        var times: [[Double]] = [[], []]
        var io = [IOCounters(), IOCounters()]
        // Each file's slowest move of all (warm-up included), its number (1 = the first after the
        // warming rename), and the most pages one round read.
        var slowest = [(seconds: 0.0, move: 0), (seconds: 0.0, move: 0)]
        var worstRound = [0.0, 0.0]
        for round in 0...rounds {
            for (index, mover) in movers.enumerated() {
                var elapsed = 0.0
                let used = try IOCounters.measure {
                    for move in 0..<plan.shapeMovesPerRound {
                        let seconds = try Measurement.time { try mover.move() }
                        elapsed += seconds
                        if seconds > slowest[index].seconds { slowest[index] = (seconds, round * plan.shapeMovesPerRound + move + 1) }
                    }
                }
                worstRound[index] = max(worstRound[index], used.pagesRead)
                if round > 0 {
                    times[index].append(elapsed / Double(plan.shapeMovesPerRound))
                    io[index] = io[index] + used
                }
            }
        }
        let moves = rounds * plan.shapeMovesPerRound
        let perMove = io.map { $0.per(moves) }
        let (importedTime, builtTime) = (Measurement.median(times[0]), Measurement.median(times[1]))
        let name = "21. a committed move S:0 → T:0 (and back), S = s/2, library, after a \(size)-section sectionctl import vs a C-built list"
        rows.append(
            .atMost(
                name + ": time", measured: "\(Format.count(moves)) moves each: \(Format.duration(importedTime)) vs \(Format.duration(builtTime))",
                ratio: importedTime / builtTime, limit: 1.2, suffix: "x"
            ).with(io: "imported \(perMove[0].cell); C-built \(perMove[1].cell)"))
        rows.append(
            .atMost(
                name + ": pages read per move",
                measured: "\(Format.pages(perMove[0].pagesRead)) vs \(Format.pages(perMove[1].pagesRead)) (rchar / 4096)",
                ratio: perMove[0].pagesRead / max(perMove[1].pagesRead, 1e-9), limit: 1.2, suffix: "x"))
        rows.append(
            .info(
                name + ": pages written per move",
                measured: "\(Format.pages(perMove[0].pagesWritten)) vs \(Format.pages(perMove[1].pagesWritten)) (wchar / 4096)",
                ratio: Format.ratio(perMove[0].pagesWritten / max(perMove[1].pagesWritten, 1e-9)) + "x"))
        rows.append(
            .info(
                name + ": the slowest move",
                measured: "imported: \(Format.duration(slowest[0].seconds)), move \(slowest[0].move) after the rename;"
                    + " C-built: \(Format.duration(slowest[1].seconds)), move \(slowest[1].move)",
                ratio: Format.ratio(slowest[0].seconds / slowest[1].seconds) + "x"
            ).with(
                io: "the most pages a round of \(plan.shapeMovesPerRound) read: imported \(Format.pages(worstRound[0])),"
                    + " C-built \(Format.pages(worstRound[1]))"))
        drop(stores)

        // Whole processes: `row move` there and back, the two files alternating.
        Log.progress("  timing \(plan.shapeMoveProcesses) sectionctl row move processes in each file…")
        var processTimes: [[Double]] = [[], []]
        var processIO = [IOCounters(), IOCounters()]
        for index in 0..<plan.shapeMoveProcesses {
            let arguments = index % 2 == 0 ? ["row", "move", "\(middle):0", "\(middle + 1):0"] : ["row", "move", "\(middle + 1):0", "\(middle):0"]
            for (file, path) in paths.enumerated() {
                let outcome = try sectionctlRun(sectionctl, path, arguments, scratch: scratch)
                processTimes[file].append(outcome.seconds)
                processIO[file] = processIO[file] + outcome.io
            }
        }
        let perProcess = processIO.map { $0.per(plan.shapeMoveProcesses) }
        let (importedProcess, builtProcess) = (Measurement.median(processTimes[0]), Measurement.median(processTimes[1]))
        let processName = "21. sectionctl row move S:0 T:0 processes after a \(size)-section sectionctl import vs a C-built list"
        rows.append(
            .atMost(
                processName + ": time",
                measured: "\(plan.shapeMoveProcesses) each, medians: \(Format.duration(importedProcess)) vs \(Format.duration(builtProcess))",
                ratio: importedProcess / builtProcess, limit: 1.2, suffix: "x"
            ).with(io: "imported \(perProcess[0].cell); C-built \(perProcess[1].cell)"))
        rows.append(
            .atMost(
                processName + ": pages read per process",
                measured: "\(Format.pages(perProcess[0].pagesRead)) vs \(Format.pages(perProcess[1].pagesRead)) (the child's rchar / 4096)",
                ratio: perProcess[0].pagesRead / max(perProcess[1].pagesRead, 1e-9), limit: 1.2, suffix: "x"))
        scratch.removeDatabase(imported)
        scratch.removeDatabase(built!.path)
        return rows
    }

    /// Keeps `stores` alive until here, so that they close only after the timing.
    private func drop(_ stores: [SectionStore]) { withExtendedLifetime(stores) {} }

    /// Part (b): a 10-row import of a new list into a file of 10M rows against an empty file.
    private func importIntoLargeFileRows(sectionctl: String, scratch: Scratch) throws -> [ResultRow] {
        let plan = self.plan
        let large = try largeFileCopy(rows: plan.shapeLargeFileRows, into: scratch)
        let empty = scratch.file("empty.db")
        _ = try Self.createDatabase(at: empty)
        let size = Format.shortCount(plan.shapeLargeFileRows)
        var times: [[Double]] = [[], []]
        var io: [[IOCounters]] = [[], []]
        Log.progress("  timing a \(plan.shapeSmallImportRows)-row import into \(size) rows and into an empty file: \(plan.rounds) rounds…")
        for round in 0...plan.rounds {
            let document = scratch.file("small-\(round).json")
            let rowsText = (0..<plan.shapeSmallImportRows).map { #"{"kind": "text", "title": "Row \#($0)", "value": null}"# }
            let text =
                #"{"lists": [{"name": "new \#(round)", "sections": [{"title": "Imported", "rows": ["#
                + rowsText.joined(separator: ", ") + "]}]}]}\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: document))
            for (index, path) in [empty, large].enumerated() {
                let outcome = try sectionctlRun(sectionctl, path, ["import", document], scratch: scratch)
                if round > 0 {
                    times[index].append(outcome.seconds)
                    io[index].append(outcome.io)
                }
            }
        }
        let emptyTime = Measurement.median(times[0])
        let largeTime = Measurement.median(times[1])
        let emptyPages = Measurement.median(io[0].map(\.pagesRead))
        let largePages = Measurement.median(io[1].map(\.pagesRead))
        let name = "21. a \(plan.shapeSmallImportRows)-row import of a new list, a whole process, into \(size) rows vs an empty file"
        scratch.removeDatabase(large)
        scratch.removeDatabase(empty)
        return [
            .atMost(
                name + ": time", measured: "medians of \(plan.rounds): \(Format.duration(largeTime)) vs \(Format.duration(emptyTime))",
                ratio: largeTime / emptyTime, limit: 1.5, suffix: "x"
            ).with(io: "into \(size): \(io[1].last!.cell); empty: \(io[0].last!.cell)"),
            .atMost(
                name + ": pages read", measured: "medians: \(Format.pages(largePages)) vs \(Format.pages(emptyPages)) (the child's rchar / 4096)",
                ratio: largePages / max(emptyPages, 1e-9), limit: 1.5, suffix: "x"),
        ]
    }

    /// A copy, in `scratch`, of a file whose default list holds one section of `rows` rows,
    /// built by C; with `--cache DIR` the built file is kept there and later runs copy it.
    private func largeFileCopy(rows: Int, into scratch: Scratch) throws -> String {
        let copy = scratch.file("large.db")
        let name = "shapes-section-\(rows).db"
        if let cache = options.cache {
            let cached = cache + "/" + name
            if !FileManager.default.fileExists(atPath: cached) {
                try FileManager.default.createDirectory(atPath: cache, withIntermediateDirectories: true)
                Log.progress("  building \(Format.count(rows)) rows by C into the cache \(cached)…")
                let seconds = try Measurement.time { _ = try SectionFixture.create(at: cached + ".partial", rows: rows) }
                try FileManager.default.moveItem(atPath: cached + ".partial", toPath: cached)
                Log.progress("  built in \(Format.duration(seconds))")
            } else {
                Log.progress("  copying the cached \(Format.count(rows))-row file \(cached)…")
            }
            try FileManager.default.copyItem(atPath: cached, toPath: copy)
            return copy
        }
        Log.progress("  building \(Format.count(rows)) rows by C (--cache DIR keeps the file for later runs)…")
        let seconds = try Measurement.time { _ = try SectionFixture.create(at: copy, rows: rows) }
        Log.progress("  built in \(Format.duration(seconds))")
        return copy
    }

    /// Part (c): L lists of one one-row section in one document, imported by one process, at
    /// 10,000 and 100,000 lists: time per list.
    private func manyListsRows(sectionctl: String, scratch: Scratch) throws -> [ResultRow] {
        let counts = [plan.shapeLists, plan.shapeLists * 10]
        var perList: [Double] = []
        var ios: [IOCounters] = []
        for count in counts {
            let document = scratch.file("lists-\(count).json")
            var text = #"{"lists": ["#
            text += (0..<count).map {
                #"{"name": "list \#($0)", "sections": [{"title": "s", "rows": [{"kind": "text", "title": "r", "value": null}]}]}"#
            }.joined(separator: ",\n")
            text += "]}\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: document))
            let database = scratch.file("lists-\(count).db")
            _ = try Self.createDatabase(at: database)
            Log.progress("  sectionctl import of \(Format.count(count)) lists of one one-row section…")
            let outcome = try sectionctlRun(sectionctl, database, ["import", document], scratch: scratch)
            let stored = try Baseline(path: database).queryInt("SELECT count(*) FROM rows")
            guard stored == Int64(count) else { throw BenchmarkError("the import of \(count) lists stored \(stored) rows") }
            perList.append(outcome.seconds / Double(count))
            ios.append(outcome.io)
            scratch.removeDatabase(database)
            try? FileManager.default.removeItem(atPath: document)
        }
        return [
            .atMost(
                "21. import of \(Format.shortCount(counts[1])) vs \(Format.shortCount(counts[0])) lists of one one-row section, time per list",
                measured: "\(Format.duration(perList[0] * Double(counts[0]))) for \(Format.count(counts[0])),"
                    + " \(Format.duration(perList[1] * Double(counts[1]))) for \(Format.count(counts[1])); whole processes",
                ratio: perList[1] / perList[0], limit: 1.5, suffix: "x"
            ).with(
                io: "\(Format.shortCount(counts[0])): \(ios[0].cell); \(Format.shortCount(counts[1])): \(ios[1].cell);"
                    + " per list \(Format.pages(ios[0].pagesRead / Double(counts[0]))) vs \(Format.pages(ios[1].pagesRead / Double(counts[1]))) read")
        ]
    }
}
