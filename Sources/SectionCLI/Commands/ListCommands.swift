import Repository

/// `list ls | add NAME | rename NAME NEW | delete NAME [--force]`.
enum ListCommands {
    static func run(_ parsed: ParsedArguments, context: Context) throws {
        let store = try context.openStore()
        let arguments = parsed.arguments
        switch parsed.commandPath.last {
        case "ls":
            let lists = try store.lists()
            if context.json {
                context.printJSON(JSONShapes.lists(lists))
            } else {
                printTable(lists, context: context)
            }
        case "add":
            let change = try store.createList(named: arguments[0])
            report(change, context: context) { "Created list \(quoted(change.list)) (#\(change.createdID ?? 0))." }
        case "rename":
            let change = try store.renameList(arguments[0], to: arguments[1])
            report(change, context: context) {
                arguments[0].utf8.elementsEqual(arguments[1].utf8)  // byte for byte, as the store compares names
                    ? "Nothing changed; list \(quoted(change.list)) already has that name."
                    : "Renamed list \(quoted(arguments[0])) to \(quoted(change.list)); it is at version \(change.version)."
            }
        default:
            let change = try store.deleteList(arguments[0], force: parsed.has("--force"))
            let sections = change.changeset.deletedSections.count
            report(change, context: context) {
                "Deleted list \(quoted(change.list))" + (sections == 0 ? "." : " and its \(sections == 1 ? "section" : "\(sections) sections").")
            }
        }
    }

    private static func report(_ change: Change, context: Context, sentence: () -> String) {
        if context.json {
            context.printJSON(JSONShapes.change(change))
        } else {
            context.console.writeLine(sentence())
        }
    }

    private static func quoted(_ name: String) -> String { "\"\(TextEscaping.escaped(name))\"" }

    /// Name, version, sections and rows, in aligned columns.
    private static func printTable(_ lists: [ListSummary], context: Context) {
        let header = ["LIST", "VERSION", "SECTIONS", "ROWS"]
        let rows = lists.map { [TextEscaping.escaped($0.name), "\($0.version)", "\($0.sectionCount)", "\($0.rowCount)"] }
        let widths = header.indices.map { column in
            ([header] + rows).map { DisplayWidth.of($0[column]) }.max() ?? 0
        }
        func line(_ cells: [String]) -> String {
            var text = DisplayWidth.padded(cells[0], to: widths[0])
            for column in 1..<cells.count {
                text += "  " + String(repeating: " ", count: widths[column] - DisplayWidth.of(cells[column])) + cells[column]
            }
            return text
        }
        context.console.writeLine(context.style.bold(line(header)))
        for row in rows { context.console.writeLine(line(row)) }
    }
}
