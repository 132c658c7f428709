/// The order-statistic structure over row positions (`Migrations/0002_rank.sql`): a counted
/// B-tree kept in the `rank_nodes` table, four levels deep, about 32 children a node.
///
/// Triggers keep every node's count right whoever writes the rows; this type reads the tree
/// (the row at an index, the index of a position) and keeps its shape, splitting and merging
/// the nodes that the triggers noted in `rank_pending`, before each commit (`settle`).
///
/// With n rows in a section, a lookup reads at most 64 nodes a level and 64 rows in the last:
/// O(log n) seeks and O(fanout · levels) steps, whatever n is, up to about 32⁴ ≈ 1 million rows
/// a section; past that the top level holds more nodes, about one per million rows (32 at 32
/// million). The fanout was chosen by measurement: 64 made a lookup at index n/2 of a
/// million-row section 1.52× the same at a thousand rows, 32 keeps it lower (docs/benchmarks.md).
enum RankTree {
    /// The levels, bottom (1: nodes of rows) to top.
    static let levels = 1...SchemaConstants.rankLevels
    static let topLevel = SchemaConstants.rankLevels
    /// The smallest integer, where every section's first node on every level starts.
    static let origin = Int64.min
    /// The number of children a node is built with, and the bounds it is kept within (the
    /// triggers note level-1 nodes past the same bounds): `Migrations/constants.txt`.
    static let fanout = SchemaConstants.rankFanout
    static let maximumChildren = SchemaConstants.rankMaximumChildren
    static let minimumChildren = SchemaConstants.rankMinimumChildren

    // MARK: - Reading

    /// The id and position of the row at `index` in `section`, or `nil` past the end.
    /// - Complexity: O(log n): a few seeks and at most `maximumChildren` steps a level.
    static func row(at index: Int, inSection section: Int64, db: any Database) throws -> (id: Int64, position: Int64)? {
        try db.rankedRow(at: index, inSection: section)
    }

    /// How many rows of `section` come before `position`: the 0-based index of the row there.
    /// - Complexity: O(log n), as `row(at:inSection:db:)`.
    static func index(ofPosition position: Int64, inSection section: Int64, db: any Database) throws -> Int {
        try db.rankedIndex(ofPosition: position, inSection: section)
    }

    // MARK: - Keeping the shape

    /// Splits and merges the nodes noted since the last call, so that every node keeps between
    /// `minimumChildren` and `maximumChildren` children. Runs inside the caller's transaction,
    /// before it commits.
    /// - Complexity: O(1) amortized per row written; O(rows of a node) for a node that grew
    ///   past its bound all at once (a bulk insert), which it cuts into `fanout`-sized pieces.
    ///
    /// On a server, where writers to other lists run at once, a node noted by someone else's
    /// plain SQL may belong to another list: its list's row is locked first, as a write to that
    /// list would, so that nobody reshapes a section another writer is changing.
    ///
    /// An entry for a section that is gone (plain SQL deleted it with foreign keys off) is
    /// dropped; a section whose structure is missing a level is `RepositoryError.inconsistent`.
    static func settle(_ db: any Database) throws {
        while let (section, first) = try db.firstPendingRankNode() {
            try db.lockList(holdingSection: section)
            try db.clearPendingRankNode(section: section, first: first)
            guard try db.listID(ofSection: section) != nil else { continue }
            try rebalance(section: section, around: first, level: 1, db: db)
        }
    }

    private struct Node {
        var first: Int64
        var rowCount: Int
        /// The first of the next node on the level; `nil` for the last.
        var end: Int64?
    }

    /// The node on `level` of `section` whose range holds `position`.
    private static func node(holding position: Int64, level: Int, section: Int64, db: any Database) throws -> Node {
        guard let (first, count) = try db.rankNode(holding: position, level: level, section: section) else {
            throw RepositoryError.inconsistent("section #\(section) has no rank node at the start of level \(level)")
        }
        return Node(first: first, rowCount: count, end: try db.rankNodeStart(after: first, level: level, section: section))
    }

    /// The children of `node` on `level` (rows for level 1), as (first, rows) in order.
    private static func children(of node: Node, level: Int, section: Int64, db: any Database) throws -> [(first: Int64, rows: Int)] {
        let end = node.end ?? Int64.max
        if level == 1 {
            return try db.rowPositions(ofSection: section, from: node.first, to: end).map { ($0, 1) }
        }
        return try db.rankNodes(section: section, level: level - 1, from: node.first, to: end)
    }

    private static func childCount(of node: Node, level: Int, section: Int64, db: any Database) throws -> Int {
        if level == 1 { return node.rowCount }
        return try db.rankNodeCount(section: section, level: level - 1, from: node.first, to: node.end ?? Int64.max)
    }

