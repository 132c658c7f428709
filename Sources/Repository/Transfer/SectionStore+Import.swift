import SQLite

extension SectionStore {
    /// The list named `name`, created (at version 0) when absent.
    func listForImport(named name: String, db: Connection) throws -> (list: ListRecord, created: Bool) {
        if let list = try db.queryFirst("SELECT id, name, version FROM lists WHERE name = ?", name, row: {
            ListRecord(id: $0.int64(0), name: $0.string(1), version: $0.int64(2))
        }) {
            return (list, false)
        }
        return (try db.createListRecord(named: name), true)
    }

    /// Writes one list of a native document inside the caller's transaction.
    func importList(_ imported: NativeList, policy: ImportConflictPolicy, db: Connection) throws -> Change {
        let (list, created) = try listForImport(named: imported.name, db: db)
        var changeset = Changeset()
        let existing = try db.sectionCount(of: list)
        if existing > 0 {
            switch policy {
            case .refuse:
                throw RepositoryError.importIntoNonEmptyList(list.name, sectionCount: existing)
            case .replace:
                try db.run("DELETE FROM sections WHERE list_id = ?", list.id)
                changeset.deletedSections = Array(0..<existing)
            case .append:
                break
            }
        }
        var appender = try BulkAppender(list: list, db: db)
        let first = appender.sectionCount
        for section in imported.sections {
            try appender.appendSection(title: section.title, emptyText: section.emptyText)
            for row in section.rows {
                try appender.appendRow(row)
            }
        }
        try appender.finish()
        countPositionWrites(appender.positionWrites)
        changeset.insertedSections = Array(first..<appender.sectionCount)
        let version = changeset.isEmpty ? list.version : try bumpVersion(of: list, recording: changeset, db: db)
        return Change(list: list.name, version: version, createdID: created ? list.id : nil, changeset: changeset)
    }

    /// Writes records as sections appended to `options.list`, inside the caller's transaction.
    func importRecords(from source: RecordSource, options: RecordsImportOptions, db: Connection) throws -> Change {
        try Self.validateListName(options.list)
        let layout = try RecordLayout(options: options)
        let (list, created) = try listForImport(named: options.list, db: db)
        var appender = try BulkAppender(list: list, db: db)
        let first = appender.sectionCount
        try source.forEachRecord { record in
            let tree = try RecordTree(record, db: db)
            try appender.appendSection(title: layout.title(of: tree, number: record.number), emptyText: nil)
            try layout.forEachRow(of: tree) { try appender.appendRow($0) }
        }
        try appender.finish()
        countPositionWrites(appender.positionWrites)
        var changeset = Changeset()
        changeset.insertedSections = Array(first..<appender.sectionCount)
        let version = changeset.isEmpty ? list.version : try bumpVersion(of: list, recording: changeset, db: db)
        return Change(list: list.name, version: version, createdID: created ? list.id : nil, changeset: changeset)
    }
}
