import Repository

/// `show [--editing]`: the list as a readable listing, or its snapshot as JSON, written as the
/// rows are read, so that memory does not grow with the list.
enum ShowCommand {
    static func run(_ parsed: ParsedArguments, context: Context) throws {
        let store = try context.openStore()
        let editing = parsed.has("--editing")
        let console = context.console
        if context.json {
            var writer = SnapshotJSONWriter { console.write($0) }
            try store.forEachItem(of: context.listName, editing: editing, start: { writer.begin($0) }) { writer.take($0) }
            writer.finish()
        } else {
            var writer = ListingWriter(style: context.style) { console.write($0) }
            try store.forEachItem(of: context.listName, editing: editing, start: { writer.begin($0) }) { writer.take($0) }
            writer.finish()
        }
    }
}

/// Writes `show --json`'s shape (`JSONShapes.snapshot`) a piece at a time as the sections and
/// rows come, byte for byte what the whole snapshot renders to.
struct SnapshotJSONWriter {
    private let write: (String) -> Void
    private var editing = false
    private var sectionCount = 0
    private var rowCount = 0
    private var pending = ""

    init(write: @escaping (String) -> Void) {
        self.write = write
    }

    mutating func begin(_ header: ListHeader) {
        editing = header.isEditing
        pending = "{\"list\":"
        Self.append(header.name, to: &pending)
        pending += ",\"version\":\(header.version),\"editing\":" + (header.isEditing ? "true" : "false") + ",\"sections\":["
    }

    /// Appends `text` as a JSON string, exactly as `JSONValue.rendered` writes it; text with
    /// nothing to escape (the usual case) is copied whole.
    static func append(_ text: String?, to output: inout String) {
        guard let text else {
            output += "null"
            return
        }
        if text.utf8.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x7F }) {
            output += JSONValue.string(text).rendered
        } else {
            output += "\""
            output += text
            output += "\""
        }
    }

    mutating func take(_ item: ListItem) {
        switch item {
        case .section(let section):
            if sectionCount > 0 { pending += "]}," }
            pending += "{\"id\":\(section.id),\"title\":"
            Self.append(section.title, to: &pending)
            pending += ",\"footer\":"
            Self.append(section.footer(editing: editing), to: &pending)
            pending += ",\"rows\":["
            sectionCount += 1
            rowCount = 0
        case .row(let row, _):
            pending += rowCount > 0 ? ",{\"id\":" : "{\"id\":"
            pending += String(row.id)
            pending += ",\"kind\":\""
            pending += row.kind.rawValue
            pending += "\",\"title\":"
            Self.append(row.title, to: &pending)
            pending += ",\"value\":"
            Self.append(row.value, to: &pending)
            pending += "}"
            rowCount += 1
        }
        if pending.utf8.count >= 16 * 1024 { flush() }
    }

    mutating func finish() {
        pending += sectionCount > 0 ? "]}]}\n" : "]}\n"
        flush()
    }

    private mutating func flush() {
        write(pending)
        pending = ""
    }
}
