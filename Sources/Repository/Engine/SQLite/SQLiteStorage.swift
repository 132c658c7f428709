import Foundation
import SQLite
import Synchronization

/// Opening a location: the one place that picks the backend a `StoreLocation` names.
extension StoreLocation {
    /// The connection a `SectionStore` works on, prepared (refusals checked, migrated when
    /// needed), and whether the database can only be read.
    ///
    /// `readsBeside` says whether reads may run on connections of their own beside it: on a
    /// server always; on a file when it is in WAL mode and the connection shares the file (not
    /// the exclusive or immutable connection of a full disk or an unwritable directory).
    /// `server` opens a server location; without it, one is refused before any connection.
    /// `checkingOnFirstUse` lets a server's opening leave its check of the schema to the first
    /// transaction (`ServerBackend.openStoreConnection`).
    func openStoreConnection(
        server: ServerSupport?, create: Bool, readOnly: Bool, checkingOnFirstUse: Bool = false,
        progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws
        -> (db: any Database, isReadOnly: Bool, readsBeside: Bool)
    {
        do {
            switch self {
            case .file(let path):
                let connection = try SQLiteStorage.openStore(path: path, create: create, readOnly: readOnly, progress: progress)
                return (SQLiteEngine(connection), connection.isReadOnly, SQLiteStorage.sharesWriteAheadLog(connection))
            case .server(let connectionString):
                let db = try server.required(for: self).backend.openStoreConnection(
                    connectionString: connectionString, location: self, create: create, readOnly: readOnly,
                    checkingOnFirstUse: checkingOnFirstUse, progress: progress)
                return (db, readOnly, true)
            }
        } catch {
            throw SectionStore.repositoryError(error, location: self)
        }
    }

    /// Another connection with the store's settings, for reads beside the store's own connection
    /// (the store's reader pool, an observer).
    func openReaderConnection(server: ServerSupport?, readOnly: Bool) throws -> any Database {
        do {
            switch self {
            case .file(let path):
                return SQLiteEngine(try SQLiteStorage.openReader(path: path, readOnly: readOnly))
            case .server(let connectionString):
                return try server.required(for: self).backend.openReaderConnection(connectionString: connectionString)
            }
        } catch {
            throw SectionStore.repositoryError(error, location: self)
        }
    }

    /// A connection for an observer, which only reads.
    func openObserverConnection(server: ServerSupport?) throws -> any Database {
        try openReaderConnection(server: server, readOnly: true)
    }

    /// The schema version this build brings to databases here: the newest of `Migrations/`
    /// for a file, of `Migrations/postgres/` for a server; `nil` for a server without `server`.
    func schemaVersion(server: ServerSupport?) -> Int? {
        switch self {
        case .file: return Migrator.latestVersion
        case .server: return server?.backend.schemaVersion
        }
    }
}

/// Opening SQLite files.
enum SQLiteStorage {
    /// Opens the store's connection on the file at `path` and checks the file, without writing:
    /// the migrations and the journal mode come after. A WAL database the user may read but
    /// whose directory they cannot write (so SQLite cannot make its `-shm` file) is opened as
    /// immutable instead.
    ///
    /// On a full disk, where there is no room for the `-shm` file either, the connection keeps
    /// the WAL index and its temporary tables in its own memory (exclusive locking mode): reads
    /// work, so the data can be shown and exported; a write fails with `RepositoryError.diskFull` and writes nothing;
    /// other processes wait until the store is closed. A read-only connection, which cannot take
    /// that lock, reads the file as immutable.
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
        let mode: OpenMode = readOnly ? .readOnly : (create ? .readWriteCreate : .readWrite)
        let failure: any Error
        let wasReadOnly: Bool
        do {
            // Closed before another is opened: a connection that failed may still hold a lock.
            let db = try Connection(path: path, mode: mode)
            db.setBusyTimeout(milliseconds: SectionStore.busyTimeoutMilliseconds)
            do {
                try prepare(db, path: path, create: create, progress: progress)
                return db
            } catch {
                (failure, wasReadOnly) = (error, db.isReadOnly)
            }
        }
        let isOutOfRoom = (failure as? SQLiteError)?.isOutOfRoom == true
        if isOutOfRoom && !wasReadOnly {
            let exclusive = try Connection(path: path, mode: mode)
            exclusive.setBusyTimeout(milliseconds: SectionStore.busyTimeoutMilliseconds)
            // Before the first read, or SQLite would use the `-shm` file after all; and sorts
            // in memory, since the temporary directory may be on the same full disk.
            try exclusive.execute(script: "PRAGMA locking_mode = EXCLUSIVE; PRAGMA temp_store = MEMORY;")
            try prepare(exclusive, path: path, create: create, progress: progress)
            heldExclusively.withLock { $0[path] = HeldConnection(connection: exclusive) }
            return exclusive
        }
        guard wasReadOnly && (isOutOfRoom || failure.isUnreadableWithoutWriting) else { throw failure }
        // Read as immutable, SQLite would not see changes still in the write-ahead log.
        let log = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int ?? 0
        if log > 0 {
            throw RepositoryError.cannotOpen(
                path: path,
                reason: isOutOfRoom
                    ? "its latest changes are in \(path)-wal, and the disk has no room to read them read-only"
                    : "its latest changes are in \(path)-wal, which only a user who can write the directory can read")
        }
        let immutable = try Connection(path: path, mode: .readOnly, immutable: true)
        try prepare(immutable, path: path, create: false)
        return immutable
    }

