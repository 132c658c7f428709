import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository
@testable import Transfer

/// A journal entry of any size costs a later write nothing: the entry an import journals (its
/// whole changeset, hundreds of pages) is not read again by the commits after it, which insert
/// and prune journal entries of their own (`Migrations/0011_journal_rowid.sql`).
@Suite("The journal's cost")
struct JournalCostTests {
    @Test func aWriteAfterALargeImportReadsNoneOfTheImportsJournalEntry() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("imported.db")
        do {
            let store = try SectionStore(path: path, create: true)
            _ = try store.importRecords(
                BulkAppendTests.records(50_000, seed: 11), options: RecordsImportOptions(list: SectionStore.defaultList, titleKey: "name"))
        }
        let file = try Connection(path: path, mode: .readOnly)
        let pageSize = try #require(try file.scalarInt("PRAGMA page_size"))
        let entryBytes = try #require(try file.scalarInt("SELECT max(length(changes)) FROM journal"))
        let entryPages = Int(entryBytes / pageSize)
        // The import's entry is large: reading it would outweigh the write many times over.
        #expect(entryPages > 100, "the import journaled \(entryBytes) bytes")

        // A store opened afresh, so that nothing is in its page cache yet: one move, then what
        // its connection read from the file.
        let store = try SectionStore(path: path)
        try store.list(SectionStore.defaultList).apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        let pagesRead = try store.withConnection { db in try #require(db as? SQLiteEngine).connection.pagesRead }
        #expect(pagesRead < entryPages / 2, "a move read \(pagesRead) pages; the import's journal entry has \(entryPages)")
    }
}
