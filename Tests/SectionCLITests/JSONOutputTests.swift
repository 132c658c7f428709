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
                #""moved":[{"from":[0,1],"to":[1,0]}],"updated":[]},"ids":{"sections":{"deleted":[],"inserted":[],"moved":[2],"updated":[]},"#
                    + #""rows":{"deleted":[7],"inserted":[],"moved":[4],"updated":[]}}}}"#))
    }
}
