// SQLite's `json_tree`, walked the way records import once read records: the reference that
// the project's own JSON parser (`JSONReader.forEachNode`) is held to. The records fuzz target
// compiles this file too (Fuzz/Harnesses/records-jsontree.swift links to it), so it imports
// nothing but SQLite, Foundation and Transfer.
import Foundation
import SQLite

@testable import Transfer

/// The nodes SQLite's `json_tree` finds in a valid JSON document.
///
/// What `json_tree` cannot give back exactly is taken from the document's text, as the import
/// did: a number's text (SQLite turns numbers into integers and doubles, so `1.50` would come
/// back as `1.5`) and strings holding U+0000 (SQLite's JSON functions end a string there). A
/// small lexer of its own finds them, and SQLite decodes those strings a piece at a time between
/// their `\u0000` escapes, so that nothing here leans on the parser under test.
final class SQLiteJSONTree {
    private let db: Connection

    init() throws {
        db = try Connection(path: ":memory:", mode: .readWriteCreate)
    }

    private static let nodesSQL = """
        SELECT id, parent, type, CASE WHEN typeof(key) = 'text' THEN key END, CASE type WHEN 'text' THEN atom END
        FROM json_tree(?)
        """
    private static let nodesWithArrayTextSQL = """
        SELECT id, parent, type, CASE WHEN typeof(key) = 'text' THEN key END,
               CASE type WHEN 'text' THEN atom WHEN 'array' THEN value END
        FROM json_tree(?)
        """

    struct Mismatch: Error, CustomStringConvertible {
        var description: String
    }

    /// Every node of `json`, in the order `json_tree` visits them. With `arrayText`, an array
    /// carries its JSON text as SQLite writes it: compact, strings and numbers as in the document.
    func nodes(of json: String, arrayText: Bool) throws -> [JSONTreeNode] {
        let exact = try exactTexts(of: json)
        let statement = try db.statement(arrayText ? Self.nodesWithArrayTextSQL : Self.nodesSQL)
        try statement.bind([json])
        defer { statement.reset() }
        var nodes: [JSONTreeNode] = []
        var nextNumber = 0
        var nextString = 0
        while try statement.step() {
            let kind = Self.kind(sqliteType: statement.string(2))
            var node = JSONTreeNode(
                id: statement.int64(0), parent: statement.optionalInt64(1), kind: kind, key: statement.optionalString(3),
                text: statement.optionalString(4))
            if node.key != nil {
                if let key = exact.stringsWithNUL[nextString] { node.key = key }
                nextString += 1
            }
            switch kind {
            case .number:
                guard nextNumber < exact.numbers.count else { throw Mismatch(description: "SQLite found more numbers than the lexer") }
                node.text = exact.numbers[nextNumber]
                nextNumber += 1
            case .string:
                if let text = exact.stringsWithNUL[nextString] { node.text = text }
                nextString += 1
            case .boolean:
                node.text = statement.string(2)
            default:
                break
            }
            nodes.append(node)
        }
        return nodes
    }

    /// The nodes of `json` that records import keeps: those not inside an array, each array
    /// carrying its JSON text.
    func recordNodes(of json: String) throws -> [JSONTreeNode] {
        var insideArray: Set<Int64> = []  // the arrays and everything inside them
        var kept: [JSONTreeNode] = []
        for node in try nodes(of: json, arrayText: true) {
            if let parent = node.parent, insideArray.contains(parent) {
                insideArray.insert(node.id)
                continue
            }
            if node.kind == .array { insideArray.insert(node.id) }
            kept.append(node)
        }
        return kept
    }

    private static func kind(sqliteType: String) -> JSONNodeKind {
        switch sqliteType {
        case "object": return .object
        case "array": return .array
        case "text": return .string
        case "integer", "real": return .number
        case "true", "false": return .boolean
        default: return .null
        }
    }

    /// The text of every number, and the strings holding U+0000 (decoded, by their ordinal among
    /// all strings, member names included), in document order. `json` must be valid.
    func exactTexts(of json: String) throws -> (numbers: [String], stringsWithNUL: [Int: String]) {
        let bytes = Array(json.utf8)
        var numbers: [String] = []
        var strings: [Int: String] = [:]
        var ordinal = 0
        var index = 0
        let numberBytes = Set("0123456789+-.eE".utf8)
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                let start = index
                var holdsNUL = false
                index += 1
                while bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\") {
                        if bytes[index + 1] == UInt8(ascii: "u") && bytes[index + 2..<index + 6].elementsEqual("0000".utf8) {
                            holdsNUL = true
                        }
                        index += 2
                    } else {
                        index += 1
                    }
                }
                index += 1
                if holdsNUL { strings[ordinal] = try decodedAroundNUL(bytes[start + 1..<index - 1]) }
                ordinal += 1
            } else if byte == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
                let start = index
                while index < bytes.count && numberBytes.contains(bytes[index]) { index += 1 }
                numbers.append(String(decoding: bytes[start..<index], as: UTF8.self))
            } else {
                index += 1
            }
        }
        return (numbers, strings)
    }

    /// The text of a string literal's content that holds `\u0000` escapes: SQLite decodes the
    /// pieces between them.
    private func decodedAroundNUL(_ content: ArraySlice<UInt8>) throws -> String {
        var pieces: [String] = []
        var pieceStart = content.startIndex
        var index = content.startIndex
        while index < content.endIndex {
            guard content[index] == UInt8(ascii: "\\") else {
                index += 1
                continue
            }
            if content[index + 1] == UInt8(ascii: "u") && content[index + 2..<index + 6].elementsEqual("0000".utf8) {
                pieces.append(try decoded(content[pieceStart..<index]))
                index += 6
                pieceStart = index
            } else {
                index += 2
            }
        }
        pieces.append(try decoded(content[pieceStart..<index]))
        return pieces.joined(separator: "\u{0}")
    }

    private func decoded(_ content: ArraySlice<UInt8>) throws -> String {
        let literal = "\"" + String(decoding: content, as: UTF8.self) + "\""
        guard let text = try db.queryFirst("SELECT json_extract(?, '$')", literal, row: { $0.optionalString(0) }) ?? nil else {
            throw Mismatch(description: "SQLite does not read \(literal) as a string")
        }
        return text
    }
}
