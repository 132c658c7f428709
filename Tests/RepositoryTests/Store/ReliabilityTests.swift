import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

@Suite("Reliability")
struct ReliabilityTests {
    @Test func aFullDiskIsReportedAndNothingIsWritten() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        let before = try store.list("default").snapshot()
        // Cap the file at its current size: the next growth fails as a full disk would.
        try store.connection.withLock { db in
            let pages = try db.scalarInt("PRAGMA page_count") ?? 0
            _ = try db.query("PRAGMA max_page_count = \(pages)") { $0.int(0) }
        }
        let big = String(repeating: "x", count: 200_000)
        #expect(throws: RepositoryError.diskFull) {
            try store.list("default").apply(.addRow(.text(big), to: .at(0, 0)))
        }
        #expect(try store.list("default").snapshot() == before)
        // The store keeps working for changes that fit.
        try store.list("default").apply(.addRow(.text("small"), to: .at(0, 0)))
        #expect(try store.list("default").snapshot().rowCount == 1)
    }

    @Test func aLockHeldPastTheTimeoutIsBusyAndNothingIsWritten() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        store.connection.withLock { ($0 as! SQLiteEngine).connection.setBusyTimeout(milliseconds: 100) }
        let before = try store.list("default").snapshot()
        let other = try Connection(path: fixture.path, mode: .readWrite)
        try other.execute(script: "BEGIN IMMEDIATE")
        #expect(throws: RepositoryError.busy) { try store.list("default").apply(.addSection(title: "A")) }
        try other.execute(script: "ROLLBACK")
        #expect(try store.list("default").snapshot() == before)
        try store.list("default").apply(.addSection(title: "A"))
    }

    @Test func aDamagedFileIsReportedNotTrusted() throws {
        let fixture = try StoreFixture()
        for index in 0..<200 {
            try fixture.list.apply(.addSection(title: "section \(index) " + String(repeating: "x", count: 100)))
        }
        // Flush the WAL into the main file, then overwrite the pages after the header.
        try fixture.store.connection.withLock { db in _ = try db.query("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int(0) } }
        let handle = try FileHandle(forWritingTo: URL(filePath: fixture.path))
        try handle.seek(toOffset: 4096)
        try handle.write(contentsOf: Data(repeating: 0xA5, count: 4096 * 4))
        try handle.close()
        #expect(throws: RepositoryError.corrupt(path: fixture.path, detail: "database disk image is malformed")) {
            let reopened = try SectionStore(path: fixture.path)
            _ = try reopened.list("default").snapshot()
        }
    }

    @Test func orderAndCountsSurviveManyOperations() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        var random = SeededGenerator(seed: 5)
        // The same operations on plain arrays: what the order must be.
        var model: [[String]] = Array(repeating: [], count: 4)
        for index in 0..<4 { try store.list("default").apply(.addSection(title: "s\(index)")) }
        for step in 0..<600 {
            let section = Int.random(in: 0..<4, using: &random)
            if Int.random(in: 0..<3, using: &random) == 0 {
                try store.list("default").apply(.addRow(.text("r\(step)"), to: .init(section: .index(section), index: .index(0))))
                model[section].insert("r\(step)", at: 0)
            } else if let from = model.indices.first(where: { !model[$0].isEmpty }) {
                try store.list("default").apply(.moveRow(.path(.index(from), .index(0)), to: .init(section: .index(section), index: .end)))
                model[section].append(model[from].removeFirst())
            }
            if step % 100 == 99 {
                #expect(try store.list("default").snapshot().sections.map { $0.rows.map(\.title) } == model, "after step \(step)")
            }
        }
        #expect(try store.list("default").snapshot().sections.map { $0.rows.map(\.title) } == model)
        #expect(model.joined().count > 100, "the run should move a good number of rows")
        let problems = try store.read { db in
            try db.query("PRAGMA integrity_check") { $0.string(0) }
                + db.query("SELECT 'row_count of ' || id FROM sections AS s WHERE row_count <> (SELECT count(*) FROM rows WHERE section_id = s.id)") {
                    $0.string(0)
                }
        }
        #expect(problems == ["ok"])
    }
}
