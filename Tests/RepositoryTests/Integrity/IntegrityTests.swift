import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

/// A tampering suite: real files damaged with plain SQL through a connection of their own, with
/// foreign keys off (as the `sqlite3` shell has them), and for each damage: `check()` names it
/// with its ids, `repair()` mends it and says what it did, then `check()` passes, ids, titles and
/// order are as they were, and the lists repair changed are at a new version that `changes(since:)`
/// says to reload.
/// `DROP TRIGGER name;` and the schema's `CREATE TRIGGER name …` as its newest migration defining
/// it has it, with `old` replaced by `new`: the trigger altered in one place only.
private func alteredTrigger(_ name: String, replacing old: String, with new: String) -> String {
    let definition = "CREATE TRIGGER \(name) "
    guard let migration = EmbeddedMigration.all.last(where: { $0.sql.contains(definition) })?.sql,
        let start = migration.range(of: definition)?.lowerBound,
        let end = migration.range(of: "END;", range: start..<migration.endIndex)?.upperBound,
        migration[start..<end].contains(old)
    else { return "SELECT RAISE(ABORT, 'no trigger \(name) to alter')" }
    return "DROP TRIGGER \(name);\n" + migration[start..<end].replacingOccurrences(of: old, with: new) + "\n"
}

@Suite("check and repair")
struct IntegrityTests {
    /// A file with two lists, each made by commands (so each has undo history): "default" with
    /// sections A (#1, 100 rows: several rank nodes), B (#2, rows #101…#103) and C (#3, empty);
    /// "other" with section X (#4, rows #104, #105).
    static func seeded(_ backend: Backend = .sqlite) throws -> StoreFixture {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        for title in ["A", "B", "C"] { try store.list("default").apply(.addSection(title: title)) }
        for number in 0..<100 { try store.list("default").apply(.addRow(.text("a\(number)"), to: RowDestination(section: .index(0), index: .end))) }
        for title in ["b0", "b1", "b2"] {
            try store.list("default").apply(.addRow(.text(title), to: RowDestination(section: .index(1), index: .end)))
        }
        try store.createList(named: "other")
        try store.list("other").apply(.addSection(title: "X"))
        for title in ["x0", "x1"] { try store.list("other").apply(.addRow(.field(title, "v"), to: RowDestination(section: .index(0), index: .end))) }
        try #require(try store.check() == [])
        return fixture
    }

    /// Runs `sql` on the file as a user of the `sqlite3` shell would: foreign keys off, and
    /// without the schema's guards (any trigger named `guard_…` is dropped first, and CHECK
    /// constraints are ignored), so that the damage is made whatever the schema refuses.
    static func tamper(_ fixture: StoreFixture, _ sql: String) throws {
        try TestSupport.tamper(path: fixture.path, sql)
    }

    /// Every list by name: its sections in order, each with its id, title and rows (id, title) in
    /// order.
    static func shape(_ store: SectionStore) throws -> [String: [String]] {
        var shape: [String: [String]] = [:]
        for list in try store.lists() {
            shape[list.name] = try store.list(list.name).snapshot().sections.map { section in
                "#\(section.id) \(section.title): " + section.rows.map { "#\($0.id) \($0.title)" }.joined(separator: ", ")
            }
        }
        return shape
    }

    static func versions(_ store: SectionStore) throws -> [String: ListVersion] {
        Dictionary(uniqueKeysWithValues: try store.lists().map { ($0.name, $0.version) })
    }

    /// A damage, what `check()` must say of it and `repair()` must do, and the lists repair must
    /// mark for reload.
    struct Damage: Sendable, CustomTestStringConvertible {
        var name: String
        var sql: String
        /// (kind, a part of the message) that `check()` must name.
        var found: [(IntegrityProblem.Kind, String)]
        /// (kind, a part of the message) that the report must hold.
        var done: [(IntegrityProblem.Kind, String)]
        /// The lists repair marks for reload.
        var reloaded: Set<String>
        var testDescription: String { name }
    }

