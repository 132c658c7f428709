import Postgres
import SQLite

extension SectionStore {
    /// The one place where the engines' failures get their meaning: a `SQLiteError` or a
    /// `PostgresError` becomes the `RepositoryError` that says what happened; any other error
    /// passes through.
    static func repositoryError(_ error: any Error, location: StoreLocation) -> any Error {
        let path = location.description
        switch error {
        case let error as SQLiteError:
            if error.isBusy { return RepositoryError.busy }
            if error.isDiskFull { return RepositoryError.diskFull }
            if error.isReadOnly { return RepositoryError.readOnly(path: path) }
            if error.isNotADatabase { return RepositoryError.notADatabase(path: path) }
            if error.isCorrupt { return RepositoryError.corrupt(path: path, detail: error.message) }
            if error.isCannotOpen { return RepositoryError.cannotOpen(path: path, reason: error.message) }
            // sectionctl's own writes keep every rule of the schema on a consistent file.
            if error.isConstraintViolation { return RepositoryError.inconsistent("the schema refused a write (\(error.message))") }
            return RepositoryError.database(code: error.extendedCode, message: error.message)
        case let error as PostgresError:
            // libpq's own messages may echo the connection string: mask what it says too.
            let message = maskedConnectionString(error.message)
            if error.isConnectionFailure || error.sqlState?.hasPrefix("57P") == true {
                return RepositoryError.unavailable(server: path, reason: message)
            }
            if error.isRetryable {
                return RepositoryError.unavailable(
                    server: path, reason: "the server kept refusing the write as conflicting (\(message)), \(serializationRetries) retries")
            }
            if error.sqlState == "25006" { return RepositoryError.readOnly(path: path) }
            if error.sqlState == "53100" { return RepositoryError.diskFull }
            if error.sqlState == "22021" || error.sqlState == "22P05" {
                return RepositoryError.invalidInput(SectionStore.nulOnServerMessage)
            }
            if error.isConstraintViolation { return RepositoryError.inconsistent("the schema refused a write (\(message))") }
            return RepositoryError.server(sqlState: error.sqlState ?? "", message: message)
        default:
            return error
        }
    }
}

extension Error {
    /// Whether a server refused a write for a deadlock or a serialization failure: the write may
    /// succeed when tried again.
    var isRetryableConflict: Bool {
        (self as? PostgresError)?.isRetryable ?? false
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
        switch self {
        case let error as SQLiteError: return error.isConstraintViolation
        case let error as PostgresError: return error.isConstraintViolation
        default: return false
        }
    }
}
