/// A row as stored, with its index path.
package struct RowRecord {
    package let id: Int64
    /// The section the row is in.
    package let section: SectionRecord
    package var sectionID: Int64 { section.id }
    package let path: RowPath
    package let position: Int64
    package let content: RowContent
}

extension RowContent {
    /// The columns `init(_:from:)` reads, in order.
    package static let columns = "kind, title, value"

    /// Content read from a statement's `columns`, starting at `column`.
    package init(_ statement: any ResultRow, from column: Int32) {
        self.init(
            kind: RowKind(rawValue: statement.string(column)) ?? .text, title: statement.string(column + 1),
            value: statement.optionalString(column + 2))
    }
}

extension Row {
    /// The columns `init(_:from:)` reads, in order.
    package static let columns = "id, kind, title, value"

    /// A row read from a statement's `columns`, starting at `column`.
    package init(_ statement: any ResultRow, from column: Int32) {
        self.init(id: RowID(statement.int64(column)), content: RowContent(statement, from: column + 1))
    }
}

/// The `rows` table: every read and write of it goes through here (the bulk appender's prepared
/// statements use `RowRecord.insertSQL(rows:)`). On a whole `Database`, since a lookup by index
/// walks the rank structure and an id may come from a replica's allotment; the plain statements
/// below need only an `SQLExecutor`.
extension Database {
    /// The row a reference names, with its path and section, or the error that says why none.
    /// - Complexity: O(log n) in the section's rows (the rank structure), plus O(s) to find the
    ///   section.
    package func row(_ ref: RowRef, in list: ListRecord) throws -> RowRecord {
        let section: SectionRecord
        let rowID: Int64
        var rowIndex: Int?
        switch ref {
        case .path(let sectionRef, let place):
            var requested: Int? = nil
            if case .index(let value) = place { requested = value }
            // A section by index is found with its row, in one round trip on a server; any other
            // way, or none there (to be said as usual), on its own first.
            var found: (id: Int64, position: Int64, content: RowContent)? = nil
            if case .index(let sectionIndex) = sectionRef, let both = try rankedSectionAndRow(at: sectionIndex, row: requested, inList: list.id) {
                section = both.section
                found = both.row
            } else {
                section = try self.section(sectionRef, in: list)
            }
            let index = requested ?? (section.rowCount - 1)
            if index >= 0, index < section.rowCount,
                let (id, position, content) = try found ?? rankedRowWithContent(at: index, inSection: section.id)
            {
                return RowRecord(
                    id: id, section: section, path: RowPath(section: section.index, row: index), position: position, content: content)
            }
            guard let item = try OrderedTable.rows.item(at: index, of: section.id, count: section.rowCount, in: self)
            else {
                throw RepositoryError.rowIndexOutOfRange(
                    index, section: section.index, valid: section.rowCount > 0 ? 0...(section.rowCount - 1) : nil)
            }
            rowID = item.id
            rowIndex = index
        case .id(let id):
            let sectionID = try scalarInt(
                "SELECT r.section_id FROM rows AS r JOIN sections AS s ON s.id = r.section_id WHERE r.id = ? AND s.list_id = ?",
                id.rawValue, list.id)
            guard let sectionID else { throw RepositoryError.rowNotFound(id, list: list.name) }
            section = try self.section(.id(SectionID(sectionID)), in: list)
            rowID = id.rawValue
        }
        let (position, content) = try queryFirst("SELECT position, \(RowContent.columns) FROM rows WHERE id = ?", rowID) {
            ($0.int64(0), RowContent($0, from: 1))
        }!
        let index = try rowIndex ?? OrderedTable.rows.index(ofPosition: position, of: section.id, in: self)
        return RowRecord(
            id: rowID, section: section, path: RowPath(section: section.index, row: index), position: position, content: content)
    }

    /// Up to `limit` rows of the section with id `section` from `position` on, in order.
    package func rows(ofSection section: Int64, fromPosition position: Int64, limit: Int) throws -> [Row] {
        try query(
            "SELECT \(Row.columns) FROM rows WHERE section_id = ? AND position >= ? ORDER BY position LIMIT ?",
            section, position, limit
        ) { Row($0, from: 0) }
    }

    /// Up to `limit` rows of `section` from the row at index `first` on, in order.
    /// - Complexity: O(log n + limit).
    package func rows(of section: SectionRecord, from first: Int, limit: Int) throws -> [Row] {
        guard first >= 0, first < section.rowCount, limit > 0 else { return [] }
        let found = try rankedRows(ofSection: section.id, from: first, limit: limit)
        guard found.isEmpty else { return found }
        // None found under the count: the file disagrees with itself, as this says.
        guard let start = try OrderedTable.rows.item(at: first, of: section.id, count: section.rowCount, in: self) else { return [] }
        return try rows(ofSection: section.id, fromPosition: start.position, limit: limit)
    }

    /// The section and position of the row with this id, if the list has it.
    func placeOfRow(id: Int64, in list: ListRecord) throws -> (section: Int64, position: Int64)? {
        try queryFirst(
            "SELECT r.section_id, r.position FROM rows AS r JOIN sections AS s ON s.id = r.section_id WHERE r.id = ? AND s.list_id = ?",
            id, list.id
        ) { ($0.int64(0), $0.int64(1)) }
    }

