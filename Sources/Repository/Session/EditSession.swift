/// An edit session: the "reorder mode" of a table view, as data.
///
/// Beginning one takes no lock; others keep reading and writing. Edits apply to a draft, never
/// to the database. `save()` writes them all in one transaction — refused with
/// `RepositoryError.conflict` if the list changed since the session began — and returns one
/// changeset from the state at the start to the saved state. After a conflict, `rebase()` moves
/// the session onto the list as it is now, applying its edits again by id, and `save()` can be
/// tried again. `cancel()`, or dropping the session, writes nothing.
///
/// A session holds only what it changes, and no connection and no transaction between calls, so
/// the database's log can be checkpointed and recycled under it however long it stays open (a
/// transaction held for the session's life would keep every commit meanwhile in SQLite's
/// write-ahead log, or keep PostgreSQL from vacuuming). Each call that reads stored rows — an
/// edit, an undo, a read of rows — runs in a read transaction of its own that first checks the
/// list is still at `baseVersion`; every change to a list gives it a new version, so the rows it
/// reads then are the rows the session began on. Once someone else has changed the list, such
/// calls throw `RepositoryError.conflict`, as `save` would: `rebase()` moves the session onto the
/// list as it is now, `cancel()` drops it. `edits` and `pendingChanges` are held by the session
/// and stay readable, and so does the outline (`outline`, `outline(from:limit:)`,
/// `rowCount(of:)`) where the session has read it: a list of up to 2,000 sections is read whole
/// as the session begins; on a longer one, a section the session has not read yet is read when
/// asked for, and is a conflict once the list has changed.
///
/// Beginning reads the list's version and how many sections it has, and the sections
/// themselves (titles and row counts, not rows) only when there are at most 2,000; entering a
/// reorder mode costs the same on a million sections as on ten. The draft is that stored state
/// with the session's edits laid over it: the sections as runs of stored sections and the
/// sections the session created or moved, and per section, runs of stored rows and the rows the
/// session inserted or moved, in blocks (`PieceTable`). An edit finds what it names through the
/// stored list's O(log n) lookups and a walk over the blocks, so an edit costs O(log n + e / 32)
/// for e edits so far, in steps over small arrays of integers; memory grows with the edits and
/// the sections read, not the rows. The pending changeset is composed from the edits'
/// changesets as they come, and `save` writes O(e) rows.
///
/// The session's reads (`outline`, `row(_:)`, `path(ofRow:)`, `window(from:limit:)`) are the
/// store's reads on the draft, in an editing view. Only `snapshot()` reads the whole list.
///
/// A session is a reference type used by one thread at a time.
public final class EditSession {
    /// The store the session saves to.
    public let store: SectionStore
    /// The stored id of the list, so that a list deleted and made anew under the same name is
    /// not mistaken for this one.
    public let listID: ListID
    /// The list's name when the session began (or was last rebased).
    public private(set) var name: String
    /// The list's version the draft starts from: when the session began, or the version
    /// `rebase()` last moved it to.
    public private(set) var baseVersion: ListVersion
    /// Whether the session can still take edits (it has not been saved or cancelled).
    public private(set) var isOpen = true
    /// The version of the draft, as `snapshot()` carries it: negative, so that it cannot be
    /// mistaken for a version the list was committed at (those are 0 or more;
    /// `ListVersion.isDraft`). It is -1 as the session begins and goes down by one with each
    /// edit and undo that changes the draft and each rebase onto a newer version — an undo too,
    /// though it gives back an earlier draft — so that two snapshots of the draft with different
    /// content never carry the same version. The committed version the draft starts from is
    /// `baseVersion`.
    public private(set) var draftVersion: ListVersion = -1

    private var overlay: SessionDraft
    /// The edits that succeeded, in order: what `undoLastEdit` and `rebase` apply again, and
    /// what `save` writes.
    private var applied: [AppliedEdit] = []
    private var composer = ChangesetComposer()
    private var nextDraftID: Int64 = -1