    static let damages: [Damage] = [
        Damage(
            name: "a section deleted with foreign keys off leaves its rows and rank nodes",
            sql: "DELETE FROM sections WHERE id = 2",
            found: [(.orphan, "3 rows of section #2, which does not exist: #101, #102, #103"), (.orphan, "4 rank nodes of section #2")],
            done: [
                (.orphan, "deleted 3 rows of section #2, which does not exist: #101, #102, #103"), (.orphan, "deleted 4 rank nodes of section #2"),
            ],
            // The delete made a reload version of its own: the rows repair deletes are no list's.
            reloaded: []),
        Damage(
            name: "a list deleted with foreign keys off leaves its sections, journal and undo steps",
            sql: "DELETE FROM lists WHERE name = 'other'",
            found: [
                (.orphan, "1 section of list #2, which does not exist: #4"), (.orphan, "journal entries of list #2"),
                (.orphan, "undo steps of list #2"),
            ],
            done: [(.orphan, "deleted 1 section of list #2, which does not exist, with their rows: #4"), (.orphan, "journal entries of list #2")],
            reloaded: []),
        Damage(
            name: "rows inserted with plain SQL, then their section deleted, leave a stale rank_pending note",
            sql: """
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 300)
                INSERT INTO rows (section_id, position, title) SELECT 2, 1000000 + i, 'p' || i FROM n;
                DELETE FROM sections WHERE id = 2;
                """,
            found: [(.pending, "of section #2, which does not exist"), (.orphan, "303 rows of section #2")],
            done: [(.pending, "cleared 1 rank_pending note"), (.orphan, "deleted 303 rows of section #2")],
            reloaded: []),
        Damage(
            name: "a rank_pending note naming a node a live section does not have",
            sql: "INSERT INTO rank_pending (section_id, first) VALUES (1, 12345)",
            found: [(.pending, "rank_pending notes node 12345 of section #1, which has no such node")],
            done: [(.pending, "cleared 1 rank_pending note"), (.rank, "section #1: built its rank structure afresh")],
            reloaded: ["default"]),
        Damage(
            name: "a wrong row count",
            sql: "UPDATE sections SET row_count = 7 WHERE id = 2",
            found: [(.rowCount, "section #2 says it has 7 rows, but 3 are in it")],
            done: [(.rowCount, "section #2: set its row count to 3 (it said 7)")],
            reloaded: ["default"]),
        Damage(
            name: "rank node counts edited",
            sql: "UPDATE rank_nodes SET row_count = row_count + 5 WHERE section_id = 1 AND level = 2",
            found: [(.rank, "section #1: rank node -9223372036854775808 of level 2 counts")],
            done: [(.rank, "section #1: built its rank structure afresh from its rows")],
            reloaded: ["default"]),
        Damage(
            name: "a rank node deleted",
            sql: "DELETE FROM rank_nodes WHERE section_id = 2 AND level = 1",
            found: [(.rank, "section #2 has no rank node at the start of level 1")],
            done: [(.rank, "section #2: built its rank structure afresh from its rows (4 nodes)")],
            reloaded: ["default"]),
        Damage(
            name: "a dropped trigger",
            sql: "DROP TRIGGER rows_after_insert",
            found: [(.schema, "trigger rows_after_insert is missing (schema version \(SectionStore.schemaVersion) has it)")],
            done: [(.schema, "made trigger rows_after_insert again, as the schema defines it (it was missing)")],
            reloaded: ["default", "other"]),
        Damage(
            name: "an altered trigger, and the count it got wrong",
            // The schema's own trigger, but counting each inserted row twice (the rest of its
            // work left as it is: rank counts, undo, the plain-SQL mark).
            sql: alteredTrigger("rows_after_insert", replacing: "row_count = row_count + 1 WHERE id", with: "row_count = row_count + 2 WHERE id")
                + "INSERT INTO rows (section_id, position, title) VALUES (3, 1000, 'z');",
            found: [(.schema, "trigger rows_after_insert is defined differently"), (.rowCount, "section #3 says it has 2 rows, but 1 are in it")],
            done: [
                (.schema, "made trigger rows_after_insert again, as the schema defines it (it was defined differently)"),
                (.rowCount, "section #3: set its row count to 1 (it said 2)"), (.undo, "trigger rows_after_insert was defined differently"),
            ],
            reloaded: ["default", "other"]),
        Damage(
            name: "a trigger the schema does not have",
            sql: "CREATE TRIGGER audit AFTER INSERT ON rows BEGIN SELECT 1; END",
            found: [(.schema, "trigger audit on table rows is not part of schema version")],
            done: [(.schema, "dropped trigger audit on table rows, which the schema does not have")],
            reloaded: ["default", "other"]),
        Damage(
            name: "a dropped view, and the rank structure repair rebuilds through it",
            sql: "DROP VIEW rank_layout; DROP VIEW ordered_rows; UPDATE rank_nodes SET row_count = 99 WHERE section_id = 2 AND level = 4",
            found: [(.schema, "view rank_layout is missing"), (.schema, "view ordered_rows is missing"), (.rank, "section #2")],
            done: [(.schema, "made view rank_layout again"), (.schema, "made view ordered_rows again"), (.rank, "section #2: built its rank")],
            reloaded: ["default"]),
        Damage(
            name: "a dropped index",
            sql: "DROP INDEX undo_log_step",
            found: [(.schema, "index undo_log_step is missing")],
            done: [(.schema, "made index undo_log_step again, as the schema defines it (it was missing)")],
            reloaded: []),
        Damage(
            name: "a journal entry past the list's version",
            sql: "INSERT INTO journal (list_id, version, changes) VALUES (1, 500, '{\"reload\":true}')",
            found: [(.journal, "list #1 (\"default\") is at version 106, but the journal has 1 entry past it: versions 500")],
            done: [(.journal, "list #1 (\"default\"): dropped 1 entry of the journal past its version 106: versions 500")],
            reloaded: ["default"]),
        Damage(
            name: "a journal entry that is neither a changeset nor a reload",
            sql: "UPDATE journal SET changes = '{\"rows\": 5}' WHERE list_id = 1 AND version = 3",
            found: [(.journal, "the journal entry of version 3 of list #1 (\"default\") is neither a changeset nor a reload: {\"rows\": 5}")],
            done: [(.journal, "list #1 (\"default\"): the journal entry of version 3, neither a changeset nor a reload, now says reload")],
            reloaded: ["default"]),
        Damage(
            name: "a journal entry in runs whose ids and indexes do not match",
            sql: """
                UPDATE journal SET changes = '{"runs":{"sections":{"deleted":[],"inserted":[[0,2]]},"ids":{"deleted":[],"inserted":[[1,2]]}}}'
                WHERE list_id = 1 AND version = 3
                """,
            found: [(.journal, "the journal entry of version 3 of list #1 (\"default\") is neither a changeset nor a reload: {\"runs\"")],
            done: [(.journal, "list #1 (\"default\"): the journal entry of version 3, neither a changeset nor a reload, now says reload")],
            reloaded: ["default"]),
        Damage(
            name: "an undo log entry for a run of ids that is no run of sections inserted",
            sql: "UPDATE undo_log SET last_id = item_id + 5 WHERE id = (SELECT max(id) FROM undo_log WHERE list_id = 1)",
            found: [(.undo, "list #1 (\"default\")'s undo log entry #"), (.undo, "which is no run of sections inserted")],
            done: [(.undo, "list #1 (\"default\"): dropped its undo history"), (.undo, "no run of sections inserted")],
            reloaded: ["default"]),
        Damage(
            name: "journal_writer left active, and plain SQL written then",
            sql: "UPDATE journal_writer SET active = 1; UPDATE rows SET title = 'x9' WHERE id = 105",
            found: [(.journal, "journal_writer is active (1) with no sectionctl transaction open")],
            done: [
                (.journal, "journal_writer: set active back to 0, and marked every list for reload"),
                (.undo, "list #2 (\"other\"): dropped its undo history"),
            ],
            reloaded: ["default", "other"]),
        Damage(
            name: "journal_writer without its row",
            sql: "DELETE FROM journal_writer",
            found: [(.journal, "journal_writer has no row")],
            done: [(.journal, "journal_writer: put back its one row")],
            reloaded: []),
        Damage(
            name: "journal_writer's step counter set back",
            sql: "UPDATE journal_writer SET step = 3",
            found: [(.journal, "journal_writer's step counter is at 3, behind step")],
            done: [(.journal, "journal_writer: moved its step counter from 3, behind step")],
            reloaded: []),
        Damage(
            name: "an undo step past the list's version",
            sql: "INSERT INTO undo_steps (list_id, version, step) VALUES (1, 999, 5)",
            found: [(.undo, "list #1 (\"default\") is at version 106, but its undo history has 1 step past it: versions 999")],
            done: [(.undo, "list #1 (\"default\"): dropped its undo history")],
            reloaded: ["default"]),
        Damage(
            name: "one step filed under two versions",
            sql: """
                UPDATE undo_steps SET step = (SELECT max(step) FROM undo_steps WHERE list_id = 1)
                WHERE list_id = 1 AND version = (SELECT min(version) FROM undo_steps WHERE list_id = 1)
                """,
            found: [(.undo, "list #1 (\"default\") files step")],
            done: [(.undo, "list #1 (\"default\"): dropped its undo history")],
            reloaded: ["default"]),
        Damage(
            name: "an undo log entry moved to a list that does not exist",
            sql: "UPDATE undo_log SET list_id = 77 WHERE id = (SELECT max(id) FROM undo_log WHERE list_id = 2)",
            found: [(.orphan, "1 undo log entry of list #77, which does not exist")],
            done: [(.orphan, "deleted 1 undo log entry of list #77"), (.undo, "list #2 (\"other\"): dropped its undo history")],
            reloaded: ["other"]),
    ]

