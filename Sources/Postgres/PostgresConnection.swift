import CPostgres
import Foundation

/// One connection to a PostgreSQL server, through libpq. Statements take their values as
/// parameters (`$1`, `$2`, …), never pasted into the SQL. Not `Sendable`: one thread uses it at
/// a time; the layer above serialises access, as `SectionStore` does for SQLite.
public final class PostgresConnection {
    private let handle: OpaquePointer
    /// The connection string as given, with any password masked: what errors may show.
    public let maskedTarget: String

    /// Connects with a libpq connection string: a `postgresql://` URI or `key=value` pairs; the
    /// usual `PG*` environment variables fill in what it leaves out.
    /// - Throws: `PostgresError` when the server cannot be reached or refuses the connection;
    ///   its message never shows a password.
    public init(connectionString: String) throws {
        maskedTarget = maskedConnectionString(connectionString)
        guard let handle = PQconnectdb(connectionString) else {
            throw PostgresError(sqlState: nil, message: "out of memory", context: "connecting to \(maskedTarget)")
        }
        guard PQstatus(handle) == CONNECTION_OK else {
            let message = Self.oneLine(PQerrorMessage(handle))
            PQfinish(handle)
            throw PostgresError(sqlState: nil, message: maskedConnectionString(message), context: "connecting to \(maskedTarget)")
        }
        self.handle = handle
        // Notices (e.g. "relation already exists, skipping") are not errors: keep them off stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    deinit {
        PQfinish(handle)
    }

    /// Runs one statement with `parameters` bound to `$1`, `$2`, … as text (`nil` is NULL).
    /// - Returns: the rows it returned (none for a command).
    /// - Throws: `PostgresError` with the SQLSTATE and the statement.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
        let result: OpaquePointer? = withParameterPointers(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try check(result, context: sql)
    }

    /// Runs several statements without parameters (a migration script).
    public func execute(script sql: String) throws {
        let result = PQexec(handle, sql)
        _ = try check(result, context: sql)
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    @discardableResult
    public func inTransaction<T>(_ isolation: String = "READ COMMITTED", _ body: () throws -> T) throws -> T {
        try execute(script: "BEGIN ISOLATION LEVEL \(isolation)")
        do {
            let value = try body()
            try execute(script: "COMMIT")
            return value
        } catch {
            if PQtransactionStatus(handle) != PQTRANS_IDLE { _ = try? execute(script: "ROLLBACK") }
            throw error
        }
    }

    /// Waits up to `timeout` seconds for notifications on the channels this connection
    /// `LISTEN`s to, and returns those that arrived (channel and payload), oldest first.
    public func notifications(waitingUpTo timeout: Double) throws -> [(channel: String, payload: String)] {
        var found = drainNotifications()
        guard found.isEmpty else { return found }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw PostgresError(sqlState: nil, message: "the connection has no socket", context: "waiting for notifications") }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(timeout * 1000))
        guard ready > 0 else { return [] }
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: "waiting for notifications")
        }
        found = drainNotifications()
        return found
    }

    private func drainNotifications() -> [(channel: String, payload: String)] {
        var found: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            found.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return found
    }

    private func check(_ result: OpaquePointer?, context: String) throws -> PostgresResult {
        guard let result else {
            throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: context)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(result)
        default:
            let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
            let message = Self.oneLine(PQresultErrorMessage(result))
            PQclear(result)
            throw PostgresError(sqlState: state, message: message, context: context)
        }
    }

    private static func oneLine(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return String(cString: text).split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// Calls `body` with C strings for `parameters` (NULL for `nil`), valid for the call.
private func withParameterPointers<R>(_ parameters: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = parameters.map { $0.map { strdup($0) } }
    defer { for copy in copies { free(copy ?? nil) } }
    return body(copies.map { $0.map { UnsafePointer($0!) } ?? nil })
}

/// The rows a statement returned, as text, read by row and column.
public final class PostgresResult {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) {
        self.result = result
    }

    deinit {
        PQclear(result)
    }

    /// The number of rows.
    public var rowCount: Int { Int(PQntuples(result)) }
    /// The number of columns.
    public var columnCount: Int { Int(PQnfields(result)) }
    /// How many rows the command changed (for INSERT, UPDATE, DELETE).
    public var changedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The value at `row`, `column` as text; `nil` for NULL.
    public func string(_ row: Int, _ column: Int) -> String? {
        guard PQgetisnull(result, Int32(row), Int32(column)) == 0 else { return nil }
        return String(cString: PQgetvalue(result, Int32(row), Int32(column)))
    }

    /// The value at `row`, `column` as an integer; `nil` for NULL or not a number.
    public func int64(_ row: Int, _ column: Int) -> Int64? {
        string(row, column).flatMap { Int64($0) }
    }
}
