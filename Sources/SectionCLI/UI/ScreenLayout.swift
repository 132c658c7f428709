import Repository

/// The lines of the full-screen list, worked out from the sections' row counts alone, so any
/// line of a list of millions of rows is found without reading its rows.
///
/// Each section takes: a blank line (after the first section), its header, its rows, and in an
/// editing view a footer while it is empty. While a row is carried, one more line shows where it
/// would land: the slot line, before the row at `slot.row` of section `slot.section`.
struct ScreenLayout: Equatable {
    /// What one line of the list shows.
    enum Line: Hashable {
        case blank
        case header(section: Int)
        case row(RowPath)
        case footer(section: Int)
        case slot(section: Int)
    }

    let rowCounts: [Int]
    let isEditing: Bool
    /// Where the slot line goes: before the row at this path (`row` may equal the count).
    let slot: RowPath?
    /// The first line of each section without the slot line, and the total after the last.
    private let starts: [Int]
    /// The first row of each section in the list's order, and the total after the last.
    private let rowStarts: [Int]

    init(rowCounts: [Int], isEditing: Bool, slot: RowPath? = nil) {
        self.rowCounts = rowCounts
        self.isEditing = isEditing
        self.slot = slot
        var starts = [0]
        var rowStarts = [0]
        starts.reserveCapacity(rowCounts.count + 1)
        rowStarts.reserveCapacity(rowCounts.count + 1)
        for (section, count) in rowCounts.enumerated() {
            let footer = isEditing && count == 0 ? 1 : 0
            starts.append(starts[section] + (section > 0 ? 1 : 0) + 1 + count + footer)
            rowStarts.append(rowStarts[section] + count)
        }
        self.starts = starts
        self.rowStarts = rowStarts
    }

    private init(_ layout: ScreenLayout, slot: RowPath?) {
        rowCounts = layout.rowCounts
        isEditing = layout.isEditing
        starts = layout.starts
        rowStarts = layout.rowStarts
        self.slot = slot
    }

    /// The same layout with the slot line at `slot` (or none): O(1), the sections' lines are
    /// shared, so that carrying a row costs nothing per section.
    func with(slot: RowPath?) -> ScreenLayout {
        ScreenLayout(self, slot: slot)
    }

    /// The first line of `section` (or the total, for the count of sections), the slot line
    /// counted.
    private func start(of section: Int) -> Int {
        guard let slot, slot.section < section else { return starts[section] }
        return starts[section] + 1
    }

    /// How many lines the list takes.
    var lineCount: Int { start(of: rowCounts.count) }

    /// How many rows the list has.
    var rowCount: Int { rowStarts.last ?? 0 }

    /// What line `index` shows.
    func line(_ index: Int) -> Line {
        // The last section starting at or before the line.
        var low = 0
        var high = rowCounts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if start(of: middle) <= index { low = middle } else { high = middle - 1 }
        }
        let section = low
        var offset = index - start(of: section)
        if section > 0 {
            if offset == 0 { return .blank }
            offset -= 1
        }
        if offset == 0 { return .header(section: section) }
        offset -= 1
        if let slot, slot.section == section {
            if offset == slot.row { return .slot(section: section) }
            if offset > slot.row { offset -= 1 }
        }
        if offset < rowCounts[section] { return .row(RowPath(section: section, row: offset)) }
        return .footer(section: section)
    }

    /// The line of a row.
    func line(of path: RowPath) -> Int {
        var line = headerLine(of: path.section) + 1 + path.row
        if let slot, slot.section == path.section, slot.row <= path.row { line += 1 }
        return line
    }

    /// The line of the slot line, if there is one.
    var slotLine: Int? {
        slot.map { headerLine(of: $0.section) + 1 + $0.row }
    }

    /// The line of a section's header.
    func headerLine(of section: Int) -> Int {
        start(of: section) + (section > 0 ? 1 : 0)
    }

    /// A row's index among all rows, in the list's order.
    func flatIndex(of path: RowPath) -> Int { rowStarts[path.section] + path.row }

    /// The row at an index among all rows (clamped to the list), or nil when there are no rows.
    func path(atFlatIndex index: Int) -> RowPath? {
        guard rowCount > 0 else { return nil }
        let index = min(max(index, 0), rowCount - 1)
        var low = 0
        var high = rowCounts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if rowStarts[middle] <= index { low = middle } else { high = middle - 1 }
        }
        // Skip empty sections that start at the same index.
        var section = low
        while rowCounts[section] == 0 { section += 1 }
        return RowPath(section: section, row: index - rowStarts[section])
    }
}
