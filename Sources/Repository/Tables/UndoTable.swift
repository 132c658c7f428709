/// The undo tables (`Migrations/0004_undo.sql`): `undo_steps` and `redo_steps` (per list, the
/// versions that can be undone or redone and the writer step that made each), `undo_log` (what
/// each step's writes overwrote) and the step counter of `journal_writer`. Every read and write
/// of them goes through here.
enum UndoHistory {
    /// The changes that can be undone.
    case undo
    /// The undos that can be redone.
    case redo

    var table: String {
        switch self {
        case .undo: return "undo_steps"
        case .redo: return "redo_steps"
        }
    }
}

/// One logged write of a step, as `undo_log` keeps it.
struct UndoLogEntry {
    /// The entry's own id in `undo_log`: entries of a step are taken back from the highest.
    var logID: Int64
    /// `insert`, `delete` or `update`.
    package var action: String
    /// `row`, `section` or `list`.
    package var target: String
    var itemID: Int64
    /// The section of a row, the list of a section, as it was.
    var parentID: Int64?
    package var position: Int64?
    package var kind: String?
    package var title: String?
    package var value: String?
    /// The last id of a run of sections inserted together (`itemID` the first), logged as one
    /// entry by a bulk append (`Migrations/0013_compact_bulk_history.sql`); `nil` for an entry
    /// of one item.
    var lastItemID: Int64?
}

extension SQLExecutor {
    /// The step number of the open write transaction: the key of its `undo_log` entries.
    func currentWriterStep() throws -> Int64 {
        guard let step = try scalarInt("SELECT step FROM journal_writer WHERE id = 1") else {
            throw RepositoryError.inconsistent("journal_writer has lost its row")
        }
        return step
    }

    /// The list's steps in `history`, newest first, past the `skippingNewest` newest.
    func historySteps(_ history: UndoHistory, of list: Int64, skippingNewest skipped: Int = 0) throws
        -> [(version: ListVersion, step: Int64)]
    {
        try query(
            "SELECT version, step FROM \(history.table) WHERE list_id = ? ORDER BY version DESC LIMIT ? OFFSET ?", list, Int64.max, skipped
        ) { ($0.listVersion(0), $0.int64(1)) }
    }

    /// The list's newest step in `history`, if any.
    func newestHistoryStep(_ history: UndoHistory, of list: Int64) throws -> (version: ListVersion, step: Int64)? {
        try queryFirst("SELECT version, step FROM \(history.table) WHERE list_id = ? ORDER BY version DESC LIMIT 1", list) {
            ($0.listVersion(0), $0.int64(1))
        }
    }

    /// The step that made `version` of the list, if `history` holds it.
    func historyStep(_ history: UndoHistory, list: Int64, version: ListVersion) throws -> Int64? {
        try scalarInt("SELECT step FROM \(history.table) WHERE list_id = ? AND version = ?", list, version.rawValue)
    }

    func addHistoryStep(_ history: UndoHistory, list: Int64, version: ListVersion, step: Int64) throws {
        try run("INSERT INTO \(history.table) (list_id, version, step) VALUES (?, ?, ?)", list, version.rawValue, step)
    }

    func removeHistoryStep(_ history: UndoHistory, list: Int64, version: ListVersion) throws {
        try run("DELETE FROM \(history.table) WHERE list_id = ? AND version = ?", list, version.rawValue)
    }

    func clearHistory(_ history: UndoHistory, of list: Int64) throws {
        try run("DELETE FROM \(history.table) WHERE list_id = ?", list)
    }

    /// Drops what `step` logged for the list (and for the rows of its sections deleted then,
    /// logged under list -1).
    /// Deletes a batch at a time: a `DELETE` of a million entries at once holds every rowid it
    /// is to delete in memory first (the table has a delete trigger), so the undo of a large
    /// change would grow with it.
    func dropUndoLog(step: Int64, list: Int64) throws {
        let batch = 10_000
        while try run(
            "DELETE FROM undo_log WHERE id IN (SELECT id FROM undo_log WHERE list_id IN (?, -1) AND step = ? LIMIT ?)", list, step, Int64(batch))
            == batch
        {}
    }

    /// What `step` logged for the list, newest first: its own writes, and the rows of the
    /// sections it deleted; at most `limit` entries, those logged before the entry `before`
    /// (all of them when `nil`). Taking a step back page by page holds one page at a time; each
    /// page costs O(limit): the two halves are read from `undo_log_step` in id order and merged.
    func undoLog(step: Int64, list: Int64, before: Int64? = nil, limit: Int = Int.max) throws -> [UndoLogEntry] {
        try query(
            """
            SELECT id, action, target, item_id, parent_id, position, kind, title, value, last_id FROM undo_log
            WHERE list_id = ? AND step = ? AND id < ?
            UNION ALL
            SELECT id, action, target, item_id, parent_id, position, kind, title, value, last_id FROM undo_log
            WHERE list_id = -1 AND step = ? AND id < ? AND parent_id IN (
                SELECT item_id FROM undo_log WHERE list_id = ? AND step = ? AND target = 'section' AND action = 'delete')
            ORDER BY id DESC LIMIT ?
            """, list, step, before ?? Int64.max, step, before ?? Int64.max, list, step, Int64(limit)
        ) { statement in
            UndoLogEntry(
                logID: statement.int64(0), action: statement.string(1), target: statement.string(2), itemID: statement.int64(3),
                parentID: statement.optionalInt64(4), position: statement.optionalInt64(5),
                kind: statement.optionalString(6), title: statement.optionalString(7), value: statement.optionalString(8),
                lastItemID: statement.optionalInt64(9))
        }
    }
}
