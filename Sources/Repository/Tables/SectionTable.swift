/// A section as stored, with its index in the list.
package struct SectionRecord {
    package let id: Int64
    package let index: Int
    package let title: String
    package let emptyText: String?
    package let rowCount: Int
    package let position: Int64

    /// The columns `init(_:index:)` reads, in order.
    package static let columns = "id, title, empty_text, row_count, position"

    /// A section read from a statement's `columns`, known to be at `index`.
    package init(_ statement: any ResultRow, index: Int) {
        self.init(
            id: statement.int64(0), index: index, title: statement.string(1), emptyText: statement.optionalString(2),
            rowCount: statement.int(3), position: statement.int64(4))
    }

    package init(id: Int64, index: Int, title: String, emptyText: String?, rowCount: Int, position: Int64) {
        self.id = id
        self.index = index
        self.title = title
        self.emptyText = emptyText
        self.rowCount = rowCount
        self.position = position
    }

    /// The section as the public reads give it.
    package var info: SectionInfo {
        SectionInfo(id: SectionID(id), index: index, title: title, emptyText: emptyText, rowCount: rowCount)
    }
}

/// The `sections` table: every read and write of it goes through here. On a whole `Database`,
/// since a lookup by index walks the rank structure and emptying a section takes the engine's
/// bulk path; the plain statements below need only an `SQLExecutor`.
extension Database {
    /// How many sections the list has, from the counts of its section rank structure's top level.
    /// - Complexity: O(s / 32⁴ + 1): one node per million sections or so.
    package func sectionCount(of list: ListRecord) throws -> Int {
        Int(
            try scalarInt(
                "SELECT coalesce(sum(section_count), 0) FROM section_rank_nodes WHERE list_id = ? AND level = ?", list.id, RankTree.topLevel)
                ?? 0)
    }

    package func sectionTitles(of list: ListRecord) throws -> [String] {
        try query("SELECT title FROM sections WHERE list_id = ? ORDER BY position", list.id) { $0.string(0) }
    }

    /// Every section of the list, in order.
    package func sectionRecords(of list: ListRecord) throws -> [SectionRecord] {
        var index = -1
        return try query("SELECT \(SectionRecord.columns) FROM sections WHERE list_id = ? ORDER BY position", list.id) {
            index += 1
            return SectionRecord($0, index: index)
        }
    }

    /// Up to `limit` sections of the list in order, from the one at `first`: the section there
    /// found through the rank structure, the rest by position.
    /// - Complexity: O(log s + limit).
    package func sectionRecords(of list: ListRecord, from first: Int, limit: Int) throws -> [SectionRecord] {
        try rankedSectionRecords(inList: list.id, from: first, limit: limit)
    }

    /// Up to `limit` sections of the list with id `list` in order, from `position` on, the first
    /// of them at `firstIndex`.
    package func sectionRecords(inList list: Int64, fromPosition position: Int64, firstIndex: Int, limit: Int) throws -> [SectionRecord] {
        var index = firstIndex - 1
        let sql = "SELECT \(SectionRecord.columns) FROM sections WHERE list_id = ? AND position >= ? ORDER BY position LIMIT ?"
        return try query(sql, list, position, limit) {
            index += 1
            return SectionRecord($0, index: index)
        }
    }

    /// The index in the list of the section with this id, or `nil` when the list has no such
    /// section.
    /// - Complexity: O(log s), through the section rank structure.
    package func sectionIndex(ofSection id: Int64, in list: ListRecord) throws -> Int? {
        guard let position = try scalarInt("SELECT position FROM sections WHERE id = ? AND list_id = ?", id, list.id) else { return nil }
        return try rankedSectionIndex(ofPosition: position, inList: list.id)
    }

    /// The ids of the list's sections with this title.
    /// - Complexity: O(s): titles are not indexed.
    package func sectionIDs(titled title: String, in list: ListRecord) throws -> [Int64] {
        try query("SELECT id FROM sections WHERE list_id = ? AND title = ? ORDER BY position", list.id, title) { $0.int64(0) }
    }

    /// The section just after `section` in the list, if any.
    package func section(after section: SectionRecord, in list: ListRecord) throws -> SectionRecord? {
        let sql = "SELECT \(SectionRecord.columns) FROM sections WHERE list_id = ? AND position > ? ORDER BY position LIMIT 1"
        return try queryFirst(sql, list.id, section.position) { SectionRecord($0, index: section.index + 1) }
    }

