/// A value read from a list, with the list's version it was read at (in the same read
/// transaction): what `versionedRowCount(of:atVersion:)` and `versionedPath(ofRow:atVersion:)`
/// return.
public struct Versioned<Value: Sendable>: Sendable {
    /// What was read.
    public var value: Value
    /// The list's version `value` was read at.
    public var version: ListVersion

    /// Creates a value read at a version.
    public init(_ value: Value, version: ListVersion) {
        self.value = value
        self.version = version
    }
}

extension Versioned: Equatable where Value: Equatable {}
extension Versioned: Hashable where Value: Hashable {}

/// Reads that cost what they return: what a table view's data source calls. Each runs in one
/// read transaction, so what it returns is one consistent state of the list, and each says the
/// list's version it read (`LocatedRow.version`, `ListWindow.version`, `ListOutline.version`,
/// `Versioned.version`).
///
/// Each takes an optional `atVersion`: the version the caller shows. When it is given and the
/// list is at another version, the read throws `RepositoryError.listMovedOn(list:expected:current:)`
/// and reads nothing, so a view never mixes an index path of the version it shows with rows of a
/// newer one: it applies the changes it has not yet applied (`updates(from:bufferLimit:)`,
/// `changes(since:)`) and reads again. An index a read finds out of range
/// (`.sectionIndexOutOfRange`, `.rowIndexOutOfRange`) names the version it was looked up in.
extension ListHandle {
    /// Runs `body` in one read transaction over the list, after checking that it is at
    /// `expected` (when given); out-of-range errors `body` throws name the version read.
    func readList<T: Sendable>(atVersion expected: ListVersion?, _ body: (any Database, ListRecord) throws -> T) throws -> T {
        let name = name
        return try store.read { db in
            let record = try db.listRecord(named: name)
            if let expected, expected != record.version {
                throw RepositoryError.listMovedOn(list: record.name, expected: expected, current: record.version)
            }
            do {
                return try body(db, record)
            } catch let error as RepositoryError {
                throw error.read(atVersion: record.version)
            }
        }
    }

    /// The list's sections with their row counts, but no rows.
    /// - Parameters:
    ///   - editing: whether to read as an editing view does (empty sections then show their footer).
    ///   - expected: when given, the version the list must be at (see above).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`.
    /// - Complexity: O(s) in the number of sections; independent of the number of rows.
    public func outline(
        editing: Bool = false, atVersion expected: ListVersion? = nil
    ) throws -> ListOutline {
        try readList(atVersion: expected) { db, record in
            ListOutline(
                listID: ListID(record.id), name: record.name, version: record.version, isEditing: editing,
                sections: try db.sectionRecords(of: record).map(\.info))
        }
    }

    /// Up to `limit` consecutive sections of the list with their row counts, from the one at
    /// index `first`, and how many sections the list has: the outline a view needs for what it
    /// shows, whatever the number of sections.
    /// - Parameters:
    ///   - first: the first section's index, from 0 to the number of sections (which gives none).
    ///   - limit: how many sections at most (not negative).
    ///   - editing: whether to read as an editing view does (empty sections then show their footer).
    ///   - expected: when given, the version the list must be at (see above).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`;
    ///   `.sectionIndexOutOfRange` when `first` is outside `0…count`; `.negativeWindowLimit` for a
    ///   negative limit.
    /// - Complexity: O(log s + limit), through the sections' rank structure.
    public func outline(
        from first: Int, limit: Int, editing: Bool = false,
        atVersion expected: ListVersion? = nil
    ) throws -> OutlineWindow {
        guard limit >= 0 else { throw RepositoryError.negativeWindowLimit(limit) }
        return try readList(atVersion: expected) { db, record in
            let count = try db.sectionCount(of: record)
            guard first >= 0 && first <= count else { throw RepositoryError.sectionIndexOutOfRange(first, valid: 0...count) }
            return OutlineWindow(
                listID: ListID(record.id), name: record.name, version: record.version, isEditing: editing, sectionCount: count,
                first: first, sections: try db.sectionRecords(of: record, from: first, limit: limit).map(\.info))
        }
    }

