import Repository

/// `show [--editing]`: the list as a readable listing, or its snapshot as JSON.
enum ShowCommand {
    static func run(_ parsed: ParsedArguments, context: Context) throws {
        let store = try context.openStore()
        let snapshot = try store.snapshot(of: context.listName, editing: parsed.has("--editing"))
        if context.json {
            context.printJSON(JSONShapes.snapshot(snapshot))
        } else {
            context.console.write(Listing(style: context.style).render(snapshot))
        }
    }
}
