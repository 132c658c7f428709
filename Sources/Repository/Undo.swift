import SQLite

/// What a committed version does to a list's undo history.
enum HistoryStep {
    /// A new change: it can be undone, and nothing can be redone any more.
    case change
    /// The undo of `version`, which leaves the undo history and can be redone.
    case undo(of: Int64)
    /// The redo of the undo at `version`: it can be undone again.
    case redo(of: Int64)
}

extension Journal {
    /// How many changes of each list can be undone, at least.
    static let keptUndoSteps = 100

    /// Files the committed version (made by the current write transaction's step) in the list's
    /// undo or redo history, and drops the logs nothing can use any more. SQLite's side of
    /// `commit`: a server does the same in `sectionctl.commit_change`.
    static func record(_ history: HistoryStep, version: Int64, of list: ListRecord, db: any Database) throws {
        let step = try db.scalarInt("SELECT step FROM journal_writer WHERE id = 1")!
        switch history {
        case .change:
            let redoable = try db.query("SELECT step FROM redo_steps WHERE list_id = ?", list.id) { $0.int64(0) }
            for old in redoable { try dropLog(step: old, list: list, db: db) }
            try db.run("DELETE FROM redo_steps WHERE list_id = ?", list.id)
            try db.run("INSERT INTO undo_steps (list_id, version, step) VALUES (?, ?, ?)", list.id, version, step)
            let expired = try db.query(
                "SELECT version, step FROM undo_steps WHERE list_id = ? ORDER BY version DESC LIMIT -1 OFFSET ?", list.id, keptUndoSteps
            ) { ($0.int64(0), $0.int64(1)) }
            for (oldVersion, oldStep) in expired {
                try dropLog(step: oldStep, list: list, db: db)
                try db.run("DELETE FROM undo_steps WHERE list_id = ? AND version = ?", list.id, oldVersion)
            }
        case .undo(let undone):
            let undoneStep = try db.scalarInt("SELECT step FROM undo_steps WHERE list_id = ? AND version = ?", list.id, undone)!
            try dropLog(step: undoneStep, list: list, db: db)
            try db.run("DELETE FROM undo_steps WHERE list_id = ? AND version = ?", list.id, undone)
            try db.run("INSERT INTO redo_steps (list_id, version, step) VALUES (?, ?, ?)", list.id, version, step)
        case .redo(let redone):
            let redoneStep = try db.scalarInt("SELECT step FROM redo_steps WHERE list_id = ? AND version = ?", list.id, redone)!
            try dropLog(step: redoneStep, list: list, db: db)
            try db.run("DELETE FROM redo_steps WHERE list_id = ? AND version = ?", list.id, redone)
            try db.run("INSERT INTO undo_steps (list_id, version, step) VALUES (?, ?, ?)", list.id, version, step)
        }
    }

    private static func dropLog(step: Int64, list: ListRecord, db: any Database) throws {
        try db.run("DELETE FROM undo_log WHERE step = ? AND list_id IN (?, -1)", step, list.id)
    }
}

extension SectionStore {
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
    public func undo(list: String = SectionStore.defaultList) throws -> Change {
        try takeBack(list: list, from: "undo_steps", as: { .undo(of: $0) }, orElse: { .nothingToUndo(list: $0) })
    }

    /// Reapplies the change the last `undo` took back, as a new committed change. Only possible
    /// until a new change is made to the list.
    /// - Throws: `RepositoryError.nothingToRedo`, or `.cannotUndo` as `undo()` does.
    /// - Complexity: O(rows the undone change wrote).
    @discardableResult
    public func redo(list: String = SectionStore.defaultList) throws -> Change {
        try takeBack(list: list, from: "redo_steps", as: { .redo(of: $0) }, orElse: { .nothingToRedo(list: $0) })
    }

