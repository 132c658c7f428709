import CSQLite

/// How a connection opens its file.
public enum OpenMode: Sendable {
    /// Read only; the file must exist.
    case readOnly
    /// Read and write; the file must exist.
    case readWrite
    /// Read and write, creating the file when it does not exist.
    case readWriteCreate

    var flags: Int32 {
        let common = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_EXRESCODE
        switch self {
        case .readOnly: return common | SQLITE_OPEN_READONLY
        case .readWrite: return common | SQLITE_OPEN_READWRITE
        case .readWriteCreate: return common | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        }
    }
}

/// How a transaction takes its locks.
public enum TransactionKind: String, Sendable {
    /// Takes locks when first needed. Right for reads.
    case deferred = "DEFERRED"
    /// Takes the write lock at once, so the busy timeout applies before any work is done.
    case immediate = "IMMEDIATE"
}

/// One connection to a SQLite database: owns the raw handle and a cache of prepared statements.
///
/// Not `Sendable`: a connection is used by one thread at a time. Types that share a connection
/// across threads serialise access to it.
public final class Connection {
    let handle: OpaquePointer
    /// The path the connection was opened with.
    public let path: String
    /// Whether the file was opened as one nothing changes (`immutable=1`: no locks, no `-shm`).
    public let isImmutable: Bool
    private var statementCache: [String: Statement] = [:]
    private var progressBox: Unmanaged<ProgressBox>?

    /// Opens the database at `path`. Opening does not read the file; the first statement does.
    ///
    /// With `immutable`, the file is opened read-only as a file nothing changes (SQLite's
    /// `immutable=1`): no locks, no `-shm` file, so a WAL database in a directory the user cannot
    /// write can still be read.
    public init(path: String, mode: OpenMode, immutable: Bool = false) throws {
        var handle: OpaquePointer?
        let result: Int32
        if immutable {
            // In a URI, '%', '?' and '#' would be read as escapes, the query and the fragment.
            let escaped = path.map { character -> String in
                switch character {
                case "%": return "%25"
                case "?": return "%3f"
                case "#": return "%23"
                default: return String(character)
                }
            }.joined()
            result = sqlite3_open_v2("file:\(escaped)?immutable=1", &handle, OpenMode.readOnly.flags | SQLITE_OPEN_URI, nil)
        } else {
            result = sqlite3_open_v2(path, &handle, mode.flags, nil)
        }
        guard result == SQLITE_OK, let handle else {
            let error = SQLiteError(handle: handle, resultCode: result)
            sqlite3_close_v2(handle)
            throw error
        }
        self.handle = handle
        self.path = path
        self.isImmutable = immutable
        sqlite3_extended_result_codes(handle, 1)
        // Defensive mode stops SQL from corrupting the file through writable_schema and friends.
        _ = csqlite_db_config_int(handle, SQLITE_DBCONFIG_DEFENSIVE, 1)
    }

    deinit {
        statementCache.removeAll()
        sqlite3_close_v2(handle)
        progressBox?.release()
    }

    /// Runs `body` with defensive mode off and `PRAGMA writable_schema` on, so that it can
    /// rewrite a table's definition in `sqlite_schema` in place, then bumps the schema version so
    /// that every connection reads the schema afresh, and turns both back. Only for a change that
    /// no stored row can fail and that leaves the file's format as it was (SQLite's ALTER TABLE
    /// documentation: "Making Other Kinds Of Table Schema Changes"); call it inside a write
    /// transaction.
    public func rewritingSchema(_ body: () throws -> Void) throws {
        _ = csqlite_db_config_int(handle, SQLITE_DBCONFIG_DEFENSIVE, 0)
        defer { _ = csqlite_db_config_int(handle, SQLITE_DBCONFIG_DEFENSIVE, 1) }
        try execute(script: "PRAGMA writable_schema = ON")
        defer { try? execute(script: "PRAGMA writable_schema = OFF") }
        try body()
        let version = try scalarInt("PRAGMA schema_version") ?? 0
        try execute(script: "PRAGMA schema_version = \(version + 1)")
    }

    /// Calls `handler` about every `instructions` virtual-machine steps of a running statement
    /// (SQLite's progress handler): a way to show that long work, such as a migration that builds
    /// data, is under way. `nil` removes it. The handler must not use the connection.
    public func setProgressHandler(every instructions: Int32, _ handler: (() -> Void)?) {
        let old = progressBox
        guard let handler else {
            sqlite3_progress_handler(handle, 0, nil, nil)
            progressBox = nil
            old?.release()
            return
        }
        let box = Unmanaged.passRetained(ProgressBox(handler))
        sqlite3_progress_handler(
            handle, instructions,
            { context in
                Unmanaged<ProgressBox>.fromOpaque(context!).takeUnretainedValue().handler()
                return 0  // go on
            }, box.toOpaque())
        progressBox = box
        old?.release()
    }

    /// The version of the SQLite library in use, such as "3.40.1".
    public static var libraryVersion: String { String(cString: sqlite3_libversion()) }

