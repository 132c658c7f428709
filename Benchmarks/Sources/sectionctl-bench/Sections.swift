import Foundation
import Repository

/// A database file whose default list holds `sections` sections of one text row each
/// ("Section i" holding "Row i"), the shape a records import of one-field records gives, built
/// fast: the schema through the Repository, the sections and rows by the C baseline in one
/// transaction marked as sectionctl's own (the schema's triggers keep `row_count` and the rank
/// structure). No connection is left open.
struct SectionsFixture {
    let path: String
    let sections: Int

    static func create(at path: String, sections: Int) throws -> SectionsFixture {
        let listID = try Benchmark.createDatabase(at: path)
        let baseline = try Baseline(path: path)
        try baseline.fillSections(ofList: listID, count: sections)
        let stored = try baseline.queryInt("SELECT count(*) FROM sections WHERE list_id = \(listID)")
        let rows = try baseline.queryInt("SELECT count(*) FROM rows")
        let counted = try baseline.queryInt("SELECT count(*) FROM sections WHERE row_count <> 1")
        guard stored == Int64(sections), rows == Int64(sections), counted == 0 else {
            throw BenchmarkError(
                "\(path): \(stored) sections and \(rows) rows after filling (\(counted) sections not of one row), not \(sections) of one")
        }
        try baseline.checkpoint()
        return SectionsFixture(path: path, sections: sections)
    }

    /// The section the timed reads and moves address: S = s/2.
    var middle: Int { sections / 2 }
}

