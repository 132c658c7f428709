import Foundation
import Synchronization

/// A sectionctl database: lists of ordered sections of ordered rows, stored in one SQLite file
/// or on a PostgreSQL server (`StoreLocation`).
///
/// Every change is one transaction that writes the rows it touches (never the whole list),
/// bumps the list's version, and returns a `Change` with the changeset from the old state to
/// the new. `SectionStore` is `Sendable`: threads share one instance, whose connection is used by
/// one at a time; other processes may open the same database at once (on SQLite: WAL,
/// `BEGIN IMMEDIATE`, a busy timeout; on PostgreSQL: a lock on the list's row per write).
///
/// A list's own operations go through its `ListHandle` (`list(_:)`):
///
/// ```swift
/// let store = try SectionStore(path: path, create: true)
/// let list = store.list(SectionStore.defaultList)  // a new database has the list "default"
/// try list.apply(.addSection(title: "To do"))
/// try list.apply(.addRow(.text("Buy milk"), to: .init(section: .index(0), index: .end)))
/// let snapshot = try list.snapshot()  // snapshot.sections[0].rows[0].title == "Buy milk"
/// ```
public final class SectionStore: Sendable {
    /// The name of the list used when none is named.
    public static let defaultList = "default"

    /// How long a write waits for another process's lock before failing with `.busy`.
    public static let busyTimeoutMilliseconds: Int32 = 5_000

    /// How many times a write that a PostgreSQL server refused for a deadlock or serialization
    /// failure is tried again before the error reaches the caller.
    public static let serializationRetries = 5

    /// Where the lists are kept.
    public let location: StoreLocation
    /// What opens server locations for this store: its own location when that is a server, and
    /// a replica's server (`.postgres`, from `RepositoryPostgres`); `nil` for files alone.
    public let server: ServerSupport?
    /// The path of the database file; for a server, its connection string with any password
    /// masked (what messages show).
    public let path: String
    /// Whether the database can only be read (file permissions, a read-only mount, or `readOnly`).
    public let isReadOnly: Bool

    let connection: Mutex<any Database>
    /// Connections for reads beside `connection`, where the database lets readers work while a
    /// write runs (see `ReaderPool`); `nil` where reads share the store's connection.
    private let readers: ReaderPool?
    private let positionWriteCounter = Atomic<Int>(0)
    /// Called at each stage of a replica's `sync()`; what a test makes fail there (a connection
    /// cut, an answer lost). `nil` outside tests.
    package let syncFaults = Mutex<(@Sendable (SyncStage) throws -> Void)?>(nil)
    /// The hook of this store's commits, once its first commit decided it (`commitHook(db:)`).
    let decidedCommitHook = Mutex<CommitHook??>(nil)

