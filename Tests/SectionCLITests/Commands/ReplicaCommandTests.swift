import Foundation
import PostgresCluster
import SQLite
import TestSupport
import Testing

/// `sectionctl clone`, `status` and `sync`, run as a user would.
@Suite("Replicas from the command line", .needs(.postgreSQL))
struct ReplicaCommandTests {
    /// A server list with two sections, and a replica of it cloned by the command line.
    func serverAndReplica() throws -> (server: Sectionctl, replica: String) {
        let server = try Sectionctl(.postgres)
        try server.initialize()
        try server.ok(["section", "add", "To do"])
        try server.ok(["row", "add", "0", "Buy milk"])
        try server.ok(["row", "add", "0", "Call Mom"])
        try server.ok(["section", "add", "Done"])
        let replica = server.directory.appendingPathComponent("replica.db").path
        let cloned = try server.run(["clone", server.databasePath, replica], database: false)
        #expect(cloned.status == 0, "\(cloned.stderr)")
        #expect(cloned.stdout.hasPrefix("Cloned list \"default\" at version 4 into \(replica)"), "\(cloned.stdout)")
        return (server, replica)
    }

    /// Expects `show` to print the same sections and rows on the replica as on the server.
    func sameShow(_ server: Sectionctl, _ replica: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
        // The first line names the list's version, which a replica counts for itself.
        let here = try server.run(["--db", replica, "show"], database: false).lines.dropFirst()
        let there = try server.run(["show"]).lines.dropFirst()
        #expect(here == there, "the replica shows\n\(here)\nthe server\n\(there)", sourceLocation: sourceLocation)
    }

