import Foundation
import Repository
import TestSupport
import Testing

/// The schema's guards (`Migrations/0005_guards.sql`, `Migrations/postgres/0005_guards.sql`):
/// plain SQL typed into the sqlite3 shell (foreign keys off, its default) or psql is refused where
/// it would break what sectionctl relies on, names a state of its own where it is allowed, and
/// never makes a later write trap or journal a wrong changeset.
@Suite("Guards against plain SQL")
struct GuardTests {
    /// A list "default" with sections A (`rows` rows, r0…) and B (two rows).
    static func makeList(_ backend: Backend, rows: Int = 3) throws -> StoreFixture {
        let fixture = try StoreFixture(backend)
        try fixture.list.apply(.addSection(title: "A"))
        try fixture.list.apply(.addSection(title: "B"))
        for index in 0..<rows { try fixture.list.apply(.addRow(.text("r\(index)"), to: .at(0, index))) }
        for index in 0..<2 { try fixture.list.apply(.addRow(.text("b\(index)"), to: .at(1, index))) }
        return fixture
    }

    /// Runs `sql` as the sqlite3 shell would (foreign keys off) or as psql would.
    static func shell(_ fixture: StoreFixture, _ sql: String) throws {
        try fixture.plainSQL(fixture.backend == .sqlite ? "PRAGMA foreign_keys = OFF; " + sql : sql)
    }

    static func version(_ fixture: StoreFixture) throws -> ListVersion {
        ListVersion(try #require(try fixture.plainInt("SELECT version FROM lists WHERE name = 'default'")))
    }

    // MARK: - Refused

    @Test(arguments: Backend.all) func positionsOutsideTheRangeAndTheParkingValueAreRefused(backend: Backend) throws {
        let fixture = try Self.makeList(backend)
        let before = try fixture.list.snapshot()
        for value in ["0", "-1", "-7", "4611686018427387904", "9223372036854775807", "-9223372036854775808"] {
            for sql in [
                "UPDATE rows SET position = \(value) WHERE title = 'r1'",
                "UPDATE sections SET position = \(value) WHERE title = 'B'",
                "INSERT INTO rows (section_id, position, title) VALUES ((SELECT id FROM sections WHERE title = 'A'), \(value), 'x')",
                "INSERT INTO sections (list_id, position, title) VALUES (1, \(value), 'x')",
            ] {
                #expect(throws: (any Error).self, "\(sql)") { try Self.shell(fixture, sql) }
            }
        }
        #expect(try fixture.list.snapshot() == before, "nothing was written, and the version did not move")
        #expect(try fixture.store.check() == [])
    }

    @Test func orphansAreRefusedWithForeignKeysOff() throws {
        let fixture = try Self.makeList(.sqlite)
        let before = try fixture.list.snapshot()
        for sql in [
            "INSERT INTO rows (section_id, position, title) VALUES (999, 5, 'orphan')",
            "UPDATE rows SET section_id = 999 WHERE title = 'r0'",
            "INSERT INTO sections (list_id, position, title) VALUES (999, 5, 'orphan')",
            "UPDATE sections SET list_id = 999 WHERE title = 'A'",
        ] {
            #expect(throws: (any Error).self, "\(sql)") { try Self.shell(fixture, sql) }
        }
        #expect(try fixture.list.snapshot() == before)
    }

    @Test(arguments: Backend.all) func theJournalAndTheUndoHistoryAreNotWrittenByHand(backend: Backend) throws {
        let fixture = try Self.makeList(backend)
        let version = try Self.version(fixture)
        for sql in [
            "INSERT INTO journal (list_id, version, changes) VALUES (1, \(version.next), '{\"reload\":true}')",
            "INSERT INTO journal (list_id, version, changes) VALUES (1, \(version.advanced(by: 5)), '{}')",
            "UPDATE journal SET changes = '{\"reload\":true}' WHERE version = \(version)",
            "UPDATE undo_log SET list_id = 2",
            "INSERT INTO undo_log (step, list_id, action, target, item_id) VALUES (1, 1, 'insert', 'row', 1)",
            "UPDATE undo_steps SET step = step + 1",
            "INSERT INTO redo_steps (list_id, version, step) VALUES (1, 1, 1)",
            "UPDATE lists SET version = 1",
            "UPDATE lists SET plain_version = version + 1",
            "UPDATE lists SET journaled = 0",
        ] {
            #expect(throws: (any Error).self, "\(sql)") { try Self.shell(fixture, sql) }
        }
        #expect(try Self.version(fixture) == version)
        #expect(try fixture.store.check() == [])
        try fixture.list.undo()
        #expect(try fixture.list.snapshot().sections[1].rows.map(\.title) == ["b0"], "the history is intact")
    }

    @Test func theWriterRowStaysAndItsStepNeverGoesBack() throws {
        let fixture = try Self.makeList(.sqlite)
        #expect(throws: (any Error).self) { try Self.shell(fixture, "DELETE FROM journal_writer") }
        #expect(throws: (any Error).self) { try Self.shell(fixture, "UPDATE journal_writer SET step = 0") }
        try fixture.list.apply(.addRow(.text("after"), to: .at(0, 0)))
        try fixture.list.undo()
        #expect(try fixture.list.snapshot().sections[0].rows.map(\.title) == ["r0", "r1", "r2"])
    }

    // MARK: - Allowed, and named

    @Test func deletesWithForeignKeysOffTakeWhatTheCascadeWould() throws {
        // Enough rows that the rank structure has nodes to split and merge.
        let fixture = try Self.makeList(.sqlite, rows: 0)
        let session = try fixture.list.beginEditing()
        for index in 0..<400 { try session.apply(.addRow(.text("r\(index)"), to: .at(0, index))) }
        try session.save()
        try Self.shell(fixture, "DELETE FROM rows WHERE title IN ('r5', 'r6', 'r7'); DELETE FROM sections WHERE title = 'A'")
        for table in ["rank_nodes", "rank_pending"] {
            #expect(try fixture.plainInt("SELECT count(*) FROM \(table) WHERE section_id NOT IN (SELECT id FROM sections)") == 0, "\(table)")
        }
        #expect(try fixture.plainInt("SELECT count(*) FROM rows WHERE section_id NOT IN (SELECT id FROM sections)") == 0)
        #expect(try fixture.store.check() == [])
        // Writes go on: the settle step meets no entry of a section that is gone.
        try fixture.list.apply(.addRow(.text("next"), to: .at(0, 0)))
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["B"])
        // A whole list, with foreign keys off: its sections, rows, journal and history go with it.
        try fixture.store.createList(named: "other")
        try fixture.store.list("other").apply(.addSection(title: "O"))
        try fixture.store.list("other").apply(.addRow(.text("o"), to: .at(0, 0)))
        try Self.shell(fixture, "DELETE FROM lists WHERE name = 'other'")
        for table in ["sections", "journal", "undo_steps", "redo_steps"] {
            #expect(try fixture.plainInt("SELECT count(*) FROM \(table) WHERE list_id NOT IN (SELECT id FROM lists)") == 0, "\(table)")
        }
        #expect(try fixture.plainInt("SELECT count(*) FROM rows WHERE section_id NOT IN (SELECT id FROM sections)") == 0)
        #expect(try fixture.store.check() == [])
    }