    /// The damages to `sectionctl_migrations`, the record of how the schema was made.
    static let ledgerDamages: [Damage] = [
        Damage(
            name: "a migration's record deleted",
            sql: "DELETE FROM sectionctl_migrations WHERE version = 5",
            found: [(.schema, "sectionctl_migrations has no record of migration 5 (guards), which schema version")],
            done: [(.schema, "sectionctl_migrations: put back the record of migration 5 (guards)")],
            reloaded: []),
        Damage(
            name: "a migration's record renamed",
            sql: "UPDATE sectionctl_migrations SET name = 'renamed' WHERE version = 3",
            found: [(.schema, "sectionctl_migrations records migration 3 (journal) under another name")],
            done: [(.schema, "sectionctl_migrations: wrote the record of migration 3 (journal) as the schema names it")],
            reloaded: []),
        Damage(
            name: "a record of no migration",
            sql: "INSERT INTO sectionctl_migrations (version, name) VALUES (0, 'zero')",
            found: [(.schema, "sectionctl_migrations has a record of version 0, which no migration of schema version")],
            done: [(.schema, "sectionctl_migrations: deleted the record of version 0, which no migration has")],
            reloaded: []),
    ]

    @Test("check names the damage, repair mends it and says so, ids, titles and order are kept", arguments: damages + ledgerDamages)
    func checkNamesAndRepairMends(damage: Damage) throws {
        let fixture = try Self.seeded()
        let store = fixture.store
        let before = try Self.versions(store)
        try Self.tamper(fixture, damage.sql)
        // Plain SQL the triggers still notice has made versions of its own already.
        let damaged = try Self.versions(store)
        let shape = try Self.shape(store)

        let problems = try store.check()
        for (kind, text) in damage.found {
            #expect(problems.contains { $0.kind == kind && $0.message.contains(text) }, "check() should say \(kind): \(text); it says \(problems)")
        }
        #expect(problems.allSatisfy { $0.isRepairable }, "\(problems)")

        let report = try store.repair()
        for (kind, text) in damage.done {
            #expect(
                report.actions.contains { $0.kind == kind && $0.message.contains(text) },
                "repair should say \(kind): \(text); it says \(report.actions)")
        }
        #expect(try store.check() == [], "after repair")
        #expect(try Self.shape(store) == shape, "ids, titles and order")

