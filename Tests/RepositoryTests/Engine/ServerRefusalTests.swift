import Foundation
import Postgres
import PostgresCluster
import RepositoryPostgres
import TestSupport
import Testing

@testable import Repository

/// What a server refuses, each with its own error: a login, a database, a privilege, a
/// connection it has no room for; and a commit whose outcome the client cannot know.
@Suite("PostgreSQL refusals", .needs(.postgreSQL))
struct ServerRefusalTests {
    func cluster() throws -> ThrowawayCluster { try #require(ThrowawayCluster.forStores) }

    /// The error opening `uri` throws, or `nil` when it opens.
    func refusal(_ uri: String, create: Bool = false) -> RepositoryError? {
        do {
            _ = try SectionStore(location: .server(connectionString: uri), server: .postgres, create: create)
            return nil
        } catch {
            return error as? RepositoryError
        }
    }

    @Test func aLoginTheServerRefusesIsAnAuthenticationFailure() throws {
        let cluster = try cluster()
        let role = try cluster.newPasswordRole(password: "C0rrectHorse")
        let database = ThrowawayCluster.databaseName(of: try cluster.newDatabase())
        try cluster.connect().execute(script: "ALTER DATABASE \(database) OWNER TO \(role)")
        let wrong = cluster.uri(database: database, user: role, password: "Wr0ngBattery")
        let refused = try #require(refusal(wrong, create: true))
        guard case .authenticationFailed(let server, let reason) = refused else {
            Issue.record("a wrong password: \(refused)")
            return
        }
        #expect(server == ServerSupport.postgres.describe(StoreLocation(wrong)) && reason.contains("password authentication failed"), "\(refused)")
        #expect(!refused.description.contains("Wr0ngBattery"))
        let none = try #require(refusal(cluster.uri(database: database, user: role), create: true))
        guard case .authenticationFailed(_, let why) = none else {
            Issue.record("no password: \(none)")
            return
        }
        #expect(why.contains("no password supplied"), "\(none)")
        #expect(refusal(cluster.uri(database: database, user: role, password: "C0rrectHorse"), create: true) == nil, "the right one opens it")
    }

    @Test func aDatabaseTheServerDoesNotHaveIsMissing() throws {
        let cluster = try cluster()
        let uri = cluster.uri(database: "sectionctl_no_such_database", user: "postgres")
        let refused = try #require(refusal(uri, create: true))
        guard case .serverDatabaseMissing(let server, let reason) = refused else {
            Issue.record("\(refused)")
            return
        }
        #expect(server == ServerSupport.postgres.describe(StoreLocation(uri)) && reason.contains("does not exist"), "\(refused)")
    }

    @Test func aMissingPrivilegeIsPermissionDenied() throws {
        let cluster = try cluster()
        let database = ThrowawayCluster.databaseName(
            of: try cluster.newSectionctlDatabase { _ = try SectionStore(location: .server(connectionString: $0), server: .postgres, create: true) })
        let role = try cluster.newRole()
        let uri = cluster.uri(database: database, user: role)
        // Connected, but without the use of the schema…
        guard case .permissionDenied(_, let reason)? = refusal(uri) else {
            Issue.record("\(String(describing: refusal(uri)))")
            return
        }
        #expect(reason.contains("permission denied"), "\(reason)")
        // … or of a database to create it in …
        let empty = ThrowawayCluster.databaseName(of: try cluster.newDatabase())
        guard case .permissionDenied? = refusal(cluster.uri(database: empty, user: role), create: true) else {
            Issue.record("init without CREATE: \(String(describing: refusal(cluster.uri(database: empty, user: role), create: true)))")
            return
        }
        // … or not even let in (the server says so while connecting).
        try cluster.connect().execute(script: "REVOKE CONNECT ON DATABASE \(database) FROM PUBLIC")
        guard case .permissionDenied(_, let denied)? = refusal(uri) else {
            Issue.record("without CONNECT: \(String(describing: refusal(uri)))")
            return
        }
        #expect(denied.contains("permission denied for database"), "\(denied)")
    }

    @Test func aServerWithNoRoomForAConnectionIsUnavailable() throws {
        let cluster = try cluster()
        let role = try cluster.newRole("CONNECTION LIMIT 0")
        let uri = cluster.uri(database: "postgres", user: role)
        guard case .unavailable(_, let reason)? = refusal(uri) else {
            Issue.record("\(String(describing: refusal(uri)))")
            return
        }
        #expect(reason.contains("too many connections"), "\(reason)")
    }

    @Test func aRoleWithoutTheUseOfAppliedWritesStillWrites() throws {
        let cluster = try cluster()
        let database = ThrowawayCluster.databaseName(
            of: try cluster.newSectionctlDatabase { _ = try SectionStore(location: .server(connectionString: $0), server: .postgres, create: true) })
        let role = try cluster.newRole()
        // Granted every table as an administrator would have before the table was added.
        let admin = try PostgresConnection(connectionString: cluster.uri(of: database))
        try admin.execute(
            script: """
                GRANT USAGE ON SCHEMA sectionctl TO \(role);
                GRANT ALL ON ALL TABLES IN SCHEMA sectionctl TO \(role);
                GRANT ALL ON ALL SEQUENCES IN SCHEMA sectionctl TO \(role);
                REVOKE ALL ON sectionctl.applied_writes FROM \(role);
                """)
        let store = try SectionStore(location: .server(connectionString: cluster.uri(database: database, user: role)), server: .postgres)
        try store.list("default").apply(.addSection(title: "A"))
        #expect(try store.list(SectionStore.defaultList).outline().sections.map(\.title) == ["A"])
        #expect(try admin.execute("SELECT count(*) FROM sectionctl.applied_writes").int64(0, 0) == 0, "nothing recorded")
        // With the table granted too, a write records itself.
        try admin.execute(script: "GRANT ALL ON sectionctl.applied_writes TO \(role)")
        let granted = try SectionStore(location: .server(connectionString: cluster.uri(database: database, user: role)), server: .postgres)
        try granted.list("default").apply(.addSection(title: "B"))
        #expect(try admin.execute("SELECT count(*) FROM sectionctl.applied_writes").int64(0, 0) == 1)
    }

    /// A write's journal entry goes with its COMMIT, unanswered until then, naming the version
    /// the list read under its lock will get. One naming another version (a list record read
    /// before something moved the version) is refused with the transaction, as the database
    /// disagreeing with itself, and nothing of it is kept.
    @Test func aJournalEntryNamingAnotherVersionIsRefusedWithItsCommit() throws {
        let fixture = try StoreFixture(.postgres)
        try fixture.list.apply(.addSection(title: "A"))
        guard case .server(let uri) = fixture.location else { return }
        let db = try PostgresConnection(connectionString: uri)
        let list = try #require(try db.execute("SELECT id, version FROM sectionctl.lists WHERE name = 'default'").int64(0, 0))
        func attempt(_ version: Int64) throws {
            try db.inTransaction {
                try db.execute("SELECT sectionctl.writer_begin()")
                try db.execute("SELECT sectionctl.commit_change_as($1, '{}', 'change', NULL, $2)", [String(list), String(version)])
            }
        }
        #expect {
            try attempt(1)
        } throws: { error in
            (error as? PostgresError)?.sqlState == "XX001" && (error as? PostgresError)?.message.contains("not the 1") == true
        }
        #expect(try fixture.list.outline().version == 1, "nothing committed")
        try attempt(2)
        #expect(try fixture.list.outline().version == 2)
        let refused = PostgresError(sqlState: "XX001", message: "list 1 would be at version 3, not the 1 its writer read", context: "")
        guard case .inconsistent = refused.repositoryError(at: fixture.location) as? RepositoryError else {
            Issue.record("XX001 is reported as inconsistent")
            return
        }
    }

