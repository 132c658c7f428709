import Foundation
import Postgres
import PostgresCluster
import Synchronization
import TestSupport
import Testing

@testable import Repository
@testable import RepositoryPostgres

/// What only a server has: its schema's refusals, its SQL dialect, losing it mid-write, and many
/// clients at once.
@Suite("PostgreSQL backend", .needs(.postgreSQL))
struct ServerTests {
    func cluster() throws -> ThrowawayCluster { try #require(ThrowawayCluster.forStores) }

    @Test func aSchemaThatIsNotOursOrIsNewerIsRefusedAndNothingIsWritten() throws {
        let cluster = try cluster()
        // Someone else's schema called sectionctl.
        let foreign = try cluster.newDatabase()
        try PostgresConnection(connectionString: foreign).execute(script: "CREATE SCHEMA sectionctl; CREATE TABLE sectionctl.notes (t text)")
        #expect(throws: RepositoryError.notOurSchema(server: ServerSupport.postgres.describe(StoreLocation(foreign)), schema: "sectionctl")) {
            try SectionStore(location: .server(connectionString: foreign), server: .postgres, create: true)
        }
        let tables = try PostgresConnection(connectionString: foreign).execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'sectionctl'")
        #expect(tables.int64(0, 0) == 1, "nothing was added to it")
        // One migrated by a newer sectionctl.
        let newer = try cluster.newDatabase()
        _ = try SectionStore(location: .server(connectionString: newer), server: .postgres, create: true)
        let next = PostgresMigrator.latestVersion + 1
        try PostgresConnection(connectionString: newer).execute(
            "INSERT INTO sectionctl.sectionctl_migrations (version, name) VALUES ($1, 'future')", [String(next)])
        #expect(throws: RepositoryError.newerSchema(path: ServerSupport.postgres.describe(StoreLocation(newer)), found: next, known: next - 1)) {
            try SectionStore(location: .server(connectionString: newer), server: .postgres)
        }
        // An empty database without create.
        let empty = try cluster.newDatabase()
        #expect {
            try SectionStore(location: .server(connectionString: empty), server: .postgres)
        } throws: { error in
            guard case RepositoryError.databaseMissing = error else { return false }
            return true
        }
    }

    @Test func clientsMigratingAtOnceApplyEachMigrationOnce() async throws {
        let database = try cluster().newDatabase()
        try await withThrowingTaskGroup(of: Void.self) { group in
            for _ in 0..<6 {
                group.addTask { _ = try SectionStore(location: .server(connectionString: database), server: .postgres, create: true) }
            }
            try await group.waitForAll()
        }
        let ledger = try PostgresConnection(connectionString: database).execute("SELECT count(*) FROM sectionctl.sectionctl_migrations")
        #expect(ledger.int64(0, 0).map(Int.init) == EmbeddedMigration.postgres.count)
    }

    @Test func theSchemaCheckScriptPasses() throws {
        // Tests/postgres-schema-check.sql: counts, rank nodes, undo replay, plain-SQL marking
        // and retired names, written as a psql script (its `\set` lines are psql's, not SQL).
        let script = try String(
            contentsOf: packageRoot.appending(path: "Tests/postgres-schema-check.sql"), encoding: .utf8)
        let sql = script.split(separator: "\n", omittingEmptySubsequences: false).filter { !$0.hasPrefix("\\") }.joined(separator: "\n")
        let database = try cluster().newSectionctlDatabase {
            _ = try SectionStore(location: .server(connectionString: $0), server: .postgres, create: true)
        }
        try PostgresConnection(connectionString: database).execute(script: sql)
    }

    @Test func aURLPicksTheBackend() throws {
        let fixture = try StoreFixture(.postgres)
        let uri = try #require(fixture.location.connectionString)
        let server = try SectionStore(url: try #require(URL(string: uri)), server: .postgres)
        #expect(server.location == .server(connectionString: uri))
        #expect(try server.lists().map(\.name) == ["default"])
        let directory = try TemporaryDirectory()
        let file = try SectionStore(url: URL(fileURLWithPath: directory.path("a.db")), create: true)
        #expect(file.location == .file(path: directory.path("a.db")))
        #expect(throws: RepositoryError.unsupportedURL(scheme: "https")) {
            try SectionStore(url: try #require(URL(string: "https://example.com/a.db")))
        }
        #expect(StoreLocation("postgres://h/db").isServer && StoreLocation("POSTGRESQL://h/db").isServer)
        #expect(StoreLocation("./postgresql.db") == .file(path: "./postgresql.db"))
        #expect(ServerSupport.postgres.describe(StoreLocation("postgresql://ada:pw@h/db")) == "postgresql://ada:***@h/db")
        #expect(server.path == ServerSupport.postgres.describe(server.location))
    }

    @Test func aSerializationFailureIsRetriedAndPastItsRetriesIsUnavailable() throws {
        let fixture = try StoreFixture(.postgres)
        // A trigger of the test's own refuses the next `failures` inserts of a section as a
        // serialization failure (a sequence counts them: it is not rolled back with the write).
        func refuse(next failures: Int) throws {
            try fixture.plainSQL(
                """
                DROP TRIGGER IF EXISTS test_refuse ON sections;
                DROP SEQUENCE IF EXISTS test_attempts;
                CREATE SEQUENCE test_attempts;
                CREATE OR REPLACE FUNCTION test_refuse() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN
                    IF nextval('sectionctl.test_attempts') <= \(failures) THEN
                        RAISE EXCEPTION 'could not serialize access' USING ERRCODE = '40001';
                    END IF;
                    RETURN NULL;
                END $$;
                CREATE TRIGGER test_refuse AFTER INSERT ON sections FOR EACH ROW EXECUTE FUNCTION test_refuse();
                """)
        }
        try refuse(next: 2)
        let change = try fixture.list.apply(.addSection(title: "A"))
        #expect(change.version == 1, "the third attempt committed, once")
        #expect(try fixture.plainInt("SELECT last_value FROM test_attempts") == 3)
        try refuse(next: SectionStore.serializationRetries + 1)
        #expect {
            try fixture.list.apply(.addSection(title: "B"))
        } throws: { error in
            guard case RepositoryError.unavailable(_, let reason) = error else { return false }
            return reason.contains("retries")
        }
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["A"], "nothing of the refused write")
    }

    @Test func aWriteWaitsForItsListsLockAndNotForAnotherList() throws {
        let fixture = try StoreFixture(.postgres)
        try fixture.store.createList(named: "other")
        let uri = try #require(fixture.location.connectionString)
        // Another client in the middle of a write to "default": it holds that list's row lock.
        let holder = try PostgresConnection(connectionString: uri)
        try holder.execute(script: "BEGIN; SELECT 1 FROM sectionctl.lists WHERE name = 'default' FOR UPDATE")
        let store = fixture.store
        let second = try fixture.reopen()
        let otherWrite = Write { try store.list("other").apply(.addSection(title: "Elsewhere")) }
        let sameWrite = Write { try second.list("default").apply(.addSection(title: "Here")) }
        #expect(otherWrite.finished(), "a write to another list does not wait")
        // The server itself says when the write to the locked list waits for a lock.
        let observer = try PostgresConnection(connectionString: uri)
        let waiting = try waitUntil {
            try observer.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE datname = current_database() AND wait_event_type = 'Lock'"
            ).int64(0, 0) == 1
        }
        #expect(waiting, "the write to the locked list waits for a lock")
        #expect(!sameWrite.hasFinished, "and has not gone past it")
        try holder.execute(script: "COMMIT")
        #expect(sameWrite.finished(), "and goes on when it is released")
        #expect(try otherWrite.result()?.version == 1)
        #expect(try sameWrite.result()?.version == 1)
        #expect(try store.list("other").snapshot().sections.map(\.title) == ["Elsewhere"])
        #expect(try store.list("default").snapshot().sections.map(\.title) == ["Here"])
    }

    @Test func theViewsWorkForAPsqlUser() throws {
        let fixture = try StoreFixture(.postgres)
        try fixture.list.apply(.addSection(title: "A"))
        try fixture.list.apply(.addSection(title: "B"))
        for title in ["x", "y", "z"] { try fixture.list.apply(.addRow(.text(title), to: .init(section: .index(1), index: .end))) }
        try fixture.list.apply(.moveRow(.path(.index(1), .index(2)), to: .init(section: .index(1), index: .index(0))))
        #expect(try fixture.plainInt("SELECT id FROM ordered_rows WHERE path = '1:0'") == 3, "z, moved to the front")
        #expect(try fixture.plainInt("SELECT row_index FROM ordered_rows WHERE title = 'y'") == 2)
        // A psql user with the default search path, writing the qualified table: the triggers follow.
        let uri = try #require(fixture.location.connectionString)
        try PostgresConnection(connectionString: uri).execute(script: "DELETE FROM sectionctl.rows WHERE title = 'x'")
        #expect(try fixture.store.check().isEmpty)
        #expect(try fixture.list.changes(since: 5).isReload)
    }

    @Test func aServerStoppedDuringALargeSaveLeavesTheOldState() throws {
        // A cluster of the test's own: stopping the shared one would stop every other test.
        let cluster = try ThrowawayCluster()
        let admin = try cluster.connect()
        try admin.execute(script: "CREATE DATABASE crash")
        let uri = cluster.uri(of: "crash")
        let store = try SectionStore(location: .server(connectionString: uri), server: .postgres, create: true)
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addSection(title: "B"))
        let before = try store.list("default").snapshot()
        // A large save: a session adding 4,000 rows. A trigger of the test's own holds the save
        // up halfway through its writes, so the server is stopped in the middle of it.
        let session = try store.list("default").beginEditing()
        for index in 0..<4_000 {
            try session.apply(.addRow(.text("row \(index)"), to: .init(section: .index(index % 2), index: .end)))
        }
        try PostgresConnection(connectionString: uri).execute(
            script: """
                CREATE FUNCTION sectionctl.test_pause() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_sleep(3600); RETURN NULL; END $$;
                CREATE TRIGGER test_pause AFTER INSERT ON sectionctl.rows FOR EACH ROW
                WHEN (NEW.title = 'row 2000') EXECUTE FUNCTION sectionctl.test_pause();
                """)
        // Stopped once the server says the save is held up in the trigger, however long the
        // save took to get there.
        let held = DispatchSemaphore(value: 0)
        let stopper = Write {
            let observer = try cluster.connect()
            let paused = try waitUntil {
                try observer.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = 'crash' AND wait_event = 'PgSleep'"
                ).int64(0, 0) == 1
            }
            if paused { held.signal() }
            cluster.stop()
        }
        #expect {
            try session.save()
        } throws: { error in
            guard case RepositoryError.unavailable(let server, _) = error else { return false }
            return server == ServerSupport.postgres.describe(StoreLocation(uri))
        }
        #expect(stopper.finished())
        _ = try stopper.result()
        #expect(held.wait(timeout: .now()) == .success, "the server was stopped while the save was held up inside it")
        try cluster.start()
        let after = try SectionStore(location: .server(connectionString: uri), server: .postgres).list("default").snapshot()
        #expect(after == before, "the save never committed: the old state, whole, after the restart")
        #expect(try SectionStore(location: .server(connectionString: uri), server: .postgres).check().isEmpty)
    }
}

