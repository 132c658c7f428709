import Foundation
import TestSupport
import Testing

@testable import Repository
@testable import Transfer

/// The project's own JSON parser, `JSONReader.forEachNode`, which records import and templates
/// read with, against SQLite's `json_tree` (which they were read with before) and `JSONStream`.
@Suite("JSON nodes: the scanner's walk against json_tree")
struct JSONNodeTests {
    typealias Generator = SeededGenerator

    static let seeds = propertySeeds([1, 2, 3, 4, 5, 6, 7, 8])

    // MARK: Random documents

    /// Random valid JSON text: nested objects and arrays, strings with every escape, raw
    /// non-ASCII and U+0000, numbers in every form, member names given twice, and whitespace of
    /// every kind between tokens.
    struct RandomJSON {
        static let stringPieces = [
            "a", "text", " ", "é", "e\u{301}", "名前", "\u{1F600}", "\u{7F}", "\u{2028}", "\u{FEFF}", "ﬁ",
            #"\n"#, #"\t"#, #"\""#, #"\\"#, #"\/"#, #"\b"#, #"\f"#, #"\r"#, #"\u00e9"#, #"\u00E9"#, #"\u0301"#,
            #"\ud83d\ude00"#, #"\uD83D\uDE00"#, #"\u0000"#, #"\u001f"#, #"\u2028"#, #"\uFFFF"#, #"\u005C"#, #"\u0022"#,
            "{", "}", "[", "]", ",", ":", "0", "-1.5e3", "true",
        ]
        /// Few names, so that objects often give one twice.
        static let names = [#""a""#, #""b""#, #""a""#, #""""#, #""é""#, #""e\u0301""#, #""\u0000""#, #""k\u0000x""#, #""\"q\"""#, #""1""#]
        static let whitespace = ["", "", "", " ", "  ", "\n", "\t", "\r\n", " \n\t "]

        var generator: Generator

        mutating func space() -> String { Self.whitespace.randomElement(using: &generator)! }

        mutating func string() -> String {
            let count = Int.random(in: 0...5, using: &generator)
            return "\"" + (0..<count).map { _ in Self.stringPieces.randomElement(using: &generator)! }.joined() + "\""
        }

        mutating func digits(_ range: ClosedRange<Int>) -> String {
            String((0..<Int.random(in: range, using: &generator)).map { _ in "0123456789".randomElement(using: &generator)! })
        }

        mutating func number() -> String {
            switch Int.random(in: 0..<8, using: &generator) {
            case 0:
                return ["0", "-0", "1e999", "-1E-400", "12345678901234567890", "9223372036854775808", "-9223372036854775809"]
                    .randomElement(using: &generator)!
            default:
                var text = Bool.random(using: &generator) ? "-" : ""
                text +=
                    Int.random(in: 0..<4, using: &generator) == 0 ? "0" : "123456789".randomElement(using: &generator)!.description + digits(0...25)
                if Bool.random(using: &generator) { text += "." + digits(1...20) }
                if Int.random(in: 0..<3, using: &generator) == 0 {
                    text += ["e", "E"].randomElement(using: &generator)! + ["", "+", "-"].randomElement(using: &generator)! + digits(1...4)
                }
                return text
            }
        }

        mutating func value(depth: Int) -> String {
            let choice = Int.random(in: 0..<(depth < 6 ? 9 : 6), using: &generator)
            switch choice {
            case 0, 1: return string()
            case 2, 3: return number()
            case 4: return ["true", "false", "null"].randomElement(using: &generator)!
            case 5: return Bool.random(using: &generator) ? "{" + space() + "}" : "[" + space() + "]"
            case 6, 7: return object(depth: depth + 1)
            default: return array(depth: depth + 1)
            }
        }

        mutating func object(depth: Int) -> String {
            let members = (0..<Int.random(in: 0...5, using: &generator)).map { _ in
                let name = Bool.random(using: &generator) ? Self.names.randomElement(using: &generator)! : string()
                return space() + name + space() + ":" + space() + value(depth: depth) + space()
            }
            return "{" + (members.isEmpty ? space() : members.joined(separator: ",")) + "}"
        }

        mutating func array(depth: Int) -> String {
            let elements = (0..<Int.random(in: 0...5, using: &generator)).map { _ in space() + value(depth: depth) + space() }
            return "[" + (elements.isEmpty ? space() : elements.joined(separator: ",")) + "]"
        }

        /// A document: mostly an object (a record), sometimes an array or a scalar.
        mutating func document() -> String {
            let body: String
            switch Int.random(in: 0..<10, using: &generator) {
            case 0: body = array(depth: 0)
            case 1: body = value(depth: 6)
            default: body = object(depth: 0)
            }
            return space() + body + space()
        }
    }