    @Test func aReplicaIsEditedOfflineAndSynced() throws {
        let (server, replica) = try serverAndReplica()
        func onReplica(_ arguments: [String]) throws -> RunResult { try server.run(["--db", replica] + arguments, database: false) }
        try sameShow(server, replica)
        #expect(try onReplica(["row", "move", "0:1", "1:0"]).status == 0)
        #expect(try onReplica(["row", "add", "0", "Write report"]).status == 0)
        let status = try onReplica(["status"])
        #expect(status.status == 0)
        #expect(status.lines[1...2] == ["server version pulled: 4", "intents not yet pushed: 2"], "\(status.stdout)")
        // Meanwhile on the server: the row the replica put "Write report" after is deleted.
        try server.ok(["row", "delete", "0:0"])
        let synced = try onReplica(["sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.lines.last == "Pushed 2 intents; the server's list is at version 6; list \"default\" is at version 4.", "\(synced.stdout)")
        try sameShow(server, replica)
        let json = try onReplica(["--json", "status"]).json()
        #expect(json["pending"] as? Int == 0)
        #expect(json["server_version"] as? Int == 6)
        #expect(try onReplica(["check"]).status == 0)
    }

    @Test func aChangeThatNoLongerFitsIsSaidAndTheReplicaFollowsTheServer() throws {
        let (server, replica) = try serverAndReplica()
        func onReplica(_ arguments: [String]) throws -> RunResult { try server.run(["--db", replica] + arguments, database: false) }
        #expect(try onReplica(["row", "set", "0:0", "--title", "Buy oat milk"]).status == 0)
        try server.ok(["row", "delete", "0:0"])
        let synced = try onReplica(["sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.lines.first?.hasSuffix("dropped: row #1 is gone") == true, "\(synced.stdout)")
        try sameShow(server, replica)
    }

    @Test func badCasesGetClearErrorsAndLoseNothing() throws {
        let (server, replica) = try serverAndReplica()
        func onReplica(_ arguments: [String]) throws -> RunResult { try server.run(["--db", replica] + arguments, database: false) }
        // Cloning over an existing file, or from a file.
        let again = try server.run(["clone", server.databasePath, replica], database: false)
        #expect(again.status == 1)
        #expect(again.stderr.contains("exists already"), "\(again.stderr)")
        let fromFile = try server.run(["clone", replica, server.directory.appendingPathComponent("x.db").path], database: false)
        #expect(fromFile.status == 2, "\(fromFile.stderr)")
        // A password would be kept in the clear.
        let withPassword = try server.run(
            [
                "clone", server.databasePath.replacingOccurrences(of: "user=postgres", with: "user=postgres&password=secret"),
                server.directory.appendingPathComponent("p.db").path,
            ], database: false)
        #expect(withPassword.status == 1)
        #expect(withPassword.stderr.contains("PGPASSWORD"), "\(withPassword.stderr)")
        #expect(!FileManager.default.fileExists(atPath: server.directory.appendingPathComponent("p.db").path))
        // An import, whose rows could not take the server's ids, and deleting the mirrored list.
        let imported = try server.run(["--db", replica, "import", "-"], input: #"{"lists":[{"name":"other","sections":[]}]}"#, database: false)
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("an import cannot be recorded on a replica"), "\(imported.stderr)")
        let deleted = try onReplica(["list", "delete", "default", "--force"])
        #expect(deleted.status == 1)
        #expect(deleted.stderr.contains("deleting the list a replica mirrors cannot be recorded"), "\(deleted.stderr)")
        // A file that is no replica.
        let plain = try Sectionctl()
        try plain.initialize()
        let notReplica = try plain.run(["sync"])
        #expect(notReplica.status == 1)
        #expect(notReplica.stderr.contains("is not a replica"), "\(notReplica.stderr)")
        // The server out of reach: exit 75, the change still pending.
        #expect(try onReplica(["row", "add", "0", "Offline"]).status == 0)
        let db = try Connection(path: replica, mode: .readWrite)
        let serverURI = try #require(try db.query("SELECT server FROM replica") { $0.string(0) }.first)
        try db.execute(script: "UPDATE replica SET server = 'postgresql:///nowhere?host=/nonexistent&user=postgres'")
        let unreachable = try onReplica(["sync"])
        #expect(unreachable.status == 75, "\(unreachable.stderr)")
        #expect(try onReplica(["--json", "status"]).json()["pending"] as? Int == 1)
        try db.run("UPDATE replica SET server = ?", serverURI)
        #expect(try onReplica(["sync"]).status == 0)
        #expect(try server.run(["show"]).stdout.contains("Offline"))
        // The list deleted on the server.
        try server.ok(["list", "delete", "default", "--force"])
        #expect(try onReplica(["row", "add", "0", "After the delete"]).status == 0)
        let gone = try onReplica(["sync"])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("is gone from the server"), "\(gone.stderr)")
        #expect(try onReplica(["--json", "status"]).json()["pending"] as? Int == 1)
    }

    @Test func syncWatchKeepsTheReplicaAndTheServerInStepUntilInterrupted() throws {
        let (server, replica) = try serverAndReplica()
        let watching = try server.launch(["--db", replica, "sync", "--watch"], database: false)
        func output() -> String { (try? String(contentsOf: watching.outputURL, encoding: .utf8)) ?? "" }
        #expect(waitUntil { output().hasPrefix("Syncing \(replica) whenever") }, "\(output())")
        // A change on the server reaches the replica…
        try server.ok(["row", "add", "1", "From the server"])
        #expect(try waitUntil { try server.run(["--db", replica, "show"], database: false).stdout.contains("From the server") })
        // …and one on the replica reaches the server.
        #expect(try server.run(["--db", replica, "row", "add", "0", "From the replica"], database: false).status == 0)
        #expect(try waitUntil { try server.run(["show"]).stdout.contains("From the replica") })
        #expect(waitUntil { output().contains("Pushed 1 intent;") }, "\(output())")
        watching.process.terminate()
        let result = try watching.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try server.run(["--db", replica, "--json", "status"], database: false).json()["pending"] as? Int == 0)
    }
}
