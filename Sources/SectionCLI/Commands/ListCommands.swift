import Repository

/// `list ls | add NAME | rename NAME NEW | delete NAME [--force]`.
enum ListCommands {
    static let force = OptionSpec("--force", help: "delete it with its sections and rows")

    static let command = Command<Context>(
        CommandSpec(
            name: "list", summary: "list, add, rename and delete lists",
            examples: ["list ls", "list add work", "--list work section add Inbox"]),
        subcommands: [
            Command(CommandSpec(name: "ls", summary: "every list with its version and counts", examples: ["list ls"])) { _, context in
                let lists = try context.openStore().lists()
                if context.json {
                    context.printJSON(JSONShapes.lists(lists))
                } else {
                    printTable(lists, context: context)
                }
            },
            Command(
                CommandSpec(
                    name: "add", summary: "create an empty list",
                    arguments: [ArgumentSpec("NAME", help: "the new list's name")],
                    examples: ["list add work"])
            ) { parsed, context in
                let change = try context.openStore().createList(named: parsed.arguments[0])
                report(change, context: context) { "Created list \(quoted(change.list)) (#\(change.createdID ?? 0))." }
            },
            Command(
                CommandSpec(
                    name: "rename", summary: "rename a list",
                    arguments: [ArgumentSpec("NAME", help: "the list", completion: .lists), ArgumentSpec("NEW", help: "its new name")],
                    examples: ["list rename work job"])
            ) { parsed, context in
                let (name, new) = (parsed.arguments[0], parsed.arguments[1])
                let change = try context.openStore().renameList(name, to: new)
                report(change, context: context) {
                    name.utf8.elementsEqual(new.utf8)  // byte for byte, as the store compares names
                        ? "Nothing changed; list \(quoted(change.list)) already has that name."
                        : "Renamed list \(quoted(name)) to \(quoted(change.list)); it is at version \(change.version)."
                }
            },
            Command(
                CommandSpec(
                    name: "delete", summary: "delete a list (--force when it has sections)",
                    arguments: [ArgumentSpec("NAME", help: "the list", completion: .lists)],
                    options: [force],
                    examples: ["list delete work --force"])
            ) { parsed, context in
                let change = try context.openStore().deleteList(parsed.arguments[0], force: parsed.has(force))
                let sections = change.changeset.deletedSections.count
                report(change, context: context) {
                    "Deleted list \(quoted(change.list))" + (sections == 0 ? "." : " and its \(sections == 1 ? "section" : "\(sections) sections").")
                }
            },
        ])

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