    @Test func aStalePendingMarkForAGoneSectionIsDropped() throws {
        let fixture = try Self.makeList(.sqlite)
        try Self.shell(fixture, "INSERT INTO rank_pending (section_id, first) VALUES (999, 0)")
        try fixture.list.apply(.addRow(.text("next"), to: .at(0, 0)))
        #expect(try fixture.plainInt("SELECT count(*) FROM rank_pending") == 0)
        #expect(try fixture.list.snapshot().sections[0].rows.first?.title == "next")
    }

    @Test(arguments: Backend.all) func deletingHistoryByHandNamesANewStateAndStopsUndoAcrossIt(backend: Backend) throws {
        for table in ["undo_log", "undo_steps", "journal"] {
            let fixture = try Self.makeList(backend)
            let version = try Self.version(fixture)
            try Self.shell(fixture, "DELETE FROM \(table)")
            #expect(try Self.version(fixture) > version, "\(table)")
            #expect(try fixture.list.changes(since: version).isReload, "\(table)")
            let before = try fixture.list.snapshot()
            if table == "undo_steps" {
                #expect(throws: RepositoryError.nothingToUndo(list: "default")) { try fixture.list.undo() }
            } else {
                #expect(throws: RepositoryError.self, "\(table)") { try fixture.list.undo() }
            }
            #expect(try fixture.list.snapshot() == before, "\(table): undo wrote nothing")
        }
    }