    // MARK: Walks

    /// Each node as (ordinal of its parent, key, kind, text), ids aside, as UTF-8 bytes so that
    /// canonically equivalent texts still differ.
    static func shape(_ nodes: [JSONTreeNode]) -> [[UInt8]] {
        var ordinals: [Int64: Int] = [:]
        return nodes.enumerated().map { offset, node in
            ordinals[node.id] = offset
            let parent = node.parent.flatMap { ordinals[$0] }.map(String.init) ?? "-"
            return Array("\(parent) \(node.key.map(jsonQuoted) ?? "<none>") \(node.kind) \(node.text.map(jsonQuoted) ?? "<none>")".utf8)
        }
    }

    /// The scanner's nodes for `json`, or its error.
    static func walk(_ json: String, arrays: JSONArrayNodes) -> Result<[JSONTreeNode], JSONSyntaxError> {
        var json = json
        return json.withUTF8 { bytes in
            var scanner = JSONReader(bytes)
            var nodes: [JSONTreeNode] = []
            do {
                try scanner.forEachNode(arrays: arrays) { nodes.append($0) }
                return .success(nodes)
            } catch let error as JSONSyntaxError {
                return .failure(error)
            } catch {
                preconditionFailure("the walk threw \(error)")
            }
        }
    }

    static func streamed(_ json: String) throws -> [JSONTreeNode] {
        var stream = JSONStream(data: Data(json.utf8))
        var nodes: [JSONTreeNode] = []
        try stream.forEachNode { nodes.append($0) }
        return nodes
    }

    /// What the scanner's walk, SQLite's `json_tree` and the stream disagree on in `json`
    /// (empty when nothing).
    static func differences(in json: String, sqlite: SQLiteJSONTree) throws -> [String] {
        var problems: [String] = []
        let elements = try walk(json, arrays: .elements).get()
        if let difference = firstDifference(elements, try sqlite.nodes(of: json, arrayText: false)) {
            problems.append("with elements, \(difference) where json_tree gives \(difference.expected)")
        }
        if let difference = firstDifference(try walk(json, arrays: .text).get(), try sqlite.recordNodes(of: json)) {
            problems.append("with array text, \(difference) where json_tree gives \(difference.expected)")
        }
        if elements.map(\.id) != elements.indices.map(Int64.init) { problems.append("ids do not count the nodes") }
        if let difference = firstDifference(try streamed(json), elements) {
            problems.append("the stream gives \(difference) where the walk gives \(difference.expected)")
        }
        return problems
    }

    struct Difference: CustomStringConvertible {
        var offset: Int
        var got: String
        var expected: String
        var description: String { "node \(offset) is \(got)" }
    }

    /// The first node whose shape differs, or `nil` when none does.
    static func firstDifference(_ got: [JSONTreeNode], _ expected: [JSONTreeNode]) -> Difference? {
        let (got, expected) = (shape(got), shape(expected))
        guard got != expected else { return nil }
        let offset = (0..<min(got.count, expected.count)).first { got[$0] != expected[$0] } ?? min(got.count, expected.count)
        func shown(_ nodes: [[UInt8]]) -> String {
            offset < nodes.count ? String(decoding: nodes[offset], as: UTF8.self) : "missing (\(nodes.count) nodes)"
        }
        return Difference(offset: offset, got: shown(got), expected: shown(expected))
    }

    // MARK: Tests

    @Test(arguments: seeds) func theWalkGivesTheNodesJSONTreeGivesForRandomDocuments(seed: UInt64) throws {
        var random = RandomJSON(generator: Generator(seed: seed))
        let sqlite = try SQLiteJSONTree()
        for _ in 0..<300 {
            let document = random.document()
            let problems = try Self.differences(in: document, sqlite: sqlite)
            #expect(problems.isEmpty, "seed \(seed) (SECTIONCTL_TEST_SEED=\(seed)), document \(jsonQuoted(document)): \(problems)")
            if !problems.isEmpty { return }
        }
    }