    /// A store whose commits wait, while a deferred trigger of the test's own waits for a lock
    /// the test holds; the connection that holds it; and the database's name.
    func heldCommits() throws -> (fixture: StoreFixture, holder: PostgresConnection, database: String) {
        let fixture = try StoreFixture(.postgres)
        let uri = try #require(fixture.location.serverConnectionString)
        let holder = try PostgresConnection(connectionString: uri)
        try holder.execute(
            script: """
                CREATE FUNCTION sectionctl.test_hold() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NULL; END $$;
                CREATE CONSTRAINT TRIGGER test_hold AFTER INSERT ON sectionctl.sections
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sectionctl.test_hold();
                SELECT pg_advisory_lock(4242);
                """)
        let database = try #require(holder.execute("SELECT current_database()").string(0, 0))
        return (fixture, holder, database)
    }

    /// The backends of this database whose commit waits for a lock: the server's own word that
    /// the commit has begun and not ended.
    static let committing = """
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE '%COMMIT' AND wait_event_type = 'Lock'
        """

    /// The backend whose commit waits, once one does; `nil` if none does before the hang guard.
    func heldBackend(_ holder: PostgresConnection) throws -> Int64? {
        var backend: Int64?
        _ = try waitUntil {
            backend = try holder.execute(Self.committing).int64(0, 0)
            return backend != nil
        }
        return backend
    }

