import CSQLite

/// An error reported by SQLite, with the extended result code, SQLite's message, and the SQL
/// that was running when it happened.
///
/// Its description reads like
/// `SQLite error 2067: UNIQUE constraint failed: rows.section_id, rows.position — while executing: UPDATE …`.
public struct SQLiteError: Error, CustomStringConvertible, Sendable, Equatable {
    /// The extended result code (`SQLITE_CONSTRAINT_UNIQUE`, `SQLITE_BUSY_SNAPSHOT`, …).
    public let extendedCode: Int32
    /// SQLite's own message for the error.
    public let message: String
    /// The statement that failed, when there was one.
    public let sql: String?

    /// Creates an error from its parts.
    public init(extendedCode: Int32, message: String, sql: String? = nil) {
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
    }

    /// The primary result code (`SQLITE_CONSTRAINT`, `SQLITE_BUSY`, …): the low byte of the extended code.
    public var code: Int32 { extendedCode & 0xff }

    /// Another connection holds a lock that did not clear within the busy timeout.
    public var isBusy: Bool { code == SQLITE_BUSY || code == SQLITE_LOCKED }
    /// The disk (or the database's size limit) is full.
    public var isDiskFull: Bool { code == SQLITE_FULL }
    /// The file is not a SQLite database (or is encrypted or damaged beyond recognition).
    public var isNotADatabase: Bool { code == SQLITE_NOTADB }
    /// The database file is damaged.
    public var isCorrupt: Bool { code == SQLITE_CORRUPT }
    /// A `UNIQUE`, `CHECK`, `NOT NULL` or foreign-key constraint refused a change.
    public var isConstraintViolation: Bool { code == SQLITE_CONSTRAINT }
    /// The database, or its directory, cannot be written.
    public var isReadOnly: Bool { code == SQLITE_READONLY }
    /// The file could not be opened at all.
    public var isCannotOpen: Bool { code == SQLITE_CANTOPEN }
    /// The disk had no room for what a connection needs beside a WAL database before it can
    /// even read: its `-shm` file could not be made or grown (`SQLITE_IOERR_SHMOPEN`,
    /// `SQLITE_IOERR_SHMSIZE`, `SQLITE_IOERR_SHMMAP`), or a write found the disk full.
    public var isOutOfRoom: Bool {
        // The extended codes are macros of other macros, which Swift does not import.
        let sharedMemory: [Int32] = [18, 19, 21].map { SQLITE_IOERR | ($0 << 8) }
        return isDiskFull || sharedMemory.contains(extendedCode)
    }

    public var description: String {
        var text = "SQLite error \(extendedCode): \(message)"
        if let sql {
            text += " — while executing: \(sql)"
        }
        return text
    }

    /// Reads the last error of `handle`, attributing it to `sql`.
    init(handle: OpaquePointer?, resultCode: Int32, sql: String? = nil) {
        if let handle {
            let extended = sqlite3_extended_errcode(handle)
            // The handle's error may be stale when the failing call was not on it; trust the result.
            let code = (extended & 0xff) == (resultCode & 0xff) ? extended : resultCode
            self.init(extendedCode: code, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
        } else {
            self.init(extendedCode: resultCode, message: String(cString: sqlite3_errstr(resultCode)), sql: sql)
        }
    }
}
