/// The draft of an edit session: the stored list as it was when the session began (which each
/// call of the session checks it still is), with the session's edits laid over it.
///
/// The sections are a piece table too (`PieceTable<SectionID>`): runs of the stored sections,
/// by their index in the list, and the sections the session created or moved, held by id. A
/// stored section is read when something asks for it, a few dozen at a time through the section
/// rank structure, and kept (`StoredSections`): they are the list at the session's base, which
/// does not change while the session lasts. A list of at most 2,000 sections is
/// read whole as the session begins, so that its outline stays readable after someone else
/// changed the list. A section the session changed (its title, its rows) keeps its new state in
/// `changed`, by id.
///
/// Each section's rows are a piece table (`PieceTable<Row>`): runs of the stored section's rows,
/// by their index in the stored section, and the rows the session inserted or moved, held in
/// memory. Updated stored rows left in place keep their new content in `overrides`. Finding a
/// row at an index finds its piece through the table's blocks, then, for a stored run, asks the
/// stored list for the row at an index (O(log n)); finding a row by id finds a held row through
/// the table's map of held rows, and a stored one by asking the stored list for its index, then
/// finding the run that holds it through the blocks. A section is found the same way, by index
/// or by id. So an edit costs O(log n) in the stored list plus O(e / 32 + 64) steps over the
/// piece tables after e edits (see `PieceTable`), and memory grows with the edits and the
/// sections read, never with the rows: beginning a session on a million sections reads one
/// count.
///
/// Every check and error matches what `ListHandle.apply(_:)` does to the database.
struct SessionDraft {
    /// One section of the draft.
    struct DraftSection {
        var id: SectionID
        var title: String
        var emptyText: String?
        /// The stored section whose rows this one starts from, with its stored row count;
        /// `nil` for a section created in the session.
        var base: (id: Int64, rowCount: Int)?
        var pieces: PieceTable<Row>
        var rowCount: Int { pieces.rowCount }
    }

    /// Thrown by a lookup that has to read the database while the draft has no connection
    /// (between calls): the session then answers in a read transaction of its own.
    struct NeedsRead: Error {}

    /// How a draft reads the stored sections.
    struct SectionReads: Sendable {
        /// Up to how many sections a list is read whole as a session begins.
        var wholeOutlineLimit = 2_000
        /// How many stored sections one read brings, around the one asked for.
        var sectionsPerRead = 64
    }

    /// How drafts begun in this task read the stored sections: the tests make them read fewer.
    @TaskLocal static var sectionReads = SectionReads()

    /// The connection the session's current call reads on, inside that call's read transaction;
    /// set by each call (`attach(_:)`, `EditSession.reading`) and taken away after it.
    private var connection: (any Database)?
    /// The stored list as it was when the session began.
    let list: ListRecord
    /// The order of the sections: runs of stored sections by stored index, and held sections.
    private var order: PieceTable<SectionID>
    /// The sections the session created, moved or changed, by id; only sections in the draft.
    private var changed: [SectionID: DraftSection] = [:]
    /// The stored sections read so far.
    private let stored: StoredSections
    /// How many stored sections one read brings.
    private let perRead: Int
    /// New content of stored rows updated in the session that are still in a stored run.
    var overrides: [RowID: RowContent] = [:]
    /// Rows in held pieces → the id of the draft section holding them.
    var heldRows: [RowID: SectionID] = [:]
    /// The id the next section or row created in the session gets (negative, decreasing).
    fileprivate var nextID: Int64 = -1
    /// How the last edit is written at save, set by the writes below.
    fileprivate var pendingStep: ReplayStep = .nothing

    /// A draft of `list` with no edits, read on `db` (in a read transaction): the number of its
    /// sections, and the sections themselves when there are at most `wholeOutlineLimit`.
    init(db: any Database, list: ListRecord) throws {
        self.connection = db
        self.list = list
        let count = try db.sectionCount(of: list)
        stored = StoredSections(count: count)
        perRead = max(1, Self.sectionReads.sectionsPerRead)
        order = PieceTable(storedCount: count)
        if count <= Self.sectionReads.wholeOutlineLimit {
            let records = try db.sectionRecords(of: list)
            guard records.count == count else {
                throw RepositoryError.inconsistent("list #\(list.id) has \(records.count) sections but counts \(count)")
            }
            stored.keepAll(records)
        }
    }

