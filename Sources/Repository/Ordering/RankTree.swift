/// Which of the two counted B-trees a rank operation works on: a section's rows
/// (`Migrations/0002_rank.sql`) or a list's sections (`0006_section_rank.sql`). They have one
/// shape and one code; only the names differ.
package struct RankSpace: Sendable, Equatable {
    /// The table of nodes, and of level-1 nodes to settle.
    package let nodes: String
    package let pending: String
    /// The view that lays the structure out balanced, for a rebuild.
    package let layout: String
    /// The column naming the owner, in the nodes, the pending notes and the items.
    package let owner: String
    /// The nodes' count column.
    package let count: String
    /// The items counted (with `position` and the owner column), and the owners' table.
    package let items: String
    package let owners: String
    /// The words for an owner and an item, in messages.
    let ownerNoun: String
    let itemNoun: String

    /// What one of its nodes is called in messages.
    var nodeNoun: String { self == .rows ? "rank node" : "section rank node" }

    /// The rows of each section.
    package static let rows = RankSpace(
        nodes: "rank_nodes", pending: "rank_pending", layout: "rank_layout", owner: "section_id", count: "row_count", items: "rows",
        owners: "sections", ownerNoun: "section", itemNoun: "row")
    /// The sections of each list.
    package static let sections = RankSpace(
        nodes: "section_rank_nodes", pending: "section_rank_pending", layout: "section_rank_layout", owner: "list_id",
        count: "section_count", items: "sections", owners: "lists", ownerNoun: "list", itemNoun: "section")
    /// Both, in the order settling and checking take them.
    package static let all = [rows, sections]
}

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

    /// The id and position of the item at `index` of `owner` in `space` (a row of a section, a
    /// section of a list), or `nil` past the end.
    /// - Complexity: O(log n) in the owner's items.
    static func item(at index: Int, of owner: Int64, in space: RankSpace, db: any Database) throws -> (id: Int64, position: Int64)? {
        space == .rows ? try db.rankedRow(at: index, inSection: owner) : try db.rankedSection(at: index, inList: owner)
    }

    /// How many items of `owner` in `space` come before `position`.
    /// - Complexity: O(log n) in the owner's items.
    static func index(ofPosition position: Int64, of owner: Int64, in space: RankSpace, db: any Database) throws -> Int {
        space == .rows
            ? try db.rankedIndex(ofPosition: position, inSection: owner) : try db.rankedSectionIndex(ofPosition: position, inList: owner)
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
    ///
    /// A server settles in its own function, in one call (`StorageEngine.settleRankNodes`), step
    /// for step as here.
    static func settle(_ db: any Database) throws {
        if try db.settleRankNodes() { return }
        guard try db.anyRankNodePending() else { return }
        for space in RankSpace.all {
            while let (owner, first) = try db.firstPendingRankNode(in: space) {
                try db.lockList(holding: owner, in: space)
                try db.clearPendingRankNode(in: space, owner: owner, first: first)
                guard try db.rankOwnerExists(in: space, owner: owner) else { continue }
                try rebalance(in: space, owner: owner, around: first, level: 1, db: db)
            }
        }
    }

    private struct Node {
        var first: Int64
        var rowCount: Int
        /// The first of the next node on the level; `nil` for the last.
        var end: Int64?
    }

    /// The node on `level` of `section` whose range holds `position`.
    private static func node(holding position: Int64, level: Int, in space: RankSpace, owner: Int64, db: any Database) throws -> Node {
        guard let (first, count) = try db.rankNode(holding: position, level: level, in: space, owner: owner) else {
            throw RepositoryError.inconsistent("\(space.ownerNoun) #\(owner) has no rank node at the start of level \(level)")
        }
        return Node(first: first, rowCount: count, end: try db.rankNodeStart(after: first, level: level, in: space, owner: owner))
    }

    /// Calls `body` with each child of `node` on `level` (items for level 1, counting one each),
    /// as (first, items) in order, streamed: nothing is held but the current child.
    private static func forEachChild(
        of node: Node, level: Int, in space: RankSpace, owner: Int64, db: any Database, _ body: (Int64, Int) -> Void
    ) throws {
        let end = node.end ?? Int64.max
        if level == 1 {
            try db.forEachRow(
                "SELECT position FROM \(space.items) WHERE \(space.owner) = ? AND position >= ? AND position < ? ORDER BY position",
                arguments: [owner, node.first, end]
            ) { row in
                body(row.int64(0), 1)
                return true
            }
        } else {
            try db.forEachRankNode(in: space, owner: owner, level: level - 1, from: node.first, to: end) { first, count in
                body(first, count)
                return true
            }
        }
    }

    private static func childCount(of node: Node, level: Int, in space: RankSpace, owner: Int64, db: any Database) throws -> Int {
        if level == 1 { return node.rowCount }
        return try db.rankNodeCount(in: space, owner: owner, level: level - 1, from: node.first, to: node.end ?? Int64.max)
    }

    /// Splits or merges the node on `level` holding `position` when its child count is out of
    /// bounds, then does the same a level up, where the number of children changed.
    private static func rebalance(in space: RankSpace, owner: Int64, around position: Int64, level: Int, db: any Database) throws {
        var node = try node(holding: position, level: level, in: space, owner: owner, db: db)
        let size = try childCount(of: node, level: level, in: space, owner: owner, db: db)
        if size > maximumChildren {
            try split(node, level: level, in: space, owner: owner, db: db)
        } else if size < minimumChildren {
            // Merge with a neighbour under the same parent: into the one before, unless this node
            // starts its parent (its first is a boundary a level up), then the one after into it.
            let parent = level == topLevel ? nil : try Self.node(holding: node.first, level: level + 1, in: space, owner: owner, db: db)
            let parentFirst = parent?.first ?? origin
            let parentEnd = parent?.end
            if node.first != parentFirst {
                let previous = try Self.node(holding: node.first - 1, level: level, in: space, owner: owner, db: db)
                try db.deleteRankNode(in: space, owner: owner, level: level, first: node.first)
                try db.addToRankNodeCount(node.rowCount, in: space, owner: owner, level: level, first: previous.first)
                node = try Self.node(holding: previous.first, level: level, in: space, owner: owner, db: db)
            } else if let next = node.end, next < (parentEnd ?? Int64.max) {
                let following = try Self.node(holding: next, level: level, in: space, owner: owner, db: db)
                try db.deleteRankNode(in: space, owner: owner, level: level, first: following.first)
                try db.addToRankNodeCount(following.rowCount, in: space, owner: owner, level: level, first: node.first)
                node = try Self.node(holding: node.first, level: level, in: space, owner: owner, db: db)
            } else {
                return  // the only child: its parent is small too, and is balanced from its own side
            }
            if try childCount(of: node, level: level, in: space, owner: owner, db: db) > maximumChildren {
                try split(node, level: level, in: space, owner: owner, db: db)
            }
        } else {
            return
        }
        if level < topLevel {
            try rebalance(in: space, owner: owner, around: node.first, level: level + 1, db: db)
        }
    }

    /// Cuts `node` into pieces of `fanout` children each (the last one keeps the remainder; a
    /// remainder under `minimumChildren` stays with the piece before it, so that no piece is
    /// left too small).
    private static func split(_ node: Node, level: Int, in space: RankSpace, owner: Int64, db: any Database) throws {
        // The children are streamed and only the pieces kept (a node grown by a bulk insert can
        // hold millions of rows); the nodes are written once the read is done.
        var pieces: [(first: Int64, items: Int)] = []
        var children = 0
        try forEachChild(of: node, level: level, in: space, owner: owner, db: db) { first, items in
            if children % fanout == 0 { pieces.append((first, 0)) }
            pieces[pieces.count - 1].items += items
            children += 1
        }
        guard !pieces.isEmpty else { return }
        if pieces.count > 1, children - (pieces.count - 1) * fanout < minimumChildren {
            let remainder = pieces.removeLast()
            pieces[pieces.count - 1].items += remainder.items
        }
        for piece in pieces.dropFirst() {
            try db.insertRankNode(in: space, owner: owner, level: level, first: piece.first, rowCount: piece.items)
        }
        try db.setRankNodeCount(pieces[0].items, in: space, owner: owner, level: level, first: node.first)
    }

    // MARK: - Checking

    /// Every way the structure of `space` disagrees with its items, one sentence each with the
    /// owner (section or list) it is about; empty when it is consistent.
    /// - Complexity: O(n log n) in all items.
    static func problems(in space: RankSpace, _ db: any Database) throws -> [(owner: Int64, message: String)] {
        let (owner, item, nodes) = (space.ownerNoun, space.itemNoun, space.nodeNoun)
        var problems: [(owner: Int64, message: String)] = []
        problems += try db.ownersMissingRankOrigin(in: space).map {
            ($0.owner, "\(owner) #\($0.owner) has no \(nodes) at the start of level \($0.level)")
        }
        problems += try db.rankNodesStartingNoChild(in: space).map {
            ($0.owner, "\(owner) #\($0.owner): \(nodes) \($0.first) of level \($0.level) starts no node of the level below")
        }
        problems += try db.rankNodesWithWrongCounts(in: space).map {
            (
                $0.owner,
                "\(owner) #\($0.owner): \(nodes) \($0.first) of level \($0.level) counts \($0.stored) \(item)s, but \($0.actual) are in its range"
            )
        }
        // The fill bounds settle keeps: at most `maximumChildren` children a node (items for
        // level 1, nodes of the level below otherwise), and at least `minimumChildren`, except
        // where a node may be small: the only child of its parent (the top level's only node
        // included), the first node of the top level, an owner's first node of level 1 (the
        // triggers never note it for merging), and an owner's last node of a level, which the
        // migration that built the structure for items already there left with what remained
        // (`rank_layout`, `section_rank_layout`).
        problems += try db.rankNodesOutsideFillBounds(in: space).map { node in
            let what = node.level == 1 ? "\(item)s" : "nodes of level \(node.level - 1)"
            let bound =
                node.children > maximumChildren
                ? "more than \(maximumChildren)"
                : "fewer than \(minimumChildren) (and it is neither its parent's only child nor its level's first or last)"
            return (node.owner, "\(owner) #\(node.owner): \(nodes) \(node.first) of level \(node.level) holds \(node.children) \(what), \(bound)")
        }
        return problems
    }
}
