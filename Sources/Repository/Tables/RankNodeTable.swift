/// The rank structures' tables: the counted nodes of each owner's levels (`rank_nodes` for a
/// section's rows, `Migrations/0002_rank.sql`; `section_rank_nodes` for a list's sections,
/// `0006_section_rank.sql`), and the level-1 nodes the triggers noted as out of bounds
/// (`rank_pending`, `section_rank_pending`). Every read and write of them goes through here;
/// `RankTree` keeps their shape. `space` says which structure; `owner` is the section or list.
extension SQLExecutor {
    /// Calls `body` with the (first, row count) of the nodes on `level` of `owner` whose
    /// first is in `range` (`through` the upper bound when `closed`), in order, until it returns
    /// false.
    func forEachRankNode(
        in space: RankSpace, owner: Int64, level: Int, from low: Int64, to high: Int64, closed: Bool = false, _ body: (Int64, Int) throws -> Bool
    ) throws {
        try forEachRow(
            "SELECT first, \(space.count) FROM \(space.nodes) WHERE \(space.owner) = ? AND level = ? AND first >= ? AND first \(closed ? "<=" : "<") ? ORDER BY first",
            arguments: [owner, level, low, high]
        ) { try body($0.int64(0), $0.int(1)) }
    }

    /// Whether any node is noted in `rank_pending` or `section_rank_pending`: one statement, so
    /// that a commit with nothing to settle asks once.
    func anyRankNodePending() throws -> Bool {
        let spaces = RankSpace.all.map { "EXISTS (SELECT 1 FROM \($0.pending))" }.joined(separator: " OR ")
        return try scalarInt("SELECT CASE WHEN \(spaces) THEN 1 ELSE 0 END") == 1
    }

    /// The first node noted in `rank_pending`, by owner and then by place, if any: the order
    /// settling takes them in, which decides the shape it leaves.
    func firstPendingRankNode(in space: RankSpace) throws -> (owner: Int64, first: Int64)? {
        try queryFirst("SELECT \(space.owner), first FROM \(space.pending) ORDER BY \(space.owner), first LIMIT 1") {
            ($0.int64(0), $0.int64(1))
        }
    }

    func clearPendingRankNode(in space: RankSpace, owner: Int64, first: Int64) throws {
        try run("DELETE FROM \(space.pending) WHERE \(space.owner) = ? AND first = ?", owner, first)
    }

    /// The (first, row count) of the node on `level` of `owner` whose range holds `position`.
    func rankNode(holding position: Int64, level: Int, in space: RankSpace, owner: Int64) throws -> (first: Int64, rowCount: Int)? {
        try queryFirst(
            "SELECT first, \(space.count) FROM \(space.nodes) WHERE \(space.owner) = ? AND level = ? AND first <= ? ORDER BY first DESC LIMIT 1",
            owner, level, position
        ) { ($0.int64(0), $0.int(1)) }
    }

    /// The first of the node after the one starting at `first` on `level` of `owner`.
    func rankNodeStart(after first: Int64, level: Int, in space: RankSpace, owner: Int64) throws -> Int64? {
        try scalarInt(
            "SELECT first FROM \(space.nodes) WHERE \(space.owner) = ? AND level = ? AND first > ? ORDER BY first LIMIT 1", owner, level, first)
    }

    /// How many nodes `level` of `owner` has in `low..<high`.
    func rankNodeCount(in space: RankSpace, owner: Int64, level: Int, from low: Int64, to high: Int64) throws -> Int {
        Int(
            try scalarInt(
                "SELECT count(*) FROM \(space.nodes) WHERE \(space.owner) = ? AND level = ? AND first >= ? AND first < ?", owner, level, low, high)
                ?? 0)
    }

    func insertRankNode(in space: RankSpace, owner: Int64, level: Int, first: Int64, rowCount: Int) throws {
        try run("INSERT INTO \(space.nodes) (\(space.owner), level, first, \(space.count)) VALUES (?, ?, ?, ?)", owner, level, first, rowCount)
    }

    func deleteRankNode(in space: RankSpace, owner: Int64, level: Int, first: Int64) throws {
        try run("DELETE FROM \(space.nodes) WHERE \(space.owner) = ? AND level = ? AND first = ?", owner, level, first)
    }

    func setRankNodeCount(_ count: Int, in space: RankSpace, owner: Int64, level: Int, first: Int64) throws {
        try run("UPDATE \(space.nodes) SET \(space.count) = ? WHERE \(space.owner) = ? AND level = ? AND first = ?", count, owner, level, first)
    }

    func addToRankNodeCount(_ delta: Int, in space: RankSpace, owner: Int64, level: Int, first: Int64) throws {
        try run(
            "UPDATE \(space.nodes) SET \(space.count) = \(space.count) + ? WHERE \(space.owner) = ? AND level = ? AND first = ?", delta, owner, level,
            first)
    }

    // MARK: - The items a level-1 node counts

    /// How many of the owner's items are in `low..<high`.
    func rankedItemCount(in space: RankSpace, owner: Int64, from low: Int64, to high: Int64) throws -> Int {
        Int(
            try scalarInt(
                "SELECT count(*) FROM \(space.items) WHERE \(space.owner) = ? AND position >= ? AND position < ?", owner, low, high)
                ?? 0)
    }

