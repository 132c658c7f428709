import Foundation
import TestSupport
import Testing

@testable import Repository
@testable import Transfer

/// Whole-list reads and exports that stream, and native import read a piece at a time.
@Suite("Streaming reads, exports and imports")
struct StreamingTests {
    typealias Generator = SeededGenerator

    static let seeds = propertySeeds([1, 2, 3, 4, 5, 6])

    static let texts = NativeFormatTests.awkwardTexts.filter { $0.utf8.count < 1_000 } + ["a", "b", "名前", "x y"]

    /// Fills lists with random sections (some empty, some with their own empty text) and rows
    /// of every kind, through the library's own writes.
    static func fillRandomLists(_ store: SectionStore, using generator: inout Generator) throws {
        let lists = [SectionStore.defaultList] + (0..<Int.random(in: 0...2, using: &generator)).map { "list \($0)" }
        for name in lists {
            if name != SectionStore.defaultList { try store.createList(named: name) }
            for _ in 0..<Int.random(in: 0...12, using: &generator) {
                let emptyText = Bool.random(using: &generator) ? texts.randomElement(using: &generator) : nil
                let section = try store.addSection(texts.randomElement(using: &generator)!, emptyText: emptyText, to: name)
                for _ in 0..<[0, 1, 3, 15].randomElement(using: &generator)! {
                    let title = texts.randomElement(using: &generator)!
                    let content: RowContent
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: content = .text(title)
                    case 1: content = .topic(title)
                    case 2: content = .field(title, nil)
                    default: content = .field(title, texts.randomElement(using: &generator)!)
                    }
                    try store.addRow(content, section: section, to: name)
                }
            }
        }
    }

    /// The native format as `docs/formats.md` describes it, built whole from snapshots: the
    /// model the streamed export is compared with.
    static func referenceDocument(_ snapshots: [ListSnapshot]) -> String {
        func quoted(_ text: String?) -> String {
            guard let text else { return "null" }
            var out = "\""
            for scalar in text.unicodeScalars {
                switch scalar {
                case "\"": out += "\\\""
                case "\\": out += "\\\\"
                case "\n": out += "\\n"
                case "\r": out += "\\r"
                case "\t": out += "\\t"
                case "\u{8}": out += "\\b"
                case "\u{C}": out += "\\f"
                default:
                    if scalar.value < 0x20 {
                        let hex = String(scalar.value, radix: 16, uppercase: true)
                        out += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                    } else {
                        out.unicodeScalars.append(scalar)
                    }
                }
            }
            return out + "\""
        }
        let lists = snapshots.map { list in
            let sections = list.sections.map { section in
                let rows = section.rows.map { row in
                    "            {\"kind\": \(quoted(row.kind.rawValue)), \"title\": \(quoted(row.title)), \"value\": \(quoted(row.value))}"
                }
                return "        {\n          \"title\": \(quoted(section.title)),\n          \"empty_text\": \(quoted(section.emptyText)),\n"
                    + "          \"rows\": [" + (rows.isEmpty ? "]" : "\n" + rows.joined(separator: ",\n") + "\n          ]") + "\n        }"
            }
            return "    {\n      \"name\": \(quoted(list.name)),\n      \"sections\": ["
                + (sections.isEmpty ? "]" : "\n" + sections.joined(separator: ",\n") + "\n      ]") + "\n    }"
        }
        return "{\n  \"format\": \"sectionctl\",\n  \"version\": 1,\n  \"lists\": ["
            + (lists.isEmpty ? "]" : "\n" + lists.joined(separator: ",\n") + "\n  ]") + "\n}\n"
    }

    @Test(arguments: seeds) func theStreamedExportIsTheWholeDocumentByteForByte(seed: UInt64) throws {
        var generator = Generator(seed: seed)
        let fixture = try TransferFixture()
        try Self.fillRandomLists(fixture.store, using: &generator)
        let snapshots = try fixture.store.lists().map { try fixture.store.list($0.name).snapshot() }
        var chunks: [String] = []
        try fixture.store.exportAllJSON { chunks.append($0) }
        #expect(chunks.joined() == Self.referenceDocument(snapshots), "seed \(seed)")
        #expect(try fixture.store.exportAllJSON() == chunks.joined(), "seed \(seed)")
        var single = ""
        try fixture.store.list(SectionStore.defaultList).exportJSON { single += $0 }
        #expect(single == Self.referenceDocument([try fixture.list.snapshot()]), "seed \(seed)")
        #expect(try fixture.list.exportJSON() == single, "seed \(seed)")
    }

    @Test func aLargeExportComesInPiecesThatJoinToTheWholeDocument() throws {
        let fixture = try TransferFixture()
        let section = try fixture.store.addSection("many")
        let session = try fixture.list.beginEditing()
        for index in 0..<3_000 {
            try session.apply(.addRow(.field("label \(index)", "value \(index)"), to: RowDestination(section: .index(section), index: .end)))
        }
        try session.save()
        var chunks: [String] = []
        try fixture.list.exportJSON { chunks.append($0) }
        #expect(chunks.count > 2)
        #expect(chunks.dropLast().allSatisfy { $0.utf8.count < 2 * NativeWriter.chunkSize })
        #expect(chunks.joined() == Self.referenceDocument([try fixture.list.snapshot()]))
    }

    @Test func nothingIsHandedToTheSinkForAMissingList() throws {
        let fixture = try TransferFixture()
        var calls = 0
        #expect(throws: RepositoryError.listNotFound("nope", available: ["default"])) {
            try fixture.store.list("nope").exportJSON { _ in calls += 1 }
        }
        #expect(throws: RepositoryError.listNotFound("nope", available: ["default"])) {
            try fixture.store.list("nope").forEachItem(start: { _ in calls += 1 }) { _ in calls += 1 }
        }
        #expect(calls == 0)
    }

    @Test(arguments: seeds) func forEachItemDeliversTheSnapshotInOrder(seed: UInt64) throws {
        var generator = Generator(seed: seed)
        let fixture = try TransferFixture()
        try Self.fillRandomLists(fixture.store, using: &generator)
        for editing in [false, true] {
            let snapshot = try fixture.list.snapshot(editing: editing)
            var header: ListHeader?
            var sections: [Section] = []
            var infos: [SectionInfo] = []
            try fixture.list.forEachItem(editing: editing, start: { header = $0 }) { item in
                switch item {
                case .section(let info):
                    #expect(header != nil, "the header comes first")
                    #expect(info.index == sections.count)
                    infos.append(info)
                    sections.append(Section(id: info.id, title: info.title, emptyText: info.emptyText))
                case .row(let row, let path):
                    #expect(path == RowPath(section: sections.count - 1, row: sections[sections.count - 1].rows.count))
                    sections[sections.count - 1].rows.append(row)
                }
            }
            #expect(
                ListSnapshot(name: snapshot.name, version: snapshot.version, isEditing: editing, sections: sections, listID: snapshot.listID)
                    == snapshot)
            #expect(infos.map(\.rowCount) == snapshot.sections.map(\.rows.count))
            #expect(infos.map { $0.footer(editing: editing) } == snapshot.sections.map { $0.footer(editing: editing) })
            let widest = snapshot.sections.enumerated().map { $1.rows.isEmpty ? 3 : "\($0):\($1.rows.count - 1)".count }.max() ?? 3
            #expect(
                header
                    == ListHeader(
                        listID: header?.listID ?? 0, name: snapshot.name, version: snapshot.version, isEditing: editing,
                        sectionCount: snapshot.sections.count, rowCount: snapshot.rowCount, pathWidth: widest), "seed \(seed)")
            #expect(try fixture.list.header(editing: editing) == header)
        }
    }

    @Test func theHeaderCountsThePathWidthOfTheWidestPath() throws {
        let fixture = try TransferFixture()
        // Section 0 holds 12 rows ("0:11"), sections 1…10 one each ("10:0"): the widest is 4,
        // and "10:11" (the largest index with the largest count) would be wrong.
        try fixture.store.addSection("big")
        for index in 0..<12 { try fixture.store.addRow(.text("r\(index)"), section: 0) }
        for index in 1...10 {
            try fixture.store.addSection("s\(index)")
            try fixture.store.addRow(.text("x"), section: index)
        }
        #expect(try fixture.list.header().pathWidth == 4)
        try fixture.store.addSection("empty")
        #expect(try fixture.list.header().pathWidth == 4)
    }

    // MARK: - Native import from a stream

    /// A stream that hands out `data` in pieces of random sizes from 1 to `largest` bytes.
    static func chopped(_ data: Data, largest: Int, using generator: inout Generator) -> JSONStream {
        var sizes: [Int] = []
        var total = 0
        while total < data.count {
            let size = Int.random(in: 1...largest, using: &generator)
            sizes.append(size)
            total += size
        }
        var offset = 0
        var next = sizes.makeIterator()
        return JSONStream(read: {
            guard offset < data.count, let size = next.next() else { return nil }
            defer { offset += size }
            return data.subdata(in: offset..<min(data.count, offset + size))
        })
    }

    static func nodes(_ stream: inout JSONStream) -> (kinds: [String], error: String?) {
        var kinds: [String] = []
        do {
            try stream.forEachNode { node in
                kinds.append("\(node.id)<\(node.parent.map(String.init) ?? "-") \(node.key ?? "") \(node.kind) \(node.text ?? "")")
            }
            return (kinds, nil)
        } catch {
            return (kinds, "\(error)")
        }
    }

    @Test(arguments: seeds) func howTheInputIsCutChangesNothingItsErrorsIncluded(seed: UInt64) throws {
        var generator = Generator(seed: seed)
        let fixture = try TransferFixture()
        try Self.fillRandomLists(fixture.store, using: &generator)
        let exported = Data(try fixture.store.exportAllJSON().utf8)
        var documents = [
            exported, Data("\u{FEFF}{\"lists\": [], \"n\": [1.50, -0, 1e999, 12345678901234567890, true, false, null]}".utf8),
        ]
        // Broken copies: cut short, a byte changed, invalid UTF-8, a lone surrogate.
        for _ in 0..<6 {
            var broken = exported
            let place = Int.random(in: 0..<broken.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: broken = broken.prefix(place)
            case 1: broken[place] = [UInt8(ascii: "}"), UInt8(ascii: ","), 0x00, 0xFF].randomElement(using: &generator)!
            case 2: broken.insert(contentsOf: [0xE3, 0x81], at: place)
            default: broken.insert(contentsOf: Data("\\uD800".utf8), at: place)
            }
            documents.append(broken)
        }
        for document in documents {
            var whole = JSONStream(data: document)
            let expected = Self.nodes(&whole)
            for largest in [1, 3, 7, 4096] {
                var pieces = Self.chopped(document, largest: largest, using: &generator)
                let got = Self.nodes(&pieces)
                #expect(got.kinds == expected.kinds, "seed \(seed), pieces up to \(largest) bytes")
                #expect(got.error == expected.error, "seed \(seed), pieces up to \(largest) bytes")
            }
        }
    }

    /// Each node as (ordinal of its parent, key, kind, text), ids aside: what both walks agree on.
    static func shape(_ nodes: [JSONTreeNode]) -> [String] {
        var ordinals: [Int64: Int] = [:]
        return nodes.enumerated().map { offset, node in
            ordinals[node.id] = offset
            let parent = node.parent.flatMap { ordinals[$0] }.map(String.init) ?? "-"
            return "\(parent) \(node.key ?? "<none>") \(node.kind) \(node.text ?? "<none>")"
        }
    }

    @Test(arguments: seeds) func theStreamGivesTheNodesJSONTreeGives(seed: UInt64) throws {
        var generator = Generator(seed: seed)
        let fixture = try TransferFixture()
        try Self.fillRandomLists(fixture.store, using: &generator)
        let documents = [
            try fixture.store.exportAllJSON(),
            #"{"a": [1, 1.50, -0.0e+1, 12345678901234567890, true, false, null, {}, [], "\u0000x", {"\u0000": "é"}], "b": {"c": [[]]}}"#,
        ]
        let sqlite = try SQLiteJSONTree()
        for document in documents {
            let bytes = Array(document.utf8)
            let expected = try sqlite.nodes(of: document, arrayText: false)
            var stream = JSONStream(data: Data(bytes))
            var got: [JSONTreeNode] = []
            try stream.forEachNode { got.append($0) }
            #expect(Self.shape(got) == Self.shape(expected), "seed \(seed)")
        }
    }

    @Test func errorsNameTheSamePlaceAsTheWholeDocumentScanner() throws {
        let documents = [
            "{\"lists\": [}", "\n\n  {\"a\" 1}", "{\"名前\": \"値\" x}", "[1, 2,\n 3, 0x]", "{\"s\": \"tab\there\"}", "", "   ",
            "{\"a\": \"\\uDC00\"}", "{\"a\": tru}", "[1] [2]", "{\"a\": \"\u{1F600}\", \"b\": 01}",
        ]
        for document in documents {
            let bytes = Array(document.utf8)
            let expected = bytes.withUnsafeBufferPointer { buffer -> String? in
                do {
                    _ = try JSONReader.scanDocument(buffer)
                    return nil
                } catch let error as JSONSyntaxError {
                    return "\(error.invalidData(in: buffer))"
                } catch {
                    return "\(error)"
                }
            }
            var stream = JSONStream(data: Data(bytes))
            #expect(Self.nodes(&stream).error == expected, "\(document)")
        }
    }

    @Test func importFromAFileHandleRecreatesTheLists() throws {
        let fixture = try TransferFixture()
        try NativeFormatTests.fillRichList(fixture.store)
        try NativeFormatTests.fillRichList(fixture.store, name: "second")
        let exported = try fixture.store.exportAllJSON()
        let fresh = try fixture.freshStore("fresh.db")
        let changes = try fresh.importJSON(from: fixture.fileHandle("all.json", contents: Data(exported.utf8)))
        #expect(changes.map(\.list) == ["default", "second"])
        #expect(try fresh.exportAllJSON() == exported)
    }

    @Test func aBadEndRefusesTheWholeStreamedImport() throws {
        let fixture = try TransferFixture()
        let source = try TransferFixture()
        var generator = Generator(seed: 7)
        try Self.fillRandomLists(source.store, using: &generator)
        try source.store.createList(named: "zz")
        try source.store.addSection("last", to: "zz")
        var document = try source.store.exportAllJSON()
        document.removeLast(4)  // "  ]\n}\n" loses its end
        let before = try fixture.state()
        let message = invalidDataMessage {
            try fixture.store.importJSON(from: fixture.fileHandle("cut.json", contents: Data(document.utf8)))
        }
        #expect(message.hasPrefix("invalid JSON at line \(document.split(separator: "\n", omittingEmptySubsequences: false).count), column 3"))
        #expect(message.hasSuffix("unexpected end of input; expected ',' or ']'"))
        #expect(try fixture.state() == before)
    }

    @Test func endlessInputIsRefusedAsItComes() throws {
        let fixture = try TransferFixture()
        let before = try fixture.state()
        // /dev/zero: NUL is not JSON, so the first byte ends it.
        var reads = 0
        var zeros = JSONStream(read: {
            reads += 1
            return Data(count: JSONStream.chunkSize)
        })
        let message = invalidDataMessage {
            _ = try fixture.store.importNativeForTesting(from: &zeros)
        }
        #expect(message == "invalid JSON at line 1, column 1 (byte offset 0): unexpected character U+0000; expected a value")
        #expect(reads == 1)

        // A string that never ends is refused at the limit, not when memory runs out.
        let prefix = Data(#"{"lists": [{"name": ""#.utf8)
        var served = 0
        var endless = JSONStream(read: {
            defer { served += 1 }
            return served == 0 ? prefix : Data(repeating: UInt8(ascii: "a"), count: JSONStream.chunkSize)
        })
        let tooLong = invalidDataMessage { _ = try fixture.store.importNativeForTesting(from: &endless) }
        #expect(tooLong.hasPrefix("invalid JSON at line 1, column 21 (byte offset 20): a string longer than \(JSONStream.maximumTokenLength) bytes"))
        #expect(served * JSONStream.chunkSize < JSONStream.maximumTokenLength + 4 * JSONStream.chunkSize)
        #expect(try fixture.state() == before)
    }

    @Test func aNumberPastTheLimitIsRefused() throws {
        var digits = JSONStream(data: Data(("{\"n\": " + String(repeating: "7", count: JSONStream.maximumTokenLength + 1) + "}").utf8))
        #expect(Self.nodes(&digits).error?.contains("a number longer than \(JSONStream.maximumTokenLength) bytes") == true)
    }

    @Test func membersInAnyOrderStillImport() throws {
        let fixture = try TransferFixture()
        let document = """
            {"lists": [
              {"sections": [{"rows": [{"title": "r1"}], "empty_text": "late", "title": "A"},
                            {"title": "B", "rows": [{"title": "r2"}], "empty_text": "after rows"},
                            {"empty_text": "first", "title": "C"}],
               "name": "late name"},
              {"name": "early", "sections": [{"title": "D", "rows": [{"title": "r3"}, {"title": "r4"}], "empty_text": "x"}]}
            ]}
            """
        try fixture.store.importJSON(Data(document.utf8))
        let late = try fixture.store.list("late name").snapshot()
        #expect(late.sections.map(\.title) == ["A", "B", "C"])
        #expect(late.sections.map(\.emptyText) == ["late", "after rows", "first"])
        #expect(late.sections.map { $0.rows.map(\.title) } == [["r1"], ["r2"], []])
        let early = try fixture.store.list("early").snapshot()
        #expect(early.sections.map(\.emptyText) == ["x"])
        #expect(early.sections.map { $0.rows.map(\.title) } == [["r3", "r4"]])
    }

    @Test func manyListsImportAndARepeatedNameIsFoundAtTheEnd() throws {
        let fixture = try TransferFixture()
        let count = 2_000
        var lists = (0..<count).map { #"{"name": "list \#($0)", "sections": []}"# }
        let document = #"{"lists": ["# + lists.joined(separator: ", ") + "]}"
        let changes = try fixture.store.importJSON(Data(document.utf8))
        #expect(changes.count == count)
        #expect(try fixture.store.lists().count == count + 1)

        let other = try TransferFixture()
        lists.append(#"{"name": "list 7"}"#)
        let before = try other.state()
        let message = invalidDataMessage { try other.store.importJSON(Data((#"{"lists": ["# + lists.joined(separator: ", ") + "]}").utf8)) }
        #expect(message == "$.lists[\(count)].name: the list \"list 7\" appears twice in the document")
        #expect(try other.state() == before)
    }

    @Test func aListNameForADocumentOfSeveralListsIsRefusedAtTheSecond() throws {
        let fixture = try TransferFixture()
        let before = try fixture.state()
        #expect(throws: RepositoryError.listNameForSeveralLists) {
            try fixture.store.importJSON(Data(#"{"lists": [{"name": "a"}, {"name": "b"}]}"#.utf8), list: "x")
        }
        #expect(try fixture.state() == before)
        try fixture.store.importJSON(Data(#"{"lists": [{"name": "a", "sections": [{"title": "s"}]}]}"#.utf8), list: "x")
        #expect(try fixture.store.list("x").snapshot().sections.map(\.title) == ["s"])
    }
}

extension SectionStore {
    /// A native import from any stream, as the public entry points run it.
    func importNativeForTesting(from stream: inout JSONStream) throws -> [Change] {
        try write { db in try importNative(from: &stream, list: nil, policy: .refuse, db: db) }
    }
}
