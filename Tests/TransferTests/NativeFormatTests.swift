import Foundation
import Testing

@testable import Repository
@testable import Transfer

@Suite("Native JSON export and import")
struct NativeFormatTests {
    /// Texts that break naive JSON writers and readers.
    static let awkwardTexts = [
        "", " ", "plain", "quote \" and backslash \\ and slash /", "tab\there", "new\nline\r\nand CR\r",
        "NUL \u{0} bell \u{7} escape \u{1B} delete \u{7F}", "ユーザー情報・お気に入り", "😀 👩‍👩‍👧‍👦 🇯🇵 ❤️",
        "e\u{301} vs é", "עברית mixed LTR", "\u{2028}line separator\u{2029}", "\\u0041 is not A", "{\"json\": [1, 2]}",
        "trailing spaces   ", String(repeating: "長い文章。", count: 40_000),
    ]

    /// A list with every row kind, empty and missing values, empty sections with and without
    /// their own empty text, and the awkward texts everywhere text goes.
    static func fillRichList(_ store: SectionStore, name: String = SectionStore.defaultList) throws {
        if name != SectionStore.defaultList { try store.createList(named: name) }
        let texts = awkwardTexts
        try store.addSection("Kinds", emptyText: "Nothing here", to: name)
        try store.addRow(.text("a text row"), section: 0, to: name)
        try store.addRow(.topic("a topic"), section: 0, to: name)
        try store.addRow(.field("missing", nil), section: 0, to: name)
        try store.addRow(.field("empty", ""), section: 0, to: name)
        try store.addRow(.field("", "empty label"), section: 0, to: name)
        try store.addSection("Empty, default footer", to: name)
        try store.addSection("Empty, own footer", emptyText: "", to: name)
        for (offset, text) in texts.enumerated() {
            let section = try store.addSection(text, emptyText: offset.isMultiple(of: 2) ? text : nil, to: name)
            try store.addRow(.text(text), section: section, to: name)
            try store.addRow(.topic(text), section: section, to: name)
            try store.addRow(.field(text, text), section: section, to: name)
            try store.addRow(.field(text, nil), section: section, to: name)
        }
    }

    @Test func exportThenImportIntoAFreshDatabaseGivesTheSameDocument() throws {
        let fixture = try TransferFixture()
        try Self.fillRichList(fixture.store)
        let exported = try fixture.list.exportJSON()

        let fresh = try fixture.freshStore("fresh.db")
        let changes = try fresh.importJSON(Data(exported))
        #expect(try fresh.list("default").exportJSON() == exported)

        // The content itself, ids aside, is the same, and so is every footer.
        let original = try fixture.list.snapshot(editing: true)
        let copy = try fresh.list("default").snapshot(editing: true)
        #expect(copy.sections.map(\.title) == original.sections.map(\.title))
        #expect(copy.sections.map(\.emptyText) == original.sections.map(\.emptyText))
        #expect(copy.sections.map { $0.rows.map(\.content) } == original.sections.map { $0.rows.map(\.content) })
        #expect(copy.sections.indices.map(copy.footer(ofSection:)) == original.sections.indices.map(original.footer(ofSection:)))
        #expect(changes.count == 1)
        #expect(changes[0].changeset.insertedSections == Array(0..<original.sections.count))
        #expect(changes[0].version == 1)
    }

    @Test func exportAllRoundTripsEveryList() throws {
        let fixture = try TransferFixture()
        try Self.fillRichList(fixture.store)
        try Self.fillRichList(fixture.store, name: "zz second")
        try fixture.store.createList(named: "an empty list")
        let exported = try fixture.store.exportAllJSON()

        let fresh = try fixture.freshStore("fresh.db")
        let changes = try fresh.importJSON(Data(exported))
        #expect(changes.map(\.list) == ["an empty list", "default", "zz second"])
        #expect(try fresh.exportAllJSON() == exported)
        #expect(try fresh.lists().map(\.name) == ["an empty list", "default", "zz second"])
    }

