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
                reads nothing while nothing changes. Ctrl-C (or SIGTERM) ends it with exit 0; so does
                the list's deletion, after a last line.
                """),
        run: { try run(context: $0) })

    static func run(context: Context) throws {
        let store = try context.openStore()
        let watcher = try ListWatcher(location: store.location, list: context.listName)
        let stop = Atomic<Bool>(false)
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { stop.store(true, ordering: .relaxed) }
            source.resume()
            return source
        }
        defer { sources.forEach { $0.cancel() } }
        if !context.json {
            context.console.writeLine(
                "Watching list \"\(TextEscaping.escaped(context.listName))\" from version \(watcher.version); Ctrl-C ends.")
            context.console.flush()
        }
        // Each wait for a commit ends after 100 ms at most, to look at the stop flag.
        while !stop.load(ordering: .relaxed) {
            let updates = try watcher.poll(waitingUpTo: 0.1)
            for update in updates {
                context.console.writeLine(context.json ? JSONShapes.update(update).rendered : sentence(update))
            }
            if !updates.isEmpty { context.console.flush() }
            if updates.last?.isDeleted == true { return }
        }
    }

    static func sentence(_ update: ListUpdate) -> String {
        let list = "list \"\(TextEscaping.escaped(update.list))\""
        if update.isDeleted { return "The \(list) was deleted." }
        guard let changeset = update.changeset else {
            return "Version \(update.version) of \(list): changed outside sectionctl; read it afresh (show)."
        }
        let what = ChangeReport.describe(changeset)
        return "Version \(update.version) of \(list): " + (what.isEmpty ? "renamed, or nothing visible." : what + ".")
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
        let store = try context.openStore()
        let answer = try store.changes(of: context.listName, since: since)
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
    var since: Int64

    init(from line: ParsedLine) throws(CLIError) {
        let option = ChangesCommand.since
        guard let text = line.value(option) else { throw line.usage("changes needs \(option.usage), the version to start from") }
        guard let since = Int64(text), since >= 0 else {
            throw line.usage("\(option.name) takes a version, a whole number 0 or more, not \"\(TextEscaping.escaped(text))\"")
        }
        self.since = since
    }
}