extension Benchmark {
    /// Scenario 16: many sections of one row each, the shape a records import makes. A list of
    /// 1,000 sections against one of 1,000,000 (`--quick`: 100,000): `sectionctl row get S:0`
    /// and a committed `sectionctl row move S:0 T:0` (and back) with S = s/2 and T = S + 1, as
    /// whole processes, and `row(at:)` of S:0 and `section(.index(S))` in the library, each ≤ 1.5×
    /// at the huge size: a section is found through its list's section rank structure, O(log s).
    func manySectionRows() throws -> [ResultRow] {
        let plan = self.plan
        let sectionctl = sectionctlPath
        return try withScratch("sections") { scratch in
            var rows: [ResultRow] = []
            var fixtures: [SectionsFixture] = []
            for count in [plan.manySectionsSmall, plan.manySectionsLarge] {
                Log.progress("  building \(Format.count(count)) sections of one row…")
                var fixture: SectionsFixture?
                let seconds = try Measurement.time {
                    fixture = try SectionsFixture.create(at: scratch.file("sections-\(count).db"), sections: count)
                }
                Log.progress("  built in \(Format.duration(seconds)) (\(Format.mebibytes(fileSize(fixture!.path))))")
                fixtures.append(fixture!)
                if count == plan.manySectionsLarge {
                    rows.append(
                        .info(
                            "16. fixture: \(Format.shortCount(count)) sections of one row, C bulk insert",
                            measured: "\(Format.count(2 * count)) inserts in one transaction, schema's triggers firing,"
                                + " \(Format.duration(seconds)) (\(Format.mebibytes(fileSize(fixture!.path))))",
                            ratio: "\(Format.rate(Double(count) / seconds)) sections"))
                }
            }
            let small = Format.shortCount(fixtures[0].sections)
            let large = Format.shortCount(fixtures[1].sections)

            // The library: row(at: S:0), the two sizes alternating round by round.
            var movers: [(mover: any Mover, moves: Int)] = []
            for (index, fixture) in fixtures.enumerated() {
                let store = try SectionStore(path: fixture.path)
                // One committed write first: whatever the first write through the Repository does
                // after a plain-SQL fill is paid outside the measurement.
                try store.list("default").apply(.renameSection(.index(0), title: "Section 0"))
                let path = RowPath(section: fixture.middle, row: 0)
                guard try store.list("default").row(at: path).row.content.title == "Row \(fixture.middle)" else {
                    throw BenchmarkError("\(fixture.path): the row at \(fixture.middle):0 is not Row \(fixture.middle)")
                }
                movers.append(
                    (Reader { _ = try store.list("default").row(at: path) }, index == 0 ? plan.sectionLookupsSmall : plan.sectionLookupsLarge))
            }
            Log.progress("  timing row(at: S:0): \(plan.rounds) rounds…")
            let lookups = try Rounds.measuredPerMove(movers, rounds: plan.rounds)
            rows.append(
                .atMost(
                    "16. row(at: S:0), S = s/2, \(large) vs \(small) sections",
                    measured:
                        "library, in this process: \(small): \(Format.duration(lookups[0].seconds)), \(large): \(Format.duration(lookups[1].seconds))",
                    ratio: lookups[1].seconds / lookups[0].seconds, limit: 1.5
                ).with(io: "each, \(small): \(lookups[0].io.cell); \(large): \(lookups[1].io.cell)"))

            // The section alone: `section(.index(S))`, through the list's section rank structure.
            var finders: [(mover: any Mover, moves: Int)] = []
            for (index, fixture) in fixtures.enumerated() {
                let store = try SectionStore(path: fixture.path)
                finders.append(
                    (
                        Reader { _ = try store.list("default").section(.index(fixture.middle)) },
                        index == 0 ? plan.sectionLookupsSmall : plan.sectionLookupsLarge
                    ))
            }
            Log.progress("  timing section(.index(S)): \(plan.rounds) rounds…")
            let sections = try Rounds.measuredPerMove(finders, rounds: plan.rounds)
            rows.append(
                .atMost(
                    "16. section(.index(S)), S = s/2, \(large) vs \(small) sections",
                    measured:
                        "library, in this process: \(small): \(Format.duration(sections[0].seconds)), \(large): \(Format.duration(sections[1].seconds))",
                    ratio: sections[1].seconds / sections[0].seconds, limit: 1.5
                ).with(io: "each, \(small): \(sections[0].io.cell); \(large): \(sections[1].io.cell)"))

            // Whole sectionctl processes.
            guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
                rows.append(
                    .skipped(
                        "16. sectionctl row get / row move, \(large) vs \(small) sections", reason: "no sectionctl binary at \(sectionctl)",
                        target: "≤ 1.5"))
                return rows
            }
            let commands: [(name: String, arguments: (Int) -> [[String]])] = [
                ("sectionctl row get S:0", { s in [["row", "get", "\(s):0"]] }),
                (
                    "sectionctl row move S:0 T:0 (and back)",
                    { s in [["row", "move", "\(s):0", "\(s + 1):0"], ["row", "move", "\(s + 1):0", "\(s):0"]] }
                ),
            ]
            for command in commands {
                Log.progress("  timing \(command.name): \(plan.rounds) rounds…")
                var samples: [[Double]] = [[], []]
                var io = [IOCounters(), IOCounters()]
                for round in 0...plan.rounds {
                    for (index, fixture) in fixtures.enumerated() {
                        let runs = command.arguments(fixture.middle)
                        var elapsed = 0.0
                        for arguments in runs {
                            let errors = scratch.file("sectionctl.err")
                            let outcome = try ChildProcess.timed(sectionctl, ["--db", fixture.path] + arguments, errorFile: errors)
                            guard outcome.status == 0 else {
                                let message = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                                throw BenchmarkError("sectionctl \(arguments.joined(separator: " ")) exited \(outcome.status): \(message)")
                            }
                            elapsed += outcome.seconds
                            if round > 0 { io[index] = io[index] + outcome.io }
                        }
                        if round > 0 { samples[index].append(elapsed / Double(runs.count)) }
                    }
                }
                let (smallTime, largeTime) = (Measurement.median(samples[0]), Measurement.median(samples[1]))
                rows.append(
                    .atMost(
                        "16. \(command.name), S = s/2, \(large) vs \(small) sections",
                        measured: "a whole process: \(Format.duration(smallTime)) vs \(Format.duration(largeTime))",
                        ratio: largeTime / smallTime, limit: 1.5
                    ).with(
                        io: "a process, \(small): \(io[0].per(plan.rounds * command.arguments(0).count).cell);"
                            + " \(large): \(io[1].per(plan.rounds * command.arguments(0).count).cell)"))
            }
            return rows
        }
    }
}
