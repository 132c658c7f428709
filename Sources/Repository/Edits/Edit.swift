/// How a section is named: by index, by stable id, or by its exact title.
public enum SectionRef: Hashable, Sendable, CustomStringConvertible {
    /// The section at this 0-based index.
    case index(Int)
    /// The section with this stable id.
    case id(SectionID)
    /// The one section whose title is exactly this text.
    case title(String)

    public var description: String {
        switch self {
        case .index(let index): return "section \(index)"
        case .id(let id): return "section #\(id)"
        case .title(let title): return "section \"\(title)\""
        }
    }
}

/// A row's place in its section: an index, or the end.
public enum RowIndex: Hashable, Sendable, CustomStringConvertible {
    /// The 0-based index.
    case index(Int)
    /// As a source, the last row (an error in an empty section); as a destination, after the last.
    case end

    public var description: String {
        switch self {
        case .index(let index): return String(index)
        case .end: return "end"
        }
    }
}

/// How a row is named: by section and index (`S:R`, `S:end`), or by its stable id (`#ID`).
public enum RowRef: Hashable, Sendable, CustomStringConvertible {
    /// The row at this place in that section.
    case path(SectionRef, RowIndex)
    /// The row with this stable id.
    case id(RowID)

    /// The row at `S:R`, both indexes.
    public static func at(_ section: Int, _ row: Int) -> RowRef { .path(.index(section), .index(row)) }

    public var description: String {
        switch self {
        case .path(let section, let row): return "row \(row) of \(section)"
        case .id(let id): return "row #\(id)"
        }
    }
}

/// A place next to a row, named by the row's stable id: it does not shift when rows are added
/// or moved elsewhere, so a retried move lands where the person meant.
public enum RowAnchor: Hashable, Sendable, CustomStringConvertible {
    /// Just after the row with this id, in its section.
    case after(RowID)
    /// Just before the row with this id, in its section.
    case before(RowID)

    /// The id of the row the place is next to.
    public var rowID: RowID {
        switch self {
        case .after(let id), .before(let id): return id
        }
    }

    public var description: String {
        switch self {
        case .after(let id): return "after row #\(id)"
        case .before(let id): return "before row #\(id)"
        }
    }

    /// The destination index among the section's rows without the moving one: `anchorIndex` is
    /// the anchor's index in the section, `movingIndex` the moving row's when it is in the same
    /// section. A row placed next to itself stays where it is.
    func slot(anchorIndex: Int, movingIndex: Int?) -> Int {
        if let movingIndex, movingIndex == anchorIndex { return movingIndex }
        let anchor = movingIndex.map { $0 < anchorIndex ? anchorIndex - 1 : anchorIndex } ?? anchorIndex
        switch self {
        case .after: return anchor + 1
        case .before: return anchor
        }
    }
}

/// Where a moved or added row goes: a section and the row's index *after* the change
/// (UIKit's destination index path). `.end`, or an index equal to the section's count, appends.
/// Or, with an `anchor`, the place just after or before a row named by id, in that row's section
/// (`section` and `index` are then not used).
public struct RowDestination: Hashable, Sendable {
    /// The destination section.
    public var section: SectionRef
    /// The row's final index in that section.
    public var index: RowIndex
    /// When set, the destination is next to this row instead, wherever it is.
    public var anchor: RowAnchor?

    /// Creates a destination.
    public init(section: SectionRef, index: RowIndex) {
        self.section = section
        self.index = index
    }

    /// Just after the row with this id, in its section.
    public static func after(_ rowID: RowID) -> RowDestination {
        var destination = RowDestination(section: .index(0), index: .end)
        destination.anchor = .after(rowID)
        return destination
    }

    /// Just before the row with this id, in its section.
    public static func before(_ rowID: RowID) -> RowDestination {
        var destination = RowDestination(section: .index(0), index: .end)
        destination.anchor = .before(rowID)
        return destination
    }

    /// The destination `S:R`, both indexes.
    public static func at(_ section: Int, _ row: Int) -> RowDestination {
        RowDestination(section: .index(section), index: .index(row))
    }
}

/// How `Edit.updateRow` changes a row's value.
public enum ValueUpdate: Hashable, Sendable {
    /// Leave the value as it is.
    case keep
    /// Set this value (the row must be a field row).
    case set(String)
    /// Remove the value, so that it shows as "-".
    case remove
}

/// One change to a list, as a value: what a command or an edit-session line asks for.
///
/// `ListHandle.apply(_:)` commits one at once; `EditSession.apply(_:)` applies one to a draft.
public enum Edit: Hashable, Sendable {
    /// Adds a section with `title` at `index` (at the end when `nil`).
    case addSection(title: String, emptyText: String? = nil, at: Int? = nil)
    /// Renames a section.
    case renameSection(SectionRef, title: String)
    /// Sets (or, with `nil`, clears) the text an empty section's footer shows while editing.
    case setEmptyText(SectionRef, String?)
    /// Moves a section so that its index becomes `to` (its index after the move).
    case moveSection(SectionRef, to: Int)
    /// Deletes a section and its rows; refused while it has rows unless `force`.
    case deleteSection(SectionRef, force: Bool = false)
    /// Adds a row at a place in a section (`RowIndex.end` appends).
    case addRow(RowContent, to: RowDestination)
    /// Changes a row's title and/or value; `nil` title keeps it.
    case updateRow(RowRef, title: String? = nil, value: ValueUpdate = .keep)
    /// Deletes a row.
    case deleteRow(RowRef)
    /// Moves a row to a destination, within its section or across sections.
    case moveRow(RowRef, to: RowDestination)
}
