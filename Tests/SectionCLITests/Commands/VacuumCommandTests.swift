import Foundation
import SQLite
import TestSupport
import Testing

/// `vacuum` through the built binary: what it prints, as text and as JSON, its exit status,
/// and the file it leaves.
@Suite struct VacuumCommandTests {
    func fileSize(_ path: String) throws -> Int64 {
        try #require(try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int64)
    }

    @Test func vacuumCompactsAFileMadeBeforeFreePagesWereGivenBack() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "Big"])
        // A file of an older version (auto_vacuum off), and rows deleted with plain SQL: the
        // free pages stay in the file.
        let raw = try Connection(path: cli.databasePath, mode: .readWrite)
        try raw.execute(script: "PRAGMA auto_vacuum = NONE; VACUUM;")
        try tamper(
            path: cli.databasePath,
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
            INSERT INTO rows (section_id, position, title) SELECT 1, i * 4096, printf('%0600d', i) FROM n;
            DELETE FROM rows;
            """)
        try raw.execute(script: "PRAGMA wal_checkpoint(TRUNCATE)")
        let before = try fileSize(cli.databasePath)

        let text = try cli.run(["vacuum"])
        #expect(text.status == 0, "\(text.stderr)")
        let after = try fileSize(cli.databasePath)
        #expect(after * 4 < before, "\(before) bytes before, \(after) after")
        let pattern = try Regex(
            #"^Vacuumed .*test\.db: [0-9.]+ (KiB|MiB) → [0-9.]+ KiB \([0-9]+ free pages given back\); free pages are given back after large deletes from now on\.$"#
        )
        #expect(text.lines.count == 1)
        #expect(try pattern.wholeMatch(in: text.lines.first ?? "") != nil, "\(text.stdout)")
        #expect(try cli.ok(["check"]).hasPrefix("ok: "))
        #expect(try cli.ok(["show"]).contains("Big"))

        let json = try cli.run(["--json", "vacuum"]).json()
        #expect(Set(json.keys) == ["database", "vacuumed", "bytes_before", "bytes_after", "free_pages_before", "reclaims_free_pages"])
        #expect(json["vacuumed"] as? Bool == true)
        #expect(json["reclaims_free_pages"] as? Bool == true)
        #expect(json["free_pages_before"] as? Int == 0)
        #expect(json["bytes_after"] as? Int == Int(try fileSize(cli.databasePath)))
    }

    @Test func vacuumRefusesAListAndWritesNothing() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let result = try cli.run(["--list", "default", "vacuum"])
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("sectionctl: error: vacuum compacts the whole database; give no --list\n"))
        #expect(result.stdout.isEmpty)
    }

    @Test func vacuumWhileAnotherProcessWritesIsBusy() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "A"])
        let other = try Connection(path: cli.databasePath, mode: .readWrite)
        try other.execute(script: "BEGIN IMMEDIATE")
        let result = try cli.run(["vacuum"])
        try other.execute(script: "ROLLBACK")
        #expect(result.status == 75, "\(result.stderr)")
        #expect(result.stdout.isEmpty)
        #expect(try cli.ok(["vacuum"]).hasPrefix("Vacuumed "))
    }
}
