/// One section of an edit session's draft, as pieces: runs of the stored section's rows, by
/// their index in the stored section, and the rows the session inserted or moved there, held in
/// memory.
///
/// The pieces are kept in blocks of at most `maximumPieces` pieces, each block with its row
/// count, the end of its last stored run, and a key that stays the block's while it lives; the
/// table maps every held row's id to the key of its block. So:
/// - the piece holding the row at an index is found by adding up block counts, then walking one
///   block;
/// - a held row is found by id through its block's key, then one block (a held piece holds at
///   most `maximumHeldRows` rows);
/// - the run holding a stored index is found through the blocks' run ends (stored runs stay in
///   increasing stored order: a stored row that moves becomes held), then one block;
/// - inserting, splitting and removing pieces change one block; a block that outgrows
///   `maximumPieces` is cut in two (re-keying the held rows of its second half), one that
///   shrinks under `minimumPieces` is joined to a neighbour when they fit in one.
///
/// Each of these costs O(b + p) steps for b blocks and at most p pieces a block: with e edits
/// there are at most about 3e + 1 pieces, and a block cut in two leaves halves of p / 2 pieces
/// (one left smaller sits next to one too full to take it), so b is about 3e / (p / 2), some
/// 3,000 integers after 40,000 moves. Blocks rather
/// than a balanced tree because the steps over the blocks are sums and comparisons over
/// contiguous arrays of integers, a few thousand of them for 10⁵ edits, far cheaper than the
/// O(log n) lookups in the stored list an edit makes anyway, while a tree would need parent
/// links (to find a held row's index from its node) and rebalancing on every split; and
/// because a block keeps its pieces as a plain array, reads of consecutive rows walk it
/// directly.
///
/// The same table orders the draft's sections: runs of the stored sections by their indexes in
/// the list, and the sections the session created or moved, held by id.
struct PieceTable<Element: PieceElement> {
    /// A run of a section's rows (or of the list's sections).
    enum Piece {
        /// Stored items of the base, by their indexes in it.
        case stored(Range<Int>)
        /// Items the session inserted or moved here.
        case held([Element])

        var count: Int {
            switch self {
            case .stored(let range): return range.count
            case .held(let rows): return rows.count
            }
        }
    }

    /// Where a row is: its block, its piece in the block, and its offset in the piece.
    struct Place {
        var block: Int
        var piece: Int
        var offset: Int
    }

    static var maximumPieces: Int { 64 }
    static var minimumPieces: Int { 16 }
    static var maximumHeldRows: Int { 64 }

    /// The pieces, block by block.
    private(set) var blocks: [[Piece]] = []
    /// The number of rows in each block.
    private var counts: [Int] = []
    /// The upper bound of each block's last stored run; -1 for a block without one.
    private var storedEnds: [Int] = []
    /// The key of each block.
    private var keys: [Int] = []
    /// Held items → the key of the block holding them.
    private var blockOfRow: [Element.Key: Int] = [:]
    private var nextKey = 0
    /// The number of rows.
    private(set) var rowCount = 0

    /// The rows of a stored section of `storedCount` rows, all in place.
    init(storedCount: Int) {
        if storedCount > 0 { appendBlock([.stored(0..<storedCount)]) }
        rowCount = storedCount
    }

    /// Every piece, in order.
    var pieces: some Sequence<Piece> { blocks.joined() }

    /// Whether any stored row is still in place.
    var hasStoredRows: Bool { storedEnds.contains { $0 >= 0 } }

    // MARK: - Finding

    /// The place of the row at `index` (0..<rowCount).
    func place(of index: Int) -> Place {
        var start = 0
        var block = 0
        while start + counts[block] <= index {
            start += counts[block]
            block += 1
        }
        var piece = 0
        for candidate in blocks[block] {
            let count = candidate.count
            if index < start + count { break }
            start += count
            piece += 1
        }
        return Place(block: block, piece: piece, offset: index - start)
    }

    /// The number of rows before a block.
    private func start(ofBlock block: Int) -> Int {
        var start = 0
        for index in 0..<block { start += counts[index] }
        return start
    }

    /// The number of rows before a piece of a block, within the block.
    private func start(ofPiece piece: Int, inBlock block: Int) -> Int {
        var start = 0
        for index in 0..<piece { start += blocks[block][index].count }
        return start
    }