    /// The number of rows in a section. `versionedRowCount(of:atVersion:)` also says the
    /// version it read.
    /// - Parameters:
    ///   - section: the section: its index, `#ID` or exact title.
    ///   - expected: when given, the version the list must be at (see above).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`.
    /// - Complexity: O(s) in the list's sections (sections are ordered, not ranked: an index or an id
    ///   is found through the `(list_id, position)` index, a title by reading the titles);
    ///   independent of the rows.
    public func rowCount(
        of section: SectionRef, atVersion expected: ListVersion? = nil
    ) throws -> Int {
        try versionedRowCount(of: section, atVersion: expected).value
    }

    /// The number of rows in a section, with the list's version it was read at.
    /// - Parameters:
    ///   - section: the section: its index, `#ID` or exact title.
    ///   - expected: when given, the version the list must be at (see above).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`.
    /// - Complexity: as `rowCount(of:atVersion:)`.
    public func versionedRowCount(
        of section: SectionRef, atVersion expected: ListVersion? = nil
    ) throws -> Versioned<Int> {
        try readList(atVersion: expected) { db, record in
            Versioned(try db.section(section, in: record).rowCount, version: record.version)
        }
    }

    /// The ids of a section's rows, in order, in one read: what a diffable view appends for a
    /// section a changeset inserted (a changeset does not list its rows).
    /// - Parameters:
    ///   - section: the section: its index, `#ID` or exact title.
    ///   - expected: when given, the version the list must be at (see above).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`;
    ///   `.sectionIndexOutOfRange`, `.sectionNotFound` or `.ambiguousSectionTitle` when it names
    ///   no one section.
    /// - Complexity: O(n) in the section's rows, plus finding the section as `rowCount(of:)` does.
    public func rowIDs(of section: SectionRef, atVersion expected: ListVersion? = nil) throws -> [RowID] {
        try readList(atVersion: expected) { db, record in
            try db.allRows(ofSection: try db.section(section, in: record).id).map(\.id)
        }
    }

    /// The section a reference names (an index, `#ID` or a title), with its index and row count,
    /// and the list's version it was read at.
    /// - Parameters:
    ///   - section: the section: its index, `#ID` or exact title.
    ///   - expected: when given, the version the list must be at (see above).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`;
    ///   `.sectionIndexOutOfRange`, `.sectionNotFound` or `.ambiguousSectionTitle` when it names
    ///   no one section.
    /// - Complexity: O(log s) in the list's sections, through their rank structure (plus the
    ///   sections with that title, for a title).
    public func versionedSection(
        _ section: SectionRef, atVersion expected: ListVersion? = nil
    ) throws -> Versioned<SectionInfo> {
        try readList(atVersion: expected) { db, record in
            Versioned(try db.section(section, in: record).info, version: record.version)
        }
    }

    /// The row a reference names (`S:R`, `S:end`, `#ID`), with its index path, its section and
    /// the list's version it was read at (`LocatedRow.version`).
    /// - Parameters:
    ///   - ref: the row: `S:R`, `S:end` or `#ID`.
    ///   - expected: when given, the version the list must be at (see above).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`;
    ///   `.rowIndexOutOfRange`, `.sectionIndexOutOfRange` (naming the version read),
    ///   `.sectionNotFound` or `.rowNotFound` when it names nothing.
    /// - Complexity: O(log n) in the section's rows (plus O(s) for a section named by title).
    public func row(
        _ ref: RowRef, atVersion expected: ListVersion? = nil
    ) throws -> LocatedRow {
        try readList(atVersion: expected) { db, record in
            let row = try db.row(ref, in: record)
            return LocatedRow(
                path: row.path, row: Row(id: RowID(row.id), content: row.content), section: row.section.info, version: record.version)
        }
    }

    /// The row at an index path, read as `row(_:atVersion:)` reads it.
    /// - Complexity: O(log n) in the section's rows.
    public func row(
        at path: RowPath, atVersion expected: ListVersion? = nil
    ) throws -> LocatedRow {
        try row(.at(path.section, path.row), atVersion: expected)
    }

