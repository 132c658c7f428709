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
    let sectionID: Int64
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
            let sql = "SELECT \(Self.sectionColumns) FROM sections WHERE id = ? AND list_id = ?"
            guard let found = try queryFirst(sql, id, list.id, row: { sectionRecord($0, index: 0) }) else {
                throw RepositoryError.sectionNotFound(ref, list: list.name, titles: try sectionTitles(of: list))
            }
            let index = try scalarInt("SELECT count(*) FROM sections WHERE list_id = ? AND position < ?", list.id, found.position)
            return sectionRecord(found, index: Int(index ?? 0))
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

    private func sectionRecord(_ record: SectionRecord, index: Int) -> SectionRecord {
        SectionRecord(
            id: record.id, index: index, title: record.title, emptyText: record.emptyText, rowCount: record.rowCount,
            position: record.position)
    }

    func row(_ ref: RowRef, in list: ListRecord) throws -> RowRecord {
        let columns = "id, kind, title, value, position"
        func content(_ statement: Statement) -> RowContent {
            RowContent(
                kind: RowKind(rawValue: statement.string(1)) ?? .text, title: statement.string(2),
                value: statement.optionalString(3))
        }
        switch ref {
        case .path(let sectionRef, let rowIndex):
            let section = try section(sectionRef, in: list)
            let index: Int
            switch rowIndex {
            case .index(let value): index = value
            case .end: index = section.rowCount - 1
            }
            guard index >= 0 && index < section.rowCount else {
                throw RepositoryError.rowIndexOutOfRange(
                    index, section: section.index, valid: section.rowCount > 0 ? 0...(section.rowCount - 1) : nil)
            }
            let ascending = index <= section.rowCount - 1 - index
            let sql = """
                SELECT \(columns) FROM rows WHERE section_id = ?
                ORDER BY position \(ascending ? "ASC" : "DESC") LIMIT 1 OFFSET ?
                """
            return try queryFirst(sql, section.id, ascending ? index : section.rowCount - 1 - index) {
                RowRecord(
                    id: $0.int64(0), sectionID: section.id, path: RowPath(section: section.index, row: index),
                    position: $0.int64(4), content: content($0))
            }!
        case .id(let id):
            let sql = """
                SELECT r.\(columns.replacingOccurrences(of: ", ", with: ", r.")), r.section_id
                FROM rows AS r JOIN sections AS s ON s.id = r.section_id
                WHERE r.id = ? AND s.list_id = ?
                """
            guard
                let (found, sectionID) = try queryFirst(sql, id, list.id, row: { statement in
                    (
                        RowRecord(
                            id: statement.int64(0), sectionID: statement.int64(5), path: RowPath(section: 0, row: 0),
                            position: statement.int64(4), content: content(statement)), statement.int64(5)
                    )
                })
            else {
                throw RepositoryError.rowNotFound(id, list: list.name)
            }
            let section = try section(.id(sectionID), in: list)
            let rowIndex = try OrderedTable.rows.index(ofPosition: found.position, of: sectionID, count: section.rowCount, in: self)
            return RowRecord(
                id: found.id, sectionID: sectionID, path: RowPath(section: section.index, row: rowIndex),
                position: found.position, content: found.content)
        }
    }
}
