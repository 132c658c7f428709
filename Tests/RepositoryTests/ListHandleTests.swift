import Foundation
import TestSupport
import Testing

@testable import Repository

/// A `ListHandle` names its list once and carries every per-list operation; nothing it does
/// touches another list.
@Suite("List handles")
struct ListHandleTests {
    @Test(arguments: Backend.all) func everyOperationActsOnTheHandlesListAlone(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.apply(.addSection(title: "Default's"))
        let defaultBefore = try store.snapshot()
        try store.createList(named: "work")
        let work = store.list("work")

        try work.apply(.addSection(title: "To do"))
        try work.apply(.addSection(title: "Done"))
        for title in ["a", "b", "c"] { try work.apply(.addRow(.text(title), to: .init(section: .index(0), index: .end))) }
        try work.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        #expect(try work.snapshot().sections.map { $0.rows.map(\.title) } == [["b", "c"], ["a"]])
        let moved = try work.row(at: RowPath(section: 1, row: 0))
        #expect(moved.row.title == "a")
        #expect(try work.row(.id(moved.row.id)) == moved)
        #expect(try work.path(ofRow: moved.row.id) == RowPath(section: 1, row: 0))
        #expect(try work.rowCount(of: .index(0)) == 2)
        #expect(try work.window(from: RowPath(section: 0, row: 1), limit: 2).located.map(\.row.title) == ["c", "a"])
        #expect(try work.window(startingAt: .id(moved.row.id), limit: 5).located.map(\.row.title) == ["a"])
        #expect(try work.outline().sections.map(\.rowCount) == [2, 1])
        #expect(try work.header().version == 6)
        #expect(try work.changes(since: 5).changeset?.movedRows.count == 1)

        try work.undo()
        #expect(try work.snapshot().sections.map { $0.rows.map(\.title) } == [["a", "b", "c"], []])
        try work.redo()
        let session = try work.beginEditing()
        try session.apply(.deleteRow(.at(0, 0)))
        #expect(try session.save().list == "work")
        #expect(try work.snapshot().sections[0].rows.map(\.title) == ["c"])

        #expect(try store.snapshot() == defaultBefore, "the default list was never touched")
        let (renamed, later) = try work.rename(to: "later")
        #expect(renamed.list == "later" && later.name == "later")
        #expect(throws: RepositoryError.self) { try work.outline() }
        try later.delete(force: true)
        #expect(try store.lists().map(\.name) == ["default"])
    }

    @Test func aHandleOnAMissingListIsRefusedByItsFirstCall() throws {
        let fixture = try StoreFixture()
        let missing = fixture.store.list("nope")
        #expect(throws: RepositoryError.listNotFound("nope", available: ["default"])) { try missing.apply(.addSection(title: "A")) }
        #expect(throws: RepositoryError.listNotFound("nope", available: ["default"])) { try missing.outline() }
        #expect(fixture.store.list("a") == fixture.store.list("a"))
        #expect(fixture.store.list("a") != fixture.store.list("b"))
    }

    @Test(arguments: Backend.all) func theAsyncFormsAndTheFeedGoThroughTheHandle(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.createList(named: "work")
        let work = store.list("work")
        var updates = work.updates().makeAsyncIterator()
        let change = try await work.apply(.addSection(title: "A"))
        let update = try #require(try await updates.next())
        #expect(update.list == "work" && update.version == change.version && update.changeset?.insertedSections == [0])
        try await work.apply(.addRow(.text("x"), to: .init(section: .index(0), index: .end)))
        #expect(try await work.row(at: RowPath(section: 0, row: 0)).row.title == "x")
        #expect(try await work.outline().rowCount == 1)
        #expect(try await work.snapshot().sections.count == 1)
        #expect(try await work.window(from: RowPath(section: 0, row: 0), limit: 1).located.count == 1)
        try await work.undo()
        #expect(try await work.rowCount(of: .index(0)) == 0)
        try await work.redo()
        #expect(try await work.changes(since: 0).changeset != nil)
        #expect(try await store.snapshot().sections.isEmpty, "the default list was never touched")
    }
}
