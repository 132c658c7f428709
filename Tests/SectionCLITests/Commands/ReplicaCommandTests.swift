import Foundation
import SQLite
import TestSupport
import Testing

/// `sectionctl clone`, `status` and `sync`, run as a user would: the team's list is a store
/// served by `sectionctl serve`, its token made by `sectionctl token create`, and the replica a
/// file cloned from the served address.
@Suite("Replicas from the command line")
struct ReplicaCommandTests {
    /// The server's store (with two sections), the service in front of it, and a replica of its
    /// default list cloned with an edit token. The service ends with the value, if a test has not
    /// stopped it itself.
    final class Team {
        let server: Sectionctl
        let served: Served
        let replica: String

        init(server: Sectionctl, served: Served, replica: String) {
            self.server = server
            self.served = served
            self.replica = replica
        }

        deinit {
            if served.launched.process.isRunning { _ = try? served.stop() }
        }

        /// Runs `sectionctl --db REPLICA arguments`.
        func onReplica(_ arguments: [String], input: String = "") throws -> RunResult {
            try server.run(["--db", replica] + arguments, input: input, database: false)
        }

        /// The replica's `status --json`.
        func replicaStatus(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
            try onReplica(["--json", "status"]).json(sourceLocation: sourceLocation)
        }

        /// The lines the service has logged so far, one per request.
        func requestsLogged() -> [String] {
            let log = (try? String(contentsOf: served.launched.errorURL, encoding: .utf8)) ?? ""
            return log.split(separator: "\n").map(String.init)
        }
    }

