import Repository

/// One record as a tree of nodes in flat arrays (no recursion to build it or to free it):
/// objects with their members in the document's order, as `json_tree` gives them. Whatever is
/// inside an array is left out; the array keeps its JSON text.
struct RecordTree {
    struct Node {
        var kind: JSONNodeKind
        /// The member name (empty for the root).
        var key: String
        /// A scalar's text, or an array's JSON text; `nil` for objects and null.
        var text: String?
        var firstChild = -1
        var nextSibling = -1
    }

    private(set) var nodes: [Node] = []

    /// The tree of `record`, read with `JSONReader.forEachNode`. With `expandingArrays`, the
    /// elements of arrays are nodes too (their `key` is empty) and arrays carry no text.
    init(_ record: RecordText, expandingArrays: Bool = false) throws {
        var nodes: [Node] = []
        var lastChild: [Int] = []
        var json = record.json
        try json.withUTF8 { bytes in
            var reader = JSONReader(bytes)
            do {
                // The walk numbers its nodes from 0 in the order they come, so a node's id is
                // its index here.
                try reader.forEachNode(arrays: expandingArrays ? .elements : .text) { node in
                    let index = nodes.count
                    nodes.append(Node(kind: node.kind, key: node.key ?? "", text: node.text))
                    lastChild.append(-1)
                    if let parent = node.parent.map(Int.init) {
                        if lastChild[parent] < 0 { nodes[parent].firstChild = index } else { nodes[lastChild[parent]].nextSibling = index }
                        lastChild[parent] = index
                    }
                }
                reader.skipWhitespace()
                guard reader.isAtEnd else { throw reader.unexpected("expected the end of the record") }
            } catch let error as JSONSyntaxError {
                // The record's source checked its syntax already, so this is not expected.
                throw RecordProblem(message: "invalid JSON at \(TextLocation(of: error.offset, in: bytes)) of the record: \(error.message)")
            }
        }
        self.nodes = nodes
    }

    /// The members of the object (or elements of the expanded array) at `index`, in order.
    func members(of index: Int) -> [Int] {
        var result: [Int] = []
        var child = nodes[index].firstChild
        while child >= 0 {
            result.append(child)
            child = nodes[child].nextSibling
        }
        return result
    }

    /// The first member of the root named `key`.
    func rootMember(_ key: String) -> Node? {
        var child = nodes.first?.firstChild ?? -1
        while child >= 0 {
            if nodes[child].key.utf8.elementsEqual(key.utf8) { return nodes[child] }
            child = nodes[child].nextSibling
        }
        return nil
    }
}

/// Turns records into a section title and rows, following the options and template (see
/// `docs/formats.md`).
struct RecordLayout {
    private let title: TitlePattern?
    private let titleKey: String?
    private let template: RecordTemplate?

    init(options: RecordsImportOptions) throws {
        template = options.template
        titleKey = options.titleKey
        if let pattern = options.template?.title {
            do {
                title = try TitlePattern(pattern)
            } catch let problem as RecordProblem {
                throw RepositoryError.invalidData("the template's title is not valid: \(problem.message)")
            }
        } else {
            title = nil
        }
    }

    /// The section title of record `number`: the template's, else the title key's value, else
    /// "Record N".
    func title(of tree: RecordTree, number: Int) throws -> String {
        let text: String
        if let title {
            text = title.text { key in
                Self.displayText(of: tree.rootMember(key)) ?? "-"
            } number: {
                number
            }
        } else if let titleKey, let value = Self.displayText(of: tree.rootMember(titleKey)) {
            text = value
        } else {
            text = "Record \(number)"
        }
        try Self.checkLength(text, of: "the section title")
        return text
    }

    /// What a value shows as a title: a scalar's or an array's text; `nil` for null, an object or
    /// nothing.
    private static func displayText(of node: RecordTree.Node?) -> String? {
        guard let node, node.kind != .object else { return nil }
        return node.text
    }

    /// One step of laying out a record, kept on an explicit stack so that nesting costs no
    /// recursion.
    private enum Step {
        /// The members of an object (`nil`: an expected object that is missing), laid out by
        /// `fields` (`nil`: in the document's order).
        case object(Int?, fields: [RecordTemplate.Field]?, unlisted: RecordTemplate.UnlistedKeys)
        /// A member with the label to show and its template entry.
        case member(Int, label: String, field: RecordTemplate.Field?, unlisted: RecordTemplate.UnlistedKeys)
        /// An expected key that the record does not have.
        case missing(RecordTemplate.Field, unlisted: RecordTemplate.UnlistedKeys)
    }

