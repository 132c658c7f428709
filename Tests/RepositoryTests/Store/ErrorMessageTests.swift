import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

/// Messages that list names stay one short line however many names there are.
@Suite struct ErrorMessageTests {
    @Test func aListOfNamesShowsTheFirstTenAndCountsTheRest() {
        let names = (0..<20_000).map { "list \($0)" }
        let first = (0..<10).map { "\"list \($0)\"" }.joined(separator: ", ")
        #expect(RepositoryError.listNotFound("x", available: names).description == "no list named \"x\" (lists: \(first) and 19990 more)")
        #expect(RepositoryError.listNotFound("x", available: Array(names.prefix(10))).description == "no list named \"x\" (lists: \(first))")
        #expect(RepositoryError.listNotFound("x", available: Array(names.prefix(11))).description.hasSuffix(#""list 9" and 1 more)"#))
    }

    @Test func sectionTitlesAndIdsAreCappedAndLongTitlesCut() {
        let titles = [String(repeating: "é", count: 100_000)] + (1..<20_000).map { "T\($0)" }
        let message = RepositoryError.sectionNotFound(.title("Nope"), list: "l", titles: titles).description
        #expect(message.hasPrefix("no section titled \"Nope\" in list \"l\" (sections: \"" + String(repeating: "é", count: 20) + "…\", \"T1\""))
        #expect(message.hasSuffix("\"T9\" and 19990 more)"))
        #expect(message.utf8.count < 300)
        let ambiguous = RepositoryError.ambiguousSectionTitle("Same", ids: (1...20_000).map { SectionID(Int64($0)) }).description
        #expect(ambiguous == "20000 sections are titled \"Same\" (#1, #2, #3, #4, #5, #6, #7, #8, #9, #10 and 19990 more); name one by index or #ID")
    }

    /// Opened without server support (`server: .postgres`, from `RepositoryPostgres`), a server
    /// location is refused before any connection (the host does not exist), by a message that
    /// names the product to add and shows no secret; so is its watcher.
    @Test func aServerWithoutServerSupportNamesTheProductAndHidesTheConnectionString() throws {
        let location = StoreLocation.server(connectionString: "postgresql://ada:s3cret@db.example.invalid/team")
        let refusal = RepositoryError.serverSupportMissing(location: location.description, product: "RepositoryPostgres")
        #expect(throws: refusal) { try SectionStore(location: location, create: true) }
        #expect(throws: refusal) { try ListWatcher(location: location, list: "default") }
        #expect(SectionStore.schemaVersion(at: location) == nil)
        #expect(!location.description.contains("s3cret"))
        #expect(StoreLocation.placeholder(for: "postgresql://ada:s3cret@db/team") == "postgresql://… (not shown)")
        #expect(StoreLocation.placeholder(for: "host=db password=s3cret") == "a connection string (not shown)")
        let message = RepositoryError.serverSupportMissing(location: "postgresql://… (not shown)", product: "RepositoryPostgres").description
        #expect(
            message == "postgresql://… (not shown) names a PostgreSQL server, and this program was built without server support: "
                + "link the RepositoryPostgres product and open the store with server: .postgres, or use a SQLite file")
    }
}

/// Each failure is a case of its own carrying its values, so a caller tells them apart without
/// reading text, and the engine's failures keep what a program needs to log them.
@Suite struct ErrorValueTests {
    @Test func anEngineFailureKeepsItsCodeMessageAndStatement() throws {
        let fixture = try StoreFixture()
        try fixture.list.apply(.addSection(title: "A"))
        // As the sqlite3 shell would (its triggers go with it).
        try Connection(path: fixture.path, mode: .readWrite).execute(script: "DROP TABLE journal")
        do {
            _ = try fixture.list.changes(since: 0)
            Issue.record("a read of a dropped table succeeded")
        } catch RepositoryError.database(let code, let message, let sql) {
            #expect(code == 1, "SQLITE_ERROR")
            #expect(message.contains("journal"))
            #expect(try #require(sql).contains("journal"), "the statement that failed")
        }
    }

    @Test func refusalsOfTheCallersValuesAreCasesWithTheirValues() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        #expect(throws: RepositoryError.emptyListName) { try store.createList(named: "") }
        #expect(throws: RepositoryError.listNameContainsNUL("a\u{0}")) { try store.createList(named: "a\u{0}") }
        let long = String(repeating: "x", count: SectionStore.maximumTextLength + 1)
        #expect(throws: RepositoryError.textTooLong(what: "the section title", bytes: long.utf8.count, limit: SectionStore.maximumTextLength)) {
            try store.list("default").apply(.addSection(title: long))
        }
        #expect(throws: RepositoryError.negativeWindowLimit(-3)) { try store.list("default").window(from: RowPath(section: 0, row: 0), limit: -3) }
        #expect(throws: RepositoryError.unsupportedURL(scheme: "ftp")) { try SectionStore(url: try #require(URL(string: "ftp://host/a.db"))) }
        #expect(RepositoryError.unsupportedURL(scheme: nil).description.hasPrefix("a URL without a scheme is not a database location"))
        #expect(
            RepositoryError.migrationBreaksForeignKeys(migration: "0007_x", tables: ["rows", "sections"]).description
                == "migration 0007_x breaks foreign keys in: rows, sections")
    }
}
