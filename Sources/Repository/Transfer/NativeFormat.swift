import Foundation
import SQLite

/// A native JSON document: lists with their sections and rows, ids and versions aside.
/// `docs/formats.md` documents the format.
struct NativeDocument: Hashable, Sendable {
    static let formatName = "sectionctl"

    var lists: [NativeList]
}

struct NativeList: Hashable, Sendable {
    var name: String
    var sections: [NativeSection] = []
}

struct NativeSection: Hashable, Sendable {
    var title: String
    var emptyText: String?
    var rows: [RowContent] = []
}

// MARK: - Writing

extension NativeDocument {
    /// The document as pretty-printed JSON with a final newline. Keys come in a fixed order and
    /// each row takes one line, so the same lists always give the same text.
    func json() -> String {
        var out = JSONWriter()
        out.text += "{\n  \"format\": "
        out.string(Self.formatName)
        out.text += ",\n  \"version\": \(SectionStore.nativeFormatVersion),\n  \"lists\": ["
        for (listIndex, list) in lists.enumerated() {
            out.text += listIndex == 0 ? "\n    {\n      \"name\": " : ",\n    {\n      \"name\": "
            out.string(list.name)
            out.text += ",\n      \"sections\": ["
            for (sectionIndex, section) in list.sections.enumerated() {
                out.text += sectionIndex == 0 ? "\n        {\n          \"title\": " : ",\n        {\n          \"title\": "
                out.string(section.title)
                out.text += ",\n          \"empty_text\": "
                out.optionalString(section.emptyText)
                out.text += ",\n          \"rows\": ["
                for (rowIndex, row) in section.rows.enumerated() {
                    out.text += rowIndex == 0 ? "\n            {\"kind\": " : ",\n            {\"kind\": "
                    out.string(row.kind.rawValue)
                    out.text += ", \"title\": "
                    out.string(row.title)
                    out.text += ", \"value\": "
                    out.optionalString(row.value)
                    out.text += "}"
                }
                out.text += section.rows.isEmpty ? "]\n        }" : "\n          ]\n        }"
            }
            out.text += list.sections.isEmpty ? "]\n    }" : "\n      ]\n    }"
        }
        out.text += lists.isEmpty ? "]\n}\n" : "\n  ]\n}\n"
        return out.text
    }
}

/// Appends JSON text: strings quoted with only what JSON requires escaped (quote, backslash,
/// control characters); every other character, emoji included, is written as itself.
struct JSONWriter {
    var text = ""

    mutating func optionalString(_ value: String?) {
        if let value { string(value) } else { text += "null" }
    }

    mutating func string(_ value: String) {
        text += "\""
        var pendingStart = value.utf8.startIndex
        var index = pendingStart
        let utf8 = value.utf8
        while index != utf8.endIndex {
            let byte = utf8[index]
            let escape: String?
            switch byte {
            case UInt8(ascii: "\""): escape = "\\\""
            case UInt8(ascii: "\\"): escape = "\\\\"
            case UInt8(ascii: "\n"): escape = "\\n"
            case UInt8(ascii: "\r"): escape = "\\r"
            case UInt8(ascii: "\t"): escape = "\\t"
            case 0x08: escape = "\\b"
            case 0x0C: escape = "\\f"
            case 0x00..<0x20: escape = "\\u" + JSONScanner.hex(UInt32(byte))
            default: escape = nil
            }
            if let escape {
                text.append(contentsOf: value[pendingStart..<index])
                text += escape
                pendingStart = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        text.append(contentsOf: value[pendingStart..<utf8.endIndex])
        text += "\""
    }
}

extension Connection {
    /// A list's sections and rows, in order, for export.
    func exportedList(_ list: ListRecord) throws -> NativeList {
        var exported = NativeList(name: list.name)
        let statement = try statement(
            """
            SELECT s.id, s.title, s.empty_text, r.kind, r.title, r.value, r.id IS NULL
            FROM sections AS s LEFT JOIN rows AS r ON r.section_id = s.id
            WHERE s.list_id = ? ORDER BY s.position, r.position
            """)
        try statement.bind([list.id])
        defer { statement.reset() }
        var currentSection: Int64?
        while try statement.step() {
            let sectionID = statement.int64(0)
            if sectionID != currentSection {
                currentSection = sectionID
                exported.sections.append(NativeSection(title: statement.string(1), emptyText: statement.optionalString(2)))
            }
            if statement.int(6) == 0 {
                let content = RowContent(
                    kind: RowKind(rawValue: statement.string(3)) ?? .text, title: statement.string(4),
                    value: statement.optionalString(5))
                exported.sections[exported.sections.count - 1].rows.append(content)
            }
        }
        return exported
    }
}
