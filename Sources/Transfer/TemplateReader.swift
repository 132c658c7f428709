import Foundation
import Repository

/// Reads a `RecordTemplate` from its JSON form (see `docs/formats.md`). Templates are written by
/// hand, so unknown members are refused rather than skipped: a misspelt "lable" is reported.
enum TemplateReader {
    /// The deepest nesting of `fields` accepted.
    static let maximumDepth = 64

    static func template(from data: Data) throws -> RecordTemplate {
        try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let document: JSONReader.Document
            do {
                document = try JSONReader.scanDocument(bytes)
            } catch let error as JSONSyntaxError {
                throw error.invalidData(in: bytes, prefix: "invalid template: invalid JSON")
            }
            guard document.kind == .object else {
                throw invalid("the template is \(document.kind.rawValue); it must be an object with \"fields\"")
            }
            let tree: RecordTree
            do {
                tree = try RecordTree(RecordText(json: document.json, number: 0), expandingArrays: true)
            } catch let problem as RecordProblem {
                throw invalid(problem.message)
            }
            return try decode(tree)
        }
    }

    private static func decode(_ tree: RecordTree) throws -> RecordTemplate {
        var template = RecordTemplate()
        for member in try distinctMembers(of: 0, in: tree, at: "$") {
            let node = tree.nodes[member]
            switch node.key {
            case "title":
                guard node.kind == .string || node.kind == .null else {
                    throw invalid("$.title must be a string or null; found \(node.kind.described)")
                }
                template.title = node.kind == .null ? nil : node.text ?? ""
                if let title = template.title {
                    do {
                        _ = try TitlePattern(title)
                    } catch let problem as RecordProblem {
                        throw invalid("$.title: \(problem.message)")
                    }
                }
            case "fields":
                template.fields = try fields(member, in: tree, at: "$.fields", depth: 1)
            case "unlisted":
                template.unlisted = try unlisted(node, at: "$.unlisted")
            default:
                throw invalid("$ has an unknown member \(jsonQuoted(node.key)); a template has \"title\", \"fields\" and \"unlisted\"")
            }
        }
        return template
    }

    private static func fields(_ array: Int, in tree: RecordTree, at path: String, depth: Int) throws -> [RecordTemplate.Field] {
        guard tree.nodes[array].kind == .array else {
            throw invalid("\(path) must be an array; found \(tree.nodes[array].kind.described)")
        }
        guard depth <= maximumDepth else { throw invalid("\(path): fields are nested deeper than \(maximumDepth) levels") }
        var result: [RecordTemplate.Field] = []
        var keys: Set<ExactText> = []  // byte for byte, as record keys are matched
        for (offset, element) in tree.members(of: array).enumerated() {
            let elementPath = "\(path)[\(offset)]"
            let node = tree.nodes[element]
            var field: RecordTemplate.Field
            switch node.kind {
            case .string:
                field = RecordTemplate.Field(key: node.text ?? "")
            case .object:
                field = RecordTemplate.Field(key: "")
                var key: String?
                var label: String?
                for member in try distinctMembers(of: element, in: tree, at: elementPath) {
                    let value = tree.nodes[member]
                    let memberPath = "\(elementPath).\(value.key)"
                    switch value.key {
                    case "key": key = try text(value, at: memberPath)
                    case "label": label = try text(value, at: memberPath)
                    case "expected":
                        guard value.kind == .boolean else { throw invalid("\(memberPath) must be true or false; found \(value.kind.described)") }
                        field.isExpected = value.text == "true"
                    case "fields": field.fields = try fields(member, in: tree, at: memberPath, depth: depth + 1)
                    case "unlisted": field.unlisted = try unlisted(value, at: memberPath)
                    default:
                        throw invalid(
                            "\(elementPath) has an unknown member \(jsonQuoted(value.key)); a field has \"key\", \"label\", \"expected\", \"fields\" and \"unlisted\""
                        )
                    }
                }
                guard let key else { throw invalid("\(elementPath) has no \"key\"") }
                field.key = key
                field.label = label ?? key
            default:
                throw invalid("\(elementPath) must be a key (a string) or an object with \"key\"; found \(node.kind.described)")
            }
            guard keys.insert(ExactText(field.key)).inserted else {
                throw invalid("\(elementPath): the key \(jsonQuoted(field.key)) is listed twice at this level")
            }
            result.append(field)
        }
        return result
    }

    /// The members of the object at `index`, refusing one named twice.
    private static func distinctMembers(of index: Int, in tree: RecordTree, at path: String) throws -> [Int] {
        let members = tree.members(of: index)
        var names: Set<ExactText> = []
        for member in members where !names.insert(ExactText(tree.nodes[member].key)).inserted {
            throw invalid("\(path) has the member \(jsonQuoted(tree.nodes[member].key)) twice")
        }
        return members
    }

    private static func text(_ node: RecordTree.Node, at path: String) throws -> String {
        guard node.kind == .string else { throw invalid("\(path) must be a string; found \(node.kind.described)") }
        return node.text ?? ""
    }

    private static func unlisted(_ node: RecordTree.Node, at path: String) throws -> RecordTemplate.UnlistedKeys {
        guard node.kind == .string, let value = RecordTemplate.UnlistedKeys(rawValue: node.text ?? "") else {
            throw invalid("\(path) must be \"keep\" or \"drop\"; found \(node.kind == .string ? jsonQuoted(node.text ?? "") : node.kind.described)")
        }
        return value
    }

    private static func invalid(_ message: String) -> RepositoryError {
        .invalidData("invalid template: \(message)")
    }
}
