import Foundation
import Repository

/// Something read once per call: a lookup a table view makes.
final class Reader: Mover {
    private let read: () throws -> Void
    init(_ read: @escaping () throws -> Void) { self.read = read }
    func move() throws { try read() }
}

extension Benchmark {
    /// Scenario 7: reads and addressing cost what they return, not what the list holds (§11).
    /// The row at index n/2, the index path of the row there by id, a committed move addressed
    /// there (`S:n/2 → S:10` and back), and a 50-row window from there, each at 1K and at 1M
    /// rows (ratio ≤ 1.5); with `--long`, the lookups at 10K and 10M rows (growth ≤ 2×).
    func readRows() throws -> [ResultRow] {
        let plan = self.plan
        return try withScratch("reads") { scratch in
            var sizes = [plan.smallSection, plan.hugeSection]
            if options.long { sizes += [10_000, 10_000_000] }
            var stores: [(rows: Int, store: SectionStore, middleID: RowID)] = []
            for rows in sizes {
                Log.progress("  building a section of \(Format.count(rows)) rows…")
                let fixture = try SectionFixture.create(at: scratch.file("reads-\(rows).db"), rows: rows)
                let store = try fixture.balancedStore()
                stores.append((rows, store, try store.list("default").row(at: RowPath(section: 0, row: rows / 2)).row.id))
            }
            var movers: [(mover: any Mover, moves: Int)] = []
            for entry in stores {
                let middle = RowPath(section: 0, row: entry.rows / 2)
                let store = entry.store
                let id = entry.middleID
                movers.append((Reader { _ = try store.list("default").row(at: middle) }, plan.readsPerRound))
                movers.append((Reader { _ = try store.list("default").path(ofRow: id) }, plan.readsPerRound))
                movers.append((Reader { _ = try store.list("default").window(from: middle, limit: 50) }, plan.readsPerRound))
                movers.append(
                    (
                        RepositoryMover(
                            store: store, cycling: [.moveRow(.at(0, middle.row), to: .at(0, 10)), .moveRow(.at(0, 10), to: .at(0, middle.row))]),
                        plan.movesPerRound
                    ))
            }
            Log.progress("  timing reads and moves: \(plan.rounds) rounds…")
            let measured = try Rounds.measuredPerMove(movers, rounds: plan.rounds)
            func time(_ size: Int, _ what: Int) -> Double { measured[size * 4 + what].seconds }
            func io(_ size: Int, _ what: Int) -> IOCounters { measured[size * 4 + what].io }
            let names = ["row at n/2", "path of row #ID at n/2", "50-row window from n/2", "move S:n/2 -> S:10 (committed)"]
            let small = Format.shortCount(sizes[0])
            let large = Format.shortCount(sizes[1])
            var rows: [ResultRow] = []
            for (what, name) in names.enumerated() {
                rows.append(
                    .atMost(
                        "7. \(name), \(large) vs \(small) rows",
                        measured: "\(small): \(Format.duration(time(0, what))), \(large): \(Format.duration(time(1, what)))",
                        ratio: time(1, what) / time(0, what), limit: 1.5
                    ).with(io: "each, \(small): \(io(0, what).cell); \(large): \(io(1, what).cell)"))
            }
            rows += try commandLineRows(stores.prefix(2).map { ($0.rows, $0.store.path) })
            if options.long {
                for (what, name) in names.prefix(2).enumerated() {
                    rows.append(
                        .atMost(
                            "7. \(name), 10M vs 10K rows",
                            measured: "10K: \(Format.duration(time(2, what))), 10M: \(Format.duration(time(3, what)))",
                            ratio: time(3, what) / time(2, what), limit: 2))
                }
            } else {
                rows.append(.skipped("7. lookups, 10M vs 10K rows", reason: "needs --long (builds a 10M-row section)", target: "≤ 2"))
            }
            return rows
        }
    }
}

