import Foundation
import TestSupport
import Testing

@testable import Repository

/// The `async` forms of the store's calls give what the blocking ones give, run off the
/// cooperative pool, and a cancelled task's write writes nothing.
// A guard against a hang only (a feed that never delivers): async tests wait for the
// cooperative pool while synchronous ones hold it, for many minutes on a loaded machine.
@Suite("Async calls", .timeLimit(.minutes(60)))
struct AsyncTests {
    @Test(arguments: Backend.all) func asyncCallsGiveWhatBlockingCallsGive(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let first = try await store.list("default").async.apply(.addSection(title: "A"))
        #expect(first.version == 1)
        for index in 0..<5 {
            try await store.list("default").async.apply(.addRow(.text("r\(index)"), to: .init(section: .index(0), index: .end)))
        }
        let moved = try await store.list("default").async.apply(.moveRow(.at(0, 0), to: .at(0, 4)))
        #expect(moved.changeset.movedRows.count == 1)
        let path = RowPath(section: 0, row: 2)
        let blocking = try Self.blockingReads(store, at: path)
        let id = blocking.row.row.id
        #expect(try await store.list("default").async.row(at: path) == blocking.row)
        #expect(try await store.list("default").async.row(.id(id)) == blocking.row)
        #expect(try await store.list("default").async.path(ofRow: id) == path)
        #expect(try await store.list("default").async.rowCount(of: .index(0)) == 5)
        #expect(try await store.list("default").async.outline() == blocking.outline)
        #expect(try await store.list("default").async.snapshot() == blocking.snapshot)
        #expect(try await store.list("default").async.window(from: path, limit: 2) == blocking.window)
        #expect(try await store.list("default").async.changes(since: 1) == blocking.changes)
        let undone = try await store.list("default").async.undo()
        #expect(try await store.list("default").async.snapshot().sections[0].rows.map(\.title) == ["r0", "r1", "r2", "r3", "r4"])
        let redone = try await store.list("default").async.redo()
        #expect(redone.version == undone.version.next)
        #expect(try await store.list("default").async.snapshot().sections[0].rows.map(\.title) == blocking.snapshot.sections[0].rows.map(\.title))
        await #expect(throws: RepositoryError.self) { try await store.list("default").async.row(at: RowPath(section: 3, row: 0)) }
    }

    /// Inside an `async` function the blocking calls keep their names and compile without
    /// `await` (this test would not build if an async overload shadowed them), and the async
    /// forms, under `list.async`, give the same.
    @Test func blockingCallsCompileInAsyncCode() async throws {
        let fixture = try StoreFixture()
        let list = fixture.store.list("default")
        let change: Change = try list.apply(.addSection(title: "A"))
        let blocking: ListSnapshot = try list.snapshot()
        let outline: ListOutline = try list.outline()
        #expect(blocking.version == change.version && outline.version == change.version)
        #expect(try await list.async.snapshot() == blocking)
        #expect(try await list.async.outline() == outline)
        #expect(list.async.list == list && list.async == AsyncListHandle(list))
    }

    /// A write made inside a task that is already cancelled rolls back: the blocking form sees
    /// the task's cancellation, the async form the flag its task's cancellation set.
    @Test(arguments: Backend.all) func aCancelledTasksWriteWritesNothing(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try await store.list("default").async.apply(.addSection(title: "A"))
        let gate = AsyncStream<Void>.makeStream()
        let writing = Task {
            var opened = gate.stream.makeAsyncIterator()
            await opened.next()  // runs once it is cancelled
            #expect(Task.isCancelled)
            #expect(throws: CancellationError.self) { try store.list("default").apply(.addSection(title: "B")) }
            await #expect(throws: CancellationError.self) { try await store.list("default").async.apply(.addSection(title: "C")) }
            // A session's save too: its edits stay in the draft, unwritten.
            let session = try store.list("default").beginEditing()
            try session.apply(.addRow(.text("drafted"), to: .init(section: .index(0), index: .end)))
            #expect(throws: CancellationError.self) { try session.save() }
            #expect(session.pendingChanges.insertedRows.count == 1)
        }
        writing.cancel()
        gate.continuation.yield()
        try await writing.value
        let after = try await store.list("default").async.snapshot()
        #expect(after.version == 1 && after.sections.map(\.title) == ["A"] && after.sections[0].rows.isEmpty)
    }

    /// The same reads through the blocking forms (a synchronous context picks them).
    static func blockingReads(_ store: SectionStore, at path: RowPath) throws
        -> (row: LocatedRow, outline: ListOutline, snapshot: ListSnapshot, window: ListWindow, changes: ListChanges)
    {
        (
            try store.list("default").row(at: path), try store.list("default").outline(), try store.list("default").snapshot(),
            try store.list("default").window(from: path, limit: 2), try store.list("default").changes(since: 1)
        )
    }
}
