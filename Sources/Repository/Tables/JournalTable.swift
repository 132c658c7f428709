/// The `journal` table (`Migrations/0003_journal.sql`): every read and write of it goes
/// through here.
extension SQLExecutor {
    /// The list's entries after `version` up to `last` (all there are when `nil`), oldest first,
    /// as (version, changes JSON).
    func journalEntries(list: Int64, after version: Int64, through last: Int64? = nil) throws -> [(version: Int64, changes: String)] {
        try query(
            "SELECT version, changes FROM journal WHERE list_id = ? AND version > ? AND version <= ? ORDER BY version",
            list, version, last ?? Int64.max
        ) { ($0.int64(0), $0.string(1)) }
    }

    /// The changes JSON journaled at `version` of the list, if the journal still holds it.
    func journalEntry(list: Int64, version: Int64) throws -> String? {
        try queryFirst("SELECT changes FROM journal WHERE list_id = ? AND version = ?", list, version) { $0.string(0) }
    }

    func appendJournalEntry(list: Int64, version: Int64, changes: String) throws {
        try run("INSERT INTO journal (list_id, version, changes) VALUES (?, ?, ?)", list, version, changes)
    }

    /// Drops the list's entries at `version` and before.
    func pruneJournal(list: Int64, through version: Int64) throws {
        try run("DELETE FROM journal WHERE list_id = ? AND version <= ?", list, version)
    }
}
