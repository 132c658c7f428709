import Foundation
import PostgresCluster
import Repository
import RepositoryPostgres
import TestSupport
import Testing

/// The error line of a failed run: `sectionctl: error: …`, the first line of standard error.
private func errorLine(_ result: RunResult) -> String {
    String(result.stderr.split(separator: "\n").first ?? "")
}

/// `--db` and `$SECTIONCTL_DB` given a connection string that is malformed, or that holds a
/// password: nothing of a password is ever printed, and a malformed one is not "try again".
@Suite struct ConnectionStringCLITests {
    @Test func aMalformedConnectionStringIsAUsageErrorThatShowsNothingOfIt() throws {
        let cli = try Sectionctl()
        let malformed: [(String, String)] = [
            ("postgresql://ada@host2:Secret@127.0.0.1:1/db", "Secret"),
            ("postgresql://ada:50%off@127.0.0.1:1/db", "50%off"),
            ("postgresql://ada:Sec/ret@127.0.0.1:1/db", "Sec/ret"),
            ("host=/nonexistent-sectionctl-dir password='Secret", "Secret"),
            ("host=/nonexistent-sectionctl-dir passwd=Secret", "Secret"),
            // Values libpq refuses before trying a host: a usage error, never "try again".
            ("postgresql://ada:Secret@127.0.0.1:1/db?sslmode=bogus", "Secret"),
            ("host=/nonexistent-sectionctl-dir password=Secret target_session_attrs=sometimes", "Secret"),
        ]
        for (text, password) in malformed {
            for arguments in [["show"], ["init"], ["section", "add", "A"]] {
                let result = try cli.run(["--db", text] + arguments, database: false)
                #expect(result.status == 2, "\(text) \(arguments): \(result.stderr)")
                #expect(errorLine(result).hasPrefix("sectionctl: error: the PostgreSQL connection string is malformed: "), "\(result.stderr)")
                #expect(!result.stderr.contains(password) && !result.stderr.contains("off") && result.stdout.isEmpty, "\(result.stderr)")
            }
            // From the environment it is not a command line: refused, exit 1.
            let environment = try cli.run(["show"], environment: ["SECTIONCTL_DB": text], database: false)
            #expect(environment.status == 1 && !environment.stderr.contains(password), "\(environment.stderr)")
            #expect(environment.stderr.contains("hint: a file whose name has an = is written ./NAME"), "\(environment.stderr)")
        }
        #expect(try FileManager.default.contentsOfDirectory(atPath: cli.directory.path).allSatisfy { !$0.contains("=") }, "no file was made")
    }

    @Test func aValueLibpqRefusesIsNamedWithLibpqsReason() throws {
        let cli = try Sectionctl()
        let result = try cli.run(["--db", "postgresql://127.0.0.1:1/db?sslmode=bogus", "show"], database: false)
        #expect(result.status == 2, "\(result.stderr)")
        #expect(errorLine(result).contains(#"invalid sslmode value: "bogus""#) && !result.stderr.contains("try again"), "\(result.stderr)")
    }

    @Test func aKeyValueStringIsAServerAndItsPasswordIsMasked() throws {
        let cli = try Sectionctl()
        let text = "host=\(cli.directory.path)/no-server-here dbname=team user=ada password=Secret"
        let result = try cli.run(["--db", text, "show"], database: false)
        #expect(result.status == 75, "a server that cannot be reached: \(result.stderr)")
        #expect(!result.stderr.contains("Secret") && result.stderr.contains("password=***"), "\(result.stderr)")
        #expect(result.stderr.split(separator: "\n").count == 1, "\(result.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent(text).path), "not taken for a file")
    }

