import Foundation
import SQLite

extension NativeDocument {
    /// Reads a native JSON document.
    /// - Throws: `RepositoryError.invalidData` naming the place of the first problem: line,
    ///   column and byte offset for malformed JSON and invalid UTF-8, the JSON path (such as
    ///   `$.lists[0].sections[2].rows[1].kind`) for a document of the wrong shape.
    init(data: Data) throws {
        self = try data.withUnsafeBytes { raw in
            let bytes = raw.bindMemory(to: UInt8.self)
            let document: JSONScanner.Document
            do {
                document = try JSONScanner.scanDocument(bytes)
            } catch let error as JSONSyntaxError {
                throw error.invalidData(in: bytes)
            }
            guard document.kind == .object else {
                throw RepositoryError.invalidData(
                    "the document is \(document.kind.rawValue); a sectionctl export is an object with a \"lists\" array"
                        + (document.kind == .array ? " (an array of records is imported with records import, --records)" : ""))
            }
            var reader = NativeReader()
            do {
                try JSONTree.forEachNode(in: document.json, arrayText: false, db: Connection.scratch()) {
                    try reader.take($0)
                }
            } catch let error as SQLiteError {
                throw RepositoryError.invalidData("SQLite could not read the document: \(error.message)")
            }
            return try reader.finish()
        }
    }
}

/// Builds a `NativeDocument` from `json_tree`'s nodes as they come, checking the shape and
/// naming the JSON path of anything wrong. Unknown members are skipped, so that documents from
/// a newer sectionctl that only add members still import.
private struct NativeReader {
    private enum Role {
        case document, lists, list, sections, section, rows, row, skipped
    }

    private struct Frame {
        var id: Int64
        var role: Role
        /// The known members met so far, one bit each (see `memberBit`).
        var seen: UInt8 = 0
    }

    /// The bit standing for a member this reader knows in an object of `role`, if it knows it.
    private static func memberBit(_ key: String, in role: Role) -> UInt8? {
        switch (role, key) {
        case (.document, "format"), (.list, "name"), (.section, "title"), (.row, "kind"): return 1
        case (.document, "version"), (.list, "sections"), (.section, "empty_text"), (.row, "title"): return 2
        case (.document, "lists"), (.section, "rows"), (.row, "value"): return 4
        default: return nil
        }
    }

    private var stack: [Frame] = []
    private var lists: [NativeList] = []
    private var sawLists = false
    private var listName: String?
    private var section: NativeSection?
    private var sectionHasTitle = false
    private var row: (kind: RowKind?, title: String?, value: String?) = (nil, nil, nil)

    private var listPath: String { "$.lists[\(lists.count - 1)]" }
    private var sectionPath: String { "\(listPath).sections[\(lists[lists.count - 1].sections.count)]" }
    private var rowPath: String { "\(sectionPath).rows[\(section?.rows.count ?? 0)]" }

    mutating func take(_ node: JSONTreeNode) throws {
        while let top = stack.last, top.id != node.parent {
            try close(stack.removeLast())
        }
        guard let parent = stack.last else {
            stack.append(Frame(id: node.id, role: .document))
            return
        }
        let key = node.key ?? ""
        if let key = node.key, let bit = Self.memberBit(key, in: parent.role) {
            guard parent.seen & bit == 0 else {
                throw invalid("\(path(of: parent.role)) has the member \(jsonQuoted(key)) twice")
            }
            stack[stack.count - 1].seen |= bit
        }
        switch (parent.role, key) {
        case (.document, "format"):
            guard node.kind == .string, node.text == NativeDocument.formatName else {
                throw invalid("$.format must be \(jsonQuoted(NativeDocument.formatName)); this is not a sectionctl document")
            }
        case (.document, "version"):
            guard node.kind == .number, let version = Int(node.text ?? ""), version >= 1 else {
                throw invalid("$.version must be a whole number from 1; found \(node.text ?? node.kind.described)")
            }
            guard version <= SectionStore.nativeFormatVersion else {
                throw invalid(
                    "the document is format version \(version), newer than this sectionctl reads (\(SectionStore.nativeFormatVersion)); use a newer sectionctl")
            }
        case (.document, "lists"):
            try expect(node, .array, at: "$.lists")
            sawLists = true
            stack.append(Frame(id: node.id, role: .lists))
        case (.lists, _):
            try expect(node, .object, at: "$.lists[\(lists.count)]")
            lists.append(NativeList(name: ""))
            listName = nil
            stack.append(Frame(id: node.id, role: .list))
        case (.list, "name"):
            listName = try text(node, at: "\(listPath).name")
            guard listName?.isEmpty == false else { throw invalid("\(listPath).name cannot be empty") }
            guard listName?.utf8.contains(0) == false else {
                throw invalid("\(listPath).name cannot contain the character NUL (\\u0000)")
            }
        case (.list, "sections"):
            try expect(node, .array, at: "\(listPath).sections")
            stack.append(Frame(id: node.id, role: .sections))
        case (.sections, _):
            try expect(node, .object, at: sectionPath)
            section = NativeSection(title: "")
            sectionHasTitle = false
            stack.append(Frame(id: node.id, role: .section))
        case (.section, "title"):
            let title = try text(node, at: "\(sectionPath).title")
            section?.title = title
            sectionHasTitle = true
        case (.section, "empty_text"):
            let emptyText = try optionalText(node, at: "\(sectionPath).empty_text")
            section?.emptyText = emptyText
        case (.section, "rows"):
            try expect(node, .array, at: "\(sectionPath).rows")
            stack.append(Frame(id: node.id, role: .rows))
        case (.rows, _):
            try expect(node, .object, at: rowPath)
            row = (nil, nil, nil)
            stack.append(Frame(id: node.id, role: .row))
        case (.row, "kind"):
            let name = try text(node, at: "\(rowPath).kind")
            guard let kind = RowKind(rawValue: name) else {
                throw invalid(
                    "\(rowPath).kind must be one of \(RowKind.allCases.map { jsonQuoted($0.rawValue) }.joined(separator: ", ")); found \(jsonQuoted(name))")
            }
            row.kind = kind
        case (.row, "title"):
            row.title = try text(node, at: "\(rowPath).title")
        case (.row, "value"):
            row.value = try optionalText(node, at: "\(rowPath).value")
        default:
            // An unknown member, or anything inside one: skipped, with all it contains.
            if node.kind == .object || node.kind == .array {
                stack.append(Frame(id: node.id, role: .skipped))
            }
        }
    }

