import SQLite

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

    /// The tree of `record`, read with SQLite's `json_tree`. With `expandingArrays`, the
    /// elements of arrays are nodes too (their `key` is empty).
    init(_ record: RecordText, db: Connection, expandingArrays: Bool = false) throws {
        var lastChild: [Int] = []
        var open: [(id: Int64, node: Int)] = []  // the chain of objects and arrays down to the current node
        do {
            try JSONTree.forEachNode(in: record.json, arrayText: true, db: db) { node in
                while let top = open.last, top.id != node.parent { open.removeLast() }
                let parent = open.last?.node ?? -1
                guard node.parent == nil || (parent >= 0 && (nodes[parent].kind == .object || expandingArrays)) else {
                    // Inside an array (or inside something inside one): part of the array's text.
                    if node.kind == .object || node.kind == .array { open.append((node.id, parent)) }
                    return
                }
                let index = nodes.count
                nodes.append(Node(kind: node.kind, key: node.key ?? "", text: node.text))
                lastChild.append(-1)
                if parent >= 0 {
                    if lastChild[parent] < 0 { nodes[parent].firstChild = index } else { nodes[lastChild[parent]].nextSibling = index }
                    lastChild[parent] = index
                }
                if node.kind == .object || node.kind == .array { open.append((node.id, index)) }
            }
        } catch let error as SQLiteError {
            throw RecordProblem(message: "SQLite could not read it: \(error.message)")
        }
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
            if nodes[child].key == key { return nodes[child] }
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
            text = title.text { key in Self.displayText(of: tree.rootMember(key)) ?? "-" } number: { number }
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
                    var unused: [String: [Int]] = [:]
                    for member in members.reversed() { unused[tree.nodes[member].key, default: []].append(member) }
                    for field in fields {
                        if let member = unused[field.key]?.popLast() {
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
/// record's number, and `{{`, `}}` for braces.
struct TitlePattern {
    enum Part: Equatable {
        case literal(String)
        case key(String)
        case number
    }

    let parts: [Part]

    /// - Throws: `RecordProblem` for an unclosed `{`, an empty `{}`, or a lone `}`.
    init(_ pattern: String) throws {
        var parts: [Part] = []
        var literal = ""
        var characters = pattern[...]
        while let character = characters.popFirst() {
            if character == "{" {
                if characters.first == "{" {
                    characters.removeFirst()
                    literal.append("{")
                    continue
                }
                guard let close = characters.firstIndex(of: "}") else {
                    throw RecordProblem(message: "a '{' is not closed (write '{{' for a brace)")
                }
                let name = String(characters[..<close])
                guard !name.isEmpty else { throw RecordProblem(message: "'{}' names no key") }
                if !literal.isEmpty { parts.append(.literal(literal)) }
                literal = ""
                parts.append(name == "#" ? .number : .key(name))
                characters = characters[characters.index(after: close)...]
            } else if character == "}" {
                guard characters.first == "}" else { throw RecordProblem(message: "a '}' is not opened (write '}}' for a brace)") }
                characters.removeFirst()
                literal.append("}")
            } else {
                literal.append(character)
            }
        }
        if !literal.isEmpty { parts.append(.literal(literal)) }
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
