import Foundation
import TestSupport
import Testing

@testable import Repository
@testable import Transfer

@Suite("Records import")
struct RecordsImportTests {
    /// Seed 004's data, with its keys in the order the seed writes them.
    static let seedRecords = """
        [
          {"id": "1", "name": "ブログ書き太郎", "favorite": {"fruits": "りんご", "number": 3, "subject": "国語"}},
          {"id": "2", "name": "ブログ読み次郎", "favorite": {"fruits": "みかん", "number": 100, "subject": "数学"}}
        ]
        """

    /// Seed 004's fixed labels and order, with 飲み物 (drink) expected but in no record.
    static let seedTemplate = """
        {
          "title": "ユーザー情報",
          "fields": [
            "id",
            {"key": "name", "label": "名前"},
            {"key": "favorite", "label": "お気に入り", "fields": [
              {"key": "fruits", "label": "フルーツ"},
              {"key": "number", "label": "数字"},
              {"key": "subject", "label": "教科"},
              {"key": "drink", "label": "飲み物"}
            ]}
          ]
        }
        """

    @Test func seed004BecomesTopicAndFieldRowsWithTheMissingDrinkShownAsADash() throws {
        let fixture = try TransferFixture()
        let template = try RecordTemplate(json: Data(Self.seedTemplate))
        let change = try fixture.store.importRecords(Data(Self.seedRecords), options: RecordsImportOptions(list: "default", template: template))

        #expect(change.changeset.insertedSections == [0, 1])
        #expect(change.version == 1)
        let snapshot = try fixture.list.snapshot()
        #expect(change.changeset.insertedSectionIDs == snapshot.sections.map(\.id) && snapshot.sections.count == 2)
        #expect(snapshot.sections.map(\.title) == ["ユーザー情報", "ユーザー情報"])
        #expect(
            snapshot.sections[0].rows.map(\.content) == [
                .field("id", "1"), .field("名前", "ブログ書き太郎"), .topic("お気に入り"),
                .field("フルーツ", "りんご"), .field("数字", "3"), .field("教科", "国語"), .field("飲み物", nil),
            ])
        #expect(snapshot.sections[1].rows.map(\.content.displayValue) == ["2", "ブログ読み次郎", "-", "みかん", "100", "数学", "-"])
        #expect(snapshot.sections[1].rows[6].value == nil)
        #expect(snapshot.sections[1].rows[6].title == "飲み物")
    }

    @Test func withoutATemplateRowsFollowTheDocumentsKeyOrder() throws {
        let fixture = try TransferFixture()
        let records = #"[{"zebra": "z", "apple": "a", "mango": "m", "Banana": "b", "_": "u", "10": "ten", "9": "nine"}]"#
        try fixture.store.importRecords(Data(records), options: RecordsImportOptions(list: "default"))
        let labels = try fixture.store.rows()[0].map(\.title)
        #expect(labels == ["zebra", "apple", "mango", "Banana", "_", "10", "9"])
        #expect(labels != labels.sorted())
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["Record 1"])
    }

    @Test func scalarsKeepTheirJSONTextNullIsMissingAndArraysAreJSONText() throws {
        let fixture = try TransferFixture()
        let records = """
            [{"int": 42, "negative": -7, "zero": -0, "decimal": 1.50, "exponent": 1e3, "Exp": 2.5E-3,
              "big": 12345678901234567890, "yes": true, "no": false, "nothing": null, "text": "1.50",
              "escaped": "tab\\tquote\\"\\u00e9\\ud83d\\ude00", "list": [1, "two", {"three": null}, [], 4.0],
              "empty list": [], "empty text": ""}]
            """
        try fixture.store.importRecords(Data(records), options: RecordsImportOptions(list: "default"))
        #expect(
            try fixture.store.rows()[0] == [
                .field("int", "42"), .field("negative", "-7"), .field("zero", "-0"), .field("decimal", "1.50"),
                .field("exponent", "1e3"), .field("Exp", "2.5E-3"), .field("big", "12345678901234567890"),
                .field("yes", "true"), .field("no", "false"), .field("nothing", nil), .field("text", "1.50"),
                .field("escaped", "tab\tquote\"é😀"), .field("list", #"[1,"two",{"three":null},[],4.0]"#),
                .field("empty list", "[]"), .field("empty text", ""),
            ])
    }

    /// U+0000 in names and values, and numbers with digits a double would lose: the import gets
    /// every key and value exactly, in the right place.
    @Test func nulCharactersAndNumbersStayExactAroundArraysAndNesting() throws {
        let fixture = try TransferFixture()
        let records = #"""
            [{"a\u0000b": "x\u0000y", "list": [1.10, "n\u0000", {"k\u0000": 2.20}], "after": 3.30,
              "nested": {"deep\u0000": {"v": "\u0000"}, "w": 4.40}, "last": "\u0000\ud83d\ude00\n"}]
            """#
        try fixture.store.importRecords(Data(records), options: RecordsImportOptions(list: "default"))
        #expect(
            try fixture.store.rows()[0] == [
                .field("a\u{0}b", "x\u{0}y"), .field("list", #"[1.10,"n\u0000",{"k\u0000":2.20}]"#), .field("after", "3.30"),
                .topic("nested"), .topic("deep\u{0}"), .field("v", "\u{0}"), .field("w", "4.40"), .field("last", "\u{0}😀\n"),
            ])
        // The export writes U+0000 as an escape, and the round trip keeps it.
        let exported = try fixture.list.exportJSON()
        #expect(exported.contains(#""title": "a\u0000b", "value": "x\u0000y""#))
        let fresh = try fixture.freshStore("fresh.db")
        try fresh.importJSON(Data(exported))
        #expect(try fresh.list("default").exportJSON() == exported)
    }

    /// Records are read by the project's own JSON parser whichever backend stores the list: the
    /// same records, with a template, give the same sections on a file and on a server, array
    /// and lines alike. (A server cannot store U+0000, so there is none here.)
    @Test(arguments: Backend.all) func recordsAndTemplatesGiveTheSameSectionsOnEveryBackend(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let template = try RecordTemplate(
            json: Data(#"{"title": "{name} #{#}", "fields": ["name", {"key": "a", "label": "A", "fields": ["b"]}], "unlisted": "keep"}"#))
        let records = [
            #"{"name": "x\ty\u00e9", "n": 1.50, "a": {"b": [1 , "two", {"three": null}], "c": 12345678901234567890}, "n": -0}"#,
            #"{"e\u0301": "\ud83d\ude00", "name": ["é", 1E3], "t": true}"#,
        ]
        let expected: [(title: String, rows: [RowContent])] = [
            (
                "x\ty\u{E9} #1",
                [
                    .field("name", "x\ty\u{E9}"), .topic("A"), .field("b", #"[1,"two",{"three":null}]"#), .field("c", "12345678901234567890"),
                    .field("n", "1.50"), .field("n", "-0"),
                ]
            ),
            (#"["é",1E3] #2"#, [.field("name", #"["é",1E3]"#), .topic("A"), .field("b", nil), .field("e\u{301}", "😀"), .field("t", "true")]),
        ]
        try fixture.store.importRecords(
            Data("[" + records.joined(separator: ",\n") + "]"), options: RecordsImportOptions(list: "default", template: template))
        let temporary = try TemporaryDirectory()
        let url = temporary.url.appending(path: "records.jsonl")
        try Data(records.joined(separator: "\n").utf8).write(to: url)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        try fixture.store.importRecords(lines: handle, options: RecordsImportOptions(list: "lines", template: template))
        for list in [SectionStore.defaultList, "lines"] {
            let sections = try fixture.store.list(list).snapshot().sections
            #expect(sections.map { Array($0.title.utf8) } == expected.map { Array($0.title.utf8) }, "\(backend), \(list)")
            #expect(sections.map { $0.rows.map(\.content) } == expected.map(\.rows), "\(backend), \(list)")
        }
    }

    @Test func nestedObjectsBecomeTopicsFollowedByTheirFieldsAtEveryDepth() throws {
        let fixture = try TransferFixture()
        let records = """
            [{"name": "n", "address": {"city": "Tokyo", "geo": {"lat": 35.68, "lng": 139.76}, "zip": "100"},
              "empty": {}, "after": 1}]
            """
        try fixture.store.importRecords(Data(records), options: RecordsImportOptions(list: "default"))
        #expect(
            try fixture.store.rows()[0] == [
                .field("name", "n"), .topic("address"), .field("city", "Tokyo"), .topic("geo"), .field("lat", "35.68"),
                .field("lng", "139.76"), .field("zip", "100"), .topic("empty"), .field("after", "1"),
            ])
    }

    @Test func theTitleKeyTitlesEachSectionAndRecordNNamesTheRest() throws {
        let fixture = try TransferFixture()
        let records = #"[{"id": 1, "name": "Ann"}, {"id": 2}, {"name": null}, {"name": 7}, {"name": {"x": 1}}]"#
        try fixture.store.importRecords(Data(records), options: RecordsImportOptions(list: "default", titleKey: "name"))
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["Ann", "Record 2", "Record 3", "7", "Record 5"])
        // The title key's value is still a row.
        #expect(try fixture.store.rows()[0] == [.field("id", "1"), .field("name", "Ann")])
    }

    @Test func aTemplateTitleFillsInKeysAndTheRecordNumber() throws {
        let fixture = try TransferFixture()
        let template = try RecordTemplate(json: Data(#"{"title": "{{#{#}}} {name} ({missing})"}"#))
        try fixture.store.importRecords(
            Data(#"[{"name": "Ann"}, {"name": 2}]"#), options: RecordsImportOptions(list: "default", titleKey: "ignored", template: template))
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["{#1} Ann (-)", "{#2} 2 (-)"])
    }

    @Test func unlistedKeysAreKeptAfterTheListedOnesOrDropped() throws {
        let fixture = try TransferFixture()
        let records = #"[{"c": 3, "b": 2, "a": 1, "nested": {"y": 2, "x": 1, "z": 3}}]"#
        let keep = try RecordTemplate(json: Data(#"{"fields": ["a", {"key": "nested", "fields": ["z"]}]}"#))
        try fixture.store.importRecords(Data(records), options: RecordsImportOptions(list: "keep", template: keep))
        #expect(
            try fixture.store.rows(of: "keep")[0] == [
                .field("a", "1"), .topic("nested"), .field("z", "3"), .field("y", "2"), .field("x", "1"),
                .field("c", "3"), .field("b", "2"),
            ])

        let drop = try RecordTemplate(
            json: Data(#"{"unlisted": "drop", "fields": ["a", {"key": "nested", "unlisted": "keep", "fields": ["z"]}]}"#))
        try fixture.store.importRecords(Data(records), options: RecordsImportOptions(list: "drop", template: drop))
        #expect(
            try fixture.store.rows(of: "drop")[0] == [
                .field("a", "1"), .topic("nested"), .field("z", "3"), .field("y", "2"), .field("x", "1"),
            ])
    }

    @Test func expectedKeysGetRowsWhenMissingAndOptionalOnesDoNot() throws {
        let fixture = try TransferFixture()
        let template = try RecordTemplate(
            json: Data(
                """
                {"unlisted": "drop", "fields": [
                  {"key": "nickname", "expected": false},
                  {"key": "id", "label": "ID"},
                  {"key": "favorite", "label": "お気に入り", "fields": [{"key": "drink", "label": "飲み物"}, {"key": "x", "expected": false}]},
                  {"key": "extra", "label": "Extra", "expected": false, "fields": ["a"]}
                ]}
                """))
        try fixture.store.importRecords(
            Data(#"[{"other": 1}, {"nickname": "N", "favorite": 5}]"#), options: RecordsImportOptions(list: "default", template: template))
        #expect(
            try fixture.store.rows() == [
                [.field("ID", nil), .topic("お気に入り"), .field("飲み物", nil)],
                // A value that is not an object shows as a field, whatever the template says.
                [.field("nickname", "N"), .field("ID", nil), .field("お気に入り", "5")],
            ])
    }

    @Test func aKeyTwiceInARecordGivesTwoRows() throws {
        let fixture = try TransferFixture()
        let template = RecordTemplate(fields: [.init(key: "a", label: "A")])
        try fixture.store.importRecords(Data(#"[{"a": 1, "b": 2, "a": 3}]"#), options: RecordsImportOptions(list: "default", template: template))
        #expect(try fixture.store.rows()[0] == [.field("A", "1"), .field("b", "2"), .field("a", "3")])
    }

    @Test func recordsAreAppendedAfterExistingSectionsInOneVersionStep() throws {
        let fixture = try TransferFixture()
        try fixture.store.addSection("Mine")
        try fixture.store.addRow(.text("kept"), section: 0)
        let version = try fixture.list.snapshot().version
        let change = try fixture.store.importRecords(Data(#"[{"a": 1}, {"b": 2}, {}]"#), options: RecordsImportOptions(list: "default"))
        #expect(change.version == version.next)
        #expect(change.createdID == nil)
        #expect(change.changeset.insertedSections == [1, 2, 3])
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["Mine", "Record 1", "Record 2", "Record 3"])
        #expect(try fixture.store.rows() == [[.text("kept")], [.field("a", "1")], [.field("b", "2")], []])

        let none = try fixture.store.importRecords(Data("[]"), options: RecordsImportOptions(list: "default"))
        #expect(none == Change(list: "default", version: version.next, committed: false))
    }

    @Test func aMissingListIsCreated() throws {
        let fixture = try TransferFixture()
        let change = try fixture.store.importRecords(Data(#"[{"a": 1}]"#), options: RecordsImportOptions(list: "people"))
        #expect(change.list == "people")
        #expect(change.createdID != nil)
        #expect(try fixture.store.rows(of: "people") == [[.field("a", "1")]])
    }

    @Test func newlineDelimitedRecordsStreamWithBlankLinesCRLFAndNoFinalNewline() throws {
        let fixture = try TransferFixture()
        let count = 20_000
        var text = "\u{FEFF}"
        for number in 1...count {
            text += #"{"n": \#(number), "name": "record \#(number)", "nested": {"even": \#(number % 2 == 0)}}"#
            text += number % 1_000 == 0 ? "\r\n\n   \n" : "\n"
        }
        text += #"{"last": true}"#
        let handle = try fixture.fileHandle("records.jsonl", contents: Data(text))
        let change = try fixture.store.importRecords(lines: handle, options: RecordsImportOptions(list: "default", titleKey: "name"))
        #expect(change.changeset.insertedSections.count == count + 1)
        let summary = try #require(try fixture.store.lists().first)
        #expect(summary.sectionCount == count + 1)
        #expect(summary.rowCount == count * 4 + 1)
        let snapshot = try fixture.list.snapshot()
        #expect(snapshot.sections[0].title == "record 1")
        #expect(
            snapshot.sections[count - 1].rows.map(\.content) == [
                .field("n", "\(count)"), .field("name", "record \(count)"), .topic("nested"), .field("even", "true"),
            ])
        #expect(snapshot.sections[count].title == "Record \(count + 1)")
    }

    @Test func aLineLongerThanTheReadChunkIsOneRecord() throws {
        let fixture = try TransferFixture()
        let long = String(repeating: "あ", count: LineReader.chunkSize)  // three bytes each
        let text = "{\"a\": 1}\n{\"long\": \"\(long)\"}\n{\"b\": 2}\n"
        let handle = try fixture.fileHandle("long.jsonl", contents: Data(text))
        try fixture.store.importRecords(lines: handle, options: RecordsImportOptions(list: "default"))
        #expect(try fixture.store.rows() == [[.field("a", "1")], [.field("long", long)], [.field("b", "2")]])
    }

    @Test func deepNestingWithinTheLimitBecomesNestedTopics() throws {
        let fixture = try TransferFixture()
        let depth = 900
        let text = "[" + String(repeating: #"{"k": 1, "d": "#, count: depth) + "null" + String(repeating: "}", count: depth) + "]"
        try fixture.store.importRecords(Data(text), options: RecordsImportOptions(list: "default"))
        let rows = try fixture.store.rows()[0]
        #expect(rows.count == 2 * depth)  // "k" and "d" at every level; the last "d" is null
        #expect(rows.prefix(3) == [.field("k", "1"), .topic("d"), .field("k", "1")])
        #expect(rows.last == .field("d", nil))
    }

    @Test func templatesBuiltInCodeWorkLikeReadOnes() throws {
        let read = try RecordTemplate(json: Data(Self.seedTemplate))
        let built = RecordTemplate(
            title: "ユーザー情報",
            fields: [
                .init(key: "id"), .init(key: "name", label: "名前"),
                .init(
                    key: "favorite", label: "お気に入り",
                    fields: [
                        .init(key: "fruits", label: "フルーツ"), .init(key: "number", label: "数字"),
                        .init(key: "subject", label: "教科"), .init(key: "drink", label: "飲み物"),
                    ]),
            ])
        #expect(read == built)
    }
}
