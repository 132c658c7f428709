/// An editing view (a reorder mode) over an edit session: the view shows the session's draft
/// while the session is open, and the adapter keeps the two together.
///
/// - A user's drag (`userMovedRow(from:to:)`) is applied to the draft without animation: the
///   table view has already moved the cell. Only the footers that changed are set. (AppKit's
///   table view moves nothing on a drop: there the move is animated.)
/// - A programmatic edit (`apply(_:)`, `undoLastEdit()`) animates from what is shown.
/// - When another writer moves the list on, `catchUp()` rebases the session onto the list as it
///   now is and animates from what is shown to the new draft (not from the list: the view
///   shows the draft).
/// - `save()` re-keys what the view shows from the draft's ids (negative) to the stored ones
///   without animation — a diffable view would otherwise delete and insert those rows — and
///   continues at the saved version. On a conflict it rebases (animated) and throws; save again.
/// - `cancel()` animates back to the list as it now is.
///
/// The DocC article "Table view recipes" shows a reorder-mode view on it.
extension ListViewAdapter {
    /// Opens an edit session on the list and shows its draft, animated from what is shown (an
    /// editing view's footers appear). Does nothing while one is open.
    /// - Throws: what beginning a session throws (`RepositoryError.listNotFound`).
    public func beginEditing() throws {
        guard session == nil else { return }
        let session = try list.beginEditing()
        self.session = session
        show(nil, leadingTo: try session.snapshot())
    }

    /// Takes in a row the user dragged in the table view from `source` to `destination` (its
    /// path after the move, as `tableView(_:moveRowAt:to:)` gives it): the draft moves it too,
    /// and the view is not animated, since it shows the move already; the footers of the two
    /// sections are set when their text changed (one emptied, one filled). A view without
    /// sections (`FlatListTableView`), which moves nothing on a drop, is animated instead; its
    /// drop's destination is `flatLayout.destination(ofDropAbove:from:)`.
    ///
    /// The move is given to the session by ids (the row, and its new neighbour), so that when
    /// another writer has moved the list on since what is shown, the session is rebased and the
    /// row still lands next to the neighbour the user put it by; what the rebase changed is then
    /// animated from the screen.
    /// - Throws: `RepositoryError.sessionClosed` with no session open; what the session throws.
    public func userMovedRow(from source: RowPath, to destination: RowPath) throws {
        guard let session else { throw RepositoryError.sessionClosed }
        var moved = snapshot
        let row = moved.sections[source.section].rows.remove(at: source.row)
        moved.sections[destination.section].rows.insert(row, at: destination.row)
        let neighbours = moved.sections[destination.section].rows
        let place: RowDestination =
            destination.row > 0
            ? .after(neighbours[destination.row - 1].id)
            : neighbours.count > 1
                ? .before(neighbours[1].id) : RowDestination(section: .id(moved.sections[destination.section].id), index: .index(0))
        show(nil, leadingTo: moved, .alreadyShown)
        let edit = Edit.moveRow(.id(row.id), to: place)
        do {
            try session.apply(edit)
        } catch RepositoryError.conflict {
            try session.rebase()
            _ = try? session.apply(edit)  // the row, or its neighbour, may be gone
        }
        let draft = try session.snapshot()
        if draft != snapshot { show(nil, leadingTo: draft) }
    }

    /// Applies `edit` to the session's draft and animates it from what is shown.
    /// - Returns: what the session reports (`EditSession.apply(_:)`): the changeset in the
    ///   draft, and the draft id of what the edit created.
    /// - Throws: `RepositoryError.sessionClosed` with no session open; what the edit throws
    ///   (nothing changes then). `RepositoryError.conflict` when another writer moved the list
    ///   on: the session is rebased first (animated), and the edit, whose places named what was
    ///   shown before, is not applied; apply it again.
    @discardableResult
    public func apply(_ edit: Edit) throws -> Change {
        guard let session else { throw RepositoryError.sessionClosed }
        let change = try rebasingOnConflict { try session.apply(edit) }
        show(change.changeset, leadingTo: try session.snapshot())
        return change
    }

