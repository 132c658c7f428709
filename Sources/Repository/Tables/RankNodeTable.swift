/// The rank structure's tables (`Migrations/0002_rank.sql`): `rank_nodes`, the counted nodes of
/// each section's levels, and `rank_pending`, the level-1 nodes the triggers noted as out of
/// bounds. Every read and write of them goes through here; `RankTree` keeps their shape.
extension Database {
    /// Calls `body` with the (first, row count) of the nodes on `level` of `section` whose
    /// first is in `range` (`through` the upper bound when `closed`), in order, until it returns
    /// false.
    package func forEachRankNode(
        section: Int64, level: Int, from low: Int64, to high: Int64, closed: Bool = false, _ body: (Int64, Int) throws -> Bool
    ) throws {
        try forEachRow(
            "SELECT first, row_count FROM rank_nodes WHERE section_id = ? AND level = ? AND first >= ? AND first \(closed ? "<=" : "<") ? ORDER BY first",
            arguments: [section, level, low, high]
        ) { try body($0.int64(0), $0.int(1)) }
    }

    /// One node noted in `rank_pending`, if any.
    package func firstPendingRankNode() throws -> (section: Int64, first: Int64)? {
        try queryFirst("SELECT section_id, first FROM rank_pending LIMIT 1") { ($0.int64(0), $0.int64(1)) }
    }

    package func clearPendingRankNode(section: Int64, first: Int64) throws {
        try run("DELETE FROM rank_pending WHERE section_id = ? AND first = ?", section, first)
    }

    /// The (first, row count) of the node on `level` of `section` whose range holds `position`.
    package func rankNode(holding position: Int64, level: Int, section: Int64) throws -> (first: Int64, rowCount: Int)? {
        try queryFirst(
            "SELECT first, row_count FROM rank_nodes WHERE section_id = ? AND level = ? AND first <= ? ORDER BY first DESC LIMIT 1",
            section, level, position
        ) { ($0.int64(0), $0.int(1)) }
    }

    /// The first of the node after the one starting at `first` on `level` of `section`.
    package func rankNodeStart(after first: Int64, level: Int, section: Int64) throws -> Int64? {
        try scalarInt(
            "SELECT first FROM rank_nodes WHERE section_id = ? AND level = ? AND first > ? ORDER BY first LIMIT 1", section, level, first)
    }

    /// The (first, rows) of the nodes on `level` of `section` in `low..<high`, in order.
    package func rankNodes(section: Int64, level: Int, from low: Int64, to high: Int64) throws -> [(first: Int64, rows: Int)] {
        try query(
            "SELECT first, row_count FROM rank_nodes WHERE section_id = ? AND level = ? AND first >= ? AND first < ? ORDER BY first",
            section, level, low, high
        ) { ($0.int64(0), $0.int(1)) }
    }

    /// How many nodes `level` of `section` has in `low..<high`.
    package func rankNodeCount(section: Int64, level: Int, from low: Int64, to high: Int64) throws -> Int {
        Int(
            try scalarInt(
                "SELECT count(*) FROM rank_nodes WHERE section_id = ? AND level = ? AND first >= ? AND first < ?", section, level, low, high)
                ?? 0)
    }

    package func insertRankNode(section: Int64, level: Int, first: Int64, rowCount: Int) throws {
        try run("INSERT INTO rank_nodes (section_id, level, first, row_count) VALUES (?, ?, ?, ?)", section, level, first, rowCount)
    }

    package func deleteRankNode(section: Int64, level: Int, first: Int64) throws {
        try run("DELETE FROM rank_nodes WHERE section_id = ? AND level = ? AND first = ?", section, level, first)
    }

    package func setRankNodeCount(_ count: Int, section: Int64, level: Int, first: Int64) throws {
        try run("UPDATE rank_nodes SET row_count = ? WHERE section_id = ? AND level = ? AND first = ?", count, section, level, first)
    }

    package func addToRankNodeCount(_ delta: Int, section: Int64, level: Int, first: Int64) throws {
        try run(
            "UPDATE rank_nodes SET row_count = row_count + ? WHERE section_id = ? AND level = ? AND first = ?", delta, section, level, first)
    }

