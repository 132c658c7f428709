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
}
