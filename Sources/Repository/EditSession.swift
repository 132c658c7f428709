/// An edit session: the "reorder mode" of a table view, as data.
///
/// Beginning one takes no lock; others keep reading and writing. Edits apply to an in-memory
/// draft, never to the database. `save()` writes them all in one transaction — refused with
/// `RepositoryError.conflict` if the list changed since the session began — and returns one
/// changeset from the state at the start to the saved state. `cancel()`, or dropping the
/// session, writes nothing.
///
/// A session is a reference type used by one thread at a time.
public final class EditSession {
    /// The store the session saves to.
    public let store: SectionStore
    /// The list as it was when the session began.
    public let base: ListSnapshot
    /// The list with the session's edits applied: an editing view (empty sections show footers).
    /// Rows and sections created in the session have negative ids until it is saved.
    public private(set) var draft: ListSnapshot
    /// Whether the session can still take edits (it has not been saved or cancelled).
    public private(set) var isOpen = true

    private var resolvedEdits: [Edit] = []
    private var nextDraftID: Int64 = -1

    init(store: SectionStore, base: ListSnapshot) {
        self.store = store
        self.base = base
        var draft = base
        draft.isEditing = true
        self.draft = draft
    }

    /// The number of edits applied so far.
    public var editCount: Int { resolvedEdits.count }

    /// What saving now would change: the changeset from `base` to `draft`.
    public var pendingChanges: Changeset { Changeset(from: base, to: draft) }

    /// Applies an edit to the draft. Failing edits change nothing and leave the session open.
    /// - Returns: what the edit changed in the draft, and the (draft) id of what it created.
    @discardableResult
    public func apply(_ edit: Edit) throws -> (changeset: Changeset, createdID: Int64?) {
        guard isOpen else { throw RepositoryError.sessionClosed }
        var next = nextDraftID
        var updated = draft
        let (outcome, resolved) = try updated.applyDraft(edit, nextID: &next)
        draft = updated
        nextDraftID = next
        resolvedEdits.append(resolved)
        return (outcome.changeset, outcome.createdID)
    }

    /// Writes every edit in one transaction and closes the session.
    ///
    /// - Returns: the list's new version (one step, however many edits) and the changeset from
    ///   `base` to the saved state. A session without edits writes nothing.
    /// - Throws: `RepositoryError.conflict` when the list changed since the session began;
    ///   nothing is written and the session stays open, so the caller can cancel it.
    @discardableResult
    public func save() throws -> Change {
        guard isOpen else { throw RepositoryError.sessionClosed }
        let edits = resolvedEdits
        let base = self.base
        let changeset = pendingChanges
        let store = self.store
        let change = try store.write { db in
            let list = try db.listRecord(named: base.name)
            guard list.version == base.version else {
                throw RepositoryError.conflict(list: base.name, sessionVersion: base.version, currentVersion: list.version)
            }
            guard !edits.isEmpty else { return Change(list: list.name, version: list.version) }
            // Draft ids were handed out as -1, -2, … in the order the edits created things.
            var storedIDs: [Int64: Int64] = [:]
            var nextDraftID: Int64 = -1
            for edit in edits {
                let stored = { (id: Int64) in storedIDs[id] ?? id }
                let outcome = try store.perform(edit.mappingIDs(sections: stored, rows: stored), in: list, db: db)
                if let created = outcome.createdID {
                    storedIDs[nextDraftID] = created
                    nextDraftID -= 1
                }
            }
            return Change(list: list.name, version: try store.bumpVersion(of: list, db: db), changeset: changeset)
        }
        isOpen = false
        return change
    }

    /// Discards the draft and closes the session. Nothing is written.
    public func cancel() {
        isOpen = false
    }
}

extension SectionStore {
    /// Begins an edit session on a list. Takes no lock.
    public func beginEditing(_ list: String = SectionStore.defaultList) throws -> EditSession {
        EditSession(store: self, base: try snapshot(of: list))
    }
}
