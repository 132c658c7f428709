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
            // libpq's and the server's messages may echo parts of the connection string: mask
            // every secret value libpq parsed from it.
            let secrets = location.serverConnectionString.flatMap { try? ConnectionString(parsing: $0) }
            let message = secrets?.maskingSecrets(in: error.message) ?? error.message
            if error.stage == .commitInDoubt { return RepositoryError.commitOutcomeUnknown(server: path, reason: message) }
            if error.isAuthenticationFailure { return RepositoryError.authenticationFailed(server: path, reason: message) }
            if error.sqlState == "3D000" { return RepositoryError.serverDatabaseMissing(server: path, reason: message) }
            if error.sqlState == "42501" { return RepositoryError.permissionDenied(server: path, reason: message) }
            if error.isConnectionFailure || transientStates.contains(error.sqlState ?? "") {
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
        case let error as MalformedConnectionString:
            return RepositoryError.malformedConnectionString(reason: error.reason)
        default:
            return error
        }
    }
}

/// The SQLSTATEs of a server that may take the same request a moment later: shutting down,
/// starting up or restarting (`57P01`–`57P03`), an idle session ended (`57P05`), out of
/// connections or memory (`53300`, `53200`, `53000`).
private let transientStates: Set<String> = ["57P01", "57P02", "57P03", "57P05", "53000", "53200", "53300"]

extension StoreLocation {
    /// The connection string of a server location; `nil` for a file.
    var serverConnectionString: String? {
        if case .server(let connectionString) = self { return connectionString }
        return nil
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
