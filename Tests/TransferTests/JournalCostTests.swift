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

/// An import's bookkeeping reads the rows it wrote and not the ones the file held before: a
/// small import into a file of many rows reads about what it reads in an empty file.
@Suite("An import's cost")
struct ImportCostTests {
    /// The pages a fresh store's connection reads importing a list of 10 rows into the file at
    /// `path` (made beforehand).
    static func pagesReadImportingTenRows(into path: String) throws -> Int {
        let store = try SectionStore(path: path)
        let rows = (0..<10).map { #"{"title":"row \#($0)"}"# }.joined(separator: ",")
        _ = try store.importJSON(Data(#"{"lists":[{"name":"small","sections":[{"title":"Small","rows":[\#(rows)]}]}]}"#.utf8))
        return try store.withConnection { db in try #require(db as? SQLiteEngine).connection.pagesRead }
    }

    @Test func aSmallImportReadsNoneOfTheRowsTheFileHeldBefore() throws {
        let directory = try TemporaryDirectory()
        let empty = directory.path("empty.db")
        let full = directory.path("full.db")
        _ = try SectionStore(path: empty, create: true)
        do {
            let store = try SectionStore(path: full, create: true)
            _ = try store.importRecords(
                BulkAppendTests.records(60_000, seed: 12), options: RecordsImportOptions(list: SectionStore.defaultList, titleKey: "name"))
        }
        let fullPages = try #require(try Connection(path: full, mode: .readOnly).scalarInt("PRAGMA page_count"))
        let intoEmpty = try Self.pagesReadImportingTenRows(into: empty)
        let intoFull = try Self.pagesReadImportingTenRows(into: full)
        // A scan of the rows' index alone would read hundreds of pages.
        #expect(fullPages > 2_000, "the file has \(fullPages) pages")
        #expect(intoFull < intoEmpty + 60, "into the full file: \(intoFull) pages read; into the empty one: \(intoEmpty)")
    }
}
