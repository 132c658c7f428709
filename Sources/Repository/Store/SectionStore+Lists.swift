extension SectionStore {
    /// Every list, by name.
    public func lists() throws -> [ListSummary] {
        try read { db in
            try db.listSummaries().map {
                ListSummary(id: ListID($0.id), name: $0.name, version: $0.version, sectionCount: $0.sections, rowCount: $0.rows)
            }
        }
    }

    /// Creates an empty list. Its version starts at 0 — or, when a list of that name existed and
    /// was deleted, just past the last version that one reached, so a list name and a version
    /// always name one state. Names are compared byte for byte, as SQLite compares them: "é"
    /// (U+00E9) and "é" (e + U+0301) are two names.
    /// - Throws: `RepositoryError.emptyListName`, `.listNameContainsNUL` or `.textTooLong` for a
    ///   name that is empty, holds NUL or is longer than `maximumTextLength`; `RepositoryError.listExists` when the name is taken.
    @discardableResult
    public func createList(named name: String) throws -> Change {
        try Self.validateListName(name)
        return try write { db in
            if try db.listExists(named: name) { throw RepositoryError.listExists(name) }
            let list = try db.createListRecord(named: name)
            return Change(list: name, version: list.version, createdID: .list(ListID(list.id)))
        }
    }

    /// Renames a list. Counts as a change to it: its version grows by one. A rename to the name
    /// it has commits nothing (`Change.committed` is false).
    /// - Throws: `RepositoryError.emptyListName`, `.listNameContainsNUL` or `.textTooLong` for a
    ///   new name that is empty, holds NUL or is longer than `maximumTextLength`;
    ///   `RepositoryError.listExists` when it is taken.
    @discardableResult
    public func renameList(_ name: String, to newName: String) throws -> Change {
        try Self.validateListName(newName)
        return try write { db in
            let list = try db.listRecord(named: name)
            // Names are compared byte for byte, as SQLite does: "é" (U+00E9) and "e" + U+0301
            // are different names.
            guard !newName.utf8.elementsEqual(name.utf8) else {
                return Change(list: name, version: list.version, committed: false)
            }
            if try db.listExists(named: newName) { throw RepositoryError.listExists(newName) }
            try db.renameList(list, to: newName)
            // A retired name moves the list's version past the versions it had (`createList`):
            // the version is bumped from where the rename left it.
            let renamed = try db.listRecord(id: list.id)
            return Change(list: newName, version: try bumpVersion(of: renamed, recording: Changeset(), db: db))
        }
    }

    /// Deletes a list with its sections and rows; refused while it has sections unless `force`.
    /// The changeset lists every section as deleted.
    @discardableResult
    public func deleteList(_ name: String, force: Bool = false) throws -> Change {
        try write { db in
            let list = try db.listRecord(named: name)
            if try db.replicaRecord()?.listID == list.id {
                throw RepositoryError.replica(.cannotRecord(what: "deleting the list a replica mirrors"))
            }
            let count = try db.sectionCount(of: list)
            guard count == 0 || force else { throw RepositoryError.listNotEmpty(name, sectionCount: count) }
            let sectionIDs = try db.sectionRecords(of: list).map(\.id)
            try db.deleteList(list)
            var changeset = Changeset()
            changeset.deletedSections = Array(0..<count)
            changeset.deletedSectionIDs = sectionIDs.map { SectionID($0) }
            return Change(list: name, version: list.version.next, changeset: changeset)
        }
    }

    package static func validateListName(_ name: String) throws {
        guard !name.isEmpty else { throw RepositoryError.emptyListName }
        guard !name.utf8.contains(0) else {
            throw RepositoryError.listNameContainsNUL(name)
        }
        try validateText(name, "the list name")
    }
}

extension ListHandle {
    /// The list's sections and rows in order, as one consistent snapshot, with the version it
    /// holds. In an `editing` snapshot, empty sections show their footer.
    /// - Parameters:
    ///   - editing: whether to read as an editing view does (empty sections then show their footer).
    ///   - expected: when given, the version the list must be at: at any other, the read
    ///     throws `RepositoryError.listMovedOn` and reads nothing.
    /// - Complexity: O(n + s) time and memory for n rows and s sections; `forEachItem` reads in
    ///   O(1) memory.
    public func snapshot(editing: Bool = false, atVersion expected: ListVersion? = nil) throws -> ListSnapshot {
        try readList(atVersion: expected) { db, record in try db.snapshot(of: record, editing: editing) }
    }
}

extension Database {
    func snapshot(of list: ListRecord, editing: Bool) throws -> ListSnapshot {
        var sections: [Section] = []
        try forEachSectionAndRow(of: list) { section, row in
            if sections.last?.id != SectionID(section.id) {
                sections.append(Section(id: SectionID(section.id), title: section.title, emptyText: section.emptyText))
            }
            if let row { sections[sections.count - 1].rows.append(row) }
        }
        return ListSnapshot(name: list.name, version: list.version, isEditing: editing, sections: sections, listID: ListID(list.id))
    }
}
