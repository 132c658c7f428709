import Foundation
import Glibc
import Testing

/// `sectionctl watch` follows another process's changes and ends cleanly on SIGINT.
@Suite struct WatchTests {
    /// Waits until `launched`'s standard output has at least `lines` lines (or 10 s pass).
    func waitForLines(_ launched: Launched, _ lines: Int) throws -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let text = String(decoding: try Data(contentsOf: launched.outputURL), as: UTF8.self)
            let found = text.split(separator: "\n").map(String.init)
            if found.count >= lines || Date() > deadline { return found }
            usleep(20_000)
        }
    }

    @Test func watchPrintsOneLinePerVersionFromAnotherProcess() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let watch = try cli.launch(["--json", "watch"])
        usleep(300_000)
        try cli.ok(["section", "add", "To do"])
        try cli.ok(["row", "add", "0", "Buy milk"])
        try cli.ok(["row", "move", "0:0", "0:end"])  // onto its own place: no version, no line
        let lines = try waitForLines(watch, 2)
        kill(watch.process.processIdentifier, SIGINT)
        let result = try watch.finish()
        #expect(result.status == 0, "SIGINT ends watch with exit 0")
        #expect(result.stderr == "")
        #expect(lines.count == 2)
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["version"] as? Int } == [1, 2])
        let rows = try #require((objects[1]["changes"] as? [String: Any])?["rows"] as? [String: Any])
        #expect(rows["inserted"] as? [[Int]] == [[0, 0]])
    }

    @Test func watchSaysWhenToReloadAndEndsWhenTheListIsDeleted() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["list", "add", "work"])
        let watch = try cli.launch(["--list", "work", "watch"])
        usleep(300_000)
        try cli.ok(["--list", "work", "section", "add", "Inbox"])
        try cli.ok(["list", "delete", "work", "--force"])
        let result = try watch.finish()
        #expect(result.status == 0)
        #expect(
            result.lines == [
                "Watching list \"work\" from version 0; Ctrl-C ends.",
                "Version 1 of list \"work\": added section 0.",
                "The list \"work\" was deleted.",
            ])
    }
}

/// `undo` and `redo` through the binary: one command is one step, JSON prints the changeset.
@Suite struct UndoCommandTests {
    @Test func undoTakesBackADeleteAndRedoDoesItAgain() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "A"])
        try cli.ok(["row", "add", "A", "Buy milk"])
        try cli.ok(["row", "add", "A", "Call Aiko"])
        try cli.ok(["row", "delete", "0:0"])
        #expect(try cli.ok(["undo"]) == "Undone: Added row 0:0; list \"default\" is at version 5.\n")
        #expect(try cli.ok(["show"]).contains("  0:0  Buy milk  #1\n  0:1  Call Aiko  #2\n"))
        let redo = try cli.run(["--json", "redo"]).json()
        #expect(redo["version"] as? Int == 6)
        let rows = try #require((redo["changes"] as? [String: Any])?["rows"] as? [String: Any])
        #expect(rows["deleted"] as? [[Int]] == [[0, 0]])
        let nothing = try cli.run(["redo"])
        #expect(nothing.status == 1)
        #expect(nothing.stderr == "sectionctl: error: list \"default\" has nothing to redo: nothing was undone since its last change\n")
    }

    @Test func undoWithNothingToUndoExits1AndWritesNothing() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let result = try cli.run(["undo"])
        #expect(result.status == 1)
        #expect(result.stderr == "sectionctl: error: list \"default\" has no change to undo\n")
        #expect(try cli.run(["--json", "show"]).json()["version"] as? Int == 0)
    }
}

/// `changes --since V` through the binary.
@Suite struct ChangesCommandTests {
    @Test func changesSinceComposesTheJournalOrSaysReload() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "A"])
        try cli.ok(["row", "add", "A", "a"])
        try cli.ok(["row", "add", "A", "b"])
        try cli.ok(["row", "move", "0:0", "0:1"])
        #expect(try cli.ok(["changes", "--since", "1"]) == "Since version 1, list \"default\" (now at version 4): added rows 0:0, 0:1.\n")
        let json = try cli.run(["--json", "changes", "--since", "3"]).json()
        #expect(json["from"] as? Int == 3 && json["version"] as? Int == 4)
        let rows = try #require((json["changes"] as? [String: Any])?["rows"] as? [String: Any])
        #expect(rows["moved"] as? [[String: [Int]]] == [["from": [0, 0], "to": [0, 1]]])
        let future = try cli.run(["--json", "changes", "--since", "9"])
        #expect(future.status == 0)
        #expect(try future.json()["reload"] as? Bool == true)
        let missing = try cli.run(["changes"])
        #expect(missing.status == 2)
        #expect(try cli.run(["changes", "--since", "x"]).status == 2)
    }
}