extension Benchmark {
    /// The same reads and the deep move as a CLI user meets them: one whole `sectionctl` process
    /// per command, small list vs huge list, medians over the rounds.
    func commandLineRows(_ databases: [(rows: Int, path: String)]) throws -> [ResultRow] {
        let sectionctl = sectionctlPath
        guard FileManager.default.isExecutableFile(atPath: sectionctl), databases.count == 2 else {
            return [.skipped("7. the same through the CLI", reason: "no sectionctl binary at \(sectionctl)")]
        }
        let commands: [(name: String, arguments: (Int) -> [[String]])] = [
            ("sectionctl row get S:n/2", { rows in [["row", "get", "0:\(rows / 2)"]] }),
            ("sectionctl show --from S:n/2 --limit 50", { rows in [["show", "--from", "0:\(rows / 2)", "--limit", "50"]] }),
            (
                "sectionctl row move S:n/2 S:10 (and back)",
                { rows in [["row", "move", "0:\(rows / 2)", "0:10"], ["row", "move", "0:10", "0:\(rows / 2)"]] }
            ),
        ]
        var rows: [ResultRow] = []
        for command in commands {
            var samples: [[Double]] = [[], []]
            for round in 0...plan.rounds {
                for (index, database) in databases.enumerated() {
                    let elapsed = try Measurement.time {
                        for arguments in command.arguments(database.rows) {
                            let process = Process()
                            process.executableURL = URL(fileURLWithPath: sectionctl)
                            process.arguments = ["--db", database.path] + arguments
                            process.standardOutput = FileHandle.nullDevice
                            process.standardError = FileHandle.nullDevice
                            try process.run()
                            process.waitUntilExit()
                            guard process.terminationStatus == 0 else {
                                throw BenchmarkError("sectionctl \(arguments.joined(separator: " ")) exited \(process.terminationStatus)")
                            }
                        }
                    }
                    if round > 0 { samples[index].append(elapsed / Double(command.arguments(database.rows).count)) }
                }
            }
            let small = Measurement.median(samples[0])
            let large = Measurement.median(samples[1])
            rows.append(
                .atMost(
                    "7. \(command.name), \(Format.shortCount(databases[1].rows)) vs \(Format.shortCount(databases[0].rows)) rows",
                    measured: "a whole process: \(Format.duration(small)) vs \(Format.duration(large))",
                    ratio: large / small, limit: 1.5))
        }
        return rows
    }
}

extension SectionFixture {
    /// Opens the store and commits one empty transaction, in which the rank structure that the
    /// fixture's plain-SQL inserts left unbalanced is cut into shape (as any write through the
    /// Repository would).
    func balancedStore() throws -> SectionStore {
        let store = try open()
        try store.list("default").apply(.renameSection(.index(0), title: "Bench"))
        return store
    }
}

extension Benchmark {
    /// Scenario 12: `sectionctl demo`, a whole process building its demo database and showing the
    /// features, as a new user first meets the tool (it was a timed test once; a figure belongs
    /// here).
    func demoRows() throws -> [ResultRow] {
        let sectionctl = sectionctlPath
        guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
            return [.skipped("12. sectionctl demo", reason: "no sectionctl binary at \(sectionctl)")]
        }
        return try withScratch("demo") { scratch in
            var samples: [Double] = []
            for round in 0...min(plan.rounds, 5) {
                let path = scratch.file("demo-\(round).db")
                let process = Process()
                process.executableURL = URL(fileURLWithPath: sectionctl)
                process.arguments = ["--db", path, "demo"]
                process.standardOutput = FileHandle.nullDevice
                process.standardError = FileHandle.nullDevice
                let elapsed = try Measurement.time {
                    try process.run()
                    process.waitUntilExit()
                }
                guard process.terminationStatus == 0 else { throw BenchmarkError("sectionctl demo exited \(process.terminationStatus)") }
                if round > 0 { samples.append(elapsed) }
            }
            let median = Measurement.median(samples)
            return [
                .atMost(
                    "12. sectionctl demo, a whole process", measured: "median of \(samples.count): \(Format.duration(median))", ratio: median,
                    limit: 5, suffix: " s")
            ]
        }
    }
}
