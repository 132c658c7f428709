import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

/// Migration 0009: the value checks of `rows.kind`, `undo_log.action` and `undo_log.target`
/// rewritten in place in `sqlite_schema` (`Connection.rewritingSchema(_:)`), on a file that has
/// data, with every row kept and every check still refusing what it refused.
@Suite struct SchemaRewriteTests {
    /// The definition of a table as the file holds it.
    func definition(_ table: String, in db: Connection) throws -> String {
        try db.queryFirst("SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ?", table) { $0.string(0) } ?? ""
    }

    @Test func aFileWithRowsAndHistoryGetsTheChecksAsComparisons() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("old.db")
        do {
            let db = try Connection(path: path, mode: .readWriteCreate)
            try Migrator.migrate(db, through: 8)  // which makes the list "default"
            try db.execute(
                script: """
                    INSERT INTO sections (list_id, position, title) VALUES (1, 1024, 'people');
                    INSERT INTO rows (section_id, position, kind, title, value)
                    VALUES (1, 1024, 'topic', 'Ann', NULL), (1, 2048, 'field', 'age', '41'), (1, 3072, 'text', 'note', NULL);
                    """)
            #expect(try definition("rows", in: db).contains("CHECK (kind IN ('text', 'topic', 'field'))"))
        }
        let store = try SectionStore(path: path)
        let list = store.list(SectionStore.defaultList)
        try list.apply(.moveRow(.at(0, 2), to: .at(0, 0)))
        try list.undo()
        #expect(try list.snapshot().sections[0].rows.map(\.title) == ["Ann", "age", "note"])
        #expect(try store.check().isEmpty)

        let db = try Connection(path: path, mode: .readWrite)
        #expect(try db.scalarInt("PRAGMA user_version") == Int64(SectionStore.schemaVersion))
        #expect(try db.query("PRAGMA integrity_check") { $0.string(0) } == ["ok"])
        let rows = try definition("rows", in: db)
        let undo = try definition("undo_log", in: db)
        #expect(rows.contains("CHECK (kind = 'text' OR kind = 'topic' OR kind = 'field')") && !rows.contains(" IN ("))
        #expect(undo.contains("CHECK (action = 'insert' OR action = 'delete' OR action = 'update')"))
        #expect(undo.contains("CHECK (target = 'row' OR target = 'section' OR target = 'list')") && !undo.contains(" IN ("))
        // The checks still refuse what they refused.
        #expect(throws: SQLiteError.self) {
            try db.run("INSERT INTO rows (section_id, position, kind, title) VALUES (1, 9000, 'bogus', 'x')")
        }
        // And a new file is made the same way.
        let fresh = try Connection(path: directory.path("new.db"), mode: .readWriteCreate)
        try Migrator.migrate(fresh)
        #expect(try definition("rows", in: fresh) == rows && definition("undo_log", in: fresh) == undo)
    }

    @Test func theSchemaIsGuardedAgainAfterTheRewrite() throws {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("new.db"), mode: .readWriteCreate)
        try Migrator.migrate(db)
        // Defensive mode is back on: writable_schema is ignored and sqlite_schema refuses writes.
        try db.execute(script: "PRAGMA writable_schema = ON")
        #expect(throws: SQLiteError.self) {
            try db.run("UPDATE sqlite_schema SET sql = replace(sql, 'kind', 'kind') WHERE name = 'rows'")
        }
    }
}