    /// A draft with no edits of the same stored list as `draft`, keeping the sections it read,
    /// reading on `draft`'s connection.
    init(withoutEditsOf draft: SessionDraft) {
        connection = draft.connection
        list = draft.list
        stored = draft.stored
        perRead = draft.perRead
        order = PieceTable(storedCount: draft.stored.count)
    }

    /// The connection to read on, in the current call's read transaction.
    var db: any Database {
        get throws {
            guard let connection else { throw NeedsRead() }
            return connection
        }
    }

    /// Reads through `db`, in a read transaction of the caller's at the draft's base, until
    /// `detach()`.
    mutating func attach(_ db: any Database) { connection = db }

    /// Reads nothing more until the next `attach(_:)`.
    mutating func detach() { connection = nil }

    var name: String { list.name }

    // MARK: - Finding sections

    /// The number of sections in the draft.
    var numberOfSections: Int { order.rowCount }

    /// The stored section at an index of the stored list, read with its neighbours when it is
    /// not read yet.
    private func storedSection(at storedIndex: Int) throws -> SectionRecord {
        if let record = stored.record(at: storedIndex) { return record }
        let first = max(0, storedIndex - perRead / 4)
        for record in try db.sectionRecords(of: list, from: first, limit: perRead) { stored.keep(record) }
        guard let record = stored.record(at: storedIndex) else {
            throw RepositoryError.inconsistent("list #\(list.id) counts \(stored.count) sections, but none is at index \(storedIndex)")
        }
        return record
    }

    /// The index in the stored list of the stored section with this id, if the list had it.
    private func storedIndex(ofSection id: Int64) throws -> Int? {
        if let index = stored.index(ofID: id) { return index }
        guard id > 0, !stored.isWhole else { return nil }
        guard let index = try db.sectionIndex(ofSection: id, in: list) else { return nil }
        stored.keep(index, forID: id)
        return index
    }

    /// A section at an index: one the session changed, or a stored one it left as stored.
    private enum Located {
        case changed(DraftSection)
        case stored(SectionRecord)
    }

    private func locate(_ index: Int) throws -> Located {
        let place = order.place(of: index)
        switch order[place] {
        case .held(let ids):
            guard let section = changed[ids[place.offset]] else { preconditionFailure("a held section is a changed one") }
            return .changed(section)
        case .stored(let range):
            let record = try storedSection(at: range.lowerBound + place.offset)
            return changed[SectionID(record.id)].map(Located.changed) ?? .stored(record)
        }
    }

    /// The section at a valid index, with its pieces: as the session changed it, or as stored.
    func section(at index: Int) throws -> DraftSection {
        switch try locate(index) {
        case .changed(let section):
            return section
        case .stored(let record):
            return DraftSection(
                id: SectionID(record.id), title: record.title, emptyText: record.emptyText, base: (record.id, record.rowCount),
                pieces: PieceTable(storedCount: record.rowCount))
        }
    }

    /// The section at a valid index, as the public reads give it: a stored section the session
    /// left as stored straight from its record, without the pieces `section(at:)` makes.
    func info(ofSection index: Int) throws -> SectionInfo {
        switch try locate(index) {
        case .changed(let section):
            return SectionInfo(id: section.id, index: index, title: section.title, emptyText: section.emptyText, rowCount: section.rowCount)
        case .stored(let record):
            return SectionInfo(id: SectionID(record.id), index: index, title: record.title, emptyText: record.emptyText, rowCount: record.rowCount)
        }
    }

    /// The index of the section with this id, if the draft has it.
    func sectionIndex(ofID id: SectionID) throws -> Int? {
        if let (index, _) = order.heldRow(id) { return index }
        guard let storedIndex = try storedIndex(ofSection: id.rawValue) else { return nil }
        // `nil`: deleted in the session (a moved section is held).
        return order.index(ofStored: storedIndex)
    }

    /// Every section's title, for an error that lists them.
    private func titles() throws -> [String] {
        try (0..<numberOfSections).map { try info(ofSection: $0).title }
    }

