import Foundation

/// The one JSON form of an intent: what a replica keeps of a change until it is pushed, and what
/// a push carries. One object, `"op"` naming the intent, ids as numbers, keys sorted:
///
/// ```json
/// {"op":"moveRow","row":12,"to":{"after":[13],"before":[11,10],"index":2,"section":3}}
/// {"at":{"after":[],"before":[7],"index":1,"section":3},"content":{"kind":"field","title":"Due","value":"Friday"},"op":"addRow"}
/// {"op":"updateRow","row":12,"title":"Call Aiko","value":null}
/// {"op":"deleteSection","force":true,"section":3}
/// ```
///
/// | `op` | keys |
/// |---|---|
/// | `addRow` | `content` (`kind`: `text`, `topic` or `field`; `title`; `value`, absent for none), `at` (a row placement) |
/// | `moveRow` | `row`, `to` (a row placement) |
/// | `updateRow` | `row`; `title` (absent: kept); `value` (absent: kept; `null`: removed; a string: set) |
/// | `deleteRow` | `row` |
/// | `addSection` | `title`, `emptyText` (absent or `null` for none), `at` (a section placement) |
/// | `renameSection` | `section`, `title` |
/// | `setEmptyText` | `section`, `emptyText` (`null` clears it) |
/// | `moveSection` | `section`, `to` (a section placement) |
/// | `deleteSection` | `section`, `force` |
///
/// A row placement is `{"section", "before", "after", "index"}`, a section placement
/// `{"before", "after", "index"}`: neighbours nearest first, at most
/// `RowPlacement.maximumNeighbours` on each side, and an index of 0 or more.
///
/// `json` is the writer and `init(json:)` the reader; `Codable` uses the same shape.
extension Intent: Codable {
    private enum Key: String, CodingKey {
        case op, row, section, to, at, content, title, value, emptyText, force
    }

    private enum Operation: String, CaseIterable {
        case addRow, moveRow, updateRow, deleteRow, addSection, renameSection, setEmptyText, moveSection, deleteSection
    }

    /// The intent as one line of JSON, keys sorted.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        // Encoding strings, numbers and arrays of numbers cannot fail.
        return String(decoding: (try? encoder.encode(self)) ?? Data(), as: UTF8.self)
    }

    /// Reads an intent from its JSON form (`json`). Throws `RepositoryError.invalidData` with a
    /// one-line reason for anything else: not JSON, an unknown `op`, a key missing or of the
    /// wrong type, a negative index, too many neighbours.
    public init(json text: String) throws {
        do {
            self = try JSONDecoder().decode(Intent.self, from: Data(text.utf8))
        } catch let error as DecodingError {
            throw RepositoryError.invalidData("not an intent: \(Self.reason(error))")
        }
    }

    /// What a decoding error says, in one line: where, and what was wrong.
    private static func reason(_ error: DecodingError) -> String {
        func place(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "the intent" : "\"" + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") + "\""
        }
        switch error {
        case .keyNotFound(let key, let context):
            return "\(place(context.codingPath)) has no \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context):
            return "\(place(context.codingPath)) is not what it should be (\(context.debugDescription))"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "the text is not JSON" : "\(place(context.codingPath)): \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .addRow(let content, let placement):
            try container.encode(Operation.addRow.rawValue, forKey: .op)
            try container.encode(IntentContent(content), forKey: .content)
            try container.encode(placement, forKey: .at)
        case .moveRow(let id, let placement):
            try container.encode(Operation.moveRow.rawValue, forKey: .op)
            try container.encode(id, forKey: .row)
            try container.encode(placement, forKey: .to)
        case .updateRow(let id, let title, let value):
            try container.encode(Operation.updateRow.rawValue, forKey: .op)
            try container.encode(id, forKey: .row)
            try container.encodeIfPresent(title, forKey: .title)
            switch value {
            case .keep: break
            case .set(let text): try container.encode(text, forKey: .value)
            case .remove: try container.encodeNil(forKey: .value)
            }
        case .deleteRow(let id):
            try container.encode(Operation.deleteRow.rawValue, forKey: .op)
            try container.encode(id, forKey: .row)
        case .addSection(let title, let emptyText, let placement):
            try container.encode(Operation.addSection.rawValue, forKey: .op)
            try container.encode(title, forKey: .title)
            try container.encodeIfPresent(emptyText, forKey: .emptyText)
            try container.encode(placement, forKey: .at)
        case .renameSection(let id, let title):
            try container.encode(Operation.renameSection.rawValue, forKey: .op)
            try container.encode(id, forKey: .section)
            try container.encode(title, forKey: .title)
        case .setEmptyText(let id, let text):
            try container.encode(Operation.setEmptyText.rawValue, forKey: .op)
            try container.encode(id, forKey: .section)
            if let text { try container.encode(text, forKey: .emptyText) } else { try container.encodeNil(forKey: .emptyText) }
        case .moveSection(let id, let placement):
            try container.encode(Operation.moveSection.rawValue, forKey: .op)
            try container.encode(id, forKey: .section)
            try container.encode(placement, forKey: .to)
        case .deleteSection(let id, let force):
            try container.encode(Operation.deleteSection.rawValue, forKey: .op)
            try container.encode(id, forKey: .section)
            try container.encode(force, forKey: .force)
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let name = try container.decode(String.self, forKey: .op)
        guard let operation = Operation(rawValue: name) else {
            throw DecodingError.dataCorruptedError(
                forKey: .op, in: container,
                debugDescription: "unknown op \"\(name)\" (one of \(Operation.allCases.map(\.rawValue).joined(separator: ", ")))")
        }
        switch operation {
        case .addRow:
            self = .addRow(
                try container.decode(IntentContent.self, forKey: .content).content, at: try container.decode(RowPlacement.self, forKey: .at))
        case .moveRow:
            self = .moveRow(try container.decode(RowID.self, forKey: .row), to: try container.decode(RowPlacement.self, forKey: .to))
        case .updateRow:
            var value = ValueUpdate.keep
            if container.contains(.value) {
                value = try container.decodeNil(forKey: .value) ? .remove : .set(try container.decode(String.self, forKey: .value))
            }
            self = .updateRow(
                try container.decode(RowID.self, forKey: .row), title: try container.decodeIfPresent(String.self, forKey: .title), value: value)
        case .deleteRow:
            self = .deleteRow(try container.decode(RowID.self, forKey: .row))
        case .addSection:
            self = .addSection(
                title: try container.decode(String.self, forKey: .title), emptyText: try container.decodeIfPresent(String.self, forKey: .emptyText),
                at: try container.decode(SectionPlacement.self, forKey: .at))
        case .renameSection:
            self = .renameSection(try container.decode(SectionID.self, forKey: .section), title: try container.decode(String.self, forKey: .title))
        case .setEmptyText:
            guard container.contains(.emptyText) else {
                throw DecodingError.keyNotFound(
                    Key.emptyText, .init(codingPath: container.codingPath, debugDescription: "setEmptyText needs emptyText"))
            }
            let text = try container.decodeNil(forKey: .emptyText) ? nil : try container.decode(String.self, forKey: .emptyText)
            self = .setEmptyText(try container.decode(SectionID.self, forKey: .section), text)
        case .moveSection:
            self = .moveSection(try container.decode(SectionID.self, forKey: .section), to: try container.decode(SectionPlacement.self, forKey: .to))
        case .deleteSection:
            self = .deleteSection(try container.decode(SectionID.self, forKey: .section), force: try container.decode(Bool.self, forKey: .force))
        }
    }
}