    /// The row at 0-based `offset` among the section's rows in `low..<high`, with its content.
    package func row(ofSection section: Int64, from low: Int64, to high: Int64, offset: Int) throws -> (
        id: Int64, position: Int64, content: RowContent
    )? {
        try queryFirst(
            """
            SELECT id, position, \(RowContent.columns) FROM rows
            WHERE section_id = ? AND position >= ? AND position < ? ORDER BY position LIMIT 1 OFFSET ?
            """, section, low, high, offset
        ) { ($0.int64(0), $0.int64(1), RowContent($0, from: 2)) }
    }

    /// Every row of the section with id `section`, in order.
    func allRows(ofSection section: Int64) throws -> [Row] {
        try query("SELECT \(Row.columns) FROM rows WHERE section_id = ? ORDER BY position", section) { Row($0, from: 0) }
    }

    /// A row's content, if the row exists.
    /// The list holding the row with this id, if there is one.
    package func listID(ofRow id: Int64) throws -> Int64? {
        try scalarInt("SELECT s.list_id FROM rows AS r JOIN sections AS s ON s.id = r.section_id WHERE r.id = ?", id)
    }

    func rowContent(id: Int64) throws -> RowContent? {
        try queryFirst("SELECT \(RowContent.columns) FROM rows WHERE id = ?", id) { RowContent($0, from: 0) }
    }

    /// Inserts a row at `position` of the section, with the id `id` or (`nil`) one the database
    /// picks — on a replica file, the next id the server allotted it (`takeAllottedID`), so
    /// that rows made offline never collide with anyone's; returns its id.
    func insertRow(_ content: RowContent, section: Int64, position: Int64, id: Int64? = nil) throws -> Int64 {
        if let id = try id ?? allottedIDIfReplica(kind: "row") {
            try run(
                "INSERT INTO rows (id, section_id, position, kind, title, value) VALUES (?, ?, ?, ?, ?, ?)",
                id, section, position, content.kind.rawValue, content.title, content.value)
            return id
        }
        return try queryFirst(
            "INSERT INTO rows (section_id, position, kind, title, value) VALUES (?, ?, ?, ?, ?) RETURNING id",
            section, position, content.kind.rawValue, content.title, content.value
        ) { $0.int64(0) }!
    }

    /// Sets a row's title and value. Returns how many rows it changed (0 when the list has no
    /// such row).
    @discardableResult
    package func updateRow(id: Int64, to content: RowContent, in list: ListRecord) throws -> Int {
        try run(
            "UPDATE rows SET title = ?, value = ? WHERE id = ? AND (SELECT list_id FROM sections WHERE id = rows.section_id) = ?",
            content.title, content.value, id, list.id)
    }

    /// Puts a row at `position` of the section with id `section`. Returns how many rows it changed.
    @discardableResult
    func placeRow(id: Int64, section: Int64, position: Int64, in list: ListRecord) throws -> Int {
        try run(placingRow, section, position, id, list.id)
    }

    /// Puts a row found in this transaction at `position` of the section with id `section`,
    /// without waiting for the count (`SQLExecutor.send`): a move's write, which a server sends
    /// with the commit.
    func sendPlacingRow(id: Int64, section: Int64, position: Int64, in list: ListRecord) throws {
        try send(placingRow, section, position, id, list.id)
    }

    private var placingRow: String {
        "UPDATE rows SET section_id = ?, position = ? WHERE id = ? AND (SELECT list_id FROM sections WHERE id = rows.section_id) = ?"
    }

    /// Deletes a row. Returns how many rows it deleted.
    @discardableResult
    package func deleteRow(id: Int64, in list: ListRecord) throws -> Int {
        try run("DELETE FROM rows WHERE id = ? AND (SELECT list_id FROM sections WHERE id = rows.section_id) = ?", id, list.id)
    }
}

/// The `rows` table as undo writes it back: rows as a log kept them, whole.
extension SQLExecutor {
    /// Deletes the row with this id, whatever list it is in. Returns how many rows it deleted.
    package func deleteRow(id: Int64) throws -> Int {
        try run("DELETE FROM rows WHERE id = ?", id)
    }

    /// Inserts a row again with the id and every column it had. Returns how many rows it inserted.
    func restoreRow(id: Int64, section: Int64?, position: Int64?, kind: String?, title: String?, value: String?) throws -> Int {
        try run(
            "INSERT INTO rows (id, section_id, position, kind, title, value) VALUES (?, ?, ?, ?, ?, ?)",
            id, section, position, kind, title, value)
    }

    /// Sets every column of the row with this id back. Returns how many rows it changed.
    func overwriteRow(id: Int64, section: Int64?, position: Int64?, kind: String?, title: String?, value: String?) throws -> Int {
        try run(
            "UPDATE rows SET section_id = ?, position = ?, kind = ?, title = ?, value = ? WHERE id = ?",
            section, position, kind, title, value, id)
    }
}

extension RowRecord {
    /// The insert the bulk appender prepares once, for `rows` rows at a time: section, position,
    /// kind, title, value for each.
    static func insertSQL(rows: Int, withIDs: Bool = false) -> String {
        withIDs
            ? "INSERT INTO rows (id, section_id, position, kind, title, value) VALUES "
                + Array(repeating: "(?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
            : "INSERT INTO rows (section_id, position, kind, title, value) VALUES "
                + Array(repeating: "(?, ?, ?, ?, ?)", count: rows).joined(separator: ", ")
    }
}
