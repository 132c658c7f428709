import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository
@testable import Transfer

/// A journal entry of any size costs a later write nothing: the entry an import journals is
/// kept as runs of indexes and ids (`Changeset.journalJSON`), a hundred bytes whatever the
/// import's size, in a table whose seeks read no payload (`Migrations/0011_journal_rowid.sql`);
/// and its undo step is one entry for the run of sections it added
/// (`Migrations/0013_compact_bulk_history.sql`). So neither the write that drops the import's
/// undo step (the list's 101st version) nor the one that prunes its journal entry (its 1,001st)
/// reads what the import wrote.
@Suite("The journal's cost")
struct JournalCostTests {
    /// A file holding one list, "default", made by importing `count` records (one section each).
    static func importedFile(_ count: Int, in directory: TemporaryDirectory) throws -> (path: String, change: Change) {
        let path = directory.path("imported.db")
        let store = try SectionStore(path: path, create: true)
        let change = try store.importRecords(
            BulkAppendTests.records(count, seed: 11), options: RecordsImportOptions(list: SectionStore.defaultList, titleKey: "name"))
        return (path, change)
    }

    /// The pages `store`'s connection has read from its file since it opened.
    static func pagesRead(_ store: SectionStore) throws -> Int {
        try store.withConnection { db in try #require(db as? SQLiteEngine).connection.pagesRead }
    }

    @Test func anImportsJournalEntryIsCompactAndReadsBackWhole() throws {
        let directory = try TemporaryDirectory()
        let (path, change) = try Self.importedFile(5_000, in: directory)
        let file = try Connection(path: path, mode: .readOnly)
        let entry = try #require(try file.queryFirst("SELECT changes FROM journal WHERE version = ?", change.version.rawValue) { $0.string(0) })
        #expect(entry.hasPrefix(#"{"runs":{"sections":{"deleted":[],"inserted":[[0,4999]]},"ids":{"deleted":[],"inserted":[["#), "\(entry)")
        #expect(entry.utf8.count < 200)
        let store = try SectionStore(path: path)
        let read = try #require(try store.list(SectionStore.defaultList).changes(since: change.version.previous).changeset)
        #expect(read == change.changeset)
        #expect(read.insertedSectionIDs.count == 5_000)
    }

    /// One move after another in a list of 50,000 imported sections, in a store opened afresh (so
    /// that nothing the import wrote is in its page cache): the 100th drops the import's undo
    /// step, the 1,000th prunes its journal entry, and neither reads more than any other write
    /// does when its pages are not cached. Before, the two read every page of the import's 50,000
    /// undo entries (hundreds of pages) and of its 0.6 MB journal entry.
    @Test func theWritesThatDropAnImportsUndoStepAndJournalEntryReadFewPages() throws {
        let directory = try TemporaryDirectory()
        let (path, change) = try Self.importedFile(50_000, in: directory)
        let store = try SectionStore(path: path)
        let list = store.list(SectionStore.defaultList)
        var pages: [Int] = []
        var before = try Self.pagesRead(store)
        for write in 1...Int(Journal.keptVersions) {
            try list.apply(write % 2 == 1 ? .moveRow(.at(0, 0), to: .at(1, 0)) : .moveRow(.at(1, 0), to: .at(0, 0)))
            let now = try Self.pagesRead(store)
            pages.append(now - before)
            before = now
        }
        let dropsUndoStep = pages[Journal.keptUndoSteps - 1]
        let prunesJournal = pages[Int(Journal.keptVersions) - 1]
        // A move here reads a few pages at most once its path is cached; a write that read the
        // import's undo entries or journal entry would read hundreds.
        #expect(dropsUndoStep <= 20, "the write that dropped the import's undo step read \(dropsUndoStep) pages")
        #expect(prunesJournal <= 20, "the write that pruned the import's journal entry read \(prunesJournal) pages")
        #expect(try store.read { db in try db.historyStep(.undo, list: 1, version: change.version) } == nil)
        #expect(try store.read { db in try db.journalEntry(list: 1, version: change.version) } == nil)
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
