import SQLite

/// The result of a committed change: the list's new version and what changed.
public struct Change: Hashable, Sendable {
    /// The list's name (after the change, for a rename).
    public var list: String
    /// The list's version after the change.
    public var version: Int64
    /// The id of the list, section or row the change created, if it created one.
    public var createdID: Int64?
    /// What changed, from the old snapshot to the new.
    public var changeset: Changeset

    /// Creates a change.
    public init(list: String, version: Int64, createdID: Int64? = nil, changeset: Changeset = Changeset()) {
        self.list = list
        self.version = version
        self.createdID = createdID
        self.changeset = changeset
    }
}

extension SectionStore {
    /// The most UTF-8 bytes a title, label, value, empty text or list name may have.
    public static let maximumTextLength = 1_000_000

    /// The most bytes (line break excluded) one line may have where input is read a line at a
    /// time: a record of `importRecords(lines:options:)`, or a line of an edit session. Well past
    /// `maximumTextLength`, so that any text that may be stored fits on a line, escaped or quoted;
    /// a longer line is refused as soon as it is read that far, so endless input ends promptly.
    public static let maximumLineLength = 8_000_000
}

func validateText(_ text: String, _ what: String) throws {
    let length = text.utf8.count
    guard length <= SectionStore.maximumTextLength else {
        throw RepositoryError.invalidInput("\(what) is \(length) bytes long; at most \(SectionStore.maximumTextLength) are allowed")
    }
}

extension Edit {
    /// Checks the texts the edit carries, before anything is looked up.
    func validate() throws {
        switch self {
        case .addSection(let title, let emptyText, _):
            try validateText(title, "the section title")
            if let emptyText { try validateText(emptyText, "the empty text") }
        case .renameSection(_, let title):
            try validateText(title, "the section title")
        case .setEmptyText(_, let text):
            if let text { try validateText(text, "the empty text") }
        case .addRow(let content, _):
            try validateText(content.title, "the row title")
            if let value = content.value { try validateText(value, "the value") }
        case .updateRow(_, let title, let value):
            if let title { try validateText(title, "the row title") }
            if case .set(let text) = value { try validateText(text, "the value") }
        case .moveSection, .deleteSection, .deleteRow, .moveRow:
            break
        }
    }
}

/// What one edit did: its changeset and the id of what it created.
struct EditOutcome {
    var changeset = Changeset()
    var createdID: Int64?
}

extension SectionStore {
    /// Commits one edit to a list, in one transaction, and returns its changeset and the list's
    /// new version. An edit that changes nothing (a move onto its own place, a rename to the
    /// same title) succeeds, writes nothing and leaves the version as it was.
    @discardableResult
    public func apply(_ edit: Edit, to list: String = SectionStore.defaultList) throws -> Change {
        try edit.validate()
        return try write { db in
            let record = try db.listRecord(named: list)
            let outcome = try perform(edit, in: record, db: db)
            let version = outcome.changeset.isEmpty && outcome.createdID == nil ? record.version : try bumpVersion(of: record, db: db)
            return Change(list: record.name, version: version, createdID: outcome.createdID, changeset: outcome.changeset)
        }
    }

    func bumpVersion(of list: ListRecord, db: Connection) throws -> Int64 {
        try db.queryFirst("UPDATE lists SET version = version + 1 WHERE id = ? RETURNING version", list.id) { $0.int64(0) }!
    }

