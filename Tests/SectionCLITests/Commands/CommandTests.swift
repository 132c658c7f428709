import Foundation
import Testing

/// Each command's output, as text and as JSON, through the built binary.
@Suite struct CommandTests {
    @Test func showPrintsTheListing() throws {
        let cli = try Sectionctl()
        try cli.seed()
        #expect(
            try cli.ok(["show"]) == """
                default (version 5)

                [0] To do  #1
                  0:0  Buy milk  #1
                  0:1  Call Mom  #2
                  0:2  Write report  #3

                [1] Done  #2

                """)
        let editing = try cli.ok(["show", "--editing"])
        #expect(editing.hasPrefix("default (version 5, editing)\n"))
        #expect(editing.hasSuffix("[1] Done  #2\n       (No Data)\n"))
    }

    @Test func showJSONHasTheDocumentedShape() throws {
        let cli = try Sectionctl()
        try cli.seed()
        try cli.ok(["row", "add", "1", "名前", "--kind", "field"])
        #expect(
            try cli.ok(["--json", "show"])
                == #"{"list":"default","list_id":1,"version":6,"editing":false,"sections":["#
                + #"{"id":1,"title":"To do","footer":null,"rows":[{"id":1,"kind":"text","title":"Buy milk","value":null},"#
                + #"{"id":2,"kind":"text","title":"Call Mom","value":null},{"id":3,"kind":"text","title":"Write report","value":null}]},"#
                + #"{"id":2,"title":"Done","footer":null,"rows":[{"id":4,"kind":"field","title":"名前","value":null}]}]}"# + "\n")
        try cli.ok(["row", "delete", "1:0"])
        let editing = try cli.snapshot(editing: true)
        #expect(editing["editing"] as? Bool == true)
        let sections = try #require(editing["sections"] as? [[String: Any]])
        #expect(sections[1]["footer"] as? String == "No Data")
        #expect(sections[0]["footer"] is NSNull)
    }

    @Test func sectionCommands() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        #expect(try cli.ok(["section", "add", "To do"]) == "Added section 0 (#1); list \"default\" is at version 1.\n")
        #expect(
            try cli.ok(["--json", "section", "add", "Urgent", "--at", "0"])
                == #"{"list":"default","version":2,"committed":true,"id":2,"changes":{"sections":{"deleted":[],"inserted":[0],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"#
                + #""ids":{"sections":{"deleted":[],"inserted":[2],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}}}"# + "\n")
        #expect(try cli.ok(["section", "rename", "Urgent", "Today"]) == "Updated section 0; list \"default\" is at version 3.\n")
        #expect(
            try cli.ok(["--json", "section", "set", "#1", "--empty-text", "Nothing to do"])
                == #"{"list":"default","version":4,"committed":true,"changes":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[1],"footers":[1]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"#
                + #""ids":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[1],"footers":[1]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}}}"# + "\n")
        #expect(try cli.ok(["show", "--editing"]).contains("[1] To do  #1\n       (Nothing to do)\n"))
        try cli.ok(["section", "set", "1", "--no-empty-text"])
        #expect(try cli.ok(["show", "--editing"]).contains("[1] To do  #1\n       (No Data)\n"))
        #expect(
            try cli.ok(["--json", "section", "move", "Today", "1"])
                == #"{"list":"default","version":6,"committed":true,"changes":{"sections":{"deleted":[],"inserted":[],"moved":[{"from":0,"to":1}],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"#
                + #""ids":{"sections":{"deleted":[],"inserted":[],"moved":[2],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}}}"# + "\n")
        #expect(try cli.ok(["section", "move", "1", "1"]) == "Nothing changed; list \"default\" is still at version 6.\n")
        #expect(try cli.ok(["section", "delete", "0"]) == "Deleted section 0; list \"default\" is at version 7.\n")
        #expect(try cli.orderedOutline() == [["Today"]])
    }

    @Test func rowCommands() throws {
        let cli = try Sectionctl()
        try cli.seed()
        #expect(try cli.ok(["row", "add", "Done", "Sleep", "--at", "0"]) == "Added row 1:0 (#4); list \"default\" is at version 6.\n")
        #expect(
            try cli.ok(["--json", "row", "add", "0", "First", "--at", "0"])
                == #"{"list":"default","version":7,"committed":true,"id":5,"changes":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[[0,0]],"moved":[],"updated":[]},"#
                + #""ids":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[5],"moved":[],"updated":[]}}}}"# + "\n")
        #expect(
            try cli.ok(["--json", "row", "move", "0:1", "1:end"])
                == #"{"list":"default","version":8,"committed":true,"changes":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[{"from":[0,1],"to":[1,1]}],"updated":[]},"#
                + #""ids":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[1],"updated":[]}}}}"# + "\n")
        #expect(try cli.ok(["row", "move", "#5", "0:end"]) == "Moved row 0:0 to 0:2; list \"default\" is at version 9.\n")
        #expect(try cli.ok(["row", "move", "0:2", "0:2"]) == "Nothing changed; list \"default\" is still at version 9.\n")
        #expect(
            try cli.ok(["--json", "row", "set", "0:0", "--title", "Call Mom today"])
                == #"{"list":"default","version":10,"committed":true,"changes":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[[0,0]]},"#
                + #""ids":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[2]}}}}"# + "\n")
        #expect(try cli.ok(["row", "delete", "0:end"]) == "Deleted row 0:2; list \"default\" is at version 11.\n")
        #expect(try cli.orderedOutline() == [["To do", "Call Mom today", "Write report"], ["Done", "Sleep", "Buy milk"]])
    }

    @Test func aChangeThatChangesNothingSaysItCommittedNothing() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let moved = try cli.run(["--json", "row", "move", "0:0", "0:1"]).json()
        #expect(moved["committed"] as? Bool == true)
        #expect(moved["version"] as? Int == 6)
        // Onto its own place: nothing is written, and the version is the one it was checked against.
        let nothing = try cli.run(["--json", "row", "move", "0:1", "0:1"])
        #expect(nothing.status == 0)
        let json = try nothing.json()
        #expect(json["committed"] as? Bool == false)
        #expect(json["version"] as? Int == 6)
        #expect(json["id"] == nil)
        let renamed = try cli.run(["--json", "section", "rename", "Done", "Done"]).json()
        #expect(renamed["committed"] as? Bool == false)
        // A session whose edits add up to nothing commits nothing when saved.
        let session = try cli.run(["--json", "edit"], input: "row move 0:0 0:2\nrow move 0:2 0:0\nsave\n")
        #expect(session.status == 0, "\(session.stderr)")
        let saved = try session.json()
        #expect(saved["committed"] as? Bool == false)
        #expect(saved["version"] as? Int == 6)
        #expect(try cli.run(["--json", "show"]).json()["version"] as? Int == 6)
    }

    @Test func fieldRowsAndValues() throws {
        let cli = try Sectionctl()
        try cli.seed()
        try cli.ok(["row", "add", "1", "Profile", "--kind", "topic"])
        try cli.ok(["row", "add", "1", "Name", "--value", "Ada"])  // --value alone makes a field
        try cli.ok(["row", "add", "1", "Age", "--kind", "field"])
        try cli.ok(["row", "set", "1:2", "--value", "36"])
        try cli.ok(["row", "set", "1:1", "--no-value"])
        let rows = try #require((try cli.snapshot()["sections"] as? [[String: Any]])?[1]["rows"] as? [[String: Any]])
        #expect(rows.map { $0["kind"] as? String } == ["topic", "field", "field"])
        #expect(rows[1]["value"] is NSNull)
        #expect(rows[2]["value"] as? String == "36")
        let listing = try cli.ok(["show"])
        #expect(listing.contains("  1:0  # Profile  #4\n  1:1  Name  -  #5\n  1:2  Age   36  #6\n"))
    }

    @Test func changesSinceNamesTheIDsOfWhatChanged() throws {
        let cli = try Sectionctl()
        try cli.seed()  // version 5: To do #1 holding Buy milk #1, Call Mom #2, Write report #3; Done #2
        try cli.ok(["row", "move", "0:0", "1:0"])
        try cli.ok(["row", "delete", "0:1"])
        #expect(
            try cli.ok(["--json", "changes", "--since", "5"])
                == #"{"list":"default","list_id":1,"from":5,"version":7,"changes":{"sections":{"deleted":[],"inserted":[],"#
                + #""moved":[],"updated":[],"footers":[1]},"rows":{"deleted":[[0,2]],"inserted":[],"moved":[{"from":[0,0],"to":[1,0]}],"#
                + #""updated":[]},"ids":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[2]},"#
                + #""rows":{"deleted":[3],"inserted":[],"moved":[1],"updated":[]}}}}"# + "\n")
    }

    @Test func listCommands() throws {
        let cli = try Sectionctl()
        try cli.seed()
        #expect(try cli.ok(["list", "add", "work"]) == "Created list \"work\" (#2).\n")
        #expect(
            try cli.ok(["--json", "list", "add", "home"])
                == #"{"list":"home","version":0,"committed":true,"id":3,"changes":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"#
                + #""ids":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}}}"# + "\n")
        try cli.ok(["--list", "work", "section", "add", "Inbox"])
        #expect(
            try cli.ok(["list", "ls"]) == """
                LIST     VERSION  SECTIONS  ROWS
                default        5         2     3
                home           0         0     0
                work           1         1     0

                """)
        #expect(
            try cli.ok(["--json", "list", "ls"])
                == #"{"lists":[{"id":1,"name":"default","version":5,"sections":2,"rows":3},"#
                + #"{"id":3,"name":"home","version":0,"sections":0,"rows":0},{"id":2,"name":"work","version":1,"sections":1,"rows":0}]}"#
                + "\n")
        #expect(try cli.ok(["list", "rename", "work", "job"]) == "Renamed list \"work\" to \"job\"; it is at version 2.\n")
        #expect(try cli.orderedOutline(list: "job") == [["Inbox"]])
        let refused = try cli.run(["list", "delete", "job"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("use --force"))
        #expect(try cli.ok(["list", "delete", "job", "--force"]) == "Deleted list \"job\" and its section.\n")
        #expect(try cli.ok(["list", "delete", "home"]) == "Deleted list \"home\".\n")
        let gone = try cli.run(["--list", "job", "show"])
        #expect(gone.status == 1)
        #expect(gone.stderr == "sectionctl: error: no list named \"job\" (lists: \"default\")\n")
    }

    @Test func optionsMayComeAnywhereAndDoubleDashEndsThem() throws {
        let cli = try Sectionctl()
        try cli.seed()
        try cli.ok(["row", "--json", "add", "0", "x"])
        try cli.ok(["row", "add", "0", "--", "-dash title"])
        try cli.ok(["row", "add", "--at=0", "0", "--", "--force"])
        #expect(try cli.orderedOutline()[0] == ["To do", "--force", "Buy milk", "Call Mom", "Write report", "x", "-dash title"])
    }
}