    /// A store with list "default" (sections "To do", with Buy milk and Call Mom, and "Done"),
    /// served, and a replica of it cloned with a token of `role`.
    func team(_ backend: Backend = .sqlite, role: String = "edit", sourceLocation: SourceLocation = #_sourceLocation) throws -> Team {
        let server = try Sectionctl(backend)
        try server.initialize()
        try server.ok(["section", "add", "To do"])
        try server.ok(["row", "add", "0", "Buy milk"])
        try server.ok(["row", "add", "0", "Call Mom"])
        try server.ok(["section", "add", "Done"])
        let token = try server.tokenFile(role: role)
        let served = try server.serve()
        let replica = server.directory.appendingPathComponent("replica.db").path
        let cloned = try server.run(["clone", served.address(of: "default"), replica, "--token-file", token], database: false)
        #expect(cloned.status == 0, "\(cloned.stderr)", sourceLocation: sourceLocation)
        #expect(
            cloned.stdout.hasPrefix("Cloned list \"default\" at version 4 into \(replica)"), "\(cloned.stdout)", sourceLocation: sourceLocation)
        return Team(server: server, served: served, replica: replica)
    }

    /// Expects `show` to print the same sections and rows on the replica as on the server.
    func sameShow(_ team: Team, sourceLocation: SourceLocation = #_sourceLocation) throws {
        // The first line names the list's version, which a replica counts for itself.
        let here = try team.onReplica(["show"]).lines.dropFirst()
        let there = try team.server.run(["show"]).lines.dropFirst()
        #expect(here == there, "the replica shows\n\(here)\nthe server\n\(there)", sourceLocation: sourceLocation)
    }

    /// Edits a replica offline while the server's list changes, and syncs: both end alike.
    func editOfflineAndSync(_ team: Team) throws {
        try sameShow(team)
        #expect(try team.onReplica(["row", "move", "0:1", "1:0"]).status == 0)
        #expect(try team.onReplica(["row", "add", "0", "Write report"]).status == 0)
        let status = try team.onReplica(["status"])
        #expect(status.status == 0)
        #expect(
            status.lines.first == "replica of list \"default\" on \(team.served.address(of: "default")), here list \"default\"", "\(status.stdout)")
        #expect(
            status.lines.dropFirst().prefix(3) == ["token kept in: \(team.replica).token", "server version pulled: 4", "intents not yet pushed: 2"],
            "\(status.stdout)")
        // Meanwhile on the server: the row the replica put "Write report" after is deleted.
        try team.server.ok(["row", "delete", "0:0"])
        let synced = try team.onReplica(["sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(
            synced.lines.last?.hasPrefix("Pushed 2 intents; the server's list is at version 6; list \"default\" is at version ") == true,
            "\(synced.stdout)")
        try sameShow(team)
        let json = try team.replicaStatus()
        #expect(json["pending"] as? Int == 0)
        #expect(json["server_version"] as? Int == 6)
        #expect(try team.onReplica(["check"]).status == 0)
        #expect(try team.server.run(["check"]).status == 0)
    }

    @Test func aReplicaIsEditedOfflineAndSynced() throws {
        let team = try team()
        try editOfflineAndSync(team)
        // The token is beside the file, readable by its owner alone, and not in the file.
        let attributes = try FileManager.default.attributesOfItem(atPath: team.replica + ".token")
        #expect((attributes[.posixPermissions] as? Int).map { $0 & 0o777 } == 0o600)
        let token = try String(contentsOfFile: team.replica + ".token", encoding: .utf8)
        let secret = try #require(token.firstMatch(of: /sct_[A-Za-z0-9_]+/)).output
        #expect(!String(decoding: try Data(contentsOf: URL(fileURLWithPath: team.replica)), as: UTF8.self).contains(secret))
    }

    @Test(.needs(.postgreSQL)) func aServedPostgreSQLDatabaseWorksLikeAFile() throws {
        let team = try team(.postgres)
        try editOfflineAndSync(team)
        let stopped = try team.served.stop()
        #expect(stopped.status == 0, "\(stopped.stderr)")
    }

    @Test func aChangeThatNoLongerFitsIsSaidAndTheReplicaFollowsTheServer() throws {
        let team = try team()
        #expect(try team.onReplica(["row", "set", "0:0", "--title", "Buy oat milk"]).status == 0)
        try team.server.ok(["row", "delete", "0:0"])
        let synced = try team.onReplica(["sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(synced.lines.first?.hasSuffix("dropped: row #1 is gone") == true, "\(synced.stdout)")
        try sameShow(team)
        // A section deleted while empty is pushed as such: a row someone added meanwhile stays.
        #expect(try team.onReplica(["section", "delete", "1"]).status == 0)
        try team.server.ok(["row", "add", "1", "Filed"])
        let deleted = try team.onReplica(["sync"])
        #expect(deleted.status == 0, "\(deleted.stderr)")
        #expect(deleted.lines.first?.contains("dropped") == true, "\(deleted.stdout)")
        #expect(try team.server.outline()["Done"] == ["Filed"])
        try sameShow(team)
    }

    @Test func undoOnAReplicaTakesBackOnlyItsOwnChanges() throws {
        let team = try team()
        // A fresh replica: the clone is not a change to take back.
        let fresh = try team.onReplica(["undo"])
        #expect(fresh.status == 1, "\(fresh.stdout)")
        #expect(fresh.stderr.contains("has no change to undo"), "\(fresh.stderr)")
        #expect(try team.onReplica(["show"]).stdout.contains("Buy milk"))
        // A colleague's row, pulled by a sync, is not taken back by undo either.
        try team.server.ok(["row", "add", "1", "From a colleague"])
        #expect(try team.onReplica(["sync"]).status == 0)
        let pulled = try team.onReplica(["undo"])
        #expect(pulled.status == 1, "\(pulled.stdout)")
        #expect(pulled.stderr.contains("has no change to undo"), "\(pulled.stderr)")
        #expect(try team.onReplica(["show"]).stdout.contains("From a colleague"))
        // The replica's own change after it is, and the undo is pushed like any change.
        #expect(try team.onReplica(["row", "add", "0", "Mine"]).status == 0)
        #expect(try team.onReplica(["undo"]).status == 0)
        #expect(try team.onReplica(["sync"]).status == 0)
        #expect(try team.server.outline() == ["To do": ["Buy milk", "Call Mom"], "Done": ["From a colleague"]])
        try sameShow(team)
    }

    @Test func aBadCloneIsRefusedWithOneLineAndLeavesNoFile() throws {
        let team = try team()
        let server = team.server
        let address = team.served.address(of: "default")
        let token = try server.tokenFile()
        let target = server.directory.appendingPathComponent("new.db").path
        func clone(_ arguments: [String]) throws -> RunResult { try server.run(["clone"] + arguments, database: false) }
        func nothingLeft(sourceLocation: SourceLocation = #_sourceLocation) throws {
            let names = try FileManager.default.contentsOfDirectory(atPath: server.directory.path)
            #expect(names.filter { $0.contains("new.db") }.isEmpty, "\(names)", sourceLocation: sourceLocation)
        }
        func refused(_ result: RunResult, _ status: Int32, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            #expect(result.status == status, "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stderr.contains(words), "\(result.stderr)", sourceLocation: sourceLocation)
            #expect(result.stdout.isEmpty, sourceLocation: sourceLocation)
            try nothingLeft(sourceLocation: sourceLocation)
        }
        try refused(try clone([address, target]), 2, saying: "clone needs the list's token: --token-file F")
        try refused(try clone([address, target, "--token-file", "no-such.token"]), 66, saying: "cannot read the token file no-such.token")
        try Data().write(to: URL(fileURLWithPath: server.directory.appendingPathComponent("empty.token").path))
        try refused(try clone([address, target, "--token-file", "empty.token"]), 65, saying: "the token file empty.token is empty")
        try refused(try clone([address, team.replica, "--token-file", token]), 1, saying: "exists already")
        try refused(
            try clone([server.databasePath, target, "--token-file", token]), 2,
            saying: "it is not an address of the form https://HOST[:PORT]/lists/NAME")
        try refused(try clone([team.served.origin + "/default", target, "--token-file", token]), 2, saying: "/lists/")
        // A wrong token, and a revoked one: the server refuses them before anything is written.
        try "sct_0123456789abcdef_wrong\n".write(
            toFile: server.directory.appendingPathComponent("wrong.token").path, atomically: true, encoding: .utf8)
        try refused(try clone([address, target, "--token-file", "wrong.token"]), 1, saying: "refused the token")
        let selector = try #require(try String(contentsOfFile: token, encoding: .utf8).firstMatch(of: /sct_([0-9a-f]+)_/)).output.1
        try server.ok(["token", "revoke", String(selector)])
        try refused(try clone([address, target, "--token-file", token]), 1, saying: "refused the token")
        // Another list than the token's.
        try refused(
            try clone([team.served.address(of: "nope"), target, "--token-file", try server.tokenFile()]), 1, saying: "the token is for another list")
    }

    @Test func aCloneKilledMidwayLeavesNothingInTheWayOfTheNext() throws {
        let team = try team()
        let server = team.server
        let token = try server.tokenFile()
        let target = server.directory.appendingPathComponent("killed.db").path
        // Killed once the service has heard from it: wherever that lands, the final name holds a
        // complete replica or nothing.
        let before = team.requestsLogged().count
        let cloning = try server.launch(["clone", team.served.address(of: "default"), target, "--token-file", token], database: false)
        #expect(waitUntil { team.requestsLogged().count > before || !cloning.process.isRunning })
        kill(cloning.process.processIdentifier, SIGKILL)
        _ = try cloning.finish()
        if FileManager.default.fileExists(atPath: target) {
            #expect(try team.server.run(["--db", target, "status"], database: false).status == 0)
        } else {
            let again = try server.run(["clone", team.served.address(of: "default"), target, "--token-file", token], database: false)
            #expect(again.status == 0, "\(again.stderr)")
            #expect(try team.server.run(["--db", target, "check"], database: false).status == 0)
        }
    }

    @Test func aReadTokenClonesButItsEditsAreRefusedAndKept() throws {
        let team = try team(role: "read")
        #expect(try team.replicaStatus()["row_ids_left"] as? Int == 0)
        try team.server.ok(["row", "add", "1", "From the server"])
        #expect(try team.onReplica(["sync"]).status == 0)
        try sameShow(team)
        #expect(try team.onReplica(["section", "add", "Offline"]).status == 1, "no ids for a section added offline")
        #expect(try team.onReplica(["row", "set", "0:0", "--title", "Buy oat milk"]).status == 0)
        let refused = try team.onReplica(["sync"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("does not allow it: this token may read the list, not change it"), "\(refused.stderr)")
        #expect(try team.replicaStatus()["pending"] as? Int == 1)
        #expect(try team.onReplica(["show"]).stdout.contains("Buy oat milk"))
        #expect(try !team.server.run(["show"]).stdout.contains("Buy oat milk"))
    }

    @Test func theServerOutOfReachLosesNothing() throws {
        let team = try team()
        #expect(try team.onReplica(["row", "add", "0", "Offline"]).status == 0)
        let port = try #require(team.served.origin.split(separator: ":").last.map(String.init))
        let stopped = try team.served.stop()
        #expect(stopped.status == 0, "\(stopped.stderr)")
        let unreachable = try team.onReplica(["sync"])
        #expect(unreachable.status == 75, "\(unreachable.stderr)")
        #expect(unreachable.stderr.contains("is unavailable: cannot connect; try again"), "\(unreachable.stderr)")
        #expect(try team.replicaStatus()["pending"] as? Int == 1)
        // The service back at the address the replica keeps: the change goes through.
        let again = try team.server.serve(listen: "127.0.0.1:\(port)")
        defer { _ = try? again.stop() }
        let synced = try team.onReplica(["sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try team.server.run(["show"]).stdout.contains("Offline"))
        #expect(try team.replicaStatus()["pending"] as? Int == 0)
    }

    #if os(Linux)
        /// The command loads libcurl, which its sync runs on, on the first call (`CCurl`): without
        /// it a sync is refused by name in one line and the replica keeps its edits; with it, the
        /// loader's trace shows it mapped, and the edits go through.
        @Test func withoutLibcurlASyncIsRefusedByNameAndKeepsItsEdits() throws {
            let team = try team()
            #expect(try team.onReplica(["row", "add", "0", "Offline"]).status == 0)
            let missing = team.server.directory.appendingPathComponent("no-libcurl-here.so").path
            let refused = try team.server.run(["--db", team.replica, "sync"], environment: ["SECTIONCTL_LIBCURL": missing], database: false)
            #expect(refused.status == 1, "a missing client library is no reason to try again: \(refused.stderr)")
            #expect(refused.stderr.split(separator: "\n").count == 1 && refused.stdout.isEmpty, "\(refused.stderr)")
            #expect(refused.stderr.hasPrefix("sectionctl: error: cannot load libcurl from SECTIONCTL_LIBCURL=\(missing) ("), "\(refused.stderr)")
            // A library that loads but is not libcurl: its missing function is named.
            let other = try team.server.run(
                ["--db", team.replica, "sync"], environment: ["SECTIONCTL_LIBCURL": "libsqlite3.so.0"], database: false)
            #expect(other.status == 1 && other.stderr.split(separator: "\n").count == 1, "\(other.stderr)")
            #expect(
                other.stderr.hasPrefix("sectionctl: error: the libcurl this process loaded lacks curl_")
                    && other.stderr.contains("it needs libcurl 7.62 or later"), "\(other.stderr)")
            #expect(try team.replicaStatus()["pending"] as? Int == 1)
            #expect(!(try team.server.run(["show"]).stdout.contains("Offline")))
            #expect(try team.onReplica(["check"]).status == 0)
            let synced = try team.server.run(["--db", team.replica, "sync"], environment: ["LD_DEBUG": "files"], database: false)
            #expect(synced.status == 0 && synced.stderr.contains("file=libcurl.so.4"), "\(synced.stderr.suffix(300))")
            #expect(try team.server.run(["show"]).stdout.contains("Offline"))
            #expect(try team.replicaStatus()["pending"] as? Int == 0)
        }
    #endif

    @Test func aReplicaWhoseTokenOrAddressWasTamperedWithSendsNothing() throws {
        let team = try team()
        #expect(try team.onReplica(["row", "add", "0", "Offline"]).status == 0)
        let logged = team.requestsLogged().count
        // The token file gone.
        let tokenFile = team.replica + ".token"
        try FileManager.default.moveItem(atPath: tokenFile, toPath: tokenFile + ".aside")
        let noToken = try team.onReplica(["sync"])
        #expect(noToken.status == 1)
        #expect(noToken.stderr.contains("the replica's token file \(tokenFile) cannot be read (no such file)"), "\(noToken.stderr)")
        try FileManager.default.moveItem(atPath: tokenFile + ".aside", toPath: tokenFile)
        // The file edited to name another server: refused before anything is sent there.
        let db = try Connection(path: team.replica, mode: .readWrite)
        let address = try #require(try db.query("SELECT server FROM replica") { $0.string(0) }.first)
        try db.execute(script: "UPDATE replica SET server = 'https://lists.example.com/lists/default'")
        let moved = try team.onReplica(["sync"])
        #expect(moved.status == 1)
        #expect(moved.stderr.contains("the file was changed since it was cloned; nothing was sent"), "\(moved.stderr)")
        #expect(team.requestsLogged().count == logged, "\(team.requestsLogged())")
        #expect(try team.replicaStatus()["pending"] as? Int == 1)
        try db.run("UPDATE replica SET server = ?", address)
        #expect(try team.onReplica(["sync"]).status == 0)
        #expect(try team.server.run(["show"]).stdout.contains("Offline"))
    }

    @Test func whatAReplicaCannotRecordOrReachIsRefusedAndKept() throws {
        let team = try team()
        // An import, whose rows could not take the server's ids, and deleting the mirrored list.
        let imported = try team.onReplica(["import", "-"], input: #"{"lists":[{"name":"other","sections":[]}]}"#)
        #expect(imported.status == 1)
        #expect(imported.stderr.contains("an import cannot be recorded on a replica"), "\(imported.stderr)")
        let deleted = try team.onReplica(["list", "delete", "default", "--force"])
        #expect(deleted.status == 1)
        #expect(deleted.stderr.contains("deleting the list a replica mirrors cannot be recorded"), "\(deleted.stderr)")
        // A file that is no replica.
        let plain = try Sectionctl()
        try plain.initialize()
        let notReplica = try plain.run(["sync"])
        #expect(notReplica.status == 1)
        #expect(notReplica.stderr.contains("is not a replica"), "\(notReplica.stderr)")
        // The list deleted on the server, and its tokens with it: the token is refused, and the
        // replica keeps its work.
        try team.server.ok(["list", "delete", "default", "--force"])
        #expect(try team.onReplica(["row", "add", "0", "After the delete"]).status == 0)
        let gone = try team.onReplica(["sync"])
        #expect(gone.status == 1)
        #expect(gone.stderr.contains("refused the token"), "\(gone.stderr)")
        #expect(try team.replicaStatus()["pending"] as? Int == 1)
        #expect(try team.onReplica(["show"]).stdout.contains("After the delete"))
    }

    @Test func syncWatchKeepsTheReplicaAndTheServerInStepUntilInterrupted() throws {
        let team = try team()
        let watching = try team.server.launch(["--db", team.replica, "sync", "--watch"], database: false)
        func output() -> String { (try? String(contentsOf: watching.outputURL, encoding: .utf8)) ?? "" }
        #expect(waitUntil { output().hasPrefix("Syncing \(team.replica) whenever") }, "\(output())")
        // The service's event stream is followed…
        #expect(waitUntil { team.requestsLogged().contains { $0.contains("/lists/default/events") } }, "\(team.requestsLogged())")
        // …so a change on the server reaches the replica…
        try team.server.ok(["row", "add", "1", "From the server"])
        #expect(try waitUntil { try team.onReplica(["show"]).stdout.contains("From the server") })
        // …and one on the replica reaches the server.
        #expect(try team.onReplica(["row", "add", "0", "From the replica"]).status == 0)
        #expect(try waitUntil { try team.server.run(["show"]).stdout.contains("From the replica") })
        #expect(waitUntil { output().contains("Pushed 1 intent;") }, "\(output())")
        watching.process.terminate()
        let result = try watching.finish()
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try team.replicaStatus()["pending"] as? Int == 0)
        try sameShow(team)
    }
}
