import SQLite

/// SQLite's rank walks: down the levels of a rank structure from the top, a few seeks a level
/// (see `RankTree`). A server runs the same walks as functions of its own, in one round trip.
extension SQLiteEngine {
    package func rankedItem(at index: Int, of owner: Int64, in space: RankSpace) throws -> (id: Int64, position: Int64)? {
        // Only the id and position: the (owner, position) index holds both, so the item itself
        // is not read.
        guard index >= 0, let (low, high, remaining) = try rankLeaf(holding: index, of: owner, in: space) else { return nil }
        return try rankedItemPlace(in: space, owner: owner, from: low, to: high, offset: remaining)
    }

    package func rankedRowWithContent(at index: Int, inSection section: Int64) throws -> (id: Int64, position: Int64, content: RowContent)? {
        guard index >= 0, let (low, high, remaining) = try rankLeaf(holding: index, of: section, in: .rows) else { return nil }
        return try row(ofSection: section, from: low, to: high, offset: remaining)
    }

    /// A file's two lookups cost no round trip: the section's, then its row's.
    package func rankedSectionAndRow(at sectionIndex: Int, row rowIndex: Int?, inList list: Int64) throws -> (
        section: SectionRecord, row: (id: Int64, position: Int64, content: RowContent)?
    )? {
        guard let section = try rankedSectionRecords(inList: list, from: sectionIndex, limit: 1).first else { return nil }
        let index = rowIndex ?? (section.rowCount - 1)
        return (section, index >= 0 && index < section.rowCount ? try rankedRowWithContent(at: index, inSection: section.id) : nil)
    }

    package func rankedRows(ofSection section: Int64, from index: Int, limit: Int) throws -> [Row] {
        guard limit > 0, let (_, position) = try rankedItem(at: index, of: section, in: .rows) else { return [] }
        return try rows(ofSection: section, fromPosition: position, limit: limit)
    }

    package func rankedSectionRecords(inList list: Int64, from index: Int, limit: Int) throws -> [SectionRecord] {
        guard limit > 0, let (_, position) = try rankedItem(at: index, of: list, in: .sections) else { return [] }
        return try sectionRecords(inList: list, fromPosition: position, firstIndex: index, limit: limit)
    }

    /// The range of positions of the level-1 node holding the item at `index`, and that item's
    /// index inside it; `nil` past the end.
    private func rankLeaf(holding index: Int, of owner: Int64, in space: RankSpace) throws -> (low: Int64, high: Int64, remaining: Int)? {
        var low = RankTree.origin
        var high = Int64.max
        var remaining = index
        for level in RankTree.levels.reversed() {
            var found = false
            try forEachRankNode(in: space, owner: owner, level: level, from: low, to: high) { first, count in
                if found {
                    high = first  // the next node ends the one found
                    return false
                }
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

    package func rankedIndex(ofPosition position: Int64, of owner: Int64, in space: RankSpace) throws -> Int {
        var low = RankTree.origin
        var index = 0
        for level in RankTree.levels.reversed() {
            // The children of the node found a level up, from its first to the one holding
            // `position`: all but the last come before it.
            var lastCount = 0
            try forEachRankNode(in: space, owner: owner, level: level, from: low, to: position, closed: true) { first, count in
                index += lastCount
                low = first
                lastCount = count
                return true
            }
        }
        return index + (try rankedItemCount(in: space, owner: owner, from: low, to: position))
    }
}

/// A file's ordering is the Swift code's (`OrderedTable`, `RankTree`): a query costs no network.
extension SQLiteEngine {
    package func positionForSlot(
        _ slot: Int, of owner: Int64, in space: RankSpace, count: Int, moving: Int64?, movingIndex: Int?
    ) throws -> (position: Int64, rewritten: Int)? { nil }

    package func settleRankNodes() throws -> Bool { false }
}