/// A row's content in an intent's JSON: `kind`, `title`, and `value` when there is one.
private struct IntentContent: Codable {
    var content: RowContent

    init(_ content: RowContent) { self.content = content }

    private enum Key: String, CodingKey { case kind, title, value }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        content = RowContent(
            kind: try container.decode(RowKind.self, forKey: .kind), title: try container.decode(String.self, forKey: .title),
            value: try container.decodeIfPresent(String.self, forKey: .value))
    }

    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        try container.encode(content.kind, forKey: .kind)
        try container.encode(content.title, forKey: .title)
        try container.encodeIfPresent(content.value, forKey: .value)
    }
}

extension RowPlacement {
    /// The most neighbours a placement read from JSON may have on each side.
    public static let maximumNeighbours = 64

    private enum Key: String, CodingKey { case section, before, after, index }

    /// Reads a placement, refusing a negative index and more than `maximumNeighbours` a side.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let before = try container.decode([RowID].self, forKey: .before)
        let after = try container.decode([RowID].self, forKey: .after)
        let index = try container.decode(Int.self, forKey: .index)
        try checkPlacement(before: before.count, after: after.count, index: index, in: container, beforeKey: .before, indexKey: .index)
        self.init(section: try container.decode(SectionID.self, forKey: .section), before: before, after: after, index: index)
    }
}

extension SectionPlacement {
    private enum Key: String, CodingKey { case before, after, index }

    /// Reads a placement, refusing a negative index and more than
    /// `RowPlacement.maximumNeighbours` a side.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        let before = try container.decode([SectionID].self, forKey: .before)
        let after = try container.decode([SectionID].self, forKey: .after)
        let index = try container.decode(Int.self, forKey: .index)
        try checkPlacement(before: before.count, after: after.count, index: index, in: container, beforeKey: .before, indexKey: .index)
        self.init(before: before, after: after, index: index)
    }
}

/// Throws when a placement read from JSON has a negative index or too many neighbours.
private func checkPlacement<Key: CodingKey>(
    before: Int, after: Int, index: Int, in container: KeyedDecodingContainer<Key>, beforeKey: Key, indexKey: Key
) throws {
    guard index >= 0 else {
        throw DecodingError.dataCorruptedError(forKey: indexKey, in: container, debugDescription: "a negative index (\(index))")
    }
    guard max(before, after) <= RowPlacement.maximumNeighbours else {
        throw DecodingError.dataCorruptedError(
            forKey: beforeKey, in: container,
            debugDescription: "more than \(RowPlacement.maximumNeighbours) neighbours on a side (\(max(before, after)))")
    }
}

