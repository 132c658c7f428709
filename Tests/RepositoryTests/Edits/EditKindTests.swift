import Foundation
import TestSupport
import Testing

@testable import Repository

/// A list of known ids, for tests that name exact places: sections "A" (#1: rows "a1" #1,
/// "a2" #2, "a3" #3), "B" (#2: the field row "b1" = "v", #4) and "C" (#3, empty).
struct KnownList {
    let fixture: StoreFixture
    var store: SectionStore { fixture.store }

    init(_ backend: Backend) throws {
        fixture = try StoreFixture(backend)
        let store = fixture.store
        for title in ["A", "B", "C"] { try store.list("default").apply(.addSection(title: title)) }
        for title in ["a1", "a2", "a3"] { try store.list("default").apply(.addRow(.text(title), to: .init(section: .index(0), index: .end))) }
        try store.list("default").apply(.addRow(.field("b1", "v"), to: .at(1, 0)))
        #expect(try layout() == Self.start, "\(backend): the list the tests start from")
    }

    /// The starting list, as `layout()` writes it.
    static let start = ["#1 A: #1 a1, #2 a2, #3 a3", "#2 B: #4 b1=v", "#3 C:"]

    /// Each section as "#id title: #id title, …" (a field row as "title=value"), in order.
    func layout() throws -> [String] {
        try store.list("default").snapshot().sections.map { section in
            let rows = section.rows.map { row in
                "#\(row.id) \(row.content.title)" + (row.content.kind == .field ? "=\(row.content.value ?? "-")" : "")
            }
            return "#\(section.id) \(section.title):" + (rows.isEmpty ? "" : " " + rows.joined(separator: ", "))
        }
    }
}

/// `RowPath(section: s, row: r)`.
func path(_ section: Int, _ row: Int) -> RowPath { RowPath(section: section, row: row) }

/// A changeset with the fields `fill` sets.
func changes(_ fill: (inout Changeset) -> Void) -> Changeset {
    var changeset = Changeset()
    fill(&changeset)
    return changeset
}

/// Moves of rows, `(from, to)`.
func rowMoves(_ moves: (RowPath, RowPath)...) -> [Changeset.Move<RowPath>] { moves.map { Changeset.Move(from: $0.0, to: $0.1) } }

/// Undo and redo of each kind of edit, from a list of known ids: the exact list after the edit,
/// after its undo (the list as it was, ids included) and after the redo (as after the edit), and
/// each one's changeset.
@Suite("Undo and redo of each kind of edit")
struct UndoEachEditTests {
    /// An edit to make on `KnownList`, the list after it, and its changeset (the redo's too);
    /// `undone` is the undo's.
    struct Case: CustomStringConvertible, Sendable {
        var description: String
        var edit: @Sendable (SectionStore) throws -> Change
        var after: [String]
        var done: Changeset
        var undone: Changeset
    }

