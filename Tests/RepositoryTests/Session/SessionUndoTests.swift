import Foundation
import TestSupport
import Testing

@testable import Repository

/// `EditSession.undoLastEdit` against a plain model: a stack of the drafts before each edit. An
/// undo gives back exactly the draft before the edit it takes back (ids included), its changeset
/// turns the draft before the undo into the draft after, and the pending changes still turn the
/// session's start into the draft; what is finally saved is the draft.
@Suite("Edit session undo")
struct SessionUndoTests {
    @Test("random edits and undos in a session match a stack of drafts", arguments: Backend.all, propertySeeds([61, 62, 63]))
    func undoLastEditMatchesTheModel(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: seed)
        for step in 0..<20 {
            try store.list("default").apply(randomEdit(try store.list("default").outline(), step: step, using: &generator))
        }
        let start = try store.list("default").snapshot(editing: true)
        let session = try store.list("default").beginEditing()
        var drafts: [ListSnapshot] = []
        for step in 0..<150 {
            let before = try session.snapshot()
            if Int.random(in: 0..<4, using: &generator) == 0 {
                guard let expected = drafts.popLast() else {
                    #expect(throws: RepositoryError.nothingToUndo(list: "default")) { try session.undoLastEdit() }
                    #expect(try session.snapshot() == before, "seed \(seed), step \(step): a refused undo changes nothing")
                    continue
                }
                let change = try session.undoLastEdit()
                let after = try session.snapshot()
                #expect(
                    after.sections == expected.sections && after.draftOf == expected.draftOf,
                    "seed \(seed), step \(step): undo gives back the draft before the edit")
                #expect(
                    after.version.isDraft && (after.version < before.version || change.changeset.isEmpty),
                    "seed \(seed), step \(step): under a draft version of its own")
                try requireChangeset(change.changeset, turns: before, into: after, "seed \(seed), step \(step): the undo's changeset")
            } else {
                let edit = try randomEdit(session.outline, step: step, using: &generator)
                guard (try? session.apply(edit)) != nil else {
                    #expect(try session.snapshot() == before, "seed \(seed), step \(step): a failing edit changes nothing")
                    continue
                }
                drafts.append(before)
            }
            #expect(session.editCount == drafts.count, "seed \(seed), step \(step)")
            try requireChangeset(
                session.pendingChanges, turns: start, into: try session.snapshot(), "seed \(seed), step \(step): pending changes")
        }
        let draft = try session.snapshot()
        try session.save()
        let saved = try store.list("default").snapshot(editing: true)
        #expect(
            saved.sections.map { [$0.title] + $0.rows.map(\.title) } == draft.sections.map { [$0.title] + $0.rows.map(\.title) },
            "seed \(seed): what is saved is the draft")
        #expect(try store.check() == [], "seed \(seed)")
    }

    @Test(arguments: Backend.all) func undoingEveryEditLeavesNothingToSave(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "To do"))
        try store.list("default").apply(.addSection(title: "Done"))
        for title in ["a", "b", "c"] {
            try store.list("default").apply(.addRow(.text(title), to: .init(section: .index(0), index: .end)))
        }
        let before = try store.list("default").snapshot()
        let session = try store.list("default").beginEditing()
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        let added = try #require(try session.apply(.addRow(.text("new"), to: .at(0, 0))).createdID?.rowID)
        try session.undoLastEdit()
        // The draft id of what was undone is given out again.
        #expect(try session.apply(.addRow(.text("again"), to: .at(0, 0))).createdID?.rowID == added)
        try session.undoLastEdit()
        try session.undoLastEdit()
        #expect(session.pendingChanges.isEmpty)
        #expect(throws: RepositoryError.nothingToUndo(list: "default")) { try session.undoLastEdit() }
        try session.save()
        #expect(try store.list("default").snapshot() == before, "nothing was written")
        #expect(throws: RepositoryError.sessionClosed) { try session.undoLastEdit() }
    }
}
