import Foundation
import SQLite
import TestSupport
import Testing

@Suite("The SQLite layer")
struct SQLiteLayerTests {
    func makeConnection() throws -> (TemporaryDirectory, Connection) {
        let directory = try TemporaryDirectory()
        let db = try Connection(path: directory.path("layer.db"), mode: .readWriteCreate)
        try db.execute(script: "CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, score REAL) STRICT")
        return (directory, db)
    }

    @Test func errorsCarryTheExtendedCodeTheMessageAndTheSQL() throws {
        let (directory, db) = try makeConnection()
        defer { withExtendedLifetime(directory) {} }
        try db.run("INSERT INTO t (name) VALUES (?)", "a")
        let sql = "INSERT INTO t (name) VALUES (?)"
        do {
            try db.run(sql, "a")
            Issue.record("a duplicate was accepted")
        } catch let error as SQLiteError {
            #expect(error.isConstraintViolation)
            #expect(error.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
            #expect(error.sql == sql)
            #expect(error.description == "SQLite error 2067: UNIQUE constraint failed: t.name — while executing: \(sql)")
        }
    }

    @Test func aTransactionCommitsWhenItsBodyReturnsAndRollsBackWhenItThrows() throws {
        let (directory, db) = try makeConnection()
        defer { withExtendedLifetime(directory) {} }
        try db.inTransaction { try db.run("INSERT INTO t (name) VALUES ('kept')") }
        #expect(throws: SQLiteError.self) {
            try db.inTransaction {
                try db.run("INSERT INTO t (name) VALUES ('dropped')")
                try db.run("INSERT INTO t (name) VALUES ('kept')")
            }
        }
        #expect(db.isAutocommit)
        #expect(try db.query("SELECT name FROM t") { $0.string(0) } == ["kept"])
    }

    @Test func aSavepointUndoesOnlyItsOwnWork() throws {
        let (directory, db) = try makeConnection()
        defer { withExtendedLifetime(directory) {} }
        try db.inTransaction {
            try db.run("INSERT INTO t (name) VALUES ('outer')")
            _ = try? db.inSavepoint {
                try db.run("INSERT INTO t (name) VALUES ('inner')")
                try db.run("INSERT INTO t (name) VALUES ('outer')")  // fails: the savepoint rolls back
            }
            try db.inSavepoint { try db.run("INSERT INTO t (name) VALUES ('second')") }
        }
        #expect(try db.query("SELECT name FROM t ORDER BY id") { $0.string(0) } == ["outer", "second"])
    }

    @Test func valuesRoundTripThroughBindingAndReading() throws {
        let (directory, db) = try makeConnection()
        defer { withExtendedLifetime(directory) {} }
        let texts = ["", "é", "nul\u{0}inside", "🍣", String(repeating: "long ", count: 10_000)]
        for (index, text) in texts.enumerated() {
            try db.run("INSERT INTO t (id, name, score) VALUES (?, ?, ?)", index + 1, text, index == 0 ? nil : 1.5)
        }
        #expect(try db.query("SELECT name FROM t ORDER BY id") { $0.string(0) } == texts)
        #expect(try db.query("SELECT score FROM t ORDER BY id") { $0.isNull(0) ? nil : $0.double(0) } == [nil, 1.5, 1.5, 1.5, 1.5])
        #expect(try db.scalarInt("SELECT count(*) FROM t WHERE name = ?", "nul\u{0}inside") == 1)
        #expect(try db.queryFirst("SELECT name FROM t WHERE id = ?", 99) { $0.string(0) } == nil)
    }

    @Test func preparedStatementsAreCachedAndReusable() throws {
        let (directory, db) = try makeConnection()
        defer { withExtendedLifetime(directory) {} }
        let sql = "INSERT INTO t (name) VALUES (?)"
        #expect(try db.statement(sql) === db.statement(sql))
        for index in 0..<100 { try db.run(sql, "name \(index)") }
        #expect(try db.scalarInt("SELECT count(*) FROM t") == 100)
        #expect(db.changes == 1 && db.totalChanges == 100)
    }

    @Test func aFileThatIsNotSQLiteFailsOnFirstRead() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("text.db")
        try Data(String(repeating: "not a database ", count: 100).utf8).write(to: URL(filePath: path))
        let db = try Connection(path: path, mode: .readOnly)
        #expect { try db.scalarInt("SELECT count(*) FROM sqlite_schema") } throws: { ($0 as? SQLiteError)?.isNotADatabase == true }
    }
}
