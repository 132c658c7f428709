// Records import, two ways and back: the records of a JSON array laid out into sections must
// equal the same records read one per line by the `--nl` reader, and those sections, written
// as a native document and read back, come back byte for byte. The first input byte chooses a
// template (none, one that lists and drops keys, one with a title pattern) and a title key.
// Each record's nodes, as the import reads them (`JSONReader.forEachNode`, arrays as their
// text and as elements), must be the nodes SQLite's `json_tree` gives (records-jsontree.swift,
// shared with the tests).
import Foundation
import SQLite

@testable import Repository
@testable import Transfer

private let templates: [RecordTemplate?] = [
    nil,
    RecordTemplate(
        title: "{name} #{#} {{x}}",
        fields: [
            RecordTemplate.Field(key: "name", label: "Name"),
            RecordTemplate.Field(key: "e\u{301}", isExpected: false),
            RecordTemplate.Field(key: "a", fields: [RecordTemplate.Field(key: "b")], unlisted: .drop),
        ], unlisted: .keep),
    RecordTemplate(title: "{\u{E9}}\u{301}", fields: [RecordTemplate.Field(key: "\u{E9}")], unlisted: .drop),
]
private let titleKeys: [String?] = [nil, "name", "\u{E9}", ""]
private let roundTrip = ScratchStore("records")
private let reference = try! SQLiteJSONTree()

/// Each node as (ordinal of its parent, key, kind, text), ids aside, in UTF-8 bytes.
private func shape(_ nodes: [JSONTreeNode]) -> [[UInt8]] {
    var ordinals: [Int64: Int] = [:]
    return nodes.enumerated().map { offset, node in
        ordinals[node.id] = offset
        let parent = node.parent.flatMap { ordinals[$0] }.map(String.init) ?? "-"
        return Array("\(parent) \(node.key.map(jsonQuoted) ?? "<none>") \(node.kind) \(node.text.map(jsonQuoted) ?? "<none>")".utf8)
    }
}

/// Checks that the import's walk over `record` gives the nodes `json_tree` gives.
private func compareWithJSONTree(_ record: String) {
    var text = record
    text.withUTF8 { bytes in
        for arrays in [JSONArrayNodes.text, .elements] {
            var scanner = JSONReader(bytes)
            var nodes: [JSONTreeNode] = []
            do {
                try scanner.forEachNode(arrays: arrays) { nodes.append($0) }
            } catch {
                fail("the walk refuses a record the reader accepted: \(error)")
            }
            let expected: [JSONTreeNode]
            do {
                expected = try arrays == .text ? reference.recordNodes(of: record) : reference.nodes(of: record, arrayText: false)
            } catch {
                fail("json_tree refuses a record the reader accepted: \(error)")
            }
            require(shape(nodes) == shape(expected), "the walk (\(arrays)) and json_tree disagree on \(jsonQuoted(record))")
        }
    }
}

/// Each record's section, as the import would add it.
private func sections(_ source: RecordSource, options: RecordsImportOptions) throws -> [NativeSection] {
    let layout = try RecordLayout(options: options)
    var result: [NativeSection] = []
    try source.forEachRecord { record in
        let tree = try RecordTree(record)
        var section = NativeSection(title: try layout.title(of: tree, number: record.number))
        try layout.forEachRow(of: tree) { section.rows.append($0) }
        result.append(section)
    }
    return result
}

private func bytes(_ sections: [NativeSection]) -> [[UInt8]] {
    sections.flatMap { section in
        [Array(section.title.utf8)]
            + section.rows.flatMap { [Array($0.kind.rawValue.utf8), Array($0.title.utf8), $0.value.map { Array($0.utf8) } ?? [0xFF]] }
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzRecords(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let choice = Int(data[0])
    let input = Data(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let options = RecordsImportOptions(
        list: "fuzz", titleKey: titleKeys[(choice / templates.count) % titleKeys.count], template: templates[choice % templates.count])

    let fromArray: [NativeSection]
    var recordTexts: [String] = []
    do {
        let source = try RecordSource.checkedArray(input)
        try source.forEachRecord { record in
            recordTexts.append(record.json)
            compareWithJSONTree(record.json)
        }
        fromArray = try sections(source, options: options)
    } catch RepositoryError.invalidData(let message) {
        require(!message.contains("\n"), "an error message is more than one line")
        return 0
    } catch {
        fail("a refusal that is not invalidData: \(error)")
    }

    // The same records, one per line: a record's line breaks are whitespace between tokens
    // (inside a string they are escaped), so they become spaces.
    let lines = recordTexts.map { String($0.map { $0 == "\n" || $0 == "\r" || $0 == "\r\n" ? " " : $0 }) }
    let text = Data((lines.joined(separator: "\n") + "\n").utf8)
    let fromLines: [NativeSection]
    do {
        let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("fuzz-records-\(getpid()).jsonl")
        try text.write(to: url)
        let handle = try FileHandle(forReadingFrom: url)
        defer { try? handle.close() }
        fromLines = try sections(.lines(LineReader(handle: handle)), options: options)
    } catch {
        fail("the --nl reader refuses records the array reader accepts: \(error)")
    }
    require(bytes(fromArray) == bytes(fromLines), "records read as lines differ from the array's")

    // Through the native format and a database, and back.
    var written = ""
    var writer = NativeWriter { written += $0 }
    try! writer.begin()
    try! writer.beginList("fuzz")
    for section in fromArray {
        try! writer.section(title: section.title, emptyText: section.emptyText)
        for row in section.rows { try! writer.row(row) }
    }
    try! writer.endList()
    try! writer.end()
    let store = roundTrip.emptied()
    do {
        try store.importJSON(Data(written.utf8))
    } catch {
        fail("the native reader refuses the records' sections: \(error)")
    }
    let reread = try! store.list("fuzz").snapshot().sections.map { section in
        NativeSection(title: section.title, emptyText: section.emptyText, rows: section.rows.map(\.content))
    }
    require(bytes(reread) == bytes(fromArray), "the native round trip changed the sections")
    return 0
}