    /// How long a statement waits for another connection's lock before failing with `SQLITE_BUSY`.
    public func setBusyTimeout(milliseconds: Int32) {
        sqlite3_busy_timeout(handle, milliseconds)
    }

    /// Whether this connection cannot write to its main database.
    public var isReadOnly: Bool { sqlite3_db_readonly(handle, "main") == 1 }

    /// Whether no transaction is open.
    public var isAutocommit: Bool { sqlite3_get_autocommit(handle) != 0 }

    /// How many rows the last INSERT, UPDATE or DELETE changed.
    public var changes: Int { Int(sqlite3_changes64(handle)) }

    /// How many rows all INSERT, UPDATE and DELETE statements changed since the connection opened.
    public var totalChanges: Int { Int(sqlite3_total_changes64(handle)) }

    /// How many pages this connection has read from its database files into its page cache
    /// since it opened (`SQLITE_DBSTATUS_CACHE_MISS`): the I/O that wall time hides and
    /// instruction counts cannot see. A page the cache still held is not counted again.
    public var pagesRead: Int { Int(status(SQLITE_DBSTATUS_CACHE_MISS)) }

    /// How many pages this connection has written to its database files (the write-ahead log
    /// in WAL mode) since it opened (`SQLITE_DBSTATUS_CACHE_WRITE`).
    public var pagesWritten: Int { Int(status(SQLITE_DBSTATUS_CACHE_WRITE)) }

    private func status(_ counter: Int32) -> Int32 {
        var current: Int32 = 0
        var highest: Int32 = 0
        sqlite3_db_status(handle, counter, &current, &highest, 0)
        return current
    }

    /// Runs one or more SQL statements that return no rows, such as a migration script.
    public func execute(script sql: String) throws {
        var message: UnsafeMutablePointer<CChar>?
        let result = sqlite3_exec(handle, sql, nil, nil, &message)
        guard result == SQLITE_OK else {
            let text = message.map { String(cString: $0) } ?? String(cString: sqlite3_errstr(result))
            sqlite3_free(message)
            throw SQLiteError(extendedCode: sqlite3_extended_errcode(handle), message: text, sql: sql)
        }
    }

    /// Prepares `sql`, or returns the statement prepared for it before, reset and unbound.
    public func statement(_ sql: String) throws -> Statement {
        if let cached = statementCache[sql] {
            return cached
        }
        let statement = try Statement(connection: self, sql: sql)
        statementCache[sql] = statement
        return statement
    }

    /// Runs one statement that returns no rows, with `arguments` bound in order.
    /// - Returns: how many rows it inserted, updated or deleted.
    @discardableResult
    public func run(_ sql: String, _ arguments: (any SQLiteBindable)?...) throws -> Int {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        while try statement.step() {}
        return changes
    }

    /// Runs a query and maps each result row with `transform`.
    public func query<T>(
        _ sql: String, _ arguments: (any SQLiteBindable)?..., row transform: (Statement) throws -> T
    ) throws -> [T] {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        var results: [T] = []
        while try statement.step() {
            results.append(try transform(statement))
        }
        return results
    }

    /// Runs a query and maps its first result row with `transform`; `nil` when there is none.
    public func queryFirst<T>(
        _ sql: String, _ arguments: (any SQLiteBindable)?..., row transform: (Statement) throws -> T
    ) throws -> T? {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? transform(statement) : nil
    }

    /// The first column of the first row of a query, as an integer; `nil` when there is no row.
    public func scalarInt(_ sql: String, _ arguments: (any SQLiteBindable)?...) throws -> Int64? {
        let statement = try statement(sql)
        try statement.bind(arguments)
        defer { statement.reset() }
        return try statement.step() ? statement.optionalInt64(0) : nil
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// Rolling back first checks whether SQLite already did (it may after a full disk, an I/O
    /// error or a busy deadlock), so the original error is the one that reaches the caller.
    @discardableResult
    public func inTransaction<T>(_ kind: TransactionKind = .immediate, _ body: () throws -> T) throws -> T {
        try execute(script: "BEGIN \(kind.rawValue)")
        do {
            let result = try body()
            try execute(script: "COMMIT")
            return result
        } catch {
            rollbackIfNeeded()
            throw error
        }
    }

    /// Runs `body` inside a savepoint: released when it returns, rolled back when it throws.
    /// Works inside or outside a transaction.
    @discardableResult
    public func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        try execute(script: "SAVEPOINT nested")
        do {
            let result = try body()
            try execute(script: "RELEASE nested")
            return result
        } catch {
            if !isAutocommit {
                try? execute(script: "ROLLBACK TO nested")
                try? execute(script: "RELEASE nested")
            }
            throw error
        }
    }

    private func rollbackIfNeeded() {
        // Statements still stepping would make ROLLBACK fail; reset them first.
        for statement in statementCache.values {
            statement.reset()
        }
        if !isAutocommit {
            try? execute(script: "ROLLBACK")
        }
    }
}

/// The closure of a progress handler, kept alive while SQLite holds a pointer to it.
private final class ProgressBox {
    let handler: () -> Void
    init(_ handler: @escaping () -> Void) { self.handler = handler }
}
