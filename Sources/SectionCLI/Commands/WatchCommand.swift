import CommandLineSupport
import Foundation
import Repository
import Synchronization

/// `watch [--json]`: one line per committed version of the list, from any process, until
/// interrupted (SIGINT or SIGTERM: exit 0) or the list is deleted (exit 0, after a last line).
enum WatchCommand {
    static let command = Command<Context>(
        CommandSpec(
            name: "watch", summary: "print one line per committed version of the list, until interrupted",
            examples: ["watch", "--list work --json watch"],
            discussion: """
                Follows changes made by any process: each version's changes, or, for a change made
                with plain SQL, a line saying to read the list afresh. Checks 40 times a second and
                reads nothing while nothing changes. When output cannot keep up, the versions it
                missed come as one line ("Versions 5–9", JSON "from": 4). Ctrl-C (or SIGTERM) ends it with exit 0; so does
                the list's deletion, after a last line.
                """),
        run: { try run(context: $0) })

    static func run(context: Context) throws {
        let list = try context.openList()
        // Read first, so that a missing list is refused before anything is printed.
        let start = try list.header().version
        if !context.json {
            context.console.writeLine("Watching list \"\(TextEscaping.escaped(list.name))\" from version \(start); Ctrl-C ends.")
            context.console.flush()
        }
        let printer = Printer(context: context)
        let feed = list.updates(from: start)
        // The whole of watch: the library's feed, printed as it comes.
        try UntilInterrupted.run {
            for try await update in feed {
                printer.print(update)
            }
        }
    }

    /// Prints updates on the console of a command whose thread waits for the feed to end: the
    /// feed's task is the console's only user meanwhile.
    private final class Printer: @unchecked Sendable {
        private let context: Context

        init(context: Context) {
            self.context = context
        }

        func print(_ update: ListUpdate) {
            context.console.writeLine(context.json ? JSONShapes.update(update).rendered : WatchCommand.sentence(update))
            context.console.flush()
        }
    }

    static func sentence(_ update: ListUpdate) -> String {
        let list = "list \"\(TextEscaping.escaped(update.list))\""
        if update.isDeleted { return "The \(list) was deleted." }
        guard let changeset = update.changeset else {
            return "Version \(update.version) of \(list): changed outside sectionctl; read it afresh (show)."
        }
        let what = ChangeReport.describe(changeset)
        // A watcher that fell behind gets the versions it missed as one change.
        let versions = update.from.next < update.version ? "Versions \(update.from.next)–\(update.version)" : "Version \(update.version)"
        return "\(versions) of \(list): " + (what.isEmpty ? "renamed, or nothing visible." : what + ".")
    }
}

/// `changes --since V`: one changeset from version V to now, composed from the journal, or
/// "reload" when the journal cannot say (exit 0 either way).
enum ChangesCommand {
    static let since = OptionSpec("--since", valueName: "V", help: "the version to start from")

    static let command = Command<Context>(
        CommandSpec(
            name: "changes", summary: "what changed in the list since version V, as one changeset",
            options: [since],
            examples: ["changes --since 12", "--json changes --since 12"],
            discussion: """
                Composes the journal's entries from V to now into one changeset, as a view at version V
                would apply it. When the journal cannot say — V is older than the last 1,000 versions
                it keeps, newer than the list, or the list was changed with plain SQL in between — it
                says to reload instead ("reload": true), never a wrong changeset. Exit 0 either way.
                """),
        reading: ChangesArguments.self,
        run: { try run($0, context: $1) })

    static func run(_ arguments: ChangesArguments, context: Context) throws {
        let since = arguments.since
        let answer = try context.openList().changes(since: since)
        if context.json {
            context.printJSON(JSONShapes.changes(answer))
            return
        }
        let list = "list \"\(TextEscaping.escaped(answer.list))\""
        guard let changeset = answer.changeset else {
            context.console.writeLine(
                "Since version \(since), \(list) (now at version \(answer.version)) changed in ways the journal cannot say; read it afresh (show).")
            return
        }
        let what = ChangeReport.describe(changeset)
        context.console.writeLine(
            "Since version \(since), \(list) (now at version \(answer.version)): " + (what.isEmpty ? "nothing visible changed." : what + "."))
    }
}

/// `changes --since V`.
struct ChangesArguments: CommandArguments {
    /// The version to start from.
    var since: ListVersion

    init(from line: ParsedLine) throws(CLIError) {
        let option = ChangesCommand.since
        guard let text = line.value(option) else { throw line.usage("changes needs \(option.usage), the version to start from") }
        guard let since = Int64(text), since >= 0 else {
            throw line.usage("\(option.name) takes a version, a whole number 0 or more, not \"\(TextEscaping.escaped(text))\"")
        }
        self.since = ListVersion(rawValue: since)
    }
}
