/// What a whole-list read starts with: the list itself, before any of its sections or rows.
public struct ListHeader: Hashable, Sendable {
    /// The list's stable id.
    public var listID: ListID
    /// The list's name.
    public var name: String
    /// The list's version.
    public var version: ListVersion
    /// Whether this is an editing view, in which empty sections show their footer.
    public var isEditing: Bool
    /// How many sections the list has.
    public var sectionCount: Int
    /// How many rows the list has in all.
    public var rowCount: Int
    /// The width in characters of the longest index path `S:R` the list has, counting `0:0`'s
    /// width (3) for an empty section: what a listing needs to align paths before the rows come.
    public var pathWidth: Int

    /// Creates a header.
    public init(
        listID: ListID, name: String, version: ListVersion, isEditing: Bool = false, sectionCount: Int = 0, rowCount: Int = 0,
        pathWidth: Int = 3
    ) {
        self.listID = listID
        self.name = name
        self.version = version
        self.isEditing = isEditing
        self.sectionCount = sectionCount
        self.rowCount = rowCount
        self.pathWidth = pathWidth
    }
}

/// One step of a whole-list read, in the list's order: each section, then each of its rows.
public enum ListItem: Hashable, Sendable {
    /// A section begins; its rows (`rowCount` of them) follow.
    case section(SectionInfo)
    /// A row of the section delivered last, with its index path.
    case row(Row, at: RowPath)
}

extension ListHandle {
    /// Reads the whole list in order, handing each section and each row to `body` as the query
    /// steps, in one read transaction: the list is never held in memory, so a list of millions
    /// of rows is read in the memory of one. `start` gets the list's header first.
    ///
    /// The closures run while the store's connection is held: they must not call this store
    /// (write what they get somewhere else instead). An error they throw ends the read and is
    /// rethrown.
    /// - Throws: `RepositoryError.listNotFound` when there is no such list (before `start`).
    /// - Complexity: O(n + s) time for n rows and s sections; O(1) memory in the list's size.
    public func forEachItem(
        editing: Bool = false, start: (ListHeader) throws -> Void = { _ in }, _ body: (ListItem) throws -> Void
    ) throws {
        let name = name
        try store.read { db in
            let record = try db.listRecord(named: name)
            try start(db.listHeader(of: record, editing: editing))
            try db.forEachItem(of: record, body)
        }
    }

    /// The list's header alone: name, version, counts.
    /// - Parameters:
    ///   - editing: whether to read as an editing view does (empty sections then show their footer).
    ///   - expected: when given, the version the list must be at: at any other, the read
    ///     throws `RepositoryError.listMovedOn` and reads nothing.
    /// - Complexity: O(s) in the number of sections; independent of the number of rows.
    public func header(editing: Bool = false, atVersion expected: ListVersion? = nil) throws -> ListHeader {
        try readList(atVersion: expected) { db, record in try db.listHeader(of: record, editing: editing) }
    }
}

extension Database {
    func listHeader(of list: ListRecord, editing: Bool) throws -> ListHeader {
        let (sections, rows, width) = try sectionTotals(of: list)
        return ListHeader(
            listID: ListID(list.id), name: list.name, version: list.version, isEditing: editing, sectionCount: sections,
            rowCount: rows, pathWidth: max(3, width))
    }

    /// Steps one query over the list's sections and rows, in order, handing each to `body`.
    func forEachItem(of list: ListRecord, _ body: (ListItem) throws -> Void) throws {
        var currentSection: Int64?
        var sectionIndex = -1
        var rowIndex = 0
        try forEachSectionAndRow(of: list) { section, row in
            if section.id != currentSection {
                currentSection = section.id
                sectionIndex += 1
                rowIndex = 0
                try body(
                    .section(
                        SectionInfo(
                            id: SectionID(section.id), index: sectionIndex, title: section.title, emptyText: section.emptyText,
                            rowCount: section.rowCount)))
            }
            if let row {
                try body(.row(row, at: RowPath(section: sectionIndex, row: rowIndex)))
                rowIndex += 1
            }
        }
    }
}
