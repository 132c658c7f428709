/// A list as the rules of an edit see it: sections and rows found the ways callers name them,
/// and changes written once every check has passed. Two sides implement it: the database
/// (`StoredList`, SQL in one transaction) and an edit session's draft (`SessionDraft`, in
/// memory over the stored list). The rules live once, in `EditRules`, so both sides check the
/// same things in the same order, refuse with the same errors and report the same changesets.
protocol EditableList {
    /// The list's name, for errors.
    var name: String { get }
    /// How many sections the list has.
    func sectionCount() throws -> Int
    /// The section a reference names, or the error that says why none.
    func section(_ ref: SectionRef) throws -> SectionInfo
    /// The row a reference names, with its path and section, or the error that says why none.
    func row(_ ref: RowRef) throws -> LocatedRow

    /// Inserts a section at `index` (0…count) of the list's `count` sections; returns its id.
    mutating func insertSection(title: String, emptyText: String?, at index: Int, count: Int) throws -> Int64
    /// Sets a section's title and empty text.
    mutating func updateSection(_ section: SectionInfo, title: String, emptyText: String?) throws
    /// Moves a section so that its index becomes `index` among the `others` sections (0…others,
    /// not its own).
    mutating func moveSection(_ section: SectionInfo, to index: Int, others: Int) throws
    /// Deletes a section and its rows.
    mutating func deleteSection(_ section: SectionInfo) throws
    /// Inserts a row at `index` (0…count) of `section`; returns its id.
    mutating func insertRow(_ content: RowContent, at index: Int, in section: SectionInfo) throws -> Int64
    /// Sets a row's content.
    mutating func updateRow(_ row: LocatedRow, to content: RowContent) throws
    /// Moves a row so that its index in `section` becomes `index`, counted without the row
    /// (not its own place).
    mutating func moveRow(_ row: LocatedRow, to index: Int, in section: SectionInfo) throws
    /// Deletes a row.
    mutating func deleteRow(_ row: LocatedRow) throws
}

