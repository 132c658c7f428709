import Foundation
import SQLite
import Testing

/// `row get`, `show --from … --limit …` and `check`, through the built binary.
@Suite struct ReadCommandTests {
    /// Sections A (3 rows), Empty, C (2 field rows).
    func seeded() throws -> Sectionctl {
        let cli = try Sectionctl()
        try cli.ok(["init"])
        for title in ["A", "Empty", "C"] { try cli.ok(["section", "add", title]) }
        for title in ["a0", "a1", "a2"] { try cli.ok(["row", "add", "A", title]) }
        try cli.ok(["row", "add", "C", "名前", "--value", "山田"])
        try cli.ok(["row", "add", "C", "age"])
        return cli
    }

    @Test func rowGetPrintsOneRowWithItsSection() throws {
        let cli = try seeded()
        #expect(try cli.ok(["row", "get", "0:1"]) == "[0] A  #1  (3 rows)\n  0:1  a1  #2\n")
        let json = try cli.run(["--json", "row", "get", "C:end"]).json()
        #expect(json["path"] as? [Int] == [2, 1])
        #expect(json["title"] as? String == "age" && json["kind"] as? String == "text")
        #expect(json["list"] as? String == "default" && json["version"] as? Int == 8 && json["list_id"] as? Int == 1)
        let section = try #require(json["section"] as? [String: Any])
        #expect(section["title"] as? String == "C" && section["row_count"] as? Int == 2 && section["id"] as? Int == 3)
        let byID = try cli.run(["--json", "row", "get", "#4"]).json()
        #expect(byID["path"] as? [Int] == [2, 0] && byID["value"] as? String == "山田")
    }

    @Test func rowGetOfNothingFailsWithTheValidRange() throws {
        let cli = try seeded()
        let missing = try cli.run(["row", "get", "0:3"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "sectionctl: error: row index 3 is out of range for section 0 (valid: 0…2) in version 8 of the list\n")
        let malformed = try cli.run(["row", "get", "zero"])
        #expect(malformed.status == 2)
        #expect(try cli.run(["row", "get", "1:end"]).status == 1)
    }

    @Test func showFromPrintsAWindowAcrossSections() throws {
        let cli = try seeded()
        #expect(
            try cli.ok(["show", "--from", "0:2", "--limit", "2", "--editing"]) == """
                default (version 8, editing; rows 0:2 to 2:0)

                [0] A  #1  (3 rows)
                  0:2  a2  #3

                [1] Empty  #2  (0 rows)
                       (No Data)

                [2] C  #3  (2 rows)
                  2:0  名前  山田  #4

                """)
        let json = try cli.run(["--json", "show", "--from", "0:3", "--limit", "1"]).json()
        let sections = try #require(json["sections"] as? [[String: Any]])
        #expect(sections.map { $0["index"] as? Int } == [0, 1, 2])
        #expect(sections.map { $0["row_count"] as? Int } == [3, 0, 2])
        let rows = try #require(sections[2]["rows"] as? [[String: Any]])
        #expect(rows.map { $0["index"] as? Int } == [0])
        #expect(rows.map { $0["id"] as? Int } == [4])
        #expect(json["editing"] as? Bool == false)
    }

    @Test func showLimitIsANumber() throws {
        let cli = try seeded()
        let bad = try cli.run(["show", "--limit", "-1"])
        #expect(bad.status == 2)
        #expect(bad.stderr.hasPrefix("sectionctl: error: --limit takes a number of rows, 0 or more, not \"-1\"\n"))
        let past = try cli.run(["show", "--from", "0:4"])
        #expect(past.status == 1)
        #expect(past.stderr == "sectionctl: error: row index 4 is out of range for section 0 (valid: 0…3) in version 8 of the list\n")
    }

    @Test func checkSaysOkOrNamesEachProblem() throws {
        let cli = try seeded()
        #expect(try cli.ok(["check"]) == "ok: row counts, order, the rank structure, the journal and undo history agree with the rows\n")
        // Damage one count behind sectionctl's back.
        let db = try Connection(path: cli.databasePath, mode: .readWrite)
        try db.execute(script: "UPDATE rank_nodes SET row_count = 7 WHERE section_id = 1 AND level = 3")
        let damaged = try cli.run(["check"])
        #expect(damaged.status == 1)
        #expect(
            damaged.stdout == """
                rank: section #1: rank node -9223372036854775808 of level 3 counts 7 rows, but 3 are in its range
                to mend it, keeping ids, titles and order: sectionctl --db \(cli.databasePath) repair

                """)
        #expect(damaged.stderr == "sectionctl: error: the database disagrees with itself in 1 place\n")
        let json = try cli.run(["--json", "check"])
        #expect(json.status == 1)
        #expect(try json.json()["ok"] as? Bool == false)
    }
}

/// `row move PATH --after #ID` / `--before #ID`: a destination that does not shift.
@Suite struct RelativeMoveTests {
    @Test func aMoveNextToARowLandsThereWhateverWasAddedMeanwhile() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "A"])
        try cli.ok(["section", "add", "B"])
        for title in ["a", "b", "c"] { try cli.ok(["row", "add", "A", title]) }  // #1 #2 #3
        try cli.ok(["row", "add", "B", "x"])  // #4
        // Someone adds rows in front of c; "after #3" still means after c.
        try cli.ok(["row", "add", "A", "new", "--at", "0"])
        #expect(try cli.ok(["row", "move", "#4", "--after", "#3"]) == "Moved row 1:0 to 0:4; list \"default\" is at version 8.\n")
        #expect(try cli.ok(["row", "move", "#4", "--before", "#1"]) == "Moved row 0:4 to 0:1; list \"default\" is at version 9.\n")
        #expect(try cli.orderedOutline() == [["A", "new", "x", "a", "b", "c"], ["B"]])
        // In an edit session too.
        let saved = try cli.run(["edit"], input: "row move #4 --after #2\nsave\n")
        #expect(saved.status == 0, "\(saved.stderr)")
        #expect(try cli.orderedOutline() == [["A", "new", "a", "b", "x", "c"], ["B"]])
    }

    @Test func aRelativeDestinationIsARowIDAndOnlyOne() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "A"])
        try cli.ok(["row", "add", "A", "a"])
        let path = try cli.run(["row", "move", "0:0", "--after", "0:0"])
        #expect(path.status == 2)
        #expect(
            path.stderr.hasPrefix("sectionctl: error: --after takes a row's #ID, a place that does not shift; for an index path give TO instead\n"))
        #expect(try cli.run(["row", "move", "0:0", "0:0", "--before", "#1"]).status == 2)
        #expect(try cli.run(["row", "move", "0:0"]).status == 2)
        let missing = try cli.run(["row", "move", "0:0", "--after", "#9"])
        #expect(missing.status == 1)
        #expect(missing.stderr == "sectionctl: error: no row #9 in list \"default\"\n")
    }
}