    @Test(arguments: Backend.all) func aSessionSavedAfterPlainSQLIsAConflict(backend: Backend) throws {
        let fixture = try Self.makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.addRow(.text("mine"), to: .at(0, 0)))
        try Self.shell(fixture, "UPDATE rows SET title = 'theirs' WHERE title = 'r0'")
        let changed = try fixture.list.snapshot()
        #expect(throws: RepositoryError.conflict(list: "default", sessionVersion: changed.version.previous, currentVersion: changed.version)) {
            try session.save()
        }
        #expect(try fixture.list.snapshot() == changed)
    }

    // MARK: - Damage from before the guards (or with them dropped)

    /// A file whose guards on positions were dropped, then given hostile positions: writes that
    /// meet them fail with a clear error, never a trap or a changeset at the wrong index.
    @Test func storedPositionsOutsideTheRangeMakeWritesFailCleanly() throws {
        for (position, edit) in [
            ("9223372036854775807", Edit.addRow(.text("x"), to: .init(section: .index(0), index: .end))),
            ("4611686018427387904", Edit.moveRow(.at(0, 0), to: .init(section: .index(0), index: .end))),
            ("0", Edit.addRow(.text("x"), to: .at(0, 0))),
            ("-5", Edit.moveRow(.at(0, 2), to: .at(0, 0))),
        ] {
            let fixture = try Self.makeList(.sqlite)
            try Self.shell(
                fixture,
                """
                DROP TRIGGER guard_row_update_position;
                UPDATE rows SET position = \(position) WHERE title = '\(position.hasPrefix("0") || position.hasPrefix("-") ? "r0" : "r2")'
                """)
            let before = try fixture.list.snapshot()
            let journal = try fixture.plainInt("SELECT count(*) FROM journal")
            // What it names depends on where the walk meets the damage: the position itself, or a
            // row the rank structure counts and cannot reach (a position past its range).
            #expect(
                "position \(position)", performing: { try fixture.list.apply(edit) },
                throws: { error in
                    guard case RepositoryError.inconsistent(let detail) = error else { return false }
                    return detail.contains("position \(position)") || detail.contains("but none is at index")
                })
            #expect(try fixture.list.snapshot() == before, "position \(position): nothing written")
            #expect(try fixture.plainInt("SELECT count(*) FROM journal") == journal)
        }
    }

    @Test func anUndoEntryNamingAnotherListIsRefused() throws {
        let fixture = try Self.makeList(.sqlite)
        try fixture.store.createList(named: "other")
        try fixture.store.list("other").apply(.addSection(title: "O"))
        try fixture.store.list("other").apply(.addRow(.text("theirs"), to: .at(0, 0)))
        try fixture.list.apply(.addRow(.text("mine"), to: .at(0, 0)))
        // The guard dropped, the newest entry of "default" pointed at the other list's row.
        try Self.shell(
            fixture,
            """
            DROP TRIGGER guard_undo_log_update;
            UPDATE undo_log SET item_id = (SELECT id FROM rows WHERE title = 'theirs')
            WHERE id = (SELECT max(id) FROM undo_log WHERE list_id = 1)
            """)
        let other = try fixture.store.list("other").snapshot()
        #expect(
            performing: { try fixture.list.undo() },
            throws: { error in
                guard case RepositoryError.cannotUndo(_, let reason) = error else { return false }
                return reason.contains("another list")
            })
        #expect(try fixture.store.list("other").snapshot() == other)
    }

    // MARK: - Undo logs everything a step did

    @Test(arguments: Backend.all) func undoTakesBackRowsAddedToASectionTheSameStepCreated(backend: Backend) throws {
        let fixture = try Self.makeList(backend, rows: 1)
        try fixture.list.apply(.deleteSection(.index(1), force: true))
        let before = try fixture.list.snapshot()
        let session = try fixture.list.beginEditing()
        try session.apply(.addSection(title: "B"))
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        try session.apply(.deleteRow(.at(1, 0)))
        try session.apply(.addRow(.text("y"), to: .at(1, 0)))
        try session.save()
        try fixture.list.undo()
        var after = try fixture.list.snapshot()
        after.version = before.version
        #expect(after == before)
    }

    /// Random sessions of many edits each (sections added and rows put in them, rows moved in and
    /// out, deleted…), every one saved; then each is undone, newest first, back to the start.
    @Test("every saved session undoes, back to the start", arguments: Backend.all, propertySeeds([81, 82, 83]))
    func everySavedSessionUndoes(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: seed)
        var states: [ListSnapshot] = []
        func state() throws -> ListSnapshot {
            var snapshot = try store.list("default").snapshot()
            snapshot.version = 0
            return snapshot
        }
        for round in 0..<40 {
            let before = try state()
            let session = try store.list("default").beginEditing()
            for index in 0..<Int.random(in: 1...12, using: &generator) {
                let draft = try session.snapshot()
                let outline = ListOutline(
                    listID: draft.listID, name: draft.name, version: draft.version,
                    sections: draft.sections.enumerated().map { SectionInfo(id: $1.id, index: $0, title: $1.title, rowCount: $1.rows.count) })
                _ = try? session.apply(randomEdit(outline, step: round * 100 + index, using: &generator))
            }
            let saved = try session.save()
            if !saved.changeset.isEmpty { states.append(before) }
            try requireChangeset(saved.changeset, turns: before, into: try state(), "seed \(seed), round \(round)", exactFooters: false)
        }
        #expect(try store.check() == [], "seed \(seed)")
        var undone = 0
        while let expected = states.popLast() {
            let before = try state()
            let change = try store.list("default").undo()
            undone += 1
            try requireChangeset(change.changeset, turns: before, into: expected, "seed \(seed): undo \(undone)")
            #expect(try state() == expected, "seed \(seed): undo \(undone) gives back the state before its session")
        }
        #expect(throws: RepositoryError.nothingToUndo(list: "default")) { try store.list("default").undo() }
        #expect(try store.list("default").snapshot().sections.isEmpty)
    }
}