    init(store: SectionStore, overlay: SessionDraft) {
        self.store = store
        self.overlay = overlay
        self.listID = ListID(overlay.list.id)
        self.name = overlay.list.name
        self.baseVersion = overlay.list.version
    }

    /// The number of edits applied so far.
    public var editCount: Int { applied.count }

    /// The session's edits, in the order they were applied: as they were given, or, after a
    /// `rebase()`, as they were applied again (naming rows and sections by id).
    public var edits: [Edit] { applied.map(\.edit) }

    /// What saving now would change: the changeset from the list at `baseVersion` to the
    /// draft, composed from the changesets of the edits.
    /// - Complexity: O(t log t) in the number t of sections and rows the edits touched.
    public var pendingChanges: Changeset { composer.changeset }

    /// Applies an edit to the draft. Failing edits change nothing and leave the session open.
    /// - Returns: what the edit changed in the draft, as `SectionStore.apply` reports a committed
    ///   edit: the changeset, the (draft, negative) id of what it created, and — as nothing is
    ///   committed yet — `baseVersion`.
    /// - Complexity: O(log n + e / 32) for e edits so far (a section named by title: O(s)).
    @discardableResult
    public func apply(_ edit: Edit) throws -> Change {
        guard isOpen else { throw RepositoryError.sessionClosed }
        let (outcome, step) = try reading { try overlay.apply(edit, nextID: &nextDraftID) }
        applied.append(AppliedEdit(edit: edit, changeset: outcome.changeset, step: step, createdID: outcome.createdID?.rawValue))
        if !outcome.changeset.isEmpty {
            composer.append(outcome.changeset)
            draftVersion = draftVersion.previous
        }
        return Change(list: name, version: baseVersion, createdID: outcome.createdID, changeset: outcome.changeset)
    }

    /// Takes back the last edit applied (a reorder mode's "undo"): the draft, the pending
    /// changes and the draft ids of what was created become exactly what they were before it.
    ///
    /// The draft is rebuilt from the list at `baseVersion` (which it still is: else this throws
    /// `RepositoryError.conflict`) by applying the other edits again; so an undo costs what those
    /// edits cost, and a session that never undoes pays nothing for it but keeping its edits.
    /// - Returns: what the undo changed in the draft, as `apply` reports an edit: the inverse of
    ///   the undone edit's changeset, at `baseVersion`.
    /// - Throws: `RepositoryError.nothingToUndo` when no edit is left to take back,
    ///   `.conflict` when someone else has changed the list since `baseVersion`,
    ///   `.sessionClosed` after `save` or `cancel`. Nothing changes then.
    /// - Complexity: O(e (log n + e / 32)) for the e edits that remain; the stored sections the
    ///   session read are kept.
    @discardableResult
    public func undoLastEdit() throws -> Change {
        guard isOpen else { throw RepositoryError.sessionClosed }
        guard let last = applied.last else { throw RepositoryError.nothingToUndo(list: name) }
        let kept = applied.dropLast()
        var keptComposer = ChangesetComposer()
        let draft = try reading {
            var draft = SessionDraft(withoutEditsOf: overlay)
            defer { draft.detach() }
            for edit in kept {
                // An edit that changed nothing changes nothing again.
                if case .nothing = edit.step { continue }
                var draftID = edit.createdID ?? nextDraftID
                let (outcome, _) = try draft.apply(edit.edit, nextID: &draftID)
                if !outcome.changeset.isEmpty { keptComposer.append(outcome.changeset) }
            }
            return draft
        }
        overlay = draft
        composer = keptComposer
        // The draft id of what the undone edit created is given out again.
        if let created = last.createdID { nextDraftID = created }
        applied.removeLast()
        if !last.changeset.isEmpty { draftVersion = draftVersion.previous }
        return Change(list: name, version: baseVersion, changeset: last.changeset.inverted())
    }

