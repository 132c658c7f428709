import SQLite

/// Undo and redo of large changes on SQLite: a run of logged row inserts is taken back by
/// deleting the rows, and a run of logged row deletes by inserting them again, each as a few
/// set-based statements with the row triggers off (`journal_writer.bulk`,
/// `Migrations/0007_bulk_append.sql`), doing what the triggers would have done row by row: the
/// sections' row counts, the rank nodes' counts (and `rank_pending` for a level-1 node out of
/// bounds), and the undo log's entries of the step being written, in the order the rows are
/// taken back.
extension SQLiteEngine {
    /// The rows the entries name, in the order given (`ord`), as `temp.bulk_rows`: for a
    /// deletion, the rows as they are; for a restoration, as the log kept them.
    private func stageBulkRows(logIDs: [Int64], fromLog: Bool) throws {
        try execute(
            script: """
                CREATE TEMP TABLE IF NOT EXISTS bulk_rows (
                    ord INTEGER PRIMARY KEY, id INTEGER NOT NULL, section_id INTEGER, position INTEGER, kind TEXT, title TEXT, value TEXT);
                CREATE INDEX IF NOT EXISTS temp.bulk_rows_place ON bulk_rows (section_id, position);
                DELETE FROM temp.bulk_rows;
                """)
        let list = "[" + logIDs.map(String.init).joined(separator: ",") + "]"
        if fromLog {
            try run(
                """
                INSERT INTO temp.bulk_rows SELECT j.key, u.item_id, u.parent_id, u.position, u.kind, u.title, u.value
                FROM json_each(?) AS j JOIN undo_log AS u ON u.id = j.value WHERE u.target = 'row' AND u.action = 'delete'
                """, list)
        } else {
            try run(
                """
                INSERT INTO temp.bulk_rows SELECT j.key, r.id, r.section_id, r.position, r.kind, r.title, r.value
                FROM json_each(?) AS j JOIN undo_log AS u ON u.id = j.value JOIN rows AS r ON r.id = u.item_id
                WHERE u.target = 'row' AND u.action = 'insert'
                """, list)
        }
    }

    /// `.missing` when a staged row's section is gone, `.foreign` when one is another list's;
    /// `nil` when every one is `list`'s.
    private func misplacedStagedRows(list: Int64, count: Int) throws -> BulkReversal? {
        let (found, ours) =
            try queryFirst(
                "SELECT count(s.id), coalesce(sum(s.list_id = ?), 0) FROM temp.bulk_rows AS b LEFT JOIN sections AS s ON s.id = b.section_id",
                list
            ) { ($0.int64(0), $0.int64(1)) } ?? (0, 0)
        if found < Int64(count) { return .missing }
        if ours < Int64(count) { return .foreign }
        return nil
    }

    /// Adds `sign` × the staged rows to their sections' counts and to the rank node of each
    /// level that holds each row's position, and notes the level-1 nodes left out of bounds.
    /// Each node's share is counted over the staged rows between its first position and the
    /// next node's (`bulk_rows_place`), for the nodes the staged rows' span reaches: a few
    /// hundred range counts for ten thousand rows, where a lookup per row and level took four
    /// times as many seeks as rows.
    private func countStagedRows(sign: Int) throws {
        try run(
            """
            UPDATE sections SET row_count = row_count + ? * b.n
            FROM (SELECT section_id, count(*) AS n FROM temp.bulk_rows GROUP BY section_id) AS b WHERE sections.id = b.section_id
            """, sign)
        // The nodes of a level that the staged rows of each section reach, with where the next begins.
        func reached(level: Int) -> String {
            """
            SELECT n.section_id, n.first, n.next FROM (
                SELECT r.section_id, r.first,
                    coalesce(lead(r.first) OVER (PARTITION BY r.section_id ORDER BY r.first), \(Int64.max)) AS next
                FROM rank_nodes AS r JOIN span AS s ON s.section_id = r.section_id
                WHERE r.level = \(level) AND r.first <= s.hi
                    AND r.first >= (SELECT max(m.first) FROM rank_nodes AS m WHERE m.section_id = s.section_id AND m.level = \(level) AND m.first <= s.lo)
            ) AS n
            """
        }
        let span = "span AS (SELECT section_id, min(position) AS lo, max(position) AS hi FROM temp.bulk_rows GROUP BY section_id)"
        for level in RankTree.levels {
            try run(
                """
                WITH \(span)
                UPDATE rank_nodes SET row_count = row_count + ? * c.n
                FROM (
                    SELECT n.section_id, n.first, (SELECT count(*) FROM temp.bulk_rows AS b
                        WHERE b.section_id = n.section_id AND b.position >= n.first AND b.position < n.next) AS n
                    FROM (\(reached(level: level))) AS n
                ) AS c
                WHERE c.n > 0 AND rank_nodes.section_id = c.section_id AND rank_nodes.level = ? AND rank_nodes.first = c.first
                """, sign, level)
        }
        let outOfBounds =
            sign > 0
            ? "r.row_count > \(RankTree.maximumChildren)" : "r.row_count < \(RankTree.minimumChildren) AND r.first > \(RankTree.origin)"
        try run(
            """
            WITH \(span)
            INSERT OR IGNORE INTO rank_pending (section_id, first)
            SELECT r.section_id, r.first FROM rank_nodes AS r JOIN (\(reached(level: 1))) AS n
                ON r.section_id = n.section_id AND r.level = 1 AND r.first = n.first
            WHERE \(outOfBounds)
            """)
    }