/// Each exit status, from a real failure; nothing is written by a failed command.
@Suite struct ExitStatusTests {
    @Test(arguments: [
        ["bogus"], ["row"], ["row", "ad", "0", "x"], ["row", "add", "0"], ["row", "add", "0", "x", "extra"],
        ["row", "add", "0", "x", "--bogus"], ["row", "add", "0", "x", "--at"], ["row", "add", "0", "x", "--kind", "bogus"],
        ["row", "add", "0", "x", "--kind", "topic", "--value", "v"], ["row", "set", "0:0"],
        ["row", "set", "0:0", "--value", "v", "--no-value"], ["row", "move", "0", "1:0"], ["row", "move", "0:0", "#2"],
        ["row", "move", "0:x", "1:0"], ["section", "move", "0", "x"], ["section", "set", "0"], ["list", "delete"],
        ["show", "extra"], ["--force", "show"], ["import", "a.json", "--replace", "--append"], ["import", "a.json", "--nl"],
    ])
    func malformedCommandLinesExit2(arguments: [String]) throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(arguments)
        #expect(result.status == 2)
        #expect(result.stdout.isEmpty)
        let lines = result.stderr.split(separator: "\n")
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("sectionctl: error: ") == true)
        #expect(lines.last?.hasPrefix("hint: see 'sectionctl") == true)
        #expect(try cli.snapshot()["version"] as? Int == 5)
    }

    @Test(
        arguments: [
            (["row", "delete", "#99"], "no row #99 in list \"default\""),
            (["row", "delete", "5:0"], "section index 5 is out of range (valid: 0…1)"),
            (["row", "move", "0:0", "1:1"], "row index 1 is out of range for section 1 (valid: 0)"),
            (["row", "move", "0:3", "1:0"], "row index 3 is out of range for section 0 (valid: 0…2)"),
            (["row", "delete", "1:end"], "section 1 has no rows"),
            (["row", "move", "0:-1", "1:0"], "row index -1 is out of range for section 0 (valid: 0…2)"),
            (["section", "move", "0", "-1"], "section index -1 is out of range (valid: 0…1)"),
            (["section", "rename", "Nope", "x"], "no section titled \"Nope\" in list \"default\" (sections: \"To do\", \"Done\")"),
            (["section", "delete", "To do"], "section \"To do\" has 3 rows; use --force to delete it with its rows"),
            (["row", "set", "0:0", "--value", "v"], "row #1 is a text row; only field rows have a value"),
            (["--list", "nope", "show"], "no list named \"nope\" (lists: \"default\")"),
            (["list", "add", "default"], "a list named \"default\" already exists"),
        ] as [([String], String)])
    func refusalsExit1AndNameTheProblem(arguments: [String], message: String) throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(arguments)
        #expect(result.status == 1)
        #expect(result.stdout.isEmpty)
        #expect(result.stderr == "sectionctl: error: \(message)\n")
        #expect(try cli.snapshot()["version"] as? Int == 5)
    }

    @Test func ambiguousTitlesListTheCandidates() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "Same"])
        try cli.ok(["section", "add", "Same"])
        let result = try cli.run(["section", "delete", "Same"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("2 sections are titled \"Same\" (#1, #2)"))
        #expect(try cli.ok(["section", "delete", "#2"]).hasPrefix("Deleted section 1"))
    }

    @Test func anAllDigitTitleIsReachedById() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "First"])
        try cli.ok(["section", "add", "2"])
        let byIndex = try cli.run(["row", "add", "2", "x"])
        #expect(byIndex.status == 1)
        #expect(byIndex.stderr.contains("section index 2 is out of range"))
        try cli.ok(["row", "add", "#2", "x"])
        #expect(try cli.orderedOutline() == [["First"], ["2", "x"]])
    }

    @Test func forceDeletesANonEmptySection() throws {
        let cli = try Sectionctl()
        try cli.seed()
        #expect(try cli.run(["section", "delete", "0"]).status == 1)
        #expect(try cli.ok(["section", "delete", "0", "--force"]) == "Deleted section 0; list \"default\" is at version 6.\n")
        #expect(try cli.orderedOutline() == [["Done"]])
    }
}