    func sectionIndex(_ ref: SectionRef) throws -> Int {
        switch ref {
        case .index(let index):
            guard index >= 0 && index < numberOfSections else {
                throw RepositoryError.sectionIndexOutOfRange(index, valid: numberOfSections == 0 ? nil : 0...(numberOfSections - 1))
            }
            return index
        case .id(let id):
            guard let index = try sectionIndex(ofID: id) else {
                throw RepositoryError.sectionNotFound(ref, list: name, titles: try titles())
            }
            return index
        case .title(let title):
            let matches = try sectionIndexes(titled: title)
            guard matches.count == 1 else {
                if matches.isEmpty { throw RepositoryError.sectionNotFound(ref, list: name, titles: try titles()) }
                throw RepositoryError.ambiguousSectionTitle(title, ids: try matches.map { try info(ofSection: $0).id })
            }
            return matches[0]
        }
    }

    /// The indexes of the draft's sections with this title, in order: stored sections with it
    /// that the session kept and did not rename, and those the session created, moved or renamed
    /// that have it now.
    private func sectionIndexes(titled title: String) throws -> [Int] {
        if stored.isWhole { return try (0..<numberOfSections).filter { try info(ofSection: $0).title == title } }
        var matches: [Int] = []
        for id in try db.sectionIDs(titled: title, in: list) where changed[SectionID(id)] == nil {
            if let index = try sectionIndex(ofID: SectionID(id)) { matches.append(index) }
        }
        for (id, section) in changed where section.title == title {
            if let index = try sectionIndex(ofID: id) { matches.append(index) }
        }
        return matches.sorted()
    }

    // MARK: - Finding rows

    func rowPath(_ ref: RowRef) throws -> RowPath {
        switch ref {
        case .path(let sectionRef, let rowIndex):
            let section = try sectionIndex(sectionRef)
            let count = try self.info(ofSection: section).rowCount
            let index: Int
            switch rowIndex {
            case .index(let value): index = value
            case .end: index = count - 1
            }
            guard index >= 0 && index < count else {
                throw RepositoryError.rowIndexOutOfRange(index, section: section, valid: count > 0 ? 0...(count - 1) : nil)
            }
            return RowPath(section: section, row: index)
        case .id(let id):
            guard let path = try path(ofRow: id) else { throw RepositoryError.rowNotFound(id, list: name) }
            return path
        }
    }

    /// The draft path of the row with this id, if the draft has it.
    func path(ofRow id: RowID) throws -> RowPath? {
        if let sectionID = heldRows[id] {
            guard let section = try sectionIndex(ofID: sectionID), let (index, _) = changed[sectionID]?.pieces.heldRow(id) else {
                preconditionFailure("a held row is in its section's pieces")
            }
            return RowPath(section: section, row: index)
        }
        guard id > 0 else { return nil }
        // A stored row, where it was when the session began.
        guard let (storedSection, position) = try db.placeOfRow(id: id.rawValue, in: list),
            let section = try sectionIndex(ofID: SectionID(storedSection))
        else { return nil }
        let draftSection = try self.section(at: section)
        let storedIndex = try OrderedTable.rows.index(ofPosition: position, of: storedSection, in: db)
        // `nil`: deleted in the session (a moved row is held elsewhere).
        return draftSection.pieces.index(ofStored: storedIndex).map { RowPath(section: section, row: $0) }
    }

    /// The row at a valid path.
    func row(at path: RowPath) throws -> Row {
        let section = try self.section(at: path.section)
        let place = section.pieces.place(of: path.row)
        switch section.pieces[place] {
        case .held(let rows):
            return rows[place.offset]
        case .stored(let range):
            return try storedRow(at: range.lowerBound + place.offset, of: section.base!)
        }
    }

    /// The id of the row at a valid path, without its content.
    func rowID(at path: RowPath) throws -> Int64 {
        let section = try self.section(at: path.section)
        let place = section.pieces.place(of: path.row)
        switch section.pieces[place] {
        case .held(let rows):
            return rows[place.offset].id.rawValue
        case .stored(let range):
            return try storedItem(at: range.lowerBound + place.offset, of: section.base!).id
        }
    }

    /// The stored row at an index of a stored section, with the session's new content if any.
    private func storedRow(at index: Int, of base: (id: Int64, rowCount: Int)) throws -> Row {
        let item = try storedItem(at: index, of: base)
        if let content = overrides[RowID(item.id)] { return Row(id: RowID(item.id), content: content) }
        guard let content = try db.rowContent(id: item.id) else {
            throw RepositoryError.inconsistent("row #\(item.id) is in section #\(base.id)'s rank structure but not in rows")
        }
        return Row(id: RowID(item.id), content: content)
    }