    package func takeBackLoggedRowsInBulk(_ write: LoggedRowWrite, list: Int64, logIDs: [Int64]) throws -> BulkReversal {
        switch write {
        case .insert: return try deleteLoggedRows(list: list, logIDs: logIDs)
        case .delete: return try restoreLoggedRows(list: list, logIDs: logIDs)
        }
    }

    /// Takes back logged row inserts: deletes the rows the `undo_log` entries `logIDs` name
    /// (in that order), where each still is in a section of `list`.
    private func deleteLoggedRows(list: Int64, logIDs: [Int64]) throws -> BulkReversal {
        try stageBulkRows(logIDs: logIDs, fromLog: false)
        guard try scalarInt("SELECT count(*) FROM temp.bulk_rows") == Int64(logIDs.count) else { return .missing }
        if let misplaced = try misplacedStagedRows(list: list, count: logIDs.count) { return misplaced }
        guard try beginBulkAppend() else { return .unsupported }
        try run(
            """
            INSERT INTO undo_log (step, list_id, action, target, item_id, parent_id, position, kind, title, value)
            SELECT (SELECT step FROM journal_writer), ?, 'delete', 'row', id, section_id, position, kind, title, value
            FROM temp.bulk_rows ORDER BY ord
            """, list)
        try countStagedRows(sign: -1)
        try run("DELETE FROM rows WHERE id IN (SELECT id FROM temp.bulk_rows)")
        try run("UPDATE journal_writer SET bulk = 0 WHERE id = 1")
        return .applied
    }

    /// Takes back logged row deletes: inserts the rows the `undo_log` entries `logIDs` kept
    /// again (in that order), with their ids, into their sections, which must be `list`'s. Rows
    /// put back into a section noted by `noteSectionsPutBack` get no entry of their own; when
    /// any row gets one, the noted sections are forgotten.
    private func restoreLoggedRows(list: Int64, logIDs: [Int64]) throws -> BulkReversal {
        try stageBulkRows(logIDs: logIDs, fromLog: true)
        guard try scalarInt("SELECT count(*) FROM temp.bulk_rows") == Int64(logIDs.count) else { return .missing }
        if let misplaced = try misplacedStagedRows(list: list, count: logIDs.count) { return misplaced }
        // What the insert guards would refuse, checked at once: a position out of range.
        let outOfRange = try scalarInt(
            "SELECT count(*) FROM temp.bulk_rows WHERE position IS NULL OR position NOT BETWEEN ? AND ?",
            Int64(SchemaConstants.positionMinimum), Int64(SchemaConstants.positionMaximum))
        guard outOfRange == 0 else { return .missing }
        guard try beginBulkAppend() else { return .unsupported }
        // A row id or a place already taken is refused by the table's own constraints.
        try run(
            "INSERT INTO rows (id, section_id, position, kind, title, value) SELECT id, section_id, position, kind, title, value FROM temp.bulk_rows ORDER BY ord"
        )
        try countStagedRows(sign: 1)
        try createPutBackSections()
        if try run(
            """
            INSERT INTO undo_log (step, list_id, action, target, item_id)
            SELECT (SELECT step FROM journal_writer), ?, 'insert', 'row', id FROM temp.bulk_rows
            WHERE section_id NOT IN (SELECT id FROM temp.put_back_sections)
            ORDER BY ord
            """, list) > 0
        {
            try forgetSectionsPutBack()
        }
        try run("UPDATE journal_writer SET bulk = 0 WHERE id = 1")
        return .applied
    }

    /// Sections put back in this step, before any logged write of rows since (kept in a
    /// temporary table, so that a million of them cost no memory).
    private func createPutBackSections() throws {
        try execute(script: "CREATE TEMP TABLE IF NOT EXISTS put_back_sections (id INTEGER PRIMARY KEY)")
    }

    package func noteSectionsPutBack(_ note: SectionsPutBack) throws {
        switch note {
        case .noted(let ids):
            guard !ids.isEmpty else { return }
            try createPutBackSections()
            try run(
                "INSERT OR IGNORE INTO temp.put_back_sections SELECT value FROM json_each(?)",
                "[" + ids.map(String.init).joined(separator: ",") + "]")
        case .forgotten:
            try createPutBackSections()
            try run("DELETE FROM temp.put_back_sections")
        }
    }
}
