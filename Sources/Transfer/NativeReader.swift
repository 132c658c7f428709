import Foundation
import Repository

/// Reads a native document from its nodes as they come (`JSONStream`), checking the shape,
/// naming the JSON path of anything wrong, and handing lists, sections and rows to the importer
/// as soon as each is known. Unknown members are skipped, so that documents from a newer
/// sectionctl that only add members still import. Only a list whose name comes after its
/// sections, or a section whose title comes after its rows, is held until then.
struct NativeReader {
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

    private let importer: NativeImporter
    /// The list every list of the document fills instead of its own (only one may come).
    private let listOverride: String?
    private var stack: [Frame] = []
    private var sawLists = false
    /// Lists begun so far, and the names of those finished.
    private var listCount = 0
    private var listNames: Set<[UInt8]> = []
    private var listName: String?
    /// Whether the importer is filling the current list (its name is known).
    private var listStarted = false
    /// The current list's sections read before its name.
    private var pendingSections: [NativeSection] = []
    /// Sections of the current list finished so far.
    private var sectionCount = 0
    /// The current section; its `rows` hold only rows read before its title.
    private var section: NativeSection?
    private var sectionHasTitle = false
    /// Whether the current section was handed to the importer, and with which empty text.
    private var sectionWritten = false
    private var writtenEmptyText: String?
    /// Rows of the current section finished so far.
    private var rowCount = 0
    private var row: (kind: RowKind?, title: String?, value: String?) = (nil, nil, nil)

    private var listPath: String { "$.lists[\(listCount - 1)]" }
    private var sectionPath: String { "\(listPath).sections[\(sectionCount)]" }
    private var rowPath: String { "\(sectionPath).rows[\(rowCount)]" }

    init(importer: NativeImporter, listName: String?) {
        self.importer = importer
        self.listOverride = listName
    }

    mutating func take(_ node: JSONTreeNode) throws {
        while let top = stack.last, top.id != node.parent {
            try close(stack.removeLast())
        }
        guard let parent = stack.last else {
            guard node.kind == .object else {
                throw RepositoryError.invalidData(
                    "the document is \(node.kind.described); a sectionctl export is an object with a \"lists\" array"
                        + (node.kind == .array ? " (an array of records is imported with records import, --records)" : ""))
            }
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
                // A string is shown quoted, so that nothing in it (a line feed) reaches the message raw.
                let found = node.kind == .string ? jsonQuoted(node.text ?? "") : node.text ?? node.kind.described
                throw invalid("$.version must be a whole number from 1; found \(found)")
            }
            guard version <= SectionStore.nativeFormatVersion else {
                throw invalid(
                    "the document is format version \(version), newer than this sectionctl reads (\(SectionStore.nativeFormatVersion)); use a newer sectionctl"
                )
            }
        case (.document, "lists"):
            try expect(node, .array, at: "$.lists")
            sawLists = true
            stack.append(Frame(id: node.id, role: .lists))
        case (.lists, _):
            try expect(node, .object, at: "$.lists[\(listCount)]")
            if listOverride != nil && listCount > 0 {
                throw RepositoryError.listNameForSeveralLists
            }
            listCount += 1
            listName = nil
            listStarted = false
            pendingSections = []
            sectionCount = 0
            stack.append(Frame(id: node.id, role: .list))
        case (.list, "name"):
            listName = try text(node, at: "\(listPath).name")
            guard let name = listName, !name.isEmpty else { throw invalid("\(listPath).name cannot be empty") }
            guard !name.utf8.contains(0) else { throw invalid("\(listPath).name cannot contain the character NUL (\\u0000)") }
            try checkLength(name, at: "\(listPath).name")
            // Byte for byte, as SQLite compares names: "é" and "e\u{301}" are two lists.
            if !listNames.insert(Array(name.utf8)).inserted {
                throw invalid("\(listPath).name: the list \(jsonQuoted(name)) appears twice in the document")
            }
            try startList(listOverride ?? name)
        case (.list, "sections"):
            try expect(node, .array, at: "\(listPath).sections")
            stack.append(Frame(id: node.id, role: .sections))
        case (.sections, _):
            try expect(node, .object, at: sectionPath)
            section = NativeSection(title: "")
            sectionHasTitle = false
            sectionWritten = false
            rowCount = 0
            stack.append(Frame(id: node.id, role: .section))
        case (.section, "title"):
            let title = try text(node, at: "\(sectionPath).title")
            try checkLength(title, at: "\(sectionPath).title")
            section?.title = title
            sectionHasTitle = true
            if listStarted && section?.rows.isEmpty == false { try writeSection() }
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
                    "\(rowPath).kind must be one of \(RowKind.allCases.map { jsonQuoted($0.rawValue) }.joined(separator: ", ")); found \(jsonQuoted(name))"
                )
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

    mutating func finish() throws {
        while let frame = stack.popLast() {
            try close(frame)
        }
        guard sawLists else { throw invalid("the document has no \"lists\" array; a sectionctl export has one") }
    }

    /// The list's name is known: the importer begins it, with the sections read before.
    private mutating func startList(_ name: String) throws {
        try importer.beginList(name)
        listStarted = true
        for pending in pendingSections {
            try importer.appendSection(title: pending.title, emptyText: pending.emptyText)
            for row in pending.rows { try importer.appendRow(row) }
        }
        pendingSections = []
    }

    /// Hands the current section, with the rows read before its title, to the importer.
    private mutating func writeSection() throws {
        guard var current = section else { return }
        try importer.appendSection(title: current.title, emptyText: current.emptyText)
        for row in current.rows { try importer.appendRow(row) }
        current.rows = []
        section = current
        sectionWritten = true
        writtenEmptyText = current.emptyText
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
            let content = RowContent(kind: kind, title: title, value: row.value)
            if !sectionWritten && listStarted && sectionHasTitle { try writeSection() }
            if sectionWritten {
                try importer.appendRow(content)
            } else {
                section?.rows.append(content)
            }
            rowCount += 1
        case .section:
            guard let finished = section, sectionHasTitle else { throw invalid("\(sectionPath) has no \"title\"") }
            if let emptyText = finished.emptyText { try checkLength(emptyText, at: "\(sectionPath).empty_text") }
            if !listStarted {
                pendingSections.append(finished)
            } else if !sectionWritten {
                try writeSection()
            } else if finished.emptyText != writtenEmptyText {
                try importer.setEmptyText(finished.emptyText)
            }
            sectionCount += 1
            section = nil
        case .list:
            guard listName != nil, listStarted else { throw invalid("\(listPath) has no \"name\"") }
            try importer.endList()
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