    /// Takes back the session's last edit and animates it (`EditSession.undoLastEdit()`).
    /// - Throws: `RepositoryError.sessionClosed` with no session open; what the undo throws;
    ///   `RepositoryError.conflict` as `apply(_:)` does.
    @discardableResult
    public func undoLastEdit() throws -> Change {
        guard let session else { throw RepositoryError.sessionClosed }
        let change = try rebasingOnConflict { try session.undoLastEdit() }
        show(change.changeset, leadingTo: try session.snapshot())
        return change
    }

    /// Runs `body`; when it throws `RepositoryError.conflict` and the list still exists, rebases
    /// the session (animated) before throwing it on.
    private func rebasingOnConflict<T>(_ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch RepositoryError.conflict(let list, let sessionVersion, let currentVersion) {
            if currentVersion != nil { try rebase() }
            throw RepositoryError.conflict(list: list, sessionVersion: sessionVersion, currentVersion: currentVersion)
        }
    }

    /// Moves the session onto the list as it now is (`EditSession.rebase()`) and animates from
    /// what is shown to the new draft.
    /// - Throws: `RepositoryError.sessionClosed` with no session open; what the rebase throws.
    @discardableResult
    public func rebase() throws -> RebaseReport {
        guard let session else { throw RepositoryError.sessionClosed }
        let report = try session.rebase()
        show(nil, leadingTo: try session.snapshot())
        return report
    }

    /// Rebases the open session when the list has moved past `base`, the version the draft
    /// shown starts from.
    func rebaseIfListMoved(pastBase base: ListVersion) throws {
        if try list.changes(since: base).version != base { try rebase() }
    }

    /// Saves the session (`EditSession.save()`) and shows the list at the saved version: what
    /// is shown is re-keyed from the draft's ids to the stored ones without animation, then
    /// anything else that differs (the footers of a view that is not editing) is animated, and
    /// the view catches up with whatever was committed since.
    /// - Returns: what the save reports.
    /// - Throws: `RepositoryError.conflict` when the list changed since the session's base: the
    ///   session is rebased onto it first (animated) and stays open, so saving again succeeds
    ///   unless the list changes again. `RepositoryError.sessionClosed` with no session open.
    @discardableResult
    public func save() throws -> Change {
        guard let session else { throw RepositoryError.sessionClosed }
        let change = try rebasingOnConflict { try session.save() }
        self.session = nil
        var rekeyed = snapshot.mappingIDs(rows: session.savedRowIDs, sections: session.savedSectionIDs)
        // No longer a draft: the list as saved (or as it was, when the session changed nothing).
        rekeyed.version = change.committed ? change.version : session.baseVersion
        rekeyed.draftOf = nil
        show(nil, leadingTo: rekeyed, .rekeyed)
        if let saved = try? list.snapshot(editing: isEditing, atVersion: rekeyed.version) { show(Changeset(), leadingTo: saved) }
        try catchUp()
        return change
    }

    /// Discards the session (`EditSession.cancel()`) and animates back to the list as it now
    /// is: its base, or what other writers have made of it since. Does nothing with no session
    /// open.
    /// - Throws: what reading the list throws.
    public func cancel() throws {
        guard let session else { return }
        session.cancel()
        self.session = nil
        let new = try list.snapshot(editing: isEditing)
        show(nil, leadingTo: new)
        try catchUp()
    }
}

extension ListSnapshot {
    /// This snapshot with each row and section id found in `rows` and `sections` replaced by
    /// the id it maps to (a session's draft ids by the stored ones, after a save).
    func mappingIDs(rows: [RowID: RowID], sections: [SectionID: SectionID]) -> ListSnapshot {
        guard !rows.isEmpty || !sections.isEmpty else { return self }
        var result = self
        for index in result.sections.indices {
            if let id = sections[result.sections[index].id] { result.sections[index].id = id }
            for row in result.sections[index].rows.indices {
                if let id = rows[result.sections[index].rows[row].id] { result.sections[index].rows[row].id = id }
            }
        }
        return result
    }
}