    /// The id and position of the item at 0-based `offset` among the owner's items in
    /// `low..<high` (read from the `(owner, position)` index alone).
    func rankedItemPlace(in space: RankSpace, owner: Int64, from low: Int64, to high: Int64, offset: Int) throws -> (
        id: Int64, position: Int64
    )? {
        try queryFirst(
            """
            SELECT id, position FROM \(space.items) WHERE \(space.owner) = ? AND position >= ? AND position < ?
            ORDER BY position LIMIT 1 OFFSET ?
            """, owner, low, high, offset
        ) { ($0.int64(0), $0.int64(1)) }
    }

    /// Whether the owner (the section or list) exists.
    func rankOwnerExists(in space: RankSpace, owner: Int64) throws -> Bool {
        try scalarInt("SELECT count(*) FROM \(space.owners) WHERE id = ?", owner) == 1
    }

    // MARK: - What repair() rebuilds

    /// Builds the rank structure of `owners` afresh from their items, as the migration that
    /// made the structure does: the node at the start of every level, then the balanced layout
    /// of `rank_layout` (`RankTree.fanout` children a node, the last node of a level keeping
    /// what remains). The view numbers every row of the database, so the sections go through
    /// it together, `rebuildBatch` at a time.
    /// - Returns: how many nodes each owner has now.
    func rebuildRankNodes(in space: RankSpace, owners sections: [Int64]) throws -> [Int64: Int] {
        var nodes: [Int64: Int] = [:]
        for start in stride(from: 0, to: sections.count, by: Self.rebuildBatch) {
            let batch: [(any SQLArgument)?] = sections[start..<min(start + Self.rebuildBatch, sections.count)].map { $0 }
            let list = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            try run("DELETE FROM \(space.nodes) WHERE \(space.owner) IN (\(list))", arguments: batch)
            try run("DELETE FROM \(space.pending) WHERE \(space.owner) IN (\(list))", arguments: batch)
            for section in sections[start..<min(start + Self.rebuildBatch, sections.count)] {
                for level in RankTree.levels {
                    try insertRankNode(in: space, owner: section, level: level, first: RankTree.origin, rowCount: 0)
                }
            }
            try run(
                """
                INSERT INTO \(space.nodes) (\(space.owner), level, first, \(space.count))
                SELECT \(space.owner), level, first, \(space.count) FROM \(space.layout) WHERE \(space.owner) IN (\(list))
                ON CONFLICT (\(space.owner), level, first) DO UPDATE SET \(space.count) = excluded.\(space.count)
                """, arguments: batch)
            try forEachRow(
                "SELECT \(space.owner), count(*) FROM \(space.nodes) WHERE \(space.owner) IN (\(list)) GROUP BY \(space.owner)", arguments: batch
            ) { row in
                nodes[row.int64(0)] = row.int(1)
                return true
            }
        }
        return nodes
    }

    /// How many sections one statement of `rebuildRankNodes(in:owners:)` names.
    private static var rebuildBatch: Int { 500 }

    /// Every note of `rank_pending`, with whether its owner and its level-1 node exist.
    func pendingRankNotes(in space: RankSpace) throws -> [(owner: Int64, first: Int64, ownerExists: Bool, nodeExists: Bool)] {
        try query(
            """
            SELECT p.\(space.owner), p.first,
                CASE WHEN EXISTS (SELECT 1 FROM \(space.owners) AS s WHERE s.id = p.\(space.owner)) THEN 1 ELSE 0 END,
                CASE WHEN EXISTS (SELECT 1 FROM \(space.nodes) AS n WHERE n.\(space.owner) = p.\(space.owner) AND n.level = 1 AND n.first = p.first)
                    THEN 1 ELSE 0 END
            FROM \(space.pending) AS p ORDER BY p.\(space.owner), p.first
            """
        ) { ($0.int64(0), $0.int64(1), $0.int(2) == 1, $0.int(3) == 1) }
    }

    /// Clears every note of `rank_pending`. Returns how many there were.
    @discardableResult
    func clearRankPending(in space: RankSpace) throws -> Int {
        try run("DELETE FROM \(space.pending)")
    }

    /// The owners that rank nodes belong to but that do not exist, with how many nodes each.
    func rankNodesOfMissingOwners(in space: RankSpace) throws -> [(owner: Int64, count: Int)] {
        try query(
            """
            SELECT n.\(space.owner), count(*) FROM \(space.nodes) AS n
            WHERE NOT EXISTS (SELECT 1 FROM \(space.owners) AS s WHERE s.id = n.\(space.owner))
            GROUP BY n.\(space.owner) ORDER BY n.\(space.owner)
            """
        ) { ($0.int64(0), $0.int(1)) }
    }

    /// Deletes the rank nodes and notes of an owner that does not exist.
    func deleteRankNodes(in space: RankSpace, ofMissingOwner section: Int64) throws {
        try run("DELETE FROM \(space.nodes) WHERE \(space.owner) = ?", section)
        try run("DELETE FROM \(space.pending) WHERE \(space.owner) = ?", section)
    }

