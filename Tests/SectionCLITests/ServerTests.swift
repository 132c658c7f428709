import Foundation
import Postgres
import PostgresCluster
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `sectionctl --db postgresql://…`: every command as on a file, moving lists between the two,
/// and what a user sees when the server is not there.
@Suite("PostgreSQL from the command line", .needs(.postgreSQL))
struct ServerTests {
    /// A tour of the commands; each step's exit status and standard output.
    static let tour: [(arguments: [String], input: String)] = [
        (["section", "add", "To do"], ""),
        (["section", "add", "Done"], ""),
        (["section", "add", "Later", "--empty-text", "Nothing yet"], ""),
        (["row", "add", "0", "Buy milk"], ""),
        (["row", "add", "0", "Call Mom"], ""),
        (["row", "add", "0", "Write report"], ""),
        (["row", "add", "1", "--kind", "field", "Owner", "--value", "Ada"], ""),
        (["row", "move", "0:0", "1:end"], ""),
        (["row", "move", "0:1", "--before", "#2"], ""),
        (["--json", "row", "move", "0:0", "0:end"], ""),
        (["row", "rename", "0:0", "Call Mom today"], ""),
        (["section", "rename", "1", "Finished"], ""),
        (["section", "move", "2", "0"], ""),
        (["--json", "show"], ""),
        (["--json", "show", "--editing"], ""),
        (["show"], ""),
        (["--json", "show", "--from", "1:1", "--limit", "2"], ""),
        (["--json", "row", "get", "#3"], ""),
        (["--json", "changes", "--since", "3"], ""),
        (["--json", "edit"], "row move 1:0 2:0\nsection add Someday\nrow delete 1:1\nsave\n"),
        (["--json", "undo"], ""),
        (["--json", "undo"], ""),
        (["--json", "redo"], ""),
        (["row", "delete", "1:5"], ""),
        (["section", "delete", "1"], ""),
        (["list", "add", "Groceries"], ""),
        (["--list", "Groceries", "section", "add", "Aisle 1"], ""),
        (["list", "rename", "Groceries", "Shopping"], ""),
        (["list", "ls"], ""),
        (["--json", "list", "ls"], ""),
        (["list", "delete", "Shopping", "--force"], ""),
        (["check"], ""),
        (["repair"], ""),
        (["export"], ""),
    ]