    @Test func withoutLibpqAServerIsRefusedByNameAndFilesStillWork() throws {
        let cli = try Sectionctl()
        let missing = cli.directory.appendingPathComponent("no-libpq-here.so").path
        let environment = ["SECTIONCTL_LIBPQ": missing]
        for arguments in [["--db", "postgresql://ada:Secret@127.0.0.1:1/team", "show"], ["--db", "host=db password=Secret", "init"]] {
            let result = try cli.run(arguments, environment: environment, database: false)
            #expect(result.status == 1, "a missing client library is no reason to try again: \(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1 && result.stdout.isEmpty, "\(result.stderr)")
            #expect(errorLine(result).contains("cannot load libpq from SECTIONCTL_LIBPQ=\(missing)"), "\(result.stderr)")
            #expect(!result.stderr.contains("Secret"), "\(result.stderr)")
        }
        // A library that loads but is not libpq (SQLite's, which every build has): its missing
        // function is named.
        #if os(Linux)
            let other = try cli.run(
                ["--db", "postgresql://ada@127.0.0.1:1/team", "show"], environment: ["SECTIONCTL_LIBPQ": "libsqlite3.so.0"], database: false)
            #expect(other.status == 1 && other.stderr.split(separator: "\n").count == 1, "\(other.stderr)")
            #expect(
                errorLine(other).contains("the libpq this process loaded lacks PQ") && errorLine(other).contains("it needs libpq 10 or later"),
                "\(other.stderr)")
        #endif
        // The same process environment, a file: libpq is never asked for.
        let file = try cli.run(["--db", "./tasks.db", "init"], environment: environment, database: false)
        #expect(file.status == 0, "\(file.stderr)")
        #expect(try cli.run(["--db", "./tasks.db", "section", "add", "A"], environment: environment, database: false).status == 0)
    }

    #if os(Linux)
        /// The dynamic loader's own record (`LD_DEBUG=files`) of what a command on a file maps: SQLite,
        /// never libpq, nor libcurl (which only a replica's sync loads); a command on a server maps
        /// libpq once it is named.
        @Test func aCommandOnAFileDoesNotLoadLibpq() throws {
            let cli = try Sectionctl()
            let traced = ["LD_DEBUG": "files"]
            for arguments in [["--version"], ["--db", "./tasks.db", "init"], ["--db", "./tasks.db", "show"]] {
                let result = try cli.run(arguments, environment: traced, database: false)
                #expect(result.status == 0, "\(arguments): \(result.stderr)")
                #expect(result.stderr.contains("file=libsqlite3") || arguments == ["--version"], "the trace is there: \(result.stderr.prefix(300))")
                #expect(!result.stderr.contains("libpq"), "\(arguments) loaded libpq")
                #expect(!result.stderr.contains("libcurl"), "\(arguments) loaded libcurl")
            }
            let server = try cli.run(["--db", "host=\(cli.directory.path)/no-server-here dbname=team", "show"], environment: traced, database: false)
            #expect(server.status == 75 && server.stderr.contains("file=libpq.so.5"), "\(server.stderr.suffix(300))")
        }
    #endif

    @Test func aFileWhoseNameHasAnEqualsSignIsStillAFile() throws {
        let cli = try Sectionctl()
        // Written with ./ it is a path; once it exists, the bare name finds it too.
        #expect(try cli.run(["--db", "./list=1.db", "init"], database: false).status == 0)
        let added = try cli.run(["--db", "list=1.db", "section", "add", "A"], database: false)
        #expect(added.status == 0, "\(added.stderr)")
        // A bare name that exists nowhere is what libpq would read: a connection string.
        let missing = try cli.run(["--db", "other=1.db", "init"], database: false)
        #expect(missing.status == 2 && missing.stderr.contains("an option libpq does not know"), "\(missing.stderr)")
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("other=1.db").path))
    }
}