    // MARK: - What repair() rebuilds

    /// Builds the rank structure of `sections` afresh from their rows, as the migration that
    /// made the structure does: the node at the start of every level, then the balanced layout
    /// of `rank_layout` (`RankTree.fanout` children a node, the last node of a level keeping
    /// what remains). The view numbers every row of the database, so the sections go through
    /// it together, `rebuildBatch` at a time.
    /// - Returns: how many nodes each section has now.
    package func rebuildRankNodes(sections: [Int64]) throws -> [Int64: Int] {
        var nodes: [Int64: Int] = [:]
        for start in stride(from: 0, to: sections.count, by: Self.rebuildBatch) {
            let batch: [(any SQLArgument)?] = sections[start..<min(start + Self.rebuildBatch, sections.count)].map { $0 }
            let list = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            try run("DELETE FROM rank_nodes WHERE section_id IN (\(list))", arguments: batch)
            try run("DELETE FROM rank_pending WHERE section_id IN (\(list))", arguments: batch)
            for section in sections[start..<min(start + Self.rebuildBatch, sections.count)] {
                for level in RankTree.levels {
                    try insertRankNode(section: section, level: level, first: RankTree.origin, rowCount: 0)
                }
            }
            try run(
                """
                INSERT INTO rank_nodes (section_id, level, first, row_count)
                SELECT section_id, level, first, row_count FROM rank_layout WHERE section_id IN (\(list))
                ON CONFLICT (section_id, level, first) DO UPDATE SET row_count = excluded.row_count
                """, arguments: batch)
            try forEachRow(
                "SELECT section_id, count(*) FROM rank_nodes WHERE section_id IN (\(list)) GROUP BY section_id", arguments: batch
            ) { row in
                nodes[row.int64(0)] = row.int(1)
                return true
            }
        }
        return nodes
    }

    /// How many sections one statement of `rebuildRankNodes(sections:)` names.
    private static var rebuildBatch: Int { 500 }

    /// Every note of `rank_pending`, with whether its section and its level-1 node exist.
    package func pendingRankNotes() throws -> [(section: Int64, first: Int64, sectionExists: Bool, nodeExists: Bool)] {
        try query(
            """
            SELECT p.section_id, p.first,
                CASE WHEN EXISTS (SELECT 1 FROM sections AS s WHERE s.id = p.section_id) THEN 1 ELSE 0 END,
                CASE WHEN EXISTS (SELECT 1 FROM rank_nodes AS n WHERE n.section_id = p.section_id AND n.level = 1 AND n.first = p.first)
                    THEN 1 ELSE 0 END
            FROM rank_pending AS p ORDER BY p.section_id, p.first
            """
        ) { ($0.int64(0), $0.int64(1), $0.int(2) == 1, $0.int(3) == 1) }
    }

    /// Clears every note of `rank_pending`. Returns how many there were.
    @discardableResult
    package func clearRankPending() throws -> Int {
        try run("DELETE FROM rank_pending")
    }

    /// The sections that rank nodes belong to but that do not exist, with how many nodes each.
    package func rankNodesOfMissingSections() throws -> [(section: Int64, count: Int)] {
        try query(
            """
            SELECT n.section_id, count(*) FROM rank_nodes AS n
            WHERE NOT EXISTS (SELECT 1 FROM sections AS s WHERE s.id = n.section_id)
            GROUP BY n.section_id ORDER BY n.section_id
            """
        ) { ($0.int64(0), $0.int(1)) }
    }

    /// Deletes the rank nodes and notes of a section that does not exist.
    package func deleteRankNodes(ofMissingSection section: Int64) throws {
        try run("DELETE FROM rank_nodes WHERE section_id = ?", section)
        try run("DELETE FROM rank_pending WHERE section_id = ?", section)
    }

    // MARK: - What check() looks for

    /// The (section, level) pairs without the node at the start of the level that every
    /// section has.
    package func sectionsMissingRankOrigin() throws -> [(section: Int64, level: Int)] {
        try query(
            """
            SELECT s.id, l.level FROM sections AS s,
                (\(RankTree.levels.map { "SELECT \($0) AS level" }.joined(separator: " UNION ALL "))) AS l
            WHERE NOT EXISTS (SELECT 1 FROM rank_nodes AS n WHERE n.section_id = s.id AND n.level = l.level AND n.first = ?)
            """, RankTree.origin
        ) { ($0.int64(0), $0.int(1)) }
    }