    /// The stored row at an index of a stored section: the session counted `base.rowCount` rows
    /// there when it began, and the list's version says they are still there, so a row missing
    /// is damage (a count or rank node edited by hand), reported, never trapped on.
    private func storedItem(at index: Int, of base: (id: Int64, rowCount: Int)) throws -> (id: Int64, position: Int64) {
        guard let item = try OrderedTable.rows.item(at: index, of: base.id, count: base.rowCount, in: db) else {
            throw RepositoryError.inconsistent("section #\(base.id) has no row at index \(index) of the \(base.rowCount) it counts")
        }
        return item
    }

    /// Up to `limit` rows of a section from index `first` on.
    func rows(ofSection section: Int, from first: Int, limit: Int) throws -> [Row] {
        var result: [Row] = []
        let draftSection = try self.section(at: section)
        guard first < draftSection.rowCount else { return result }
        var place: PieceTable<Row>.Place? = draftSection.pieces.place(of: first)
        while result.count < limit, let at = place {
            let wanted = limit - result.count
            switch draftSection.pieces[at] {
            case .held(let rows):
                result += rows[at.offset..<min(rows.count, at.offset + wanted)]
            case .stored(let range):
                let stored = try storedRows(of: draftSection.base!, from: range.lowerBound + at.offset, limit: min(range.count - at.offset, wanted))
                result += stored.map { row in overrides[row.id].map { Row(id: row.id, content: $0) } ?? row }
            }
            place = draftSection.pieces.place(after: at)
        }
        return result
    }

    /// Up to `limit` consecutive rows of a stored section from the index `first` on, as stored.
    private func storedRows(of base: (id: Int64, rowCount: Int), from first: Int, limit: Int) throws -> [Row] {
        guard let start = try OrderedTable.rows.item(at: first, of: base.id, count: base.rowCount, in: db) else { return [] }
        return try db.rows(ofSection: base.id, fromPosition: start.position, limit: limit)
    }

    /// Every row of a section.
    func allRows(ofSection section: Int) throws -> [Row] {
        let draftSection = try self.section(at: section)
        var stored: [Row] = []
        if let base = draftSection.base, draftSection.pieces.hasStoredRows {
            stored = try db.allRows(ofSection: base.id)
            guard stored.count == base.rowCount else {
                throw RepositoryError.inconsistent("section #\(base.id) has \(stored.count) rows but counts \(base.rowCount)")
            }
        }
        var result: [Row] = []
        result.reserveCapacity(draftSection.rowCount)
        for piece in draftSection.pieces.pieces {
            switch piece {
            case .held(let rows): result += rows
            case .stored(let range):
                result += stored[range].map { row in overrides[row.id].map { Row(id: row.id, content: $0) } ?? row }
            }
        }
        return result
    }

    // MARK: - Changing the pieces (never fails: everything is read before)

    /// The id of the section at a valid index, which is kept in `changed` from now on, so that
    /// it can be changed there in place. Called before any change, as it may read.
    fileprivate mutating func changing(_ index: Int) throws -> SectionID {
        let section = try self.section(at: index)
        if changed[section.id] == nil { changed[section.id] = section }
        return section.id
    }

    fileprivate mutating func insert(_ row: Row, at index: Int, inSection section: SectionID) {
        changed[section]!.pieces.insert(row, at: index)
        heldRows[row.id] = section
    }

    fileprivate mutating func remove(at index: Int, inSection section: SectionID) {
        if let removed = changed[section]!.pieces.remove(at: index) { heldRows[removed.id] = nil }
    }

    // MARK: - Edits

    /// Applies `edit` by the shared rules (`EditRules`), giving anything it creates the id
    /// `nextID` (then decremented). Reads everything it needs before changing anything: when it
    /// throws, the draft is as it was.
    /// - Returns: the outcome, and the step that replays the edit on the database in the same
    ///   state, addressed by ids and neighbours only.
    /// - Complexity: O(log n + e / 32) for e edits so far (see `PieceTable`), rows and sections
    ///   alike; O(s) for a section named by title.
    mutating func apply(_ edit: Edit, nextID: inout Int64) throws -> (outcome: EditOutcome, step: ReplayStep) {
        self.nextID = nextID
        pendingStep = .nothing
        let outcome = try EditRules.apply(edit, to: &self)
        nextID = self.nextID
        // An edit that changed nothing in the draft has nothing to write.
        return (outcome, outcome.changeset.isEmpty ? .nothing : pendingStep)
    }