    /// After a save, the stored id of each row the session created, by its draft id (the
    /// negative ids `apply` returned), so a view can re-key what it showed.
    public private(set) var savedRowIDs: [RowID: RowID] = [:]

    /// After a save, the stored id of each section the session created, by its draft id (the
    /// negative ids `apply` returned), so a view can re-key what it showed.
    public private(set) var savedSectionIDs: [SectionID: SectionID] = [:]

    /// Writes every edit in one transaction and closes the session.
    ///
    /// - Returns: the list's new version (one step, however many edits) and the changeset from
    ///   the list at `baseVersion` to the saved state. Its ids are the stored ones: where
    ///   `pendingChanges` names a draft id (negative), the saved changeset names the id it was
    ///   stored under. A session whose edits add up to no change writes nothing and leaves the
    ///   version as it was.
    /// - Throws: `RepositoryError.conflict` when the list changed since `baseVersion`; nothing is
    ///   written and the session stays open, so the caller can `rebase()` it and save again, or
    ///   cancel it.
    /// - Complexity: O(e log n) for e edits.
    @discardableResult
    public func save() throws -> Change {
        guard isOpen else { throw RepositoryError.sessionClosed }
        let steps = applied.map(\.step)
        let name = self.name
        let baseVersion = self.baseVersion
        let listID = self.listID
        let changeset = pendingChanges
        // Edits that add up to nothing (a move there and back) have nothing to write.
        guard !changeset.isEmpty else {
            close()
            return Change(list: name, version: baseVersion, committed: false)
        }
        let change = try store.write { db in
            let list = try db.listRecordIfAny(id: listID.rawValue)
            guard let list, list.version == baseVersion else {
                throw RepositoryError.conflict(list: name, sessionVersion: baseVersion, currentVersion: list?.version)
            }
            var replay = Replay(list: list, db: db)
            do {
                for (index, step) in steps.enumerated() {
                    // A cancelled save stops between edits, and its transaction rolls back.
                    if index % 64 == 0 { try CancellationFlag.check() }
                    try replay.write(step)
                }
            } catch let error where error is Replay.Mismatch || error.isConstraintViolation {
                // What the session saw is gone, or its place taken: changed by SQL that did not bump
                // the version (triggers dropped, or a file older than the guards).
                throw RepositoryError.conflict(list: name, sessionVersion: baseVersion, currentVersion: list.version)
            }
            store.countPositionWrites(replay.positionWrites)
            // The draft ids of what the session created become the stored ones.
            let saved = changeset.mappingIDs(replay.storedIDs)
            let version = try store.bumpVersion(of: list, recording: saved, db: db)
            return (Change(list: list.name, version: version, changeset: saved), replay.storedRowIDs, replay.storedSectionIDs)
        }
        savedRowIDs = change.1
        savedSectionIDs = change.2
        close()
        return change.0
    }

    /// Discards the draft and closes the session. Nothing is written.
    /// - Returns: the changeset from the draft back to the list at `baseVersion` (the inverse of
    ///   `pendingChanges`), so a view can animate back to it; empty for a closed session.
    /// - Complexity: O(t log t) in the number t of sections and rows the edits touched: it is
    ///   computed from the session's own changes and reads nothing of the list.
    @discardableResult
    public func cancel() -> Changeset {
        let back = isOpen ? pendingChanges.inverted() : Changeset()
        close()
        return back
    }

