import SQLite

/// A list as stored.
struct ListRecord {
    let id: Int64
    let name: String
    let version: Int64
}

/// A section as stored, with its index in the list.
struct SectionRecord {
    let id: Int64
    let index: Int
    let title: String
    let emptyText: String?
    let rowCount: Int
    let position: Int64
}

/// A row as stored, with its index path.
struct RowRecord {
    let id: Int64
    /// The section the row is in.
    let section: SectionRecord
    var sectionID: Int64 { section.id }
    let path: RowPath
    let position: Int64
    let content: RowContent
}

/// Finding lists, sections and rows from the ways callers name them.
extension Connection {
    func listRecord(named name: String) throws -> ListRecord {
        if let record = try queryFirst("SELECT id, name, version FROM lists WHERE name = ?", name, row: {
            ListRecord(id: $0.int64(0), name: $0.string(1), version: $0.int64(2))
        }) {
            return record
        }
        throw RepositoryError.listNotFound(name, available: try query("SELECT name FROM lists ORDER BY name") { $0.string(0) })
    }

    /// The list with this id (it must exist).
    func listRecord(id: Int64) throws -> ListRecord {
        try queryFirst("SELECT id, name, version FROM lists WHERE id = ?", id) {
            ListRecord(id: $0.int64(0), name: $0.string(1), version: $0.int64(2))
        }!
    }

    /// Inserts a list and reads it back (its first version may be past 0: see `createList`).
    func createListRecord(named name: String) throws -> ListRecord {
        let id = try queryFirst("INSERT INTO lists (name) VALUES (?) RETURNING id", name) { $0.int64(0) }!
        return try queryFirst("SELECT id, name, version FROM lists WHERE id = ?", id) {
            ListRecord(id: $0.int64(0), name: $0.string(1), version: $0.int64(2))
        }!
    }

    func sectionCount(of list: ListRecord) throws -> Int {
        Int(try scalarInt("SELECT count(*) FROM sections WHERE list_id = ?", list.id) ?? 0)
    }

    func sectionTitles(of list: ListRecord) throws -> [String] {
        try query("SELECT title FROM sections WHERE list_id = ? ORDER BY position", list.id) { $0.string(0) }
    }

    private static let sectionColumns = "id, title, empty_text, row_count, position"

    private func sectionRecord(_ statement: Statement, index: Int) -> SectionRecord {
        SectionRecord(
            id: statement.int64(0), index: index, title: statement.string(1), emptyText: statement.optionalString(2),
            rowCount: statement.int(3), position: statement.int64(4))
    }

    /// Every section of the list, in order.
    func sectionRecords(of list: ListRecord) throws -> [SectionRecord] {
        var index = -1
        return try query("SELECT \(Self.sectionColumns) FROM sections WHERE list_id = ? ORDER BY position", list.id) {
            index += 1
            return sectionRecord($0, index: index)
        }
    }

    /// The section just after `section` in the list, if any.
    func section(after section: SectionRecord, in list: ListRecord) throws -> SectionRecord? {
        let sql = "SELECT \(Self.sectionColumns) FROM sections WHERE list_id = ? AND position > ? ORDER BY position LIMIT 1"
        return try queryFirst(sql, list.id, section.position) { sectionRecord($0, index: section.index + 1) }
    }

    /// Up to `limit` rows of `section` from the row at index `first` on, in order.
    func rows(of section: SectionRecord, from first: Int, limit: Int) throws -> [Row] {
        guard let start = try OrderedTable.rows.item(at: first, of: section.id, count: section.rowCount, in: self) else { return [] }
        return try query(
            "SELECT id, kind, title, value FROM rows WHERE section_id = ? AND position >= ? ORDER BY position LIMIT ?",
            section.id, start.position, limit
        ) { Row(id: $0.int64(0), content: RowContent(kind: RowKind(rawValue: $0.string(1)) ?? .text, title: $0.string(2), value: $0.optionalString(3))) }
    }

    func section(_ ref: SectionRef, in list: ListRecord) throws -> SectionRecord {
        switch ref {
        case .index(let index):
            let count = try sectionCount(of: list)
            guard index >= 0 && index < count else {
                throw RepositoryError.sectionIndexOutOfRange(index, valid: count > 0 ? 0...(count - 1) : nil)
            }
            let sql = "SELECT \(Self.sectionColumns) FROM sections WHERE list_id = ? ORDER BY position LIMIT 1 OFFSET ?"
            return try queryFirst(sql, list.id, index) { sectionRecord($0, index: index) }!
        case .id(let id):
            let sql = """
                SELECT \(Self.sectionColumns),
                    (SELECT count(*) FROM sections AS o WHERE o.list_id = s.list_id AND o.position < s.position)
                FROM sections AS s WHERE id = ? AND list_id = ?
                """
            guard let found = try queryFirst(sql, id, list.id, row: { sectionRecord($0, index: $0.int(5)) }) else {
                throw RepositoryError.sectionNotFound(ref, list: list.name, titles: try sectionTitles(of: list))
            }
            return found
        case .title(let title):
            let ids = try query("SELECT id FROM sections WHERE list_id = ? AND title = ? ORDER BY position", list.id, title) {
                $0.int64(0)
            }
            guard ids.count == 1 else {
                if ids.isEmpty {
                    throw RepositoryError.sectionNotFound(ref, list: list.name, titles: try sectionTitles(of: list))
                }
                throw RepositoryError.ambiguousSectionTitle(title, ids: ids)
            }
            return try section(.id(ids[0]), in: list)
        }
    }

    func row(_ ref: RowRef, in list: ListRecord) throws -> RowRecord {
        let section: SectionRecord
        let rowID: Int64
        var rowIndex: Int?
        switch ref {
        case .path(let sectionRef, let place):
            section = try self.section(sectionRef, in: list)
            let index: Int
            switch place {
            case .index(let value): index = value
            case .end: index = section.rowCount - 1
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
                id, list.id)
            guard let sectionID else { throw RepositoryError.rowNotFound(id, list: list.name) }
            section = try self.section(.id(sectionID), in: list)
            rowID = id
        }
        let (position, content) = try queryFirst("SELECT position, kind, title, value FROM rows WHERE id = ?", rowID) {
            ($0.int64(0), RowContent(kind: RowKind(rawValue: $0.string(1)) ?? .text, title: $0.string(2), value: $0.optionalString(3)))
        }!
        let index = try rowIndex ?? OrderedTable.rows.index(ofPosition: position, of: section.id, count: section.rowCount, in: self)
        return RowRecord(
            id: rowID, section: section, path: RowPath(section: section.index, row: index), position: position, content: content)
    }
}
