import Foundation
import Postgres
import PostgresCluster
import TestSupport
import Testing

@Suite("The PostgreSQL layer", .needs(.postgreSQL))
struct PostgresLayerTests {
    @Test func parametersArePassedAsValuesNeverAsSQL() throws {
        let db = try PostgresConnection(connectionString: try #require(ThrowawayCluster.shared).newDatabase())
        try db.execute(script: "CREATE TABLE t (id bigserial PRIMARY KEY, name text NOT NULL UNIQUE, note text)")
        let awkward = "Robert'); DROP TABLE t; -- 名前 \u{1F600}"
        let inserted = try db.execute("INSERT INTO t (name, note) VALUES ($1, $2) RETURNING id", [awkward, nil])
        #expect(inserted.rowCount == 1 && inserted.int64(0, 0) == 1)
        let read = try db.execute("SELECT name, note FROM t WHERE id = $1", ["1"])
        #expect(read.string(0, 0) == awkward)
        #expect(read.string(0, 1) == nil, "NULL reads as nil")
        #expect(try db.execute("UPDATE t SET note = $1", ["x"]).changedRows == 1)
    }

    @Test func aFailedStatementCarriesItsSQLStateAndStatement() throws {
        let db = try PostgresConnection(connectionString: try #require(ThrowawayCluster.shared).newDatabase())
        try db.execute(script: "CREATE TABLE t (name text UNIQUE)")
        try db.execute("INSERT INTO t VALUES ($1)", ["a"])
        #expect {
            try db.execute("INSERT INTO t VALUES ($1)", ["a"])
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.sqlState == "23505" && error.isConstraintViolation && !error.isRetryable
                && error.context == "INSERT INTO t VALUES ($1)" && !error.message.contains("\n")
        }
    }

    /// A statement a connection runs once or twice costs one round trip each time (parsed, bound
    /// and run together); on its third run it is prepared (one round trip more, once), and from
    /// then on runs in one. Its rows are the same each time. Counted by a relay in front of the
    /// server.
    @Test func aStatementRunsUnpreparedTwiceAndPreparedFromItsThirdRun() throws {
        let cluster = try #require(ThrowawayCluster.shared)
        let uri = try cluster.newDatabase()
        let proxy = try SocketProxy(serverDirectory: cluster.directory.url.path)
        let relayed = uri.replacingOccurrences(of: "host=\(cluster.directory.url.path)", with: "host=\(proxy.directory)")
        #expect(relayed != uri)
        let db = try PostgresConnection(connectionString: relayed)
        try db.execute(script: "CREATE TABLE t (n int); INSERT INTO t VALUES (1), (2), (3)")
        func run() throws -> (rows: [Int64], trips: Int) {
            proxy.resetRoundTrips()
            var rows: [Int64] = []
            try db.forEachRow(prepared: "SELECT n FROM t WHERE n >= $1 ORDER BY n", ["2"]) { row in
                rows.append(row.int64(0))
                return true
            }
            return (rows, proxy.roundTrips)
        }
        let runs = try (0..<5).map { _ in try run() }
        #expect(runs.map(\.rows) == Array(repeating: [2, 3], count: 5))
        #expect(runs.map(\.trips) == [1, 1, 2, 1, 1])
    }

    /// A connection and a relay in front of the server that counts its round trips.
    private func relayedConnection(setup: String) throws -> (db: PostgresConnection, proxy: SocketProxy, uri: String) {
        let cluster = try #require(ThrowawayCluster.shared)
        let uri = try cluster.newDatabase()
        let proxy = try SocketProxy(serverDirectory: cluster.directory.url.path)
        let relayed = uri.replacingOccurrences(of: "host=\(cluster.directory.url.path)", with: "host=\(proxy.directory)")
        let db = try PostgresConnection(connectionString: relayed)
        try db.execute(script: setup)
        proxy.resetRoundTrips()
        return (db, proxy, uri)
    }

    /// Held-back statements go in front of the next statement waited on, in order and in its
    /// round trip; forgotten ones never reach the server.
    @Test func heldBackStatementsGoWithTheNextStatementInItsRoundTrip() throws {
        let (db, proxy, _) = try relayedConnection(setup: "CREATE TABLE t (n int)")
        db.enqueue("BEGIN")
        db.enqueue("INSERT INTO t VALUES ($1)", ["1"])
        db.enqueue("INSERT INTO t VALUES (2)")
        #expect(db.queuedCount == 3 && proxy.roundTrips == 0, "nothing is sent yet")
        var seen: [Int64] = []
        try db.forEachRow(prepared: "SELECT n FROM t ORDER BY n", []) { row in
            seen.append(row.int64(0))
            return true
        }
        #expect(seen == [1, 2], "the held-back statements ran first, in order")
        #expect(proxy.roundTrips == 1 && db.queuedCount == 0 && !db.isIdle)
        db.enqueue("INSERT INTO t VALUES (3)")
        try db.commit(after: ["INSERT INTO t VALUES (4)"])
        #expect(proxy.roundTrips == 2 && db.isIdle)
        db.enqueue("INSERT INTO t VALUES (5)")
        let generation = db.queueGeneration
        db.discardQueued()
        #expect(db.queueGeneration != generation && db.queuedCount == 0)
        #expect(try db.execute("SELECT string_agg(n::text, ',' ORDER BY n) FROM t").string(0, 0) == "1,2,3,4")
    }

    /// A held-back statement that fails is what the next call throws, with its SQLSTATE and its
    /// statement, and nothing after it in that round trip runs; the connection then serves on.
    @Test func aHeldBackFailureIsThrownByTheNextCallAndStopsTheRest() throws {
        let (db, _, _) = try relayedConnection(setup: "CREATE TABLE t (n int UNIQUE); INSERT INTO t VALUES (1)")
        db.enqueue("INSERT INTO t VALUES (1)")
        db.enqueue("INSERT INTO t VALUES (7)")
        #expect {
            try db.forEachRow(prepared: "INSERT INTO t VALUES (8)", []) { _ in true }
        } throws: { error in
            (error as? PostgresError)?.sqlState == "23505" && (error as? PostgresError)?.context == "INSERT INTO t VALUES (1)"
        }
        #expect(db.isIdle)
        #expect(try db.execute("SELECT string_agg(n::text, ',' ORDER BY n) FROM t").string(0, 0) == "1")
    }

