import Foundation

/// The change journal (`Migrations/0003_journal.sql`): each committed change's changeset, kept
/// under the version it produced.
enum Journal {
    /// How many versions of each list the journal keeps, at least: asking for changes since an
    /// older version answers "reload".
    static let keptVersions = Int64(SchemaConstants.journalKeptVersions)

    /// What a journal entry holds when no changeset can say what changed.
    static let reloadJSON = SchemaConstants.journalReload

    /// Bumps the list's version and records the changeset under it (in the compact form of a bulk
    /// change where it applies: `Changeset.journalJSON`) — or a reload, when plain SQL
    /// changed the list since its last journaled version — then drops entries past what is kept,
    /// and files the version in the list's undo history (`Database.commitChange`). The store's
    /// commit hook runs first, where it has one (`SectionStore.commitHook(db:)`).
    /// - Returns: the new version.
    static func commit(
        _ changeset: Changeset, to list: ListRecord, history: HistoryStep = .change, db: any Database, store: SectionStore
    ) throws -> ListVersion {
        try store.commitHook(db: db)?(changeset, list, db, store)
        return try db.commitChange(changeset.journalJSON, to: list, history: history)
    }
}

/// What changed in a list since a version: one changeset, or "reload".
public struct ListChanges: Hashable, Sendable {
    /// The list's stable id.
    public var listID: ListID
    /// The list's name.
    public var list: String
    /// The version asked about.
    public var from: ListVersion
    /// The list's current version.
    public var version: ListVersion
    /// One changeset from `from` to `version` (empty when they are equal); `nil` when the caller
    /// must reload: `from` is older than the journal keeps, newer than the list, or plain SQL
    /// changed the list in between.
    public var changeset: Changeset?

    /// Creates an answer.
    public init(listID: ListID, list: String, from: ListVersion, version: ListVersion, changeset: Changeset?) {
        self.listID = listID
        self.list = list
        self.from = from
        self.version = version
        self.changeset = changeset
    }

    /// Whether the caller must read the list afresh.
    public var isReload: Bool { changeset == nil }
}

extension ListHandle {
    /// What changed in the list since `version`, as one changeset composed from the journal's
    /// entries — or a reload, never a wrong changeset, when the journal cannot say: `version` is
    /// older than the last 1,000 versions it keeps, newer than the list's, or plain SQL changed
    /// the list in between.
    /// - Complexity: O(entries since `version` × their size).
    public func changes(since version: ListVersion) throws -> ListChanges {
        let name = name
        return try store.read { db in
            let record = try db.listRecord(named: name)
            var answer = ListChanges(listID: ListID(record.id), list: record.name, from: version, version: record.version, changeset: nil)
            guard try db.isJournaled(listID: record.id), version <= record.version, version >= 0 else { return answer }
            let entries = try db.journalEntries(list: record.id, after: version)
            guard entries.count == Int(version.distance(to: record.version)), entries.first.map({ $0.0 == version.next }) ?? true else {
                return answer  // pruned, or versions the journal never saw (a list made before it existed)
            }
            var changesets: [Changeset] = []
            for entry in entries {
                guard let changeset = try? Changeset(json: entry.1) else { return answer }
                changesets.append(changeset)
            }
            answer.changeset = Changeset(composing: changesets)
            return answer
        }
    }
}
