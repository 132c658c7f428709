import SQLite

extension SectionStore {
    /// The one place where an engine's failures get their meaning: an `EngineError` (a
    /// `SQLiteError`, or a failure of the server backend) becomes the `RepositoryError`
    /// that says what happened; any other error passes through.
    static func repositoryError(_ error: any Error, location: StoreLocation) -> any Error {
        (error as? any EngineError)?.repositoryError(at: location) ?? error
    }
}

extension SQLiteError: EngineError {
    package func repositoryError(at location: StoreLocation) -> any Error {
        let path = location.description
        if isBusy { return RepositoryError.busy }
        if isDiskFull { return RepositoryError.diskFull }
        if isReadOnly { return RepositoryError.readOnly(path: path) }
        if isNotADatabase { return RepositoryError.notADatabase(path: path) }
        if isCorrupt { return RepositoryError.corrupt(path: path, detail: message) }
        if isCannotOpen { return RepositoryError.cannotOpen(path: path, reason: message) }
        // sectionctl's own writes keep every rule of the schema on a consistent file.
        if isConstraintViolation { return RepositoryError.inconsistent("the schema refused a write (\(message))") }
        return RepositoryError.database(code: extendedCode, message: message, sql: sql)
    }

    /// A file is one writer at a time already; nothing is refused for a conflict.
    package var isRetryableConflict: Bool { false }
}

extension StoreLocation {
    /// The connection string of a server location; `nil` for a file.
    package var serverConnectionString: String? {
        if case .server(let connectionString) = self { return connectionString }
        return nil
    }
}

extension Error {
    /// Whether a server refused a write for a deadlock or a serialization failure: the write may
    /// succeed when tried again.
    var isRetryableConflict: Bool {
        (self as? any EngineError)?.isRetryableConflict ?? false
    }

    /// Whether a SQLite file could not be read because reading would write beside it (the
    /// `-shm` file of a WAL database in a directory the user cannot write): such a file is
    /// read as immutable instead.
    var isUnreadableWithoutWriting: Bool {
        guard let error = self as? SQLiteError else { return false }
        return error.isCannotOpen || error.isReadOnly
    }

    /// Whether a database refused the statement for a constraint (unique, foreign key, check).
    var isConstraintViolation: Bool {
        (self as? any EngineError)?.isConstraintViolation ?? false
    }
}