    /// The ids of the sections on either side of the one at `index`.
    fileprivate func sectionNeighbours(of index: Int) throws -> Neighbours {
        Neighbours(
            before: index > 0 ? try info(ofSection: index - 1).id.rawValue : nil,
            after: index + 1 < numberOfSections ? try info(ofSection: index + 1).id.rawValue : nil)
    }

    /// The ids of the rows that will be on either side of a row put at `slot` of a section, read
    /// before the change: the section's rows without the one at `skipping` (a row moving within
    /// the section), around the slot.
    fileprivate func rowNeighbours(ofSlot slot: Int, inSection section: Int, skipping: Int?) throws -> Neighbours {
        let count = try self.info(ofSection: section).rowCount - (skipping == nil ? 0 : 1)
        func id(_ index: Int) throws -> Int64? {
            guard index >= 0 && index < count else { return nil }
            let original = skipping.map { index >= $0 ? index + 1 : index } ?? index
            return try rowID(at: RowPath(section: section, row: original))
        }
        return Neighbours(before: try id(slot - 1), after: try id(slot))
    }
}

/// The ids of an item's neighbours in its section or list (`nil` at an end).
struct Neighbours {
    var before: Int64?
    var after: Int64?
}

/// One edit of a session as it is written at save: by ids and neighbours, never by index, so
/// that replaying it costs O(log n) whatever the size of the section. Ids may be draft ids
/// (negative) of things the session created; `save` maps them to stored ids.
enum ReplayStep {
    case nothing
    case insertSection(draftID: Int64, title: String, emptyText: String?, neighbours: Neighbours)
    case setSection(id: Int64, title: String, emptyText: String?)
    case moveSection(id: Int64, neighbours: Neighbours)
    case deleteSection(id: Int64)
    case insertRow(draftID: Int64, content: RowContent, sectionID: Int64, neighbours: Neighbours)
    case setRow(id: Int64, content: RowContent)
    case moveRow(id: Int64, sectionID: Int64, neighbours: Neighbours)
    case deleteRow(id: Int64)
}

/// The draft as `EditRules` sees it: lookups through the pieces and the stored list, writes to
/// the pieces, each noting the step that replays it at save.
extension SessionDraft: EditableList {
    func sectionCount() throws -> Int { numberOfSections }

    func section(_ ref: SectionRef) throws -> SectionInfo { try info(ofSection: try sectionIndex(ref)) }

    func row(_ ref: RowRef) throws -> LocatedRow {
        let path = try rowPath(ref)
        return LocatedRow(path: path, row: try row(at: path), section: try info(ofSection: path.section))
    }

    mutating func insertSection(title: String, emptyText: String?, at index: Int, count: Int) throws -> Int64 {
        let id = SectionID(nextID)
        let neighbours = Neighbours(
            before: index > 0 ? try info(ofSection: index - 1).id.rawValue : nil,
            after: index < numberOfSections ? try info(ofSection: index).id.rawValue : nil)
        nextID -= 1
        changed[id] = DraftSection(id: id, title: title, emptyText: emptyText, base: nil, pieces: PieceTable(storedCount: 0))
        order.insert(id, at: index)
        pendingStep = .insertSection(draftID: id.rawValue, title: title, emptyText: emptyText, neighbours: neighbours)
        return id.rawValue
    }

    mutating func updateSection(_ section: SectionInfo, title: String, emptyText: String?) throws {
        let id = try changing(section.index)
        changed[id]!.title = title
        changed[id]!.emptyText = emptyText
        pendingStep = .setSection(id: section.id.rawValue, title: title, emptyText: emptyText)
    }

    mutating func moveSection(_ section: SectionInfo, to index: Int, others: Int) throws {
        let id = try changing(section.index)
        order.remove(at: section.index)
        order.insert(id, at: index)
        // Read after the move, as the step names the neighbours the section has then; should a
        // read fail, the draft is put back as it was.
        do {
            pendingStep = .moveSection(id: section.id.rawValue, neighbours: try sectionNeighbours(of: index))
        } catch {
            order.remove(at: index)
            order.insert(id, at: section.index)
            throw error
        }
    }