    static let cases: [Case] = [
        Case(
            description: "row add",
            edit: { try $0.list("default").apply(.addRow(.text("new"), to: .at(0, 1))) },
            after: ["#1 A: #1 a1, #5 new, #2 a2, #3 a3", "#2 B: #4 b1=v", "#3 C:"],
            done: changes { $0.insertedRows = [path(0, 1)] },
            undone: changes { $0.deletedRows = [path(0, 1)] }),
        Case(
            description: "row delete",
            edit: { try $0.list("default").apply(.deleteRow(.at(0, 1))) },
            after: ["#1 A: #1 a1, #3 a3", "#2 B: #4 b1=v", "#3 C:"],
            done: changes { $0.deletedRows = [path(0, 1)] },
            undone: changes { $0.insertedRows = [path(0, 1)] }),
        Case(
            description: "row delete, the section's last",
            edit: { try $0.list("default").apply(.deleteRow(.id(4))) },
            after: ["#1 A: #1 a1, #2 a2, #3 a3", "#2 B:", "#3 C:"],
            done: changes {
                $0.deletedRows = [path(1, 0)]
                $0.changedFooters = [1]
            },
            undone: changes {
                $0.insertedRows = [path(1, 0)]
                $0.changedFooters = [1]
            }),
        Case(
            description: "row rename",
            edit: { try $0.list("default").apply(.updateRow(.at(0, 2), title: "a3 renamed")) },
            after: ["#1 A: #1 a1, #2 a2, #3 a3 renamed", "#2 B: #4 b1=v", "#3 C:"],
            done: changes { $0.updatedRows = [path(0, 2)] },
            undone: changes { $0.updatedRows = [path(0, 2)] }),
        Case(
            description: "row update of a value",
            edit: { try $0.list("default").apply(.updateRow(.id(4), value: .set("w"))) },
            after: ["#1 A: #1 a1, #2 a2, #3 a3", "#2 B: #4 b1=w", "#3 C:"],
            done: changes { $0.updatedRows = [path(1, 0)] },
            undone: changes { $0.updatedRows = [path(1, 0)] }),
        Case(
            description: "row move within a section",
            edit: { try $0.list("default").apply(.moveRow(.at(0, 0), to: .at(0, 2))) },
            after: ["#1 A: #2 a2, #3 a3, #1 a1", "#2 B: #4 b1=v", "#3 C:"],
            done: changes { $0.movedRows = rowMoves((path(0, 0), path(0, 2))) },
            undone: changes { $0.movedRows = rowMoves((path(0, 2), path(0, 0))) }),
        Case(
            description: "row move across sections",
            edit: { try $0.list("default").apply(.moveRow(.at(0, 1), to: .at(1, 0))) },
            after: ["#1 A: #1 a1, #3 a3", "#2 B: #2 a2, #4 b1=v", "#3 C:"],
            done: changes { $0.movedRows = rowMoves((path(0, 1), path(1, 0))) },
            undone: changes { $0.movedRows = rowMoves((path(1, 0), path(0, 1))) }),
        Case(
            description: "section add",
            edit: { try $0.list("default").apply(.addSection(title: "D", at: 1)) },
            after: ["#1 A: #1 a1, #2 a2, #3 a3", "#4 D:", "#2 B: #4 b1=v", "#3 C:"],
            done: changes { $0.insertedSections = [1] },
            undone: changes { $0.deletedSections = [1] }),
        Case(
            description: "section delete, with its rows",
            edit: { try $0.list("default").apply(.deleteSection(.index(0), force: true)) },
            after: ["#2 B: #4 b1=v", "#3 C:"],
            done: changes { $0.deletedSections = [0] },
            undone: changes { $0.insertedSections = [0] }),
        Case(
            description: "section rename",
            edit: { try $0.list("default").apply(.renameSection(.title("B"), title: "B renamed")) },
            after: ["#1 A: #1 a1, #2 a2, #3 a3", "#2 B renamed: #4 b1=v", "#3 C:"],
            done: changes { $0.updatedSections = [1] },
            undone: changes { $0.updatedSections = [1] }),
        Case(
            description: "section move",
            edit: { try $0.list("default").apply(.moveSection(.index(0), to: 2)) },
            after: ["#2 B: #4 b1=v", "#3 C:", "#1 A: #1 a1, #2 a2, #3 a3"],
            done: changes { $0.movedSections = [.init(from: 0, to: 2)] },
            undone: changes { $0.movedSections = [.init(from: 2, to: 0)] }),
        Case(
            description: "a saved edit session of mixed edits",
            edit: { store in
                let session = try store.list("default").beginEditing()
                try session.apply(.addRow(.topic("new"), to: .at(2, 0)))  // into the empty section
                try session.apply(.moveRow(.at(0, 0), to: .init(section: .index(1), index: .end)))  // a1 to B
                try session.apply(.renameSection(.index(0), title: "A renamed"))
                try session.apply(.deleteRow(.at(0, 1)))  // a3
                try session.apply(.addSection(title: "E"))
                return try session.save()
            },
            after: ["#1 A renamed: #2 a2", "#2 B: #4 b1=v, #1 a1", "#3 C: #5 new", "#4 E:"],
            done: changes {
                $0.insertedSections = [3]
                $0.updatedSections = [0]
                $0.deletedRows = [path(0, 2)]
                $0.insertedRows = [path(2, 0)]
                $0.movedRows = rowMoves((path(0, 0), path(1, 1)))
                $0.changedFooters = [2]
            },
            undone: changes {
                $0.deletedSections = [3]
                $0.updatedSections = [0]
                $0.deletedRows = [path(2, 0)]
                $0.insertedRows = [path(0, 2)]
                $0.movedRows = rowMoves((path(1, 1), path(0, 0)))
                $0.changedFooters = [2]
            }),
    ]

