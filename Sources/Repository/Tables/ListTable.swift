/// A list as stored.
package struct ListRecord {
    package let id: Int64
    package let name: String
    package let version: ListVersion

    /// The columns `init(_:)` reads, in order.
    package static let columns = "id, name, version"

    /// A list read from a statement's `columns`.
    package init(_ statement: any ResultRow) {
        self.init(id: statement.int64(0), name: statement.string(1), version: statement.listVersion(2))
    }

    package init(id: Int64, name: String, version: ListVersion) {
        self.id = id
        self.name = name
        self.version = version
    }
}

/// The `lists` table: every read and write of it goes through here.
extension SQLExecutor {
    /// The list with this name, if there is one.
    /// Inside a write on PostgreSQL, the list's row is locked until the transaction ends: the
    /// lock that serializes writes to one list.
    package func listRecordIfAny(named name: String) throws -> ListRecord? {
        try queryFirst("SELECT \(ListRecord.columns) FROM lists WHERE name = ?\(listLock)", name, row: ListRecord.init)
    }

    /// The list with this name, or `RepositoryError.listNotFound` naming the lists there are.
    package func listRecord(named name: String) throws -> ListRecord {
        if let record = try listRecordIfAny(named: name) { return record }
        throw RepositoryError.listNotFound(name, available: try query("SELECT name FROM lists ORDER BY name") { $0.string(0) })
    }

    /// The list with this id, if it still exists.
    package func listRecordIfAny(id: Int64) throws -> ListRecord? {
        try queryFirst("SELECT \(ListRecord.columns) FROM lists WHERE id = ?\(listLock)", id, row: ListRecord.init)
    }

    /// What locks the list's row where writers to one list take turns on it.
    private var listLock: String { listLockClause }

    /// The list with this id (it must exist).
    package func listRecord(id: Int64) throws -> ListRecord { try listRecordIfAny(id: id)! }

    /// Every list, by name.
    package func listRecords() throws -> [ListRecord] {
        try query("SELECT \(ListRecord.columns) FROM lists ORDER BY name", row: ListRecord.init)
    }

    /// Whether a list has this name.
    package func listExists(named name: String) throws -> Bool {
        try scalarInt("SELECT count(*) FROM lists WHERE name = ?", name) != 0
    }

    /// Inserts a list and reads it back (its first version may be past 0: see `createList`).
    package func createListRecord(named name: String) throws -> ListRecord {
        let id = try queryFirst("INSERT INTO lists (name) VALUES (?) RETURNING id", name) { $0.int64(0) }!
        return try listRecord(id: id)
    }

    package func renameList(_ list: ListRecord, to name: String) throws {
        try run("UPDATE lists SET name = ? WHERE id = ?", name, list.id)
    }

    /// Renames the list with this id, unless another list has the name. Returns how many lists
    /// it renamed.
    package func renameList(id: Int64, toUnused name: String?) throws -> Int {
        if try scalarInt("SELECT count(*) FROM lists WHERE name = ? AND id <> ?", name, id) != 0 { return 0 }
        return try run("UPDATE lists SET name = ? WHERE id = ?", name, id)
    }

    package func deleteList(_ list: ListRecord) throws {
        try run("DELETE FROM lists WHERE id = ?", list.id)
    }
}

/// The `lists` table's version bookkeeping.
extension SQLExecutor {
    /// Whether every change to the list since its last version was sectionctl's own (0 once
    /// plain SQL changed it: the triggers of `Migrations/0003_journal.sql` clear it).
    func isJournaled(listID: Int64) throws -> Bool {
        try scalarInt("SELECT journaled FROM lists WHERE id = ?", listID) == 1
    }

    /// The list's undo barrier: the last version plain SQL (or `repair`) made. No change made at
    /// or before it can be undone or redone.
    func plainVersion(ofList id: Int64) throws -> ListVersion {
        ListVersion(rawValue: try scalarInt("SELECT plain_version FROM lists WHERE id = ?", id) ?? 0)
    }

    /// The list's name, version and journaled flag; `nil` once it is deleted.
    func listState(id: Int64) throws -> (name: String, version: ListVersion, journaled: Bool)? {
        try queryFirst("SELECT name, version, journaled FROM lists WHERE id = ?", id) { ($0.string(0), $0.listVersion(1), $0.int(2) == 1) }
    }

    /// Bumps the list's version and marks it journaled again.
    /// - Returns: the new version, and whether the list was journaled before (if not, plain SQL
    ///   changed it since its last version).
    package func bumpVersion(of list: ListRecord) throws -> (number: ListVersion, wasJournaled: Bool) {
        let journaled = try isJournaled(listID: list.id)
        let version = try queryFirst(
            "UPDATE lists SET version = version + 1, journaled = 1 WHERE id = ? RETURNING version", list.id
        ) { $0.listVersion(0) }!
        return (version, journaled)
    }
}

/// Naming a state no changeset describes.
extension SQLExecutor {
    /// Gives the list a new version journaled as a reload, so that every view of it and every
    /// `changes --since` reads it afresh, and raises its undo barrier to it: what plain SQL's
    /// triggers do for a write made outside sectionctl (`Migrations/0005_guards.sql`), and what
    /// `repair` does for a list it mended.
    /// - Returns: the new version, or `nil` when no list has this id.
    @discardableResult
    func markListForReload(id: Int64) throws -> ListVersion? {
        guard
            let version = try queryFirst(
                "UPDATE lists SET version = version + 1, plain_version = version + 1, journaled = 1 WHERE id = ? RETURNING version", id,
                row: { $0.listVersion(0) })
        else { return nil }
        try run("DELETE FROM journal WHERE list_id = ? AND version = ?", id, version.rawValue)
        try appendJournalEntry(list: id, version: version, changes: Journal.reloadJSON)
        return version
    }
}

/// Reading a list version from a column: the one place a stored version number becomes a
/// `ListVersion`.
extension ResultRow {
    /// The list version in this column.
    package func listVersion(_ column: Int32) -> ListVersion { ListVersion(rawValue: int64(column)) }

    /// The list version in this column, or `nil` when it is `NULL`.
    package func optionalListVersion(_ column: Int32) -> ListVersion? { optionalInt64(column).map(ListVersion.init(rawValue:)) }
}
