/// What runs the SQL the Repository writes once, in the subset both engines speak (`?`
/// placeholders, `RETURNING`, window functions, `ON CONFLICT`): seven requirements that run
/// statements and transactions, and the two snippets where the engines' dialects part. The rest
/// of an engine, the work each does its own way, is `StorageEngine` (see there for the whole
/// seam).
///
/// Code that only reads and writes tables takes `any SQLExecutor` or extends it.
///
/// Not `Sendable`: one thread uses a connection at a time (`SectionStore` holds it in a mutex).
package protocol SQLExecutor: AnyObject {
    // MARK: Statements

    /// Runs one statement that returns no rows, with `arguments` bound to its `?`s in order.
    /// - Returns: how many rows it inserted, updated or deleted.
    @discardableResult
    func run(_ sql: String, arguments: [(any SQLArgument)?]) throws -> Int

    /// Runs one statement that returns no rows and whose count nothing reads, with `arguments`
    /// bound in order. A file runs it at once; a server sends it with the next statement, in the
    /// same round trip, and that statement's call throws its failure (in the same transaction).
    func send(_ sql: String, arguments: [(any SQLArgument)?]) throws

    /// Runs a query and hands each result row to `body` until it returns `false` or the rows run
    /// out. A row is valid only inside the call.
    func forEachRow(_ sql: String, arguments: [(any SQLArgument)?], _ body: (any ResultRow) throws -> Bool) throws

    /// Runs one or more statements without arguments (a migration, `ROLLBACK`).
    func execute(script sql: String) throws

    // MARK: Transactions

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    /// `.write` takes the write lock first (`BEGIN IMMEDIATE` on SQLite; on a server READ
    /// COMMITTED, with the lists it looks up locked); `.read` sees one consistent state.
    func inTransaction<T>(_ mode: TransactionMode, _ body: () throws -> T) throws -> T

    /// Runs `body` inside a savepoint of the open transaction (or a transaction of its own).
    func inSavepoint<T>(_ body: () throws -> T) throws -> T

    /// Whether no transaction is open.
    var isAutocommit: Bool { get }

    // MARK: Dialect

    /// What a list lookup appends to lock the list's row until the transaction ends: `FOR
    /// UPDATE` inside a write on a server, where writers to different lists run at once and one
    /// list's writers take turns on its row; nothing on a SQLite file, where every writer takes
    /// turns on the whole database already.
    var listLockClause: String { get }

    /// The condition that `column` holds one of `ids`, and the one argument it binds: the whole
    /// list as one parameter (a JSON array through `json_each` in a file, a `bigint[]` on a
    /// server), so that a statement reads any number of ids, and its text, prepared once, never
    /// changes with the count.
    func oneOf(_ column: String, _ ids: [Int64]) -> (sql: String, argument: String)
}

/// What a transaction is for (`SQLExecutor.inTransaction(_:_:)`).
package enum TransactionMode: Sendable {
    /// A read of one consistent state.
    case read
    /// A write, which holds the write lock from its start.
    case write
    /// A write of sectionctl's own: a write marked as such from its start
    /// (`StorageEngine.setWriterMark(active: true)`), which a server begins in one round trip.
    case ownWrite
}

/// A value that can be bound to a `?` of a statement on either backend.
package protocol SQLArgument {
    /// The value, as one of the kinds every backend stores.
    var sqlValue: SQLValue { get }
}

/// A statement argument, as one of the kinds both engines store.
package enum SQLValue {
    case integer(Int64)
    case real(Double)
    case text(String)
    /// Bytes: a BLOB in a file, a `bytea` on a server.
    case blob([UInt8])
}

extension Int: SQLArgument {
    package var sqlValue: SQLValue { .integer(Int64(self)) }
}

extension Int64: SQLArgument {
    package var sqlValue: SQLValue { .integer(self) }
}

extension Bool: SQLArgument {
    package var sqlValue: SQLValue { .integer(self ? 1 : 0) }
}

extension Double: SQLArgument {
    package var sqlValue: SQLValue { .real(self) }
}

extension String: SQLArgument {
    package var sqlValue: SQLValue { .text(self) }
}

extension Array: SQLArgument where Element == UInt8 {
    package var sqlValue: SQLValue { .blob(self) }
}

/// One result row of a query, read by 0-based column.
package protocol ResultRow {
    /// Whether the column is NULL.
    func isNull(_ column: Int32) -> Bool
    /// The column as an integer (0 for NULL).
    func int64(_ column: Int32) -> Int64
    /// The column as text ("" for NULL).
    func string(_ column: Int32) -> String
    /// The column as bytes: a BLOB's or a `bytea`'s (none for NULL).
    func bytes(_ column: Int32) -> [UInt8]
}

extension ResultRow {
    /// The column as an `Int` (0 for NULL).
    package func int(_ column: Int32) -> Int { Int(int64(column)) }
    /// The column as text, or `nil` for NULL.
    package func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
    /// The column as an integer, or `nil` for NULL.
    package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
}

extension SQLExecutor {
    /// Runs one statement that returns no rows, with `arguments` bound in order.
    /// - Returns: how many rows it inserted, updated or deleted.
    @discardableResult
    package func run(_ sql: String, _ arguments: (any SQLArgument)?...) throws -> Int {
        try run(sql, arguments: arguments)
    }

    /// Runs one statement whose count nothing reads, with `arguments` bound in order (`send(_:arguments:)`).
    package func send(_ sql: String, _ arguments: (any SQLArgument)?...) throws {
        try send(sql, arguments: arguments)
    }

    /// Runs a query and maps each result row with `transform`.
    package func query<T>(_ sql: String, _ arguments: (any SQLArgument)?..., row transform: (any ResultRow) throws -> T) throws -> [T] {
        var results: [T] = []
        try forEachRow(sql, arguments: arguments) { row in
            results.append(try transform(row))
            return true
        }
        return results
    }

    /// Runs a query and maps its first result row with `transform`; `nil` when there is none.
    package func queryFirst<T>(_ sql: String, _ arguments: (any SQLArgument)?..., row transform: (any ResultRow) throws -> T) throws -> T? {
        var result: T?
        try forEachRow(sql, arguments: arguments) { row in
            result = try transform(row)
            return false
        }
        return result
    }

    /// The first column of the first row of a query, as an integer; `nil` when there is no row
    /// or the value is NULL.
    package func scalarInt(_ sql: String, _ arguments: (any SQLArgument)?...) throws -> Int64? {
        var result: Int64?
        try forEachRow(sql, arguments: arguments) { row in
            result = row.optionalInt64(0)
            return false
        }
        return result
    }

    /// Runs `body` in a write transaction.
    package func inTransaction<T>(_ body: () throws -> T) throws -> T {
        try inTransaction(.write, body)
    }
}
