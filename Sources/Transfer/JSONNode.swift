/// The kind of a JSON value, as a node gives it.
enum JSONNodeKind: Equatable {
    case object, array, string, number, boolean, null

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

/// One value of a JSON document, as `JSONReader.forEachNode` and `JSONStream` hand them over:
/// parents before children, members in the document's own order (the order SQLite's
/// `json_tree` walks a document in).
struct JSONTreeNode {
    /// The node's number; children name it as their parent.
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