    /// Moves the session onto the list as it is now, keeping its edits: what to do after `save`
    /// throws `RepositoryError.conflict` (or at any time, to take in what others saved).
    ///
    /// In one read transaction it starts a fresh draft on the list's current version and applies
    /// the session's edits to it again, in order, by id — never by index path, which
    /// would name other rows once others have changed the list:
    /// - a moved or added row goes into the same section, just after the row that was before it
    ///   in the draft, or else just before the row that was after it; when neither is in that
    ///   section any more, at the index it had there (or the section's end, when it has fewer
    ///   rows now);
    /// - an added or moved section goes just after the section that was before it, or else just
    ///   before the one that was after it, or else at the index it had;
    /// - a row's update sets what the edit set (its title, its value) and leaves the rest as the
    ///   other writer left it; a rename, an empty text, a deletion name their subject by id.
    ///
    /// An edit whose subject is gone — its row or section deleted by another writer, or created
    /// by an edit that was itself dropped — or that the list now refuses (a section to delete
    /// that is no longer empty) is dropped, and the report says which and why. Rows and sections
    /// created in the session keep their draft ids. An edit that changed nothing is kept as it
    /// was, changing nothing.
    ///
    /// Afterwards `baseVersion` is the list's current version (and `name` its current name),
    /// `edits` the edits as applied again, `pendingChanges` the changeset from the list as it is
    /// now to the new draft, and `save()` succeeds unless the list changes again. `undoLastEdit`
    /// takes back the edits as applied again.
    /// - Returns: what was kept and dropped, and the changeset from the list at its current
    ///   version to the new draft, for a view that shows the list as it is now.
    /// - Throws: `RepositoryError.conflict` with no current version when the list was deleted
    ///   (or deleted and made anew), `.sessionClosed` after `save` or `cancel`, or a database
    ///   error. The session is then as it was.
    /// - Complexity: O(e (log n + e / 32)) for e edits, plus what beginning a session costs.
    @discardableResult
    public func rebase() throws -> RebaseReport {
        guard isOpen else { throw RepositoryError.sessionClosed }
        let listID = self.listID
        let name = self.name
        let baseVersion = self.baseVersion
        var kept: [AppliedEdit] = []
        var dropped: [DroppedEdit] = []
        var keptComposer = ChangesetComposer()
        let nextDraftID = self.nextDraftID
        let applied = self.applied
        let draft = try store.openSessionDraft { db in
            guard let list = try db.listRecordIfAny(id: listID.rawValue) else {
                throw RepositoryError.conflict(list: name, sessionVersion: baseVersion, currentVersion: nil)
            }
            return list
        } preparing: { draft in
            for (index, old) in applied.enumerated() {
                if case .nothing = old.step {
                    kept.append(old)
                    continue
                }
                let edit: Edit
                switch try draft.rebased(old.edit, step: old.step, changeset: old.changeset) {
                case .drop(let reason):
                    dropped.append(DroppedEdit(index: index, edit: old.edit, reason: reason))
                    continue
                case .edit(let rebased):
                    edit = rebased
                }
                var draftID = old.createdID ?? nextDraftID
                do {
                    let (outcome, step) = try draft.apply(edit, nextID: &draftID)
                    kept.append(AppliedEdit(edit: edit, changeset: outcome.changeset, step: step, createdID: outcome.createdID?.rawValue))
                    if !outcome.changeset.isEmpty { keptComposer.append(outcome.changeset) }
                } catch let error as RepositoryError {
                    dropped.append(DroppedEdit(index: index, edit: old.edit, reason: .refused(error)))
                }
            }
        }
        let report = RebaseReport(
            previousVersion: baseVersion, version: draft.list.version, kept: kept.map(\.edit), dropped: dropped,
            changeset: keptComposer.changeset)
        overlay = draft
        self.applied = kept
        composer = keptComposer
        if draft.list.version != self.baseVersion { draftVersion = draftVersion.previous }
        self.baseVersion = draft.list.version
        self.name = draft.list.name
        return report
    }

    private func close() {
        isOpen = false
    }

    // MARK: - Reading the draft