    /// The index of the held item with this key, and the item, if this table holds it.
    func heldRow(_ id: Element.Key) -> (index: Int, row: Element)? {
        guard let key = blockOfRow[id], let block = keys.firstIndex(of: key) else { return nil }
        var start = start(ofBlock: block)
        for piece in blocks[block] {
            if case .held(let rows) = piece, let offset = rows.firstIndex(where: { $0.pieceKey == id }) {
                return (start + offset, rows[offset])
            }
            start += piece.count
        }
        preconditionFailure("a held row is in the block its key names")
    }

    /// The index of the stored row at `storedIndex` of the base, if it is still in a stored run.
    func index(ofStored storedIndex: Int) -> Int? {
        var start = 0
        for block in blocks.indices {
            // Runs increase: only the first block whose runs end past the index can hold it.
            if storedEnds[block] > storedIndex {
                for piece in blocks[block] {
                    if case .stored(let range) = piece, range.contains(storedIndex) { return start + storedIndex - range.lowerBound }
                    start += piece.count
                }
                return nil
            }
            start += counts[block]
        }
        return nil
    }

    /// The piece at a place.
    subscript(place: Place) -> Piece { blocks[place.block][place.piece] }

    /// The place after `place`'s piece (offset 0), or `nil` past the last.
    func place(after place: Place) -> Place? {
        if place.piece + 1 < blocks[place.block].count { return Place(block: place.block, piece: place.piece + 1, offset: 0) }
        return place.block + 1 < blocks.count ? Place(block: place.block + 1, piece: 0, offset: 0) : nil
    }

    // MARK: - Changing

    /// Inserts a held row so that its index becomes `index` (0...rowCount).
    mutating func insert(_ row: Element, at index: Int) {
        defer { rowCount += 1 }
        guard !blocks.isEmpty else {
            appendBlock([.held([row])])
            blockOfRow[row.pieceKey] = keys[0]
            return
        }
        let at = index < rowCount ? place(of: index) : Place(block: blocks.count - 1, piece: blocks[blocks.count - 1].count, offset: 0)
        let block = at.block
        var grown: Int  // the held piece the row went into
        if at.piece < blocks[block].count, case .held(var rows) = blocks[block][at.piece] {
            blocks[block][at.piece] = .held([])  // so that `rows` is the only reference
            rows.insert(row, at: at.offset)
            blocks[block][at.piece] = .held(rows)
            grown = at.piece
        } else if at.offset == 0, at.piece > 0, case .held(var rows) = blocks[block][at.piece - 1] {
            blocks[block][at.piece - 1] = .held([])
            rows.append(row)
            blocks[block][at.piece - 1] = .held(rows)
            grown = at.piece - 1
        } else if at.offset == 0 {
            blocks[block].insert(.held([row]), at: at.piece)
            grown = at.piece
        } else {
            guard case .stored(let range) = blocks[block][at.piece] else { preconditionFailure("a held piece is handled above") }
            let split = range.lowerBound + at.offset
            blocks[block].replaceSubrange(
                at.piece...at.piece, with: [.stored(range.lowerBound..<split), .held([row]), .stored(split..<range.upperBound)])
            grown = at.piece + 1
        }
        // A held piece stays short, so that finding a row in it costs little.
        if case .held(let rows) = blocks[block][grown], rows.count > Self.maximumHeldRows {
            let half = rows.count / 2
            blocks[block].replaceSubrange(grown...grown, with: [.held(Array(rows[..<half])), .held(Array(rows[half...]))])
        }
        counts[block] += 1
        blockOfRow[row.pieceKey] = keys[block]
        storedEnds[block] = Self.storedEnd(of: blocks[block])
        splitIfFull(block)
    }

