/// The draft of an edit session: the stored list as it was when the session began (which each
/// call of the session checks it still is), with the session's edits laid over it.
///
/// It holds the sections (titles and counts: the outline) and, per section, a piece table
/// (`PieceTable`): runs of the stored section's rows, by their index in the stored section, and
/// the rows the session inserted or moved, held in memory. Updated stored rows left in place
/// keep their new content in `overrides`. Finding a row at an index finds its piece through the
/// table's blocks, then, for a stored run, asks the stored list for the row at an index
/// (O(log n)); finding a row by id finds a held row through the table's map of held rows, and
/// a stored one by asking the stored list for its index, then finding the run that holds it
/// through the blocks; a section is found by id through a map. So an edit of a row costs
/// O(log n) in the stored list plus O(e / 32 + 64) steps over the piece table after e edits
/// (see `PieceTable`), and memory grows with the sections and the edits, never with the rows.
///
/// Every check and error matches what `ListHandle.apply(_:)` does to the database.
struct SessionDraft {
    typealias Piece = PieceTable.Piece

    /// One section of the draft.
    struct DraftSection {
        var id: SectionID
        var title: String
        var emptyText: String?
        /// The stored section whose rows this one starts from, with its stored row count;
        /// `nil` for a section created in the session.
        var base: (id: Int64, rowCount: Int)?
        var pieces: PieceTable
        var rowCount: Int { pieces.rowCount }
    }

    /// The connection the session's current call reads on, inside that call's read transaction;
    /// set by each call (`EditSession.reading`), and not to be used between calls.
    var db: any Database
    /// The stored list as it was when the session began.
    let list: ListRecord
    /// The sections; after changing which sections there are, or their order, call
    /// `indexSections()`.
    private(set) var sections: [DraftSection]
    /// The index of each section by its id, and by its stored section's id.
    private var sectionsByID: [SectionID: Int] = [:]
    private var sectionsByBase: [Int64: Int] = [:]
    /// New content of stored rows updated in the session that are still in a stored run.
    var overrides: [RowID: RowContent] = [:]
    /// Rows in held pieces → the id of the draft section holding them.
    var heldRows: [RowID: SectionID] = [:]
    /// The id the next section or row created in the session gets (negative, decreasing).
    fileprivate var nextID: Int64 = -1
    /// How the last edit is written at save, set by the writes below.
    fileprivate var pendingStep: ReplayStep = .nothing

    init(db: any Database, list: ListRecord) throws {
        self.db = db
        self.list = list
        sections = try db.sectionRecords(of: list).map { record in
            DraftSection(
                id: SectionID(record.id), title: record.title, emptyText: record.emptyText, base: (record.id, record.rowCount),
                pieces: PieceTable(storedCount: record.rowCount))
        }
        indexSections()
    }

    /// Rebuilds the maps of sections by id: O(s), after an edit of the sections (which costs
    /// O(s) anyway).
    private mutating func indexSections() {
        sectionsByID.removeAll(keepingCapacity: true)
        sectionsByBase.removeAll(keepingCapacity: true)
        for (index, section) in sections.enumerated() {
            sectionsByID[section.id] = index
            if let base = section.base { sectionsByBase[base.id] = index }
        }
    }

    /// The index of the section with this id, if the draft has it.
    func sectionIndex(ofID id: SectionID) -> Int? { sectionsByID[id] }

    var name: String { list.name }

    // MARK: - Finding things

    func sectionIndex(_ ref: SectionRef) throws -> Int {
        switch ref {
        case .index(let index):
            guard sections.indices.contains(index) else {
                throw RepositoryError.sectionIndexOutOfRange(index, valid: sections.isEmpty ? nil : 0...(sections.count - 1))
            }
            return index
        case .id(let id):
            guard let index = sectionsByID[id] else {
                throw RepositoryError.sectionNotFound(ref, list: name, titles: sections.map(\.title))
            }
            return index
        case .title(let title):
            let matches = sections.indices.filter { sections[$0].title == title }
            guard matches.count == 1 else {
                if matches.isEmpty { throw RepositoryError.sectionNotFound(ref, list: name, titles: sections.map(\.title)) }
                throw RepositoryError.ambiguousSectionTitle(title, ids: matches.map { sections[$0].id })
            }
            return matches[0]
        }
    }

    func rowPath(_ ref: RowRef) throws -> RowPath {
        switch ref {
        case .path(let sectionRef, let rowIndex):
            let section = try sectionIndex(sectionRef)
            let count = sections[section].rowCount
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
            let section = sectionsByID[sectionID]!
            guard let (index, _) = sections[section].pieces.heldRow(id) else { preconditionFailure("a held row is in its section's pieces") }
            return RowPath(section: section, row: index)
        }
        guard id > 0 else { return nil }
        // A stored row, where it was when the session began.
        guard let (storedSection, position) = try db.placeOfRow(id: id.rawValue, in: list),
            let section = sectionsByBase[storedSection]
        else { return nil }
        let base = sections[section].base!
        let storedIndex = try OrderedTable.rows.index(ofPosition: position, of: base.id, in: db)
        // `nil`: deleted in the session (a moved row is held elsewhere).
        return sections[section].pieces.index(ofStored: storedIndex).map { RowPath(section: section, row: $0) }
    }