    @Test func theExportIsTheDocumentedFormat() throws {
        let fixture = try TransferFixture()
        try fixture.store.addSection("To do")
        try fixture.store.addRow(.text("Buy \"milk\""), section: 0)
        try fixture.store.addRow(.field("数字", "3"), section: 0)
        try fixture.store.addRow(.field("飲み物", nil), section: 0)
        try fixture.store.addSection("Done", emptyText: "Nothing yet")
        let expected = """
            {
              "format": "sectionctl",
              "version": 1,
              "lists": [
                {
                  "name": "default",
                  "sections": [
                    {
                      "title": "To do",
                      "empty_text": null,
                      "rows": [
                        {"kind": "text", "title": "Buy \\"milk\\"", "value": null},
                        {"kind": "field", "title": "数字", "value": "3"},
                        {"kind": "field", "title": "飲み物", "value": null}
                      ]
                    },
                    {
                      "title": "Done",
                      "empty_text": "Nothing yet",
                      "rows": []
                    }
                  ]
                }
              ]
            }

            """
        #expect(try fixture.list.exportJSON() == expected)
        // JSON that Foundation reads too.
        #expect(try JSONSerialization.jsonObject(with: Data(expected)) is [String: Any])
    }

    @Test func controlCharactersAreEscapedAndNothingElseIs() throws {
        let fixture = try TransferFixture()
        try fixture.store.addSection("\u{0}\u{1F}\t\"\\/é😀\u{7F}")
        let exported = try fixture.list.exportJSON()
        #expect(exported.contains(#""title": "\u0000\u001F\t\"\\/é😀\#u{7F}""#))
    }