    /// Splits or merges the node on `level` holding `position` when its child count is out of
    /// bounds, then does the same a level up, where the number of children changed.
    private static func rebalance(section: Int64, around position: Int64, level: Int, db: any Database) throws {
        var node = try node(holding: position, level: level, section: section, db: db)
        let size = try childCount(of: node, level: level, section: section, db: db)
        if size > maximumChildren {
            try split(node, level: level, section: section, db: db)
        } else if size < minimumChildren {
            // Merge with a neighbour under the same parent: into the one before, unless this node
            // starts its parent (its first is a boundary a level up), then the one after into it.
            let parent = level == topLevel ? nil : try Self.node(holding: node.first, level: level + 1, section: section, db: db)
            let parentFirst = parent?.first ?? origin
            let parentEnd = parent?.end
            if node.first != parentFirst {
                let previous = try Self.node(holding: node.first - 1, level: level, section: section, db: db)
                try db.deleteRankNode(section: section, level: level, first: node.first)
                try db.addToRankNodeCount(node.rowCount, section: section, level: level, first: previous.first)
                node = try Self.node(holding: previous.first, level: level, section: section, db: db)
            } else if let next = node.end, next < (parentEnd ?? Int64.max) {
                let following = try Self.node(holding: next, level: level, section: section, db: db)
                try db.deleteRankNode(section: section, level: level, first: following.first)
                try db.addToRankNodeCount(following.rowCount, section: section, level: level, first: node.first)
                node = try Self.node(holding: node.first, level: level, section: section, db: db)
            } else {
                return  // the only child: its parent is small too, and is balanced from its own side
            }
            if try childCount(of: node, level: level, section: section, db: db) > maximumChildren {
                try split(node, level: level, section: section, db: db)
            }
        } else {
            return
        }
        if level < topLevel {
            try rebalance(section: section, around: node.first, level: level + 1, db: db)
        }
    }

    /// Cuts `node` into pieces of `fanout` children each (the last one keeps the remainder; a
    /// remainder under `minimumChildren` stays with the piece before it, so that no piece is
    /// left too small).
    private static func split(_ node: Node, level: Int, section: Int64, db: any Database) throws {
        let children = try children(of: node, level: level, section: section, db: db)
        var starts = Array(stride(from: 0, to: children.count, by: fanout))
        if starts.count > 1, children.count - starts[starts.count - 1] < minimumChildren { starts.removeLast() }
        var kept = 0
        for (number, start) in starts.enumerated() {
            let piece = children[start..<(number + 1 < starts.count ? starts[number + 1] : children.count)]
            let rows = piece.reduce(0) { $0 + $1.rows }
            if start == 0 {
                kept = rows
            } else {
                try db.insertRankNode(section: section, level: level, first: piece.first!.first, rowCount: rows)
            }
        }
        try db.setRankNodeCount(kept, section: section, level: level, first: node.first)
    }

    // MARK: - Checking

    /// Every way the structure disagrees with the rows, one sentence each with the section it
    /// is about; empty when it is consistent.
    /// - Complexity: O(n log n) in all rows.
    static func problems(_ db: any Database) throws -> [(section: Int64, message: String)] {
        var problems: [(section: Int64, message: String)] = []
        problems += try db.sectionsMissingRankOrigin().map {
            ($0.section, "section #\($0.section) has no rank node at the start of level \($0.level)")
        }
        problems += try db.rankNodesStartingNoChild().map {
            ($0.section, "section #\($0.section): rank node \($0.first) of level \($0.level) starts no node of the level below")
        }
        problems += try db.rankNodesWithWrongCounts().map {
            ($0.section, "section #\($0.section): rank node \($0.first) of level \($0.level) counts \($0.stored) rows, but \($0.actual) are in its range")
        }
        // The fill bounds settle keeps: at most `maximumChildren` children a node (rows for
        // level 1, nodes of the level below otherwise), and at least `minimumChildren`, except
        // where a node may be small: the only child of its parent (the top level's only node
        // included), the first node of the top level, a section's first node of level 1 (the
        // triggers never note it for merging), and a section's last node of a level, which the
        // migration that built the structure for rows already there left with what remained
        // (`rank_layout`).
        problems += try db.rankNodesOutsideFillBounds().map { node in
            let what = node.level == 1 ? "rows" : "nodes of level \(node.level - 1)"
            let bound =
                node.children > maximumChildren
                ? "more than \(maximumChildren)"
                : "fewer than \(minimumChildren) (and it is neither its parent's only child nor its level's first or last)"
            return (node.section, "section #\(node.section): rank node \(node.first) of level \(node.level) holds \(node.children) \(what), \(bound)")
        }
        return problems
    }
}