    /// Opens the database file at `path`, creating and migrating it when `create` is true.
    ///
    /// Refuses, without writing anything: a missing file unless `create` (`.databaseMissing`),
    /// a file that is not SQLite (`.notADatabase`), a SQLite database that is not ours
    /// (`.notOurDatabase`), and a schema newer than this build (`.newerSchema`).
    /// - Parameters:
    ///   - path: the database file.
    ///   - server: what opens the server of a replica file (see `ServerSupport`); files alone
    ///     need none.
    ///   - create: whether to create the file, and the schema in an empty file.
    ///   - readOnly: open for reading only, even when the file could be written.
    ///   - migrationProgress: called while migrations run (see `MigrationProgress`), for a caller
    ///     that shows long work; never called when the schema is up to date.
    public convenience init(
        path: String, server: ServerSupport? = nil, create: Bool = false, readOnly: Bool = false,
        migrationProgress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws {
        try self.init(location: .file(path: path), server: server, create: create, readOnly: readOnly, migrationProgress: migrationProgress)
    }

    /// Opens the database `url` names: a `file:` URL, or a `postgresql://` URI of a server (see
    /// `init(location:server:create:readOnly:migrationProgress:)`).
    /// - Throws: `RepositoryError.unsupportedURL` for a URL of any other scheme.
    public convenience init(
        url: URL, server: ServerSupport? = nil, create: Bool = false, readOnly: Bool = false,
        migrationProgress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws {
        guard let location = StoreLocation(url: url) else {
            throw RepositoryError.unsupportedURL(scheme: url.scheme)
        }
        try self.init(location: location, server: server, create: create, readOnly: readOnly, migrationProgress: migrationProgress)
    }

    /// Opens the lists at `location`, creating and migrating the schema when `create` is true.
    ///
    /// On a server, the tables live in the schema `sectionctl` of the database the URI names
    /// (beside any other application's); `create` makes that schema. The same refusals hold:
    /// no schema unless `create` (`.databaseMissing`), a `sectionctl` schema that is not ours
    /// (`.notOurDatabase`), a newer one (`.newerSchema`); a server that cannot be reached is
    /// `.unavailable`, whose message masks any password. A server is opened by `server`
    /// (`.postgres`, from the product `RepositoryPostgres`); without it, a server location is
    /// refused with `.serverSupportMissing` before any connection.
    public convenience init(
        location: StoreLocation, server: ServerSupport? = nil, create: Bool = false, readOnly: Bool = false,
        migrationProgress: (@Sendable (MigrationProgress) -> Void)? = nil
    ) throws {
        try self.init(
            location: location, server: server, create: create, readOnly: readOnly, migrationProgress: migrationProgress,
            readsBesideWrites: true)
    }

    /// Opens the lists at `location`, as the public initializer does; `readsBesideWrites: false`
    /// reads on the store's own connection always, for a process that never reads while it
    /// writes (a command-line process): it then opens one connection rather than two, and
    /// SQLite reads the schema once. `checkingOnFirstUse` lets a server's check of the schema
    /// go with the first read or write, in its first round trip, where its refusals are then
    /// thrown (a command-line process, which opens a store to use it at once); it applies
    /// without `create`, `readOnly` and `migrationProgress`.
    package init(
        location: StoreLocation, server: ServerSupport? = nil, create: Bool = false, readOnly: Bool = false,
        migrationProgress: (@Sendable (MigrationProgress) -> Void)? = nil, readsBesideWrites: Bool, checkingOnFirstUse: Bool = false
    ) throws {
        self.location = location
        self.server = server
        self.path = server.describe(location)
        let opened = try location.openStoreConnection(
            server: server, create: create, readOnly: readOnly,
            checkingOnFirstUse: checkingOnFirstUse && !create && !readOnly && migrationProgress == nil, progress: migrationProgress)
        self.isReadOnly = opened.isReadOnly
        self.connection = Mutex(opened.db)
        if opened.readsBeside && readsBesideWrites {
            let readOnly = opened.isReadOnly
            readers = ReaderPool { try location.openReaderConnection(server: server, readOnly: readOnly) }
        } else {
            readers = nil
        }
    }

    /// The schema version of this build for a SQLite file: the number of the newest file in
    /// `Migrations/`.
    public static var schemaVersion: Int { Migrator.latestVersion }

    /// The schema version of this build at `location`: the newest of `Migrations/` for a file,
    /// of `Migrations/postgres/` for a server (the two schemas are numbered apart: each counts
    /// its own migrations); `nil` for a server without `server` (`.postgres`, in the product
    /// `RepositoryPostgres`).
    public static func schemaVersion(at location: StoreLocation, server: ServerSupport? = nil) -> Int? {
        location.schemaVersion(server: server)
    }

    /// How many times a row's or section's position was written since this store was opened:
    /// one per insert or move, plus the neighbours rewritten when a gap between positions ran
    /// out. The benchmark reports it per move.
    public var positionWrites: Int { positionWriteCounter.load(ordering: .relaxed) }

    package func countPositionWrites(_ count: Int) {
        positionWriteCounter.add(count, ordering: .relaxed)
    }

    // MARK: - Running work on the connection

    /// Runs `body` in a read transaction, so that everything it reads is one consistent state:
    /// the last committed one. On a file in WAL mode and on a server it runs on a reader
    /// connection of its own, so it never waits for a write in progress (this store's or
    /// another's); elsewhere, or when no reader can be opened, on the store's connection, after
    /// any write in progress.
    package func read<T: Sendable>(_ body: (any Database) throws -> T) throws -> T {
        if let readers {
            do {
                if let result = try readers.withReader({ db in try db.inTransaction(.read) { try body(db) } }) { return result }
            } catch {
                throw Self.repositoryError(error, location: location)
            }
        }
        return try withConnection { db in try db.inTransaction(.read) { try body(db) } }
    }

    /// Whether reads run on connections of their own beside the store's (see `read(_:)`).
    package var readsBesideWrites: Bool { readers != nil }

    /// Runs `body` in a write transaction (`BEGIN IMMEDIATE` on SQLite; on PostgreSQL READ
    /// COMMITTED, the list rows it looks up locked): commits when it returns, rolls back when it
    /// throws. Before committing, the rank structure is brought back into shape
    /// (`RankTree.settle`), so every commit leaves it balanced. The transaction is marked as
    /// sectionctl's own from its start (`TransactionMode.ownWrite`), so the triggers that notice plain-SQL
    /// changes leave it alone; bumping a list's version journals the change
    /// (`bumpVersion(of:recording:db:)`).
    ///
    /// A deadlock or serialization failure a server reports runs `body` again, up to
    /// `serializationRetries` times, unless `retrying` is false (a body that consumes input).
    /// A write whose task was cancelled (`CancellationFlag.check()`) rolls back and throws
    /// `CancellationError`.
    package func write<T: Sendable>(retrying: Bool = true, _ body: (any Database) throws -> T) throws -> T {
        if isReadOnly { throw RepositoryError.readOnly(path: path) }
        var attempt = 0
        while true {
            do {
                return try withConnection(mappingErrors: false) { db in
                    let result = try db.inTransaction(.ownWrite) {
                        let result = try body(db)
                        try RankTree.settle(db)
                        try db.endWriterMark()
                        // Cancelled while it ran: roll back rather than commit.
                        try CancellationFlag.check()
                        return result
                    }
                    // Committed. Free pages a large delete left go back to the file system; a
                    // failure here (another writer holds the lock) leaves them for a later write.
                    try? db.reclaimFreePages()
                    return result
                }
            } catch  where error.isRetryableConflict && retrying && attempt < Self.serializationRetries {
                attempt += 1
                usleep(UInt32.random(in: 1_000...20_000) * UInt32(attempt))
            } catch {
                throw Self.repositoryError(error, location: location)
            }
        }
    }

    func withConnection<T: Sendable>(mappingErrors: Bool = true, _ body: (any Database) throws -> T) throws -> T {
        do {
            return try connection.withLock { db in try body(db) }
        } catch {
            throw mappingErrors ? Self.repositoryError(error, location: location) : error
        }
    }
}