    @Test func awkwardDocumentsGiveTheNodesJSONTreeGives() throws {
        let sqlite = try SQLiteJSONTree()
        let documents = [
            #"{"a": [1, 1.50, -0.0e+1, 12345678901234567890, true, false, null, {}, [], "\u0000x", {"\u0000": "é"}], "b": {"c": [[]]}}"#,
            #"{"a\u0000b": "x\u0000y", "list": [1.10, "n\u0000", {"k\u0000": 2.20}], "after": 3.30, "last": "\u0000\ud83d\ude00\n"}"#,
            "{\"a\": 1, \"a\": 2, \"a\": {\"a\": [ 1 ,\n\t2 ]}, \"é\": 3, \"e\u{301}\": 4}",
            #"{"s": "\"\\\/\b\f\n\r\t\u00e9\u0301 \uFFFF", "t": [" [ ] , : \" ", "\\"]}"#,
            "[1, [2, [3]], {\"x\": [4]}]",
            "  -0  ", #""\u0000""#, "[]", "{}", "null", "1e999",
        ]
        for document in documents {
            let problems = try Self.differences(in: document, sqlite: sqlite)
            #expect(problems.isEmpty, "\(jsonQuoted(document)): \(problems)")
        }
    }

    @Test func anArraysTextDropsOnlyTheWhitespaceBetweenTokens() throws {
        let nodes = try Self.walk("{\"a\": [ 1.50 ,\t\"x  y\\\" \" , { \"k\" : null } ,\r\n[ ] ]}", arrays: .text).get()
        #expect(nodes.map(\.kind) == [.object, .array])
        #expect(nodes[1].key == "a")
        #expect(nodes[1].text == #"[1.50,"x  y\" ",{"k":null},[]]"#)
    }

    /// Valid documents with a byte changed, cut short, or with bytes put in: the walk refuses
    /// exactly what `scanValue` refuses, with its message at its place.
    @Test(arguments: seeds) func theWalkRefusesWhatTheScannerRefusesWithTheSameError(seed: UInt64) throws {
        var random = RandomJSON(generator: Generator(seed: seed))
        var generator = Generator(seed: seed ^ 0xBAD)
        for _ in 0..<300 {
            var bytes = Array(random.document().utf8)
            let place = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: bytes = Array(bytes.prefix(place))
            case 1:
                bytes[place] = [UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: "\""), 0x00, 0xFF, 0x0A].randomElement(
                    using: &generator)!
            case 2: bytes.insert(contentsOf: [0xE3, 0x81], at: place)
            default: bytes.insert(contentsOf: Array(#"\uD800"#.utf8), at: place)
            }
            let expected = bytes.withUnsafeBufferPointer { buffer -> String in
                var scanner = JSONReader(buffer)
                do {
                    try scanner.scanValue()
                    return "ends at \(scanner.index)"
                } catch let error as JSONSyntaxError {
                    return "\(error.invalidData(in: buffer))"
                } catch {
                    return "\(error)"
                }
            }
            for arrays in [JSONArrayNodes.elements, .text] {
                let got = bytes.withUnsafeBufferPointer { buffer -> String in
                    var scanner = JSONReader(buffer)
                    do {
                        try scanner.forEachNode(arrays: arrays) { _ in }
                        return "ends at \(scanner.index)"
                    } catch let error as JSONSyntaxError {
                        return "\(error.invalidData(in: buffer))"
                    } catch {
                        return "\(error)"
                    }
                }
                #expect(got == expected, "seed \(seed) (SECTIONCTL_TEST_SEED=\(seed)), \(arrays), input \(bytes)")
                if got != expected { return }
            }
        }
    }

    @Test func nestingPastTheLimitIsRefusedInsideAnArraysTextToo() throws {
        let limit = JSONReader.maximumDepth
        let within = "{\"a\": " + String(repeating: "[", count: limit - 1) + String(repeating: "]", count: limit - 1) + "}"
        #expect(try Self.walk(within, arrays: .text).get().count == 2)
        #expect(try Self.walk(within, arrays: .elements).get().count == limit)
        let past = "{\"a\": " + String(repeating: "[", count: limit) + String(repeating: "]", count: limit) + "}"
        for arrays in [JSONArrayNodes.elements, .text] {
            guard case .failure(let error) = Self.walk(past, arrays: arrays) else {
                Issue.record("\(arrays): nesting past the limit was accepted")
                continue
            }
            #expect(error.message == "the document is nested deeper than \(limit) levels")
            #expect(error.offset == 6 + limit - 1)
        }
    }

    // MARK: The two fronts

