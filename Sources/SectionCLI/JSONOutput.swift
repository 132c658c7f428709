import Repository

/// A JSON value whose objects keep their keys in the order they were written, so that output
/// matches the documented shapes key for key.
public enum JSONValue: Sendable {
    case null
    case bool(Bool)
    case int(Int64)
    case string(String)
    case array([JSONValue])
    /// Members in order.
    case object([(key: String, value: JSONValue)])
    /// JSON text written elsewhere (a changeset's `json`), put in as it is.
    case verbatim(String)

    /// A string, or `null` for `nil`.
    public static func string(_ text: String?) -> JSONValue { text.map { .string($0) } ?? .null }
    /// An integer.
    public static func int(_ value: Int) -> JSONValue { .int(Int64(value)) }
    /// A row's id, as its number.
    public static func int(_ id: RowID) -> JSONValue { .int(id.rawValue) }
    /// A section's id, as its number.
    public static func int(_ id: SectionID) -> JSONValue { .int(id.rawValue) }
    /// A list's id, as its number.
    public static func int(_ id: ListID) -> JSONValue { .int(id.rawValue) }
    /// The id of what a change created, as its number.
    public static func int(_ id: CreatedID) -> JSONValue { .int(id.rawValue) }
    /// A list's version, as its number.
    public static func int(_ version: ListVersion) -> JSONValue { .int(version.rawValue) }

    /// Compact JSON text on one line. Strings are written as they are — Unicode included — except
    /// for `"`, `\` and control characters, which are escaped as JSON requires.
    public var rendered: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .int(let value): output += String(value)
        case .string(let text): Self.writeString(text, to: &output)
        case .verbatim(let text): output += text
        case .array(let items):
            output += "["
            for (index, item) in items.enumerated() {
                if index > 0 { output += "," }
                item.write(to: &output)
            }
            output += "]"
        case .object(let members):
            output += "{"
            for (index, member) in members.enumerated() {
                if index > 0 { output += "," }
                Self.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case "\u{8}": output += "\\b"
            case "\u{C}": output += "\\f"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    let hex = String(scalar.value, radix: 16)
                    output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
                } else {
                    output.unicodeScalars.append(scalar)
                }
            }
        }
        output += "\""
    }
}

