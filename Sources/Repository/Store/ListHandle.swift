/// One list of a store, as a value that carries every per-list operation: edits, reads,
/// windows, sessions, the change feed, the journal and undo. It names its list once, so no call
/// can reach another list by a forgotten argument: outside this package, a handle is the only
/// way to a list's operations (the store's own per-list calls, which default to `"default"`,
/// are the package's).
///
/// ```swift
/// let work = store.list("work")
/// try work.apply(.addSection(title: "To do"))
/// let cell = try await work.row(at: RowPath(section: 0, row: 0))
/// for try await update in work.updates() { … }
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

    // MARK: - Edits

    /// Commits one edit to the list (`SectionStore.apply(_:to:)`).
    @discardableResult
    public func apply(_ edit: Edit) throws -> Change { try store.apply(edit, to: name) }

    /// What `edit` means on the list as it is now, as an `Intent`: its references as ids and its
    /// destination as a placement with the rows (or sections) around it. Reads only; throws what
    /// `apply(_:)` of the edit would throw for a reference that names nothing.
    public func intent(of edit: Edit) throws -> Intent { try store.intent(of: edit, in: name) }

    /// Applies an intent to the list as it is now, by `Intent`'s rules, in one transaction: the
    /// result says whether it went where it was meant, elsewhere, or was dropped (and then
    /// nothing was written).
    @discardableResult
    public func apply(_ intent: Intent) throws -> IntentResult { try store.apply(intent, to: name) }

    /// Takes back the list's last change (`SectionStore.undo(list:)`).
    @discardableResult
    public func undo() throws -> Change { try store.undo(list: name) }

    /// Makes the last undone change again (`SectionStore.redo(list:)`).
    @discardableResult
    public func redo() throws -> Change { try store.redo(list: name) }

    /// Starts an edit session on the list (`SectionStore.beginEditing(_:)`).
    public func beginEditing() throws -> EditSession { try store.beginEditing(name) }

    /// Renames the list; returns the handle under its new name.
    public func rename(to newName: String) throws -> (change: Change, list: ListHandle) {
        let change = try store.renameList(name, to: newName)
        return (change, ListHandle(store: store, name: newName))
    }

    /// Deletes the list (`SectionStore.deleteList(_:force:)`).
    @discardableResult
    public func delete(force: Bool = false) throws -> Change { try store.deleteList(name, force: force) }

    // MARK: - Reads
    //
    // Every read says the list's version it read. Given `atVersion:`, a read of a list at any
    // other version reads nothing and throws `RepositoryError.listMovedOn`: a view reads at the
    // version it shows (see "The protocol a view follows" in the README).

    /// The list's header: version, counts (`SectionStore.header(of:editing:atVersion:)`).
    public func header(editing: Bool = false, atVersion expected: Int64? = nil) throws -> ListHeader {
        try store.header(of: name, editing: editing, atVersion: expected)
    }

    /// The list's sections and their counts (`SectionStore.outline(of:editing:atVersion:)`).
    public func outline(editing: Bool = false, atVersion expected: Int64? = nil) throws -> ListOutline {
        try store.outline(of: name, editing: editing, atVersion: expected)
    }

    /// Up to `limit` consecutive sections with their counts, from index `first`, and how many
    /// sections the list has: O(log s + limit) (`SectionStore.outline(of:from:limit:editing:atVersion:)`).
    public func outline(from first: Int, limit: Int, editing: Bool = false, atVersion expected: Int64? = nil) throws -> OutlineWindow {
        try store.outline(of: name, from: first, limit: limit, editing: editing, atVersion: expected)
    }

    /// The whole list (`SectionStore.snapshot(of:editing:atVersion:)`).
    public func snapshot(editing: Bool = false, atVersion expected: Int64? = nil) throws -> ListSnapshot {
        try store.snapshot(of: name, editing: editing, atVersion: expected)
    }

    /// Every section and row in order, one at a time, in one read, in O(1) memory
    /// (`SectionStore.forEachItem(of:editing:start:_:)`).
    public func forEachItem(
        editing: Bool = false, start: (ListHeader) throws -> Void = { _ in }, _ body: (ListItem) throws -> Void
    ) throws {
        try store.forEachItem(of: name, editing: editing, start: start, body)
    }

    /// The row at `path` (`SectionStore.row(at:in:atVersion:)`).
    public func row(at path: RowPath, atVersion expected: Int64? = nil) throws -> LocatedRow {
        try store.row(at: path, in: name, atVersion: expected)
    }

    /// The row `ref` names (`SectionStore.row(_:in:atVersion:)`).
    public func row(_ ref: RowRef, atVersion expected: Int64? = nil) throws -> LocatedRow {
        try store.row(ref, in: name, atVersion: expected)
    }

    /// Where row `id` is (`SectionStore.path(ofRow:in:atVersion:)`).
    public func path(ofRow id: RowID, atVersion expected: Int64? = nil) throws -> RowPath {
        try store.path(ofRow: id, in: name, atVersion: expected)
    }

    /// Where row `id` is, with the version read (`SectionStore.versionedPath(ofRow:in:atVersion:)`).
    public func versionedPath(ofRow id: RowID, atVersion expected: Int64? = nil) throws -> Versioned<RowPath> {
        try store.versionedPath(ofRow: id, in: name, atVersion: expected)
    }

    /// The section `ref` names, with its index and row count: O(log s) in the list's sections
    /// (`SectionStore.versionedSection(_:in:atVersion:)`).
    public func section(_ ref: SectionRef, atVersion expected: Int64? = nil) throws -> SectionInfo {
        try store.versionedSection(ref, in: name, atVersion: expected).value
    }

    /// The section `ref` names, with the version read.
    public func versionedSection(_ ref: SectionRef, atVersion expected: Int64? = nil) throws -> Versioned<SectionInfo> {
        try store.versionedSection(ref, in: name, atVersion: expected)
    }

    /// How many rows `section` has (`SectionStore.rowCount(of:in:atVersion:)`).
    public func rowCount(of section: SectionRef, atVersion expected: Int64? = nil) throws -> Int {
        try store.rowCount(of: section, in: name, atVersion: expected)
    }

    /// How many rows `section` has, with the version read (`SectionStore.versionedRowCount(of:in:atVersion:)`).
    public func versionedRowCount(of section: SectionRef, atVersion expected: Int64? = nil) throws -> Versioned<Int> {
        try store.versionedRowCount(of: section, in: name, atVersion: expected)
    }

    /// Up to `limit` rows from `start` (`SectionStore.window(from:limit:in:editing:atVersion:)`).
    public func window(from start: RowPath, limit: Int, editing: Bool = false, atVersion expected: Int64? = nil) throws -> ListWindow {
        try store.window(from: start, limit: limit, in: name, editing: editing, atVersion: expected)
    }

    /// Up to `limit` rows from the row `start` names (`SectionStore.window(startingAt:limit:in:editing:atVersion:)`).
    public func window(
        startingAt start: RowRef, limit: Int, editing: Bool = false, atVersion expected: Int64? = nil
    ) throws -> ListWindow {
        try store.window(startingAt: start, limit: limit, in: name, editing: editing, atVersion: expected)
    }

    /// What changed since `version`, as one changeset (`SectionStore.changes(of:since:)`).
    public func changes(since version: Int64) throws -> ListChanges { try store.changes(of: name, since: version) }

    /// The list's committed versions as they happen (`SectionStore.updates(of:from:bufferLimit:)`).
    public func updates(from version: Int64? = nil, bufferLimit: Int = ListFeed.defaultBufferLimit) -> ListFeed {
        store.updates(of: name, from: version, bufferLimit: bufferLimit)
    }

    // MARK: - Async forms (off the cooperative pool; see `SectionStore.perform(_:)`)

    /// `apply(_:)`, off the cooperative pool; a cancelled task's edit writes nothing.
    @discardableResult
    public func apply(_ edit: Edit) async throws -> Change { try await store.apply(edit, to: name) }

    /// `undo()`, off the cooperative pool.
    @discardableResult
    public func undo() async throws -> Change { try await store.undo(list: name) }

    /// `redo()`, off the cooperative pool.
    @discardableResult
    public func redo() async throws -> Change { try await store.redo(list: name) }

    /// `outline(editing:atVersion:)`, off the cooperative pool.
    public func outline(editing: Bool = false, atVersion expected: Int64? = nil) async throws -> ListOutline {
        try await store.outline(of: name, editing: editing, atVersion: expected)
    }

    /// `outline(from:limit:editing:atVersion:)`, off the cooperative pool.
    public func outline(from first: Int, limit: Int, editing: Bool = false, atVersion expected: Int64? = nil) async throws -> OutlineWindow {
        try await store.outline(of: name, from: first, limit: limit, editing: editing, atVersion: expected)
    }

    /// `snapshot(editing:atVersion:)`, off the cooperative pool.
    public func snapshot(editing: Bool = false, atVersion expected: Int64? = nil) async throws -> ListSnapshot {
        try await store.snapshot(of: name, editing: editing, atVersion: expected)
    }

    /// `row(at:atVersion:)`, off the cooperative pool: what `cellForRowAt` reads.
    public func row(at path: RowPath, atVersion expected: Int64? = nil) async throws -> LocatedRow {
        try await store.row(at: path, in: name, atVersion: expected)
    }

    /// `row(_:atVersion:)`, off the cooperative pool.
    public func row(_ ref: RowRef, atVersion expected: Int64? = nil) async throws -> LocatedRow {
        try await store.row(ref, in: name, atVersion: expected)
    }

    /// `path(ofRow:atVersion:)`, off the cooperative pool.
    public func path(ofRow id: RowID, atVersion expected: Int64? = nil) async throws -> RowPath {
        try await store.path(ofRow: id, in: name, atVersion: expected)
    }

    /// `versionedPath(ofRow:atVersion:)`, off the cooperative pool.
    public func versionedPath(ofRow id: RowID, atVersion expected: Int64? = nil) async throws -> Versioned<RowPath> {
        try await store.versionedPath(ofRow: id, in: name, atVersion: expected)
    }

    /// `rowCount(of:atVersion:)`, off the cooperative pool.
    public func rowCount(of section: SectionRef, atVersion expected: Int64? = nil) async throws -> Int {
        try await store.rowCount(of: section, in: name, atVersion: expected)
    }

    /// `versionedRowCount(of:atVersion:)`, off the cooperative pool.
    public func versionedRowCount(of section: SectionRef, atVersion expected: Int64? = nil) async throws -> Versioned<Int> {
        try await store.versionedRowCount(of: section, in: name, atVersion: expected)
    }

    /// `window(from:limit:editing:atVersion:)`, off the cooperative pool.
    public func window(from start: RowPath, limit: Int, editing: Bool = false, atVersion expected: Int64? = nil) async throws -> ListWindow {
        try await store.window(from: start, limit: limit, in: name, editing: editing, atVersion: expected)
    }

    /// `window(startingAt:limit:editing:atVersion:)`, off the cooperative pool.
    public func window(
        startingAt start: RowRef, limit: Int, editing: Bool = false, atVersion expected: Int64? = nil
    ) async throws -> ListWindow {
        let name = name
        return try await store.perform { try $0.window(startingAt: start, limit: limit, in: name, editing: editing, atVersion: expected) }
    }

    /// `header(editing:atVersion:)`, off the cooperative pool.
    public func header(editing: Bool = false, atVersion expected: Int64? = nil) async throws -> ListHeader {
        let name = name
        return try await store.perform { try $0.header(of: name, editing: editing, atVersion: expected) }
    }

    /// `changes(since:)`, off the cooperative pool.
    public func changes(since version: Int64) async throws -> ListChanges { try await store.changes(of: name, since: version) }
}

extension SectionStore {
    /// The list `name` of this store, as a value that carries every per-list operation (see
    /// `ListHandle`). Reads nothing: a missing list is refused by the handle's first call.
    public func list(_ name: String) -> ListHandle {
        ListHandle(store: self, name: name)
    }
}