    @Test func anEmptyListAndAnEmptyDatabaseExport() throws {
        let fixture = try TransferFixture()
        let exported = try fixture.list.exportJSON()
        #expect(
            exported
                == "{\n  \"format\": \"sectionctl\",\n  \"version\": 1,\n  \"lists\": [\n    {\n      \"name\": \"default\",\n      \"sections\": []\n    }\n  ]\n}\n"
        )
        let fresh = try fixture.freshStore("fresh.db")
        let changes = try fresh.importJSON(Data(exported))
        #expect(changes == [Change(list: "default", version: 0, committed: false)])
        #expect(try fresh.list("default").exportJSON() == exported)
        #expect(throws: RepositoryError.listNotFound("nope", available: ["default"])) { try fixture.store.list("nope").exportJSON() }
    }

    @Test func importFillsAnEmptyListAndCreatesAMissingOne() throws {
        let source = try TransferFixture()
        try source.store.addSection("One")
        try source.store.addRow(.text("row"), section: 0)
        let document = Data(try source.store.list("default").exportJSON())

        let fixture = try TransferFixture()
        let filled = try fixture.store.importJSON(document)
        let filledIDs = try fixture.list.snapshot().sections.map(\.id)
        #expect(filled == [Change(list: "default", version: 1, changeset: insertedSections(0..<1, ids: filledIDs))])

        let created = try fixture.store.importJSON(document, list: "copy")
        #expect(created.count == 1)
        #expect(created[0].list == "copy")
        #expect(created[0].createdID != nil)
        #expect(created[0].version == 1)
        #expect(try fixture.store.rows(of: "copy") == [[.text("row")]])
    }

    @Test func importIntoAListWithSectionsIsRefusedNamingIt() throws {
        let fixture = try TransferFixture()
        try fixture.store.addSection("Mine")
        let document = Data(try fixture.list.exportJSON())
        let before = try fixture.state()
        do {
            try fixture.store.importJSON(document)
            Issue.record("the import was not refused")
        } catch let error as RepositoryError {
            #expect(error == .importIntoNonEmptyList("default", sectionCount: 1))
            #expect(error.description.contains("\"default\"") && error.description.contains("1 section"))
            // The library names the choice in its own terms; the CLI's options are the CLI's to add.
            #expect(error.description.contains("replace them or append after them") && !error.description.contains("--"))
        }
        #expect(try fixture.state() == before)
    }

    @Test func replaceDeletesTheOldSectionsAndAppendKeepsThem() throws {
        let fixture = try TransferFixture()
        try fixture.store.addSection("Old 1")
        try fixture.store.addRow(.text("old row"), section: 0)
        try fixture.store.addSection("Old 2")
        let versionBefore = try fixture.list.snapshot().version

        let source = try TransferFixture()
        try source.store.addSection("New")
        try source.store.addRow(.field("label", "value"), section: 0)
        let document = Data(try source.store.list("default").exportJSON())

        let appended = try fixture.store.importJSON(document, policy: .append)
        let appendedIDs = try fixture.list.snapshot().sections.map(\.id)
        #expect(appended == [Change(list: "default", version: versionBefore.next, changeset: insertedSections(2..<3, ids: [appendedIDs[2]]))])
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["Old 1", "Old 2", "New"])

        let replaced = try fixture.store.importJSON(document, policy: .replace)
        var changeset = insertedSections(0..<1, ids: try fixture.list.snapshot().sections.map(\.id))
        changeset.deletedSections = [0, 1, 2]
        changeset.deletedSectionIDs = appendedIDs
        #expect(replaced == [Change(list: "default", version: versionBefore.advanced(by: 2), changeset: changeset)])
        #expect(try fixture.store.rows() == [[.field("label", "value")]])

        // The imported list takes ordinary edits afterwards, at either end.
        try fixture.list.apply(.addRow(.text("first"), to: .at(0, 0)))
        try fixture.list.apply(.addSection(title: "Before", at: 0))
        try fixture.list.apply(.moveRow(.at(1, 1), to: .at(0, 0)))
        #expect(try fixture.store.rows() == [[.field("label", "value")], [.text("first")]])
    }

    @Test func aListNameCanBeGivenOnlyForADocumentWithOneList() throws {
        let fixture = try TransferFixture()
        try fixture.store.createList(named: "other")
        let document = Data(try fixture.store.exportAllJSON())
        let before = try fixture.state()
        #expect(
            throws: RepositoryError.listNameForSeveralLists
        ) { try fixture.store.importJSON(document, list: "x") }
        #expect(try fixture.state() == before)
    }

    @Test func aRefusedListRollsBackTheListsBeforeIt() throws {
        let fixture = try TransferFixture()
        let source = try TransferFixture()
        try source.store.createList(named: "a")
        try source.store.addSection("for a", to: "a")
        try source.store.addSection("for default")
        let document = Data(try source.store.exportAllJSON())
        try fixture.store.addSection("already here")
        let before = try fixture.state()
        #expect(throws: RepositoryError.importIntoNonEmptyList("default", sectionCount: 1)) { try fixture.store.importJSON(document) }
        #expect(try fixture.state() == before)
        #expect(try fixture.store.lists().map(\.name) == ["default"])
    }

    @Test func handWrittenDocumentsMayLeaveOutWhatHasADefault() throws {
        let fixture = try TransferFixture()
        let document = """
            {"lists": [{"sections": [{"rows": [{"title": "t"}, {"value": "v", "kind": "field", "title": "f"}],
                                      "title": "S", "future": {"nested": [1, {"x": 2}]}}],
                        "name": "default"}],
             "version": 1}
            """
        try fixture.store.importJSON(Data(document))
        #expect(try fixture.store.rows() == [[.text("t"), .field("f", "v")]])
        #expect(try fixture.list.snapshot().sections[0].emptyText == nil)
    }

    private func insertedSections(_ range: Range<Int>, ids: [SectionID]) -> Changeset {
        var changeset = Changeset()
        changeset.insertedSections = Array(range)
        changeset.insertedSectionIDs = ids
        return changeset
    }
}
