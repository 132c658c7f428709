import Foundation

/// Order kept in sparse integer positions: the items of one parent (the rows of a section, the
/// sections of a list), ordered by a `position` column under `UNIQUE (parent, position)`. Every
/// statement of sectionctl's on the `position` column of `rows` and `sections` is here, or, on a
/// server, in the functions of `Migrations/postgres/0012_ordering_on_the_server.sql`, which take
/// the same steps with the same numbers (`Migrations/constants.txt`; `OrderingTests` compares
/// the two).
///
/// An insert or move takes a position between its new neighbours — the midpoint, or a step of
/// 2^32 past an end — and writes only the item that moves. When two neighbours leave no room,
/// the items in the smallest aligned block of positions around the gap that is sparse enough
/// are spread evenly across it (the list-labelling scheme of Itai, Konheim and Rodeh, with
/// density thresholds shrinking by 1.5 per level). That costs O(1) writes amortized on random
/// workloads and O(log n) when every insert hits the same gap, and only rewrites a neighbourhood.
package struct OrderedTable {
    /// Positions live in `1 ..< upperBound` (`Migrations/constants.txt`; the schema refuses any
    /// other); the parking value lies outside.
    package static let upperBound = Int64(SchemaConstants.positionMaximum) + 1
    /// The lowest position an item may hold.
    package static let lowerBound = Int64(SchemaConstants.positionMinimum)
    /// The first item of an empty parent goes in the middle, with room on both sides.
    package static let firstPosition = Int64(SchemaConstants.positionFirst)
    /// Distance between an end item and one added past it.
    package static let step = Int64(SchemaConstants.positionStep)
    /// Where an item waits while its neighbours are spread out (only inside sectionctl's own
    /// transaction: the schema refuses it otherwise).
    package static let parkingPosition = Int64(SchemaConstants.positionParking)

    /// Whether an item may rest at `position`.
    static func isValid(_ position: Int64) -> Bool { position >= lowerBound && position < upperBound }

    /// `position`, read from the database, if an item may rest there; else the error that says
    /// the file disagrees with itself (plain SQL put it there), so that no arithmetic meets it.
    package func checked(_ position: Int64?, of parentID: Int64) throws -> Int64? {
        guard let position, !Self.isValid(position) else { return position }
        let what = table == "rows" ? "a row of section #\(parentID)" : "a section of list #\(parentID)"
        throw RepositoryError.inconsistent(
            "\(what) is at position \(position), outside \(Self.lowerBound)…\(Self.upperBound - 1)")
    }
    /// How fast the allowed density falls as the block doubles, and the level where the search
    /// for a sparse enough block stops (the whole range).
    static let densityGrowth = SchemaConstants.spreadDensityGrowth
    static let topSpreadLevel = SchemaConstants.spreadTopLevel

    package let table: String
    package let parent: String
    /// The rank structure that counts the table's items per parent (`RankTree`), so that an
    /// index and the item there are found in O(log n).
    package let space: RankSpace

    package static let rows = OrderedTable(table: "rows", parent: "section_id", space: .rows)
    package static let sections = OrderedTable(table: "sections", parent: "list_id", space: .sections)

    /// The position of the item with this id, if `parentID` holds it.
    package func position(ofItem id: Int64, of parentID: Int64, in db: any Database) throws -> Int64? {
        try db.scalarInt("SELECT position FROM \(table) WHERE id = ? AND \(parent) = ?", id, parentID)
    }

    /// The id and position of the item at `index` among the `count` items of `parentID`;
    /// `nil` outside `0..<count`.
    /// - Complexity: O(log n), through the rank structure.
    package func item(at index: Int, of parentID: Int64, count: Int, in db: any Database) throws -> (id: Int64, position: Int64)? {
        guard index >= 0 && index < count else { return nil }
        return try rankedItem(at: index, of: parentID, count: count, in: db)
    }

    /// The item at `index` of the `count` items of `parentID`, through the rank structure; an
    /// index under the count that finds no item is the file disagreeing with itself.
    private func rankedItem(at index: Int, of parentID: Int64, count: Int, in db: any Database) throws -> (id: Int64, position: Int64) {
        guard let found = try RankTree.item(at: index, of: parentID, in: space, db: db) else {
            throw Self.countDisagrees(parentID, count: count, index: index, what: "\(space.itemNoun)s", of: space.ownerNoun)
        }
        return found
    }

    private static func countDisagrees(_ parentID: Int64, count: Int, index: Int, what: String, of parent: String) -> RepositoryError {
        .inconsistent("\(parent) #\(parentID) counts \(count) \(what), but none is at index \(index)")
    }

    /// The 0-based index of the item at `position` among the items of `parentID`.
    /// - Complexity: O(log n), through the rank structure.
    package func index(ofPosition position: Int64, of parentID: Int64, in db: any Database) throws -> Int {
        try RankTree.index(ofPosition: position, of: parentID, in: space, db: db)
    }

    /// The positions of the items on either side of `slot` (0…count) among the `count` items of
    /// `parentID`, not counting `excludedID`: one query, from whichever end is nearer.
    /// `excludedIndex` is the excluded item's index here when the caller knows it is here (else
    /// it is looked up).
    package func neighbours(
        ofSlot slot: Int, of parentID: Int64, count: Int, excluding excludedID: Int64, excludedIndex: Int? = nil, in db: any Database
    ) throws -> (before: Int64?, after: Int64?) {
        guard count > 0 else { return (nil, nil) }
        return try rankedNeighbours(
            ofSlot: slot, of: parentID, count: count, excluding: excludedID, excludedIndex: excludedIndex, in: db)
    }

    /// `neighbours(ofSlot:…)` through the rank structure: the item just before the slot by rank
    /// (skipping the excluded one), and the one after it by position. O(log n).
    private func rankedNeighbours(
        ofSlot slot: Int, of parentID: Int64, count: Int, excluding excludedID: Int64, excludedIndex known: Int?, in db: any Database
    ) throws -> (before: Int64?, after: Int64?) {
        // Where the excluded item is, if it is here: indexes at or past it shift by one.
        var excludedIndex = known ?? Int.max
        if known == nil,
            let position = try position(ofItem: excludedID, of: parentID, in: db)
        {
            excludedIndex = try index(ofPosition: position, of: parentID, in: db)
        }
        func storedIndex(_ index: Int) -> Int { index < excludedIndex ? index : index + 1 }
        // The stored count includes the excluded item when it is here.
        let stored = excludedIndex == Int.max ? count : count + 1
        func positionOfItem(at index: Int) throws -> Int64 { try rankedItem(at: index, of: parentID, count: stored, in: db).position }
        guard slot > 0 else { return (nil, try positionOfItem(at: storedIndex(0))) }
        let before = try positionOfItem(at: storedIndex(slot - 1))
        guard slot < count else { return (before, nil) }
        let after = try db.scalarInt(
            "SELECT position FROM \(table) WHERE \(parent) = ? AND position > ? AND id <> ? ORDER BY position LIMIT 1",
            parentID, before, excludedID)
        return (before, after)
    }

    /// A position for an item that is to be at `slot` (0…count) among the `count` items of
    /// `parentID`, not counting `movingID`. When the gap there is used up, spreads out a block of
    /// neighbours first (parking `movingID` outside the block if it is among them).
    ///
    /// `movingIndex` is the moving item's index among the items of `parentID` when the caller
    /// knows it is one of them (it saves looking it up).
    ///
    /// A server works it out in its own function, in one call (`StorageEngine.positionForSlot`),
    /// step for step as here.
    ///
    /// - Returns: the position, and how many existing items were rewritten to make room.
    package func positionForSlot(
        _ slot: Int, of parentID: Int64, count: Int, movingID: Int64?, movingIndex: Int? = nil, in db: any Database
    ) throws -> (position: Int64, rewritten: Int) {
        if let placed = try db.positionForSlot(slot, of: parentID, in: space, count: count, moving: movingID, movingIndex: movingIndex) {
            return placed
        }
        let (before, after) = try neighbours(
            ofSlot: slot, of: parentID, count: count, excluding: movingID ?? 0, excludedIndex: movingIndex, in: db)
        return try position(between: checked(before, of: parentID), and: checked(after, of: parentID), of: parentID, movingID: movingID, in: db)
    }

    /// A position between the items at `before` and `after` (`nil` for an end) of `parentID`,
    /// spreading out a block of neighbours first when there is no room (parking `movingID` outside
    /// the block if it is among them).
    package func position(between before: Int64?, and after: Int64?, of parentID: Int64, movingID: Int64?, in db: any Database) throws
        -> (position: Int64, rewritten: Int)
    {
        if let position = Self.position(between: before, and: after) {
            return (position, 0)
        }
        var parkingWrites = 0
        if let movingID {
            let parked = try db.scalarInt("SELECT \(parent) FROM \(table) WHERE id = ?", movingID)
            if parked == parentID {
                try db.run("UPDATE \(table) SET position = ? WHERE id = ?", Self.parkingPosition, movingID)
                parkingWrites = 1  // a write like any other: counted in "rewritten"
            }
        }
        let spread = try spreadBlock(around: before ?? 0, of: parentID, in: db)
        return (spread.position, spread.rewritten + parkingWrites)
    }

    /// The position between two neighbours (`nil` for none), or `nil` when there is no room.
    package static func position(between before: Int64?, and after: Int64?) -> Int64? {
        switch (before, after) {
        case (nil, nil):
            return firstPosition
        case (let before?, nil):
            if before < upperBound - step { return before + step }
            return upperBound - before >= 2 ? before + (upperBound - before) / 2 : nil
        case (nil, let after?):
            if after > step { return after - step }
            return after >= 2 ? after / 2 : nil
        case (let before?, let after?):
            return after - before >= 2 ? before + (after - before) / 2 : nil
        }
    }

    /// Spreads out the items of the smallest aligned block of positions containing `anchor`
    /// that stays under its density threshold with one more item, leaving a place for that item
    /// just after `anchor` (0 stands for "before every item"). Returns that place.
    private func spreadBlock(around anchor: Int64, of parentID: Int64, in db: any Database) throws
        -> (position: Int64, rewritten: Int)
    {
        var level = 1
        var start: Int64 = 0
        var size: Int64 = 2
        while true {
            size = Int64(1) << level
            start = (anchor / size) * size
            let count =
                try db.scalarInt(
                    "SELECT count(*) FROM \(table) WHERE \(parent) = ? AND position >= ? AND position < ?",
                    parentID, start, start + size) ?? 0
            let allowed = Double(size) / pow(Self.densityGrowth, Double(level))
            if Double(count + 1) <= allowed || level >= Self.topSpreadLevel { break }
            level += 1
        }
        let items = try db.query(
            "SELECT id, position FROM \(table) WHERE \(parent) = ? AND position >= ? AND position < ? ORDER BY position",
            parentID, start, start + size
        ) { (id: $0.int64(0), position: $0.int64(1)) }
        for item in items { _ = try checked(item.position, of: parentID) }
        let slot = items.firstIndex { $0.position > anchor } ?? items.count
        let gap = size / Int64(items.count + 2)
        func newPosition(_ index: Int) -> Int64 { start + Int64(index + 1) * gap }
        // Each item's new place, skipping the slot kept for the newcomer.
        let moves = items.enumerated().map { index, item in
            (id: item.id, from: item.position, to: newPosition(index < slot ? index : index + 1))
        }
        // Under UNIQUE (parent, position): items moving down go first, lowest first; then items
        // moving up, highest first. Neither order ever lands on a position still taken.
        for move in moves where move.to < move.from {
            try db.run("UPDATE \(table) SET position = ? WHERE id = ?", move.to, move.id)
        }
        for move in moves.reversed() where move.to > move.from {
            try db.run("UPDATE \(table) SET position = ? WHERE id = ?", move.to, move.id)
        }
        return (newPosition(slot), moves.count { $0.to != $0.from })
    }
}
