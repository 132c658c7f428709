/// A section without its rows: what a table view needs for a section header and for
/// `numberOfRowsInSection`.
public struct SectionInfo: Hashable, Sendable, Identifiable {
    /// The section's stable id (negative for a section created in an unsaved edit session).
    public var id: SectionID
    /// The section's 0-based index in its list.
    public var index: Int
    /// The section's title.
    public var title: String
    /// What the footer says while the section is empty in an editing view; `nil` means "No Data".
    public var emptyText: String?
    /// How many rows the section has.
    public var rowCount: Int

    /// Creates a section summary.
    public init(id: SectionID, index: Int, title: String, emptyText: String? = nil, rowCount: Int) {
        self.id = id
        self.index = index
        self.title = title
        self.emptyText = emptyText
        self.rowCount = rowCount
    }

    /// The footer in a view: the empty text ("No Data" unless set) when the section has no rows
    /// and the view is an editing view; otherwise `nil`.
    public func footer(editing: Bool) -> String? {
        editing && rowCount == 0 ? (emptyText ?? Section.defaultEmptyText) : nil
    }
}

/// A list's sections with their row counts, but no rows.
public struct ListOutline: Hashable, Sendable {
    /// The list's stable id.
    public var listID: ListID
    /// The list's name.
    public var name: String
    /// The list's version.
    public var version: ListVersion
    /// Whether this is an editing view, in which empty sections show their footer.
    public var isEditing: Bool
    /// The sections, in order.
    public var sections: [SectionInfo]

    /// Creates an outline.
    public init(listID: ListID, name: String, version: ListVersion, isEditing: Bool = false, sections: [SectionInfo] = []) {
        self.listID = listID
        self.name = name
        self.version = version
        self.isEditing = isEditing
        self.sections = sections
    }

    /// The number of rows in all sections.
    public var rowCount: Int { sections.reduce(0) { $0 + $1.rowCount } }
}

/// A run of consecutive sections of a list with their row counts, and how many sections the
/// list has: the part of the outline a view of a list with very many sections has on screen
/// (`ListHandle.outline(from:limit:editing:atVersion:)`), read in O(log s + limit).
public struct OutlineWindow: Hashable, Sendable {
    /// The list's stable id.
    public var listID: ListID
    /// The list's name.
    public var name: String
    /// The list's version.
    public var version: ListVersion
    /// Whether this is an editing view, in which empty sections show their footer.
    public var isEditing: Bool
    /// How many sections the list has in all.
    public var sectionCount: Int
    /// The index of the first section of the window (the index asked for).
    public var first: Int
    /// The sections, in order, from the one at `first`.
    public var sections: [SectionInfo]

    /// Creates a window of an outline.
    public init(
        listID: ListID, name: String, version: ListVersion, isEditing: Bool = false, sectionCount: Int, first: Int = 0,
        sections: [SectionInfo] = []
    ) {
        self.listID = listID
        self.name = name
        self.version = version
        self.isEditing = isEditing
        self.sectionCount = sectionCount
        self.first = first
        self.sections = sections
    }

    /// The whole of an outline, as a window from its first section.
    public init(_ outline: ListOutline) {
        self.init(
            listID: outline.listID, name: outline.name, version: outline.version, isEditing: outline.isEditing,
            sectionCount: outline.sections.count, sections: outline.sections)
    }

    /// The index after the window's last section.
    public var end: Int { first + sections.count }

    /// Whether the window holds every section of the list.
    public var isWhole: Bool { first == 0 && sections.count == sectionCount }

    /// The section at `index` (an index in the list, not in the window), if the window holds it.
    public subscript(index: Int) -> SectionInfo? {
        index >= first && index < end ? sections[index - first] : nil
    }
}

/// One row with its place in the list.
public struct LocatedRow: Hashable, Sendable {
    /// The row's index path.
    public var path: RowPath
    /// The row: id, kind, title and value.
    public var row: Row
    /// The section the row is in, with its row count.
    public var section: SectionInfo
    /// The list's version the row was read at: `path` and `section` are the row's place in that
    /// version. Set by every read of the store (`row(at:atVersion:)`, `row(_:atVersion:)`,
    /// `ListWindow.located`); `nil` for a row of an edit session's unsaved draft, which no
    /// committed version holds.
    public var version: ListVersion?

    /// Creates a located row.
    public init(path: RowPath, row: Row, section: SectionInfo, version: ListVersion? = nil) {
        self.path = path
        self.row = row
        self.section = section
        self.version = version
    }
}

/// A window of consecutive rows of a list, with the sections they belong to: what a table view
/// shows on screen.
public struct ListWindow: Hashable, Sendable {
    /// One section the window touches, with the rows of it that fall in the window.
    public struct Part: Hashable, Sendable {
        /// The section, with its full row count.
        public var section: SectionInfo
        /// The index within the section of `rows.first` (the window's start for the first part,
        /// 0 for the others).
        public var firstRow: Int
        /// The section's rows that fall in the window, in order.
        public var rows: [Row]

        /// Creates a part of a window.
        public init(section: SectionInfo, firstRow: Int, rows: [Row]) {
            self.section = section
            self.firstRow = firstRow
            self.rows = rows
        }

        /// The index paths of `rows`, in order.
        public var paths: [RowPath] {
            rows.indices.map { RowPath(section: section.index, row: firstRow + $0) }
        }
    }

    /// The list's stable id.
    public var listID: ListID
    /// The list's name.
    public var name: String
    /// The list's version.
    public var version: ListVersion
    /// Whether this is an editing view, in which empty sections show their footer.
    public var isEditing: Bool
    /// The sections the window touches, in order: the section it starts in, then each following
    /// section up to the one holding its last row (empty ones included, for their footers).
    public var parts: [Part]

    /// Creates a window.
    public init(listID: ListID, name: String, version: ListVersion, isEditing: Bool = false, parts: [Part] = []) {
        self.listID = listID
        self.name = name
        self.version = version
        self.isEditing = isEditing
        self.parts = parts
    }

    /// The number of rows in the window.
    public var rowCount: Int { parts.reduce(0) { $0 + $1.rows.count } }

    /// Every row of the window with its place, in order.
    public var located: [LocatedRow] {
        parts.flatMap { part in
            part.rows.enumerated().map { offset, row in
                LocatedRow(
                    path: RowPath(section: part.section.index, row: part.firstRow + offset), row: row, section: part.section,
                    version: version)
            }
        }
    }
}
