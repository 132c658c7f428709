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
        let ambiguous = RepositoryError.ambiguousSectionTitle("Same", ids: (1...20_000).map(Int64.init)).description
        #expect(ambiguous == "20000 sections are titled \"Same\" (#1, #2, #3, #4, #5, #6, #7, #8, #9, #10 and 19990 more); name one by index or #ID")
    }

    /// Without `RepositoryPostgres` registered, a server location is refused before any
    /// connection, by a message that names the product to add and shows no secret.
    @Test func aServerWithoutServerSupportNamesTheProductAndHidesTheConnectionString() throws {
        let location = StoreLocation.server(connectionString: "postgresql://ada:s3cret@db.example.com/team")
        #expect(throws: RepositoryError.serverSupportMissing(location: location.description, product: "RepositoryPostgres")) {
            try ServerBackends.required(for: location, registered: nil)
        }
        #expect(!location.description.contains("s3cret"))
        #expect(StoreLocation.placeholder(for: "postgresql://ada:s3cret@db/team") == "postgresql://… (not shown)")
        #expect(StoreLocation.placeholder(for: "host=db password=s3cret") == "a connection string (not shown)")
        let message = RepositoryError.serverSupportMissing(location: "postgresql://… (not shown)", product: "RepositoryPostgres").description
        #expect(message == "postgresql://… (not shown) names a PostgreSQL server, and this program was built without server support: "
            + "link the RepositoryPostgres product and call PostgreSQLBackend.register() before opening it, or use a SQLite file")
    }
}
