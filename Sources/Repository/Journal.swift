import Foundation
import SQLite

/// The change journal (`Migrations/0003_journal.sql`): each committed change's changeset, kept
/// under the version it produced.
enum Journal {
    /// How many versions of each list the journal keeps, at least: asking for changes since an
    /// older version answers "reload".
    static let keptVersions: Int64 = 1_000

    /// What a journal entry holds when no changeset can say what changed.
    static let reloadJSON = #"{"reload":true}"#

    /// Marks the transaction as sectionctl's own, so the plain-SQL triggers leave its writes
    /// alone. Called first thing in every write transaction; `end` undoes it before commit.
    ///
    /// On SQLite the mark is the one row of `journal_writer` (writers take turns, so no other
    /// connection ever sees it set); on PostgreSQL, where writers to different lists run at
    /// once, it is a setting local to the transaction (`sectionctl.writer_begin()`).
    static func begin(_ db: any Database) throws {
        switch db.dialect {
        case .sqlite: try db.run("UPDATE journal_writer SET active = 1, step = step + 1 WHERE id = 1")
        case .postgres: _ = try db.scalarInt("SELECT sectionctl.writer_begin()")
        }
    }

    static func end(_ db: any Database) throws {
        // On a server the mark is local to the transaction: it ends with it.
        if db.dialect == .sqlite { try db.run("UPDATE journal_writer SET active = 0 WHERE id = 1") }
    }

    /// Bumps the list's version and records the changeset under it — or a reload, when plain SQL
    /// changed the list since its last journaled version — then drops entries past what is kept,
    /// and files the version in the list's undo history.
    /// - Returns: the new version.
    ///
    /// On a server the same steps are one call of `sectionctl.commit_change`
    /// (`Migrations/postgres/0003_commit_change.sql`): one round trip instead of about ten.
    static func commit(_ changeset: Changeset, to list: ListRecord, history: HistoryStep = .change, db: any Database) throws -> Int64 {
        if db.dialect == .postgres {
            let (kind, of): (String, Int64?) =
                switch history {
                case .change: ("change", nil)
                case .undo(let version): ("undo", version)
                case .redo(let version): ("redo", version)
                }
            return try db.scalarInt(
                "SELECT sectionctl.commit_change(?, ?, ?, ?)", list.id, changeset.journalJSON, kind, of)!
        }
        let journaled = try db.scalarInt("SELECT journaled FROM lists WHERE id = ?", list.id) == 1
        let version = try db.queryFirst(
            "UPDATE lists SET version = version + 1, journaled = 1 WHERE id = ? RETURNING version", list.id
        ) { $0.int64(0) }!
        try db.run(
            "INSERT INTO journal (list_id, version, changes) VALUES (?, ?, ?)", list.id, version,
            journaled ? changeset.journalJSON : reloadJSON)
        try db.run("DELETE FROM journal WHERE list_id = ? AND version <= ?", list.id, version - keptVersions)
        try record(history, version: version, of: list, db: db)
        return version
    }
}

/// What changed in a list since a version: one changeset, or "reload".
public struct ListChanges: Hashable, Sendable {
    /// The list's stable id.
    public var listID: Int64
    /// The list's name.
    public var list: String
    /// The version asked about.
    public var from: Int64
    /// The list's current version.
    public var version: Int64
    /// One changeset from `from` to `version` (empty when they are equal); `nil` when the caller
    /// must reload: `from` is older than the journal keeps, newer than the list, or plain SQL
    /// changed the list in between.
    public var changeset: Changeset?

    /// Creates an answer.
    public init(listID: Int64, list: String, from: Int64, version: Int64, changeset: Changeset?) {
        self.listID = listID
        self.list = list
        self.from = from
        self.version = version
        self.changeset = changeset
    }

    /// Whether the caller must read the list afresh.
    public var isReload: Bool { changeset == nil }
}

extension SectionStore {
    /// What changed in the list since `version`, as one changeset composed from the journal's
    /// entries — or a reload, never a wrong changeset, when the journal cannot say: `version` is
    /// older than the last 1,000 versions it keeps, newer than the list's, or plain SQL changed
    /// the list in between.
    /// - Complexity: O(entries since `version` × their size).
    public func changes(of list: String = SectionStore.defaultList, since version: Int64) throws -> ListChanges {
        try read { db in
            let record = try db.listRecord(named: list)
            var answer = ListChanges(listID: record.id, list: record.name, from: version, version: record.version, changeset: nil)
            let journaled = try db.scalarInt("SELECT journaled FROM lists WHERE id = ?", record.id) == 1
            guard journaled, version <= record.version, version >= 0 else { return answer }
            let entries = try db.query(
                "SELECT version, changes FROM journal WHERE list_id = ? AND version > ? ORDER BY version", record.id, version
            ) { ($0.int64(0), $0.string(1)) }
            guard entries.count == Int(record.version - version), entries.first.map({ $0.0 == version + 1 }) ?? true else {
                return answer  // pruned, or versions the journal never saw (a list made before it existed)
            }
            var changesets: [Changeset] = []
            for entry in entries {
                guard let changeset = Changeset(journalJSON: entry.1) else { return answer }
                changesets.append(changeset)
            }
            answer.changeset = Changeset(composing: changesets)
            return answer
        }
    }
}