    /// The index path of the row with this id. `versionedPath(ofRow:atVersion:)` also says
    /// the version it read.
    /// - Parameters:
    ///   - id: the row's id.
    ///   - expected: when given, the version the list must be at (see above).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`;
    ///   `.rowNotFound` when the list has no such row.
    /// - Complexity: O(log n) in the section's rows.
    public func path(
        ofRow id: RowID, atVersion expected: ListVersion? = nil
    ) throws -> RowPath {
        try versionedPath(ofRow: id, atVersion: expected).value
    }

    /// The index path of the row with this id, with the list's version it was read at.
    /// - Parameters:
    ///   - id: the row's id.
    ///   - expected: when given, the version the list must be at (see above).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`;
    ///   `.rowNotFound` when the list has no such row.
    /// - Complexity: O(log n) in the section's rows.
    public func versionedPath(
        ofRow id: RowID, atVersion expected: ListVersion? = nil
    ) throws -> Versioned<RowPath> {
        try readList(atVersion: expected) { db, record in
            Versioned(try db.row(.id(id), in: record).path, version: record.version)
        }
    }

    /// Up to `limit` consecutive rows starting at `start`, crossing into the following sections
    /// in order, with the sections they belong to. `start.row` may equal the section's row
    /// count (the end of the section): the window then begins with the next section's rows.
    /// Empty sections passed on the way are included, so an editing view can show their footers.
    /// - Parameters:
    ///   - start: where the window begins.
    ///   - limit: how many rows at most (not negative).
    ///   - editing: whether to read as an editing view does (empty sections then show their footer).
    ///   - expected: when given, the version the list must be at (see the reads above).
    /// - Throws: `RepositoryError.listMovedOn` when the list is not at `expected`;
    ///   `.sectionIndexOutOfRange` or `.rowIndexOutOfRange` (valid rows are `0…count`; the error
    ///   names the version read) when `start` is outside the list; `.negativeWindowLimit` for a
    ///   negative limit.
    /// - Complexity: O(log n + limit + sections passed).
    public func window(
        from start: RowPath, limit: Int, editing: Bool = false,
        atVersion expected: ListVersion? = nil
    ) throws -> ListWindow {
        try window(startingAt: .at(start.section, start.row), limit: limit, editing: editing, atVersion: expected)
    }

    /// `window(from:limit:editing:atVersion:)` starting at a row reference: `S:R` (`R` may be the
    /// section's row count), `S:end` (the section's last row) or `#ID`, resolved in the same read.
    /// - Complexity: O(log n + limit + sections passed).
    public func window(
        startingAt start: RowRef, limit: Int, editing: Bool = false,
        atVersion expected: ListVersion? = nil
    ) throws -> ListWindow {
        guard limit >= 0 else { throw RepositoryError.negativeWindowLimit(limit) }
        return try readList(atVersion: expected) { db, record in
            var section: SectionRecord
            var firstRow: Int
            // A one-row window at a section's index: the section and its row in one lookup (one
            // round trip on a server).
            var prefetched: [Row]? = nil
            switch start {
            case .path(let sectionRef, .index(let index)):
                if case .index(let sectionIndex) = sectionRef, limit == 1, index >= 0,
                    let both = try db.rankedSectionAndRow(at: sectionIndex, row: index, inList: record.id)
                {
                    section = both.section
                    prefetched = both.row.map { [Row(id: RowID($0.id), content: $0.content)] }
                } else {
                    section = try db.section(sectionRef, in: record)
                }
                guard index >= 0 && index <= section.rowCount else {
                    throw RepositoryError.rowIndexOutOfRange(index, section: section.index, valid: 0...section.rowCount)
                }
                firstRow = index
            case .path(_, .end), .id:
                let row = try db.row(start, in: record)
                section = row.section
                firstRow = row.path.row
            }
            var window = ListWindow(listID: ListID(record.id), name: record.name, version: record.version, isEditing: editing)
            var remaining = limit
            while true {
                var rows: [Row] = []
                if remaining > 0 && firstRow < section.rowCount {
                    rows = try prefetched ?? db.rows(of: section, from: firstRow, limit: remaining)
                }
                prefetched = nil
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