    @Test func aConnectionLostWhileTheServerCommitsIsSettledAndTheChangeMadeOnce() throws {
        let (fixture, holder, _) = try heldCommits()
        let store = fixture.store
        let before = try store.list(SectionStore.defaultList).outline().version
        let write = Write { try store.list("default").apply(.addSection(title: "A")) }
        // The commit waits; its connection is cut, so it never commits.
        let firstBackend = try #require(try heldBackend(holder), "the commit was held up")
        #expect(try holder.execute("SELECT pg_terminate_backend($1)", [String(firstBackend)]).string(0, 0) == "t")
        // sectionctl connects again, finds the write did not commit, and makes it once more:
        // that commit waits too, on a new connection; then the lock is let go.
        let retried = try waitUntil {
            try holder.execute(Self.committing).int64(0, 0).map { $0 != firstBackend } ?? false
        }
        #expect(retried, "the write was made again on a new connection")
        try holder.execute(script: "SELECT pg_advisory_unlock(4242)")
        #expect(write.finished())
        let change = try #require(try write.result())
        #expect(change.version == before.next, "one new version, not two")
        #expect(try store.list(SectionStore.defaultList).outline().sections.map(\.title) == ["A"], "the section once")
        #expect(try store.check().isEmpty)
        // The store goes on, on its new connection.
        try store.list("default").apply(.addSection(title: "B"))
        #expect(try store.list(SectionStore.defaultList).outline().sections.map(\.title) == ["A", "B"])
    }

    @Test func aCommitWhoseAnswerIsLostIsFoundSavedAndNotMadeTwice() throws {
        let (fixture, holder, database) = try heldCommits()
        // The store reaches the server through a proxy, which the test cuts while the server
        // commits: the server finishes the commit, and its answer has nowhere to go.
        let proxy = try SocketProxy(serverDirectory: try cluster().directory.url.path)
        let store = try SectionStore(
            location: .server(connectionString: "postgresql:///\(database)?host=\(proxy.directory)&user=postgres&application_name=lost-answer"),
            server: .postgres)
        let before = try store.list(SectionStore.defaultList).outline().version
        let write = Write { try store.list("default").apply(.addSection(title: "A")) }
        let lostBackend = try #require(try heldBackend(holder), "the commit was held up")
        proxy.cut()
        // The commit goes on only once sectionctl has connected again and asked about it: the
        // backend that lost its client still waits, and only it knows whether it commits.
        let asked = """
            SELECT count(*) FROM pg_stat_activity
            WHERE application_name = 'lost-answer' AND pid <> $1 AND query <> ''
            """
        #expect(try waitUntil { try holder.execute(asked, [String(lostBackend)]).int64(0, 0) ?? 0 > 0 }, "sectionctl asked again")
        try holder.execute(script: "SELECT pg_advisory_unlock(4242)")
        #expect(write.finished())
        // Saved once, whichever way it went: found saved, or (had the server been slower to end
        // the lost connection than sectionctl's patience) ended unsaved and made again.
        let change = try #require(try write.result())
        #expect(change.version == before.next)
        #expect(try fixture.store.list(SectionStore.defaultList).outline().sections.map(\.title) == ["A"], "the section once")
        #expect(try fixture.store.check().isEmpty)
    }

    @Test func aConnectionLostWhileTheServerCommitsWithTheServerOutOfReachLeavesTheOutcomeUnknown() throws {
        let (fixture, holder, database) = try heldCommits()
        let uri = try #require(fixture.location.serverConnectionString)
        let store = fixture.store
        let write = Write { try store.list("default").apply(.addSection(title: "A")) }
        let backend = try #require(try heldBackend(holder), "the commit was held up")
        // No new connection can ask the server what became of the write.
        let other = try PostgresConnection(connectionString: try cluster().uri(of: "postgres"))
        try other.execute(script: "ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
        _ = try holder.execute("SELECT pg_terminate_backend($1)", [String(backend)])
        #expect(write.finished())
        #expect {
            _ = try write.result()
        } throws: { error in
            guard case RepositoryError.commitOutcomeUnknown(let server, _) = error else { return false }
            return server == ServerSupport.postgres.describe(StoreLocation(uri)) && "\(error)".contains("may or may not have been saved")
        }
        try other.execute(script: "ALTER DATABASE \(database) ALLOW_CONNECTIONS true")
        try holder.execute(script: "SELECT pg_advisory_unlock(4242)")
        let again = try SectionStore(location: .server(connectionString: uri), server: .postgres)
        #expect(try again.list(SectionStore.defaultList).outline().sections.isEmpty, "cut before it committed: nothing saved")
        #expect(try again.check().isEmpty)
    }
}