/// The JSON form of what became of an intent, as the sync service answers it: `"result"` is
/// `applied`, `placedElsewhere` or `dropped`, with where (`afterRow`, `beforeRow`, `section` and
/// `index`, `afterSection`, `beforeSection`, or `index` alone) or why (`reason`: `rowGone`,
/// `sectionGone`, `destinationSectionGone`, `addedRowLost`, `sectionNotEmpty`, `idInUse`, with the
/// ids, the content or the row count it names).
extension IntentOutcome: Codable {
    private enum Key: String, CodingKey {
        case result, afterRow, beforeRow, section, index, afterSection, beforeSection, reason, row, content, rowCount, id
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Key.self)
        switch self {
        case .applied:
            try container.encode("applied", forKey: .result)
        case .placedElsewhere(let placed):
            try container.encode("placedElsewhere", forKey: .result)
            switch placed {
            case .afterRow(let id): try container.encode(id.rawValue, forKey: .afterRow)
            case .beforeRow(let id): try container.encode(id.rawValue, forKey: .beforeRow)
            case .inSection(let id, let index):
                try container.encode(id.rawValue, forKey: .section)
                try container.encode(index, forKey: .index)
            case .afterSection(let id): try container.encode(id.rawValue, forKey: .afterSection)
            case .beforeSection(let id): try container.encode(id.rawValue, forKey: .beforeSection)
            case .inList(let index): try container.encode(index, forKey: .index)
            }
        case .dropped(let reason):
            try container.encode("dropped", forKey: .result)
            switch reason {
            case .rowGone(let id):
                try container.encode("rowGone", forKey: .reason)
                try container.encode(id.rawValue, forKey: .row)
            case .sectionGone(let id):
                try container.encode("sectionGone", forKey: .reason)
                try container.encode(id.rawValue, forKey: .section)
            case .destinationSectionGone(let section, let row):
                try container.encode("destinationSectionGone", forKey: .reason)
                try container.encode(section.rawValue, forKey: .section)
                try container.encode(row.rawValue, forKey: .row)
            case .addedRowLost(let section, let content):
                try container.encode("addedRowLost", forKey: .reason)
                try container.encode(section.rawValue, forKey: .section)
                try container.encode(IntentContent(content), forKey: .content)
            case .sectionNotEmpty(let section, let rowCount):
                try container.encode("sectionNotEmpty", forKey: .reason)
                try container.encode(section.rawValue, forKey: .section)
                try container.encode(rowCount, forKey: .rowCount)
            case .idInUse(let id):
                try container.encode("idInUse", forKey: .reason)
                try container.encode(id, forKey: .id)
            }
        }
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Key.self)
        func id(_ key: Key) throws -> Int64 { try container.decode(Int64.self, forKey: key) }
        switch try container.decode(String.self, forKey: .result) {
        case "applied":
            self = .applied
        case "placedElsewhere":
            if container.contains(.afterRow) {
                self = .placedElsewhere(.afterRow(RowID(try id(.afterRow))))
            } else if container.contains(.beforeRow) {
                self = .placedElsewhere(.beforeRow(RowID(try id(.beforeRow))))
            } else if container.contains(.afterSection) {
                self = .placedElsewhere(.afterSection(SectionID(try id(.afterSection))))
            } else if container.contains(.beforeSection) {
                self = .placedElsewhere(.beforeSection(SectionID(try id(.beforeSection))))
            } else if container.contains(.section) {
                self = .placedElsewhere(.inSection(SectionID(try id(.section)), index: try container.decode(Int.self, forKey: .index)))
            } else {
                self = .placedElsewhere(.inList(index: try container.decode(Int.self, forKey: .index)))
            }
        case "dropped":
            switch try container.decode(String.self, forKey: .reason) {
            case "rowGone": self = .dropped(.rowGone(RowID(try id(.row))))
            case "sectionGone": self = .dropped(.sectionGone(SectionID(try id(.section))))
            case "destinationSectionGone":
                self = .dropped(.destinationSectionGone(SectionID(try id(.section)), row: RowID(try id(.row))))
            case "addedRowLost":
                self = .dropped(
                    .addedRowLost(SectionID(try id(.section)), content: try container.decode(IntentContent.self, forKey: .content).content))
            case "sectionNotEmpty":
                self = .dropped(.sectionNotEmpty(SectionID(try id(.section)), rowCount: try container.decode(Int.self, forKey: .rowCount)))
            case "idInUse": self = .dropped(.idInUse(try id(.id)))
            case let other:
                throw DecodingError.dataCorrupted(.init(codingPath: [Key.reason], debugDescription: "unknown reason \"\(other)\""))
            }
        case let other:
            throw DecodingError.dataCorrupted(.init(codingPath: [Key.result], debugDescription: "unknown result \"\(other)\""))
        }
    }
}
