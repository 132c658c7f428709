import Foundation
import TestSupport
import Testing

/// The file written with the real `sqlite3` shell, then used with `sectionctl`, as a person would:
/// what the shell may do is named by a version of its own, what it must not do is refused, and
/// damage from before the guards never makes a command trap or print a misleading message.
@Suite("Plain SQL through the sqlite3 shell", .needs(.sqlite3))
struct PlainSQLTests {
    /// A database with section A holding r0, r1, r2.
    func makeDatabase() throws -> Sectionctl {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "A"])
        for title in ["r0", "r1", "r2"] { try cli.ok(["row", "add", "A", title]) }
        return cli
    }

    /// Runs the sqlite3 shell on the database; returns its exit status and standard error.
    func shell(_ cli: Sectionctl, _ sql: String) throws -> (status: Int32, stderr: String) {
        let process = Process()
        let errors = Pipe()
        process.executableURL = URL(fileURLWithPath: try RequiredTool.sqlite3.path())
        process.arguments = [cli.databasePath, sql]
        process.standardOutput = FileHandle.nullDevice
        process.standardError = errors
        try process.run()
        let data = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    @Test func eachPlainWriteIsAVersionThatWatchersAndChangesSinceAreToldToReload() throws {
        let cli = try makeDatabase()
        #expect(try shell(cli, "UPDATE rows SET title = 'plain' WHERE title = 'r1'").status == 0)
        #expect(try shell(cli, "UPDATE rows SET title = 'plain again' WHERE title = 'plain'").status == 0)
        let changes = try cli.run(["--json", "changes", "--since", "4"])
        #expect(changes.status == 0)
        let json = try changes.json()
        #expect(json["version"] as? Int == 6 && json["reload"] as? Bool == true, "\(json)")
        let since5 = try cli.run(["--json", "changes", "--since", "5"]).json()
        #expect(since5["reload"] as? Bool == true, "the second plain write is a version of its own too: \(since5)")
        // The next change of sectionctl's own has its changeset, from the state plain SQL made.
        try cli.ok(["row", "add", "A", "r3"])
        let after = try cli.run(["--json", "changes", "--since", "6"]).json()
        #expect((after["changes"] as? [String: Any]) != nil && after["version"] as? Int == 7, "\(after)")
        // Undo takes back that change, not one from before the plain writes.
        try cli.ok(["undo"])
        let refused = try cli.run(["undo"])
        #expect(refused.status == 1)
        #expect(refused.stderr.contains("made outside sectionctl"), "\(refused.stderr)")
        #expect(try cli.outline()["A"] == ["r0", "plain again", "r2"])
    }

    @Test func whatTheShellMustNotWriteIsRefusedWithTheRule() throws {
        let cli = try makeDatabase()
        let refusals = [
            ("UPDATE rows SET position = 0 WHERE title = 'r0'", "rows.position must be from 1 to 4611686018427387903"),
            ("UPDATE rows SET position = -1 WHERE title = 'r0'", "rows.position must be from 1 to 4611686018427387903"),
            ("UPDATE rows SET position = 9223372036854775807 WHERE title = 'r2'", "rows.position must be from 1"),
            ("INSERT INTO rows (section_id, position, title) VALUES (42, 5, 'x')", "rows.section_id must name a section"),
            ("DELETE FROM undo_log WHERE 0; UPDATE undo_log SET list_id = 9", "the undo history is written by sectionctl"),
            ("INSERT INTO journal (list_id, version, changes) VALUES (1, 99, '{}')", "journal entries are written by sectionctl"),
            ("UPDATE lists SET version = 0", "never go back"),
        ]
        for (sql, rule) in refusals {
            let result = try shell(cli, sql)
            #expect(result.status != 0, "\(sql)")
            #expect(result.stderr.contains(rule), "\(sql): \(result.stderr)")
        }
        #expect(try cli.outline()["A"] == ["r0", "r1", "r2"])
        #expect(try cli.run(["check"]).status == 0)
    }

    @Test func deletingASectionWithForeignKeysOffLeavesWritesWorking() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "A"])
        try cli.ok(["section", "add", "B"])
        // A few hundred rows, so that rank nodes split and a delete leaves pending marks.
        let lines = (0..<300).map { "row add 0 r\($0)" } + ["save"]
        try cli.ok(["edit"], input: lines.joined(separator: "\n") + "\n")
        #expect(try shell(cli, "DELETE FROM rows WHERE rowid % 3 = 0; DELETE FROM sections WHERE title = 'A'").status == 0)
        try cli.ok(["row", "add", "B", "after"])
        #expect(try cli.outline() == ["B": ["after"]])
        let check = try cli.run(["check"])
        #expect(check.status == 0, "\(check.stdout)")
    }

    /// A file whose guards were dropped (or that plain SQL damaged before it had them): the
    /// commands that meet the damage exit 1 with one line that says the file disagrees with
    /// itself and what to run; none traps.
    @Test func damageTheGuardsWouldHaveRefusedGetsAClearErrorNeverATrap() throws {
        let damage = [
            "DROP TRIGGER guard_row_update_position; UPDATE rows SET position = 9223372036854775807 WHERE title = 'r2'",
            "DROP TRIGGER guard_row_update_position; UPDATE rows SET position = 0 WHERE title = 'r0'",
            "DROP TRIGGER guard_row_update_position; UPDATE rows SET position = -1 WHERE title = 'r1'",
            "UPDATE sections SET row_count = 3000",
        ]
        for sql in damage {
            let cli = try makeDatabase()
            #expect(try shell(cli, sql).status == 0, "\(sql)")
            for command in [
                ["row", "add", "A", "x"], ["row", "add", "A", "x", "--at", "0"], ["row", "move", "0:0", "0:end"], ["row", "get", "0:2999"],
            ] {
                let result = try cli.run(command)
                #expect(result.status == 0 || result.status == 1, "\(sql): \(command) exited \(result.status): \(result.stderr)")
                if result.status == 1 {
                    let lines = result.stderr.split(separator: "\n")
                    #expect(lines.count == 1, "\(sql): \(command): \(result.stderr)")
                    if result.stderr.contains("disagrees") {
                        #expect(result.stderr.contains("sectionctl check"), "\(sql): \(command): \(result.stderr)")
                    }
                    #expect(!result.stderr.contains("valid: 0…2999"), "\(sql): \(command): \(result.stderr)")
                }
            }
            #expect(try cli.run(["--json", "show"]).status == 0, "\(sql): reads still work")
        }
    }
}
