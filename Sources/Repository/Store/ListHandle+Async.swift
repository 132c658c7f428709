/// A list's edits and reads in `async` form (`list.async`): each runs the blocking call of the
/// same name on a thread outside Swift's cooperative pool (`SectionStore.perform(_:)`), so an
/// `async` caller — the main actor, say — never blocks, and cancelling the calling task cancels
/// a long write (it throws `CancellationError` and writes nothing).
///
/// ```swift
/// let list = store.list("default")
/// try await list.async.apply(.addSection(title: "To do"))
/// let outline = try await list.async.outline()
/// let now = try list.snapshot()  // the blocking read, in async code too
/// ```
///
/// The async forms sit on a handle of their own rather than beside the blocking ones under the
/// same names: Swift picks an `async` overload inside every `async` function, so with both on
/// `ListHandle` the blocking `try list.snapshot()` would not compile there ("call is 'async'
/// but is not marked with 'await'").
public struct AsyncListHandle: Sendable, Hashable {
    /// The list whose calls these are.
    public let list: ListHandle

    /// The async forms of `list`'s calls (`list.async`).
    public init(_ list: ListHandle) { self.list = list }

    /// `ListHandle.apply(_:)`; a cancelled task's edit writes nothing.
    @discardableResult
    public func apply(_ edit: Edit) async throws -> Change { try await perform { try $0.apply(edit) } }

    /// `ListHandle.undo()`.
    @discardableResult
    public func undo() async throws -> Change { try await perform { try $0.undo() } }

    /// `ListHandle.redo()`.
    @discardableResult
    public func redo() async throws -> Change { try await perform { try $0.redo() } }

    /// `ListHandle.header(editing:atVersion:)`.
    public func header(editing: Bool = false, atVersion expected: ListVersion? = nil) async throws -> ListHeader {
        try await perform { try $0.header(editing: editing, atVersion: expected) }
    }

    /// `ListHandle.outline(editing:atVersion:)`.
    public func outline(editing: Bool = false, atVersion expected: ListVersion? = nil) async throws -> ListOutline {
        try await perform { try $0.outline(editing: editing, atVersion: expected) }
    }

    /// `ListHandle.outline(from:limit:editing:atVersion:)`.
    public func outline(from first: Int, limit: Int, editing: Bool = false, atVersion expected: ListVersion? = nil) async throws -> OutlineWindow {
        try await perform { try $0.outline(from: first, limit: limit, editing: editing, atVersion: expected) }
    }

    /// `ListHandle.snapshot(editing:atVersion:)`.
    public func snapshot(editing: Bool = false, atVersion expected: ListVersion? = nil) async throws -> ListSnapshot {
        try await perform { try $0.snapshot(editing: editing, atVersion: expected) }
    }

    /// `ListHandle.row(at:atVersion:)`: what `cellForRowAt` reads.
    public func row(at path: RowPath, atVersion expected: ListVersion? = nil) async throws -> LocatedRow {
        try await perform { try $0.row(at: path, atVersion: expected) }
    }

    /// `ListHandle.row(_:atVersion:)`.
    public func row(_ ref: RowRef, atVersion expected: ListVersion? = nil) async throws -> LocatedRow {
        try await perform { try $0.row(ref, atVersion: expected) }
    }

    /// `ListHandle.path(ofRow:atVersion:)`.
    public func path(ofRow id: RowID, atVersion expected: ListVersion? = nil) async throws -> RowPath {
        try await perform { try $0.path(ofRow: id, atVersion: expected) }
    }

    /// `ListHandle.versionedPath(ofRow:atVersion:)`.
    public func versionedPath(ofRow id: RowID, atVersion expected: ListVersion? = nil) async throws -> Versioned<RowPath> {
        try await perform { try $0.versionedPath(ofRow: id, atVersion: expected) }
    }

    /// `ListHandle.rowCount(of:atVersion:)`.
    public func rowCount(of section: SectionRef, atVersion expected: ListVersion? = nil) async throws -> Int {
        try await perform { try $0.rowCount(of: section, atVersion: expected) }
    }

    /// `ListHandle.versionedRowCount(of:atVersion:)`.
    public func versionedRowCount(of section: SectionRef, atVersion expected: ListVersion? = nil) async throws -> Versioned<Int> {
        try await perform { try $0.versionedRowCount(of: section, atVersion: expected) }
    }

    /// `ListHandle.window(from:limit:editing:atVersion:)`.
    public func window(from start: RowPath, limit: Int, editing: Bool = false, atVersion expected: ListVersion? = nil) async throws -> ListWindow {
        try await perform { try $0.window(from: start, limit: limit, editing: editing, atVersion: expected) }
    }

    /// `ListHandle.window(startingAt:limit:editing:atVersion:)`.
    public func window(
        startingAt start: RowRef, limit: Int, editing: Bool = false, atVersion expected: ListVersion? = nil
    ) async throws -> ListWindow {
        try await perform { try $0.window(startingAt: start, limit: limit, editing: editing, atVersion: expected) }
    }

    /// `ListHandle.changes(since:)`.
    public func changes(since version: ListVersion) async throws -> ListChanges { try await perform { try $0.changes(since: version) } }

    /// Runs `work` on the list off the cooperative pool, as `SectionStore.perform(_:)` runs work
    /// on the store: cancelling the task cancels a long write inside it.
    private func perform<T: Sendable>(_ work: @escaping @Sendable (ListHandle) throws -> T) async throws -> T {
        let list = self.list
        return try await list.store.perform { _ in try work(list) }
    }
}

extension ListHandle {
    /// This list's edits and reads in `async` form, off the cooperative pool:
    /// `try await list.async.snapshot()`. The blocking forms keep their names on the handle
    /// itself, so both can be called from `async` code.
    public var async: AsyncListHandle { AsyncListHandle(self) }
}
