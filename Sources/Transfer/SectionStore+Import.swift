import Repository

extension SectionStore {
    /// The list named `name`, created (at version 0) when absent.
    func listForImport(named name: String, db: any Database) throws -> (list: ListRecord, created: Bool) {
        if let list = try db.listRecordIfAny(named: name) { return (list, false) }
        return (try db.createListRecord(named: name), true)
    }

    /// Reads a native document from `stream` and writes each list as it comes, inside the
    /// caller's transaction.
    func importNative(
        from stream: inout JSONStream, list: String?, policy: ImportConflictPolicy, meter: ProgressMeter? = nil, db: any Database
    ) throws -> [Change] {
        try db.refuseOnReplica("an import")
        let importer = NativeImporter(store: self, policy: policy, db: db)
        importer.meter = meter
        var reader = NativeReader(importer: importer, listName: list)
        try stream.forEachNode { try reader.take($0) }
        try reader.finish()
        return importer.changes
    }
}

/// Writes the lists of a native document as `NativeReader` finds them: sections and rows
/// appended in bulk, one list at a time, inside the caller's transaction.
final class NativeImporter {
    private let store: SectionStore
    private let policy: ImportConflictPolicy
    private let db: any Database
    /// One change per list finished, in the document's order.
    private(set) var changes: [Change] = []
    private var list: ListRecord?
    private var created = false
    private var changeset = Changeset()
    private var appender: BulkAppender?
    private var firstSection = 0
    /// Told of the rows written.
    var meter: ProgressMeter?

    init(store: SectionStore, policy: ImportConflictPolicy, db: any Database) {
        self.store = store
        self.policy = policy
        self.db = db
    }

    /// Starts filling the list named `name`: created when absent; when it has sections,
    /// handled by the policy.
    func beginList(_ name: String) throws {
        let (list, created) = try store.listForImport(named: name, db: db)
        changeset = Changeset()
        let existing = try db.sectionCount(of: list)
        if existing > 0 {
            switch policy {
            case .refuse:
                throw RepositoryError.importIntoNonEmptyList(list.name, sectionCount: existing)
            case .replace:
                changeset.deletedSectionIDs = try db.sectionRecords(of: list).map { SectionID($0.id) }
                try db.deleteSections(of: list)
                changeset.deletedSections = Array(0..<existing)
            case .append:
                break
            }
        }
        var appender = try BulkAppender(list: list, db: db)
        appender.meter = meter
        firstSection = appender.sectionCount
        self.list = list
        self.created = created
        self.appender = appender
    }

    func appendSection(title: String, emptyText: String?) throws {
        try appender?.appendSection(title: title, emptyText: emptyText)
    }

    /// Sets the empty text of the section appended last (when the document gives it after the
    /// section's rows).
    func setEmptyText(_ emptyText: String?) throws {
        guard let list else { return }
        // An update, logged for undo after the section's insert: the bulk bookkeeping first.
        try appender?.endBulk()
        try db.setEmptyTextOfLastSection(of: list, to: emptyText)
        try appender?.resumeBulk()
    }

    func appendRow(_ row: RowContent) throws {
        try appender?.appendRow(row)
    }

    /// Writes what is pending and notes the list's change.
    func endList() throws {
        guard let list, var appender else { return }
        try appender.finish()
        store.countPositionWrites(appender.positionWrites)
        changeset.insertedSections = Array(firstSection..<appender.sectionCount)
        changeset.insertedSectionIDs = appender.appendedSectionIDs.map { SectionID($0) }
        let version = changeset.isEmpty ? list.version : try store.bumpVersion(of: list, recording: changeset, db: db)
        changes.append(
            Change(
                list: list.name, version: version, createdID: created ? .list(ListID(list.id)) : nil, changeset: changeset,
                committed: created || !changeset.isEmpty))
        self.list = nil
        self.appender = nil
    }
}

extension SectionStore {
    /// Writes records as sections appended to `options.list`, inside the caller's transaction.
    func importRecords(from source: RecordSource, options: RecordsImportOptions, meter: ProgressMeter? = nil, db: any Database) throws
        -> Change
    {
        try Self.validateListName(options.list)
        try db.refuseOnReplica("an import")
        let layout = try RecordLayout(options: options)
        let (list, created) = try listForImport(named: options.list, db: db)
        var appender = try BulkAppender(list: list, db: db)
        appender.meter = meter
        let first = appender.sectionCount
        try source.forEachRecord { record in
            let tree = try RecordTree(record)
            try appender.appendSection(title: layout.title(of: tree, number: record.number), emptyText: nil)
            try layout.forEachRow(of: tree) { try appender.appendRow($0) }
        }
        try appender.finish()
        countPositionWrites(appender.positionWrites)
        var changeset = Changeset()
        changeset.insertedSections = Array(first..<appender.sectionCount)
        changeset.insertedSectionIDs = appender.appendedSectionIDs.map { SectionID($0) }
        let version = changeset.isEmpty ? list.version : try bumpVersion(of: list, recording: changeset, db: db)
        return Change(
            list: list.name, version: version, createdID: created ? .list(ListID(list.id)) : nil, changeset: changeset,
            committed: created || !changeset.isEmpty)
    }
}
