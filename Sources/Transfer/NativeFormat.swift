import Foundation
import Repository

/// The native JSON format: lists with their sections and rows, ids and versions aside.
/// `docs/formats.md` documents it; `NativeWriter` writes it and `NativeReader` reads it.
enum NativeDocument {
    static let formatName = "sectionctl"
}

/// A section of a native document held in memory: only while its list's name is not yet known.
struct NativeSection: Hashable, Sendable {
    var title: String
    var emptyText: String?
    var rows: [RowContent] = []
}

// MARK: - Writing

/// Writes a native document a piece at a time, handing the text to `sink` in chunks of about
/// 64 KiB as the lists, sections and rows come. Keys come in a fixed order and each row takes
/// one line, so the same lists always give the same text.
struct NativeWriter {
    static let chunkSize = 64 * 1024

    private var out = JSONWriter()
    private let sink: (String) throws -> Void
    private var listCount = 0
    private var sectionCount = 0
    private var rowCount = 0
    private var sectionOpen = false

    init(sink: @escaping (String) throws -> Void) {
        self.sink = sink
        out.text.reserveCapacity(Self.chunkSize + 1024)
    }

    mutating func begin() throws {
        out.text += "{\n  \"format\": "
        out.string(NativeDocument.formatName)
        out.text += ",\n  \"version\": \(SectionStore.nativeFormatVersion),\n  \"lists\": ["
    }

    mutating func beginList(_ name: String) throws {
        out.text += listCount == 0 ? "\n    {\n      \"name\": " : ",\n    {\n      \"name\": "
        out.string(name)
        out.text += ",\n      \"sections\": ["
        listCount += 1
        sectionCount = 0
    }

    mutating func section(title: String, emptyText: String?) throws {
        closeSection()
        out.text += sectionCount == 0 ? "\n        {\n          \"title\": " : ",\n        {\n          \"title\": "
        out.string(title)
        out.text += ",\n          \"empty_text\": "
        out.optionalString(emptyText)
        out.text += ",\n          \"rows\": ["
        sectionCount += 1
        rowCount = 0
        sectionOpen = true
    }

    mutating func row(_ row: RowContent) throws {
        out.text += rowCount == 0 ? "\n            {\"kind\": " : ",\n            {\"kind\": "
        out.string(row.kind.rawValue)
        out.text += ", \"title\": "
        out.string(row.title)
        out.text += ", \"value\": "
        out.optionalString(row.value)
        out.text += "}"
        rowCount += 1
        if out.text.utf8.count >= Self.chunkSize { try flush() }
    }

    mutating func endList() throws {
        closeSection()
        out.text += sectionCount == 0 ? "]\n    }" : "\n      ]\n    }"
        sectionCount = 0
        try flush()
    }

    mutating func end() throws {
        out.text += listCount == 0 ? "]\n}\n" : "\n  ]\n}\n"
        try flush()
    }

    /// Closes the section written last, if any.
    private mutating func closeSection() {
        guard sectionOpen else { return }
        out.text += rowCount == 0 ? "]\n        }" : "\n          ]\n        }"
        sectionOpen = false
    }

    private mutating func flush() throws {
        guard !out.text.isEmpty else { return }
        try sink(out.text)
        out.text.removeAll(keepingCapacity: true)
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
            case 0x00..<0x20: escape = "\\u" + JSONReader.hex(UInt32(byte))
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

extension Database {
    /// Writes a list's sections and rows, in order, as the query steps.
    func writeExported(_ list: ListRecord, to writer: inout NativeWriter, meter: ProgressMeter? = nil) throws {
        try writer.beginList(list.name)
        var currentSection: Int64?
        try forEachSectionAndRow(of: list) { section, row in
            if section.id != currentSection {
                currentSection = section.id
                try writer.section(title: section.title, emptyText: section.emptyText)
            }
            if let row {
                try writer.row(row.content)
                meter?.countRow()
            }
        }
        try writer.endList()
    }
}
