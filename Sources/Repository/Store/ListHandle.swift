/// One list of a store, as a value that carries every per-list operation: edits, reads,
/// windows, sessions, the change feed, the journal and undo. It names its list once, so no call
/// can reach another list by a forgotten argument: a handle is the only way to a list's
/// operations, for an app and for sectionctl's own command line alike. What concerns the store
/// as a whole (creating and listing lists, check, repair, vacuum) stays on `SectionStore`.
///
/// ```swift
/// try store.createList(named: "work")
/// let work = store.list("work")
/// try work.apply(.addSection(title: "To do"))  // blocks until written, in async code too
/// try await work.async.apply(.addRow(.text("Buy milk"), to: .at(0, 0)))  // off the cooperative pool
/// let cell = try await work.async.row(at: RowPath(section: 0, row: 0))  // cell.row.title == "Buy milk"
/// let feed = work.updates()  // the versions committed from now on, as they happen
/// ```
///
/// Its calls block the thread they run on until the database answers; `async` (an
/// `AsyncListHandle`) has the same edits and reads in `async` form, which run off Swift's
/// cooperative pool. They have other names on purpose: inside an `async` function,
/// `try list.snapshot()` is the blocking read and `try await list.async.snapshot()` the async
/// one, and neither hides the other.
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
}

extension SectionStore {
    /// The list `name` of this store, as a value that carries every per-list operation (see
    /// `ListHandle`). Reads nothing: a missing list is refused by the handle's first call.
    public func list(_ name: String) -> ListHandle {
        ListHandle(store: self, name: name)
    }
}
