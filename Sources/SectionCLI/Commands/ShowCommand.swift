import CommandLineSupport
import Repository
import Transfer

/// `show [--editing]`: the list as a readable listing, or its snapshot as JSON, written as the
/// rows are read, so that memory does not grow with the list. With `--from PATH` and/or
/// `--limit N`, only a window of rows (§11), read in O(log n + N).
enum ShowCommand {
    /// Rows in a window when `--from` comes without `--limit`.
    static let defaultLimit = 50

    static let editing = OptionSpec("--editing", help: "show the editing view: empty sections show their footer")
    static let from = OptionSpec("--from", valueName: "PATH", help: "show only a window of rows, starting at PATH (S:R, S:end, #ID)")
    static let limit = OptionSpec("--limit", valueName: "N", help: "at most N rows in the window (default: \(defaultLimit))")

    static let spec = CommandSpec(
        name: "show", summary: "show the list: sections, index paths, rows, footers",
        options: [editing, from, limit],
        examples: ["show", "--list work show --editing", "show --json", "show --from 3:1200 --limit 30"],
        discussion: """
            With --from or --limit, only that window is read and shown, with the headers (and, with
            --editing, the footers) of the sections it touches: as fast at any size of list. A window
            may start at S:N where N is the section's row count: it then begins with the next section.
            """)

    static let command = Command<Context>(spec, reading: ShowArguments.self) { try run($0, context: $1) }

    static func run(_ arguments: ShowArguments, context: Context) throws {
        if let window = arguments.window {
            return try runWindow(window, editing: arguments.editing, context: context)
        }
        let list = try context.openList()
        let isEditing = arguments.editing
        let console = context.console
        let line = context.progressLine("show", writesToOutput: true)
        defer { line?.finish() }
        var progress = TransferProgress()
        /// Counts rows for the progress line, reporting every 256.
        func counted(_ item: ListItem) {
            guard line != nil, case .row = item else { return }
            progress.rows += 1
            if progress.rows & 255 == 0 { line?.update(progress) }
        }
        /// Streams the list into `writer` as the query steps, counting rows for the progress line.
        func stream<Writer: ListItemWriter>(into writer: inout Writer) throws {
            try list.forEachItem(
                editing: isEditing,
                start: {
                    progress.totalRows = $0.rowCount
                    writer.begin($0)
                }
            ) {
                writer.take($0)
                counted($0)
            }
            writer.finish()
        }
        if context.json {
            var writer = SnapshotJSONWriter { console.write($0) }
            try stream(into: &writer)
        } else {
            var writer = ListingWriter(style: context.style) { console.write($0) }
            try stream(into: &writer)
        }
    }
}

/// `show [--editing] [--from PATH] [--limit N]`.
struct ShowArguments: CommandArguments {
    /// A window of rows (`--from`, `--limit`) instead of the whole list.
    struct Window: Hashable, Sendable {
        /// `--from PATH`; the first row when `nil`.
        var start: RowAddress?
        /// `--limit N`, else `ShowCommand.defaultLimit`.
        var limit: Int
    }

    /// `--editing`.
    var editing: Bool
    /// The window, when `--from` or `--limit` asks for one.
    var window: Window?

    init(from line: ParsedLine) throws(CLIError) {
        editing = line.has(ShowCommand.editing)
        let start = try line.read(ShowCommand.from, RowAddress.init)
        let limit = try line.read(ShowCommand.limit) { text throws(CLIError) in
            guard let value = Int(text), value >= 0 else {
                throw line.usage("\(ShowCommand.limit.name) takes a number of rows, 0 or more, not \"\(TextEscaping.escaped(text))\"")
            }
            return value
        }
        let asksForWindow = line.has(ShowCommand.from) || line.has(ShowCommand.limit)
        window = asksForWindow ? Window(start: start, limit: limit ?? ShowCommand.defaultLimit) : nil
    }
}

/// Something that writes a list as `SectionStore.forEachItem` delivers it: the header, then each
/// section and row in order, then the end.
protocol ListItemWriter {
    mutating func begin(_ header: ListHeader)
    mutating func take(_ item: ListItem)
    mutating func finish()
}

extension SnapshotJSONWriter: ListItemWriter {}

extension ListingWriter: ListItemWriter {
    mutating func begin(_ header: ListHeader) { begin(header, title: nil) }
}

extension ShowCommand {
    static func runWindow(_ request: ShowArguments.Window, editing: Bool, context: Context) throws {
        let list = try context.openList()
        let window = try (request.start?.places ?? []).naming {
            try list.window(startingAt: request.start?.reference ?? .at(0, 0), limit: request.limit, editing: editing)
        }
        if context.json {
            context.printJSON(JSONShapes.window(window))
        } else {
            context.console.write(WindowListing(style: context.style).render(window))
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
        pending +=
            ",\"list_id\":\(header.listID),\"version\":\(header.version),\"editing\":" + (header.isEditing ? "true" : "false") + ",\"sections\":["
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
            pending += String(row.id.rawValue)
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