        let after = try Self.versions(store)
        #expect(Set(report.reloadedLists.map(\.name)) == damage.reloaded)
        for list in report.reloadedLists {
            #expect(after[list.name] == list.version)
            let old = try #require(before[list.name])
            #expect(list.version > old, "\(list.name) went from \(old) to \(list.version)")
            #expect(try store.list(list.name).changes(since: old).isReload, "changes since \(old) of \(list.name)")
        }
        for (name, version) in after where !damage.reloaded.contains(name) {
            #expect(version == damaged[name], "\(name) was not changed")
        }

        // The repaired file takes writes, journals them as they are, and undoes them.
        for list in try store.lists() {
            guard let first = try store.list(list.name).outline().sections.first else { continue }
            for title in ["after", "again"] {
                let change = try store.list(list.name).apply(.addRow(.text(title), to: RowDestination(section: .id(first.id), index: .index(0))))
                if title == "again" {
                    #expect(try store.list(list.name).changes(since: change.version.previous).changeset == change.changeset)
                    #expect(try store.list(list.name).undo().changeset == change.changeset.inverted())
                }
            }
        }
        #expect(try store.check() == [])
    }

    /// Titles, values and empty texts stored by plain SQL as bytes that are not UTF-8: check
    /// names each with its bytes and what repair will write; repair writes that (U+FFFD for each
    /// bad byte, as the text is shown) and marks the lists for reload.
    @Test func textThatIsNotUTF8IsNamedWithItsBytesAndWrittenAsItIsShown() throws {
        let fixture = try Self.seeded()
        let store = fixture.store
        try Self.tamper(
            fixture,
            """
            UPDATE rows SET title = CAST(x'68ff6c6c6f' AS TEXT) WHERE id = 101;
            UPDATE rows SET value = CAST(x'76c3' AS TEXT) WHERE id = 104;
            UPDATE sections SET title = CAST(x'c328' AS TEXT) WHERE id = 3;
            UPDATE rows SET title = 'caf\u{e9}' WHERE id = 102;
            """)
        let version = try #require(try Self.versions(store)["default"])
        let problems = try store.check().filter { $0.kind == .text }
        #expect(
            problems.map(\.message) == [
                #"row #101 of list #1 ("default"): its title is not valid UTF-8 (bytes 68 ff 6c 6c 6f); repair writes "h\#u{FFFD}llo", U+FFFD for each byte that is not UTF-8"#,
                #"row #104 of list #2 ("other"): its value is not valid UTF-8 (bytes 76 c3); repair writes "v\#u{FFFD}", U+FFFD for each byte that is not UTF-8"#,
                #"section #3 of list #1 ("default"): its title is not valid UTF-8 (bytes c3 28); repair writes "\#u{FFFD}(", U+FFFD for each byte that is not UTF-8"#,
            ], "\(problems)")
        #expect(problems.allSatisfy { $0.isRepairable })

        let report = try store.repair()
        #expect(report.actions.filter { $0.kind == .text }.count == 3, "\(report.actions)")
        #expect(Set(report.reloadedLists.map(\.name)) == ["default", "other"])
        #expect(try store.check() == [])
        let snapshot = try store.list("default").snapshot()
        #expect(snapshot.sections[1].rows.map(\.title) == ["h\u{FFFD}llo", "caf\u{e9}", "b2"])
        #expect(snapshot.sections[2].title == "\u{FFFD}(")
        #expect(try store.list("default").changes(since: version).isReload)
        #expect(try store.list("other").snapshot().sections[0].rows.map(\.value) == ["v\u{FFFD}", "v"])
    }

    @Test(
        "a position out of range is renumbered with its section's rows, in their order",
        arguments: [0, -5, -1, Int64.max, Int64.max - 1, OrderedTable.upperBound, Int64.min])
    func positionsOutOfRange(position: Int64) throws {
        let fixture = try Self.seeded()
        let store = fixture.store
        let before = try Self.versions(store)["default"]!
        try Self.tamper(fixture, "UPDATE rows SET position = \(position) WHERE id = 50; UPDATE sections SET position = \(position) WHERE id = 3")
        let shape = try Self.shape(store)

        let problems = try store.check()
        let parking = position == OrderedTable.parkingPosition ? " (the parking value)" : ""
        let range = "outside 1…\(OrderedTable.upperBound - 1)"
        #expect(
            problems.contains(IntegrityProblem(kind: .position, message: "section #1 has 1 row at positions \(range): #50 at \(position)\(parking)")))
        #expect(
            problems.contains(
                IntegrityProblem(kind: .position, message: "list #1 (\"default\") has 1 section at positions \(range): #3 at \(position)\(parking)")))

        let report = try store.repair()
        #expect(report.actions.contains { $0.kind == .position && $0.message.hasPrefix("section #1: gave its 100 rows evenly spaced positions") })
        #expect(report.actions.contains { $0.kind == .position && $0.message.hasPrefix("list #1 (\"default\"): gave its 3 sections evenly spaced") })
        #expect(report.actions.contains { $0.kind == .undo && $0.message.hasPrefix("list #1 (\"default\"): dropped its undo history") })
        #expect(try store.check() == [])
        #expect(try Self.shape(store) == shape)
        #expect(report.reloadedLists.map(\.name) == ["default"])
        #expect(try store.list("default").changes(since: before).isReload)
        // Undo does not replay the positions its log holds from before.
        #expect(throws: RepositoryError.nothingToUndo(list: "default")) { try store.list("default").undo() }
        // Writes at both ends work, and land where they say.
        try store.list("default").apply(.addRow(.text("first"), to: .at(0, 0)))
        try store.list("default").apply(.addRow(.text("last"), to: RowDestination(section: .index(0), index: .end)))
        let rows = try store.list("default").snapshot().sections[0].rows
        #expect(rows.first?.title == "first" && rows.last?.title == "last")
        #expect(try store.check() == [])
    }

    @Test func aHealthyFileIsNotWritten() throws {
        let fixture = try Self.seeded()
        let store = fixture.store
        let versions = try Self.versions(store)
        let step = try fixture.plainInt("SELECT step FROM journal_writer")
        let report = try store.repair()
        #expect(report.isEmpty && report.reloadedLists.isEmpty)
        #expect(try Self.versions(store) == versions)
        #expect(try fixture.plainInt("SELECT step FROM journal_writer") == step, "no write transaction committed")
        #expect(try store.list("default").undo().version == versions["default"]!.next, "the history is whole")
    }

    /// What repair cannot mend safely — a table without a column it had, a table gone — it
    /// refuses, writing nothing.
    @Test(arguments: [
        (
            """
            CREATE TABLE rows_new (id INTEGER PRIMARY KEY AUTOINCREMENT, section_id INTEGER NOT NULL, position INTEGER NOT NULL,
                kind TEXT NOT NULL DEFAULT 'text', title TEXT NOT NULL, UNIQUE (section_id, position)) STRICT;
            INSERT INTO rows_new SELECT id, section_id, position, kind, title FROM rows;
            PRAGMA legacy_alter_table = ON;
            DROP TABLE rows;
            ALTER TABLE rows_new RENAME TO rows;
            """, "schema: table rows has columns (id INTEGER key 1, section_id INTEGER not null, position INTEGER not null,"
        ),
        ("DROP TABLE retired_lists; UPDATE sections SET row_count = 9 WHERE id = 1", "schema: table retired_lists is missing"),
    ])
    func whatRepairCannotMendItRefusesWritingNothing(sql: String, problem: String) throws {
        let fixture = try Self.seeded()
        let store = fixture.store
        try Self.tamper(fixture, sql)
        let problems = try store.check()
        #expect(problems.contains { $0.description.hasPrefix(problem) && !$0.isRepairable }, "\(problems)")
        let schema = try fixture.plainInt("SELECT count(*) FROM sqlite_schema")
        let step = try fixture.plainInt("SELECT step FROM journal_writer")
        #expect {
            try store.repair()
        } throws: { error in
            guard case RepositoryError.cannotRepair(let path, let reasons) = error else { return false }
            return path == fixture.path && reasons.contains { $0.hasPrefix(problem) }
                && "\(error)".hasSuffix("; nothing was written") && "\(error)".hasPrefix("cannot repair \(fixture.path) safely: schema: ")
        }
        #expect(try fixture.plainInt("SELECT count(*) FROM sqlite_schema") == schema)
        #expect(try fixture.plainInt("SELECT step FROM journal_writer") == step, "no write transaction committed")
        #expect(try store.check() == problems)
    }

    @Test func quickCheckFailuresAreNotRepaired() throws {
        // A page of the file overwritten: the engine's own check fails, and repair refuses.
        let fixture = try Self.seeded()
        try fixture.plainSQL("PRAGMA wal_checkpoint(TRUNCATE)")
        let pages = try fixture.plainInt("PRAGMA page_count") ?? 0
        let rootOfRows = try #require(try fixture.plainInt("SELECT rootpage FROM sqlite_schema WHERE name = 'sqlite_autoindex_rows_1'"))
        #expect(pages > rootOfRows)
        let handle = try #require(FileHandle(forUpdatingAtPath: fixture.path))
        let pageSize = try fixture.plainInt("PRAGMA page_size") ?? 4096
        try handle.seek(toOffset: UInt64((rootOfRows - 1) * pageSize) + 16)
        handle.write(Data(repeating: 0x5A, count: 64))
        try handle.close()
        let store = try fixture.reopen()  // a connection whose page cache has not seen the page
        let problems = try store.check()
        #expect(problems.contains { $0.kind == .engine && !$0.isRepairable }, "\(problems)")
        #expect(throws: (any Error).self) { try store.repair() }
    }

    @Test func aReadOnlyStoreIsNotRepaired() throws {
        let fixture = try Self.seeded()
        try Self.tamper(fixture, "UPDATE sections SET row_count = 7 WHERE id = 2")
        let reader = try SectionStore(path: fixture.path, readOnly: true)
        #expect(try reader.check().map(\.kind) == [.rowCount])
        #expect(throws: RepositoryError.readOnly(path: fixture.path)) { try reader.repair() }
    }

    @Test func problemsAndReportsEncodeWithStableKeys() throws {
        let problem = IntegrityProblem(kind: .rowCount, message: "m", isRepairable: false)
        let json = String(decoding: try JSONEncoder().encode(problem), as: UTF8.self)
        #expect(json.contains("\"kind\":\"row-count\"") && json.contains("\"repairable\":false"))
        #expect(try JSONDecoder().decode(IntegrityProblem.self, from: Data(json.utf8)) == problem)
        #expect(problem.description == "row-count: m")
        #expect(
            IntegrityProblem.Kind.allCases.map(\.rawValue) == [
                "engine", "orphan", "row-count", "rank", "pending", "position", "schema", "journal", "undo", "replica", "ids", "text",
            ])
    }
}

