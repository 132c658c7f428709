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
}
