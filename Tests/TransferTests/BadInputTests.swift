import Foundation
import Testing

@testable import Repository
@testable import Transfer

/// Bad input is refused with `invalidData` naming the place, and nothing is written.
@Suite("Bad input")
struct BadInputTests {
    /// Runs `body` against a database with some content, expects `invalidData`, checks that
    /// nothing changed, and returns the message.
    private func refusal(_ body: (SectionStore, TransferFixture) throws -> Void, sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let fixture = try TransferFixture()
        try fixture.store.addSection("Existing")
        try fixture.store.addRow(.field("kept", "yes"), section: 0)
        let before = try fixture.state()
        let message = invalidDataMessage({ try body(fixture.store, fixture) }, sourceLocation: sourceLocation)
        #expect(try fixture.state() == before, "nothing was written", sourceLocation: sourceLocation)
        return message
    }

    private func records(_ text: String) throws -> String {
        try refusal { store, _ in try store.importRecords(Data(text), options: RecordsImportOptions(list: "default")) }
    }

    private func lines(_ data: Data) throws -> String {
        try refusal { store, fixture in
            try store.importRecords(lines: fixture.fileHandle("input.jsonl", contents: data), options: RecordsImportOptions(list: "default"))
        }
    }

    private func native(_ text: String) throws -> String {
        try refusal { store, _ in try store.importJSON(Data(text), list: "imported") }
    }

    @Test func malformedRecordsNameLineColumnAndByteOffset() throws {
        let message = try records("[\n  {\"a\": 1},\n  {\"b\" 2}\n]")
        #expect(message == "invalid JSON at line 3, column 8 (byte offset 21): unexpected character '2'; expected ':' after a member name")
        #expect(try records("[{\"a\": 1},]") == "invalid JSON at line 1, column 11 (byte offset 10): unexpected character ']'; expected a value")
        #expect(try records("[{\"a\": 1}").contains("unexpected end of input; expected ',' or ']' after record 1"))
        #expect(try records("[{\"a\": tru}]").contains("column 8"))
        #expect(try records("[{\"a\": 01}]").contains("leading zero"))
        #expect(try records("[{\"a\": \"tab\there\"}]").contains("control character (U+0009)"))
        #expect(try records("[{\"a\": \"\\x\"}]").contains("invalid escape"))
        #expect(try records("[{\"a\": 1}] trailing").contains("expected the end of the input"))
        #expect(try records("").contains("the input is empty"))
        #expect(try records("[{'a': 1}]").contains("unexpected character '''"))
    }

    @Test func columnsCountCharactersNotBytes() throws {
        let message = try records("[{\"名前\": \"ブログ\" x}]")
        #expect(message.hasPrefix("invalid JSON at line 1, column 15 (byte offset 24): unexpected character 'x'"))
    }

    @Test func theWrongShapeIsNamed() throws {
        #expect(try records(#"{"a": 1}"#).contains("the input is an object; records are a JSON array of objects"))
        #expect(try records("\n\n  \"text\"").contains("line 3, column 3"))
        let message = try records("[{\"a\": 1},\n 2]")
        #expect(message == "invalid records at line 2, column 2 (byte offset 12): record 2 is a number; each record must be an object")
        #expect(try records(#"[[{"a": 1}]]"#).contains("record 1 is an array"))
        #expect(try lines(Data("{\"a\": 1}\n[1, 2]\n")).contains("line 2, column 1 (byte offset 9): the line holds an array"))
    }

