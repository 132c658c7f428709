import Repository

/// `undo` and `redo`: take back the list's last change, or reapply the last one taken back, as
/// a new committed change (printed like any change: a sentence, or its JSON changeset).
enum UndoCommands {
    static func run(_ parsed: ParsedArguments, context: Context) throws {
        let store = try context.openStore()
        let redo = parsed.commandPath == ["redo"]
        let change = redo ? try store.redo(list: context.listName) : try store.undo(list: context.listName)
        if context.json {
            context.printJSON(JSONShapes.change(change))
        } else {
            context.console.writeLine((redo ? "Redone: " : "Undone: ") + ChangeReport.sentence(for: change))
        }
    }
}