    /// Calls `body` with each row of the record, in order.
    func forEachRow(of tree: RecordTree, _ body: (RowContent) throws -> Void) throws {
        var steps: [Step] = [.object(0, fields: template?.fields, unlisted: template?.unlisted ?? .keep)]
        while let step = steps.popLast() {
            switch step {
            case .object(let object, let fields, let unlisted):
                let members = object.map(tree.members(of:)) ?? []
                var next: [Step] = []
                if let fields {
                    var unused: [ExactText: [Int]] = [:]
                    for member in members.reversed() { unused[ExactText(tree.nodes[member].key), default: []].append(member) }
                    for field in fields {
                        if let member = unused[ExactText(field.key)]?.popLast() {
                            next.append(.member(member, label: field.label, field: field, unlisted: field.unlisted ?? unlisted))
                        } else if field.isExpected {
                            next.append(.missing(field, unlisted: field.unlisted ?? unlisted))
                        }
                    }
                    if unlisted == .keep {
                        let remaining = Set(unused.values.joined())
                        for member in members where remaining.contains(member) {
                            next.append(.member(member, label: tree.nodes[member].key, field: nil, unlisted: unlisted))
                        }
                    }
                } else {
                    next = members.map { .member($0, label: tree.nodes[$0].key, field: nil, unlisted: unlisted) }
                }
                steps.append(contentsOf: next.reversed())
            case .member(let member, let label, let field, let unlisted):
                let node = tree.nodes[member]
                if node.kind == .object {
                    try emit(.topic(label), body)
                    steps.append(.object(member, fields: field?.fields, unlisted: unlisted))
                } else {
                    try emit(.field(label, node.kind == .null ? nil : node.text ?? ""), body)
                }
            case .missing(let field, let unlisted):
                if let fields = field.fields {
                    try emit(.topic(field.label), body)
                    steps.append(.object(nil, fields: fields, unlisted: unlisted))
                } else {
                    try emit(.field(field.label, nil), body)
                }
            }
        }
    }

    private func emit(_ row: RowContent, _ body: (RowContent) throws -> Void) throws {
        try Self.checkLength(row.title, of: row.kind == .topic ? "the topic title" : "the label")
        if let value = row.value { try Self.checkLength(value, of: "the value of \(jsonQuoted(row.title))") }
        try body(row)
    }

    private static func checkLength(_ text: String, of what: @autoclosure () -> String) throws {
        let length = text.utf8.count
        guard length <= SectionStore.maximumTextLength else {
            throw RecordProblem(message: "\(what()) is \(length) bytes long; at most \(SectionStore.maximumTextLength) are allowed")
        }
    }
}

/// A template's section title: literal text with `{key}` for a top-level value, `{#}` for the
/// record's number, and `{{`, `}}` for braces. Braces are found among Unicode scalars (read as
/// UTF-8 bytes), so a combining mark after a brace does not hide it.
struct TitlePattern {
    enum Part: Equatable {
        case literal(String)
        case key(String)
        case number
    }

    let parts: [Part]

    /// - Throws: `RecordProblem` for an unclosed `{`, an empty `{}`, or a lone `}`.
    init(_ pattern: String) throws {
        let open = UInt8(ascii: "{")
        let close = UInt8(ascii: "}")
        let bytes = Array(pattern.utf8)
        var parts: [Part] = []
        var literal: [UInt8] = []
        func flushLiteral() {
            if !literal.isEmpty { parts.append(.literal(String(decoding: literal, as: UTF8.self))) }
            literal = []
        }
        var index = 0
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == open {
                if index < bytes.count && bytes[index] == open {
                    index += 1
                    literal.append(open)
                    continue
                }
                guard let end = bytes[index...].firstIndex(of: close) else {
                    throw RecordProblem(message: "a '{' is not closed (write '{{' for a brace)")
                }
                guard end > index else { throw RecordProblem(message: "'{}' names no key") }
                // Braces are ASCII, so the bytes between them are whole scalars.
                let name = String(decoding: bytes[index..<end], as: UTF8.self)
                flushLiteral()
                parts.append(name == "#" ? .number : .key(name))
                index = end + 1
            } else if byte == close {
                guard index < bytes.count && bytes[index] == close else {
                    throw RecordProblem(message: "a '}' is not opened (write '}}' for a brace)")
                }
                index += 1
                literal.append(close)
            } else {
                literal.append(byte)
            }
        }
        flushLiteral()
        self.parts = parts
    }

    func text(value: (String) -> String, number: () -> Int) -> String {
        parts.map { part in
            switch part {
            case .literal(let text): return text
            case .key(let key): return value(key)
            case .number: return String(number())
            }
        }.joined()
    }
}

/// A name compared and hashed by its UTF-8 bytes, the way SQLite compares text, rather than by
/// Swift's canonical equivalence: "é" (U+00E9) and "é" (e + U+0301) are two names. Used for
/// template keys, `--title-key` and duplicate checks, so that they agree with the database.
struct ExactText: Hashable {
    var text: String

    init(_ text: String) { self.text = text }

    static func == (lhs: ExactText, rhs: ExactText) -> Bool {
        lhs.text.utf8.elementsEqual(rhs.text.utf8)
    }

    func hash(into hasher: inout Hasher) {
        var text = text
        text.withUTF8 { hasher.combine(bytes: UnsafeRawBufferPointer($0)) }
    }
}
