import Foundation
import Repository

extension Benchmark {
    /// Scenario 19: the write-ahead log while an edit session is open. One store opens a session
    /// on a section of 1,000 rows (and makes one edit in it); another store on the same file
    /// commits 2,000 moves (`--quick`: 500), each its own transaction; then the size of the
    /// `-wal` file, and the same after the session is cancelled and two more moves committed.
    /// Target: ≤ 16 MiB with the session open.
    func sessionLogRows() throws -> [ResultRow] {
        let plan = self.plan
        return try withScratch("wal") { scratch in
            let fixture = try SectionFixture.create(at: scratch.file("wal.db"), rows: plan.smallSection)
            let reader = try fixture.open()
            let writer = try fixture.open()
            let session = try reader.list("default").beginEditing()
            try session.apply(.moveRow(.at(0, 0), to: .at(0, 1)))
            Log.progress("  \(Format.count(plan.walCommits)) committed moves from another store while a session is open…")
            let list = writer.list("default")
            for index in 0..<plan.walCommits {
                try list.apply(.moveRow(.at(0, index % 997), to: .at(0, (index * 31 + 7) % 999)))
            }
            let open = fileSize(fixture.path + "-wal")
            _ = session.cancel()
            // The first commit after it checkpoints the whole log; the next starts it over,
            // truncated to `journal_size_limit`.
            try list.apply(.moveRow(.at(0, 0), to: .at(0, 1)))
            try list.apply(.moveRow(.at(0, 1), to: .at(0, 0)))
            let after = fileSize(fixture.path + "-wal")
            return [
                .atMost(
                    "19. -wal file with an edit session open and \(Format.count(plan.walCommits)) commits by another store",
                    measured: "\(Format.mebibytes(open)) (after the session ended and two more commits: \(Format.mebibytes(after)))",
                    ratio: Double(open) / 1_048_576, limit: 16, suffix: " MiB")
            ]
        }
    }
}