/// The JSON shapes of product.md §8.
enum JSONShapes {
    /// `{"list", "version", "editing", "sections": [{"id", "title", "footer", "rows": [{"id",
    /// "kind", "title", "value"}]}]}`
    static func snapshot(_ snapshot: ListSnapshot) -> JSONValue {
        .object([
            ("list", .string(snapshot.name)),
            ("list_id", .int(snapshot.listID)),
            // A session's draft shows the version it starts from, as the session's header does.
            ("version", .int(snapshot.draftOf ?? snapshot.version)),
            ("editing", .bool(snapshot.isEditing)),
            (
                "sections",
                .array(
                    snapshot.sections.map { section in
                        .object([
                            ("id", .int(section.id)),
                            ("title", .string(section.title)),
                            ("footer", .string(section.footer(editing: snapshot.isEditing))),
                            (
                                "rows",
                                .array(
                                    section.rows.map { row in
                                        .object([
                                            ("id", .int(row.id)),
                                            ("kind", .string(row.kind.rawValue)),
                                            ("title", .string(row.title)),
                                            ("value", .string(row.value)),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
        ])
    }

    /// `row get`: `{"list", "list_id", "version", "path": [s, r], "id", "kind", "title", "value",
    /// "section": {"id", "title", "row_count"}}`.
    static func located(_ row: Row, path: RowPath, section: SectionInfo, in window: ListWindow) -> JSONValue {
        .object([
            ("list", .string(window.name)),
            ("list_id", .int(window.listID)),
            ("version", .int(window.version)),
            ("path", .array([.int(path.section), .int(path.row)])),
            ("id", .int(row.id)),
            ("kind", .string(row.kind.rawValue)),
            ("title", .string(row.title)),
            ("value", .string(row.value)),
            ("section", .object([("id", .int(section.id)), ("title", .string(section.title)), ("row_count", .int(section.rowCount))])),
        ])
    }

    /// `watch`: `{"list", "list_id", "version", "from", "changes": {…}}`, or `"reload": true`
    /// instead of `"changes"` when no changeset says what changed (and `"deleted": true` when the
    /// list was deleted). `from` is the version the changes start from: the one before `version`, or earlier
    /// when a watcher that fell behind gets the versions it missed as one.
    static func update(_ update: ListUpdate) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("list", .string(update.list)), ("list_id", .int(update.listID)), ("version", .int(update.version)),
            ("from", .int(update.from)),
        ]
        if let changeset = update.changeset {
            fields.append(("changes", JSONShapes.changeset(changeset)))
        } else {
            fields.append(("reload", .bool(true)))
            if update.isDeleted { fields.append(("deleted", .bool(true))) }
        }
        return .object(fields)
    }

    /// `changes --since V`: `{"list", "list_id", "from", "version", "changes": {…}}`, or
    /// `"reload": true` in place of `"changes"`.
    static func changes(_ answer: ListChanges) -> JSONValue {
        var fields: [(String, JSONValue)] = [
            ("list", .string(answer.list)), ("list_id", .int(answer.listID)), ("from", .int(answer.from)), ("version", .int(answer.version)),
        ]
        if let changeset = answer.changeset {
            fields.append(("changes", JSONShapes.changeset(changeset)))
        } else {
            fields.append(("reload", .bool(true)))
        }
        return .object(fields)
    }

    /// `show --from PATH --limit N`: `show`'s shape holding only the sections the window touches,
    /// each with `"index"` and `"row_count"`, each row with `"index"` (within its section).
    static func window(_ window: ListWindow) -> JSONValue {
        .object([
            ("list", .string(window.name)),
            ("list_id", .int(window.listID)),
            ("version", .int(window.version)),
            ("editing", .bool(window.isEditing)),
            (
                "sections",
                .array(
                    window.parts.map { part in
                        .object([
                            ("id", .int(part.section.id)),
                            ("index", .int(part.section.index)),
                            ("title", .string(part.section.title)),
                            ("row_count", .int(part.section.rowCount)),
                            ("footer", .string(part.section.footer(editing: window.isEditing))),
                            (
                                "rows",
                                .array(
                                    part.rows.enumerated().map { offset, row in
                                        .object([
                                            ("id", .int(row.id)),
                                            ("index", .int(part.firstRow + offset)),
                                            ("kind", .string(row.kind.rawValue)),
                                            ("title", .string(row.title)),
                                            ("value", .string(row.value)),
                                        ])
                                    })
                            ),
                        ])
                    })
            ),
        ])
    }

    /// `{"list", "version", "committed", "id"?, "changes": {"sections": {…}, "rows": {…}}}`; `id`
    /// only when the change created something; `committed` false for a change that committed
    /// nothing (its `version` is then the one the edit was checked against).
    static func change(_ change: Change) -> JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("list", .string(change.list)),
            ("version", .int(change.version)),
            ("committed", .bool(change.committed)),
        ]
        if let id = change.createdID { members.append(("id", .int(id))) }
        members.append(("changes", changeset(change.changeset)))
        return .object(members)
    }

    /// `{"sections": {"deleted", "inserted", "moved", "updated", "footers"}, "rows": {…}}`: section
    /// entries are indexes and `{"from": i, "to": j}`, row entries `[s, r]` and `{"from": [s, r],
    /// "to": [s, r]}` — the library's one JSON form of a changeset (`Changeset.json`).
    static func changeset(_ changeset: Changeset) -> JSONValue {
        .verbatim(changeset.json)
    }

    /// `check`: `{"database", "ok", "problems": [{"kind", "message", "repairable"}]}`.
    static func check(_ problems: [IntegrityProblem], database: String) -> JSONValue {
        .object([
            ("database", .string(database)),
            ("ok", .bool(problems.isEmpty)),
            (
                "problems",
                .array(
                    problems.map { problem in
                        .object([
                            ("kind", .string(problem.kind.rawValue)),
                            ("message", .string(problem.message)),
                            ("repairable", .bool(problem.isRepairable)),
                        ])
                    })
            ),
        ])
    }

    /// `repair`: `{"database", "repaired", "changes": [{"kind", "message"}], "lists": [{"id",
    /// "list", "version"}]}`; `repaired` is false, and both arrays empty, when there was nothing
    /// to repair.
    static func repair(_ report: RepairReport, database: String) -> JSONValue {
        .object([
            ("database", .string(database)),
            ("repaired", .bool(!report.isEmpty)),
            (
                "changes",
                .array(report.actions.map { .object([("kind", .string($0.kind.rawValue)), ("message", .string($0.message))]) })
            ),
            (
                "lists",
                .array(
                    report.reloadedLists.map { .object([("id", .int($0.id)), ("list", .string($0.name)), ("version", .int($0.version))]) })
            ),
        ])
    }

    /// `vacuum`: `{"database", "vacuumed": true, "bytes_before", "bytes_after", "free_pages_before",
    /// "reclaims_free_pages"}`; on a server `{"database", "vacuumed": false}`.
    static func vacuum(_ report: SpaceReport?, database: String) -> JSONValue {
        guard let report else { return .object([("database", .string(database)), ("vacuumed", .bool(false))]) }
        return .object([
            ("database", .string(database)),
            ("vacuumed", .bool(true)),
            ("bytes_before", .int(report.bytesBefore)),
            ("bytes_after", .int(report.bytesAfter)),
            ("free_pages_before", .int(report.freePagesBefore)),
            ("reclaims_free_pages", .bool(report.reclaimsFreePages)),
        ])
    }

    /// `{"lists": [{"id", "name", "version", "sections", "rows"}]}`
    static func lists(_ lists: [ListSummary]) -> JSONValue {
        .object([
            (
                "lists",
                .array(
                    lists.map { list in
                        .object([
                            ("id", .int(list.id)),
                            ("name", .string(list.name)),
                            ("version", .int(list.version)),
                            ("sections", .int(list.sectionCount)),
                            ("rows", .int(list.rowCount)),
                        ])
                    })
            )
        ])
    }
}