    /// What the whole-buffer front makes of a document, as a native import reads one: a byte
    /// order mark skipped, every node, nothing after the value; or the error, placed.
    static func wholeDocument(_ bytes: [UInt8]) -> (nodes: [String], error: String?) {
        bytes.withUnsafeBufferPointer { buffer in
            var reader = JSONReader(buffer)
            var nodes: [String] = []
            do {
                reader.skipByteOrderMark()
                try reader.forEachNode(arrays: .elements) { nodes.append(Self.described($0)) }
                reader.skipWhitespace()
                guard reader.isAtEnd else { throw reader.unexpected("expected the end of the document") }
                return (nodes, nil)
            } catch let error as JSONSyntaxError {
                return (nodes, "\(error.invalidData(in: buffer))")
            } catch {
                return (nodes, "\(error)")
            }
        }
    }

    /// What the streaming front makes of the same bytes, handed over in pieces of 1 to
    /// `largest` bytes.
    static func streamedDocument(_ bytes: [UInt8], largest: Int, using generator: inout Generator) -> (nodes: [String], error: String?) {
        var offset = 0
        var sizes = Generator(seed: UInt64.random(in: 0...UInt64.max, using: &generator))
        var stream = JSONStream(read: {
            guard offset < bytes.count else { return nil }
            let size = Int.random(in: 1...largest, using: &sizes)
            defer { offset += size }
            return Data(bytes[offset..<min(bytes.count, offset + size)])
        })
        var nodes: [String] = []
        do {
            try stream.forEachNode { nodes.append(Self.described($0)) }
            return (nodes, nil)
        } catch {
            return (nodes, "\(error)")
        }
    }

    static func described(_ node: JSONTreeNode) -> String {
        "\(node.id)<\(node.parent.map(String.init) ?? "-") \(node.key.map(jsonQuoted) ?? "<none>") \(node.kind) \(node.text.map(jsonQuoted) ?? "<none>")"
    }

    /// The fuzz corpora of the JSON readers, as documents.
    static func corpusDocuments() throws -> [[UInt8]] {
        try ["json", "native"].flatMap { target in
            let folder = packageRoot.appendingPathComponent("Fuzz/corpus/\(target)")
            return try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().map {
                Array(try Data(contentsOf: folder.appendingPathComponent($0)))
            }
        }
    }

    /// Both fronts read random documents, broken copies of them and the fuzz corpora alike: the
    /// same nodes, and the same error at the same place, however the stream's input is cut.
    @Test(arguments: seeds) func theWholeBufferAndStreamingFrontsAgree(seed: UInt64) throws {
        var random = RandomJSON(generator: Generator(seed: seed))
        var generator = Generator(seed: seed ^ 0xF0F0)
        var documents = try Self.corpusDocuments()
        #expect(!documents.isEmpty)
        for _ in 0..<150 {
            var bytes = Array(random.document().utf8)
            if Bool.random(using: &generator) { bytes.insert(contentsOf: [0xEF, 0xBB, 0xBF], at: 0) }
            documents.append(bytes)
            let place = Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<5, using: &generator) {
            case 0: bytes = Array(bytes.prefix(place))
            case 1:
                bytes[place] = [UInt8(ascii: "}"), UInt8(ascii: "]"), UInt8(ascii: ","), UInt8(ascii: "\""), 0x00, 0xFF, 0x0A].randomElement(
                    using: &generator)!
            case 2: bytes.insert(contentsOf: [0xE3, 0x81], at: place)
            case 3: bytes.insert(contentsOf: Array(#"\uD800"#.utf8), at: place)
            default: bytes.append(contentsOf: Array(" x".utf8))
            }
            documents.append(bytes)
        }
        for bytes in documents {
            let expected = Self.wholeDocument(bytes)
            for largest in [1, 2, 5, 64] {
                let got = Self.streamedDocument(bytes, largest: largest, using: &generator)
                #expect(got.nodes == expected.nodes, "seed \(seed) (SECTIONCTL_TEST_SEED=\(seed)), pieces up to \(largest), input \(bytes)")
                #expect(got.error == expected.error, "seed \(seed) (SECTIONCTL_TEST_SEED=\(seed)), pieces up to \(largest), input \(bytes)")
                if got.nodes != expected.nodes || got.error != expected.error { return }
            }
        }
    }

    struct ReadFailure: Error, Equatable {}

    /// An input that cannot be read ends the stream with the reason it gave, not with the syntax
    /// error its early end would make, even when what was read is a whole document.
    @Test func aReadFailureIsReportedAsItself() throws {
        for served in ["{\"a\": [1, ", "{\"a\": 1}"] {
            var calls = 0
            var stream = JSONStream(read: {
                calls += 1
                if calls == 1 { return Data(served.utf8) }
                throw ReadFailure()
            })
            #expect(throws: ReadFailure()) { try stream.forEachNode { _ in } }
        }
    }
}
