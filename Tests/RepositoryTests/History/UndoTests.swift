import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

/// Undo and redo against a plain model: a stack of the states before each change. An undo gives
/// back exactly the state before the change it takes back — ids, order and content — and its
/// changeset turns the state before the undo into the state after.
@Suite("Undo and redo")
struct UndoTests {
    /// The list's state, version aside.
    func state(_ store: SectionStore) throws -> ListSnapshot {
        var snapshot = try store.list("default").snapshot()
        snapshot.version = 0
        return snapshot
    }

    @Test("random changes, undos and redos match a stack of states", arguments: Backend.all, propertySeeds([51, 52, 53]))
    func undoAndRedoMatchTheModel(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let other = try fixture.reopen()  // another writer, whose changes are undone like any other
        var generator = SeededGenerator(seed: seed)
        var undoStack: [ListSnapshot] = []
        var redoStack: [ListSnapshot] = []
        for step in 0..<400 {
            let before = try state(store)
            let beforeWithVersion = try store.list("default").snapshot()
            switch Int.random(in: 0..<10, using: &generator) {
            case 0, 1, 2:
                guard let expected = undoStack.popLast() else {
                    #expect(throws: RepositoryError.nothingToUndo(list: "default")) { try store.list("default").undo() }
                    continue
                }
                let change = try store.list("default").undo()
                #expect(try state(store) == expected, "seed \(seed), step \(step): undo gives back the state before the change")
                let after = try store.list("default").snapshot()
                try requireChangeset(change.changeset, turns: beforeWithVersion, into: after, "seed \(seed), step \(step): the undo's changeset")
                redoStack.append(before)
            case 3:
                guard let expected = redoStack.popLast() else {
                    #expect(throws: RepositoryError.nothingToRedo(list: "default")) { try store.list("default").redo() }
                    continue
                }
                let change = try store.list("default").redo()
                #expect(try state(store) == expected, "seed \(seed), step \(step): redo gives back the state before the undo")
                let after = try store.list("default").snapshot()
                try requireChangeset(change.changeset, turns: beforeWithVersion, into: after, "seed \(seed), step \(step): the redo's changeset")
                undoStack.append(before)
            case 4:
                // A session of a few edits is one step. Half of them first add a run of rows to
                // one section, at random places: a run of row inserts, which undo takes back in
                // bulk (as it puts a deleted section's rows back in bulk).
                let session = try store.list("default").beginEditing()
                let outline = try store.list("default").outline()
                if Bool.random(using: &generator), !outline.sections.isEmpty {
                    let section = Int.random(in: 0..<outline.sections.count, using: &generator)
                    for index in 0..<Int.random(in: 4...24, using: &generator) {
                        let rows = outline.sections[section].rowCount + index
                        let at = Int.random(in: 0...rows, using: &generator)
                        _ = try session.apply(.addRow(RowContent(kind: .field, title: "run \(step).\(index)", value: "v"), to: .at(section, at)))
                    }
                }
                for index in 0..<3 {
                    _ = try? session.apply(randomEdit(try store.list("default").outline(), step: step * 10 + index, using: &generator))
                }
                if try !session.save().changeset.isEmpty {
                    undoStack.append(before)
                    redoStack.removeAll()
                }
            default:
                let writer = Bool.random(using: &generator) ? store : other
                let change = try writer.list("default").apply(randomEdit(try store.list("default").outline(), step: step, using: &generator))
                if !change.changeset.isEmpty {
                    undoStack.append(before)
                    redoStack.removeAll()
                }
            }
            // The store keeps the last hundred steps (the contract's "at least 100", exactly);
            // so does the model.
            if undoStack.count > 100 { undoStack.removeFirst() }
        }
        #expect(try store.check() == [], "seed \(seed)")
        // Every kept step can be taken back, and the ids come back as they were.
        while let expected = undoStack.popLast() {
            try store.list("default").undo()
            #expect(try state(store) == expected, "seed \(seed): unwinding")
        }
        #expect(throws: RepositoryError.nothingToUndo(list: "default")) { try store.list("default").undo() }
    }

    @Test(arguments: Backend.all) func anUndoneDeleteBringsTheRowBackWithItsID(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        let ids = try (0..<3).map { try store.list("default").apply(.addRow(.text("\($0)"), to: .at(0, $0))).createdID!.rowID! }
        let deleted = try store.list("default").apply(.deleteRow(.at(0, 1)))
        let undone = try store.list("default").undo()
        #expect(undone.version == deleted.version.next)
        #expect(undone.changeset.insertedRows == [RowPath(section: 0, row: 1)])
        #expect(try store.list("default").snapshot().sections[0].rows.map(\.id) == ids)
        // The undo is journaled like any change.
        let journal = try store.read { db in try db.scalarInt("SELECT count(*) FROM journal WHERE version = ?", undone.version.rawValue) }
        #expect(journal == 1)
    }

