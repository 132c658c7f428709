import Foundation

/// Per-move medians, in seconds, of moves between the ends of a section (`S:0 → S:end` and
/// back) through the Repository and of the C baseline's single-row UPDATE, on sections of two
/// sizes; and of a move addressed deep inside the huge section.
struct EndMoveTimes {
    var smallRows: Int
    var repositorySmall: Double
    var baselineSmall: Double
    /// The same single-row UPDATE on plain tables (no triggers, no rank tables), small size.
    var plainSmall: Double
    var huge: Huge?

    struct Huge {
        var rows: Int
        var repository: Double
        var baseline: Double
        var deepIndex: Int
        var deep: Double
    }
}

extension Benchmark {
    /// Scenario 1: the cost of a move between the ends of a section does not grow with the
    /// section (1K vs 1M rows, ratio ≤ 1.5). A move addressed deep inside is reported apart.
    func endMoveRows() throws -> [ResultRow] {
        let times = try measureEndMoves(includeHuge: true)
        guard let huge = times.huge else { return [] }
        let small = Format.shortCount(times.smallRows)
        let large = Format.shortCount(huge.rows)
        let measured =
            "Repository \(small): \(Format.duration(times.repositorySmall)), \(large): \(Format.duration(huge.repository)) per move"
            + " (C UPDATE \(small): \(Format.duration(times.baselineSmall)), \(large): \(Format.duration(huge.baseline)))"
        return [
            .atMost(
                "1. move S:0<->S:end, \(large) vs \(small) rows", measured: measured,
                ratio: huge.repository / times.repositorySmall, limit: 1.5),
            .info(
                "1. move S:\(huge.deepIndex)<->S:0 (deep), \(large) rows",
                measured: "\(Format.duration(huge.deep)) per move (rank lookups: O(log n))",
                ratio: "\(Format.ratio(huge.deep / huge.repository))x end move"),
        ]
    }

    /// Scenario 3: one move through the Repository costs ≤ 3× a single-row UPDATE in its own
    /// transaction by the C baseline, on the same kind of file (1K rows). Beside it, the same
    /// UPDATE on plain tables (sectionctl's columns and unique indexes, no triggers or rank
    /// tables): what the move costs against SQLite without the schema's own work.
    func singleMoveRows() throws -> [ResultRow] {
        let times = try measureEndMoves(includeHuge: false)
        let rows = Format.shortCount(times.smallRows)
        return [
            .atMost(
                "3. one move vs C one-row UPDATE txn, \(rows) rows",
                measured: "Repository \(Format.duration(times.repositorySmall)), C \(Format.duration(times.baselineSmall))",
                ratio: times.repositorySmall / times.baselineSmall, limit: 3, suffix: "x"),
            .info(
                "3. one move vs C one-row UPDATE txn on plain tables, \(rows) rows",
                measured: "Repository \(Format.duration(times.repositorySmall)), plain-table C \(Format.duration(times.plainSmall))"
                    + " (same-schema C \(Format.duration(times.baselineSmall)): the schema's triggers"
                    + " \(Format.ratio(times.baselineSmall / times.plainSmall))x)",
                ratio: "\(Format.ratio(times.repositorySmall / times.plainSmall))x"),
        ]
    }

    private func measureEndMoves(includeHuge: Bool) throws -> EndMoveTimes {
        if let endMoves, endMoves.huge != nil || !includeHuge { return endMoves }
        let plan = self.plan
        let times = try withScratch("ends") { scratch in
            let small = try SectionFixture.create(at: scratch.file("small.db"), rows: plan.smallSection)
            let smallBaseline = try small.copy(to: scratch.file("small-baseline.db"))
            let smallPlain = try SectionFixture.createPlain(at: scratch.file("small-plain.db"), rows: plan.smallSection)
            var hugeFixtures: (SectionFixture, SectionFixture)?
            if includeHuge {
                Log.progress("  building a section of \(Format.count(plan.hugeSection)) rows…")
                var huge: SectionFixture?
                let built = try Measurement.time {
                    huge = try SectionFixture.create(at: scratch.file("huge.db"), rows: plan.hugeSection)
                }
                Log.progress("  built in \(Format.duration(built)) (\(Format.mebibytes(fileSize(huge!.path))))")
                hugeFixtures = (huge!, try huge!.copy(to: scratch.file("huge-baseline.db")))
            }
            let smallStore = try small.open()
            var movers: [(mover: any Mover, moves: Int)] = [
                (RepositoryMover(endsOf: smallStore), plan.movesPerRound),
                (try BaselineMover(fixture: smallBaseline), plan.movesPerRound),
                (try BaselineMover(fixture: smallPlain), plan.movesPerRound),
            ]
            let hugeStore = try hugeFixtures.map { try $0.0.open() }
            let deepIndex = plan.hugeSection / 2
            if let hugeFixtures, let hugeStore {
                movers.append((RepositoryMover(endsOf: hugeStore), plan.movesPerRound))
                movers.append((try BaselineMover(fixture: hugeFixtures.1), plan.movesPerRound))
                movers.append((RepositoryMover(store: hugeStore, deepAt: deepIndex), plan.deepMovesPerRound))
            }
            Log.progress("  timing moves: \(plan.rounds) rounds of \(plan.movesPerRound) per configuration, in blocks…")
            let medians = try Rounds.medianPerMove(movers, rounds: plan.rounds)
            var times = EndMoveTimes(
                smallRows: plan.smallSection, repositorySmall: medians[0], baselineSmall: medians[1], plainSmall: medians[2])
            if hugeStore != nil {
                times.huge = EndMoveTimes.Huge(
                    rows: plan.hugeSection, repository: medians[3], baseline: medians[4], deepIndex: deepIndex, deep: medians[5])
            }
            return times
        }
        endMoves = times
        return times
    }
}