    /// The section a reference names, or the error that says why none.
    /// - Complexity: O(log s) in the list's sections, through their rank structure (a title
    ///   also reads the sections with that title).
    package func section(_ ref: SectionRef, in list: ListRecord) throws -> SectionRecord {
        switch ref {
        case .index(let index):
            // The section first; the count only to say what is valid when there is none.
            if let found = try rankedSectionRecords(inList: list.id, from: index, limit: 1).first { return found }
            let count = try sectionCount(of: list)
            guard index < 0 || index >= count else {
                throw RepositoryError.inconsistent("list #\(list.id) counts \(count) sections, but none is at index \(index)")
            }
            throw RepositoryError.sectionIndexOutOfRange(index, valid: count > 0 ? 0...(count - 1) : nil)
        case .id(let id):
            let sql = "SELECT \(SectionRecord.columns) FROM sections WHERE id = ? AND list_id = ?"
            guard let found = try queryFirst(sql, id.rawValue, list.id, row: { SectionRecord($0, index: 0) }) else {
                throw RepositoryError.sectionNotFound(ref, list: list.name, titles: try sectionTitles(of: list))
            }
            let index = try rankedSectionIndex(ofPosition: found.position, inList: list.id)
            return SectionRecord(
                id: found.id, index: index, title: found.title, emptyText: found.emptyText, rowCount: found.rowCount,
                position: found.position)
        case .title(let title):
            let ids = try sectionIDs(titled: title, in: list)
            guard ids.count == 1 else {
                if ids.isEmpty {
                    throw RepositoryError.sectionNotFound(ref, list: list.name, titles: try sectionTitles(of: list))
                }
                throw RepositoryError.ambiguousSectionTitle(title, ids: ids.map { SectionID($0) })
            }
            return try section(.id(SectionID(ids[0])), in: list)
        }
    }

    /// Whether the section with this id belongs to the list.
    /// The list holding the section with this id, if there is one.
    package func listID(ofSection id: Int64) throws -> Int64? {
        try scalarInt("SELECT list_id FROM sections WHERE id = ?", id)
    }

    func sectionExists(id: Int64, in list: ListRecord) throws -> Bool {
        try scalarInt("SELECT count(*) FROM sections WHERE id = ? AND list_id = ?", id, list.id) == 1
    }

    /// Inserts a section at `position` of the list, with the id `id` or (`nil`) one the database
    /// picks (on a replica file, one the server allotted it, as `insertRow` does; `askingReplica:
    /// false` skips asking whether the file is one, for a bulk import, which replicas refuse from the
    /// start); returns its id.
    package func insertSection(
        title: String, emptyText: String?, position: Int64, in list: ListRecord, id: Int64? = nil, askingReplica: Bool = true
    ) throws -> Int64 {
        if let id = try id ?? (askingReplica ? allottedIDIfReplica(kind: "section") : nil) {
            try run(
                "INSERT INTO sections (id, list_id, position, title, empty_text) VALUES (?, ?, ?, ?, ?)", id, list.id, position, title, emptyText)
            return id
        }
        return try queryFirst(
            "INSERT INTO sections (list_id, position, title, empty_text) VALUES (?, ?, ?, ?) RETURNING id",
            list.id, position, title, emptyText
        ) { $0.int64(0) }!
    }

    /// Sets a section's title and empty text. Returns how many sections it changed (0 when the
    /// list has no such section).
    @discardableResult
    func updateSection(id: Int64, title: String, emptyText: String?, in list: ListRecord) throws -> Int {
        try run("UPDATE sections SET title = ?, empty_text = ? WHERE id = ? AND list_id = ?", title, emptyText, id, list.id)
    }

    /// Puts a section at `position`. Returns how many sections it changed.
    @discardableResult
    func placeSection(id: Int64, position: Int64, in list: ListRecord) throws -> Int {
        try run(placingSection, position, id, list.id)
    }

    /// Puts a section found in this transaction at `position`, without waiting for the count
    /// (`SQLExecutor.send`): a move's write, which a server sends with the commit.
    func sendPlacingSection(id: Int64, position: Int64, in list: ListRecord) throws {
        try send(placingSection, position, id, list.id)
    }

    private var placingSection: String { "UPDATE sections SET position = ? WHERE id = ? AND list_id = ?" }

    /// Deletes a section and its rows. Returns how many sections it deleted.
    ///
    /// The rows go first, in a statement of their own rather than by the foreign key's cascade:
    /// the undo log then holds them before their section on both engines (PostgreSQL runs a
    /// cascade after the section's own triggers), and undo puts the section back before them.
    /// On a file the rows are deleted in bulk (`emptySectionsInBulk`).
    @discardableResult
    package func deleteSection(id: Int64, in list: ListRecord) throws -> Int {
        if try !emptySectionsInBulk(list: list.id, where: "id = ?", [id]) {
            try run("DELETE FROM rows WHERE section_id = (SELECT id FROM sections WHERE id = ? AND list_id = ?)", id, list.id)
        }
        return try run("DELETE FROM sections WHERE id = ? AND list_id = ?", id, list.id)
    }

    /// Deletes every section of the list, and their rows (first, as `deleteSection` does).
    package func deleteSections(of list: ListRecord) throws {
        if try !emptySectionsInBulk(list: list.id, where: "1", []) {
            try run("DELETE FROM rows WHERE section_id IN (SELECT id FROM sections WHERE list_id = ?)", list.id)
        }
        try run("DELETE FROM sections WHERE list_id = ?", list.id)
    }
}

