/// The `journal` table (`Migrations/0003_journal.sql`): every read and write of it goes
/// through here.
extension SQLExecutor {
    /// The list's entries after `version` up to `last` (all there are when `nil`), oldest first,
    /// as (version, changes JSON).
    func journalEntries(list: Int64, after version: ListVersion, through last: ListVersion? = nil) throws
        -> [(version: ListVersion, changes: String)]
    {
        try query(
            "SELECT version, changes FROM journal WHERE list_id = ? AND version > ? AND version <= ? ORDER BY version",
            list, version.rawValue, last?.rawValue ?? Int64.max
        ) { ($0.listVersion(0), $0.string(1)) }
    }

    /// The changes JSON journaled at `version` of the list, if the journal still holds it.
    func journalEntry(list: Int64, version: ListVersion) throws -> String? {
        try queryFirst("SELECT changes FROM journal WHERE list_id = ? AND version = ?", list, version.rawValue) { $0.string(0) }
    }

    func appendJournalEntry(list: Int64, version: ListVersion, changes: String) throws {
        try run("INSERT INTO journal (list_id, version, changes) VALUES (?, ?, ?)", list, version.rawValue, changes)
    }

    /// Drops the list's entries at `version` and before.
    func pruneJournal(list: Int64, through version: ListVersion) throws {
        try run("DELETE FROM journal WHERE list_id = ? AND version <= ?", list, version.rawValue)
    }
}