    /// Runs a read of the draft's stored rows in a read transaction of its own, as the store's
    /// reads run (on a reader connection of the store's, or its own connection), after checking
    /// that the list is still the one at `baseVersion` (else `RepositoryError.conflict`), and
    /// maps database failures to `RepositoryError`. The draft reads through that connection for
    /// the call only: the session holds neither a connection nor a transaction between calls.
    /// Not reentrant: `body` must not call `reading` again.
    private func reading<T>(_ body: () throws -> T) throws -> T {
        guard isOpen else { throw RepositoryError.sessionClosed }
        var result: T?
        do {
            try store.read { db -> Void in
                overlay.attach(db)
                defer { overlay.detach() }
                let list = try db.listRecordIfAny(id: listID.rawValue)
                guard let list, list.version == baseVersion else {
                    throw RepositoryError.conflict(list: name, sessionVersion: baseVersion, currentVersion: list?.version)
                }
                result = try body()
            }
        } catch {
            throw SectionStore.repositoryError(error, location: store.location)
        }
        guard let result else { preconditionFailure("a read that returned ran its body") }
        return result
    }

    /// Runs a read of what the session holds itself (the outline), mapping failures to
    /// `RepositoryError`: without the database when the session holds what it needs (then it
    /// answers after someone else changed the list too), else as `reading` does.
    private func holding<T>(_ body: () throws -> T) throws -> T {
        guard isOpen else { throw RepositoryError.sessionClosed }
        do {
            return try body()
        } catch is SessionDraft.NeedsRead {
            return try reading(body)
        }
    }

    /// The draft's sections with their row counts, but no rows: an editing view, at the
    /// session's base version. Prefer `outline(from:limit:)` on a long list.
    /// - Throws: as `outline(from:limit:)` does.
    /// - Complexity: O(s) in the number of sections.
    public var outline: ListOutline {
        get throws {
            try holding {
                ListOutline(
                    listID: listID, name: name, version: baseVersion, isEditing: true,
                    sections: try (0..<overlay.numberOfSections).map(overlay.info(ofSection:)))
            }
        }
    }

    /// Up to `limit` consecutive sections of the draft with their row counts, from the one at
    /// index `first`, and how many sections the draft has: an editing view at the session's base
    /// version, as `ListHandle.outline(from:limit:editing:atVersion:)` gives the list's. The
    /// sections the session has read are answered from memory, and stay readable after someone
    /// else changed the list; others are read (a few dozen at a time, then kept) in a read
    /// transaction that first checks the list is still at `baseVersion`.
    /// - Throws: `RepositoryError.sectionIndexOutOfRange` when `first` is outside `0…count`;
    ///   `.negativeWindowLimit` for a negative limit; `.conflict` when a section not read yet is
    ///   needed and the list has changed; `.sessionClosed`.
    /// - Complexity: O(limit + e / 32), plus O(log s) a read.
    public func outline(from first: Int, limit: Int) throws -> OutlineWindow {
        guard limit >= 0 else { throw RepositoryError.negativeWindowLimit(limit) }
        return try holding {
            let count = overlay.numberOfSections
            guard first >= 0 && first <= count else { throw RepositoryError.sectionIndexOutOfRange(first, valid: 0...count) }
            return OutlineWindow(
                listID: listID, name: name, version: baseVersion, isEditing: true, sectionCount: count, first: first,
                sections: try (first..<min(count, first + limit)).map(overlay.info(ofSection:)))
        }
    }

    /// The number of rows in a section of the draft. Read as `outline(from:limit:)` reads.
    /// - Complexity: O(log s + e / 32) for an index or an id, O(s) for a title.
    public func rowCount(of section: SectionRef) throws -> Int {
        try holding { try overlay.info(ofSection: try overlay.sectionIndex(section)).rowCount }
    }

    /// The draft's row a reference names (`S:R`, `S:end`, `#ID`), with its index path and
    /// section; the same errors as `ListHandle.row(_:atVersion:)`.
    /// - Complexity: O(log n + e / 32) for e edits so far, plus O(s) for a section named by
    ///   title.
    public func row(_ ref: RowRef) throws -> LocatedRow {
        try reading {
            let path = try overlay.rowPath(ref)
            return LocatedRow(path: path, row: try overlay.row(at: path), section: try overlay.info(ofSection: path.section))
        }
    }