/// The `sections` table as bulk work reads and writes it.
extension SQLExecutor {
    /// The position of the list's last section; `nil` when it has none.
    package func lastSectionPosition(of list: ListRecord) throws -> Int64? {
        try scalarInt("SELECT max(position) FROM sections WHERE list_id = ?", list.id)
    }

    /// Sets the empty text of the list's last section.
    package func setEmptyTextOfLastSection(of list: ListRecord, to emptyText: String?) throws {
        try run(
            "UPDATE sections SET empty_text = ? WHERE id = (SELECT id FROM sections WHERE list_id = ? ORDER BY position DESC LIMIT 1)",
            emptyText, list.id)
    }

    /// The rows of a list (of every list for `nil`), from the sections' counts.
    package func totalRowCount(of list: ListRecord?) throws -> Int {
        if let list {
            return Int(try scalarInt("SELECT coalesce(sum(row_count), 0) FROM sections WHERE list_id = ?", list.id) ?? 0)
        }
        return Int(try scalarInt("SELECT coalesce(sum(row_count), 0) FROM sections") ?? 0)
    }
}

/// The `sections` table as undo writes it back: sections as a log kept them, whole.
extension SQLExecutor {
    /// Deletes the section with this id, whatever list it is in. Returns how many it deleted.
    package func deleteSection(id: Int64) throws -> Int {
        try run("DELETE FROM sections WHERE id = ?", id)
    }

    /// Inserts a section again with the id and every column it had. Returns how many it inserted.
    func restoreSection(id: Int64, list: Int64?, position: Int64?, title: String?, emptyText: String?) throws -> Int {
        try run(
            "INSERT INTO sections (id, list_id, position, title, empty_text) VALUES (?, ?, ?, ?, ?)", id, list, position, title, emptyText)
    }

    /// Sets every column of the section with this id back. Returns how many it changed.
    func overwriteSection(id: Int64, list: Int64?, position: Int64?, title: String?, emptyText: String?) throws -> Int {
        try run(
            "UPDATE sections SET list_id = ?, position = ?, title = ?, empty_text = ? WHERE id = ?", list, position, title, emptyText, id)
    }
}

/// The list's sections with their rows, read in one pass.
extension SQLExecutor {
    /// Steps one query over the list's sections and their rows, in order: `body` gets each
    /// section once per row it has (or once, with `nil`, for an empty section), with the
    /// section's id, title, empty text and row count.
    /// - Complexity: O(n + s), streamed: nothing is held but the current row.
    package func forEachSectionAndRow(
        of list: ListRecord, _ body: (_ section: (id: Int64, title: String, emptyText: String?, rowCount: Int), _ row: Row?) throws -> Void
    ) throws {
        try forEachRow(
            """
            SELECT s.id, s.title, s.empty_text, s.row_count, r.id, r.kind, r.title, r.value
            FROM sections AS s LEFT JOIN rows AS r ON r.section_id = s.id
            WHERE s.list_id = ? ORDER BY s.position, r.position
            """, arguments: [list.id]
        ) { statement in
            let section = (statement.int64(0), statement.string(1), statement.optionalString(2), statement.int(3))
            try body(section, statement.isNull(4) ? nil : Row(statement, from: 4))
            return true
        }
    }

    /// The list's section count, row count, and the widest `S:R` path any of its rows (or an
    /// empty section's `S:0`… the width of "0:0" at least) has.
    func sectionTotals(of list: ListRecord) throws -> (sections: Int, rows: Int, pathWidth: Int) {
        let sql = """
            SELECT count(*), coalesce(sum(c), 0), coalesce(max(CASE WHEN c = 0 THEN 3 ELSE length((i - 1) || ':' || (c - 1)) END), 3)
            FROM (SELECT row_number() OVER (ORDER BY position) AS i, row_count AS c FROM sections WHERE list_id = ?) AS counts
            """
        return try queryFirst(sql, list.id) { ($0.int(0), $0.int(1), $0.int(2)) }!
    }

    /// Every list with its section and row counts, by name.
    func listSummaries() throws -> [(id: Int64, name: String, version: ListVersion, sections: Int, rows: Int)] {
        try query(
            """
            SELECT l.id, l.name, l.version, count(s.id), coalesce(sum(s.row_count), 0)
            FROM lists AS l LEFT JOIN sections AS s ON s.list_id = l.id
            GROUP BY l.id ORDER BY l.name
            """
        ) { ($0.int64(0), $0.string(1), $0.listVersion(2), $0.int(3), $0.int(4)) }
    }

    /// The sections whose stored row count differs from the rows in them: (id, stored, actual).
    func sectionsWithWrongRowCounts() throws -> [(id: Int64, stored: Int, actual: Int)] {
        try query(
            """
            SELECT id, row_count, actual FROM (
                SELECT s.id, s.row_count, (SELECT count(*) FROM rows AS r WHERE r.section_id = s.id) AS actual
                FROM sections AS s) AS counted
            WHERE actual <> row_count
            """
        ) { ($0.int64(0), $0.int(1), $0.int(2)) }
    }
}
