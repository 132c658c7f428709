import Foundation
import SQLite

/// Opening a location: the one place that picks the backend a `StoreLocation` names.
extension StoreLocation {
    /// The connection a `SectionStore` works on, prepared (refusals checked, migrated when
    /// needed), and whether the database can only be read.
    func openStoreConnection(create: Bool, readOnly: Bool, progress: (@Sendable (MigrationProgress) -> Void)?) throws
        -> (db: any Database, isReadOnly: Bool)
    {
        do {
            switch self {
            case .file(let path):
                let db = try SQLiteStorage.openStore(path: path, create: create, readOnly: readOnly, progress: progress)
                return (db, db.isReadOnly)
            case .server(let connectionString):
                let db = try PostgresDatabase(connectionString: connectionString)
                // A schema the user may not use drops out of the search path without a word, and
                // its tables would seem missing: say what is missing instead.
                let unusable = try db.scalarInt(
                    "SELECT count(*) FROM pg_namespace WHERE nspname = ? AND NOT has_schema_privilege(oid, 'USAGE')", PostgresDatabase.schema)
                if unusable == 1 {
                    throw RepositoryError.permissionDenied(server: description, reason: "permission denied for schema \(PostgresDatabase.schema)")
                }
                do {
                    try PostgresMigrator.prepare(db, create: create, readOnly: readOnly, progress: progress)
                } catch RepositoryError.notOurDatabase {
                    throw RepositoryError.notOurSchema(server: description, schema: PostgresDatabase.schema)
                }
                return (db, readOnly)
            }
        } catch {
            throw SectionStore.repositoryError(error, location: self)
        }
    }

    /// Another connection with the store's settings, for a reader that keeps its own read
    /// transaction open (an edit session). `immutable` for a database file that can only be
    /// read as a file nothing changes.
    func openReaderConnection(readOnly: Bool, immutable: Bool) throws -> any Database {
        do {
            switch self {
            case .file(let path):
                return try SQLiteStorage.openReader(path: path, readOnly: readOnly, immutable: immutable)
            case .server(let connectionString):
                return try PostgresDatabase(connectionString: connectionString)
            }
        } catch {
            throw SectionStore.repositoryError(error, location: self)
        }
    }

    /// A connection for an observer, which only reads.
    func openObserverConnection() throws -> any Database {
        try openReaderConnection(readOnly: true, immutable: false)
    }

    /// The schema version this build brings to databases here: the newest of `Migrations/`
    /// for a file, of `Migrations/postgres/` for a server.
    var schemaVersion: Int {
        switch self {
        case .file: return Migrator.latestVersion
        case .server: return PostgresMigrator.latestVersion
        }
    }
}

/// Opening SQLite files.
enum SQLiteStorage {
    /// Opens the store's connection on the file at `path` and checks the file, without writing:
    /// the migrations and the journal mode come after. A WAL database the user may read but
    /// whose directory they cannot write (so SQLite cannot make its `-shm` file) is opened as
    /// immutable instead.
    static func openStore(path: String, create: Bool, readOnly: Bool, progress: (@Sendable (MigrationProgress) -> Void)?) throws
        -> Connection
    {
        var isDirectory: ObjCBool = false
        let exists = FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory)
        if exists && isDirectory.boolValue {
            throw RepositoryError.cannotOpen(path: path, reason: "it is a directory, not a database file")
        }
        if !exists && (!create || readOnly) {
            throw RepositoryError.databaseMissing(path: path)
        }
        let db = try Connection(path: path, mode: readOnly ? .readOnly : (create ? .readWriteCreate : .readWrite))
        db.setBusyTimeout(milliseconds: SectionStore.busyTimeoutMilliseconds)
        do {
            try prepare(db, path: path, create: create, progress: progress)
            return db
        } catch where db.isReadOnly && error.isUnreadableWithoutWriting {
            // Read as immutable, SQLite would not see changes still in the write-ahead log.
            let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
            if log > 0 {
                throw RepositoryError.cannotOpen(
                    path: path,
                    reason: "its latest changes are in \(path)-wal, which only a user who can write the directory can read")
            }
            let immutable = try Connection(path: path, mode: .readOnly, immutable: true)
            try prepare(immutable, path: path, create: false)
            return immutable
        }
    }

    /// A connection on the file at `path` with the store's settings, for a reader.
    static func openReader(path: String, readOnly: Bool, immutable: Bool) throws -> Connection {
        let db = try Connection(path: path, mode: readOnly ? .readOnly : .readWrite, immutable: immutable)
        db.setBusyTimeout(milliseconds: SectionStore.busyTimeoutMilliseconds)
        try db.execute(script: "PRAGMA foreign_keys = ON;")
        return db
    }

    /// Refuses what is not ours, sets the connection's pragmas and migrates when needed.
    private static func prepare(_ db: Connection, path: String, create: Bool, progress: (@Sendable (MigrationProgress) -> Void)? = nil) throws {
        let inspection = try Migrator.inspect(db)
        if inspection == .empty && !create {
            throw RepositoryError.databaseMissing(path: path)
        }
        try db.execute(script: "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;")
        if !db.isReadOnly {
            _ = try db.query("PRAGMA journal_mode = WAL") { $0.string(0) }
        }
        if inspection != .ours(version: Migrator.latestVersion) {
            if db.isReadOnly { throw RepositoryError.readOnly(path: path) }
            try Migrator.migrate(db, progress: progress)
        }
    }
}
