/// A table view without sections, as AppKit's `NSTableView` is: one run of rows, which a
/// `ListViewAdapter` fills with each section's header, its rows, and its footer when the view
/// shows one (`FlatListLayout`).
///
/// Unlike `UITableView`'s batches, each call between `beginUpdates()` and `endUpdates()` names
/// places as the view holds them after the calls before it. The adapter makes, per change, one
/// such block: the rows that leave (`removeRows`, at their old indexes, at once), the moves one
/// after another (each from where the row is now to where it goes), the rows that arrive
/// (`insertRows`, at their final indexes, at once), and last the rows whose text changed
/// (`reloadRows`, at their final indexes). Before the block it sets the list its data source
/// answers from (`ListViewAdapter.flatRow(at:)`) to the list after the change.
///
/// A conformance only forwards each call to the platform's (`NSTableView+ListTableView.swift`
/// does it for AppKit, whose `reloadData()`, `beginUpdates()`, `endUpdates()` and
/// `moveRow(at:to:)` are these already).
@MainActor
public protocol FlatListTableView: AnyObject {
    /// Shows the data source's rows afresh, with no animation.
    func reloadData()
    /// Opens a block of updates animated together.
    func beginUpdates()
    /// Closes the block `beginUpdates()` opened.
    func endUpdates()
    /// Removes the rows at these indexes, as the view holds them now, all at once.
    func removeRows(_ rows: [Int])
    /// Moves the row at `row` to `newRow`, both as the view holds them at this call.
    func moveRow(at row: Int, to newRow: Int)
    /// Inserts rows at these indexes, which they have once all are inserted.
    func insertRows(_ rows: [Int])
    /// Draws these rows again from the data source, in place.
    func reloadRows(_ rows: [Int])
}

/// What one row of a table view without sections shows: a section's header, one of its rows,
/// or its footer ("No Data" under an empty section of an editing view).
public enum FlatRow: Hashable, Sendable {
    /// The header of the section at this index (AppKit draws it as a group row).
    case header(section: Int)
    /// The list's row at this path.
    case row(RowPath)
    /// The footer of the section at this index.
    case footer(section: Int)
}

/// A list laid out as one run of rows, for a table view without sections: each section's header,
/// then its rows, then its footer when it has one (`ListSnapshot.footer(ofSection:)`: an editing
/// view's empty section). It maps the run's indexes to the list's places and back.
public struct FlatListLayout: Hashable, Sendable {
    /// The index of each section's header, and last the number of rows in all.
    private var starts: [Int]
    /// Each section's number of rows.
    private var rowCounts: [Int]
    /// Whether each section shows a footer.
    private var footers: [Bool]

    /// The layout of `list`.
    /// - Complexity: O(s) in the number of sections.
    public init(_ list: ListSnapshot) {
        rowCounts = list.sections.map(\.rows.count)
        footers = list.sections.indices.map { list.footer(ofSection: $0) != nil }
        starts = [0]
        starts.reserveCapacity(rowCounts.count + 1)
        for section in rowCounts.indices { starts.append(starts[section] + 1 + rowCounts[section] + (footers[section] ? 1 : 0)) }
    }

    /// The number of rows of the run: headers, rows and footers.
    public var count: Int { starts[starts.count - 1] }

    /// What the row at `index` of the run shows.
    /// - Precondition: `0 <= index < count`.
    /// - Complexity: O(log s).
    public func row(at index: Int) -> FlatRow {
        precondition(index >= 0 && index < count, "row \(index) is outside the run of \(count) rows")
        // The last section whose header is at or before `index`.
        var low = 0
        var high = starts.count - 2
        while low < high {
            let middle = (low + high + 1) / 2
            if starts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        let offset = index - starts[low]
        if offset == 0 { return .header(section: low) }
        if offset <= rowCounts[low] { return .row(RowPath(section: low, row: offset - 1)) }
        return .footer(section: low)
    }

    /// The index in the run of what `row` names.
    /// - Precondition: the list has that place (and that footer).
    /// - Complexity: O(1).
    public func index(of row: FlatRow) -> Int {
        switch row {
        case .header(let section): starts[section]
        case .row(let path): starts[path.section] + 1 + path.row
        case .footer(let section): starts[section] + 1 + rowCounts[section]
        }
    }

    /// Where a row dragged from `source` lands when it is dropped above the run's row `index`
    /// (`NSTableView`'s drop "above", `0...count`): its path once moved, as
    /// `ListViewAdapter.userMovedRow(from:to:)` takes it. A drop above a header ends the section
    /// before it; above a footer, or a row, it goes there. `nil` above the first header, where no
    /// section is.
    /// - Complexity: O(log s).
    public func destination(ofDropAbove index: Int, from source: RowPath) -> RowPath? {
        guard index > 0 && index <= count else { return nil }
        var target: RowPath
        switch index == count ? FlatRow.header(section: rowCounts.count) : row(at: index) {
        case .header(let section): target = RowPath(section: section - 1, row: rowCounts[section - 1])
        case .row(let path): target = path
        case .footer(let section): target = RowPath(section: section, row: rowCounts[section])
        }
        // Once the row leaves its place, the rows after it in its section move up by one.
        if target.section == source.section && target.row > source.row { target.row -= 1 }
        return target
    }
}

/// The calls that take a table view without sections from one list to another, in the order
/// `FlatListTableView` makes them inside one block of updates: removals at old indexes, moves
/// one after another, insertions at final indexes, reloads at final indexes.
///
/// Headers, rows and footers are followed by id (a footer by its section's), so a row that moves
/// to another section, or out of a deleted one, slides there; among what stays, those on a
/// longest run in the old order keep still and the others move. A row is reloaded when its kind,
/// title or value changed, a header when its title did, a footer when its text did.
struct FlatChange: Hashable, Sendable {
    /// Indexes in the old run of what leaves.
    var removed: [Int] = []
    /// Moves, each from where the row is after the calls before it to where it goes.
    var moves: [Changeset.Move<Int>] = []
    /// Indexes in the new run of what arrives.
    var inserted: [Int] = []
    /// Indexes in the new run of what is drawn again.
    var reloaded: [Int] = []