    /// The draft's row at an index path.
    /// - Complexity: O(log n + e / 32).
    public func row(at path: RowPath) throws -> LocatedRow {
        try row(.at(path.section, path.row))
    }

    /// The index path in the draft of the row with this id (a draft id for a row created in
    /// the session).
    /// - Throws: `RepositoryError.rowNotFound` when the draft has no such row.
    /// - Complexity: O(log n + e / 32).
    public func path(ofRow id: RowID) throws -> RowPath {
        try reading { try overlay.rowPath(.id(id)) }
    }

    /// Up to `limit` consecutive rows of the draft starting at `start`, crossing into the
    /// following sections, as `ListHandle.window(from:limit:editing:atVersion:)` gives them, in an
    /// editing view.
    /// - Complexity: O(log n + e / 32 + limit + sections passed).
    public func window(from start: RowPath, limit: Int) throws -> ListWindow {
        try window(startingAt: .at(start.section, start.row), limit: limit)
    }

    /// `window(from:limit:)` starting at a row reference: `S:R` (`R` may be the section's row
    /// count), `S:end` (the section's last row) or `#ID`, as
    /// `ListHandle.window(startingAt:limit:editing:atVersion:)` takes it.
    /// - Complexity: O(log n + e / 32 + limit + sections passed).
    public func window(startingAt start: RowRef, limit: Int) throws -> ListWindow {
        guard limit >= 0 else { throw RepositoryError.negativeWindowLimit(limit) }
        return try reading {
            var section: Int
            var firstRow: Int
            switch start {
            case .path(let sectionRef, .index(let index)):
                section = try overlay.sectionIndex(sectionRef)
                let count = try overlay.info(ofSection: section).rowCount
                guard index >= 0 && index <= count else {
                    throw RepositoryError.rowIndexOutOfRange(index, section: section, valid: 0...count)
                }
                firstRow = index
            case .path(_, .end), .id:
                let path = try overlay.rowPath(start)
                section = path.section
                firstRow = path.row
            }
            var window = ListWindow(listID: listID, name: name, version: baseVersion, isEditing: true)
            var remaining = limit
            while true {
                var rows: [Row] = []
                if try remaining > 0 && firstRow < overlay.info(ofSection: section).rowCount {
                    rows = try overlay.rows(ofSection: section, from: firstRow, limit: remaining)
                }
                window.parts.append(ListWindow.Part(section: try overlay.info(ofSection: section), firstRow: firstRow, rows: rows))
                remaining -= rows.count
                guard remaining > 0, section + 1 < overlay.numberOfSections else { break }
                section += 1
                firstRow = 0
            }
            return window
        }
    }

    /// The whole draft: an editing view. Its `version` is the draft's (`draftVersion`,
    /// negative, like the ids of the rows and sections created in the session until it is
    /// saved), never a version the list was committed at, and its `draftOf` is the session's
    /// `baseVersion`: a view that catches up from it with `ListHandle.changes(since:)` gets no
    /// changeset (as for a version the journal does not hold) rather than changes the draft
    /// may already show, and a read `atVersion:` it throws `RepositoryError.listMovedOn`.
    /// - Complexity: O(n): it reads every row of the list.
    public func snapshot() throws -> ListSnapshot {
        try reading {
            var sections: [Section] = []
            sections.reserveCapacity(overlay.numberOfSections)
            for index in 0..<overlay.numberOfSections {
                let section = try overlay.section(at: index)
                sections.append(
                    Section(id: section.id, title: section.title, emptyText: section.emptyText, rows: try overlay.allRows(ofSection: index)))
            }
            return ListSnapshot(
                name: name, version: draftVersion, isEditing: true, sections: sections, listID: listID, draftOf: baseVersion)
        }
    }

