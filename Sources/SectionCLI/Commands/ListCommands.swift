import CommandLineSupport
import Repository

/// `list ls | add NAME | rename NAME NEW | delete NAME [--force]`.
enum ListCommands {
    static let force = OptionSpec("--force", help: "delete it with its sections and rows")
    static let newName = ArgumentSpec("NAME", help: "the new list's name")
    static let existingName = ArgumentSpec("NAME", help: "the list", completion: .lists)
    static let renamed = ArgumentSpec("NEW", help: "its new name")

    static let command = Command<Context>(
        CommandSpec(
            name: "list", summary: "list, add, rename and delete lists",
            examples: ["list ls", "list add work", "--list work section add Inbox"]),
        subcommands: [
            Command(CommandSpec(name: "ls", summary: "every list with its version and counts", examples: ["list ls"])) { context in
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
                    arguments: [newName],
                    examples: ["list add work"]),
                reading: ListAddArguments.self
            ) { arguments, context in
                let change = try context.openStore().createList(named: arguments.name)
                report(change, context: context) { "Created list \(quoted(change.list)) (#\(change.createdID?.rawValue ?? 0))." }
            },
            Command(
                CommandSpec(
                    name: "rename", summary: "rename a list",
                    arguments: [existingName, renamed],
                    examples: ["list rename work job"]),
                reading: ListRenameArguments.self
            ) { arguments, context in
                let (name, new) = (arguments.name, arguments.newName)
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
                    arguments: [existingName],
                    options: [force],
                    examples: ["list delete work --force"]),
                reading: ListDeleteArguments.self
            ) { arguments, context in
                let change = try context.openStore().deleteList(arguments.name, force: arguments.force)
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

/// `list add NAME`.
struct ListAddArguments: CommandArguments {
    var name: String

    init(from line: ParsedLine) throws(CLIError) {
        name = try line.word(ListCommands.newName)
    }
}

/// `list rename NAME NEW`.
struct ListRenameArguments: CommandArguments {
    var name: String
    var newName: String

    init(from line: ParsedLine) throws(CLIError) {
        name = try line.word(ListCommands.existingName)
        newName = try line.word(ListCommands.renamed)
    }
}

/// `list delete NAME [--force]`.
struct ListDeleteArguments: CommandArguments {
    var name: String
    var force: Bool

    init(from line: ParsedLine) throws(CLIError) {
        name = try line.word(ListCommands.existingName)
        force = line.has(ListCommands.force)
    }
}
