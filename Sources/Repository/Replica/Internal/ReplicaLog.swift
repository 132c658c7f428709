/// What a replica file records of each committed change to its mirrored list: the change as
/// intents (`Intent`), to push to the server later.
///
/// Every write path (an edit, a saved session, an undo or redo, a rename) commits through
/// `Journal.commit`, which runs the store's commit hook: on a replica file, `record`, with the
/// change's changeset (`commitHook(db:)`). The intents are read from
/// the changeset's ids and the list as the change left it: each added or moved section and row
/// with the neighbours it now has (in the order they now stand, so that applied in turn they
/// rebuild this order), each changed text as it now reads, each deleted row and section. A saved
/// session or an undo is thus its own group of intents, its net effect; an undo is recorded as the
/// intents that take the change back.
enum ReplicaLog {
    /// The commit hook of a store on the database of `db`: `record`, when the file is a
    /// replica; `nil` otherwise (a file that mirrors nothing, a server).
    static func commitHook(db: any Database) throws -> CommitHook? {
        guard try db.replicaRecord() != nil else { return nil }
        return { changeset, list, db, store in try record(changeset, of: list, db: db, store: store) }
    }

    static func record(_ changeset: Changeset, of list: ListRecord, db: any Database, store: SectionStore) throws {
        guard !changeset.isEmpty, let replica = try db.replicaRecord(), replica.listID == list.id else { return }
        guard changeset.hasIDs else { throw RepositoryError.replica(.cannotRecord(what: "a change that does not name its rows")) }
        let intents = try intents(of: changeset, in: StoredList(db: db, list: list, store: store))
        try db.appendPendingIntents(intents, from: replica.nextSequence)
    }

    /// The intents that carry `changeset` out, read from `list` as the change left it, with the
    /// id each added row or section has.
    static func intents(of changeset: Changeset, in list: StoredList) throws -> [(Intent, Int64?)] {
        var result: [(Intent, Int64?)] = []
        let insertedSections = Set(changeset.insertedSectionIDs)
        // Sections added or moved, in the order they stand now.
        var placedSections: [SectionInfo] = []
        for id in Set(changeset.insertedSectionIDs + changeset.movedSectionIDs) {
            if let section = try IntentRules.sectionIfPresent(id, in: list) { placedSections.append(section) }
        }
        placedSections.sort { $0.index < $1.index }
        for section in placedSections {
            let placement = try sectionPlacement(of: section, in: list)
            if insertedSections.contains(section.id) {
                result.append((.addSection(title: section.title, emptyText: section.emptyText, at: placement), section.id.rawValue))
            } else {
                result.append((.moveSection(section.id, to: placement), nil))
            }
        }
        for id in Set(changeset.updatedSectionIDs) where !insertedSections.contains(id) {
            guard let section = try IntentRules.sectionIfPresent(id, in: list) else { continue }
            result.append((.renameSection(id, title: section.title), nil))
            result.append((.setEmptyText(id, section.emptyText), nil))
        }
        // Rows added or moved (an added section's rows among them), in the order they stand now.
        let insertedRows = Set(changeset.insertedRowIDs)
        var rowIDs = Set(changeset.insertedRowIDs + changeset.movedRowIDs)
        var addedWithSection: Set<RowID> = []
        for section in placedSections where insertedSections.contains(section.id) && section.rowCount > 0 {
            for index in 0..<section.rowCount {
                let row = try list.row(.path(.id(section.id), .index(index)))
                rowIDs.insert(row.row.id)
                addedWithSection.insert(row.row.id)
            }
        }
        var placedRows: [LocatedRow] = []
        for id in rowIDs {
            if let row = try IntentRules.rowIfPresent(id, in: list) { placedRows.append(row) }
        }
        placedRows.sort { ($0.section.index, $0.path.row) < ($1.section.index, $1.path.row) }
        for row in placedRows {
            let placement = try rowPlacement(of: row, in: list)
            if insertedRows.contains(row.row.id) || addedWithSection.contains(row.row.id) {
                result.append((.addRow(row.row.content, at: placement), row.row.id.rawValue))
            } else {
                result.append((.moveRow(row.row.id, to: placement), nil))
            }
        }
        for id in Set(changeset.updatedRowIDs) where !insertedRows.contains(id) && !addedWithSection.contains(id) {
            guard let row = try IntentRules.rowIfPresent(id, in: list) else { continue }
            let content = row.row.content
            let value: ValueUpdate = content.kind == .field ? (content.value.map { .set($0) } ?? .remove) : .keep
            result.append((.updateRow(id, title: content.title, value: value), nil))
        }
        for id in changeset.deletedRowIDs where try IntentRules.rowIfPresent(id, in: list) == nil {
            result.append((.deleteRow(id), nil))
        }
        // A section is deleted as its person found it: forced when rows went with it (this step's
        // undo log names them, under list -1 when the section went first), unforced when it was empty, so that rows others added to it
        // meanwhile are not deleted unsaid (the server drops the delete and says so).
        let step = try list.db.currentWriterStep()
        for id in changeset.deletedSectionIDs where try IntentRules.sectionIfPresent(id, in: list) == nil {
            let hadRows =
                try list.db.scalarInt(
                    """
                    SELECT EXISTS (SELECT 1 FROM undo_log WHERE list_id IN (?, -1) AND step = ? AND target = 'row' AND action = 'delete' AND parent_id = ?)
                    """, list.list.id, step, id.rawValue) == 1
            result.append((.deleteSection(id, force: hadRows), nil))
        }
        return result
    }

    /// The placement of `row` where it stands: the rows before and after it, nearest first, read
    /// by position (two indexed queries, where a walk by index would take one per neighbour).
    static func rowPlacement(of row: LocatedRow, in list: StoredList) throws -> RowPlacement {
        let span = RowPlacement.neighbourhood
        guard let position = try list.db.scalarInt("SELECT position FROM rows WHERE id = ?", row.row.id.rawValue) else {
            return try IntentRules.rowPlacement(slot: row.path.row, in: row.section, moving: row.path.row, list: list)
        }
        let section = row.section.id.rawValue
        let before = try list.db.query(
            "SELECT id FROM rows WHERE section_id = ? AND position < ? ORDER BY position DESC LIMIT ?", section, position, span
        ) { RowID($0.int64(0)) }
        let after = try list.db.query(
            "SELECT id FROM rows WHERE section_id = ? AND position > ? ORDER BY position LIMIT ?", section, position, span
        ) { RowID($0.int64(0)) }
        return RowPlacement(section: row.section.id, before: before, after: after, index: row.path.row)
    }

    /// The placement of `section` where it stands, read by position as `rowPlacement` does.
    static func sectionPlacement(of section: SectionInfo, in list: StoredList) throws -> SectionPlacement {
        let span = RowPlacement.neighbourhood
        let position = try list.db.section(.id(section.id), in: list.list).position
        let before = try list.db.query(
            "SELECT id FROM sections WHERE list_id = ? AND position < ? ORDER BY position DESC LIMIT ?", list.list.id, position, span
        ) { SectionID($0.int64(0)) }
        let after = try list.db.query(
            "SELECT id FROM sections WHERE list_id = ? AND position > ? ORDER BY position LIMIT ?", list.list.id, position, span
        ) { SectionID($0.int64(0)) }
        return SectionPlacement(before: before, after: after, index: section.index)
    }
}
