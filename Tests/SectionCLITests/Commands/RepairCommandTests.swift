import Foundation
import SQLite
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `check` and `repair` through the built binary, on a file damaged with plain SQL: what each
/// prints, as text and as JSON, and its exit status.
@Suite struct RepairCommandTests {
    /// Sections A (#1: rows #1…#3) and B (#2: rows #4, #5).
    func seeded() throws -> Sectionctl {
        let cli = try Sectionctl()
        try cli.initialize()
        for title in ["A", "B"] { try cli.ok(["section", "add", title]) }
        for title in ["a0", "a1", "a2"] { try cli.ok(["row", "add", "A", title]) }
        for title in ["b0", "b1"] { try cli.ok(["row", "add", "B", title]) }
        return cli
    }

    /// Runs `sql` on the database as the `sqlite3` shell would (foreign keys off), past the
    /// schema's guards (triggers named `guard_…` dropped, CHECK constraints ignored).
    func tamper(_ cli: Sectionctl, _ sql: String) throws {
        try TestSupport.tamper(path: cli.databasePath, sql)
    }

    @Test func checkNamesEachProblemAndRepairMendsThem() throws {
        let cli = try seeded()
        #expect(try cli.ok(["check"]).hasPrefix("ok: "))
        try tamper(
            cli, "UPDATE sections SET row_count = 9 WHERE id = 1; DELETE FROM sections WHERE id = 2; UPDATE rows SET position = -1 WHERE id = 1")
        let order = try cli.orderedOutline()

        let check = try cli.run(["check"])
        #expect(check.status == 1)
        for line in [
            "orphan: 2 rows of section #2, which does not exist: #4, #5",
            "orphan: 4 rank nodes of section #2, which does not exist",
            "row-count: section #1 says it has 9 rows, but 3 are in it",
            "position: section #1 has 1 row at positions outside 1…4611686018427387903: #1 at -1 (the parking value)",
        ] {
            #expect(check.lines.contains(line), "\(check.stdout)")
        }
        #expect(check.lines.last == "to mend them, keeping ids, titles and order: sectionctl --db \(cli.databasePath) repair")
        #expect(check.stderr == "sectionctl: error: the database disagrees with itself in \(check.lines.count - 1) places\n")

        let json = try cli.run(["--json", "check"])
        #expect(json.status == 1)
        let document = try json.json()
        #expect(document["database"] as? String == cli.databasePath)
        #expect(document["ok"] as? Bool == false)
        let problems = try #require(document["problems"] as? [[String: Any]])
        #expect(problems.count == check.lines.count - 1)
        #expect(problems.allSatisfy { Set($0.keys) == ["kind", "message", "repairable"] && $0["repairable"] as? Bool == true })
        #expect(
            problems.contains { $0["kind"] as? String == "row-count" && $0["message"] as? String == "section #1 says it has 9 rows, but 3 are in it" }
        )