    mutating func deleteSection(_ section: SectionInfo) throws {
        let id = try changing(section.index)
        for piece in changed[id]!.pieces.pieces {
            if case .held(let rows) = piece { for row in rows { heldRows[row.id] = nil } }
        }
        order.remove(at: section.index)
        changed[id] = nil
        pendingStep = .deleteSection(id: section.id.rawValue)
    }

    mutating func insertRow(_ content: RowContent, at index: Int, in section: SectionInfo) throws -> Int64 {
        let neighbours = try rowNeighbours(ofSlot: index, inSection: section.index, skipping: nil)
        let sectionID = try changing(section.index)
        let id = nextID
        nextID -= 1
        insert(Row(id: RowID(id), content: content), at: index, inSection: sectionID)
        pendingStep = .insertRow(draftID: id, content: content, sectionID: section.id.rawValue, neighbours: neighbours)
        return id
    }

    mutating func updateRow(_ row: LocatedRow, to content: RowContent) throws {
        // A section the session has not changed holds no row of its own.
        let held = changed[row.section.id]?.pieces.setHeldContent(content, at: row.path.row) ?? false
        if !held { overrides[row.row.id] = content }
        pendingStep = .setRow(id: row.row.id.rawValue, content: content)
    }

    mutating func moveRow(_ row: LocatedRow, to index: Int, in section: SectionInfo) throws {
        let sameSection = section.index == row.path.section
        let neighbours = try rowNeighbours(ofSlot: index, inSection: section.index, skipping: sameSection ? row.path.row : nil)
        let from = try changing(row.path.section)
        let to = try changing(section.index)
        remove(at: row.path.row, inSection: from)
        overrides[row.row.id] = nil
        insert(row.row, at: index, inSection: to)
        pendingStep = .moveRow(id: row.row.id.rawValue, sectionID: section.id.rawValue, neighbours: neighbours)
    }

    mutating func deleteRow(_ row: LocatedRow) throws {
        let from = try changing(row.path.section)
        remove(at: row.path.row, inSection: from)
        overrides[row.row.id] = nil
        pendingStep = .deleteRow(id: row.row.id.rawValue)
    }
}

/// How `EditSession.rebase` applies an edit again: the edit by ids, or why it is dropped.
enum RebasePlan {
    case edit(Edit)
    case drop(DroppedEdit.Reason)
}

extension SessionDraft {
    /// `edit`, which was applied to another draft as `step` and changed it by `changeset`, named
    /// by ids on this draft: its subject by id, a row's place next to a neighbour it had (in the
    /// same section), a section's next to a neighbour section; or why it cannot be applied
    /// (its subject, or the section it was to go into, is gone).
    /// - Complexity: O(log n + e / 32) for e edits so far.
    func rebased(_ edit: Edit, step: ReplayStep, changeset: Changeset) throws -> RebasePlan {
        func hasRow(_ id: Int64) throws -> Bool { try path(ofRow: RowID(id)) != nil }
        func sectionIndex(of id: Int64) throws -> Int? { try self.sectionIndex(ofID: SectionID(id)) }
        switch step {
        case .nothing:
            return .edit(edit)

        case .insertSection(_, let title, let emptyText, let neighbours):
            let index = try sectionSlot(neighbours, moving: nil, fallback: changeset.insertedSections.first ?? numberOfSections)
            return .edit(.addSection(title: title, emptyText: emptyText, at: index))

        case .setSection(let id, let title, let emptyText):
            guard try sectionIndex(of: id) != nil else { return .drop(.sectionGone(SectionID(id))) }
            if case .setEmptyText = edit { return .edit(.setEmptyText(.id(SectionID(id)), emptyText)) }
            return .edit(.renameSection(.id(SectionID(id)), title: title))

        case .moveSection(let id, let neighbours):
            guard try sectionIndex(of: id) != nil else { return .drop(.sectionGone(SectionID(id))) }
            let index = try sectionSlot(neighbours, moving: id, fallback: changeset.movedSections.first?.to ?? 0)
            return .edit(.moveSection(.id(SectionID(id)), to: index))

        case .deleteSection(let id):
            guard try sectionIndex(of: id) != nil else { return .drop(.sectionGone(SectionID(id))) }
            var force = false
            if case .deleteSection(_, let forced) = edit { force = forced }
            return .edit(.deleteSection(.id(SectionID(id)), force: force))

        case .insertRow(_, let content, let sectionID, let neighbours):
            guard let destination = try rowPlace(neighbours, in: sectionID, moving: nil, fallback: changeset.insertedRows.first?.row ?? 0)
            else { return .drop(.sectionGone(SectionID(sectionID))) }
            return .edit(.addRow(content, to: destination))

        case .setRow(let id, let content):
            guard try hasRow(id) else { return .drop(.rowGone(RowID(id))) }
            if case .updateRow(_, let title, let value) = edit { return .edit(.updateRow(.id(RowID(id)), title: title, value: value)) }
            return .edit(.updateRow(.id(RowID(id)), title: content.title))

        case .moveRow(let id, let sectionID, let neighbours):
            guard try hasRow(id) else { return .drop(.rowGone(RowID(id))) }
            guard let destination = try rowPlace(neighbours, in: sectionID, moving: id, fallback: changeset.movedRows.first?.to.row ?? 0)
            else { return .drop(.sectionGone(SectionID(sectionID))) }
            return .edit(.moveRow(.id(RowID(id)), to: destination))

        case .deleteRow(let id):
            guard try hasRow(id) else { return .drop(.rowGone(RowID(id))) }
            return .edit(.deleteRow(.id(RowID(id))))
        }
    }