    /// The whole draft, as `snapshot()` gives it.
    /// - Complexity: O(n): it reads every row of the list. Prefer the windowed reads.
    public var draft: ListSnapshot {
        get throws { try snapshot() }
    }

    /// The whole list at `baseVersion`: as it was when the session began, or when it was last
    /// rebased (not an editing view).
    /// - Complexity: O(n): it reads every row of the list.
    public func baseSnapshot() throws -> ListSnapshot {
        try reading { try overlay.db.snapshot(of: overlay.list, editing: false) }
    }
}

extension ListHandle {
    /// Begins an edit session on the list. Takes no lock: the session reads as the store's reads do,
    /// and holds no connection and no transaction between its calls.
    /// - Complexity: O(log s): it reads the list's version and how many sections it has, and,
    ///   when there are at most 2,000, the sections with their row counts (never the rows).
    /// - Throws: `RepositoryError.listNotFound` when the list does not exist.
    public func beginEditing() throws -> EditSession {
        let name = name
        return EditSession(store: store, overlay: try store.openSessionDraft { db in try db.listRecord(named: name) })
    }
}

extension SectionStore {
    /// A draft of the list `find` reads, made ready by `prepare`: all in one read transaction, as
    /// the store's reads run (`read(_:)`).
    func openSessionDraft(
        _ find: (any Database) throws -> ListRecord, preparing prepare: (inout SessionDraft) throws -> Void = { _ in }
    ) throws -> SessionDraft {
        var draft: SessionDraft?
        try read { db -> Void in
            var made = try SessionDraft(db: db, list: try find(db))
            try prepare(&made)
            made.detach()
            draft = made
        }
        guard let draft else { preconditionFailure("a read that returned ran its body") }
        return draft
    }
}

/// One edit of a session as it was applied to the draft.
struct AppliedEdit {
    /// The edit as given, or as `rebase` applied it again.
    var edit: Edit
    /// What it changed in the draft.
    var changeset: Changeset
    /// How it is written at save, by ids and neighbours.
    var step: ReplayStep
    /// The draft id of what it created, which it keeps when applied again.
    var createdID: Int64?
}

/// What `EditSession.rebase()` did.
public struct RebaseReport: Hashable, Sendable {
    /// The version the session's draft started from before.
    public var previousVersion: ListVersion
    /// The list's version the draft starts from now: the session's new `baseVersion`.
    public var version: ListVersion
    /// The edits applied again, in order, as they were applied: rows and sections named by id,
    /// moved and added rows placed next to a row by id (or in a section by id). Edits that had
    /// changed nothing are kept as they were.
    public var kept: [Edit]
    /// The edits that could not be applied again, in order.
    public var dropped: [DroppedEdit]
    /// The changeset from the list at `version` to the new draft (the session's new
    /// `pendingChanges`), for a view that shows the list as it is now.
    public var changeset: Changeset
}

/// An edit that `EditSession.rebase()` could not apply again.
public struct DroppedEdit: Hashable, Sendable {
    /// Why an edit was dropped.
    public enum Reason: Hashable, Sendable, CustomStringConvertible {
        /// The row it moves, updates or deletes is gone: deleted by another writer, or created by
        /// an edit of the session that was dropped.
        case rowGone(RowID)
        /// The section it renames, moves or deletes, or the one a row was to go into, is gone.
        case sectionGone(SectionID)
        /// The list as it is now refuses it (a section to delete, not forced, now has rows).
        case refused(RepositoryError)

        public var description: String {
            switch self {
            case .rowGone(let id): return "row #\(id) is gone"
            case .sectionGone(let id): return "section #\(id) is gone"
            case .refused(let error): return error.description
            }
        }
    }

