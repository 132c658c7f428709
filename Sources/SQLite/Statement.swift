import CSQLite

/// A value that can be bound to a statement parameter.
public protocol SQLiteBindable {
    /// Binds `self` to the parameter at the 1-based `index` of `statement`.
    func bind(to statement: OpaquePointer, at index: Int32) -> Int32
}

extension Int: SQLiteBindable {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, Int64(self))
    }
}

extension Int64: SQLiteBindable {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, self)
    }
}

extension Double: SQLiteBindable {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_double(statement, index, self)
    }
}

extension Bool: SQLiteBindable {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        sqlite3_bind_int64(statement, index, self ? 1 : 0)
    }
}

extension String: SQLiteBindable {
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        var copy = self
        return copy.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { text in
                sqlite3_bind_text64(
                    statement, index, text.baseAddress ?? csqlite_empty_string(), sqlite3_uint64(text.count),
                    csqlite_transient(), UInt8(SQLITE_UTF8))
            }
        }
    }
}

extension Array: SQLiteBindable where Element == UInt8 {
    /// Binds the bytes as a BLOB (an empty array as an empty BLOB, not NULL).
    public func bind(to statement: OpaquePointer, at index: Int32) -> Int32 {
        withUnsafeBytes { buffer in
            sqlite3_bind_blob64(
                statement, index, buffer.baseAddress ?? UnsafeRawPointer(csqlite_empty_string()), sqlite3_uint64(buffer.count), csqlite_transient())
        }
    }
}

/// A prepared statement. Not `Sendable`: it belongs to the connection that prepared it, and is
/// used only while that connection is held.
public final class Statement {
    let handle: OpaquePointer
    /// The statement's SQL, as prepared.
    public let sql: String
    private unowned let connection: Connection

    init(connection: Connection, sql: String) throws {
        var statement: OpaquePointer?
        let result = sqlite3_prepare_v3(connection.handle, sql, -1, UInt32(SQLITE_PREPARE_PERSISTENT), &statement, nil)
        guard result == SQLITE_OK, let statement else {
            throw SQLiteError(handle: connection.handle, resultCode: result, sql: sql)
        }
        self.handle = statement
        self.sql = sql
        self.connection = connection
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Resets the statement and binds `values` to its parameters, in order; `nil` binds NULL.
    public func bind(_ values: [(any SQLiteBindable)?]) throws {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
        for (offset, value) in values.enumerated() {
            let index = Int32(offset + 1)
            let result = value?.bind(to: handle, at: index) ?? sqlite3_bind_null(handle, index)
            guard result == SQLITE_OK else {
                throw SQLiteError(handle: connection.handle, resultCode: result, sql: sql)
            }
        }
    }

    /// Advances the statement: `true` when a row is ready to read, `false` when it is done.
    @discardableResult
    public func step() throws -> Bool {
        let result = sqlite3_step(handle)
        switch result {
        case SQLITE_ROW:
            return true
        case SQLITE_DONE:
            return false
        default:
            let error = SQLiteError(handle: connection.handle, resultCode: result, sql: sql)
            sqlite3_reset(handle)
            throw error
        }
    }

    /// Resets the statement so that it can run again and releases its read of the database.
    public func reset() {
        sqlite3_reset(handle)
    }

    /// Whether the column at `index` of the current row is NULL.
    public func isNull(_ index: Int32) -> Bool {
        sqlite3_column_type(handle, index) == SQLITE_NULL
    }

    /// The column at `index` of the current row as an integer (0 for NULL).
    public func int64(_ index: Int32) -> Int64 {
        sqlite3_column_int64(handle, index)
    }

    /// The column at `index` of the current row as an `Int` (0 for NULL).
    public func int(_ index: Int32) -> Int {
        Int(sqlite3_column_int64(handle, index))
    }

    /// The column at `index` of the current row as a floating-point number.
    public func double(_ index: Int32) -> Double {
        sqlite3_column_double(handle, index)
    }

    /// The column at `index` of the current row as text ("" for NULL).
    public func string(_ index: Int32) -> String {
        guard let text = sqlite3_column_text(handle, index) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, index))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }

    /// The column at `index` of the current row as bytes: a BLOB's, or text's UTF-8 (none for
    /// NULL).
    public func bytes(_ index: Int32) -> [UInt8] {
        guard let blob = sqlite3_column_blob(handle, index) else { return [] }
        let count = Int(sqlite3_column_bytes(handle, index))
        return Array(UnsafeRawBufferPointer(start: blob, count: count))
    }

    /// The column at `index` of the current row as text, or `nil` for NULL.
    public func optionalString(_ index: Int32) -> String? {
        isNull(index) ? nil : string(index)
    }

    /// The column at `index` as an integer, or `nil` for NULL.
    public func optionalInt64(_ index: Int32) -> Int64? {
        isNull(index) ? nil : int64(index)
    }
}