    /// Carries out `edit` inside the caller's transaction, without touching the version.
    func perform(_ edit: Edit, in list: ListRecord, db: Connection) throws -> EditOutcome {
        var outcome = EditOutcome()
        switch edit {
        case .addSection(let title, let emptyText, let at):
            let count = try db.sectionCount(of: list)
            let index = at ?? count
            guard index >= 0 && index <= count else {
                throw RepositoryError.sectionIndexOutOfRange(index, valid: 0...count)
            }
            let place = try OrderedTable.sections.positionForSlot(index, of: list.id, count: count, movingID: nil, in: db)
            countPositionWrites(place.rewritten + 1)
            outcome.createdID = try db.queryFirst(
                "INSERT INTO sections (list_id, position, title, empty_text) VALUES (?, ?, ?, ?) RETURNING id",
                list.id, place.position, title, emptyText
            ) { $0.int64(0) }
            outcome.changeset.insertedSections = [index]

        case .renameSection(let ref, let title):
            let section = try db.section(ref, in: list)
            guard section.title != title else { break }
            try db.run("UPDATE sections SET title = ? WHERE id = ?", title, section.id)
            outcome.changeset.updatedSections = [section.index]

        case .setEmptyText(let ref, let text):
            let section = try db.section(ref, in: list)
            guard section.emptyText != text else { break }
            try db.run("UPDATE sections SET empty_text = ? WHERE id = ?", text, section.id)
            outcome.changeset.updatedSections = [section.index]

        case .moveSection(let ref, let destination):
            let section = try db.section(ref, in: list)
            let others = try db.sectionCount(of: list) - 1
            guard destination >= 0 && destination <= others else {
                throw RepositoryError.sectionIndexOutOfRange(destination, valid: 0...others)
            }
            guard destination != section.index else { break }
            let place = try OrderedTable.sections.positionForSlot(destination, of: list.id, count: others, movingID: section.id, in: db)
            countPositionWrites(place.rewritten + 1)
            try db.run("UPDATE sections SET position = ? WHERE id = ?", place.position, section.id)
            outcome.changeset.movedSections = [.init(from: section.index, to: destination)]

        case .deleteSection(let ref, let force):
            let section = try db.section(ref, in: list)
            guard section.rowCount == 0 || force else {
                throw RepositoryError.sectionNotEmpty(title: section.title, rowCount: section.rowCount)
            }
            try db.run("DELETE FROM sections WHERE id = ?", section.id)
            outcome.changeset.deletedSections = [section.index]

        case .addRow(let content, let destination):
            let section = try db.section(destination.section, in: list)
            let index = try Self.destinationIndex(destination.index, section: section.index, count: section.rowCount)
            let place = try OrderedTable.rows.positionForSlot(index, of: section.id, count: section.rowCount, movingID: nil, in: db)
            countPositionWrites(place.rewritten + 1)
            outcome.createdID = try db.queryFirst(
                "INSERT INTO rows (section_id, position, kind, title, value) VALUES (?, ?, ?, ?, ?) RETURNING id",
                section.id, place.position, content.kind.rawValue, content.title, content.value
            ) { $0.int64(0) }
            outcome.changeset.insertedRows = [RowPath(section: section.index, row: index)]

        case .updateRow(let ref, let title, let value):
            let row = try db.row(ref, in: list)
            let content = try Self.updated(row.content, id: row.id, title: title, value: value)
            guard content != row.content else { break }
            try db.run("UPDATE rows SET title = ?, value = ? WHERE id = ?", content.title, content.value, row.id)
            outcome.changeset.updatedRows = [row.path]

        case .deleteRow(let ref):
            let row = try db.row(ref, in: list)
            try db.run("DELETE FROM rows WHERE id = ?", row.id)
            outcome.changeset.deletedRows = [row.path]

        case .moveRow(let ref, let destination):
            let row = try db.row(ref, in: list)
            let section = try db.section(destination.section, in: list)
            let sameSection = section.id == row.sectionID
            let others = section.rowCount - (sameSection ? 1 : 0)
            let index = try Self.destinationIndex(destination.index, section: section.index, count: others)
            guard !(sameSection && index == row.path.row) else { break }
            let place = try OrderedTable.rows.positionForSlot(index, of: section.id, count: others, movingID: row.id, in: db)
            countPositionWrites(place.rewritten + 1)
            try db.run("UPDATE rows SET section_id = ?, position = ? WHERE id = ?", section.id, place.position, row.id)
            outcome.changeset.movedRows = [.init(from: row.path, to: RowPath(section: section.index, row: index))]
        }
        return outcome
    }

    /// The row index a destination names, among `count` rows: `end` or `count` appends;
    /// anything past that is an error naming the valid range.
    static func destinationIndex(_ index: RowIndex, section: Int, count: Int) throws -> Int {
        switch index {
        case .end:
            return count
        case .index(let value):
            guard value >= 0 && value <= count else {
                throw RepositoryError.rowIndexOutOfRange(value, section: section, valid: 0...count)
            }
            return value
        }
    }

    /// A row's content after `Edit.updateRow`.
    static func updated(_ content: RowContent, id: Int64, title: String?, value: ValueUpdate) throws -> RowContent {
        var result = content
        if let title { result.title = title }
        switch value {
        case .keep:
            break
        case .set(let text):
            guard content.kind == .field else {
                throw RepositoryError.invalidInput(
                    "row #\(id) is a \(content.kind.rawValue) row; only field rows have a value")
            }
            result.value = text
        case .remove:
            result.value = nil
        }
        return result
    }
}
