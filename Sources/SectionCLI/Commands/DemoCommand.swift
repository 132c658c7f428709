import CommandLineSupport
import Foundation
import Repository

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `demo`: builds a new database that shows the main features, running the same commands a
/// person would type (each printed with its `$ sectionctl …` line), and ends with a `sqlite3`
/// command to look inside and, on the last line, the database's path.
///
/// The database goes to `--db PATH` (which must not exist yet) or into a new temporary directory.
enum DemoCommand {
    static let command = Command<Context>(
        CommandSpec(
            name: "demo", summary: "build a demo database showing the features, then print its path",
            examples: ["demo", "--db /tmp/demo.db demo"],
            discussion: """
                Uses --db PATH when given (refusing a file that exists), else a new temporary directory.
                The last line of output is the database's path.
                """),
        run: { try run(context: $0) })

    /// One step of the tour: what it shows, then the command lines that show it.
    private struct Step {
        var caption: String
        var commands: [[String]]
        /// Lines fed to `edit` after the commands, if the step shows an edit session.
        var sessions: [[String]] = []
    }

    private static let steps = [
        Step(
            caption: "Two sections, one of them empty.",
            commands: [
                ["section", "add", "To do"],
                ["section", "add", "Done"],
                ["row", "add", "0", "Buy milk"],
                ["row", "add", "0", "Call Aiko"],
                ["row", "add", "0", "Write report"],
                ["show"],
            ]),
        Step(
            caption: "The editing view: an empty section shows its footer (\"No Data\"), which is not a row.",
            commands: [["show", "--editing"]]),
        Step(
            caption: "Move a row across sections, into the empty one. The change says what a table view animates.",
            commands: [["--json", "row", "move", "0:1", "1:0"], ["show", "--editing"]]),
        Step(
            caption: "Headings (topic rows) and label/value rows (field rows); a missing value shows as -.",
            commands: [
                ["section", "add", "プロフィール"],
                ["row", "add", "プロフィール", "基本情報", "--kind", "topic"],
                ["row", "add", "プロフィール", "名前", "--value", "山田 太郎"],
                ["row", "add", "プロフィール", "年齢", "--kind", "field"],
                ["row", "add", "プロフィール", "出身地", "--value", "東京"],
                ["row", "add", "プロフィール", "連絡先", "--kind", "topic"],
                ["row", "add", "プロフィール", "メール", "--value", "taro@example.com"],
                ["show"],
            ]),
        Step(
            caption: "An edit session: cancel puts everything back; save writes every change as one.",
            commands: [],
            sessions: [
                ["row move 0:0 1:end", "section move Done 0", "cancel"],
                ["row move 0:0 1:end", "section add Later", "changes", "save"],
            ]),
        Step(
            caption: "After the save: the new empty section shows its footer in the editing view.",
            commands: [["show", "--editing"]]),
        Step(
            caption: "Reads that cost what they return, at any size: one row, or a window of rows across sections.",
            commands: [["row", "get", "#5"], ["show", "--from", "2:4", "--limit", "3", "--editing"]]),
        Step(
            caption: "Delete without asking; undo brings the row back, with its id, as a new change.",
            commands: [["row", "delete", "#5"], ["undo"], ["row", "get", "#5"]]),
        Step(
            caption: "What changed since version 12, as one changeset a view can apply (the journal).",
            commands: [["changes", "--since", "12"]]),
    ]

    static func run(context: Context) throws {
        let path = try demoPath(context: context)
        let console = context.console
        do {
            _ = try SectionStore(path: path, create: true)
        } catch let error as RepositoryError {
            throw CLIError.from(error)
        }
        if context.json {
            try runSteps(path: path, context: context, echo: false)
            let snapshot = try SectionStore(path: path).list(SectionStore.defaultList).snapshot(editing: true)
            context.printJSON(.object([("database", .string(path)), ("list", JSONShapes.snapshot(snapshot))]))
            return
        }
        console.writeLine(context.style.bold("sectionctl demo") + ": a tour of the features on a new database.")
        try runSteps(path: path, context: context, echo: true)
        let quotedPath = TextEscaping.escaped(ShellWords.quote(path))
        console.writeLine()
        console.writeLine("Look inside with sqlite3:")
        console.writeLine(
            "  sqlite3 \(quotedPath) \"SELECT path, kind, title, value FROM ordered_rows WHERE list = 'default'\"")
        console.writeLine("Or keep going with sectionctl:")
        console.writeLine("  sectionctl --db \(quotedPath) show --editing")
        console.writeLine("The demo database:")
        console.writeLine(TextEscaping.escaped(path))
    }

    private static func runSteps(path: String, context: Context, echo: Bool) throws {
        let quiet = Console(writeOutput: { _ in }, writeError: { _ in })
        let console = echo ? context.console : quiet
        for (number, step) in steps.enumerated() {
            if echo {
                console.writeLine()
                console.writeLine(context.style.bold("\(number + 1). \(step.caption)"))
            }
            for words in step.commands {
                if echo { console.writeLine(context.style.dim("$ sectionctl " + words.map(ShellWords.quote).joined(separator: " "))) }
                try runCommand(["--db", path] + words, context: context, console: console)
            }
            for lines in step.sessions {
                if echo {
                    let printf = "printf '%s\\n' " + lines.map(ShellWords.quote).joined(separator: " ")
                    console.writeLine(context.style.dim("$ \(printf) | sectionctl edit"))
                }
                try runCommand(["--db", path, "edit"], context: context, console: console.reading(lines))
            }
        }
    }

    private static func runCommand(_ words: [String], context: Context, console: Console) throws {
        let status = SectionCLI.run(words, environment: context.environment, console: console)
        guard status == ExitCode.success.rawValue else {
            throw CLIError("the demo stopped: 'sectionctl \(words.joined(separator: " "))' exited with \(status)")
        }
    }

    /// `--db PATH` when given and free, else `demo.db` in a new temporary directory.
    private static func demoPath(context: Context) throws(CLIError) -> String {
        if let path = context.options.databasePath {
            guard !FileManager.default.fileExists(atPath: path) else {
                throw CLIError(
                    "\(path) already exists; the demo builds a new database",
                    hint: "pick a path that does not exist, or leave out --db to use a temporary directory")
            }
            try DatabaseLocation.createParentDirectories(of: path)
            return path
        }
        let base = context.environment["TMPDIR"].flatMap { $0.isEmpty ? nil : $0 } ?? "/tmp"
        var template = Array((base + "/sectionctl-demo-XXXXXX").utf8CString)
        guard let directory = mkdtemp(&template) else {
            throw CLIError("cannot create a temporary directory in \(base): \(String(cString: strerror(errno)))")
        }
        return String(cString: directory) + "/demo.db"
    }
}