        let before = try #require(try cli.snapshot()["version"] as? Int)
        let repair = try cli.run(["repair"])
        #expect(repair.status == 0, "\(repair.stderr)")
        #expect(repair.stderr == "")
        for line in [
            "orphan: deleted 2 rows of section #2, which does not exist: #4, #5",
            "orphan: deleted 4 rank nodes of section #2, which does not exist",
            "position: section #1: gave its 3 rows evenly spaced positions, in their order (before: #1 at -1 (the parking value))",
            "row-count: section #1: set its row count to 3 (it said 9)",
        ] {
            #expect(repair.lines.contains(line), "\(repair.stdout)")
        }
        let version = before + 1
        #expect(
            repair.lines.last
                == "Repaired: \(repair.lines.count - 1) changes; list \"default\" is at version \(version), journaled as a reload (views and changes --since read it afresh)."
        )
        #expect(try cli.ok(["check"]).hasPrefix("ok: "))
        #expect(try cli.orderedOutline() == order, "ids, titles and order are kept")
        #expect(try cli.ok(["changes", "--since", "\(before)"]).contains("changed in ways the journal cannot say"))
        // And it takes writes again.
        try cli.ok(["row", "add", "A", "a3", "--at", "0"])
        #expect(try cli.orderedOutline() == [["A", "a3", "a0", "a1", "a2"]])
        #expect(try cli.ok(["check"]).hasPrefix("ok: "))
    }

    @Test func repairPrintsJSONAndSaysWhenThereIsNothingToRepair() throws {
        let cli = try seeded()
        try tamper(cli, "UPDATE sections SET row_count = 9 WHERE id = 2")
        let repaired = try cli.run(["--json", "repair"])
        #expect(repaired.status == 0, "\(repaired.stderr)")
        let document = try repaired.json()
        #expect(document["database"] as? String == cli.databasePath)
        #expect(document["repaired"] as? Bool == true)
        let changes = try #require(document["changes"] as? [[String: String]])
        #expect(changes == [["kind": "row-count", "message": "section #2: set its row count to 2 (it said 9)"]])
        let lists = try #require(document["lists"] as? [[String: Any]])
        #expect(lists.count == 1)
        #expect(lists.first?["list"] as? String == "default" && lists.first?["id"] as? Int == 1 && lists.first?["version"] as? Int == 8)

        let again = try cli.run(["--json", "repair"])
        #expect(again.status == 0)
        #expect(again.stdout == "{\"database\":\"\(cli.databasePath)\",\"repaired\":false,\"changes\":[],\"lists\":[]}\n")
        #expect(try cli.ok(["repair"]) == "nothing to repair: check finds nothing wrong, and nothing was written\n")
        #expect(try cli.snapshot()["version"] as? Int == 8, "nothing written")
    }

    @Test func whatRepairCannotMendItRefusesAndSaysWhatToDoInstead() throws {
        let cli = try seeded()
        try tamper(cli, "DROP TABLE retired_lists")
        let check = try cli.run(["check"])
        #expect(check.status == 1)
        #expect(check.lines.contains { $0.hasPrefix("schema: table retired_lists is missing (schema version ") })
        let copy =
            "restore a backup, or copy what still reads into a new database: sectionctl --db NEW.db init, then sectionctl --db \(cli.databasePath) export --all | sectionctl --db NEW.db import - (ids and history start afresh there)"
        #expect(check.lines.last == "sectionctl repair cannot mend the schema problem: " + copy)

        let repair = try cli.run(["repair"])
        #expect(repair.status == 1)
        #expect(repair.stdout == "")
        let lines = repair.stderr.split(separator: "\n").map(String.init)
        #expect(lines.count == 2)
        #expect(lines.first?.hasPrefix("sectionctl: error: cannot repair \(cli.databasePath) safely: schema: table retired_lists is missing") == true)
        #expect(lines.first?.hasSuffix("; nothing was written") == true)
        #expect(lines.last == "hint: " + copy)
        #expect(try cli.run(["--json", "repair"]).status == 1)
        #expect(try cli.run(["check"]).stdout == check.stdout, "nothing was written")
    }

    @Test func repairMendsTheWholeDatabaseAndRefusesAList() throws {
        let cli = try seeded()
        let result = try cli.run(["--list", "default", "repair"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("sectionctl: error: repair mends the whole database, as check reads it; give no --list\n"))
    }

    @Test func repairHasHelpAndAManualPageEntry() throws {
        let cli = try Sectionctl()
        let help = try cli.run(["repair", "--help"], database: false)
        #expect(help.status == 0)
        #expect(help.stdout.contains("mend what check finds, keeping ids, titles and order"))
        let manual = try cli.run(["help", "--man"], database: false)
        #expect(manual.stdout.contains(".SS \"repair\""))
        #expect(try cli.run(["help"], database: false).stdout.contains("repair"))
    }
}

/// A database the user cannot write is checked, not repaired.
@Suite(.enabled(if: ReadOnlyRunner.isAvailable, "needs a non-root user, or setpriv as root"))
struct ReadOnlyRepairTests {
    @Test func aReadOnlyDatabaseIsCheckedButNotRepaired() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let db = try Connection(path: cli.databasePath, mode: .readWrite)
        try db.execute(script: "UPDATE sections SET row_count = 9 WHERE id = 2")
        chmod(cli.directory.path, 0o777)  // room for SQLite's -shm and -wal files
        chmod(cli.databasePath, 0o444)
        defer { chmod(cli.databasePath, 0o644) }
        let check = try ReadOnlyRunner.run(["--db", cli.databasePath, "check"])
        #expect(check.status == 1)
        #expect(check.stdout.hasPrefix("row-count: section #2 says it has 9 rows, but 0 are in it\n"))
        let repair = try ReadOnlyRunner.run(["--db", cli.databasePath, "repair"])
        #expect(repair.status == 1)
        #expect(repair.stderr == "sectionctl: error: \(cli.databasePath) is read-only; it can be shown and exported, not changed\n")
    }
}