    /// Whether `db` is in WAL mode and shares the file with other connections (normal locking,
    /// not immutable): then readers on connections of their own never wait for its writes.
    static func sharesWriteAheadLog(_ db: Connection) -> Bool {
        guard !db.isImmutable,
            let mode = try? db.queryFirst("PRAGMA journal_mode", row: { $0.string(0) }), mode.lowercased() == "wal",
            let locking = try? db.queryFirst("PRAGMA locking_mode", row: { $0.string(0) })
        else { return false }
        return locking.lowercased() == "normal"
    }

    /// A connection on the file at `path` with the store's settings, for a reader.
    static func openReader(path: String, readOnly: Bool) throws -> Connection {
        if heldExclusively.withLock({ $0[path]?.connection != nil }) {
            // It would wait for the store's own lock, then say the file is busy.
            throw RepositoryError.cannotOpen(
                path: path,
                reason: "the disk has no room for \(path)-shm, which watching needs (show, export, check and edit work)")
        }
        let db = try Connection(path: path, mode: readOnly ? .readOnly : .readWrite)
        db.setBusyTimeout(milliseconds: SectionStore.busyTimeoutMilliseconds)
        try db.execute(script: "PRAGMA foreign_keys = ON;")
        return db
    }

    /// The store connections of this process that opened their file in exclusive locking mode
    /// (a full disk), by path: no other connection can read the file while one is open.
    private static let heldExclusively = Mutex<[String: HeldConnection]>([:])

    /// A connection, as long as something else keeps it open.
    private struct HeldConnection: @unchecked Sendable {
        // Only ever compared with nil, under the lock.
        weak var connection: Connection?
    }

    /// Refuses what is not ours, sets the connection's pragmas and migrates when needed.
    private static func prepare(_ db: Connection, path: String, create: Bool, progress: (@Sendable (MigrationProgress) -> Void)? = nil) throws {
        let inspection = try Migrator.inspect(db)
        if inspection == .empty && !create {
            throw RepositoryError.databaseMissing(path: path)
        }
        try db.execute(script: "PRAGMA foreign_keys = ON; PRAGMA synchronous = FULL;")
        if !db.isReadOnly {
            // A new file gives free pages back after large deletes (`Database.reclaimFreePages()`);
            // the mode can be set only before the first table (an older file: `SectionStore.vacuum()`).
            if inspection == .empty { try db.execute(script: "PRAGMA auto_vacuum = INCREMENTAL") }
            // The write-ahead log is cut back to this size after it was reset, rather than
            // keep the size a large transaction once gave it.
            try db.execute(script: "PRAGMA journal_size_limit = \(SpaceReport.walSizeLimit)")
            do {
                _ = try db.query("PRAGMA journal_mode = WAL") { $0.string(0) }
            } catch let error as SQLiteError where error.isDiskFull {
                // A file in another journal mode on a full disk: it is read as it is, and a
                // write fails for want of room.
            }
        }
        if inspection != .ours(version: Migrator.latestVersion) {
            if db.isReadOnly { throw RepositoryError.readOnly(path: path) }
            try Migrator.migrate(db, progress: progress)
        }
    }
}