    /// Whether it changes nothing.
    var isEmpty: Bool { removed.isEmpty && moves.isEmpty && inserted.isEmpty && reloaded.isEmpty }

    /// One row of the run, by identity.
    private enum Item: Hashable {
        case header(SectionID)
        case row(RowID)
        case footer(SectionID)
    }

    /// What a row of the run shows, to tell whether it must be drawn again.
    private enum Content: Equatable {
        case header(String)
        case row(RowContent)
        case footer(String)
    }

    /// The run of `list`, each row with what it shows.
    private static func items(_ list: ListSnapshot) -> [(item: Item, content: Content)] {
        var items: [(item: Item, content: Content)] = []
        items.reserveCapacity(list.rowCount + 2 * list.sections.count)
        for (index, section) in list.sections.enumerated() {
            items.append((.header(section.id), .header(section.title)))
            for row in section.rows { items.append((.row(row.id), .row(row.content))) }
            if let footer = list.footer(ofSection: index) { items.append((.footer(section.id), .footer(footer))) }
        }
        return items
    }

    /// The calls from `old`'s run to `new`'s.
    /// - Complexity: O(n log n) in the rows of both lists (the longest run), plus O(m · n) for
    ///   m moves (each one shifts the rows between its ends).
    init(from old: ListSnapshot, to new: ListSnapshot) {
        let before = Self.items(old)
        let after = Self.items(new)
        var newIndex: [Item: Int] = [:]
        for (index, entry) in after.enumerated() { newIndex[entry.item] = index }
        var oldIndex: [Item: Int] = [:]
        for (index, entry) in before.enumerated() { oldIndex[entry.item] = index }

        removed = before.indices.filter { newIndex[before[$0].item] == nil }
        // What stays, in the old order, and the same in the new order.
        var current = before.map(\.item).filter { newIndex[$0] != nil }
        let target = after.map(\.item).filter { oldIndex[$0] != nil }
        // Those on a longest increasing run of new places keep still; each other one is put
        // right after the one before it in the new order, which is in its place already.
        var position: [Item: Int] = [:]
        for (index, item) in target.enumerated() { position[item] = index }
        let still = Set(longestIncreasingSubsequence(current.map { position[$0]! }))
        for (index, item) in target.enumerated() where !still.contains(index) {
            let from = current.firstIndex(of: item)!
            current.remove(at: from)
            let to = index == 0 ? 0 : current.firstIndex(of: target[index - 1])! + 1
            current.insert(item, at: to)
            if from != to { moves.append(Changeset.Move(from: from, to: to)) }
        }
        inserted = after.indices.filter { oldIndex[after[$0].item] == nil }
        reloaded = after.indices.filter { index in
            oldIndex[after[index].item].map { before[$0].content != after[index].content } ?? false
        }
    }

    /// The indexes in `new`'s run of the rows whose ids differ from `old`'s at the same place:
    /// what a save's re-keying (draft ids to stored ones, the shape kept) leaves to redraw in a
    /// data source that hands out ids, with nothing to move.
    static func rekeyedRows(from old: ListSnapshot, to new: ListSnapshot) -> [Int] {
        let layout = FlatListLayout(new)
        var rows: [Int] = []
        for (index, (before, after)) in zip(old.sections, new.sections).enumerated() {
            let rekeyed = before.id != after.id
            if rekeyed { rows.append(layout.index(of: .header(section: index))) }
            for (row, (was, now)) in zip(before.rows, after.rows).enumerated() where was.id != now.id {
                rows.append(layout.index(of: .row(RowPath(section: index, row: row))))
            }
            if rekeyed && new.footer(ofSection: index) != nil { rows.append(layout.index(of: .footer(section: index))) }
        }
        return rows
    }

    /// Makes the calls on `view`, inside one block of updates.
    @MainActor
    func perform(on view: any FlatListTableView) {
        view.beginUpdates()
        if !removed.isEmpty { view.removeRows(removed) }
        for move in moves { view.moveRow(at: move.from, to: move.to) }
        if !inserted.isEmpty { view.insertRows(inserted) }
        if !reloaded.isEmpty { view.reloadRows(reloaded) }
        view.endUpdates()
    }
}