    @Test func invalidUTF8IsRefusedWhereItIs() throws {
        var bytes = Data("[{\"a\": \"ok\"},\n {\"b\": \"".utf8)
        bytes.append(contentsOf: [0xE3, 0x81])  // a character cut short
        bytes.append(contentsOf: Data("\"}]".utf8))
        #expect(
            try refusal { store, _ in try store.importRecords(bytes, options: RecordsImportOptions(list: "default")) }
                == "invalid JSON at line 2, column 9 (byte offset 22): invalid UTF-8")
        #expect(try lines(Data([0x7B, 0xFF, 0x7D])).contains("line 1, column 2 (byte offset 1): invalid UTF-8"))
        // Overlong forms and encoded surrogates are not UTF-8 either.
        #expect(try lines(Data([0x7B, 0x22, 0xC0, 0xAF, 0x22, 0x3A, 0x31, 0x7D])).contains("invalid UTF-8"))
        #expect(try lines(Data([0x7B, 0x22, 0xED, 0xA0, 0x80, 0x22, 0x3A, 0x31, 0x7D])).contains("invalid UTF-8"))
        #expect(try lines(Data(#"{"a": "\ud800"}"#)).contains("lone high surrogate"))
        #expect(try lines(Data(#"{"a": "\udc00"}"#)).contains("lone low surrogate"))
    }

    @Test func aBadLineLateInAStreamWritesNothingAndNamesTheLine() throws {
        var text = ""
        for number in 1...500 { text += "{\"n\": \(number)}\n" }
        let offset = text.utf8.count
        text += "{\"n\": 501,}\n{\"n\": 502}\n"
        let message = try lines(Data(text))
        #expect(
            message
                == "invalid JSON at line 501, column 11 (byte offset \(offset + 10)): unexpected character '}'; expected a member name in double quotes"
        )
        #expect(try lines(Data("{\"a\": 1} {\"b\": 2}\n")).contains("expected the end of the line"))
    }

    @Test func aVeryDeeplyNestedDocumentIsRefusedWithoutCrashing() throws {
        let depth = 200_000
        let deep = String(repeating: "{\"a\":", count: depth) + "1" + String(repeating: "}", count: depth)
        #expect(try records("[" + deep + "]").contains("nested deeper than 1000 levels"))
        #expect(try lines(Data(deep)).contains("nested deeper than 1000 levels"))
        let arrays = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
        // Native import reads as it goes: the first problem in document order is the one named.
        #expect(try native(arrays).hasPrefix("the document is an array"))
        #expect(try native(#"{"lists": "# + arrays + "}") == "$.lists[0] must be an object; found an array")
        #expect(try native(#"{"future": "# + arrays + "}").contains("nested deeper than 1000 levels"))
        #expect(try native(#"{"lists": [], "future": "# + arrays + "}").contains("nested deeper than 1000 levels"))
        #expect(try records(String(repeating: "[", count: depth)).contains("nested deeper"))
    }

    @Test func nativeDocumentsOfTheWrongShapeNameTheJSONPath() throws {
        #expect(try native("[]").contains("an array of records is imported with records import"))
        #expect(try native("{}") == "the document has no \"lists\" array; a sectionctl export has one")
        #expect(try native(#"{"lists": {}}"#) == "$.lists must be an array; found an object")
        #expect(try native(#"{"lists": [{"sections": []}]}"#) == "$.lists[0] has no \"name\"")
        #expect(try native(#"{"lists": [{"name": ""}]}"#) == "$.lists[0].name cannot be empty")
        #expect(
            try native(#"{"lists": [{"name": "a", "sections": [{"title": "s", "rows": [{"title": "r"}, {"kind": "heading", "title": "x"}]}]}]}"#)
                == #"$.lists[0].sections[0].rows[1].kind must be one of "text", "topic", "field"; found "heading""#)
        #expect(
            try native(#"{"lists": [{"name": "a", "sections": [{"title": "s"}, {"rows": []}]}]}"#)
                == "$.lists[0].sections[1] has no \"title\"")
        #expect(
            try native(#"{"lists": [{"name": "a", "sections": [{"title": "s", "rows": [{"kind": "text", "title": "t", "value": "v"}]}]}]}"#)
                == "$.lists[0].sections[0].rows[0] is a text row; only field rows have a value")
        #expect(
            try native(#"{"lists": [{"name": "a", "sections": [{"title": 5}]}]}"#) == "$.lists[0].sections[0].title must be a string; found a number")
        #expect(try native(#"{"lists": [{"name": "a", "name": "b"}]}"#) == "$.lists[0] has the member \"name\" twice")
        #expect(try native(#"{"version": 2, "lists": []}"#).contains("format version 2, newer than this sectionctl reads (1)"))
        #expect(try native(#"{"version": 0.5, "lists": []}"#) == "$.version must be a whole number from 1; found 0.5")
        #expect(
            try native(#"{"version": "1\n2", "lists": []}"#) == #"$.version must be a whole number from 1; found "1\n2""#,
            "a string is echoed quoted: its line feed stays an escape, the message one line")
        #expect(try native(#"{"format": "other", "lists": []}"#).contains("this is not a sectionctl document"))
        #expect(try native("{\"lists\": [}").hasPrefix("invalid JSON at line 1, column 12 (byte offset 11):"))
    }

    @Test func twoListsWithOneNameAreRefused() throws {
        let fixture = try TransferFixture()
        let before = try fixture.state()
        let message = invalidDataMessage {
            try fixture.store.importJSON(Data(#"{"lists": [{"name": "a"}, {"name": "b"}, {"name": "a"}]}"#))
        }
        #expect(message == "$.lists[2].name: the list \"a\" appears twice in the document")
        #expect(try fixture.state() == before)
    }

    @Test func invalidTemplatesAreRefusedNamingThePlace() throws {
        func templateMessage(_ text: String) -> String {
            invalidDataMessage { _ = try RecordTemplate(json: Data(text)) }
        }
        #expect(
            templateMessage("{\"fields\": [\n  \"a\",\n  {\"key\" \"b\"}\n]}")
                == "invalid template: invalid JSON at line 3, column 10 (byte offset 29): unexpected character '\"'; expected ':' after a member name"
        )
        #expect(templateMessage("[]") == "invalid template: the template is an array; it must be an object with \"fields\"")
        #expect(templateMessage(#"{"fields": [{"key": "a", "lable": "A"}]}"#).contains(#"$.fields[0] has an unknown member "lable""#))
        #expect(templateMessage(#"{"fields": [{"label": "A"}]}"#) == "invalid template: $.fields[0] has no \"key\"")
        #expect(templateMessage(#"{"fields": ["a", {"key": "a"}]}"#).contains("the key \"a\" is listed twice"))
        #expect(templateMessage(#"{"fields": [{"key": "a", "fields": [5]}]}"#).contains("$.fields[0].fields[0] must be a key"))
        #expect(templateMessage(#"{"unlisted": "hide"}"#) == "invalid template: $.unlisted must be \"keep\" or \"drop\"; found \"hide\"")
        #expect(templateMessage(#"{"fields": [{"key": "a", "expected": "yes"}]}"#).contains("must be true or false"))
        #expect(templateMessage(#"{"title": "User {id"}"#).contains("$.title: a '{' is not closed"))
        #expect(templateMessage(#"{"title": "a } b"}"#).contains("a '}' is not opened"))
        #expect(templateMessage(#"{"colour": "red"}"#).contains("unknown member \"colour\""))
        var deep = "\"x\""
        for _ in 0..<100 { deep = "{\"key\": \"k\", \"fields\": [\(deep)]}" }
        #expect(templateMessage("{\"fields\": [\(deep)]}").contains("nested deeper than 64 levels"))
    }

    @Test func tooLongTextIsRefusedNamingTheRecord() throws {
        let long = String(repeating: "x", count: 1_000_001)
        let message = try records("[{\"a\": 1},\n{\"b\": \"\(long)\"}]")
        #expect(message.hasPrefix("invalid record 2 at line 2, column 1 (byte offset 11): the value of \"b\" is 1000001 bytes long"))
    }

    @Test func aReadOnlyDatabaseRefusesAnImportAndStillExports() throws {
        let fixture = try TransferFixture()
        try fixture.store.addSection("S")
        let readOnly = try SectionStore(path: fixture.store.path, readOnly: true)
        #expect(try readOnly.list("default").exportJSON() == fixture.list.exportJSON())
        #expect(throws: RepositoryError.readOnly(path: fixture.store.path)) {
            try readOnly.importRecords(Data(#"[{"a": 1}]"#), options: RecordsImportOptions(list: "default"))
        }
    }
}
