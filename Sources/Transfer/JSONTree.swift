import Repository
import SQLite

/// The kind of a node `json_tree` reports.
enum JSONNodeKind: Equatable {
    case object, array, string, number, boolean, null

    init(sqliteType: String) {
        switch sqliteType {
        case "object": self = .object
        case "array": self = .array
        case "text": self = .string
        case "integer", "real": self = .number
        case "true", "false": self = .boolean
        default: self = .null
        }
    }

    /// "an object", "a string", … for messages.
    var described: String {
        switch self {
        case .object: return "an object"
        case .array: return "an array"
        case .string: return "a string"
        case .number: return "a number"
        case .boolean: return "a boolean"
        case .null: return "null"
        }
    }
}

/// One node of a JSON document as SQLite's `json_tree` walks it: parents before children,
/// members in the document's own order.
struct JSONTreeNode {
    /// SQLite's id for the node; children name it as their parent.
    var id: Int64
    /// The parent's id; `nil` for the root.
    var parent: Int64?
    var kind: JSONNodeKind
    /// The member name, when the parent is an object.
    var key: String?
    /// A string's decoded text; a number's text exactly as written; "true" or "false"; an
    /// array's JSON text when asked for; otherwise `nil`.
    var text: String?
}

/// Walking a JSON document with SQLite's JSON1 functions, which keep an object's members in
/// the document's order (Foundation's `JSONSerialization` does not).
enum JSONTree {
    private static let nodesSQL = """
        SELECT id, parent, type, CASE WHEN typeof(key) = 'text' THEN key END, CASE type WHEN 'text' THEN atom END
        FROM json_tree(?)
        """
    private static let nodesWithArrayTextSQL = """
        SELECT id, parent, type, CASE WHEN typeof(key) = 'text' THEN key END,
               CASE type WHEN 'text' THEN atom WHEN 'array' THEN value END
        FROM json_tree(?)
        """

    /// Calls `body` with every node of `checked`, in document order.
    ///
    /// Numbers get their text as written, and strings holding U+0000 their whole text, from
    /// what the scanner noted: both come in the order `json_tree` visits nodes, a member's name
    /// before its value. With `arrayText`, an array carries its JSON text as SQLite writes it:
    /// compact, with strings and numbers as in the document.
    static func forEachNode(
        in checked: CheckedJSON, arrayText: Bool, db: Connection, _ body: (JSONTreeNode) throws -> Void
    ) throws {
        let statement = try db.statement(arrayText ? nodesWithArrayTextSQL : nodesSQL)
        try statement.bind([checked.json])
        defer { statement.reset() }
        var nextNumber = checked.numbers.startIndex
        var nextString = 0
        while try statement.step() {
            let kind = JSONNodeKind(sqliteType: statement.string(2))
            var node = JSONTreeNode(
                id: statement.int64(0), parent: statement.optionalInt64(1), kind: kind, key: statement.optionalString(3),
                text: statement.optionalString(4))
            if node.key != nil {
                if let key = checked.stringsWithNUL[nextString] { node.key = key }
                nextString += 1
            }
            switch kind {
            case .number:
                guard nextNumber < checked.numbers.endIndex else {
                    throw RepositoryError.invalidData("SQLite found more numbers in the document than its syntax check did")
                }
                node.text = checked.numbers[nextNumber]
                nextNumber += 1
            case .string:
                if let text = checked.stringsWithNUL[nextString] { node.text = text }
                nextString += 1
            case .boolean:
                node.text = statement.string(2)
            default:
                break
            }
            try body(node)
        }
    }
}

extension Connection {
    /// A connection to an empty in-memory database: SQLite's JSON functions with no file.
    static func scratch() throws -> Connection {
        try Connection(path: ":memory:", mode: .readWriteCreate)
    }
}