    /// Reverses the newest step of `table` (`undo_steps` or `redo_steps`) as a new committed
    /// change, filed in the history as `history` says.
    private func takeBack(
        list: String, from table: String, as history: (Int64) -> HistoryStep, orElse nothing: (String) -> RepositoryError
    ) throws -> Change {
        try write { db in
            let record = try db.listRecord(named: list)
            guard let (version, step) = try db.queryFirst(
                "SELECT version, step FROM \(table) WHERE list_id = ? ORDER BY version DESC LIMIT 1", record.id,
                row: { ($0.int64(0), $0.int64(1)) })
            else { throw nothing(record.name) }
            let inverse = try reverse(step: step, version: version, of: record, db: db)
            let newVersion = try Journal.commit(inverse, to: record, history: history(version), db: db)
            return Change(list: try db.listRecord(id: record.id).name, version: newVersion, changeset: inverse)
        }
    }

    /// Replays the log of `step` backwards for the list, and returns the inverse of the
    /// changeset journaled at `version`.
    private func reverse(step: Int64, version: Int64, of list: ListRecord, db: any Database) throws -> Changeset {
        func refuse(_ reason: String) -> RepositoryError { .cannotUndo(list: list.name, reason: reason) }
        guard try db.scalarInt("SELECT journaled FROM lists WHERE id = ?", list.id) == 1 else {
            throw refuse("the list was changed outside sectionctl since its last change")
        }
        guard let json = try db.queryFirst("SELECT changes FROM journal WHERE list_id = ? AND version = ?", list.id, version, row: { $0.string(0) }),
            let changeset = Changeset(journalJSON: json)
        else { throw refuse("what version \(version) changed is not known (it followed a change made outside sectionctl)") }

        let entries = try db.query(
            """
            SELECT action, target, item_id, parent_id, position, kind, title, value FROM undo_log
            WHERE step = ? AND (list_id = ? OR (list_id = -1 AND parent_id IN (
                SELECT item_id FROM undo_log WHERE step = ? AND list_id = ? AND target = 'section' AND action = 'delete')))
            ORDER BY id DESC
            """, step, list.id, step, list.id
        ) { statement in
            LogEntry(
                action: statement.string(0), target: statement.string(1), itemID: statement.int64(2),
                parentID: statement.optionalInt64(3), position: statement.optionalInt64(4),
                kind: statement.optionalString(5), title: statement.optionalString(6), value: statement.optionalString(7))
        }
        do {
            for entry in entries {
                guard try entry.reverse(in: db) == 1 else { throw refuse("a row or section it needs is gone") }
            }
        } catch where error.isConstraintViolation {
            throw refuse("the list no longer has room for it (\(error))")
        }
        return changeset.inverted()
    }
}

/// One logged write, and how to take it back.
private struct LogEntry {
    var action: String
    var target: String
    var itemID: Int64
    var parentID: Int64?
    var position: Int64?
    var kind: String?
    var title: String?
    var value: String?

    /// Writes the reverse of the entry. Returns how many rows it changed (1 when it applied).
    func reverse(in db: any Database) throws -> Int {
        switch (target, action) {
        case ("row", "insert"):
            return try db.run("DELETE FROM rows WHERE id = ?", itemID)
        case ("row", "delete"):
            return try db.run(
                "INSERT INTO rows (id, section_id, position, kind, title, value) VALUES (?, ?, ?, ?, ?, ?)",
                itemID, parentID, position, kind, title, value)
        case ("row", _):
            return try db.run(
                "UPDATE rows SET section_id = ?, position = ?, kind = ?, title = ?, value = ? WHERE id = ?",
                parentID, position, kind, title, value, itemID)
        case ("section", "insert"):
            return try db.run("DELETE FROM sections WHERE id = ?", itemID)
        case ("section", "delete"):
            return try db.run(
                "INSERT INTO sections (id, list_id, position, title, empty_text) VALUES (?, ?, ?, ?, ?)",
                itemID, parentID, position, title, value)
        case ("section", _):
            return try db.run(
                "UPDATE sections SET list_id = ?, position = ?, title = ?, empty_text = ? WHERE id = ?",
                parentID, position, title, value, itemID)
        default:  // a list's name
            if try db.scalarInt("SELECT count(*) FROM lists WHERE name = ? AND id <> ?", title, itemID) != 0 {
                return 0
            }
            return try db.run("UPDATE lists SET name = ? WHERE id = ?", title, itemID)
        }
    }
}
