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
        pending = "{\"list\":" + JSONValue.string(header.name).rendered + ",\"version\":\(header.version),\"editing\":"
            + (header.isEditing ? "true" : "false") + ",\"sections\":["
    }

    mutating func take(_ item: ListItem) {
        switch item {
        case .section(let section):
            if sectionCount > 0 { pending += "]}," }
            pending += "{\"id\":\(section.id),\"title\":" + JSONValue.string(section.title).rendered + ",\"footer\":"
                + JSONValue.string(section.footer(editing: editing)).rendered + ",\"rows\":["
            sectionCount += 1
            rowCount = 0
        case .row(let row, _):
            if rowCount > 0 { pending += "," }
            pending += JSONValue.object([
                ("id", .int(row.id)),
                ("kind", .string(row.kind.rawValue)),
                ("title", .string(row.title)),
                ("value", .string(row.value)),
            ]).rendered
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
