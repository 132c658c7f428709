import Foundation
import Repository
import Synchronization

/// `watch [--json]`: one line per committed version of the list, from any process, until
/// interrupted (SIGINT or SIGTERM: exit 0) or the list is deleted (exit 0, after a last line).
enum WatchCommand {
    static func run(_ parsed: ParsedArguments, context: Context) throws {
        let store = try context.openStore()
        let watcher = try ListWatcher(path: store.path, list: context.listName)
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
        while !stop.load(ordering: .relaxed) {
            let updates = try watcher.poll()
            for update in updates {
                context.console.writeLine(context.json ? JSONShapes.update(update).rendered : sentence(update))
            }
            if !updates.isEmpty { context.console.flush() }
            if updates.last?.isDeleted == true { return }
            Thread.sleep(forTimeInterval: 0.025)
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
