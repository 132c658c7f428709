/// What a committed version does to a list's undo history.
package enum HistoryStep {
    /// A new change: it can be undone, and nothing can be redone any more.
    case change
    /// The undo of `version`, which leaves the undo history and can be redone.
    case undo(of: ListVersion)
    /// The redo of the undo at `version`: it can be undone again.
    case redo(of: ListVersion)
    /// Work received from elsewhere: a replica's clone, or its pull of others' changes. It is
    /// nobody's step here, so it cannot be undone, and the steps before it cannot be either
    /// (their logs would take back what it brought): the list's history starts anew after it.
    case received
}

extension Journal {
    /// How many changes of each list can be undone, at least.
    static let keptUndoSteps = SchemaConstants.undoKeptSteps
}

extension ListHandle {
    /// Takes back the list's last change — one command, or one saved session — as a new
    /// committed change: a new version, journaled, seen by observers like any other. A deleted
    /// row comes back in its place with its id. Undoing again takes back the change before.
    ///
    /// - Returns: the change the undo made: the list's new version and the changeset from the
    ///   state before the undo (the inverse of the undone change's).
    /// - Throws: `RepositoryError.nothingToUndo`; `.cannotUndo` when the list was changed with
    ///   plain SQL since, or its last change is not one the journal can invert. Nothing is written.
    /// - Complexity: O(rows the undone change wrote).
    @discardableResult
    public func undo() throws -> Change {
        try store.takeBack(list: name, from: .undo, as: { .undo(of: $0) }, orElse: { .nothingToUndo(list: $0) })
    }

    /// Reapplies the change the last `undo` took back, as a new committed change. Only possible
    /// until a new change is made to the list.
    /// - Throws: `RepositoryError.nothingToRedo`, or `.cannotUndo` as `undo()` does.
    /// - Complexity: O(rows the undone change wrote).
    @discardableResult
    public func redo() throws -> Change {
        try store.takeBack(list: name, from: .redo, as: { .redo(of: $0) }, orElse: { .nothingToRedo(list: $0) })
    }
}

extension SectionStore {
    /// Reverses the newest step of `table` as a new committed change, filed in the history as
    /// `history` says.
    fileprivate func takeBack(
        list: String, from table: UndoHistory, as history: (ListVersion) -> HistoryStep, orElse nothing: (String) -> RepositoryError
    ) throws -> Change {
        try write { db in
            let record = try db.listRecord(named: list)
            guard let (version, step) = try db.newestHistoryStep(table, of: record.id) else { throw nothing(record.name) }
            let inverse = try reverse(step: step, version: version, of: record, db: db)
            let newVersion = try Journal.commit(inverse, to: record, history: history(version), db: db, store: self)
            return Change(list: try db.listRecord(id: record.id).name, version: newVersion, changeset: inverse)
        }
    }