    /// The row at a valid path.
    func row(at path: RowPath) throws -> Row {
        let place = sections[path.section].pieces.place(of: path.row)
        switch sections[path.section].pieces[place] {
        case .held(let rows):
            return rows[place.offset]
        case .stored(let range):
            return try storedRow(at: range.lowerBound + place.offset, of: sections[path.section].base!)
        }
    }

    /// The id of the row at a valid path, without its content.
    func rowID(at path: RowPath) throws -> Int64 {
        let place = sections[path.section].pieces.place(of: path.row)
        switch sections[path.section].pieces[place] {
        case .held(let rows):
            return rows[place.offset].id.rawValue
        case .stored(let range):
            return try storedItem(at: range.lowerBound + place.offset, of: sections[path.section].base!).id
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
        let draftSection = sections[section]
        guard first < draftSection.rowCount else { return result }
        var place: PieceTable.Place? = draftSection.pieces.place(of: first)
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
        let draftSection = sections[section]
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

    func info(ofSection index: Int) -> SectionInfo {
        let section = sections[index]
        return SectionInfo(id: section.id, index: index, title: section.title, emptyText: section.emptyText, rowCount: section.rowCount)
    }

    // MARK: - Changing the pieces (never fails: everything is read before)

    fileprivate mutating func insert(_ row: Row, at index: Int, inSection section: Int) {
        sections[section].pieces.insert(row, at: index)
        heldRows[row.id] = sections[section].id
    }

    fileprivate mutating func remove(at index: Int, inSection section: Int) {
        if let removed = sections[section].pieces.remove(at: index) { heldRows[removed.id] = nil }
    }

    // MARK: - Edits

    /// Applies `edit` by the shared rules (`EditRules`), giving anything it creates the id
    /// `nextID` (then decremented). Reads everything it needs before changing anything: when it
    /// throws, the draft is as it was.
    /// - Returns: the outcome, and the step that replays the edit on the database in the same
    ///   state, addressed by ids and neighbours only.
    /// - Complexity: O(log n + e / 32) for e edits so far (see `PieceTable`) for an edit of a
    ///   row, plus O(s) in the sections for an edit of the sections.
    mutating func apply(_ edit: Edit, nextID: inout Int64) throws -> (outcome: EditOutcome, step: ReplayStep) {
        self.nextID = nextID
        pendingStep = .nothing
        let outcome = try EditRules.apply(edit, to: &self)
        nextID = self.nextID
        // An edit that changed nothing in the draft has nothing to write.
        return (outcome, outcome.changeset.isEmpty ? .nothing : pendingStep)
    }

    /// The ids of the sections on either side of the one at `index`.
    fileprivate func sectionNeighbours(of index: Int) -> Neighbours {
        Neighbours(
            before: index > 0 ? sections[index - 1].id.rawValue : nil,
            after: index + 1 < sections.count ? sections[index + 1].id.rawValue : nil)
    }

    /// The ids of the rows that will be on either side of a row put at `slot` of a section, read
    /// before the change: the section's rows without the one at `skipping` (a row moving within
    /// the section), around the slot.
    fileprivate func rowNeighbours(ofSlot slot: Int, inSection section: Int, skipping: Int?) throws -> Neighbours {
        let count = sections[section].rowCount - (skipping == nil ? 0 : 1)
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
    func sectionCount() throws -> Int { sections.count }

    func section(_ ref: SectionRef) throws -> SectionInfo { info(ofSection: try sectionIndex(ref)) }

    func row(_ ref: RowRef) throws -> LocatedRow {
        let path = try rowPath(ref)
        return LocatedRow(path: path, row: try row(at: path), section: info(ofSection: path.section))
    }

    mutating func insertSection(title: String, emptyText: String?, at index: Int, count: Int) throws -> Int64 {
        let id = nextID
        nextID -= 1
        sections.insert(DraftSection(id: SectionID(id), title: title, emptyText: emptyText, base: nil, pieces: PieceTable(storedCount: 0)), at: index)
        indexSections()
        pendingStep = .insertSection(draftID: id, title: title, emptyText: emptyText, neighbours: sectionNeighbours(of: index))
        return id
    }

    mutating func updateSection(_ section: SectionInfo, title: String, emptyText: String?) throws {
        sections[section.index].title = title
        sections[section.index].emptyText = emptyText
        pendingStep = .setSection(id: section.id.rawValue, title: title, emptyText: emptyText)
    }

    mutating func moveSection(_ section: SectionInfo, to index: Int, others: Int) throws {
        sections.insert(sections.remove(at: section.index), at: index)
        indexSections()
        pendingStep = .moveSection(id: section.id.rawValue, neighbours: sectionNeighbours(of: index))
    }

    mutating func deleteSection(_ section: SectionInfo) throws {
        for piece in sections[section.index].pieces.pieces {
            if case .held(let rows) = piece { for row in rows { heldRows[row.id] = nil } }
        }
        sections.remove(at: section.index)
        indexSections()
        pendingStep = .deleteSection(id: section.id.rawValue)
    }

    mutating func insertRow(_ content: RowContent, at index: Int, in section: SectionInfo) throws -> Int64 {
        let neighbours = try rowNeighbours(ofSlot: index, inSection: section.index, skipping: nil)
        let id = nextID
        nextID -= 1
        insert(Row(id: RowID(id), content: content), at: index, inSection: section.index)
        pendingStep = .insertRow(draftID: id, content: content, sectionID: section.id.rawValue, neighbours: neighbours)
        return id
    }

    mutating func updateRow(_ row: LocatedRow, to content: RowContent) throws {
        if !sections[row.path.section].pieces.setHeldContent(content, at: row.path.row) {
            overrides[row.row.id] = content
        }
        pendingStep = .setRow(id: row.row.id.rawValue, content: content)
    }

    mutating func moveRow(_ row: LocatedRow, to index: Int, in section: SectionInfo) throws {
        let sameSection = section.index == row.path.section
        let neighbours = try rowNeighbours(ofSlot: index, inSection: section.index, skipping: sameSection ? row.path.row : nil)
        remove(at: row.path.row, inSection: row.path.section)
        overrides[row.row.id] = nil
        insert(row.row, at: index, inSection: section.index)
        pendingStep = .moveRow(id: row.row.id.rawValue, sectionID: section.id.rawValue, neighbours: neighbours)
    }

    mutating func deleteRow(_ row: LocatedRow) throws {
        remove(at: row.path.row, inSection: row.path.section)
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
    /// - Complexity: O(log n + e / 32) for e edits so far, plus O(s) in the sections.
    func rebased(_ edit: Edit, step: ReplayStep, changeset: Changeset) throws -> RebasePlan {
        func hasRow(_ id: Int64) throws -> Bool { try path(ofRow: RowID(id)) != nil }
        func sectionIndex(of id: Int64) -> Int? { sectionsByID[SectionID(id)] }
        switch step {
        case .nothing:
            return .edit(edit)

        case .insertSection(_, let title, let emptyText, let neighbours):
            let index = sectionSlot(neighbours, moving: nil, fallback: changeset.insertedSections.first ?? sections.count)
            return .edit(.addSection(title: title, emptyText: emptyText, at: index))

        case .setSection(let id, let title, let emptyText):
            guard sectionIndex(of: id) != nil else { return .drop(.sectionGone(SectionID(id))) }
            if case .setEmptyText = edit { return .edit(.setEmptyText(.id(SectionID(id)), emptyText)) }
            return .edit(.renameSection(.id(SectionID(id)), title: title))

        case .moveSection(let id, let neighbours):
            guard sectionIndex(of: id) != nil else { return .drop(.sectionGone(SectionID(id))) }
            let index = sectionSlot(neighbours, moving: id, fallback: changeset.movedSections.first?.to ?? 0)
            return .edit(.moveSection(.id(SectionID(id)), to: index))

        case .deleteSection(let id):
            guard sectionIndex(of: id) != nil else { return .drop(.sectionGone(SectionID(id))) }
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
    private func sectionSlot(_ neighbours: Neighbours, moving: Int64?, fallback: Int) -> Int {
        let others = sections.map(\.id.rawValue).filter { $0 != moving }
        if let before = neighbours.before, let index = others.firstIndex(of: before) { return index + 1 }
        if let after = neighbours.after, let index = others.firstIndex(of: after) { return index }
        return min(max(fallback, 0), others.count)
    }

    /// Where a row goes in the section `sectionID`: just after the row that was before it, else
    /// just before the row that was after it (each only if still in that section), else at
    /// `fallback` among the section's other rows (at most the end); `nil` when the section is
    /// gone.
    private func rowPlace(_ neighbours: Neighbours, in sectionID: Int64, moving: Int64?, fallback: Int) throws -> RowDestination? {
        guard let section = sectionsByID[SectionID(sectionID)] else { return nil }
        if let before = neighbours.before, try path(ofRow: RowID(before))?.section == section { return .after(RowID(before)) }
        if let after = neighbours.after, try path(ofRow: RowID(after))?.section == section { return .before(RowID(after)) }
        var count = sections[section].rowCount
        if let moving, try path(ofRow: RowID(moving))?.section == section { count -= 1 }
        return RowDestination(section: .id(SectionID(sectionID)), index: .index(min(max(fallback, 0), count)))
    }
}