    /// The nodes above level 1 whose first starts no node of the level below.
    package func rankNodesStartingNoChild() throws -> [(section: Int64, level: Int, first: Int64)] {
        try query(
            """
            SELECT n.section_id, n.level, n.first FROM rank_nodes AS n
            WHERE n.level > 1 AND NOT EXISTS (
                SELECT 1 FROM rank_nodes AS c WHERE c.section_id = n.section_id AND c.level = n.level - 1 AND c.first = n.first)
            """
        ) { ($0.int64(0), $0.int(1), $0.int64(2)) }
    }

    /// The nodes whose count differs from the rows in their range.
    package func rankNodesWithWrongCounts() throws -> [(section: Int64, level: Int, first: Int64, stored: Int, actual: Int)] {
        try query(
            """
            WITH nodes AS (
                SELECT section_id, level, first, row_count,
                    lead(first) OVER (PARTITION BY section_id, level ORDER BY first) AS next
                FROM rank_nodes
            )
            SELECT section_id, level, first, row_count, actual FROM (
                SELECT n.*, (SELECT count(*) FROM rows AS r
                    WHERE r.section_id = n.section_id AND r.position >= n.first
                    AND r.position < coalesce(n.next, 9223372036854775807)) AS actual
                FROM nodes AS n) AS counted
            WHERE actual <> row_count
            """
        ) { ($0.int64(0), $0.int(1), $0.int64(2), $0.int(3), $0.int(4)) }
    }

    /// The nodes with more children than `RankTree.maximumChildren`, or fewer than
    /// `RankTree.minimumChildren` where settling would have merged them (see `RankTree.problems`).
    package func rankNodesOutsideFillBounds() throws -> [(section: Int64, level: Int, first: Int64, children: Int)] {
        let (origin, maximumChildren, minimumChildren, topLevel) =
            (RankTree.origin, RankTree.maximumChildren, RankTree.minimumChildren, RankTree.topLevel)
        return try query(
            """
            WITH nodes AS (
                SELECT section_id, level, first,
                    lead(first) OVER (PARTITION BY section_id, level ORDER BY first) AS next
                FROM rank_nodes
            ),
            placed AS (
                SELECT n.section_id, n.level, n.first, coalesce(n.next, 9223372036854775807) AS node_end,
                    coalesce((SELECT max(p.first) FROM rank_nodes AS p
                        WHERE p.section_id = n.section_id AND p.level = n.level + 1 AND p.first <= n.first), ?) AS parent_first,
                    coalesce((SELECT min(p.first) FROM rank_nodes AS p
                        WHERE p.section_id = n.section_id AND p.level = n.level + 1 AND p.first > n.first),
                        9223372036854775807) AS parent_end
                FROM nodes AS n
            ),
            sized AS (
                SELECT n.section_id, n.level, n.first, n.node_end,
                    CASE WHEN n.level = 1
                        THEN (SELECT count(*) FROM rows AS r
                            WHERE r.section_id = n.section_id AND r.position >= n.first AND r.position < n.node_end)
                        ELSE (SELECT count(*) FROM rank_nodes AS c
                            WHERE c.section_id = n.section_id AND c.level = n.level - 1 AND c.first >= n.first AND c.first < n.node_end)
                    END AS children,
                    (SELECT count(*) FROM rank_nodes AS s
                        WHERE s.section_id = n.section_id AND s.level = n.level
                        AND s.first >= n.parent_first AND s.first < n.parent_end) AS siblings
                FROM placed AS n
            )
            SELECT section_id, level, first, children FROM sized
            WHERE children > \(maximumChildren)
                OR (children < \(minimumChildren) AND siblings > 1 AND NOT (first = ? AND level IN (1, \(topLevel)))
                    AND node_end < 9223372036854775807)
            ORDER BY section_id, level, first
            """, origin, origin
        ) { ($0.int64(0), $0.int(1), $0.int64(2), $0.int(3)) }
    }
}