/// What a server refuses, from the command line: each its own message and exit status, none
/// of them 75 unless trying again may work.
@Suite("PostgreSQL refusals from the command line", .needs(.postgreSQL))
struct ServerErrorCLITests {
    func cluster() throws -> ThrowawayCluster { try #require(ThrowawayCluster.forStores) }

    @Test func aWrongOrMissingPasswordIsExit1AndNeverShown() throws {
        let cluster = try cluster()
        let cli = try Sectionctl()
        let role = try cluster.newPasswordRole(password: "C0rrectHorse")
        let database = ThrowawayCluster.databaseName(of: try cluster.newDatabase())
        try cluster.connect().execute(script: "ALTER DATABASE \(database) OWNER TO \(role)")
        let wrong = try cli.run(["--db", cluster.uri(database: database, user: role, password: "Wr0ngBattery"), "init"], database: false)
        #expect(wrong.status == 1, "\(wrong.stderr)")
        #expect(errorLine(wrong).contains("refused the login") && errorLine(wrong).contains("password authentication failed"), "\(wrong.stderr)")
        #expect(!wrong.stderr.contains("Wr0ngBattery") && wrong.stderr.contains("\(role):***@"), "\(wrong.stderr)")
        let none = try cli.run(["--db", cluster.uri(database: database, user: role), "init"], database: false)
        #expect(none.status == 1 && errorLine(none).contains("no password supplied"), "\(none.stderr)")
        #expect(none.stderr.contains("hint: ") && none.stderr.contains("PGPASSWORD"), "\(none.stderr)")
        // The right one, from the environment as from the URI.
        let right = try cli.run(
            ["--db", cluster.uri(database: database, user: role), "init"], environment: ["PGPASSWORD": "C0rrectHorse"], database: false)
        #expect(right.status == 0, "\(right.stderr)")
        let added = try cli.run(
            ["--db", cluster.uri(database: database, user: role, password: "C0rrectHorse"), "section", "add", "A"], database: false)
        #expect(added.status == 0 && !added.stdout.contains("C0rrectHorse"), "\(added.stderr)")
    }

    @Test func aMissingDatabaseIsExit66() throws {
        let cluster = try cluster()
        let cli = try Sectionctl()
        let result = try cli.run(["--db", cluster.uri(database: "sectionctl_no_such_database", user: "postgres"), "show"], database: false)
        #expect(result.status == 66, "\(result.stderr)")
        #expect(errorLine(result).contains("has no such database") && errorLine(result).contains("does not exist"), "\(result.stderr)")
        #expect(result.stderr.contains("hint: create the database on the server"), "\(result.stderr)")
    }

    @Test func aMissingPrivilegeIsExit1() throws {
        let cluster = try cluster()
        let cli = try Sectionctl()
        let database = ThrowawayCluster.databaseName(
            of: try cluster.newSectionctlDatabase { _ = try SectionStore(location: .server(connectionString: $0), server: .postgres, create: true) })
        let role = try cluster.newRole()
        let uri = cluster.uri(database: database, user: role)
        for arguments in [["show"], ["section", "add", "A"]] {
            let result = try cli.run(["--db", uri] + arguments, database: false)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(
                errorLine(result).contains("refused for want of a privilege: ") && errorLine(result).contains("permission denied"), "\(result.stderr)"
            )
        }
        try cluster.connect().execute(script: "REVOKE CONNECT ON DATABASE \(database) FROM PUBLIC")
        let shut = try cli.run(["--db", uri, "show"], database: false)
        #expect(shut.status == 1 && errorLine(shut).contains("permission denied for database"), "\(shut.stderr)")
    }

    @Test func aSchemaThatIsNotOursIsExit1AndLeftAlone() throws {
        let cluster = try cluster()
        let cli = try Sectionctl()
        let uri = try cluster.newDatabase()
        try ServerSession(uri).execute(script: "CREATE SCHEMA sectionctl; CREATE TABLE sectionctl.notes (t text)")
        for arguments in [["init"], ["show"]] {
            let result = try cli.run(["--db", uri] + arguments, database: false)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(errorLine(result).contains("has a schema \"sectionctl\" that sectionctl did not make; nothing was changed"), "\(result.stderr)")
        }
        #expect(try ServerSession(uri).int("SELECT count(*) FROM pg_tables WHERE schemaname = 'sectionctl'") == 1)
    }

    @Test func aServerWithNoRoomForAConnectionIsExit75() throws {
        let cluster = try cluster()
        let cli = try Sectionctl()
        let role = try cluster.newRole("CONNECTION LIMIT 0")
        let result = try cli.run(["--db", cluster.uri(database: "postgres", user: role), "show"], database: false)
        #expect(result.status == 75 && errorLine(result).contains("too many connections"), "\(result.stderr)")
        #expect(errorLine(result).hasSuffix("try again"), "\(result.stderr)")
    }

    /// A database whose commits of new sections wait for a lock the returned session holds.
    func heldCommits(_ cli: Sectionctl) throws -> ServerSession {
        let holder = try ServerSession(cli.databasePath)
        try holder.execute(
            script: """
                CREATE FUNCTION sectionctl.test_hold() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_advisory_xact_lock(4242); RETURN NULL; END $$;
                CREATE CONSTRAINT TRIGGER test_hold AFTER INSERT ON sectionctl.sections
                DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION sectionctl.test_hold();
                SELECT pg_advisory_lock(4242);
                """)
        return holder
    }

    /// The backend whose commit waits for the lock, if there is one.
    static let committing = """
        SELECT pid FROM pg_stat_activity
        WHERE datname = current_database() AND query LIKE '%COMMIT' AND wait_event_type = 'Lock'
        """

    @Test func aConnectionLostWhileTheServerCommitsIsSettledAndTheCommandSucceedsOnce() throws {
        let cli = try Sectionctl(.postgres)
        try cli.initialize()
        let holder = try heldCommits(cli)
        let run = try cli.launch(["section", "add", "A"])
        defer { if run.process.isRunning { run.process.terminate() } }
        var first: Int64?
        #expect(
            try waitUntil {
                first = try holder.int(Self.committing)
                return first != nil
            }, "the commit was held up")
        let cutBackend = try #require(first)
        #expect(try holder.int("SELECT count(pg_terminate_backend(\(cutBackend)))") == 1)
        // Not saved, so made again on a new connection, whose commit waits in turn.
        #expect(try waitUntil { try holder.int(Self.committing).map { $0 != cutBackend } ?? false }, "made again")
        try holder.execute(script: "SELECT pg_advisory_unlock(4242)")
        let result = try run.finish()
        #expect(result.status == 0, "\(result.stderr)")
        // The first try took an id from the server's sequence, which a rollback does not give back.
        #expect(
            result.stdout.hasPrefix("Added section 0 (#") && result.stdout.hasSuffix("); list \"default\" is at version 1.\n"), "\(result.stdout)")
        #expect(try holder.int("SELECT count(*) FROM sectionctl.sections") == 1, "once")
    }

    @Test func aConnectionLostWhileTheServerCommitsWithTheServerOutOfReachIsExit75AndSaysTheOutcomeIsUnknown() throws {
        let cli = try Sectionctl(.postgres)
        try cli.initialize()
        let holder = try heldCommits(cli)
        let run = try cli.launch(["section", "add", "A"])
        defer { if run.process.isRunning { run.process.terminate() } }
        var backend: Int64?
        #expect(
            try waitUntil {
                backend = try holder.int(Self.committing)
                return backend != nil
            }, "the commit was held up")
        // No new connection can ask the server what became of it.
        let database = try #require(cli.databasePath.split(separator: "?").first?.split(separator: "/").last.map(String.init))
        let other = try ServerSession(cli.databasePath.replacingOccurrences(of: "/\(database)?", with: "/postgres?"))
        try other.execute(script: "ALTER DATABASE \(database) ALLOW_CONNECTIONS false")
        defer { try? other.execute(script: "ALTER DATABASE \(database) ALLOW_CONNECTIONS true") }
        #expect(try holder.int("SELECT count(pg_terminate_backend(\(try #require(backend))))") == 1)
        let result = try run.finish()
        #expect(result.status == 75, "\(result.stderr)")
        #expect(errorLine(result).contains("was lost while a change was being committed"), "\(result.stderr)")
        #expect(errorLine(result).contains("it may or may not have been saved"), "\(result.stderr)")
        #expect(
            result.stderr.contains("hint: see the list's version with: sectionctl") && result.stderr.contains("changes --since"), "\(result.stderr)")
        try holder.execute(script: "SELECT pg_advisory_unlock(4242)")
    }
}
