import SQLite

/// Bulk appends and deletes on SQLite (`Migrations/0007_bulk_append.sql`): with
/// `journal_writer.bulk` set, the row insert and delete triggers (and the section insert ones)
/// are off, and what they would have written is written here, set-based.
extension SQLiteEngine {
    package func beginBulkAppend() throws -> Bool {
        try run("UPDATE journal_writer SET bulk = 1 WHERE id = 1") == 1
    }

    package func highestItemIDs() throws -> (section: Int64, row: Int64) {
        (try scalarInt("SELECT coalesce(max(id), 0) FROM sections") ?? 0, try scalarInt("SELECT coalesce(max(id), 0) FROM rows") ?? 0)
    }

    /// The appended sections come after every other section of the list, and the appended rows
    /// after every other row of their sections: each lands in the last rank node of every level,
    /// so the counts go there, and a level-1 node past its bound is noted for `RankTree.settle`,
    /// as the triggers would have. Undo entries go sections first (one entry for them all when
    /// their ids run in sequence: `logSectionInserts`), then rows, each in id order:
    /// undoing deletes the rows before their sections, redoing inserts them after. Rows appended
    /// to a section appended here get no entry of their own: undoing the section's insert
    /// empties it first (`SectionStore.reverse`), so an import into a new list logs its sections
    /// only, not a million rows. That is safe because nothing in the step writes such a section's
    /// rows before they are appended (its positions are its own, from the first): an unlogged
    /// insert that came after a logged write to the same section (a row put where another had
    /// been deleted) would still be there when that write is taken back.
    package func finishBulkAppend(list: Int64, sectionsAfter: Int64, rowsAfter: Int64) throws {
        let origin = RankTree.origin
        let levels = RankTree.levels.map(String.init).joined(separator: ", ")
        let maximum = RankTree.maximumChildren
        // The sections: their rank structure's first nodes, their list's section counts, undo.
        let sections =
            try run(
                """
                INSERT INTO rank_nodes (section_id, level, first)
                SELECT s.id, l.value, ? FROM sections AS s, json_each('[\(levels)]') AS l
                WHERE s.id > ? AND +s.list_id = ?
                """, origin, sectionsAfter, list) / RankTree.levels.count
        if sections > 0 {
            for level in RankTree.levels {
                try run(
                    """
                    UPDATE section_rank_nodes SET section_count = section_count + ?
                    WHERE list_id = ? AND level = ? AND first = (SELECT max(first) FROM section_rank_nodes WHERE list_id = ? AND level = ?)
                    """, sections, list, level, list, level)
            }
            try run(
                """
                INSERT OR IGNORE INTO section_rank_pending (list_id, first)
                SELECT list_id, first FROM section_rank_nodes
                WHERE list_id = ? AND level = 1 AND section_count > \(maximum)
                    AND first = (SELECT max(first) FROM section_rank_nodes WHERE list_id = ? AND level = 1)
                """, list, list)
            try logSectionInserts(list: list, sectionsAfter: sectionsAfter, count: sections)
        }
        // The rows: their sections' counts, the last rank node of each level, undo. Each reads the
        // rows the append wrote by their rowid range: `+` keeps SQLite from the (section_id,
        // position) index, which it would otherwise take for the grouping and the condition on
        // section_id, reading every row the file held before (an import's cost would grow with
        // the file it lands in).
        let added = "SELECT section_id, count(*) AS n FROM rows WHERE id > ? GROUP BY +section_id"
        if try run("UPDATE sections SET row_count = row_count + a.n FROM (\(added)) AS a WHERE sections.id = a.section_id", rowsAfter) > 0 {
            try run(
                """
                UPDATE rank_nodes SET row_count = row_count + a.n FROM (\(added)) AS a
                WHERE rank_nodes.section_id = a.section_id AND rank_nodes.first = (
                    SELECT max(m.first) FROM rank_nodes AS m WHERE m.section_id = a.section_id AND m.level = rank_nodes.level)
                """, rowsAfter)
            try run(
                """
                INSERT OR IGNORE INTO rank_pending (section_id, first)
                SELECT n.section_id, n.first FROM rank_nodes AS n
                WHERE n.level = 1 AND n.row_count > \(maximum)
                    AND n.section_id IN (SELECT DISTINCT +section_id FROM rows WHERE id > ?)
                    AND n.first = (SELECT max(m.first) FROM rank_nodes AS m WHERE m.section_id = n.section_id AND m.level = 1)
                """, rowsAfter)
            try run(
                """
                INSERT INTO undo_log (step, list_id, action, target, item_id)
                SELECT (SELECT step FROM journal_writer), ?, 'insert', 'row', id FROM rows WHERE id > ? AND +section_id <= ? ORDER BY id
                """, list, rowsAfter, sectionsAfter)
        }
        try run("UPDATE journal_writer SET bulk = 0 WHERE id = 1")
    }