    /// A change of many rows — a session that adds 300 rows at random places, a deleted section
    /// of 300 rows — is taken back in bulk on a file (runs of logged row inserts or deletes, a
    /// page of the log at a time), and comes back exactly: ids, order, content, every structure
    /// `check()` reads. A run whose rows are not all where the log says is refused whole.
    @Test(arguments: Backend.all) func aLargeChangeIsTakenBackInBulkAndExactly(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: 61)
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addSection(title: "B"))
        for index in 0..<40 { try store.list("default").apply(.addRow(.text("a\(index)"), to: .at(0, index))) }
        let start = try state(store)
        let session = try store.list("default").beginEditing()
        var counts = [40, 0]
        for index in 0..<300 {
            let section = Int.random(in: 0...1, using: &generator)
            try session.apply(.addRow(.text("n\(index)"), to: .at(section, Int.random(in: 0...counts[section], using: &generator))))
            counts[section] += 1
        }
        try session.save()
        let added = try state(store)
        try store.list("default").undo()
        #expect(try state(store) == start)
        #expect(try store.check() == [])
        try store.list("default").redo()
        #expect(try state(store) == added, "redo brings the rows back with their ids")
        #expect(try store.check() == [])

        let sectionB = try store.list("default").snapshot().sections[1]
        #expect(sectionB.rows.count > SectionStore.bulkReversalMinimum)
        try store.list("default").apply(.deleteSection(.index(1), force: true))
        try store.list("default").undo()
        #expect(try state(store) == added, "the deleted section's rows come back in order, with their ids")
        #expect(try store.check() == [])
        if backend == .sqlite {
            // The store's own connection staged the rows: the bulk path ran.
            let staged = try store.withConnection { db in try db.scalarInt("SELECT count(*) FROM temp.sqlite_master WHERE name = 'bulk_rows'") }
            #expect(staged == 1)
        }

        // A row of the run gone by plain SQL: the list was changed outside sectionctl, and the
        // undo is refused, writing nothing.
        try store.list("default").redo()
        try fixture.plainSQL("DELETE FROM undo_log WHERE id = (SELECT max(id) FROM undo_log WHERE action = 'delete')")
        let before = try store.list("default").snapshot()
        #expect(throws: RepositoryError.self) { try store.list("default").undo() }
        #expect(try store.list("default").snapshot() == before)
    }

    @Test(arguments: Backend.all) func anUndoAfterAPlainSQLChangeIsRefusedAndWritesNothing(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addRow(.text("a"), to: .at(0, 0)))
        try fixture.plainSQL("UPDATE rows SET title = 'b'")
        let before = try store.list("default").snapshot()
        #expect(
            throws: RepositoryError.cannotUndo(
                list: "default", reason: "version 2 came before version 3, made outside sectionctl (plain SQL, or a repair)")
        ) { try store.list("default").undo() }
        #expect(try store.list("default").snapshot() == before)
        // Nor across it once sectionctl changed the list again: the change after it can be undone,
        // the one before it cannot.
        try store.list("default").apply(.addRow(.text("c"), to: .at(0, 1)))
        try store.list("default").undo()
        #expect(try store.list("default").snapshot().sections[0].rows.map(\.title) == ["b"])
        #expect(throws: RepositoryError.self) { try store.list("default").undo() }
        #expect(try store.list("default").snapshot().sections[0].rows.map(\.title) == ["b"])
    }

    @Test(arguments: Backend.all) func aNewChangeClearsRedoAndAtLeastAHundredStepsAreKept(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        for index in 0..<130 { try store.list("default").apply(.renameSection(.index(0), title: "\(index)")) }
        for _ in 0..<100 { try store.list("default").undo() }
        #expect(try store.list("default").snapshot().sections[0].title == "29")
        try store.list("default").redo()
        try store.list("default").apply(.renameSection(.index(0), title: "new"))
        #expect(throws: RepositoryError.nothingToRedo(list: "default")) { try store.list("default").redo() }
        // Logs of what can no longer be undone or redone are dropped.
        let steps = try store.read { db in
            try db.scalarInt("SELECT count(DISTINCT step) FROM undo_log WHERE list_id = 1")
        }
        let undoable = try store.read { db in try db.scalarInt("SELECT count(*) FROM undo_steps") }
        #expect(steps == undoable)
    }
}
