import Repository

/// The lines of the full-screen list, worked out from the sections' row counts alone, so any
/// line of a list of millions of rows is found without reading its rows.
///
/// Each section takes: a blank line (after the list's first section), its header, its rows, and
/// in an editing view a footer while it is empty. While a row is carried, one more line shows
/// where it would land: the slot line, before the row at `slot.row` of section `slot.section`.
///
/// A layout covers a run of consecutive sections from `firstSection` (the whole list, or the
/// window of it a list of very many sections keeps around the screen): sections and paths are
/// named by their index in the list, lines and flat row indices count from the window's first
/// line and first row.
struct ScreenLayout: Equatable {
    /// What one line of the list shows.
    enum Line: Hashable {
        case blank
        case header(section: Int)
        case row(RowPath)
        case footer(section: Int)
        case slot(section: Int)

        /// The section a header, row, footer or slot line belongs to (nil for a blank line).
        var section: Int? {
            switch self {
            case .blank: nil
            case .header(let section), .footer(let section), .slot(let section): section
            case .row(let path): path.section
            }
        }
    }

    /// The row counts of the sections from `firstSection` on.
    let rowCounts: [Int]
    /// The list's index of the layout's first section.
    let firstSection: Int
    let isEditing: Bool
    /// Where the slot line goes: before the row at this path (`row` may equal the count); nil
    /// when there is none, or it is in a section the layout does not cover.
    let slot: RowPath?
    /// The first line of each section without the slot line, and the total after the last.
    private let starts: [Int]
    /// The first row of each section in the list's order, and the total after the last.
    private let rowStarts: [Int]

    init(rowCounts: [Int], firstSection: Int = 0, isEditing: Bool, slot: RowPath? = nil) {
        self.rowCounts = rowCounts
        self.firstSection = firstSection
        self.isEditing = isEditing
        self.slot = slot.flatMap { (firstSection..<(firstSection + rowCounts.count)).contains($0.section) ? $0 : nil }
        var starts = [0]
        var rowStarts = [0]
        starts.reserveCapacity(rowCounts.count + 1)
        rowStarts.reserveCapacity(rowCounts.count + 1)
        for (section, count) in rowCounts.enumerated() {
            let footer = isEditing && count == 0 ? 1 : 0
            starts.append(starts[section] + (firstSection + section > 0 ? 1 : 0) + 1 + count + footer)
            rowStarts.append(rowStarts[section] + count)
        }
        self.starts = starts
        self.rowStarts = rowStarts
    }

    private init(_ layout: ScreenLayout, slot: RowPath?) {
        rowCounts = layout.rowCounts
        firstSection = layout.firstSection
        isEditing = layout.isEditing
        starts = layout.starts
        rowStarts = layout.rowStarts
        self.slot = slot.flatMap { layout.sections.contains($0.section) ? $0 : nil }
    }

    /// The same layout with the slot line at `slot` (or none): O(1), the sections' lines are
    /// shared, so that carrying a row costs nothing per section.
    func with(slot: RowPath?) -> ScreenLayout {
        ScreenLayout(self, slot: slot)
    }

    /// The list's indices of the sections the layout covers.
    var sections: Range<Int> { firstSection..<(firstSection + rowCounts.count) }

    /// The row count of `section` (an index in the list, inside `sections`).
    func rowCount(of section: Int) -> Int { rowCounts[section - firstSection] }

    /// The first line of the section at `local` in `rowCounts` (or the total, for their count),
    /// the slot line counted.
    private func start(of local: Int) -> Int {
        guard let slot, slot.section - firstSection < local else { return starts[local] }
        return starts[local] + 1
    }

    /// The first line of `section` (an index in the list, inside `sections`, or their end): its
    /// blank line, or its header for the list's first section.
    func firstLine(of section: Int) -> Int { start(of: section - firstSection) }

    /// How many lines the layout takes.
    var lineCount: Int { start(of: rowCounts.count) }

    /// How many rows the sections of the layout have.
    var rowCount: Int { rowStarts.last ?? 0 }

    /// The section whose lines hold line `index` (its blank line included).
    func section(ofLine index: Int) -> Int {
        // The last section starting at or before the line.
        var low = 0
        var high = rowCounts.count - 1
        while low < high {
            let middle = (low + high + 1) / 2
            if start(of: middle) <= index { low = middle } else { high = middle - 1 }
        }
        return firstSection + low
    }

    /// What line `index` shows.
    func line(_ index: Int) -> Line {
        let section = section(ofLine: index)
        let local = section - firstSection
        var offset = index - start(of: local)
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
        if offset < rowCounts[local] { return .row(RowPath(section: section, row: offset)) }
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
        firstLine(of: section) + (section > 0 ? 1 : 0)
    }

    /// A row's index among the layout's rows, in the list's order.
    func flatIndex(of path: RowPath) -> Int { rowStarts[path.section - firstSection] + path.row }

    /// The row at an index among the layout's rows (clamped to them), or nil when there are no
    /// rows.
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
        var local = low
        while rowCounts[local] == 0 { local += 1 }
        return RowPath(section: firstSection + local, row: index - rowStarts[local])
    }
}