    /// A read's commit sent without waiting costs no round trip: it takes effect at once on the
    /// server, and the next call reads its answer within its own round trip.
    @Test func aCommitWithoutWaitingCostsNoRoundTrip() throws {
        let (db, proxy, uri) = try relayedConnection(setup: "CREATE TABLE t (n int); INSERT INTO t VALUES (1)")
        db.enqueue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        #expect(try db.execute("SELECT count(*) FROM t").int64(0, 0) == 1)
        let before = proxy.roundTrips
        try db.commitWithoutWaiting()
        #expect(proxy.roundTrips == before, "no Sync: nothing waited on")
        #expect(db.isIdle)
        // The next statement, outside any transaction, sees what another connection committed
        // since: the read's snapshot is gone.
        let other = try PostgresConnection(connectionString: uri)
        try other.execute("INSERT INTO t VALUES ($1)", ["2"])
        var count: Int64 = 0
        try db.forEachRow(prepared: "SELECT count(*) FROM t", []) { row in
            count = row.int64(0)
            return true
        }
        #expect(count == 2)
        #expect(proxy.roundTrips == before + 1)
        #expect(try other.execute("SELECT count(*) FROM pg_stat_activity WHERE state LIKE 'idle in transaction%'").int64(0, 0) == 0)
    }

    @Test func aTransactionRollsBackWhenItsBodyThrows() throws {
        let db = try PostgresConnection(connectionString: try #require(ThrowawayCluster.shared).newDatabase())
        try db.execute(script: "CREATE TABLE t (n int)")
        struct Stop: Error {}
        #expect(throws: Stop.self) {
            try db.inTransaction {
                try db.execute("INSERT INTO t VALUES ($1)", ["1"])
                throw Stop()
            }
        }
        try db.inTransaction { try db.execute("INSERT INTO t VALUES ($1)", ["2"]) }
        #expect(try db.execute("SELECT n FROM t").int64(0, 0) == 2)
        #expect(try db.execute("SELECT count(*) FROM t").int64(0, 0) == 1)
    }

    @Test func aNotificationReachesAListeningConnection() throws {
        let database = try #require(ThrowawayCluster.shared).newDatabase()
        let listener = try PostgresConnection(connectionString: database)
        let writer = try PostgresConnection(connectionString: database)
        try listener.execute(script: "LISTEN list_changed")
        #expect(try listener.notifications(waitingUpTo: 0.05).isEmpty, "nothing yet")
        try writer.execute("SELECT pg_notify($1, $2)", ["list_changed", "1:7"])
        let received = try listener.notifications(waitingUpTo: hangGuardSeconds)
        #expect(received.map(\.channel) == ["list_changed"])
        #expect(received.map(\.payload) == ["1:7"])
    }
}

/// Connection failures and the passwords in connection strings, without a server.
@Suite struct PostgresConnectionStringTests {
    @Test func passwordsAreMaskedInEveryForm() {
        #expect(maskedConnectionString("postgresql://ada:s3cret@db.example/lists") == "postgresql://ada:***@db.example/lists")
        #expect(
            maskedConnectionString("postgresql://ada@db/lists?password=s3cret&sslmode=require") == "postgresql://ada:***@db/lists?sslmode=require")
        #expect(maskedConnectionString("host=db user=ada password=s3cret dbname=lists") == "host=db user=ada password=*** dbname=lists")
        #expect(maskedConnectionString("postgresql://db/lists") == "postgresql://db/lists")
        // Rebuilt from what libpq parsed: the same options in libpq's order, every secret ***.
        #expect(
            maskedConnectionString("postgresql:///lists?host=/run/pg&user=ada&sslpassword=k3y")
                == "postgresql://ada@/lists?host=/run/pg&sslpassword=***")
    }

    @Test func aServerThatCannotBeReachedIsAConnectionFailureThatShowsNoPassword() {
        // A Unix socket directory with no server in it: refused at once, nothing on the network.
        let target = "postgresql://ada:s3cret@/lists?host=/nonexistent-sectionctl-socket-dir&connect_timeout=2"
        #expect {
            _ = try PostgresConnection(connectionString: target)
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.isConnectionFailure && !error.description.contains("s3cret") && error.description.contains("***")
        }
    }
}