    /// Removes the row at `index` (0..<rowCount); returns it when it was held.
    @discardableResult
    mutating func remove(at index: Int) -> Element? {
        let at = place(of: index)
        let block = at.block
        var removed: Element?
        switch blocks[block][at.piece] {
        case .held(var rows):
            blocks[block][at.piece] = .held([])
            removed = rows.remove(at: at.offset)
            blockOfRow[removed!.pieceKey] = nil
            if !rows.isEmpty {
                blocks[block][at.piece] = .held(rows)
            } else if at.piece > 0, at.piece + 1 < blocks[block].count, case .stored(let before) = blocks[block][at.piece - 1],
                case .stored(let after) = blocks[block][at.piece + 1], before.upperBound == after.lowerBound
            {
                blocks[block].replaceSubrange((at.piece - 1)...(at.piece + 1), with: [.stored(before.lowerBound..<after.upperBound)])
            } else {
                blocks[block].remove(at: at.piece)
            }
        case .stored(let range):
            let split = range.lowerBound + at.offset
            let parts = [range.lowerBound..<split, (split + 1)..<range.upperBound].filter { !$0.isEmpty }.map(Piece.stored)
            blocks[block].replaceSubrange(at.piece...at.piece, with: parts)
        }
        rowCount -= 1
        counts[block] -= 1
        if blocks[block].isEmpty {
            removeBlock(block)
        } else {
            storedEnds[block] = Self.storedEnd(of: blocks[block])
            // A stored run cut in the middle is one piece more.
            splitIfFull(block)
            joinIfSmall(block)
        }
        return removed
    }

    // MARK: - Blocks

    private static func storedEnd(of pieces: [Piece]) -> Int {
        for piece in pieces.reversed() {
            if case .stored(let range) = piece { return range.upperBound }
        }
        return -1
    }

    private mutating func appendBlock(_ pieces: [Piece]) {
        insertBlock(pieces, at: blocks.count)
    }

    /// Inserts a block of pieces (not yet counted in `rowCount`), keying its held rows.
    private mutating func insertBlock(_ pieces: [Piece], at index: Int) {
        let key = nextKey
        nextKey += 1
        var count = 0
        for piece in pieces {
            count += piece.count
            if case .held(let rows) = piece { for row in rows { blockOfRow[row.pieceKey] = key } }
        }
        blocks.insert(pieces, at: index)
        counts.insert(count, at: index)
        storedEnds.insert(Self.storedEnd(of: pieces), at: index)
        keys.insert(key, at: index)
    }

    private mutating func removeBlock(_ index: Int) {
        blocks.remove(at: index)
        counts.remove(at: index)
        storedEnds.remove(at: index)
        keys.remove(at: index)
    }

    /// Cuts a block with too many pieces in two.
    private mutating func splitIfFull(_ block: Int) {
        guard blocks[block].count > Self.maximumPieces else { return }
        let half = blocks[block].count / 2
        let tail = Array(blocks[block][half...])
        blocks[block].removeSubrange(half...)
        insertBlock(tail, at: block + 1)
        counts[block] -= counts[block + 1]
        storedEnds[block] = Self.storedEnd(of: blocks[block])
    }

    /// Joins a block with few pieces to a neighbour, when both fit in one.
    private mutating func joinIfSmall(_ block: Int) {
        guard blocks[block].count < Self.minimumPieces else { return }
        for (first, second) in [(block, block + 1), (block - 1, block)] where first >= 0 && second < blocks.count {
            guard blocks[first].count + blocks[second].count <= Self.maximumPieces else { continue }
            let key = keys[first]
            for piece in blocks[second] {
                if case .held(let rows) = piece { for row in rows { blockOfRow[row.pieceKey] = key } }
            }
            blocks[first] += blocks[second]
            counts[first] += counts[second]
            storedEnds[first] = Self.storedEnd(of: blocks[first])
            removeBlock(second)
            return
        }
    }
}

extension PieceTable where Element == Row {
    /// Gives the held row at `index` new content; returns false (changing nothing) when the row
    /// there is a stored one.
    mutating func setHeldContent(_ content: RowContent, at index: Int) -> Bool {
        let at = place(of: index)
        guard case .held(var rows) = blocks[at.block][at.piece] else { return false }
        blocks[at.block][at.piece] = .held([])
        rows[at.offset].content = content
        blocks[at.block][at.piece] = .held(rows)
        return true
    }
}

/// What a piece table holds: items with a key of their own.
protocol PieceElement {
    associatedtype Key: Hashable
    var pieceKey: Key { get }
}

extension Row: PieceElement {
    var pieceKey: RowID { id }
}

extension SectionID: PieceElement {
    var pieceKey: SectionID { self }
}