    @Test(arguments: Backend.all, cases)
    func undoAndRedoGiveTheExactStatesBack(backend: Backend, kind: Case) throws {
        let list = try KnownList(backend)
        let store = list.store
        let start = try store.list("default").snapshot()
        let change = try kind.edit(store)
        #expect(change.version == start.version.next, "\(backend), \(kind)")
        #expect(change.changeset.withoutIDs == kind.done, "\(backend), \(kind): the edit's changeset")
        #expect(try list.layout() == kind.after, "\(backend), \(kind): after the edit")
        let edited = try store.list("default").snapshot()

        let undone = try store.list("default").undo()
        #expect(undone.version == change.version.next, "\(backend), \(kind): an undo is a new version")
        #expect(undone.changeset.withoutIDs == kind.undone, "\(backend), \(kind): the undo's changeset")
        #expect(try list.layout() == KnownList.start, "\(backend), \(kind): after the undo, the list as it was, ids included")
        var back = try store.list("default").snapshot()
        try requireChangeset(undone.changeset, turns: edited, into: back, "\(backend), \(kind): the undo's changeset")
        try requireIDs(change.changeset, turn: start, into: edited, "\(backend), \(kind): the edit's ids")
        try requireIDs(undone.changeset, turn: edited, into: back, "\(backend), \(kind): the undo's ids")
        back.version = start.version
        #expect(back == start, "\(backend), \(kind): everything as it was, empty texts and kinds included")

        let redone = try store.list("default").redo()
        #expect(redone.version == undone.version.next, "\(backend), \(kind)")
        #expect(redone.changeset == change.changeset, "\(backend), \(kind): the redo's changeset is the edit's, ids included")
        #expect(try list.layout() == kind.after, "\(backend), \(kind): after the redo, as after the edit, ids included")
        #expect(try store.check() == [], "\(backend), \(kind)")
        #expect(throws: RepositoryError.nothingToRedo(list: "default")) { try store.list("default").redo() }
        // And once more back: the redo is a step of its own.
        try store.list("default").undo()
        #expect(try list.layout() == KnownList.start, "\(backend), \(kind): the redo undone")
    }
}

/// Each kind of destination for a row moved or added: where it lands, exactly, and the changeset.
@Suite("Row destinations")
struct RowDestinationTests {
    struct Case: CustomStringConvertible, Sendable {
        var description: String
        var destination: RowDestination
        /// For a move: the id of the row moved.
        var moving: RowID
        /// The row's place after the move, and the list then.
        var movedTo: RowPath
        var afterMove: [String]
        var moveChanges: Changeset
        /// The same destination for a new row ("new", #5): its place and the list then.
        var addedAt: RowPath
        var afterAdd: [String]
        var addChanges: Changeset
    }