    /// Logs the insert of the list's sections with an id after `sectionsAfter` (`count` of
    /// them) for undo: as one entry naming the first id and the last
    /// (`Migrations/0013_compact_bulk_history.sql`) when their ids run in sequence, as they do
    /// when this transaction appended them one after another, so that dropping the step later
    /// deletes one entry whatever the import's size; otherwise one entry each, in id order.
    private func logSectionInserts(list: Int64, sectionsAfter: Int64, count: Int) throws {
        let logged = try run(
            """
            INSERT INTO undo_log (step, list_id, action, target, item_id, last_id)
            SELECT (SELECT step FROM journal_writer), ?, 'insert', 'section', low, nullif(high, low)
            FROM (SELECT min(id) AS low, max(id) AS high, count(*) AS n FROM sections WHERE id > ? AND +list_id = ?)
            WHERE n = ? AND high - low + 1 = n
            """, list, sectionsAfter, list, Int64(count))
        guard logged == 0 else { return }
        try run(
            """
            INSERT INTO undo_log (step, list_id, action, target, item_id)
            SELECT (SELECT step FROM journal_writer), list_id, 'insert', 'section', id FROM sections
            WHERE id > ? AND +list_id = ? ORDER BY id
            """, sectionsAfter, list)
    }

    /// Empties the sections that `condition` (on `sections`, with `arguments`) picks, all of
    /// them the list's: the undo log's entries for their rows first (in each section from its
    /// last row to its first, so that undo puts them back in order, each after the one before),
    /// then the rows, with the triggers off, then each section's row count and rank structure set
    /// to an empty section's. The rows are deleted `bulkDeleteBatch` at a time: SQLite collects
    /// the rowids a `DELETE` on a table with triggers is to delete before deleting any, so one
    /// statement for a million rows would hold a million of them in memory.
    package func emptySectionsInBulk(list: Int64, where condition: String, _ arguments: [(any SQLArgument)?]) throws -> Bool {
        guard try run("UPDATE journal_writer SET bulk = 1 WHERE id = 1") == 1 else { return false }
        try execute(
            script: """
                CREATE TEMP TABLE IF NOT EXISTS picked_sections (id INTEGER PRIMARY KEY);
                DELETE FROM temp.picked_sections;
                """)
        try run("INSERT INTO temp.picked_sections SELECT id FROM sections WHERE list_id = ? AND \(condition)", arguments: [list] + arguments)
        let picked = "SELECT id FROM temp.picked_sections"
        try run(
            """
            INSERT INTO undo_log (step, list_id, action, target, item_id, parent_id, position, kind, title, value)
            SELECT (SELECT step FROM journal_writer), ?, 'delete', 'row', id, section_id, position, kind, title, value
            FROM rows WHERE section_id IN (\(picked)) ORDER BY section_id, position DESC
            """, list)
        while try run("DELETE FROM rows WHERE id IN (SELECT id FROM rows WHERE section_id IN (\(picked)) LIMIT ?)", Int64(Self.bulkDeleteBatch))
            == Self.bulkDeleteBatch
        {}
        try run("UPDATE sections SET row_count = 0 WHERE id IN (\(picked)) AND row_count <> 0")
        try run("DELETE FROM rank_pending WHERE section_id IN (\(picked))")
        try run("DELETE FROM rank_nodes WHERE section_id IN (\(picked)) AND first <> ?", RankTree.origin)
        try run("UPDATE rank_nodes SET row_count = 0 WHERE section_id IN (\(picked)) AND row_count <> 0")
        try run("UPDATE journal_writer SET bulk = 0 WHERE id = 1")
        return true
    }

    /// The rows a bulk delete deletes in one statement.
    static let bulkDeleteBatch = 10_000
}
