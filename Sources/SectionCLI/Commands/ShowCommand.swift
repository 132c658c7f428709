import Repository

/// `show [--editing]`: the list as a readable listing, or its snapshot as JSON. With `--from PATH`
/// and/or `--limit N`, only a window of rows (§11), read in O(log n + N).
enum ShowCommand {
    /// Rows in a window when `--from` comes without `--limit`.
    static let defaultLimit = 50

    static func run(_ parsed: ParsedArguments, context: Context) throws {
        if parsed.has("--from") || parsed.has("--limit") {
            return try runWindow(parsed, context: context)
        }
        let store = try context.openStore()
        let snapshot = try store.snapshot(of: context.listName, editing: parsed.has("--editing"))
        if context.json {
            context.printJSON(JSONShapes.snapshot(snapshot))
        } else {
            context.console.write(Listing(style: context.style).render(snapshot))
        }
    }
}

extension ShowCommand {
    static func runWindow(_ parsed: ParsedArguments, context: Context) throws {
        let start = try ListEdits.checked(parsed) { () throws(CLIError) in
            try parsed.value("--from").map { text throws(CLIError) in try Address.row(text) } ?? .at(0, 0)
        }
        var limit = defaultLimit
        if let text = parsed.value("--limit") {
            guard let value = Int(text), value >= 0 else {
                throw CLIError.usage("--limit takes a number of rows, 0 or more, not \"\(TextEscaping.escaped(text))\"", command: ["show"])
            }
            limit = value
        }
        let store = try context.openStore()
        let window = try store.window(startingAt: start, limit: limit, in: context.listName, editing: parsed.has("--editing"))
        if context.json {
            context.printJSON(JSONShapes.window(window))
        } else {
            context.console.write(WindowListing(style: context.style).render(window))
        }
    }
}