    /// The edit's index among the session's edits before the rebase.
    public var index: Int
    /// The edit, as the session had applied it.
    public var edit: Edit
    /// Why it was dropped.
    public var reason: Reason
}

/// Writes a session's steps inside the save's transaction.
private struct Replay {
    /// A step found the database other than the session left it: a row or section is gone.
    enum Mismatch: Error { case mismatch }

    let list: ListRecord
    let db: any Database
    /// Draft ids (negative) of what the session created → their stored ids.
    var storedIDs: [Int64: Int64] = [:]
    /// The rows of `storedIDs`, by their typed ids.
    var storedRowIDs: [RowID: RowID] = [:]
    /// The sections of `storedIDs`, by their typed ids.
    var storedSectionIDs: [SectionID: SectionID] = [:]
    var positionWrites = 0

    init(list: ListRecord, db: any Database) {
        self.list = list
        self.db = db
    }

    func stored(_ id: Int64) -> Int64 { storedIDs[id] ?? id }

    /// Requires that a statement changed exactly one row: otherwise what the session saw is gone.
    private func requireOne(_ changed: Int) throws {
        guard changed == 1 else { throw Mismatch.mismatch }
    }

    /// The stored id of a section of this list.
    private func storedSection(_ id: Int64) throws -> Int64 {
        let stored = stored(id)
        guard try db.sectionExists(id: stored, in: list) else { throw Mismatch.mismatch }
        return stored
    }

    mutating func write(_ step: ReplayStep) throws {
        switch step {
        case .nothing:
            break
        case .insertSection(let draftID, let title, let emptyText, let neighbours):
            let position = try place(in: .sections, parentID: list.id, neighbours: neighbours, movingID: nil)
            let storedID = try db.insertSection(title: title, emptyText: emptyText, position: position, in: list)
            storedIDs[draftID] = storedID
            storedSectionIDs[SectionID(draftID)] = SectionID(storedID)
        case .setSection(let id, let title, let emptyText):
            try requireOne(db.updateSection(id: stored(id), title: title, emptyText: emptyText, in: list))
        case .moveSection(let id, let neighbours):
            let moving = try storedSection(id)
            let position = try place(in: .sections, parentID: list.id, neighbours: neighbours, movingID: moving)
            try requireOne(db.placeSection(id: moving, position: position, in: list))
        case .deleteSection(let id):
            try requireOne(db.deleteSection(id: stored(id), in: list))
        case .insertRow(let draftID, let content, let sectionID, let neighbours):
            let section = try storedSection(sectionID)
            let position = try place(in: .rows, parentID: section, neighbours: neighbours, movingID: nil)
            let storedID = try db.insertRow(content, section: section, position: position)
            storedIDs[draftID] = storedID
            storedRowIDs[RowID(draftID)] = RowID(storedID)
        case .setRow(let id, let content):
            try requireOne(db.updateRow(id: stored(id), to: content, in: list))
        case .moveRow(let id, let sectionID, let neighbours):
            let section = try storedSection(sectionID)
            let position = try place(in: .rows, parentID: section, neighbours: neighbours, movingID: stored(id))
            try requireOne(db.placeRow(id: stored(id), section: section, position: position, in: list))
        case .deleteRow(let id):
            try requireOne(db.deleteRow(id: stored(id), in: list))
        }
    }

    /// A position between the stored neighbours, looked up by id.
    private mutating func place(in table: OrderedTable, parentID: Int64, neighbours: Neighbours, movingID: Int64?) throws -> Int64 {
        func position(_ id: Int64?) throws -> Int64? {
            guard let id else { return nil }
            guard let position = try table.position(ofItem: stored(id), of: parentID, in: db) else { throw Mismatch.mismatch }
            return position
        }
        let place = try table.position(
            between: try position(neighbours.before), and: try position(neighbours.after), of: parentID, movingID: movingID, in: db)
        positionWrites += place.rewritten + 1
        return place.position
    }
}
