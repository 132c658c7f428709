import Postgres
import Repository

extension ServerSupport {
    /// The PostgreSQL backend: lists kept on a server and shared between machines (a
    /// `StoreLocation.server`, a `postgresql://` URI or `key=value` connection string). It
    /// reaches the server through libpq, which is why it is a product of its own: an app that
    /// links only `Repository` carries no server client.
    ///
    /// Pass it where a store is opened; a server location opened without it throws
    /// `RepositoryError.serverSupportMissing`:
    ///
    /// ```swift
    /// import Repository
    /// import RepositoryPostgres
    ///
    /// let store = try SectionStore(location: StoreLocation("postgresql://localhost/tasks"), server: .postgres, create: true)
    /// ```
    public static let postgres = ServerSupport(PostgresBackend())
}

extension SectionStore {
    /// The schema version of this build for a PostgreSQL server: the number of the newest file
    /// in `Migrations/postgres/`. (The two schemas are numbered apart: each counts its own
    /// migrations.)
    public static var serverSchemaVersion: Int { PostgresMigrator.latestVersion }
}

/// Opens server locations for `SectionStore` (see `ServerBackend`): what `ServerSupport.postgres`
/// holds.
struct PostgresBackend: ServerBackend {
    var schemaVersion: Int { PostgresMigrator.latestVersion }

    func openStoreConnection(
        connectionString: String, location: StoreLocation, create: Bool, readOnly: Bool, checkingOnFirstUse: Bool,
        progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws -> any Database {
        let db = try PostgresEngine(connectionString: connectionString, deferringSetup: true)
        // Without pipeline mode, the check would cost its round trip anyway, and more.
        guard checkingOnFirstUse && PostgresConnection.pipelines else {
            try Self.check(db, location: location, create: create, readOnly: readOnly, progress: progress)
            return db
        }
        db.checkSchemaOnFirstUse { db in
            try Self.check(db, location: location, create: create, readOnly: readOnly, progress: progress)
        }
        return db
    }

    /// The opening's whole check: refuses a schema the role may not use, one that is not ours
    /// or is newer, or a missing one without `create`; creates and migrates.
    private static func check(
        _ db: PostgresEngine, location: StoreLocation, create: Bool, readOnly: Bool, progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws {
        let shown = location.shownByPostgres
        // A schema the user may not use drops out of the search path without a word, and its
        // tables would seem missing: say what is missing instead.
        let facts = try PostgresMigrator.schemaFacts(db)
        if facts.unusable {
            throw RepositoryError.permissionDenied(server: shown, reason: "permission denied for schema \(PostgresEngine.schema)")
        }
        do {
            try PostgresMigrator.prepare(db, facts: facts, create: create, readOnly: readOnly, progress: progress)
        } catch RepositoryError.notOurDatabase {
            throw RepositoryError.notOurSchema(server: shown, schema: PostgresEngine.schema)
        }
        db.schemaRecordsWrites = !readOnly
        // Read with the schema's version; true of the schema as it was, so only when nothing
        // was migrated since.
        if facts.version == PostgresMigrator.latestVersion, let recordable = facts.mayRecordWrites {
            db.knowWritesRecordable(recordable)
        }
    }

    func openReaderConnection(connectionString: String) throws -> any Database {
        try PostgresEngine(connectionString: connectionString)
    }

    func masked(_ connectionString: String) -> String {
        maskedConnectionString(connectionString)
    }
}

extension PostgresError: EngineError {
    package func repositoryError(at location: StoreLocation) -> any Error {
        let path = location.shownByPostgres
        // libpq's and the server's messages may echo parts of the connection string: mask
        // every secret value libpq parsed from it.
        let secrets = location.serverConnectionString.flatMap { try? ConnectionString(parsing: $0) }
        let message = secrets?.maskingSecrets(in: self.message) ?? self.message
        if stage == .commitInDoubt { return RepositoryError.commitOutcomeUnknown(server: path, reason: message) }
        if isAuthenticationFailure { return RepositoryError.authenticationFailed(server: path, reason: message) }
        if sqlState == "3D000" { return RepositoryError.serverDatabaseMissing(server: path, reason: message) }
        if sqlState == "42501" { return RepositoryError.permissionDenied(server: path, reason: message) }
        if isConnectionFailure || transientStates.contains(sqlState ?? "") {
            return RepositoryError.unavailable(server: path, reason: message)
        }
        if isRetryable {
            return RepositoryError.unavailable(
                server: path,
                reason: "the server kept refusing the write as conflicting (\(message)), \(SectionStore.serializationRetries) retries")
        }
        if sqlState == "25006" { return RepositoryError.readOnly(path: path) }
        if sqlState == "53100" { return RepositoryError.diskFull }
        if sqlState == "22021" || sqlState == "22P05" {
            return RepositoryError.textContainsNULOnServer
        }
        if isConstraintViolation { return RepositoryError.inconsistent("the schema refused a write (\(message))") }
        // The server's ordering functions finding the database disagreeing with itself.
        if sqlState == "XX001" { return RepositoryError.inconsistent(message) }
        return RepositoryError.server(sqlState: sqlState ?? "", message: message)
    }

    package var isRetryableConflict: Bool { isRetryable }
}

extension MalformedConnectionString: EngineError {
    package func repositoryError(at location: StoreLocation) -> any Error {
        RepositoryError.malformedConnectionString(reason: reason)
    }

    package var isRetryableConflict: Bool { false }
    package var isConstraintViolation: Bool { false }
}

extension LibPQUnavailable: EngineError {
    package func repositoryError(at location: StoreLocation) -> any Error {
        RepositoryError.serverClientMissing(location: location.shownByPostgres, reason: reason)
    }

    package var isRetryableConflict: Bool { false }
    package var isConstraintViolation: Bool { false }
}

extension StoreLocation {
    /// The location as messages show it: a connection string rebuilt by libpq with every
    /// password masked (`ServerSupport.describe(_:)`), which `description` cannot do without it.
    var shownByPostgres: String { ServerSupport.postgres.describe(self) }
}

/// The SQLSTATEs of a server that may take the same request a moment later: shutting down,
/// starting up or restarting (`57P01`–`57P03`), an idle session ended (`57P05`), out of
/// connections or memory (`53300`, `53200`, `53000`).
private let transientStates: Set<String> = ["57P01", "57P02", "57P03", "57P05", "53000", "53200", "53300"]
