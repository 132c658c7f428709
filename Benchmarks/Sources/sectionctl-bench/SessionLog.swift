import Foundation
import Repository

extension Benchmark {
    /// Scenario 19: the write-ahead log while an edit session is open. One store opens a session
    /// on a section of 1,000 rows (and makes one edit in it); another store on the same file
    /// commits 2,000 moves (`--quick`: 500) in a second list of 1,000 rows, each its own
    /// transaction; then the size of the `-wal` file, with the session still open. The session
    /// then reads its draft and saves, which must succeed: nothing it read was changed.
    /// Target: ≤ 16 MiB with the session open.
    func sessionLogRows() throws -> [ResultRow] {
        let plan = self.plan
        return try withScratch("wal") { scratch in
            let fixture = try SectionFixture.create(at: scratch.file("wal.db"), rows: plan.smallSection)
            let other = try { () throws -> Int64 in
                let store = try fixture.open()
                try store.createList(named: "other")
                guard let id = try store.list("other").apply(.addSection(title: "Other")).createdID?.sectionID else {
                    throw BenchmarkError("adding a section created nothing")
                }
                return id.rawValue
            }()
            let baseline = try Baseline(path: fixture.path)
            try baseline.fillSection(other, rows: plan.smallSection)
            try baseline.checkpoint()
            let reader = try fixture.open()
            let writer = try fixture.open()
            let list = writer.list("other")
            let session = try reader.list("default").beginEditing()
            try session.apply(.moveRow(.at(0, 0), to: .at(0, 1)))
            Log.progress("  \(Format.count(plan.walCommits)) committed moves from another store while a session is open…")
            for index in 0..<plan.walCommits {
                try list.apply(.moveRow(.at(0, index % 997), to: .at(0, (index * 31 + 7) % 999)))
            }
            let open = fileSize(fixture.path + "-wal")
            let rows = try session.window(from: RowPath(section: 0, row: 0), limit: 2).located.map(\.row.title)
            let saved = try session.save()
            guard saved.committed, rows.count == 2 else {
                throw BenchmarkError("the session's draft read \(rows) and its save committed \(saved.committed)")
            }
            return [
                .atMost(
                    "19. -wal file with an edit session open and \(Format.count(plan.walCommits)) commits by another store",
                    measured: "\(Format.mebibytes(open)) (then the session read its draft and saved)",
                    ratio: Double(open) / 1_048_576, limit: 16, suffix: " MiB")
            ]
        }
    }
}
