import Foundation
import TestSupport
import Testing

@testable import Repository

/// A `ListHandle` names its list once and carries every per-list operation; nothing it does
/// touches another list.
// A guard against a hang only (a feed that never delivers): async tests wait for the
// cooperative pool while synchronous ones hold it, for many minutes on a loaded machine.
@Suite("List handles", .timeLimit(.minutes(60)))
struct ListHandleTests {
    @Test(arguments: Backend.all) func everyOperationActsOnTheHandlesListAlone(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "Default's"))
        let defaultBefore = try store.list("default").snapshot()
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

        #expect(try store.list("default").snapshot() == defaultBefore, "the default list was never touched")
        let (renamed, later) = try work.rename(to: "later")
        #expect(renamed.list == "later" && later.name == "later")
        #expect(throws: RepositoryError.self) { try work.outline() }
        try later.delete(force: true)
        #expect(try store.lists().map(\.name) == ["default"])
    }

    @Test(arguments: Backend.all) func aHandleReadsAtTheVersionItIsGiven(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.store.createList(named: "work")
        let work = fixture.store.list("work")
        try work.apply(.addSection(title: "A"))
        let row = try #require(try work.apply(.addRow(.text("a"), to: .at(0, 0))).createdID?.rowID)
        let shown = try work.outline()
        #expect(shown.version == 2)

        // At the version shown, every read answers, and says the version it read.
        #expect(try work.header(atVersion: 2).rowCount == 1)
        #expect(try work.outline(atVersion: 2) == shown)
        #expect(try work.snapshot(atVersion: 2).sections.map(\.title) == ["A"])
        #expect(try work.row(at: RowPath(section: 0, row: 0), atVersion: 2).row.id == row)
        #expect(try work.row(.id(row), atVersion: 2).version == 2)
        #expect(try work.path(ofRow: row, atVersion: 2) == RowPath(section: 0, row: 0))
        #expect(try work.versionedPath(ofRow: row) == Versioned(RowPath(section: 0, row: 0), version: 2))
        #expect(try work.rowCount(of: .index(0), atVersion: 2) == 1)
        #expect(try work.versionedRowCount(of: .index(0)) == Versioned(1, version: 2))
        #expect(try work.window(from: RowPath(section: 0, row: 0), limit: 1, atVersion: 2).version == 2)
        #expect(try work.window(startingAt: .id(row), limit: 1, atVersion: 2).rowCount == 1)
        var items: [String] = []
        try work.forEachItem(start: { items.append("v\($0.version)") }) { item in
            switch item {
            case .section(let section): items.append(section.title)
            case .row(let row, _): items.append(row.title)
            }
        }
        #expect(items == ["v2", "A", "a"])

        // Another writer moves the list on: each read at the version shown refuses, naming it.
        try fixture.reopen().list("work").apply(.addSection(title: "B"))
        let movedOn = RepositoryError.listMovedOn(list: "work", expected: 2, current: 3)
        #expect(throws: movedOn) { try work.header(atVersion: 2) }
        #expect(throws: movedOn) { try work.outline(atVersion: 2) }
        #expect(throws: movedOn) { try work.snapshot(atVersion: 2) }
        #expect(throws: movedOn) { try work.row(at: RowPath(section: 0, row: 0), atVersion: 2) }
        #expect(throws: movedOn) { try work.path(ofRow: row, atVersion: 2) }
        #expect(throws: movedOn) { try work.rowCount(of: .index(0), atVersion: 2) }
        #expect(throws: movedOn) { try work.window(startingAt: .id(row), limit: 1, atVersion: 2) }
        // The default list was never touched.
        #expect(try fixture.list.outline().sections.isEmpty)
    }

    @Test(arguments: Backend.all) func aHandlesAsyncReadsTakeTheVersionToo(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        try await list.async.apply(.addSection(title: "A"))
        let row = try #require(try await list.async.apply(.addRow(.text("a"), to: .at(0, 0))).createdID?.rowID)
        #expect(try await list.async.header(atVersion: 2).version == 2)
        #expect(try await list.async.window(startingAt: .id(row), limit: 1, atVersion: 2).rowCount == 1)
        #expect(try await list.async.versionedRowCount(of: .index(0), atVersion: 2) == Versioned(1, version: 2))
        #expect(try await list.async.versionedPath(ofRow: row, atVersion: 2) == Versioned(RowPath(section: 0, row: 0), version: 2))
        try await fixture.reopen().list(SectionStore.defaultList).async.apply(.addSection(title: "B"))
        let movedOn = RepositoryError.listMovedOn(list: "default", expected: 2, current: 3)
        await #expect(throws: movedOn) { try await list.async.row(at: RowPath(section: 0, row: 0), atVersion: 2) }
        await #expect(throws: movedOn) { try await list.async.snapshot(atVersion: 2) }
        await #expect(throws: movedOn) { try await list.async.header(atVersion: 2) }
        await #expect(throws: movedOn) { try await list.async.outline(atVersion: 2) }
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
        let change = try await work.async.apply(.addSection(title: "A"))
        let update = try #require(try await updates.next())
        #expect(update.list == "work" && update.version == change.version && update.changeset?.insertedSections == [0])
        try await work.async.apply(.addRow(.text("x"), to: .init(section: .index(0), index: .end)))
        #expect(try await work.async.row(at: RowPath(section: 0, row: 0)).row.title == "x")
        #expect(try await work.async.outline().rowCount == 1)
        #expect(try await work.async.snapshot().sections.count == 1)
        #expect(try await work.async.window(from: RowPath(section: 0, row: 0), limit: 1).located.count == 1)
        try await work.async.undo()
        #expect(try await work.async.rowCount(of: .index(0)) == 0)
        try await work.async.redo()
        #expect(try await work.async.changes(since: 0).changeset != nil)
        #expect(try await store.list("default").async.snapshot().sections.isEmpty, "the default list was never touched")
    }
}