/// On a server, where foreign keys always hold and the schema objects are its owner's, check and
/// repair do the rest the same way: counts, the rank structure, positions, the journal, undo.
@Suite("check and repair on both backends")
struct SharedIntegrityTests {
    @Test(arguments: Backend.all)
    func countsRankPositionsJournalAndUndoAreRepairedOnBothBackends(backend: Backend) throws {
        let fixture = try IntegrityTests.seeded(backend)
        let store = fixture.store
        let before = try IntegrityTests.versions(store)["default"]!
        let damage = """
            UPDATE sections SET row_count = 7 WHERE id = 2;
            UPDATE rank_nodes SET row_count = row_count + 5 WHERE section_id = 1 AND level = 3;
            UPDATE rows SET position = 0 WHERE id = 102;
            INSERT INTO journal (list_id, version, changes) VALUES (1, 900, '{"reload":true}');
            INSERT INTO undo_steps (list_id, version, step) VALUES (1, 950, 0);
            """
        // Past the guards that would refuse it: on a server, with every trigger off for the session.
        if backend == .sqlite {
            try IntegrityTests.tamper(fixture, damage)
        } else {
            try fixture.plainSQL("SET session_replication_role = replica; " + damage)
        }
        let shape = try IntegrityTests.shape(store)
        let kinds = Set(try store.check().map(\.kind))
        #expect(kinds == [.rowCount, .rank, .position, .journal, .undo])
        let report = try store.repair()
        #expect(Set(report.actions.map(\.kind)) == [.rowCount, .rank, .position, .journal, .undo])
        #expect(try store.check() == [])
        #expect(try IntegrityTests.shape(store) == shape)
        #expect(report.reloadedLists.map(\.name) == ["default"])
        #expect(try store.list("default").changes(since: before).isReload)
        try store.list("default").apply(.addRow(.text("after"), to: .at(1, 0)))
        #expect(try store.check() == [])
        #expect(try store.repair().isEmpty)
    }