/// Work on a thread of its own, with its outcome: `finished()` waits for it to end.
final class Write<Value: Sendable>: Sendable {
    private let outcome = Mutex<Result<Value, any Error>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    init(_ body: @escaping @Sendable () throws -> Value) {
        Thread { [self] in
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }.start()
    }

    /// Waits for the work to end; false only if it has not after the hang guard.
    func finished() -> Bool { hasFinished || done.wait(timeout: .now() + hangGuardSeconds) == .success }

    /// Whether it has ended, without waiting.
    var hasFinished: Bool { outcome.withLock { $0 != nil } }

    /// What it returned (`nil` while it runs), or the error it threw.
    func result() throws -> Value? { try outcome.withLock { $0 }?.get() }
}

/// What the PostgreSQL backend decides without a server: its SQL and what failures mean.
@Suite("PostgreSQL backend, without a server")
struct ServerOfflineTests {
    @Test func placeholdersAreNumberedOutsideQuotesAndComments() {
        #expect(PostgresEngine.numberingPlaceholders("SELECT ? , ?") == "SELECT $1 , $2")
        #expect(PostgresEngine.numberingPlaceholders("SELECT '?', \"a?\", ? -- why?\n, ?") == "SELECT '?', \"a?\", $1 -- why?\n, $2")
        #expect(PostgresEngine.numberingPlaceholders("SELECT 'it''s ?', ?") == "SELECT 'it''s ?', $1")
    }