    // MARK: - What check() looks for

    /// The (owner, level) pairs without the node at the start of the level that every
    /// owner has.
    func ownersMissingRankOrigin(in space: RankSpace) throws -> [(owner: Int64, level: Int)] {
        try query(
            """
            SELECT s.id, l.level FROM \(space.owners) AS s,
                (\(RankTree.levels.map { "SELECT \($0) AS level" }.joined(separator: " UNION ALL "))) AS l
            WHERE NOT EXISTS (SELECT 1 FROM \(space.nodes) AS n WHERE n.\(space.owner) = s.id AND n.level = l.level AND n.first = ?)
            """, RankTree.origin
        ) { ($0.int64(0), $0.int(1)) }
    }

    /// The nodes above level 1 whose first starts no node of the level below.
    func rankNodesStartingNoChild(in space: RankSpace) throws -> [(owner: Int64, level: Int, first: Int64)] {
        try query(
            """
            SELECT n.\(space.owner), n.level, n.first FROM \(space.nodes) AS n
            WHERE n.level > 1 AND NOT EXISTS (
                SELECT 1 FROM \(space.nodes) AS c WHERE c.\(space.owner) = n.\(space.owner) AND c.level = n.level - 1 AND c.first = n.first)
            """
        ) { ($0.int64(0), $0.int(1), $0.int64(2)) }
    }

    /// The nodes whose count differs from the rows in their range.
    func rankNodesWithWrongCounts(in space: RankSpace) throws -> [(owner: Int64, level: Int, first: Int64, stored: Int, actual: Int)] {
        try query(
            """
            WITH nodes AS (
                SELECT \(space.owner), level, first, \(space.count),
                    lead(first) OVER (PARTITION BY \(space.owner), level ORDER BY first) AS next
                FROM \(space.nodes)
            )
            SELECT \(space.owner), level, first, \(space.count), actual FROM (
                SELECT n.*, (SELECT count(*) FROM \(space.items) AS r
                    WHERE r.\(space.owner) = n.\(space.owner) AND r.position >= n.first
                    AND r.position < coalesce(n.next, 9223372036854775807)) AS actual
                FROM nodes AS n) AS counted
            WHERE actual <> \(space.count)
            """
        ) { ($0.int64(0), $0.int(1), $0.int64(2), $0.int(3), $0.int(4)) }
    }

    /// The nodes with more children than `RankTree.maximumChildren`, or fewer than
    /// `RankTree.minimumChildren` where settling would have merged them (see `RankTree.problems`).
    func rankNodesOutsideFillBounds(in space: RankSpace) throws -> [(owner: Int64, level: Int, first: Int64, children: Int)] {
        let (origin, maximumChildren, minimumChildren, topLevel) =
            (RankTree.origin, RankTree.maximumChildren, RankTree.minimumChildren, RankTree.topLevel)
        return try query(
            """
            WITH nodes AS (
                SELECT \(space.owner), level, first,
                    lead(first) OVER (PARTITION BY \(space.owner), level ORDER BY first) AS next
                FROM \(space.nodes)
            ),
            placed AS (
                SELECT n.\(space.owner), n.level, n.first, coalesce(n.next, 9223372036854775807) AS node_end,
                    coalesce((SELECT max(p.first) FROM \(space.nodes) AS p
                        WHERE p.\(space.owner) = n.\(space.owner) AND p.level = n.level + 1 AND p.first <= n.first), ?) AS parent_first,
                    coalesce((SELECT min(p.first) FROM \(space.nodes) AS p
                        WHERE p.\(space.owner) = n.\(space.owner) AND p.level = n.level + 1 AND p.first > n.first),
                        9223372036854775807) AS parent_end
                FROM nodes AS n
            ),
            sized AS (
                SELECT n.\(space.owner), n.level, n.first, n.node_end,
                    CASE WHEN n.level = 1
                        THEN (SELECT count(*) FROM \(space.items) AS r
                            WHERE r.\(space.owner) = n.\(space.owner) AND r.position >= n.first AND r.position < n.node_end)
                        ELSE (SELECT count(*) FROM \(space.nodes) AS c
                            WHERE c.\(space.owner) = n.\(space.owner) AND c.level = n.level - 1 AND c.first >= n.first AND c.first < n.node_end)
                    END AS children,
                    (SELECT count(*) FROM \(space.nodes) AS s
                        WHERE s.\(space.owner) = n.\(space.owner) AND s.level = n.level
                        AND s.first >= n.parent_first AND s.first < n.parent_end) AS siblings
                FROM placed AS n
            )
            SELECT \(space.owner), level, first, children FROM sized
            WHERE children > \(maximumChildren)
                OR (children < \(minimumChildren) AND siblings > 1 AND NOT (first = ? AND level IN (1, \(topLevel)))
                    AND node_end < 9223372036854775807)
            ORDER BY \(space.owner), level, first
            """, origin, origin
        ) { ($0.int64(0), $0.int(1), $0.int64(2), $0.int(3)) }
    }
}
