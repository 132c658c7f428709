import Foundation
import Repository
import Testing

@testable import SectionCLI

@Suite struct JSONOutputTests {
    @Test func writesObjectsWithKeysInOrder() {
        let value = JSONValue.object([("z", .int(1)), ("a", .null), ("m", .array([.bool(true), .string("x")]))])
        #expect(value.rendered == #"{"z":1,"a":null,"m":[true,"x"]}"#)
    }

    @Test func writesUnicodeAsIsAndEscapesWhatJSONRequires() {
        #expect(JSONValue.string("名前 😀 é").rendered == "\"名前 😀 é\"")
        #expect(JSONValue.string("a\"b\\c\nd\u{1B}\u{7F}").rendered == #""a\"b\\c\nd\u001b\u007f""#)
    }

    @Test func snapshotShape() {
        let snapshot = ListSnapshot(
            name: "default", version: 3, isEditing: true,
            sections: [
                Section(id: 1, title: "To do", rows: [Row(id: 4, content: .text("Buy milk"))]),
                Section(id: 2, title: "Done", emptyText: "Nothing yet"),
                Section(id: 3, title: "P", rows: [Row(id: 5, content: .field("名前", nil)), Row(id: 6, content: .field("a", "1"))]),
            ], listID: 7)
        #expect(
            JSONShapes.snapshot(snapshot).rendered
                == #"{"list":"default","list_id":7,"version":3,"editing":true,"sections":["#
                + #"{"id":1,"title":"To do","footer":null,"rows":[{"id":4,"kind":"text","title":"Buy milk","value":null}]},"#
                + #"{"id":2,"title":"Done","footer":"Nothing yet","rows":[]},"#
                + #"{"id":3,"title":"P","footer":null,"rows":[{"id":5,"kind":"field","title":"名前","value":null},"#
                + #"{"id":6,"kind":"field","title":"a","value":"1"}]}]}"#)
    }

    @Test func changeShape() {
        var changeset = Changeset()
        changeset.deletedRows = [RowPath(section: 0, row: 2)]
        changeset.movedRows = [.init(from: RowPath(section: 0, row: 1), to: RowPath(section: 1, row: 0))]
        changeset.movedSections = [.init(from: 2, to: 0)]
        #expect(
            JSONShapes.change(Change(list: "default", version: 4, createdID: .row(9), changeset: changeset)).rendered
                == #"{"list":"default","version":4,"committed":true,"id":9,"changes":{"sections":{"deleted":[],"inserted":[],"#
                + #""moved":[{"from":2,"to":0}],"updated":[],"footers":[]},"rows":{"deleted":[[0,2]],"inserted":[],"#
                + #""moved":[{"from":[0,1],"to":[1,0]}],"updated":[]}}}"#)
        #expect(!JSONShapes.change(Change(list: "l", version: 1)).rendered.contains("\"id\""))
        // A change that committed nothing says so; its other fields keep their meaning.
        #expect(
            JSONShapes.change(Change(list: "l", version: 3, committed: false)).rendered
                .hasPrefix(#"{"list":"l","version":3,"committed":false,"changes":{"sections":{"deleted":[],"#))
        // With the ids of what changed, written last.
        changeset.deletedRowIDs = [7]
        changeset.movedRowIDs = [4]
        changeset.movedSectionIDs = [2]
        #expect(
            JSONShapes.change(Change(list: "default", version: 4, changeset: changeset)).rendered.hasSuffix(
                #""moved":[{"from":[0,1],"to":[1,0]}],"updated":[]},"ids":{"sections":{"deleted":[],"inserted":[],"moved":[2],"updated":[],"footers":[]},"#
                    + #""rows":{"deleted":[7],"inserted":[],"moved":[4],"updated":[]}}}}"#))
    }
}

/// With `--json` an error is one line of JSON on standard error, as a script reads it, with the
/// documented exit status in the process's status and in the object; standard output stays
/// empty. Run through the built binary, as a user would.
@Suite struct JSONErrorTests {
    /// The error object of a run that failed: its one line on standard error, parsed.
    func errorObject(_ result: RunResult, sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        #expect(result.stdout == "", sourceLocation: sourceLocation)
        let lines = result.stderr.split(separator: "\n", omittingEmptySubsequences: false)
        #expect(lines.count == 2 && lines[1] == "", "one line: \(result.stderr)", sourceLocation: sourceLocation)
        let object = try JSONSerialization.jsonObject(with: Data(result.stderr.utf8))
        let error = try #require(object as? [String: Any], "not a JSON object: \(result.stderr)", sourceLocation: sourceLocation)
        #expect(error["exit_status"] as? Int == Int(result.status), "\(error)", sourceLocation: sourceLocation)
        return error
    }

    @Test func aRefusedCommandIsAJSONObjectWithItsMessageAndExitStatus() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "To do"])
        let result = try cli.run(["--json", "row", "move", "0:5", "0:0"])
        #expect(result.status == 1)
        let error = try errorObject(result)
        #expect(error["error"] as? String == "row index 5 is out of range: section 0 has no rows", "\(error)")
        #expect(error["hint"] is NSNull, "\(error)")
        // `--json` anywhere among the global options, as the parser takes it.
        let after = try cli.run(["row", "move", "0:5", "0:0", "--json"])
        #expect(after.status == 1 && after.stderr == result.stderr)
        // Without it, the plain line.
        let plain = try cli.run(["row", "move", "0:5", "0:0"])
        #expect(plain.stderr.hasPrefix("sectionctl: error: row index 5 is out of range"))
    }

    @Test func eachExitStatusIsInTheObject() throws {
        let cli = try Sectionctl()
        // 66: no database, with the hint to create one.
        let missing = try cli.run(["--json", "show"])
        #expect(missing.status == 66)
        let noInput = try errorObject(missing)
        #expect((noInput["hint"] as? String)?.hasPrefix("create it with: sectionctl") == true, "\(noInput)")
        // 2: a command line the parser refuses is answered in JSON too.
        let usage = try cli.run(["--json", "frobnicate"], database: false)
        #expect(usage.status == 2)
        #expect((try errorObject(usage)["error"] as? String)?.contains("frobnicate") == true, "\(usage.stderr)")
        // 65: bad input data.
        try cli.initialize()
        let input = cli.directory.appendingPathComponent("bad.json")
        try Data("{\"version\": ".utf8).write(to: input)
        let bad = try cli.run(["--json", "import", input.path])
        #expect(bad.status == 65)
        _ = try errorObject(bad)
        // A `--json` after `--` is a title, not the option: the error stays plain text.
        let titled = try cli.run(["row", "add", "9", "--", "--json"])
        #expect(titled.status == 1 && titled.stderr.hasPrefix("sectionctl: error: "), "\(titled.stderr)")
    }
}
