/// The result of a change: the list's version after it, what changed, and whether anything was
/// committed at all.
public struct Change: Hashable, Sendable {
    /// The list's name (after the change, for a rename).
    public var list: String
    /// The list's version after the change. For a change that committed nothing (`committed` is
    /// false), the version the edit was checked against and left as it was: the list's version
    /// when the edit was made, which may be one another writer committed and the caller has not
    /// seen yet — not a version this change produced.
    public var version: ListVersion
    /// The id of the list, section or row the change created, if it created one: `.row`,
    /// `.section` or `.list`, so the kind of the id is part of it.
    public var createdID: CreatedID?
    /// What changed, from the old snapshot to the new.
    public var changeset: Changeset
    /// Whether the change committed anything: false for an edit that changes nothing (a move
    /// onto its own place, a rename to the same title or name), which writes nothing, journals
    /// nothing and leaves the version as it was.
    public var committed: Bool

    /// Creates a change.
    public init(
        list: String, version: ListVersion, createdID: CreatedID? = nil, changeset: Changeset = Changeset(), committed: Bool = true
    ) {
        self.list = list
        self.version = version
        self.createdID = createdID
        self.changeset = changeset
        self.committed = committed
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

    /// The most bytes a document read whole may have: a records array (`import --records`
    /// without `--nl`) or a template. Longer input is refused as soon as it passes the limit.
    public static let maximumDocumentLength = 256 * 1024 * 1024
}

func validateText(_ text: String, _ what: String) throws {
    let length = text.utf8.count
    guard length <= SectionStore.maximumTextLength else {
        throw RepositoryError.textTooLong(what: what, bytes: length, limit: SectionStore.maximumTextLength)
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
    var createdID: CreatedID?
}

extension ListHandle {
    /// Commits one edit to the list, in one transaction, and returns its changeset and the list's
    /// new version. An edit that changes nothing (a move onto its own place, a rename to the
    /// same title) succeeds, writes nothing and leaves the version as it was: its `Change` says
    /// `committed == false`, and its `version` is the version the edit was checked against.
    /// - Throws: `RepositoryError.listNotFound` when the list does not exist; what the edit's
    ///   references or texts make it refuse (`Edit`). Nothing is written when it throws.
    /// - Complexity: a row edit is O(log n) in its section's rows, plus the neighbours renumbered
    ///   when a gap between positions runs out (O(1) amortized); deleting a section is O(its rows).
    @discardableResult
    public func apply(_ edit: Edit) throws -> Change {
        try edit.validate()
        let name = name
        return try store.write { db in try store.commit(edit, in: try db.listRecord(named: name), db: db) }
    }
}

extension SectionStore {

    /// Carries out `edit` inside the caller's write transaction and, when it changed anything,
    /// steps the list's version and journals it: the `Change` that `ListHandle.apply(_:)` returns.
    func commit(_ edit: Edit, in record: ListRecord, db: any Database, newID: Int64? = nil) throws -> Change {
        let outcome = try perform(edit, in: record, db: db, newID: newID)
        guard !outcome.changeset.isEmpty || outcome.createdID != nil else {
            return Change(list: record.name, version: record.version, committed: false)
        }
        let version = try bumpVersion(of: record, recording: outcome.changeset, db: db)
        return Change(list: record.name, version: version, createdID: outcome.createdID, changeset: outcome.changeset)
    }

    /// Bumps the list's version by one and journals `changeset` under the new version.
    /// - Returns: the new version.
    package func bumpVersion(of list: ListRecord, recording changeset: Changeset, db: any Database) throws -> ListVersion {
        try Journal.commit(changeset, to: list, db: db, store: self)
    }

    /// Carries out `edit` inside the caller's transaction, without touching the version: the
    /// shared rules (`EditRules`) over the database.
    func perform(_ edit: Edit, in list: ListRecord, db: any Database, newID: Int64? = nil) throws -> EditOutcome {
        var stored = StoredList(db: db, list: list, store: self, newID: newID)
        return try EditRules.apply(edit, to: &stored)
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
    static func updated(_ content: RowContent, id: RowID, title: String?, value: ValueUpdate) throws -> RowContent {
        var result = content
        if let title { result.title = title }
        switch value {
        case .keep:
            break
        case .set(let text):
            guard content.kind == .field else {
                throw RepositoryError.valueOnNonFieldRow(row: id, kind: content.kind)
            }
            result.value = text
        case .remove:
            result.value = nil
        }
        return result
    }
}
