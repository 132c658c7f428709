/// One list of a store, as a value that carries every per-list operation: edits, reads,
/// windows, sessions, the change feed, the journal and undo. It names its list once, so no call
/// can reach another list by a forgotten argument: a handle is the only way to a list's
/// operations, for an app and for sectionctl's own command line alike. What concerns the store
/// as a whole (creating and listing lists, check, repair, vacuum) stays on `SectionStore`.
///
/// ```swift
/// try store.createList(named: "work")
/// let work = store.list("work")
/// try await work.apply(.addSection(title: "To do"))
/// try await work.apply(.addRow(.text("Buy milk"), to: .at(0, 0)))
/// let cell = try await work.row(at: RowPath(section: 0, row: 0))  // cell.row.title == "Buy milk"
/// let feed = work.updates()  // the versions committed from now on, as they happen
/// ```
///
/// A handle is a name and a store: making one reads nothing, and a list that does not exist is
/// refused by the first call (`RepositoryError.listNotFound`). After `rename(to:)`, use the
/// handle it returns.
public struct ListHandle: Sendable, Hashable {
    /// The store the list is in.
    public let store: SectionStore
    /// The list's name.
    public let name: String

    /// A handle on the list `name` of `store` (`store.list(name)`).
    public init(store: SectionStore, name: String) {
        self.store = store
        self.name = name
    }

    public static func == (lhs: ListHandle, rhs: ListHandle) -> Bool {
        lhs.store === rhs.store && lhs.name == rhs.name
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(ObjectIdentifier(store))
        hasher.combine(name)
    }

    /// Renames the list; returns the handle under its new name (`SectionStore.renameList(_:to:)`).
    /// - Complexity: O(1).
    public func rename(to newName: String) throws -> (change: Change, list: ListHandle) {
        let change = try store.renameList(name, to: newName)
        return (change, ListHandle(store: store, name: newName))
    }

    /// Deletes the list (`SectionStore.deleteList(_:force:)`): refused while it has sections
    /// unless `force`.
    /// - Complexity: O(n + s) in the list's rows and sections.
    @discardableResult
    public func delete(force: Bool = false) throws -> Change { try store.deleteList(name, force: force) }

    /// The section `ref` names, with its index and row count (`versionedSection(_:atVersion:)`
    /// also says the version read).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`;
    ///   `.sectionIndexOutOfRange`, `.sectionNotFound` or `.ambiguousSectionTitle` when it names
    ///   no one section.
    /// - Complexity: O(log s) in the list's sections (plus the sections with that title, for a
    ///   title).
    public func section(_ ref: SectionRef, atVersion expected: ListVersion? = nil) throws -> SectionInfo {
        try versionedSection(ref, atVersion: expected).value
    }

    // MARK: - Async forms (off the cooperative pool; see `SectionStore.perform(_:)`)

    /// `apply(_:)`, off the cooperative pool; a cancelled task's edit writes nothing.
    @discardableResult
    public func apply(_ edit: Edit) async throws -> Change { try await perform { try $0.apply(edit) } }

    /// `undo()`, off the cooperative pool.
    @discardableResult
    public func undo() async throws -> Change { try await perform { try $0.undo() } }

    /// `redo()`, off the cooperative pool.
    @discardableResult
    public func redo() async throws -> Change { try await perform { try $0.redo() } }

    /// `header(editing:atVersion:)`, off the cooperative pool.
    public func header(editing: Bool = false, atVersion expected: ListVersion? = nil) async throws -> ListHeader {
        try await perform { try $0.header(editing: editing, atVersion: expected) }
    }

    /// `outline(editing:atVersion:)`, off the cooperative pool.
    public func outline(editing: Bool = false, atVersion expected: ListVersion? = nil) async throws -> ListOutline {
        try await perform { try $0.outline(editing: editing, atVersion: expected) }
    }

    /// `outline(from:limit:editing:atVersion:)`, off the cooperative pool.
    public func outline(from first: Int, limit: Int, editing: Bool = false, atVersion expected: ListVersion? = nil) async throws -> OutlineWindow {
        try await perform { try $0.outline(from: first, limit: limit, editing: editing, atVersion: expected) }
    }

    /// `snapshot(editing:atVersion:)`, off the cooperative pool.
    public func snapshot(editing: Bool = false, atVersion expected: ListVersion? = nil) async throws -> ListSnapshot {
        try await perform { try $0.snapshot(editing: editing, atVersion: expected) }
    }

    /// `row(at:atVersion:)`, off the cooperative pool: what `cellForRowAt` reads.
    public func row(at path: RowPath, atVersion expected: ListVersion? = nil) async throws -> LocatedRow {
        try await perform { try $0.row(at: path, atVersion: expected) }
    }

    /// `row(_:atVersion:)`, off the cooperative pool.
    public func row(_ ref: RowRef, atVersion expected: ListVersion? = nil) async throws -> LocatedRow {
        try await perform { try $0.row(ref, atVersion: expected) }
    }

    /// `path(ofRow:atVersion:)`, off the cooperative pool.
    public func path(ofRow id: RowID, atVersion expected: ListVersion? = nil) async throws -> RowPath {
        try await perform { try $0.path(ofRow: id, atVersion: expected) }
    }

    /// `versionedPath(ofRow:atVersion:)`, off the cooperative pool.
    public func versionedPath(ofRow id: RowID, atVersion expected: ListVersion? = nil) async throws -> Versioned<RowPath> {
        try await perform { try $0.versionedPath(ofRow: id, atVersion: expected) }
    }

    /// `rowCount(of:atVersion:)`, off the cooperative pool.
    public func rowCount(of section: SectionRef, atVersion expected: ListVersion? = nil) async throws -> Int {
        try await perform { try $0.rowCount(of: section, atVersion: expected) }
    }

    /// `versionedRowCount(of:atVersion:)`, off the cooperative pool.
    public func versionedRowCount(of section: SectionRef, atVersion expected: ListVersion? = nil) async throws -> Versioned<Int> {
        try await perform { try $0.versionedRowCount(of: section, atVersion: expected) }
    }

    /// `window(from:limit:editing:atVersion:)`, off the cooperative pool.
    public func window(from start: RowPath, limit: Int, editing: Bool = false, atVersion expected: ListVersion? = nil) async throws -> ListWindow {
        try await perform { try $0.window(from: start, limit: limit, editing: editing, atVersion: expected) }
    }

    /// `window(startingAt:limit:editing:atVersion:)`, off the cooperative pool.
    public func window(
        startingAt start: RowRef, limit: Int, editing: Bool = false, atVersion expected: ListVersion? = nil
    ) async throws -> ListWindow {
        try await perform { try $0.window(startingAt: start, limit: limit, editing: editing, atVersion: expected) }
    }

    /// `changes(since:)`, off the cooperative pool.
    public func changes(since version: ListVersion) async throws -> ListChanges { try await perform { try $0.changes(since: version) } }

    /// Runs `work` on this handle off the cooperative pool, as `SectionStore.perform(_:)` runs
    /// work on the store: cancelling the task cancels a long write inside it.
    private func perform<T: Sendable>(_ work: @escaping @Sendable (ListHandle) throws -> T) async throws -> T {
        let handle = self
        return try await store.perform { _ in try work(handle) }
    }
}

extension SectionStore {
    /// The list `name` of this store, as a value that carries every per-list operation (see
    /// `ListHandle`). Reads nothing: a missing list is refused by the handle's first call.
    public func list(_ name: String) -> ListHandle {
        ListHandle(store: self, name: name)
    }
}