    mutating func finish() throws -> NativeDocument {
        while let frame = stack.popLast() {
            try close(frame)
        }
        guard sawLists else { throw invalid("the document has no \"lists\" array; a sectionctl export has one") }
        return NativeDocument(lists: lists)
    }

    /// Completes the list, section or row that `frame` was.
    private mutating func close(_ frame: Frame) throws {
        switch frame.role {
        case .row:
            guard let title = row.title else { throw invalid("\(rowPath) has no \"title\"") }
            let kind = row.kind ?? .text
            if row.value != nil && kind != .field {
                throw invalid("\(rowPath) is a \(kind.rawValue) row; only field rows have a value")
            }
            try checkLength(title, at: "\(rowPath).title")
            if let value = row.value { try checkLength(value, at: "\(rowPath).value") }
            section?.rows.append(RowContent(kind: kind, title: title, value: row.value))
        case .section:
            guard let finished = section, sectionHasTitle else { throw invalid("\(sectionPath) has no \"title\"") }
            try checkLength(finished.title, at: "\(sectionPath).title")
            if let emptyText = finished.emptyText { try checkLength(emptyText, at: "\(sectionPath).empty_text") }
            lists[lists.count - 1].sections.append(finished)
            section = nil
        case .list:
            guard let name = listName else { throw invalid("\(listPath) has no \"name\"") }
            try checkLength(name, at: "\(listPath).name")
            // Byte for byte, as SQLite compares names: "é" and "e\u0301" are two lists.
            if lists.dropLast().contains(where: { $0.name.utf8.elementsEqual(name.utf8) }) {
                throw invalid("\(listPath).name: the list \(jsonQuoted(name)) appears twice in the document")
            }
            lists[lists.count - 1].name = name
        case .document, .lists, .sections, .rows, .skipped:
            break
        }
    }

    private func path(of role: Role) -> String {
        switch role {
        case .document: return "$"
        case .list: return listPath
        case .section: return sectionPath
        case .row: return rowPath
        default: return "the document"
        }
    }

    private func expect(_ node: JSONTreeNode, _ kind: JSONNodeKind, at path: @autoclosure () -> String) throws {
        guard node.kind == kind else { throw invalid("\(path()) must be \(kind.described); found \(node.kind.described)") }
    }

    private func text(_ node: JSONTreeNode, at path: @autoclosure () -> String) throws -> String {
        try expect(node, .string, at: path())
        return node.text ?? ""
    }

    private func optionalText(_ node: JSONTreeNode, at path: @autoclosure () -> String) throws -> String? {
        guard node.kind == .string || node.kind == .null else {
            throw invalid("\(path()) must be a string or null; found \(node.kind.described)")
        }
        return node.kind == .null ? nil : node.text ?? ""
    }

    private func checkLength(_ text: String, at path: @autoclosure () -> String) throws {
        let length = text.utf8.count
        guard length <= SectionStore.maximumTextLength else {
            throw invalid("\(path()) is \(length) bytes long; at most \(SectionStore.maximumTextLength) are allowed")
        }
    }

    private func invalid(_ message: String) -> RepositoryError { .invalidData(message) }
}

func jsonQuoted(_ text: String) -> String {
    var writer = JSONWriter()
    writer.string(text)
    return writer.text
}
