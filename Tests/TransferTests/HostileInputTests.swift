import Foundation
import Testing

@testable import Repository
@testable import Transfer

/// Input shaped to break things: lines without end, names that only differ in their bytes, NUL
/// in names, marks that glue themselves to braces.
@Suite("Hostile input")
struct HostileInputTests {
    /// Two spellings of "é": one scalar, and "e" with a combining acute accent. Swift's `==`
    /// calls them equal; SQLite, comparing bytes, does not.
    static let composed = "\u{E9}"
    static let decomposed = "e\u{301}"

    private func bytes(_ text: String) -> [UInt8] { Array(text.utf8) }

    // MARK: Lines without end

    @Test func aRecordsLineLongerThanTheLimitIsRefusedNamingItsLine() throws {
        let fixture = try TransferFixture()
        try fixture.store.addSection("Existing")
        let before = try fixture.state()
        var input = Data("{\"a\": 1}\n{\"b\": \"".utf8)
        input.append(Data(repeating: UInt8(ascii: "x"), count: 8_000_000))
        input.append(Data("\"}\n{\"c\": 3}\n".utf8))
        let message = invalidDataMessage {
            try fixture.store.importRecords(lines: fixture.fileHandle("long.jsonl", contents: input), options: RecordsImportOptions(list: "default"))
        }
        #expect(message == "invalid records at line 2: the line is longer than 8000000 bytes, the most a record's line may have")
        #expect(try fixture.state() == before)
    }

    @Test func aLineWithoutALineFeedIsRefusedOnceItPassesTheLimit() throws {
        // The unfinished line is refused as soon as the limit is passed, before the input ends.
        let fixture = try TransferFixture()
        var input = Data("{\"a\": 1}\n\n".utf8)
        input.append(Data(repeating: UInt8(ascii: " "), count: 8_000_000 + 1))
        let message = invalidDataMessage {
            try fixture.store.importRecords(
                lines: fixture.fileHandle("endless.jsonl", contents: input), options: RecordsImportOptions(list: "default"))
        }
        #expect(message.hasPrefix("invalid records at line 3: the line is longer than"))
        #expect(try fixture.store.lists().map(\.name) == ["default"])
        #expect(try fixture.list.snapshot().sections.isEmpty)
    }

    @Test func aLineAtTheLimitIsRead() throws {
        let fixture = try TransferFixture()
        let prefix = "{\"a\": \"v\", \"pad\": null}"
        let line = prefix + String(repeating: " ", count: 8_000_000 - prefix.utf8.count)
        try fixture.store.importRecords(
            lines: fixture.fileHandle("limit.jsonl", contents: Data((line + "\n" + line).utf8)), options: RecordsImportOptions(list: "default"))
        #expect(try fixture.list.snapshot().sections.count == 2)
    }

    // MARK: Names compared byte for byte

    @Test func listsWhoseNamesDifferOnlyInTheirBytesSurviveAnExportAndImport() throws {
        let fixture = try TransferFixture()
        try fixture.store.createList(named: Self.composed)
        try fixture.store.createList(named: Self.decomposed)
        try fixture.store.addSection("composed", to: Self.composed)
        try fixture.store.addSection("decomposed", to: Self.decomposed)
        let exported = try fixture.store.exportAllJSON()

        let other = try fixture.freshStore("other.db")
        try other.importJSON(Data(exported.utf8))
        let names = try other.lists().map { bytes($0.name) }
        #expect(Set(names) == Set([bytes("default"), bytes(Self.composed), bytes(Self.decomposed)]))
        #expect(try other.list(Self.composed).snapshot().sections.map(\.title) == ["composed"])
        #expect(try other.list(Self.decomposed).snapshot().sections.map(\.title) == ["decomposed"])
        #expect(try other.exportAllJSON() == exported)
    }

    @Test func aListNamedTwiceByteForByteIsStillRefused() throws {
        let document = #"{"format": "sectionctl", "version": 1, "lists": [{"name": "e\u0301", "sections": []}, {"name": "e\u0301", "sections": []}]}"#
        let fixture = try TransferFixture()
        let message = invalidDataMessage { try fixture.store.importJSON(Data(document.utf8)) }
        #expect(message.hasPrefix("$.lists[1].name: the list"))
    }

