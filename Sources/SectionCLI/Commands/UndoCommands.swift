import CommandLineSupport
import Repository

/// `undo` and `redo`: take back the list's last change, or reapply the last one taken back, as
/// a new committed change (printed as a sentence naming the change taken back or made again, or
/// as its JSON changeset, as any change).
enum UndoCommands {
    static let undo = Command<Context>(
        CommandSpec(
            name: "undo", summary: "take back the list's last change, as a new change",
            examples: ["undo", "--json undo"],
            discussion: """
                One command, or one saved edit session, is one step; undo again to take back the one
                before (at least 100 are kept). A deleted row comes back in its place with its id.
                Refused, writing nothing, when there is nothing to undo or the list was changed with
                plain SQL since.
                """)
    ) { context in try run(redo: false, context: context) }

    static let redo = Command<Context>(
        CommandSpec(
            name: "redo", summary: "reapply the change the last undo took back",
            examples: ["redo"],
            discussion: "Possible until a new change is made to the list, which clears what could be redone.")
    ) { context in try run(redo: true, context: context) }

    static func run(redo: Bool, context: Context) throws {
        let list = try context.openList()
        let change = redo ? try list.redo() : try list.undo()
        if context.json {
            context.printJSON(JSONShapes.change(change))
        } else {
            context.console.writeLine(ChangeReport.undoSentence(for: change, redo: redo))
        }
    }
}
