import SQLite

/// SQLite's rank walks: down the levels of `rank_nodes` from the top, a few seeks a level
/// (see `RankTree`). A server runs the same walks as functions of its own, in one round trip.
extension Connection {
    package func rankedRow(at index: Int, inSection section: Int64) throws -> (id: Int64, position: Int64)? {
        guard index >= 0, let (low, high, remaining) = try rankLeaf(holding: index, inSection: section) else { return nil }
        return try queryFirst(
            "SELECT id, position FROM rows WHERE section_id = ? AND position >= ? AND position < ? ORDER BY position LIMIT 1 OFFSET ?",
            section, low, high, Int64(remaining)
        ) { ($0.int64(0), $0.int64(1)) }
    }

    package func rankedRowWithContent(at index: Int, inSection section: Int64) throws -> (id: Int64, position: Int64, content: RowContent)? {
        guard index >= 0, let (low, high, remaining) = try rankLeaf(holding: index, inSection: section) else { return nil }
        return try queryFirst(
            """
            SELECT id, position, \(RowContent.columns) FROM rows
            WHERE section_id = ? AND position >= ? AND position < ? ORDER BY position LIMIT 1 OFFSET ?
            """,
            section, low, high, Int64(remaining)
        ) { ($0.int64(0), $0.int64(1), RowContent($0, from: 2)) }
    }

    /// The range of positions of the level-1 node holding the row at `index`, and that row's
    /// index inside it; `nil` past the end.
    private func rankLeaf(holding index: Int, inSection section: Int64) throws -> (low: Int64, high: Int64, remaining: Int)? {
        var low = RankTree.origin
        var high = Int64.max
        var remaining = index
        for level in RankTree.levels.reversed() {
            var found = false
            try forEachRow(
                "SELECT first, row_count FROM rank_nodes WHERE section_id = ? AND level = ? AND first >= ? AND first < ? ORDER BY first",
                arguments: [section, level, low, high]
            ) { node in
                let first = node.int64(0)
                if found {
                    high = first  // the next node ends the one found
                    return false
                }
                let count = node.int(1)
                if remaining < count {
                    low = first
                    found = true
                } else {
                    remaining -= count
                }
                return true
            }
            guard found else { return nil }
        }
        return (low, high, remaining)
    }

    package func rankedIndex(ofPosition position: Int64, inSection section: Int64) throws -> Int {
        var low = RankTree.origin
        var index = 0
        for level in RankTree.levels.reversed() {
            // The children of the node found a level up, from its first to the one holding
            // `position`: all but the last come before it.
            var lastCount = 0
            try forEachRow(
                "SELECT first, row_count FROM rank_nodes WHERE section_id = ? AND level = ? AND first >= ? AND first <= ? ORDER BY first",
                arguments: [section, level, low, position]
            ) { node in
                index += lastCount
                low = node.int64(0)
                lastCount = node.int(1)
                return true
            }
        }
        let before = try scalarInt(
            "SELECT count(*) FROM rows WHERE section_id = ? AND position >= ? AND position < ?", section, low, position)
        return index + Int(before ?? 0)
    }
}