    /// The index among the other sections (all but `moving`) just after the section that was
    /// before, else just before the one that was after, else `fallback` (at most the end).
    private func sectionSlot(_ neighbours: Neighbours, moving: Int64?, fallback: Int) throws -> Int {
        let movingIndex = try moving.flatMap { try sectionIndex(ofID: SectionID($0)) }
        // An index in the draft, counted among the other sections.
        func amongOthers(_ index: Int) -> Int { movingIndex.map { index > $0 ? index - 1 : index } ?? index }
        if let before = neighbours.before, before != moving, let index = try sectionIndex(ofID: SectionID(before)) {
            return amongOthers(index) + 1
        }
        if let after = neighbours.after, after != moving, let index = try sectionIndex(ofID: SectionID(after)) {
            return amongOthers(index)
        }
        return min(max(fallback, 0), numberOfSections - (movingIndex == nil ? 0 : 1))
    }

    /// Where a row goes in the section `sectionID`: just after the row that was before it, else
    /// just before the row that was after it (each only if still in that section), else at
    /// `fallback` among the section's other rows (at most the end); `nil` when the section is
    /// gone.
    private func rowPlace(_ neighbours: Neighbours, in sectionID: Int64, moving: Int64?, fallback: Int) throws -> RowDestination? {
        guard let section = try sectionIndex(ofID: SectionID(sectionID)) else { return nil }
        if let before = neighbours.before, try path(ofRow: RowID(before))?.section == section { return .after(RowID(before)) }
        if let after = neighbours.after, try path(ofRow: RowID(after))?.section == section { return .before(RowID(after)) }
        var count = try self.info(ofSection: section).rowCount
        if let moving, try path(ofRow: RowID(moving))?.section == section { count -= 1 }
        return RowDestination(section: .id(SectionID(sectionID)), index: .index(min(max(fallback, 0), count)))
    }
}

/// The stored sections a draft has read, by their index in the list as it was when the session
/// began: that list does not change while the draft lives, so what is read once stays true.
/// Shared by the copies of a draft, which all start from the same list.
final class StoredSections {
    /// How many sections the list has.
    let count: Int
    private var records: [Int: SectionRecord] = [:]
    private var indexes: [Int64: Int] = [:]

    init(count: Int) { self.count = count }

    /// Whether every section was read at once (a short list, as its session began); then the
    /// draft looks for a title or an id among them rather than in the database.
    private(set) var isWhole = false

    func record(at index: Int) -> SectionRecord? { records[index] }

    func index(ofID id: Int64) -> Int? { indexes[id] }

    func keep(_ record: SectionRecord) {
        records[record.index] = record
        indexes[record.id] = record.index
    }

    func keep(_ index: Int, forID id: Int64) { indexes[id] = index }

    /// Keeps every section of the list, in order.
    func keepAll(_ all: [SectionRecord]) {
        for record in all { keep(record) }
        isWhole = true
    }
}