/// The library's view of a connection string: which text names a server, and what it shows.
@Suite struct StoreLocationStringTests {
    @Test func aKeyValueStringNamesAServerAndAPathAFile() {
        #expect(StoreLocation("host=db.example dbname=team") == .server(connectionString: "host=db.example dbname=team"))
        #expect(StoreLocation("  password=x host=db").isServer)
        #expect(StoreLocation("x=y.db").isServer, "what libpq would read as one, when no such file exists")
        #expect(StoreLocation("./x=y.db") == .file(path: "./x=y.db"))
        #expect(StoreLocation("/tmp/x=y.db") == .file(path: "/tmp/x=y.db"))
        #expect(StoreLocation("lists.db") == .file(path: "lists.db"))
        #expect(StoreLocation("POSTGRES://db/team").isServer)
        // An existing file with such a name is a file: see the command line's tests, which run
        // in a directory of their own.
    }

    @Test func whatALocationShowsNeverHoldsThePassword() {
        for (text, password) in ConnectionStringLeaks.examples {
            let location = StoreLocation(text)
            #expect(location.isServer, "\(text)")
            #expect(!location.description.contains(password), "\(text) → \(location.description)")
            let shown = ServerSupport.postgres.describe(location)
            #expect(!shown.contains(password), "\(text) → \(shown)")
            for error in [
                PostgresError(sqlState: "28P01", message: "FATAL: \(text)", context: "c", stage: .connecting),
                PostgresError(sqlState: nil, message: "could not connect: \(password)", context: "c", stage: .connecting),
                PostgresError(sqlState: "3D000", message: "x", context: "c", stage: .connecting),
                PostgresError(sqlState: nil, message: password, context: "COMMIT", stage: .commitInDoubt),
            ] {
                let mapped = SectionStore.repositoryError(error, location: location)
                if (try? ConnectionString(parsing: text)) != nil {
                    #expect(!"\(mapped)".contains(password), "\(text): \(mapped)")
                }
            }
        }
    }

    @Test func theServersRefusalsMeanWhatTheyShould() {
        let location = StoreLocation("postgresql://ada:s3cret@db.example/lists")
        let server = "postgresql://ada:***@db.example/lists"
        func mapped(_ state: String?, stage: PostgresError.Stage = .connecting, needsPassword: Bool = false) -> RepositoryError? {
            let error = PostgresError(sqlState: state, message: "m s3cret", context: "c", stage: stage, needsPassword: needsPassword)
            return SectionStore.repositoryError(error, location: location) as? RepositoryError
        }
        #expect(mapped("28P01") == .authenticationFailed(server: server, reason: "m ***"))
        #expect(mapped("28000") == .authenticationFailed(server: server, reason: "m ***"))
        #expect(mapped(nil, needsPassword: true) == .authenticationFailed(server: server, reason: "m ***"))
        #expect(mapped("3D000") == .serverDatabaseMissing(server: server, reason: "m ***"))
        #expect(mapped("42501") == .permissionDenied(server: server, reason: "m ***"))
        #expect(mapped("42501", stage: .statement) == .permissionDenied(server: server, reason: "m ***"))
        for transient in ["53300", "57P01", "57P03", "08006", nil] {
            #expect(mapped(transient) == .unavailable(server: server, reason: "m ***"), "\(transient ?? "no SQLSTATE")")
        }
        #expect(mapped("08006", stage: .commitInDoubt) == .commitOutcomeUnknown(server: server, reason: "m ***"))
        #expect(mapped("57P01", stage: .commitInDoubt) == .commitOutcomeUnknown(server: server, reason: "m ***"))
        #expect(
            SectionStore.repositoryError(MalformedConnectionString(reason: "r"), location: location) as? RepositoryError
                == .malformedConnectionString(reason: "r"))
        #expect(
            RepositoryError.notOurSchema(server: server, schema: "sectionctl").description
                == "the database at \(server) has a schema \"sectionctl\" that sectionctl did not make; nothing was changed")
    }
}

/// Connection strings that once showed their password, and more of each kind: the text, and
/// the password as the person who typed it meant it.
enum ConnectionStringLeaks {
    static let examples: [(String, String)] = [
        ("postgresql://ada@host2:Secret@host/db", "Secret"),
        ("postgresql://ada:Sec@ret@host/db", "Sec@ret"),
        ("postgresql://ada:Sec/ret@host/db", "Sec/ret"),
        ("postgresql://ada:50%off@host/db", "50%off"),
        ("postgresql://host/db?password=50%off", "50%off"),
        ("postgresql://host/db?pass%77ord=Secret", "Secret"),
        ("postgresql://ada:Secret@host/db", "Secret"),
        ("host=x password=Secret dbname=y", "Secret"),
        ("host=x password='Sec ret' dbname=y", "Sec ret"),
        ("host=x password='Secret", "Secret"),
        ("host=x passwd=Secret", "Secret"),
        ("dbname=y sslpassword=Secret", "Secret"),
    ]
}