    /// An id sequence set back (a restore, or plain SQL), and ids a replica holds that an item took
    /// meanwhile: the next add would collide. Found, and mended, on both backends.
    @Test(arguments: Backend.all)
    func anIDSequenceBehindTheIDsInUseOrHeldIsFoundAndMoved(backend: Backend) throws {
        let fixture = try IntegrityTests.seeded(backend)
        let store = fixture.store
        let registration = try store.registerReplica(list: "default", tokenID: try Self.token(fixture), canWrite: true)
        let held = try #require(registration.rowIDs.first)
        let highest = try #require(try fixture.plainInt("SELECT max(id) FROM rows"))
        // A row put by plain SQL on an id the replica holds, and the rows' sequence set back.
        try fixture.plainSQL(
            backend == .sqlite
                ? "INSERT INTO rows (id, section_id, position, title) VALUES (\(held.first + 1), 1, 999999, 'by hand'); UPDATE sqlite_sequence SET seq = 3 WHERE name = 'rows'"
                : "INSERT INTO rows (id, section_id, position, title) VALUES (\(held.first + 1), 1, 999999, 'by hand'); SELECT setval(pg_get_serial_sequence('sectionctl.rows', 'id'), 3)"
        )
        #expect(highest < held.first)
        let found = try store.check().filter { $0.kind == .ids }
        #expect(found.count == 2, "\(found)")
        #expect(found.contains { $0.message.contains("the id sequence of rows is at 3, behind id \(held.last)") }, "\(found)")
        #expect(found.contains { $0.message.contains("replica \(registration.replica) holds row ids \(held.first)…\(held.last) unused") }, "\(found)")
        let report = try store.repair()
        #expect(report.actions.filter { $0.kind == .ids }.count == 2, "\(report.actions)")
        #expect(try store.check() == [])
        let runs = try store.read { db in
            try db.query("SELECT first, last FROM sync_unused_ids WHERE kind = 'row' ORDER BY first") { [$0.int64(0), $0.int64(1)] }
        }
        #expect(runs == [[held.first, held.first], [held.first + 2, held.last]])
        // The next add takes an id past every one in use or held.
        let added = try store.list("default").apply(.addRow(.text("after"), to: .at(0, 0)))
        #expect(try #require(added.changeset.insertedRowIDs.first).rawValue > held.last)
    }