    /// A read's `COMMIT` goes without a wait, and the process ends right after it: the
    /// connection reads its answer before closing, so the server never finds the client gone
    /// mid-answer ("could not send data to client"), which it would log for every read. On a
    /// cluster of the test's own, whose log no other test writes to, through a relay that adds
    /// 50 ms each way, so that the answer always comes after the process would have ended.
    @Test func readsLeaveNothingInTheServersLog() throws {
        let cluster = try ThrowawayCluster()
        try cluster.connect().execute(script: "CREATE DATABASE reads")
        let cli = try Sectionctl()
        let uri = cluster.uri(of: "reads")
        for step in [["init"], ["section", "add", "S"], ["row", "add", "0", "a"], ["row", "add", "0", "b"]] {
            let result = try cli.run(["--db", uri] + step, database: false)
            #expect(result.status == 0, "\(step): \(result.stderr)")
        }
        let proxy = try SocketProxy(serverDirectory: cluster.directory.url.path)
        proxy.delay = .milliseconds(50)
        let relayed = uri.replacingOccurrences(of: "host=\(cluster.directory.url.path)", with: "host=\(proxy.directory)")
        #expect(relayed != uri)
        let logURL = URL(fileURLWithPath: cluster.directory.path("server.log"))
        let before = try Data(contentsOf: logURL).count
        for step in [
            ["row", "get", "0:1"], ["show"], ["--json", "row", "get", "#1"], ["show", "--from", "0:1", "--limit", "1"], ["changes", "--since", "1"],
        ] {
            let result = try cli.run(["--db", relayed] + step, database: false)
            #expect(result.status == 0, "\(step): \(result.stderr)")
        }
        // Every backend of those commands has ended, and so has logged whatever it would.
        let admin = try cluster.connect()
        #expect(
            try waitUntil {
                try admin.execute("SELECT count(*) FROM pg_stat_activity WHERE datname = 'reads'").int64(0, 0) == 0
            })
        let logged = String(decoding: try Data(contentsOf: logURL).dropFirst(before), as: UTF8.self)
        #expect(!logged.contains("could not send data to client") && !logged.contains("connection to client lost"), "\(logged)")
    }

    /// The tour, on a file and on a server; on the server also without pipeline mode, as with
    /// a libpq older than 14 (one statement a round trip).
    @Test(arguments: [true, false]) func everyCommandSaysTheSameOnAServerAsOnAFile(pipelined: Bool) throws {
        let file = try Sectionctl(.sqlite)
        let server = try Sectionctl(.postgres)
        for cli in [file, server] { try cli.initialize() }
        let environment = pipelined ? [:] : ["SECTIONCTL_LIBPQ_PIPELINE": "0"]
        for step in Self.tour {
            let onFile = try file.run(step.arguments, input: step.input)
            let onServer = try server.run(step.arguments, input: step.input, environment: environment)
            #expect(onServer.status == onFile.status, "\(step.arguments): \(onServer.stderr)")
            #expect(onServer.stdout == onFile.stdout, "\(step.arguments)")
            #expect(onServer.stderr == onFile.stderr, "\(step.arguments)")
        }
    }

    /// A command on a server waits on it a bounded number of times, connection included,
    /// counted by a relay in front of the server: a read of a row 3 times, a move 5 (4 and 6
    /// when a path's section and row were two lookups; 7 and 12 when the opening's check, the
    /// BEGIN and the write's tail each waited for an answer of their own; 23 and 39 when every
    /// statement was prepared before it ran and each open checked the catalogue four times)
    /// (docs/benchmarks.md, scenario 14).
    @Test func aReadAndAMoveWaitOnTheServerABoundedNumberOfTimes() throws {
        let cli = try Sectionctl(.postgres)
        try cli.initialize()
        for step in [["section", "add", "S"], ["row", "add", "0", "a"], ["row", "add", "0", "b"], ["row", "add", "0", "c"]] {
            try cli.ok(step)
        }
        let cluster = try #require(ThrowawayCluster.shared)
        let proxy = try SocketProxy(serverDirectory: cluster.directory.url.path)
        let relayed = cli.databasePath.replacingOccurrences(of: "host=\(cluster.directory.url.path)", with: "host=\(proxy.directory)")
        #expect(relayed != cli.databasePath)
        func trips(_ arguments: [String], environment: [String: String] = [:]) throws -> (result: RunResult, trips: Int) {
            proxy.resetRoundTrips()
            let result = try cli.run(["--db", relayed] + arguments, environment: environment, database: false)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
            return (result, proxy.roundTrips)
        }
        let read = try trips(["row", "get", "0:1"])
        #expect(read.result.stdout.contains("0:1  b"))
        #expect(read.trips <= 3, "row get: \(read.trips) round trips")
        let move = try trips(["row", "move", "0:0", "0:2"])
        #expect(move.trips <= 5, "row move: \(move.trips) round trips")
        #expect(try cli.ok(["show"]).contains("0:2  a"))
        // Without pipeline mode (a libpq older than 14), a statement with parameters a round trip:
        // as many as before it, less the section looked up twice and the path's two lookups.
        let serial = ["SECTIONCTL_LIBPQ_PIPELINE": "0"]
        let readSerially = try trips(["row", "get", "0:1"], environment: serial)
        #expect(readSerially.result.stdout == read.result.stdout.replacingOccurrences(of: "0:1  b  #2", with: "0:1  c  #3"))
        #expect(readSerially.trips == 6, "row get without pipelines: \(readSerially.trips) round trips")
        let moveSerially = try trips(["row", "move", "0:2", "0:0"], environment: serial)
        #expect(moveSerially.result.stdout.hasPrefix("Moved row 0:2 to 0:0"))
        #expect(moveSerially.trips == 10, "row move without pipelines: \(moveSerially.trips) round trips")
        #expect(try cli.ok(["show"]).contains("0:0  a"))
    }

    /// A command's check of the schema goes with its first statement. When the server refuses
    /// it, the command makes the whole check and goes on as one whose opening waited for it
    /// would: an older schema is migrated, and a role that may not record its writes still
    /// writes, recording nothing.
    @Test func aCommandWhoseFirstStatementsCheckIsRefusedChecksWholeAndGoesOn() throws {
        let cli = try Sectionctl(.postgres)
        try cli.initialize()
        try cli.ok(["section", "add", "S"])
        let admin = try PostgresConnection(connectionString: cli.databasePath)
        func scalar(_ sql: String) throws -> Int64? { try admin.execute(sql).int64(0, 0) }
        // The schema as version 12 left it (what 0014 redefines, it makes again).
        try admin.execute(
            script: """
                DROP FUNCTION sectionctl.schema_ready(bigint);
                DROP FUNCTION sectionctl.commit_change_as(bigint, text, text, bigint, bigint);
                DELETE FROM sectionctl.sectionctl_migrations WHERE version > 12
                """)
        let added = try cli.run(["row", "add", "0", "a"])
        #expect(added.status == 0, "\(added.stderr)")
        #expect(added.stdout == "Added row 0:0 (#1); list \"default\" is at version 2.\n")
        #expect(try scalar("SELECT max(version) FROM sectionctl.sectionctl_migrations") == 14, "migrated by the command")
        // A role granted every table but applied_writes.
        let cluster = try #require(ThrowawayCluster.shared)
        let role = try cluster.newRole()
        try admin.execute(
            script: """
                GRANT USAGE ON SCHEMA sectionctl TO \(role);
                GRANT ALL ON ALL TABLES IN SCHEMA sectionctl TO \(role);
                GRANT ALL ON ALL SEQUENCES IN SCHEMA sectionctl TO \(role);
                REVOKE ALL ON sectionctl.applied_writes FROM \(role)
                """)
        let recorded = try scalar("SELECT count(*) FROM sectionctl.applied_writes")
        let asRole = cluster.uri(database: ThrowawayCluster.databaseName(of: cli.databasePath), user: role)
        let moved = try cli.run(["--db", asRole, "row", "add", "0", "b"], database: false)
        #expect(moved.status == 0, "\(moved.stderr)")
        #expect(moved.stdout == "Added row 0:1 (#2); list \"default\" is at version 3.\n")
        #expect(try scalar("SELECT count(*) FROM sectionctl.applied_writes") == recorded, "nothing recorded")
        let read = try cli.run(["--db", asRole, "row", "get", "0:1"], database: false)
        #expect(read.stdout.contains("0:1  b"), "\(read.stderr)")
    }

    @Test func initCreatesTheSchemaOnceAndTheEnvironmentNamesTheServer() throws {
        let cli = try Sectionctl(.postgres)
        let first = try cli.run(["--json", "init"])
        #expect(first.status == 0, "\(first.stderr)")
        #expect(try first.json()["created"] as? Bool == true)
        let again = try cli.run(["--json", "init"])
        #expect(try again.json()["created"] as? Bool == false, "init on a server that has the schema is harmless")
        // $SECTIONCTL_DB names the server; PGHOST and PGUSER fill in what the URI leaves out.
        let uri = try #require(URLComponents(string: cli.databasePath))
        let host = try #require(uri.queryItems?.first { $0.name == "host" }?.value)
        let bare = "postgresql://" + uri.path
        let environment = ["SECTIONCTL_DB": bare, "PGHOST": host, "PGUSER": "postgres"]
        let added = try cli.run(["section", "add", "From the environment"], environment: environment, database: false)
        #expect(added.status == 0, "\(added.stderr)")
        #expect(try cli.outline()["From the environment"] == [])
    }

    @Test func aListMovesFromAFileToAServerAndBackByExportAndImport() throws {
        let file = try Sectionctl(.sqlite)
        try file.seed()
        try file.ok(["row", "add", "1", "--kind", "field", "tab\there", "--value", "quote \" and \\ back"])
        try file.ok(["list", "add", "Second"])
        try file.ok(["--list", "Second", "section", "add", "寿司 🍣"])
        let exported = try file.ok(["export", "--all"])
        let server = try Sectionctl(.postgres)
        try server.initialize()
        let imported = try server.run(["import", "-"], input: exported)
        #expect(imported.status == 0, "\(imported.stderr)")
        #expect(try server.ok(["export", "--all"]) == exported, "the server holds exactly what the file held")
        let back = try Sectionctl(.sqlite)
        try back.initialize()
        let returned = try back.run(["import", "-"], input: try server.ok(["export", "--all"]))
        #expect(returned.status == 0, "\(returned.stderr)")
        #expect(try back.ok(["export", "--all"]) == exported)
    }

    @Test func watchFollowsAServer() throws {
        let cli = try Sectionctl(.postgres)
        try cli.initialize()
        let watch = try cli.launch(["--json", "watch"])
        defer { if watch.process.isRunning { kill(watch.process.processIdentifier, SIGKILL) } }
        let warmUp = try WatchTests.warmUp(cli, watch)
        try cli.ok(["section", "add", "To do"])
        try cli.ok(["row", "add", "\(warmUp.last)", "Buy milk"])
        let lines = try WatchTests.lines(of: watch, untilVersion: warmUp.last + 2)
        kill(watch.process.processIdentifier, SIGINT)
        let result = try watch.finish()
        #expect(result.status == 0 && result.stderr == "", "\(result.stderr)")
        #expect(lines.map(WatchTests.version) == (warmUp.first...(warmUp.last + 2)).map { $0 }, "one line per version, in order")
    }

    @Test func aServerThatCannotBeReachedIsExit75AndNeverShowsThePassword() throws {
        let cli = try Sectionctl()
        let target = "postgresql://ada:s3cret@/lists?host=\(cli.directory.path)/no-server-here"
        for arguments in [["show"], ["init"], ["section", "add", "A"]] {
            let result = try cli.run(["--db", target] + arguments, database: false)
            #expect(result.status == 75, "\(arguments): \(result.stderr)")
            #expect(result.stdout == "")
            #expect(!result.stderr.contains("s3cret") && result.stderr.contains("ada:***@"), "\(result.stderr)")
            #expect(result.stderr.split(separator: "\n").count == 1, "one line: \(result.stderr)")
        }
        let environment = try cli.run(["show"], environment: ["SECTIONCTL_DB": target], database: false)
        #expect(environment.status == 75 && !environment.stderr.contains("s3cret"), "\(environment.stderr)")
    }

    @Test func aServerWithoutTheSchemaSaysToRunInit() throws {
        let cli = try Sectionctl(.postgres)
        let result = try cli.run(["show"])
        #expect(result.status == 66, "\(result.stderr)")
        #expect(result.stderr.contains("no sectionctl schema") && result.stderr.contains("init"), "\(result.stderr)")
    }
}