    static let cases: [Case] = [
        Case(
            description: "an index", destination: .at(0, 1), moving: 3,
            movedTo: path(0, 1), afterMove: ["#1 A: #1 a1, #3 a3, #2 a2", "#2 B: #4 b1=v", "#3 C:"],
            moveChanges: changes { $0.movedRows = rowMoves((path(0, 2), path(0, 1))) },
            addedAt: path(0, 1), afterAdd: ["#1 A: #1 a1, #5 new, #2 a2, #3 a3", "#2 B: #4 b1=v", "#3 C:"],
            addChanges: changes { $0.insertedRows = [path(0, 1)] }),
        Case(
            description: "an index in another section", destination: .at(1, 0), moving: 1,
            movedTo: path(1, 0), afterMove: ["#1 A: #2 a2, #3 a3", "#2 B: #1 a1, #4 b1=v", "#3 C:"],
            moveChanges: changes { $0.movedRows = rowMoves((path(0, 0), path(1, 0))) },
            addedAt: path(1, 0), afterAdd: ["#1 A: #1 a1, #2 a2, #3 a3", "#2 B: #5 new, #4 b1=v", "#3 C:"],
            addChanges: changes { $0.insertedRows = [path(1, 0)] }),
        Case(
            description: "the end", destination: .init(section: .index(1), index: .end), moving: 1,
            movedTo: path(1, 1), afterMove: ["#1 A: #2 a2, #3 a3", "#2 B: #4 b1=v, #1 a1", "#3 C:"],
            moveChanges: changes { $0.movedRows = rowMoves((path(0, 0), path(1, 1))) },
            addedAt: path(1, 1), afterAdd: ["#1 A: #1 a1, #2 a2, #3 a3", "#2 B: #4 b1=v, #5 new", "#3 C:"],
            addChanges: changes { $0.insertedRows = [path(1, 1)] }),
        Case(
            description: "an index equal to the count", destination: .at(1, 1), moving: 2,
            movedTo: path(1, 1), afterMove: ["#1 A: #1 a1, #3 a3", "#2 B: #4 b1=v, #2 a2", "#3 C:"],
            moveChanges: changes { $0.movedRows = rowMoves((path(0, 1), path(1, 1))) },
            addedAt: path(1, 1), afterAdd: ["#1 A: #1 a1, #2 a2, #3 a3", "#2 B: #4 b1=v, #5 new", "#3 C:"],
            addChanges: changes { $0.insertedRows = [path(1, 1)] }),
        Case(
            description: "after a row", destination: .after(1), moving: 3,
            movedTo: path(0, 1), afterMove: ["#1 A: #1 a1, #3 a3, #2 a2", "#2 B: #4 b1=v", "#3 C:"],
            moveChanges: changes { $0.movedRows = rowMoves((path(0, 2), path(0, 1))) },
            addedAt: path(0, 1), afterAdd: ["#1 A: #1 a1, #5 new, #2 a2, #3 a3", "#2 B: #4 b1=v", "#3 C:"],
            addChanges: changes { $0.insertedRows = [path(0, 1)] }),
        Case(
            description: "after a row of another section, its last", destination: .after(4), moving: 1,
            movedTo: path(1, 1), afterMove: ["#1 A: #2 a2, #3 a3", "#2 B: #4 b1=v, #1 a1", "#3 C:"],
            moveChanges: changes { $0.movedRows = rowMoves((path(0, 0), path(1, 1))) },
            addedAt: path(1, 1), afterAdd: ["#1 A: #1 a1, #2 a2, #3 a3", "#2 B: #4 b1=v, #5 new", "#3 C:"],
            addChanges: changes { $0.insertedRows = [path(1, 1)] }),
        Case(
            description: "before a row", destination: .before(1), moving: 3,
            movedTo: path(0, 0), afterMove: ["#1 A: #3 a3, #1 a1, #2 a2", "#2 B: #4 b1=v", "#3 C:"],
            moveChanges: changes { $0.movedRows = rowMoves((path(0, 2), path(0, 0))) },
            addedAt: path(0, 0), afterAdd: ["#1 A: #5 new, #1 a1, #2 a2, #3 a3", "#2 B: #4 b1=v", "#3 C:"],
            addChanges: changes { $0.insertedRows = [path(0, 0)] }),
        Case(
            description: "before a row of another section, emptying the moved row's", destination: .before(2), moving: 4,
            movedTo: path(0, 1), afterMove: ["#1 A: #1 a1, #4 b1=v, #2 a2, #3 a3", "#2 B:", "#3 C:"],
            moveChanges: changes {
                $0.movedRows = rowMoves((path(1, 0), path(0, 1)))
                $0.changedFooters = [1]
            },
            addedAt: path(0, 1), afterAdd: ["#1 A: #1 a1, #5 new, #2 a2, #3 a3", "#2 B: #4 b1=v", "#3 C:"],
            addChanges: changes { $0.insertedRows = [path(0, 1)] }),
        Case(
            description: "into an empty section", destination: .at(2, 0), moving: 2,
            movedTo: path(2, 0), afterMove: ["#1 A: #1 a1, #3 a3", "#2 B: #4 b1=v", "#3 C: #2 a2"],
            moveChanges: changes {
                $0.movedRows = rowMoves((path(0, 1), path(2, 0)))
                $0.changedFooters = [2]
            },
            addedAt: path(2, 0), afterAdd: ["#1 A: #1 a1, #2 a2, #3 a3", "#2 B: #4 b1=v", "#3 C: #5 new"],
            addChanges: changes {
                $0.insertedRows = [path(2, 0)]
                $0.changedFooters = [2]
            }),
        Case(
            description: "the end of an empty section", destination: .init(section: .title("C"), index: .end), moving: 2,
            movedTo: path(2, 0), afterMove: ["#1 A: #1 a1, #3 a3", "#2 B: #4 b1=v", "#3 C: #2 a2"],
            moveChanges: changes {
                $0.movedRows = rowMoves((path(0, 1), path(2, 0)))
                $0.changedFooters = [2]
            },
            addedAt: path(2, 0), afterAdd: ["#1 A: #1 a1, #2 a2, #3 a3", "#2 B: #4 b1=v", "#3 C: #5 new"],
            addChanges: changes {
                $0.insertedRows = [path(2, 0)]
                $0.changedFooters = [2]
            }),
    ]

    @Test(arguments: Backend.all, cases)
    func aMovedRowLandsExactlyThere(backend: Backend, kind: Case) throws {
        let list = try KnownList(backend)
        let id = kind.moving
        let change = try list.store.list("default").apply(.moveRow(.id(id), to: kind.destination))
        #expect(change.changeset.withoutIDs == kind.moveChanges, "\(backend), \(kind)")
        #expect(change.changeset.movedRowIDs == [id], "\(backend), \(kind)")
        #expect(try list.store.list("default").path(ofRow: id) == kind.movedTo, "\(backend), \(kind)")
        #expect(try list.layout() == kind.afterMove, "\(backend), \(kind)")
        #expect(try list.store.check() == [], "\(backend), \(kind)")
    }

    @Test(arguments: Backend.all, cases)
    func anAddedRowLandsExactlyThere(backend: Backend, kind: Case) throws {
        let list = try KnownList(backend)
        let change = try list.store.list("default").apply(.addRow(.text("new"), to: kind.destination))
        #expect(change.createdID == .row(5), "\(backend), \(kind)")
        #expect(change.changeset.withoutIDs == kind.addChanges, "\(backend), \(kind)")
        #expect(change.changeset.insertedRowIDs == [5], "\(backend), \(kind)")
        #expect(try list.store.list("default").path(ofRow: 5) == kind.addedAt, "\(backend), \(kind)")
        #expect(try list.layout() == kind.afterAdd, "\(backend), \(kind)")
    }
}
