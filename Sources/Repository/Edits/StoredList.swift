/// A list in the database as `EditRules` sees it: lookups through `Records`, writes in the
/// caller's transaction, positions from `OrderedTable` (O(1) rows written amortized).
struct StoredList: EditableList {
    let db: any Database
    let list: ListRecord
    /// Where position writes are counted.
    let store: SectionStore
    /// The id the next inserted row or section takes (a replica's pull, a replica's intent
    /// applied on the server); `nil` for one the database picks.
    var newID: Int64? = nil

    var name: String { list.name }

    func sectionCount() throws -> Int { try db.sectionCount(of: list) }

    func section(_ ref: SectionRef) throws -> SectionInfo { try db.section(ref, in: list).info }

    func row(_ ref: RowRef) throws -> LocatedRow {
        let row = try db.row(ref, in: list)
        return LocatedRow(path: row.path, row: Row(id: RowID(row.id), content: row.content), section: row.section.info)
    }

    mutating func insertSection(title: String, emptyText: String?, at index: Int, count: Int) throws -> Int64 {
        let place = try OrderedTable.sections.positionForSlot(index, of: list.id, count: count, movingID: nil, in: db)
        store.countPositionWrites(place.rewritten + 1)
        return try db.insertSection(title: title, emptyText: emptyText, position: place.position, in: list, id: takeNewID())
    }

    /// The id an insert gives its row or section: `newID` once, else `nil` (the database's
    /// choice: on a replica file, an id the server allotted it).
    private mutating func takeNewID() -> Int64? {
        defer { newID = nil }
        return newID
    }

    mutating func updateSection(_ section: SectionInfo, title: String, emptyText: String?) throws {
        try db.updateSection(id: section.id.rawValue, title: title, emptyText: emptyText, in: list)
    }

    mutating func moveSection(_ section: SectionInfo, to index: Int, others: Int) throws {
        let place = try OrderedTable.sections.positionForSlot(index, of: list.id, count: others, movingID: section.id.rawValue, in: db)
        store.countPositionWrites(place.rewritten + 1)
        try db.sendPlacingSection(id: section.id.rawValue, position: place.position, in: list)
    }

    mutating func deleteSection(_ section: SectionInfo) throws {
        try db.deleteSection(id: section.id.rawValue, in: list)
    }

    mutating func insertRow(_ content: RowContent, at index: Int, in section: SectionInfo) throws -> Int64 {
        let place = try OrderedTable.rows.positionForSlot(index, of: section.id.rawValue, count: section.rowCount, movingID: nil, in: db)
        store.countPositionWrites(place.rewritten + 1)
        return try db.insertRow(content, section: section.id.rawValue, position: place.position, id: takeNewID())
    }

    mutating func updateRow(_ row: LocatedRow, to content: RowContent) throws {
        try db.updateRow(id: row.row.id.rawValue, to: content, in: list)
    }

    mutating func moveRow(_ row: LocatedRow, to index: Int, in section: SectionInfo) throws {
        let sameSection = section.id == row.section.id
        let others = section.rowCount - (sameSection ? 1 : 0)
        let place = try OrderedTable.rows.positionForSlot(
            index, of: section.id.rawValue, count: others, movingID: row.row.id.rawValue, movingIndex: sameSection ? row.path.row : nil, in: db)
        store.countPositionWrites(place.rewritten + 1)
        try db.sendPlacingRow(id: row.row.id.rawValue, section: section.id.rawValue, position: place.position, in: list)
    }

    mutating func deleteRow(_ row: LocatedRow) throws {
        try db.deleteRow(id: row.row.id.rawValue, in: list)
    }
}
