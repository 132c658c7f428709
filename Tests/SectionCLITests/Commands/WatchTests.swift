import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `sectionctl watch` follows another process's changes and ends cleanly on SIGINT.
@Suite struct WatchTests {
    @Test func watchPrintsOneLinePerVersionFromAnotherProcess() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let watch = try cli.launch(["--json", "watch"])
        let warmUp = try Self.warmUp(cli, watch)
        try cli.ok(["section", "add", "To do"])
        try cli.ok(["row", "add", "\(warmUp.last)", "Buy milk"])
        try cli.ok(["row", "move", "\(warmUp.last):0", "\(warmUp.last):end"])  // onto its own place: no version, no line
        try cli.ok(["section", "add", "Last"])  // a version after it, to know the move's line would have come
        let lines = try Self.lines(of: watch, untilVersion: warmUp.last + 3)
        kill(watch.process.processIdentifier, SIGINT)
        let result = try watch.finish()
        #expect(result.status == 0, "SIGINT ends watch with exit 0")
        #expect(result.stderr == "")
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["version"] as? Int } == (warmUp.first...(warmUp.last + 3)).map { $0 }, "one line per version, in order")
        let rows = try #require((objects[objects.count - 2]["changes"] as? [String: Any])?["rows"] as? [String: Any])
        #expect(rows["inserted"] as? [[Int]] == [[warmUp.last, 0]], "the row added to section \(warmUp.last), \"To do\"")
    }

    @Test func watchSaysWhenToReloadAndEndsWhenTheListIsDeleted() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["list", "add", "work"])
        let watch = try cli.launch(["--list", "work", "watch"])
        // Its first line says it is watching: changes from then on are its to report.
        #expect(try waitUntil { try Self.outputLines(watch).count == 1 || !watch.process.isRunning })
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

extension WatchTests {
    /// The lines `launched` has written to standard output so far.
    static func outputLines(_ launched: Launched) throws -> [String] {
        String(decoding: try Data(contentsOf: launched.outputURL), as: UTF8.self).split(separator: "\n").map(String.init)
    }

    /// The version of a `watch --json` line.
    static func version(_ line: String) -> Int? {
        (try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])?["version"] as? Int
    }

    /// Waits until `watch --json` has reported `version` (or has ended), and returns its lines.
    static func lines(of watch: Launched, untilVersion version: Int) throws -> [String] {
        var lines: [String] = []
        let reported = try waitUntil {
            lines = try outputLines(watch)
            return lines.last.flatMap(Self.version).map { $0 >= version } == true || !watch.process.isRunning
        }
        #expect(reported, "watch did not report version \(version): \(lines)")
        return lines
    }

    /// A `watch --json` just started reports changes from the version it finds when it has
    /// opened the list, which it does not announce. Adds sections ("warm-up", one at a time, the
    /// list's only ones) until it has reported one, then waits for it to report the last.
    /// Returns the first version it reported and the last one added (also the number of
    /// sections added).
    static func warmUp(_ cli: Sectionctl, _ watch: Launched, list: [String] = []) throws -> (first: Int, last: Int) {
        var added = 0
        let started = try waitUntil {
            try cli.ok(list + ["section", "add", "warm-up"])
            added += 1
            return try !outputLines(watch).isEmpty || !watch.process.isRunning
        }
        #expect(started && watch.process.isRunning, "watch reported nothing")
        let lines = try Self.lines(of: watch, untilVersion: added)
        let first = try #require(lines.first.flatMap(version), "\(lines)")
        return (first, added)
    }
}

/// `undo` and `redo` through the binary: one command is one step, JSON prints the changeset.
@Suite struct UndoCommandTests {
    /// An undo is named by the change it took back, as it was made, and a redo by the change it
    /// made again: never by the undo's own inverse ("Added section 1" after undoing a delete).
    @Test func undoAndRedoNameTheChangeTakenBackOrMadeAgain() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "To do"])
        try cli.ok(["section", "add", "Done"])
        try cli.ok(["row", "add", "To do", "Buy milk"])
        try cli.ok(["row", "move", "0:0", "1:0"])
        #expect(try cli.ok(["undo"]) == "Undid the change that moved row 0:0 to 1:0; list \"default\" is at version 5.\n")
        #expect(try cli.ok(["redo"]) == "Redid the change that moved row 0:0 to 1:0; list \"default\" is at version 6.\n")
        try cli.ok(["section", "delete", "Done", "--force"])
        #expect(try cli.ok(["undo"]) == "Undid the change that deleted section 1; list \"default\" is at version 8.\n")
        #expect(try cli.ok(["redo"]) == "Redid the change that deleted section 1; list \"default\" is at version 9.\n")
        try cli.ok(["section", "rename", "To do", "Today"])
        #expect(try cli.ok(["undo"]) == "Undid the change that updated section 0; list \"default\" is at version 11.\n")
    }

    @Test func undoTakesBackADeleteAndRedoDoesItAgain() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "A"])
        try cli.ok(["row", "add", "A", "Buy milk"])
        try cli.ok(["row", "add", "A", "Call Aiko"])
        try cli.ok(["row", "delete", "0:0"])
        #expect(try cli.ok(["undo"]) == "Undid the change that deleted row 0:0; list \"default\" is at version 5.\n")
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