    /// Replays the log of `step` backwards for the list, and returns the inverse of the
    /// changeset journaled at `version`.
    private func reverse(step: Int64, version: ListVersion, of list: ListRecord, db: any Database) throws -> Changeset {
        func refuse(_ reason: String) -> RepositoryError { .cannotUndo(list: list.name, reason: reason) }
        guard try db.isJournaled(listID: list.id) else {
            throw refuse("the list was changed outside sectionctl since its last change")
        }
        let barrier = try db.plainVersion(ofList: list.id)
        guard version > barrier else {
            throw refuse("version \(version) came before version \(barrier), made outside sectionctl (plain SQL, or a repair)")
        }
        guard let json = try db.journalEntry(list: list.id, version: version),
            let changeset = try? Changeset(json: json)
        else { throw refuse("what version \(version) changed is not known (it followed a change made outside sectionctl)") }

        // Page by page, newest first. A run of row inserts or row deletes (a deleted section's
        // rows) is taken back in bulk where the engine can; every other entry, and any run the
        // engine cannot take in bulk, one by one. A run of section inserts first empties those
        // of its sections that still have rows, in bulk where the engine can, logging the rows
        // for redo: rows a bulk write put into a section it created have no entries of their
        // own (an import's rows, `finishBulkAppend`). Likewise, sections put back are noted
        // (`noteSectionsPutBack`) until a logged write of rows follows, and rows put back into
        // them in bulk meanwhile are not logged: taking this step back empties those sections
        // before deleting them, and no logged write of rows came between (one that did, say a row
        // moved into a place a row put back later had, must be taken back with those rows gone).
        func refusal(_ outcome: BulkReversal) -> RepositoryError? {
            switch outcome {
            case .applied, .unsupported: return nil
            case .missing: return refuse("a row or section it needs is gone")
            case .foreign: return refuse("its history names a row or section of another list")
            }
        }
        // Whether sections are noted as put back (so a logged write of rows must forget them).
        var sectionsPutBack = false
        func loggedRowWrite() throws {
            guard sectionsPutBack else { return }
            try db.forgetSectionsPutBack()
            sectionsPutBack = false
        }
        func takeBack(_ run: [UndoLogEntry]) throws {
            guard let first = run.first else { return }
            if first.target == "section" && first.action == "insert" {
                let ids = "[" + run.map { String($0.itemID) }.joined(separator: ",") + "]"
                try loggedRowWrite()
                _ = try db.emptySectionsInBulk(
                    list: list.id, where: "id IN (SELECT value FROM json_each(?)) AND EXISTS (SELECT 1 FROM rows WHERE section_id = sections.id)",
                    [ids])
            } else if first.target == "row" && run.count >= Self.bulkReversalMinimum {
                let ids = run.map(\.logID)
                if first.action == "insert" { try loggedRowWrite() }
                let outcome =
                    first.action == "insert"
                    ? try db.deleteLoggedRowsInBulk(list: list.id, logIDs: ids) : try db.restoreLoggedRowsInBulk(list: list.id, logIDs: ids)
                if let refused = refusal(outcome) { throw refused }
                if outcome == .applied { return }
            }
            if first.target == "row" { try loggedRowWrite() }
            for entry in run {
                guard try db.belongs(entry, to: list.id) else { throw refuse("its history names a row or section of another list") }
                guard try db.reverse(entry) == 1 else { throw refuse("a row or section it needs is gone") }
            }
            if first.target == "section" && first.action == "delete" {
                try db.noteSectionsPutBack(run.map(\.itemID))
                sectionsPutBack = true
            }
        }
        // An entry for a run of sections inserted together (a bulk append's): the sections from
        // the last id down to the first, `undoLogPage` at a time, as the entries of one each
        // would have been taken back.
        func takeBack(sectionsOf entry: UndoLogEntry, through last: Int64) throws {
            guard entry.target == "section", entry.action == "insert", entry.itemID > 0, last > entry.itemID else {
                throw refuse("its history holds an entry for sections #\(entry.itemID)…#\(last) that is not a run of sections inserted")
            }
            var high = last
            while true {
                let low = max(entry.itemID, high - Int64(Self.undoLogPage) + 1)
                try takeBack(
                    (low...high).reversed().map { UndoLogEntry(logID: entry.logID, action: "insert", target: "section", itemID: $0) })
                guard low > entry.itemID else { return }
                high = low - 1
            }
        }
        do {
            // Nothing is noted yet in this step (a replay before, on this connection, may have).
            try db.forgetSectionsPutBack()
            var before: Int64?
            var run: [UndoLogEntry] = []
            var inRun = Set<Int64>()
            while true {
                let page = try db.undoLog(step: step, list: list.id, before: before, limit: Self.undoLogPage)
                for entry in page {
                    if let last = entry.lastItemID {
                        try takeBack(run)
                        run.removeAll(keepingCapacity: true)
                        inRun.removeAll(keepingCapacity: true)
                        try takeBack(sectionsOf: entry, through: last)
                        continue
                    }
                    let bulk =
                        entry.target == "row" && (entry.action == "insert" || entry.action == "delete")
                        || entry.target == "section" && (entry.action == "insert" || entry.action == "delete")
                    if let last = run.last,
                        !bulk || entry.target != last.target || entry.action != last.action || inRun.contains(entry.itemID)
                            || run.count >= Self.undoLogPage
                    {
                        try takeBack(run)
                        run.removeAll(keepingCapacity: true)
                        inRun.removeAll(keepingCapacity: true)
                    }
                    if bulk {
                        run.append(entry)
                        inRun.insert(entry.itemID)
                    } else {
                        try takeBack([entry])
                    }
                }
                guard page.count == Self.undoLogPage, let last = page.last else { break }
                before = last.logID
            }
            try takeBack(run)
        } catch  where error.isConstraintViolation {
            throw refuse("the list as it is now does not allow it (\(error))")
        }
        return changeset.inverted()
    }

    /// The `undo_log` entries read at a time while a step is taken back, and the most taken
    /// back in one bulk statement.
    static let undoLogPage = 10_000
    /// The shortest run of row inserts or deletes taken back in bulk; shorter runs go entry by
    /// entry (a bulk statement's fixed cost would outweigh what it saves).
    static let bulkReversalMinimum = 4
}

extension Database {
    /// Whether reversing `entry` writes only into `list`: the row or section it names (where it
    /// exists now) and the section or list it puts it back in are the list's. Rows and sections
    /// never move between lists, so a log naming another list's is not this list's history.
    fileprivate func belongs(_ entry: UndoLogEntry, to list: Int64) throws -> Bool {
        switch entry.target {
        case "row":
            if entry.action != "delete", let owner = try listID(ofRow: entry.itemID), owner != list { return false }
            if let section = entry.parentID, let owner = try listID(ofSection: section), owner != list { return false }
            return true
        case "section":
            if entry.action != "delete", let owner = try listID(ofSection: entry.itemID), owner != list { return false }
            return entry.parentID.map { $0 == list } ?? true
        default:
            return entry.itemID == list
        }
    }

    /// Writes the reverse of a logged write. Returns how many rows it changed (1 when it applied).
    fileprivate func reverse(_ entry: UndoLogEntry) throws -> Int {
        switch (entry.target, entry.action) {
        case ("row", "insert"):
            return try deleteRow(id: entry.itemID)
        case ("row", "delete"):
            return try restoreRow(
                id: entry.itemID, section: entry.parentID, position: entry.position, kind: entry.kind, title: entry.title, value: entry.value)
        case ("row", _):
            return try overwriteRow(
                id: entry.itemID, section: entry.parentID, position: entry.position, kind: entry.kind, title: entry.title, value: entry.value)
        case ("section", "insert"):
            return try deleteSection(id: entry.itemID)
        case ("section", "delete"):
            return try restoreSection(
                id: entry.itemID, list: entry.parentID, position: entry.position, title: entry.title, emptyText: entry.value)
        case ("section", _):
            return try overwriteSection(
                id: entry.itemID, list: entry.parentID, position: entry.position, title: entry.title, emptyText: entry.value)
        default:  // a list's name
            return try renameList(id: entry.itemID, toUnused: entry.title)
        }
    }
}