    @Test func renamingToAnotherSpellingRenames() throws {
        let fixture = try TransferFixture()
        try fixture.store.createList(named: Self.composed)
        let change = try fixture.store.renameList(Self.composed, to: Self.decomposed)
        #expect(change.version == 1)
        #expect(try fixture.store.lists().map { bytes($0.name) }.contains(bytes(Self.decomposed)))
        #expect(try !fixture.store.lists().map { bytes($0.name) }.contains(bytes(Self.composed)))
    }

    @Test func templateKeysAndTheTitleKeyMatchByteForByte() throws {
        let fixture = try TransferFixture()
        let record = "[{\"\(Self.decomposed)\": \"decomposed\", \"\(Self.composed)\": \"composed\"}]"
        // Both spellings may be listed: they are two keys.
        let template = try RecordTemplate(json: Data("{\"fields\": [\"\(Self.composed)\"], \"unlisted\": \"drop\"}".utf8))
        try fixture.store.importRecords(
            Data(record.utf8), options: RecordsImportOptions(list: "t", titleKey: Self.composed, template: template))
        let section = try #require(try fixture.store.list("t").snapshot().sections.first)
        #expect(section.title == "composed")
        #expect(section.rows.map { bytes($0.title) } == [bytes(Self.composed)])
        #expect(section.rows.map(\.value) == ["composed"])

        let both = try RecordTemplate(json: Data("{\"fields\": [\"\(Self.composed)\", \"\(Self.decomposed)\"]}".utf8))
        #expect(both.fields.map { bytes($0.key) } == [bytes(Self.composed), bytes(Self.decomposed)])
        let titled = try RecordTemplate(json: Data("{\"title\": \"{\(Self.decomposed)}\"}".utf8))
        try fixture.store.importRecords(Data(record.utf8), options: RecordsImportOptions(list: "u", template: titled))
        #expect(try fixture.store.list("u").snapshot().sections.map(\.title) == ["decomposed"])
    }

    @Test func aTemplateMemberNamedTwiceByteForByteIsRefused() throws {
        let message = invalidDataMessage {
            _ = try RecordTemplate(json: Data("{\"fields\": [\"\(Self.decomposed)\", \"\(Self.decomposed)\"]}".utf8))
        }
        #expect(message.contains("is listed twice"))
    }

    // MARK: NUL in names

    @Test func nulInAListNameIsRefusedWithItsPath() throws {
        for name in [#"\u0000"#, #"a\u0000b"#] {
            let fixture = try TransferFixture()
            let before = try fixture.state()
            let document =
                #"{"format": "sectionctl", "version": 1, "lists": [{"name": "ok", "sections": []}, {"name": ""# + name + #"", "sections": []}]}"#
            let message = invalidDataMessage { try fixture.store.importJSON(Data(document.utf8)) }
            #expect(message == #"$.lists[1].name cannot contain the character NUL (\u0000)"#)
            #expect(try fixture.state() == before)
        }
    }

    @Test func nulInATitleIsKept() throws {
        let document = #"{"format": "sectionctl", "version": 1, "lists": [{"name": "n", "sections": [{"title": "a\u0000b", "rows": []}]}]}"#
        let fixture = try TransferFixture()
        try fixture.store.importJSON(Data(document.utf8))
        #expect(try fixture.store.list("n").snapshot().sections.map(\.title) == ["a\u{0}b"])
    }

    @Test func theLibraryRefusesNulInListNames() throws {
        let fixture = try TransferFixture()
        for attempt in [{ try fixture.store.createList(named: "a\u{0}b") }, { try fixture.store.renameList("default", to: "\u{0}") }] {
            do {
                _ = try attempt()
                Issue.record("a list name with NUL was accepted")
            } catch let error as RepositoryError {
                guard case .listNameContainsNUL(let name) = error else { throw error }
                #expect(name.utf8.contains(0))
                #expect(error.description == "a list name cannot contain the character NUL (U+0000)")
            }
        }
        #expect(try fixture.store.lists().map(\.name) == ["default"])
    }

    // MARK: Title patterns read scalars

    @Test func aMarkAfterABraceDoesNotHideIt() throws {
        // "}" followed by a combining mark is one Character, but still a closing brace.
        let pattern = try TitlePattern("{a}\u{301} {{\u{301}")
        #expect(pattern.parts == [.key("a"), .literal("\u{301} {\u{301}")])
        let prepended = try TitlePattern("\u{600}{\u{600}k}")
        #expect(prepended.parts == [.literal("\u{600}"), .key("\u{600}k")])
        #expect(throws: RecordProblem.self) { try TitlePattern("{\u{301}") }
    }
}