/// The rules of every `Edit`, written once: range checks, what a no-op is, and the changeset an
/// edit reports (footers included).
enum EditRules {
    /// Checks `edit` against `list`, writes it, and returns what it changed. An edit that changes
    /// nothing (a move onto its own place, a rename to the same title) writes nothing and reports
    /// an empty changeset. When it throws, nothing was written.
    static func apply<List: EditableList>(_ edit: Edit, to list: inout List) throws -> EditOutcome {
        try edit.validate()
        var outcome = EditOutcome()
        switch edit {
        case .addSection(let title, let emptyText, let at):
            let count = try list.sectionCount()
            let index = at ?? count
            guard index >= 0 && index <= count else {
                throw RepositoryError.sectionIndexOutOfRange(index, valid: 0...count)
            }
            let id = try list.insertSection(title: title, emptyText: emptyText, at: index, count: count)
            outcome.createdID = .section(SectionID(id))
            outcome.changeset.insertedSections = [index]
            outcome.changeset.insertedSectionIDs = [SectionID(id)]

        case .renameSection(let ref, let title):
            let section = try list.section(ref)
            guard section.title != title else { break }
            try list.updateSection(section, title: title, emptyText: section.emptyText)
            outcome.changeset.updatedSections = [section.index]
            outcome.changeset.updatedSectionIDs = [section.id]

        case .setEmptyText(let ref, let text):
            let section = try list.section(ref)
            guard section.emptyText != text else { break }
            try list.updateSection(section, title: section.title, emptyText: text)
            outcome.changeset.updatedSections = [section.index]
            outcome.changeset.updatedSectionIDs = [section.id]
            outcome.changeset.noteFooters([(section.index, section.id, section.rowCount, section.rowCount, section.emptyText, text)])

        case .moveSection(let ref, let destination):
            let section = try list.section(ref)
            let others = try list.sectionCount() - 1
            guard destination >= 0 && destination <= others else {
                throw RepositoryError.sectionIndexOutOfRange(destination, valid: 0...others)
            }
            guard destination != section.index else { break }
            try list.moveSection(section, to: destination, others: others)
            outcome.changeset.movedSections = [.init(from: section.index, to: destination)]
            outcome.changeset.movedSectionIDs = [section.id]

        case .deleteSection(let ref, let force):
            let section = try list.section(ref)
            guard section.rowCount == 0 || force else {
                throw RepositoryError.sectionNotEmpty(title: section.title, rowCount: section.rowCount)
            }
            try list.deleteSection(section)
            outcome.changeset.deletedSections = [section.index]
            outcome.changeset.deletedSectionIDs = [section.id]

        case .addRow(let content, let destination):
            let (section, index) = try place(destination, of: nil, in: list)
            let id = try list.insertRow(content, at: index, in: section)
            outcome.createdID = .row(RowID(id))
            outcome.changeset.insertedRows = [RowPath(section: section.index, row: index)]
            outcome.changeset.insertedRowIDs = [RowID(id)]
            outcome.changeset.noteFooters([
                (section.index, section.id, section.rowCount, section.rowCount + 1, section.emptyText, section.emptyText)
            ])

        case .updateRow(let ref, let title, let value):
            let row = try list.row(ref)
            let content = try SectionStore.updated(row.row.content, id: row.row.id, title: title, value: value)
            guard content != row.row.content else { break }
            try list.updateRow(row, to: content)
            outcome.changeset.updatedRows = [row.path]
            outcome.changeset.updatedRowIDs = [row.row.id]

        case .deleteRow(let ref):
            let row = try list.row(ref)
            try list.deleteRow(row)
            outcome.changeset.deletedRows = [row.path]
            outcome.changeset.deletedRowIDs = [row.row.id]
            let section = row.section
            outcome.changeset.noteFooters([
                (section.index, section.id, section.rowCount, section.rowCount - 1, section.emptyText, section.emptyText)
            ])

        case .moveRow(let ref, let destination):
            let row = try list.row(ref)
            let (section, index) = try place(destination, of: row, in: list)
            let sameSection = section.id == row.section.id
            guard !(sameSection && index == row.path.row) else { break }
            try list.moveRow(row, to: index, in: section)
            outcome.changeset.movedRows = [.init(from: row.path, to: RowPath(section: section.index, row: index))]
            outcome.changeset.movedRowIDs = [row.row.id]
            if !sameSection {
                let source = row.section
                outcome.changeset.noteFooters([
                    (source.index, source.id, source.rowCount, source.rowCount - 1, source.emptyText, source.emptyText),
                    (section.index, section.id, section.rowCount, section.rowCount + 1, section.emptyText, section.emptyText),
                ])
            }
        }
        return outcome
    }

    /// The section and the index (counted without `moving`) a destination names: next to a row
    /// by id, or a section and an index, `end` or the count appending; anything past that is an
    /// error naming the valid range.
    static func place<List: EditableList>(_ destination: RowDestination, of moving: LocatedRow?, in list: List) throws
        -> (section: SectionInfo, index: Int)
    {
        if let anchor = destination.anchor {
            let anchorRow = try list.row(.id(anchor.rowID))
            let movingIndex = moving.flatMap { $0.section.id == anchorRow.section.id ? $0.path.row : nil }
            return (anchorRow.section, anchor.slot(anchorIndex: anchorRow.path.row, movingIndex: movingIndex))
        }
        // The moving row's own section was just read in this transaction: not asked for twice.
        let section =
            try moving.flatMap { moving in
                switch destination.section {
                case .index(let index): index == moving.section.index ? moving.section : nil
                case .id(let id): id == moving.section.id ? moving.section : nil
                case .title: nil
                }
            } ?? list.section(destination.section)
        let count = section.rowCount - (moving?.section.id == section.id ? 1 : 0)
        return (section, try SectionStore.destinationIndex(destination.index, section: section.index, count: count))
    }
}
