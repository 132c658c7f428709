import Foundation
import Repository

extension Benchmark {
    /// Scenario 18: large changes taken back. (a) `sectionctl import` of one section of n text
    /// rows into a new file, then `sectionctl undo` and `sectionctl redo`, each a whole process
    /// (time and peak memory, under the intermediary): the undo ≤ 1.5 × the import, its peak at
    /// n = 1M ≤ 1.5 × its peak at n = 100K (memory flat), and the file after the undo and the redo
    /// ≤ 1.3 × its size after the import. (b) Deleting a section of 100,000 rows through the
    /// Repository, and undoing that, against the C baseline's `DELETE` of the same rows and its
    /// `INSERT` of them again on plain tables, each one durable transaction: ≤ 5× each.
    func bulkUndoRows() throws -> [ResultRow] {
        let plan = self.plan
        let sectionctl = sectionctlPath
        return try withScratch("undo") { scratch in
            var rows: [ResultRow] = []
            guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
                return [.skipped("18. undo of an import", reason: "no sectionctl binary at \(sectionctl)")]
            }
            // (a) The import, its undo and its redo, at two sizes.
            var undoPeaks: [Int] = []
            for count in [plan.undoImportSmallRows, plan.undoImportRows] {
                let document = scratch.file("import-\(count).json")
                try Self.writeOneSectionDocument(rows: count, list: "default", to: document)
                // Each repetition into a new file: the import, its undo, its redo, as processes.
                var cycles: [(imported: ChildProcess.Outcome, undone: ChildProcess.Outcome, redone: ChildProcess.Outcome, sizes: (Int, Int))] = []
                let repetitions = count == plan.undoImportRows ? plan.undoRepetitions : 1
                for repetition in 0..<repetitions {
                    let database = scratch.file("import-\(count)-\(repetition).db")
                    _ = try Self.createDatabase(at: database)
                    Log.progress("  import, undo and redo of \(Format.count(count)) rows as whole processes…")
                    func run(_ arguments: [String]) throws -> ChildProcess.Outcome {
                        let outcome = try ChildProcess.run(sectionctl, ["--db", database] + arguments, errorFile: database + ".err")
                        guard outcome.status == 0 else {
                            throw BenchmarkError("sectionctl \(arguments.joined(separator: " ")) exited \(outcome.status): \(outcome.firstErrorLine)")
                        }
                        return outcome
                    }
                    let imported = try run(["import", document])
                    let sizeAfterImport = fileSize(database)
                    let undone = try run(["undo"])
                    let stored = try Baseline.queryInt("SELECT count(*) FROM rows", inFile: database)
                    guard stored == 0 else { throw BenchmarkError("the undo left \(stored) rows") }
                    let redone = try run(["redo"])
                    let restored = try Baseline.queryInt("SELECT count(*) FROM rows", inFile: database)
                    guard restored == Int64(count) else { throw BenchmarkError("the redo stored \(restored) rows, not \(count)") }
                    cycles.append((imported, undone, redone, (sizeAfterImport, fileSize(database))))
                    scratch.removeDatabase(database)
                }
                undoPeaks.append(cycles.map(\.undone.peakMemory).max() ?? 0)
                guard count == plan.undoImportRows else { continue }
                let imported = Measurement.median(cycles.map(\.imported.seconds))
                let undone = Measurement.median(cycles.map(\.undone.seconds))
                let redone = Measurement.median(cycles.map(\.redone.seconds))
                let (sizeAfterImport, sizeAfter) = cycles[0].sizes
                let size = Format.shortCount(count)
                rows.append(
                    .atMost(
                        "18. sectionctl undo of a \(size)-row import vs the import (whole processes)",
                        measured: "import \(Format.duration(imported)), \(Format.mebibytes(cycles[0].imported.peakMemory)) peak;"
                            + " undo \(Format.duration(undone)), \(Format.mebibytes(undoPeaks[1]));"
                            + " redo \(Format.duration(redone)), \(Format.mebibytes(cycles[0].redone.peakMemory)); median of \(cycles.count)",
                        ratio: undone / imported, limit: 1.5))
                rows.append(
                    .atMost(
                        "18. sectionctl undo's peak memory, \(size) vs \(Format.shortCount(plan.undoImportSmallRows))-row import",
                        measured: "\(Format.mebibytes(undoPeaks[1])) vs \(Format.mebibytes(undoPeaks[0]))",
                        ratio: Double(undoPeaks[1]) / Double(undoPeaks[0]), limit: 1.5))
                rows.append(
                    .atMost(
                        "18. file size after the undo and the redo vs after the \(size)-row import",
                        measured: "\(Format.mebibytes(sizeAfter)) vs \(Format.mebibytes(sizeAfterImport))",
                        ratio: Double(sizeAfter) / Double(sizeAfterImport), limit: 1.3))
            }

            // (c) With --long: the peak memory of importing one section of 10M rows.
            if options.long {
                let count = plan.longImportRows
                let document = scratch.file("import-long.json")
                try Self.writeOneSectionDocument(rows: count, list: "default", to: document)
                let database = scratch.file("import-long.db")
                _ = try Self.createDatabase(at: database)
                Log.progress("  import of \(Format.count(count)) rows in one section as a whole process…")
                let outcome = try ChildProcess.run(sectionctl, ["--db", database, "import", document], errorFile: database + ".err")
                guard outcome.status == 0 else { throw BenchmarkError("the import exited \(outcome.status): \(outcome.firstErrorLine)") }
                try? FileManager.default.removeItem(atPath: document)
                rows.append(
                    .atMost(
                        "18. peak memory of an import of \(Format.shortCount(count)) rows in one section",
                        measured: "\(Format.duration(outcome.seconds)), \(Format.mebibytes(fileSize(database))) file",
                        ratio: Double(outcome.peakMemory) / 1_048_576, limit: 64, suffix: " MiB"))
            } else {
                rows.append(.skipped("18. peak memory of an import of 10M rows in one section", reason: "needs --long", target: "≤ 64 MiB"))
            }

            // (b) A section of 100,000 rows deleted and undone, against plain DELETE and INSERT.
            let count = plan.undoSectionRows
            Log.progress("  building \(Format.count(count))-row sections (sectionctl's and plain tables)…")
            let product = try SectionFixture.create(at: scratch.file("section.db"), rows: count)
            let plain = try SectionFixture.createPlain(at: scratch.file("plain.db"), rows: count)
            let store = try product.open()
            let baseline = try Baseline(path: plain.path)
            var times: [[Double]] = [[], [], [], []]
            let rounds = plan.undoRounds
            Log.progress("  timing delete and undo vs DELETE and INSERT: \(rounds) rounds…")
            for _ in 0..<rounds {
                times[0].append(try Measurement.time { try store.list("default").apply(.deleteSection(.index(0), force: true)) })
                times[1].append(try Measurement.time { try store.list("default").undo() })
                times[2].append(try Measurement.time { try baseline.execute("DELETE FROM rows WHERE section_id = \(plain.sectionID)") })
                times[3].append(try Measurement.time { try baseline.fillSection(plain.sectionID, rows: count) })
            }
            guard try store.list("default").snapshot().sections.first?.rows.count == count, try store.check().isEmpty else {
                throw BenchmarkError("the section did not come back whole")
            }
            let medians = times.map(Measurement.median)
            let size = Format.shortCount(count)
            rows.append(
                .atMost(
                    "18. delete of a \(size)-row section vs a plain DELETE of its rows (C, plain tables)",
                    measured: "\(Format.duration(medians[0])) vs \(Format.duration(medians[2]))", ratio: medians[0] / medians[2], limit: 5))
            rows.append(
                .atMost(
                    "18. its undo vs a plain INSERT of the rows (C, plain tables)",
                    measured: "\(Format.duration(medians[1])) vs \(Format.duration(medians[3]))", ratio: medians[1] / medians[3], limit: 5))
            return rows
        }
    }
}
