import Foundation
import Postgres
import PostgresCluster
import TestSupport
import Testing

@testable import Repository

/// What a server refuses, each with its own error: a login, a database, a privilege, a
/// connection it has no room for; and a commit whose outcome the client cannot know.
@Suite("PostgreSQL refusals", .enabled(if: ThrowawayCluster.isAvailable, "needs PostgreSQL's server programs (postgresql), and SECTIONCTL_TEST_POSTGRES not 0"))
struct ServerRefusalTests {
    func cluster() throws -> ThrowawayCluster { try #require(ThrowawayCluster.forStores) }

    /// The error opening `uri` throws, or `nil` when it opens.
    func refusal(_ uri: String, create: Bool = false) -> RepositoryError? {
        do {
            _ = try SectionStore(location: .server(connectionString: uri), create: create)
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
        #expect(server == StoreLocation(wrong).description && reason.contains("password authentication failed"), "\(refused)")
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
        #expect(server == StoreLocation(uri).description && reason.contains("does not exist"), "\(refused)")
    }

    @Test func aMissingPrivilegeIsPermissionDenied() throws {
        let cluster = try cluster()
        let database = ThrowawayCluster.databaseName(
            of: try cluster.newSectionctlDatabase { _ = try SectionStore(location: .server(connectionString: $0), create: true) })
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

    @Test func aConnectionLostWhileTheServerCommitsLeavesTheOutcomeUnknown() throws {
        let fixture = try StoreFixture(.postgres)
        let uri = try #require(fixture.location.serverConnectionString)
        // A trigger of the test's own holds the commit up until the test lets go of a lock.
        let holder = try PostgresConnection(connectionString: uri)
        try holder.execute(
            script: """
                CREATE FUNCTION sectionctl.test_hold() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NULL; END $$;
                CREATE CONSTRAINT TRIGGER test_hold AFTER INSERT ON sectionctl.sections
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sectionctl.test_hold();
                SELECT pg_advisory_lock(4242);
                """)
        let store = fixture.store
        let write = Write { try store.apply(.addSection(title: "A")) }
        // The server says when the commit waits; then the connection is cut.
        let committing = try waitUntil {
            try holder.execute(
                """
                SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE datname = current_database() AND query = 'COMMIT' AND wait_event_type = 'Lock'
                """
            ).int64(0, 0) == 1
        }
        #expect(committing, "the commit was held up")
        #expect(write.finished())
        #expect {
            _ = try write.result()
        } throws: { error in
            guard case RepositoryError.commitOutcomeUnknown(let server, _) = error else { return false }
            return server == StoreLocation(uri).description && "\(error)".contains("may or may not have been saved")
        }
        try holder.execute(script: "SELECT pg_advisory_unlock(4242)")
        #expect(try SectionStore(location: .server(connectionString: uri)).check().isEmpty)
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
        #expect(RepositoryError.notOurSchema(server: server, schema: "sectionctl").description
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
