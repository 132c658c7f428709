
/// Reads that cost what they return: what a table view's data source calls. Each runs in one
/// read transaction, so what it returns is one consistent state of the list.
extension SectionStore {
    /// The list's sections with their row counts, but no rows.
    /// - Complexity: O(s) in the number of sections; independent of the number of rows.
    public func outline(of list: String = SectionStore.defaultList, editing: Bool = false) throws -> ListOutline {
        try read { db in
            let record = try db.listRecord(named: list)
            return ListOutline(
                listID: record.id, name: record.name, version: record.version, isEditing: editing,
                sections: try db.sectionRecords(of: record).map(\.info))
        }
    }

    /// The number of rows in a section.
    /// - Complexity: O(s) in the list's sections (sections are ordered, not ranked: an index or an id
    ///   is found through the `(list_id, position)` index, a title by reading the titles);
    ///   independent of the rows.
    public func rowCount(of section: SectionRef, in list: String = SectionStore.defaultList) throws -> Int {
        try read { db in try db.section(section, in: db.listRecord(named: list)).rowCount }
    }

    /// The row a reference names (`S:R`, `S:end`, `#ID`), with its index path and section.
    /// - Throws: `RepositoryError.rowIndexOutOfRange`, `.sectionIndexOutOfRange`,
    ///   `.sectionNotFound` or `.rowNotFound` when it names nothing.
    /// - Complexity: O(log n) in the section's rows (plus O(s) for a section named by title).
    public func row(_ ref: RowRef, in list: String = SectionStore.defaultList) throws -> LocatedRow {
        try read { db in
            let record = try db.listRecord(named: list)
            let row = try db.row(ref, in: record)
            return LocatedRow(path: row.path, row: Row(id: row.id, content: row.content), section: row.section.info)
        }
    }

    /// The row at an index path.
    /// - Complexity: O(log n) in the section's rows.
    public func row(at path: RowPath, in list: String = SectionStore.defaultList) throws -> LocatedRow {
        try row(.at(path.section, path.row), in: list)
    }

    /// The index path of the row with this id.
    /// - Throws: `RepositoryError.rowNotFound` when the list has no such row.
    /// - Complexity: O(log n) in the section's rows.
    public func path(ofRow id: Int64, in list: String = SectionStore.defaultList) throws -> RowPath {
        try read { db in try db.row(.id(id), in: db.listRecord(named: list)).path }
    }

    /// Up to `limit` consecutive rows starting at `start`, crossing into the following sections
    /// in order, with the sections they belong to. `start.row` may equal the section's row
    /// count (the end of the section): the window then begins with the next section's rows.
    /// Empty sections passed on the way are included, so an editing view can show their footers.
    /// - Throws: `RepositoryError.sectionIndexOutOfRange` or `.rowIndexOutOfRange` (valid rows
    ///   are `0…count`) when `start` is outside the list, `.negativeWindowLimit` for a negative limit.
    /// - Complexity: O(log n + limit + sections passed).
    public func window(
        from start: RowPath, limit: Int, in list: String = SectionStore.defaultList, editing: Bool = false
    ) throws -> ListWindow {
        try window(startingAt: .at(start.section, start.row), limit: limit, in: list, editing: editing)
    }

    /// `window(from:limit:in:editing:)` starting at a row reference: `S:R` (`R` may be the
    /// section's row count), `S:end` (the section's last row) or `#ID`, resolved in the same read.
    /// - Complexity: O(log n + limit + sections passed).
    public func window(
        startingAt start: RowRef, limit: Int, in list: String = SectionStore.defaultList, editing: Bool = false
    ) throws -> ListWindow {
        guard limit >= 0 else { throw RepositoryError.negativeWindowLimit(limit) }
        return try read { db in
            let record = try db.listRecord(named: list)
            var section: SectionRecord
            var firstRow: Int
            switch start {
            case .path(let sectionRef, .index(let index)):
                section = try db.section(sectionRef, in: record)
                guard index >= 0 && index <= section.rowCount else {
                    throw RepositoryError.rowIndexOutOfRange(index, section: section.index, valid: 0...section.rowCount)
                }
                firstRow = index
            case .path(_, .end), .id:
                let row = try db.row(start, in: record)
                section = row.section
                firstRow = row.path.row
            }
            var window = ListWindow(listID: record.id, name: record.name, version: record.version, isEditing: editing)
            var remaining = limit
            while true {
                var rows: [Row] = []
                if remaining > 0 && firstRow < section.rowCount {
                    rows = try db.rows(of: section, from: firstRow, limit: remaining)
                }
                window.parts.append(ListWindow.Part(section: section.info, firstRow: firstRow, rows: rows))
                remaining -= rows.count
                guard remaining > 0, let next = try db.section(after: section, in: record) else { break }
                section = next
                firstRow = 0
            }
            return window
        }
    }
}

