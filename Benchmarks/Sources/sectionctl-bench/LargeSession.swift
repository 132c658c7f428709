import Foundation
import Repository

extension Benchmark {
    /// Scenario 11: an edit session holds only its edits. A session of one move (begin, move,
    /// save) on a section of 1M rows against one committed move there (≤ 3×), moves addressed
    /// in the middle of the section; the peak memory of a process running such a session at
    /// 1M rows against one at 10K (≤ 2 × the 10K peak + 32 MiB); and one long session of
    /// random moves on the same section, its last 1,000 edits against its first 1,000 (≤ 1.5×).
    func largeSessionRows() throws -> [ResultRow] {
        let plan = self.plan
        return try withScratch("large-session") { scratch in
            Log.progress("  building sections of \(Format.count(plan.sessionSectionRows)) and \(Format.count(plan.hugeSection)) rows…")
            let small = try SectionFixture.create(at: scratch.file("small.db"), rows: plan.sessionSectionRows)
            let huge = try SectionFixture.create(at: scratch.file("huge.db"), rows: plan.hugeSection)

            // The rows came in by plain SQL: a first committed change through the library brings
            // the rank structure into shape, so that no measured run pays for it.
            for fixture in [small, huge] {
                try fixture.open().list("default").apply(.moveRow(.at(0, 0), to: .at(0, 1)))
            }

            // Peak memory first, each in a process of its own.
            var peaks: [Int] = []
            for fixture in [small, huge] {
                Log.progress("  a session of one move on \(Format.count(fixture.rows)) rows, in a child process…")
                let outcome = try ChildProcess.run(
                    ChildProcess.ownPath, [ChildSession.option, fixture.path, String(fixture.rows / 2)], errorFile: fixture.path + ".err")
                guard outcome.status == 0 else { throw BenchmarkError("the session process failed: \(outcome.firstErrorLine)") }
                peaks.append(outcome.peakMemory)
            }

            // Times, interleaved: a session of one move, then one committed move.
            let store = try huge.open()
            var sessionTimes: [Double] = []
            var moveTimes: [Double] = []
            for round in 0...plan.rounds {
                let from = huge.rows / 2 + round % 16
                let session = try Measurement.time {
                    let session = try store.list("default").beginEditing()
                    try session.apply(.moveRow(.at(0, from), to: .at(0, 10)))
                    guard try session.save().changeset.movedRows.count == 1 else { throw BenchmarkError("the session moved nothing") }
                }
                let move = try Measurement.time {
                    guard try store.list("default").apply(.moveRow(.at(0, from), to: .at(0, 11))).changeset.movedRows.count == 1 else {
                        throw BenchmarkError("the move moved nothing")
                    }
                }
                if round > 0 {  // round 0 warms up
                    sessionTimes.append(session)
                    moveTimes.append(move)
                }
            }
            let long = try longSession(store, rows: huge.rows, moves: plan.longSessionMoves)
            let session = Measurement.median(sessionTimes)
            let move = Measurement.median(moveTimes)
            let bound = 2 * peaks[0] + 32 * 1_048_576
            let size = Format.shortCount(huge.rows)
            return [
                .atMost(
                    "11. session of one move, \(size) rows",
                    measured: "session (begin, move, save) \(Format.duration(session)), one committed move \(Format.duration(move))",
                    ratio: session / move, limit: 3, suffix: "x one move"),
                ResultRow(
                    scenario: "11. session peak memory, \(Format.shortCount(small.rows)) vs \(size) rows",
                    measured: "peak RSS \(Format.mebibytes(peaks[0])) vs \(Format.mebibytes(peaks[1])) (bound \(Format.mebibytes(bound)))",
                    ratio: "\(Format.ratio(Double(peaks[1]) / Double(peaks[0])))x",
                    target: "≤ 2x + 32 MiB", verdict: peaks[1] <= bound ? .pass : .fail),
                .atMost(
                    "11. session of \(Format.shortCount(plan.longSessionMoves)) moves, \(size) rows: last vs first 1,000 edits",
                    measured:
                        "first 1,000 \(Format.duration(long.first)), last 1,000 \(Format.duration(long.last)); "
                        + "all \(Format.duration(long.total)), save \(Format.duration(long.save))",
                    ratio: long.last / long.first, limit: 1.5, suffix: "x"),
            ]
        }
    }
}

extension Benchmark {
    /// One session of `moves` random moves (seeded: every run makes the same) within the
    /// section of `rows` rows, from any index to any other, after 2,000 reads that warm the
    /// session's connection; the time of its first and its last 1,000 edits, of all of them,
    /// and of the save.
    func longSession(_ store: SectionStore, rows: Int, moves: Int) throws -> (first: Double, last: Double, total: Double, save: Double) {
        Log.progress("  a session of \(Format.count(moves)) random moves on \(Format.count(rows)) rows…")
        var random = SeededGenerator(seed: 11)
        let window = 1_000
        let session = try store.list("default").beginEditing()
        // The session reads through a connection of its own: warmed first by reads spread over
        // the section, so that its first edits do not pay for a cold page cache.
        for _ in 0..<2_000 {
            _ = try session.row(at: RowPath(section: 0, row: Int.random(in: 0..<rows, using: &random)))
        }
        var first = 0.0
        var last = 0.0
        var total = 0.0
        var done = 0
        while done < moves {
            let count = min(window, moves - done)
            let plan = (0..<count).map { _ in (Int.random(in: 0..<rows, using: &random), Int.random(in: 0..<(rows - 1), using: &random)) }
            let time = try Measurement.time {
                for (from, to) in plan {
                    try session.apply(.moveRow(.at(0, from), to: .at(0, to)))
                }
            }
            if done == 0 { first = time }
            done += count
            if done == moves { last = time }
            total += time
        }
        let save = try Measurement.time {
            guard try session.save().committed else { throw BenchmarkError("the long session saved nothing") }
        }
        return (first, last, total, save)
    }
}

/// The child process of scenario 11: a session of one move from the middle of the section to
/// index 10, saved.
enum ChildSession {
    static let option = "--child-session"

    static func run(database: String, from: Int) -> Int32 {
        do {
            let store = try SectionStore(path: database)
            let session = try store.list("default").beginEditing()
            try session.apply(.moveRow(.at(0, from), to: .at(0, 10)))
            try session.save()
            return 0
        } catch {
            Log.progress("sectionctl-bench: error: \(error)")
            return 1
        }
    }
}