    /// A token of list "default", made straight in its table (the sync service's tokens are
    /// SyncService's; here only its id matters).
    static func token(_ fixture: StoreFixture) throws -> Int64 {
        try fixture.store.write { db in
            try db.run(
                "INSERT INTO tokens (selector, secret_hash, list_id, role, created_at) VALUES ('0123456789abcdef', ?, 1, 'edit', 0)",
                [UInt8](repeating: 7, count: 32))
            return try db.scalarInt("SELECT id FROM tokens") ?? 0
        }
    }

    /// Healthy files pass: random commands of every kind, on both backends, then `check()`.
    @Test("random commands leave nothing for check to find", arguments: Backend.all, propertySeeds([11, 12, 13]))
    func randomCommandsLeaveNothingToFind(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: seed)
        var made = 0
        func pick(_ count: Int) -> Int { count == 0 ? 0 : Int.random(in: 0..<count, using: &generator) }
        for step in 0..<400 {
            let lists = try store.lists().map(\.name)  // undoing a rename renames the list back
            let list = lists[pick(lists.count)]
            let outline = try store.list(list).outline()
            let sections = outline.sections
            let section = pick(sections.count)
            let rows = sections.isEmpty ? 0 : sections[section].rowCount
            func destination() -> RowDestination { .at(pick(sections.count), pick(rows + 1)) }
            let before = try store.list(list).snapshot()
            var change: Change?  // one change of `list`, to check its changeset and stages
            var composed = false
            do {
                switch pick(16) {
                case 0: change = try store.list(list).apply(.addSection(title: "s\(step)", at: pick(sections.count + 1)))
                case 1: change = try store.list(list).apply(.renameSection(.index(section), title: "r\(step)"))
                case 2: change = try store.list(list).apply(.moveSection(.index(section), to: pick(sections.count)))
                case 3: change = try store.list(list).apply(.deleteSection(.index(section), force: true))
                case 4: change = try store.list(list).apply(.setEmptyText(.index(section), step % 2 == 0 ? nil : "empty \(step)"))
                case 5, 6: change = try store.list(list).apply(.moveRow(.path(.index(section), .index(pick(rows))), to: destination()))
                case 7: change = try store.list(list).apply(.deleteRow(.path(.index(section), .index(pick(rows)))))
                case 8: change = try store.list(list).apply(.updateRow(.path(.index(section), .index(pick(rows))), title: "u\(step)"))
                case 9:
                    made += 1
                    try store.createList(named: "l\(made)")
                case 10 where list != SectionStore.defaultList:
                    try store.deleteList(list, force: true)
                case 11 where list != SectionStore.defaultList:
                    try store.renameList(list, to: "n\(step)")
                case 12: change = try store.list(list).undo()
                case 13: change = try store.list(list).redo()
                case 14:
                    // A session of several edits, some of them many rows at once.
                    let session = try store.list(list).beginEditing()
                    for number in 0..<(1 + pick(80)) {
                        _ = try? session.apply(
                            .addRow(.text("e\(number)"), to: RowDestination(section: .index(pick(sections.count + 1)), index: .end)))
                        if number % 7 == 0 { _ = try? session.apply(.addSection(title: "e\(step)")) }
                    }
                    change = try session.save()
                    composed = true
                default:
                    for number in 0..<(1 + pick(3)) {
                        try store.list(list).apply(.addRow(.text("a\(step).\(number)"), to: destination()))
                    }
                }
            } catch is RepositoryError {
                // An address past the end, nothing to undo…: refused, and nothing written.
            }
            if let change, let after = try? store.list(list).snapshot() {
                expectChangeset(change.changeset, turns: before, into: after, "\(backend), seed \(seed), step \(step)", exactFooters: !composed)
            }
            if step % 50 == 49 {
                try #require(try store.check() == [], "\(backend), seed \(seed), step \(step)")
            }
        }
        #expect(try store.check() == [], "\(backend), seed \(seed)")
        #expect(try store.repair().isEmpty)
    }
}
