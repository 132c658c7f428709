import SQLite

/// The storage seam: the one small interface through which every operation of the Repository
/// reaches its data. A `Database` is one connection to one backend — a SQLite file
/// (`SQLite.Connection`) or a PostgreSQL server (`PostgresDatabase`). The Repository writes its
/// SQL once, in the subset both engines speak (`?` placeholders, `RETURNING`, window functions,
/// `ON CONFLICT`); the few places where the engines differ ask `dialect`.
///
/// Not `Sendable`: one thread uses a connection at a time (`SectionStore` holds it in a mutex).
package protocol Database: AnyObject {
    /// Which engine this is, for the few statements the engines spell differently.
    var dialect: SQLDialect { get }

    /// Runs one statement that returns no rows, with `arguments` bound to its `?`s in order.
    /// - Returns: how many rows it inserted, updated or deleted.
    @discardableResult
    func run(_ sql: String, arguments: [(any SQLArgument)?]) throws -> Int

    /// Runs a query and hands each result row to `body` until it returns `false` or the rows run
    /// out. A row is valid only inside the call.
    func forEachRow(_ sql: String, arguments: [(any SQLArgument)?], _ body: (any ResultRow) throws -> Bool) throws

    /// Runs one or more statements without arguments (a migration, `ROLLBACK`).
    func execute(script sql: String) throws

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    /// `.immediate` is a write transaction, `.deferred` a read of one consistent state.
    func inTransaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T

    /// Runs `body` inside a savepoint of the open transaction (or a transaction of its own).
    func inSavepoint<T>(_ body: () throws -> T) throws -> T

    /// Opens a read transaction that keeps seeing the state it started on until `endSnapshot`,
    /// whatever commits meanwhile (an edit session's view of its list).
    func beginSnapshot() throws

    /// Ends the transaction `beginSnapshot` opened, if it is still open.
    func endSnapshot()

    /// Whether no transaction is open.
    var isAutocommit: Bool { get }

    /// Whether looking a list up locks its row until the transaction ends (`FOR UPDATE`): true
    /// inside a write transaction on a server, where writers do not take turns on the whole
    /// database as they do on a SQLite file.
    var locksListRows: Bool { get }

    /// Starts a bulk append of rows inside the open write transaction, in the fastest way the
    /// backend has (batched multi-row `INSERT`s; `COPY`). Rows reach the database by
    /// `RowAppender.finish()` at the latest; nothing else may use the connection meanwhile.
    func makeRowAppender() throws -> any RowAppender
}

/// Rows appended in bulk (see `Database.makeRowAppender()`).
package protocol RowAppender: AnyObject {
    /// Queues a row for `section` at `position`; written in batches.
    func append(section: Int64, position: Int64, content: RowContent) throws
    /// Writes every queued row. Returns how many rows it wrote.
    @discardableResult
    func finish() throws -> Int
}

/// The SQL engines behind `Database`.
package enum SQLDialect: Sendable {
    case sqlite
    case postgres
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

/// One result row of a query, read by 0-based column.
package protocol ResultRow {
    /// Whether the column is NULL.
    func isNull(_ column: Int32) -> Bool
    /// The column as an integer (0 for NULL).
    func int64(_ column: Int32) -> Int64
    /// The column as text ("" for NULL).
    func string(_ column: Int32) -> String
}

extension ResultRow {
    /// The column as an `Int` (0 for NULL).
    package func int(_ column: Int32) -> Int { Int(int64(column)) }
    /// The column as text, or `nil` for NULL.
    package func optionalString(_ column: Int32) -> String? { isNull(column) ? nil : string(column) }
    /// The column as an integer, or `nil` for NULL.
    package func optionalInt64(_ column: Int32) -> Int64? { isNull(column) ? nil : int64(column) }
}

extension Database {
    /// Runs one statement that returns no rows, with `arguments` bound in order.
    /// - Returns: how many rows it inserted, updated or deleted.
    @discardableResult
    package func run(_ sql: String, _ arguments: (any SQLArgument)?...) throws -> Int {
        try run(sql, arguments: arguments)
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
        try inTransaction(.immediate, body)
    }
}