    @Test func theServersFailuresMeanWhatTheyShould() {
        let location = StoreLocation("postgresql://ada:s3cret@db.example/lists")
        func mapped(_ state: String?, _ message: String = "m") -> RepositoryError? {
            SectionStore.repositoryError(PostgresError(sqlState: state, message: message, context: "c"), location: location) as? RepositoryError
        }
        #expect(
            mapped(nil, "server closed the connection unexpectedly")
                == .unavailable(
                    server: "postgresql://ada:***@db.example/lists", reason: "server closed the connection unexpectedly"))
        #expect(mapped("57P01").map { if case .unavailable = $0 { true } else { false } } == true, "administrator shutdown")
        #expect(mapped("40001").map { if case .unavailable = $0 { true } else { false } } == true, "serialization failure past its retries")
        #expect(mapped("40P01").map { if case .unavailable = $0 { true } else { false } } == true, "deadlock past its retries")
        #expect(mapped("22021") == .textContainsNULOnServer)
        #expect(mapped("23505", "duplicate key") == .inconsistent("the schema refused a write (duplicate key)"))
        #expect(mapped("42P01", "no such table") == .server(sqlState: "42P01", message: "no such table"))
        #expect(!(mapped(nil, "password=s3cret rejected")?.description.contains("s3cret") ?? true), "a password in libpq's message is masked too")
    }
}

extension StoreLocation {
    /// The connection string of a server location.
    var connectionString: String? {
        if case .server(let connectionString) = self { return connectionString }
        return nil
    }
}
