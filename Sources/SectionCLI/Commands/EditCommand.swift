import CommandLineSupport
import Repository

/// `edit`: an edit session on standard input.
///
/// Each line is a `section …`/`row …` command, `show`, `changes`, `help`, `save` or `cancel`,
/// split into words like a shell's. Changes go to the session's draft; only `save` writes, in
/// one transaction, and only if nobody changed the list since the session began.
///
/// - At a terminal: a prompt, the rows around each change (the whole draft only on `show`),
///   errors reported while the session goes on; `cancel` or Ctrl-D drops the changes and says
///   how many.
/// - From a pipe: `#` comments and blank lines are skipped; the first failing line ends the
///   session (`line N: …`) and nothing is written; input that ends without `save` or `cancel`
///   writes nothing and fails.
///
/// A save refused because the list changed (or the database stayed busy) ends the session with
/// exit 75 in both modes.
final class EditCommand {
    private let context: Context
    private let session: EditSession
    private let isInteractive: Bool
    /// The number of the line being run, which errors name.
    private var lineNumber = 0
    /// Whether `save` or `cancel` ended the session.
    private var hasEnded = false
    private var console: Console { context.console }

    /// A save that failed: it ends the session in both modes.
    private struct SaveFailure: Error {
        var error: CLIError
    }

    private init(context: Context, session: EditSession) {
        self.context = context
        self.session = session
        self.isInteractive = context.console.inputIsTerminal
    }

    static let command = Command<Context>(
        CommandSpec(
            name: "edit", summary: "an edit session: changes kept aside until save, dropped by cancel",
            examples: ["edit", "--list work edit"],
            discussion: """
                Each line is a command without 'sectionctl' and its global options (row move 0:1 1:0,
                section add Done, show), or changes, help, save, cancel. Words are split like a shell's.
                At a terminal: a prompt, the editing view after each change; errors keep the session;
                Ctrl-D or cancel drops the changes. From a pipe: '#' comments and blank lines are skipped,
                the first failing line ends the session and nothing is written, and input that ends
                without save or cancel writes nothing and exits 1. Once the list is changed by
                someone else the session ends, at the next line that reads or edits the draft or at
                save, writing nothing, with exit 75. From a script:
                  printf '%s\\n' 'row move 0:1 1:0' 'section add Later' save | sectionctl edit
                """),
        run: { try run(context: $0) })

    static func run(context: Context) throws {
        let list = try context.openList()
        let session = try list.beginEditing()
        try EditCommand(context: context, session: session).run()
    }

    private func run() throws {
        if isInteractive {
            console.writeLine(
                "Editing list \"\(TextEscaping.escaped(session.name))\" at version \(session.baseVersion). "
                    + "Type help for commands, save to write, cancel or Ctrl-D to drop the changes.")
            console.writeLine()
            try showStart()
        }
        while true {
            if isInteractive { console.write(prompt) }
            lineNumber += 1
            do {
                guard let line = try console.readLine() else { break }
                if try perform(line) { return }
            } catch let failure as SaveFailure {
                session.cancel()
                throw failure.error
            } catch let error as RepositoryError where Self.isConflict(error) {
                // The list changed since the session began: the draft can no longer be read, and
                // a save would be refused, so the session ends as a refused save does (exit 75).
                session.cancel()
                throw isInteractive ? CLIError.from(error) : CLIError.from(error).prefixed("line \(lineNumber): ")
            } catch {
                let reported = Self.sessionError(error)
                if isInteractive {
                    console.writeErrorLine(context.errorStyle.red("error:") + " " + TextEscaping.escaped(reported.message))
                    if let hint = reported.hint { console.writeErrorLine("hint: " + TextEscaping.escaped(hint)) }
                    continue
                }
                session.cancel()
                throw reported.prefixed("line \(lineNumber): ")
            }
        }
        // The input ended without save or cancel.
        let dropped = session.editCount
        session.cancel()
        if isInteractive {
            console.writeLine()
            console.writeLine(cancelledSentence(dropped))
            return
        }
        throw CLIError(
            "the input ended without save or cancel; nothing was written (\(plural(dropped, "change")) dropped)",
            hint: "end the input with a line that says save (or cancel)")
    }

    private var prompt: String {
        let pending = session.editCount == 0 ? "" : "*"
        return "edit \(TextEscaping.escaped(session.name))\(pending)> "
    }

    /// Runs one line. Returns whether it ended the session (save or cancel).
    private func perform(_ line: String) throws -> Bool {
        let words: [String]
        do {
            words = try ShellWords.split(line)
        } catch {
            throw CLIError(error.message, exitCode: .usage)
        }
        guard !words.isEmpty else { return false }
        let parsed = try Catalog.sessionParser.parse(words)
        if parsed.has(Catalog.helpOption) {
            console.write(Catalog.sessionParser.help(for: parsed.commandPath))
            return false
        }
        try Self.sessionRoot.dispatch(parsed, in: self)
        return hasEnded
    }

    /// What a line of a session can say: `show`, the `section …` and `row …` commands on the
    /// draft, and the session's own commands.
    static let sessionRoot = Command<EditCommand>(
        CommandSpec(
            name: "",
            summary: "An edit session: every change goes to a draft; save writes them all, cancel drops them.",
            discussion: """
                S is a section index, #ID or exact title; PATH is S:R, S:end or #ID. Rows and sections
                added in the session have negative ids (#-1) until it is saved.
                Type 'help row move' or 'row move --help' for a command's help.
                """),
        subcommands: [
            // The whole draft: the session shows no windows (its options are read, and checked, all the same).
            Command(ShowCommand.spec, reading: ShowArguments.self) { _, editor in
                if editor.context.json {
                    editor.context.printJSON(JSONShapes.snapshot(try editor.session.snapshot()))
                } else {
                    try editor.showDraft()
                }
            },
            ListEdits.sectionCommand { arguments, editor in try editor.apply(arguments) },
            ListEdits.rowCommand(
                apply: { arguments, editor in try editor.apply(arguments) },
                get: { arguments, editor in
                    try arguments.row.places.naming {
                        try RowGetCommand.print(
                            try editor.session.window(startingAt: arguments.row.reference, limit: 1), context: editor.context)
                    }
                }),
            Command(CommandSpec(name: "changes", summary: "what saving now would change")) { editor in
                editor.printPendingChanges()
            },
            Command(CommandSpec(name: "save", summary: "write every change in one transaction and end the session")) { editor in
                try editor.ensureNothingFollows("save")
                try editor.save()
            },
            Command(CommandSpec(name: "cancel", summary: "drop every change and end the session")) { editor in
                try editor.ensureNothingFollows("cancel")
                editor.cancel()
            },
            Command(
                CommandSpec(
                    name: "help", summary: "list the commands, or show one's help",
                    arguments: [SessionHelpArguments.command]),
                reading: SessionHelpArguments.self
            ) { arguments, editor in
                guard Catalog.sessionParser.command(at: arguments.command) != nil else {
                    throw CLIError(
                        "no command \"\(arguments.command.joined(separator: " "))\"", hint: "type help", exitCode: .usage)
                }
                editor.console.write(Catalog.sessionParser.help(for: arguments.command))
            },
        ])

    /// `help [COMMAND…]` in a session.
    struct SessionHelpArguments: CommandArguments {
        static let command = ArgumentSpec("COMMAND", isOptional: true, isVariadic: true)

        /// The words of the command to show the help of; none for the session's own.
        var command: [String]

        init(from line: ParsedLine) throws(CLIError) {
            command = line.words(Self.command)
        }
    }

    /// Applies a `section …` or `row …` line to the draft, showing what changed at a terminal.
    private func apply(_ arguments: any EditArguments) throws {
        let changeset = try arguments.places.naming { try session.apply(arguments.edit) }.changeset
        if isInteractive && !context.json { try showAround(changeset) }
    }

    private func cancel() {
        let dropped = session.editCount
        session.cancel()
        hasEnded = true
        if context.json {
            context.printJSON(
                .object([
                    ("list", .string(session.name)), ("version", .int(session.baseVersion)),
                    ("cancelled", .bool(true)), ("dropped", .int(dropped)),
                ]))
        } else {
            console.writeLine(cancelledSentence(dropped))
        }
    }

    /// From a pipe, `save` or `cancel` ends the script: a command after it is a mistake in the
    /// script, reported before anything is written (blank lines and comments may follow).
    private func ensureNothingFollows(_ command: String) throws {
        guard !isInteractive else { return }
        var offset = 0
        while true {
            let line: String?
            do {
                line = try console.readLine()
            } catch {
                lineNumber += offset + 1  // the error is about that later line
                throw error
            }
            guard let line else { return }
            offset += 1
            if (try? ShellWords.split(line))?.isEmpty == true { continue }
            throw CLIError(
                "\(command) must end the input, but a command follows it \(offset == 1 ? "on the next line" : "\(offset) lines later"); nothing was written",
                exitCode: .usage)
        }
    }

    private func save() throws {
        let editCount = session.editCount
        var change: Change
        do {
            change = try session.save()
        } catch let error as RepositoryError {
            throw SaveFailure(error: CLIError.from(error))
        }
        // A session whose edits add up to nothing writes nothing when saved: its changeset is
        // empty, and any session that writes has one.
        if change.changeset.isEmpty { change.committed = false }
        if context.json {
            context.printJSON(JSONShapes.change(change))
        } else {
            console.writeLine(context.style.green(ChangeReport.savedSentence(for: change, editCount: editCount)))
        }
        hasEnded = true
    }

    private func printPendingChanges() {
        let pending = session.pendingChanges
        if context.json {
            context.printJSON(
                .object([
                    ("list", .string(session.name)), ("version", .int(session.baseVersion)),
                    ("pending", .int(session.editCount)), ("changes", JSONShapes.changeset(pending)),
                ]))
        } else {
            for line in ChangeReport.pendingLines(pending, editCount: session.editCount) {
                console.writeLine(line)
            }
        }
    }

    /// The header of every view of the draft.
    private var draftHeader: String {
        let pending = session.editCount == 0 ? "no changes yet" : plural(session.editCount, "change") + " not saved"
        return context.style.bold(TextEscaping.escaped(session.name)) + " (editing version \(session.baseVersion), \(pending))"
    }

    /// The whole draft (`show`): reads every row.
    private func showDraft() throws {
        console.write(Listing(style: context.style).render(try session.snapshot(), header: draftHeader))
    }

    /// Rows shown at the start, from the top of the list.
    private static let startRows = 20
    /// Rows shown on either side of a changed row.
    private static let contextRows = 2

    /// The top of the draft, as the session begins.
    private func showStart() throws {
        let outline = try session.outline
        guard !outline.sections.isEmpty else {
            let empty = ListSnapshot(name: session.name, version: session.baseVersion, isEditing: true, listID: session.listID)
            console.write(Listing(style: context.style).render(empty, header: draftHeader))
            return
        }
        var excerpt = Excerpt(style: context.style)
        excerpt.add(try session.window(from: RowPath(section: 0, row: 0), limit: Self.startRows))
        var text = excerpt.render(header: draftHeader)
        let shown = min(outline.rowCount, Self.startRows)
        if shown < outline.rowCount {
            text += "\n" + context.style.dim("(\(shown) of \(outline.rowCount) rows shown; type show for the whole list)") + "\n"
        }
        console.write(text)
    }

    /// The rows around what an edit changed, with their sections' headers and footers.
    private func showAround(_ changeset: Changeset) throws {
        let outline = try session.outline
        guard !outline.sections.isEmpty else {
            try showStart()
            return
        }
        var excerpt = Excerpt(style: context.style)
        func around(_ path: RowPath) throws {
            guard outline.sections.indices.contains(path.section) else { return }
            let count = outline.sections[path.section].rowCount
            let start = RowPath(section: path.section, row: min(max(0, path.row - Self.contextRows), count))
            excerpt.add(try session.window(from: start, limit: 2 * Self.contextRows + 1))
        }
        func header(_ index: Int) {
            guard outline.sections.indices.contains(index) else { return }
            excerpt.add(outline.sections[index], editing: true)
        }
        for index in changeset.insertedSections + changeset.updatedSections + changeset.movedSections.map(\.to) {
            header(index)
            try around(RowPath(section: index, row: 0))
        }
        for index in changeset.deletedSections {
            // The section now in its place, or the last one.
            let shown = min(index, outline.sections.count - 1)
            header(shown)
            try around(RowPath(section: shown, row: 0))
        }
        // One edit moves no section and deletes none while it changes rows: old and new paths
        // name the same sections.
        for path in changeset.deletedRows + changeset.insertedRows + changeset.updatedRows
            + changeset.movedRows.flatMap({ [$0.from, $0.to] })
        {
            header(path.section)
            try around(path)
        }
        console.write(excerpt.render(header: draftHeader))
    }

    private func cancelledSentence(_ dropped: Int) -> String {
        "Cancelled; \(plural(dropped, "change")) dropped, nothing was written."
    }

    /// Whether the error says the list changed since the session began.
    private static func isConflict(_ error: RepositoryError) -> Bool {
        if case .conflict = error { return true }
        return false
    }

    /// An error from one line, with usage hints that point at the session's own help.
    private static func sessionError(_ error: any Error) -> CLIError {
        if let error = error as? ArgumentError {
            let help = (error.commandPath + [Catalog.helpOption.name]).joined(separator: " ")
            return CLIError(error.message, hint: error.commandPath.isEmpty ? "type help" : "type \(help)", exitCode: .usage)
        }
        var reported = CLIError.from(error)
        if reported.exitCode == .usage, let hint = reported.hint, hint.hasPrefix("see 'sectionctl ") {
            reported.hint = "type " + hint.dropFirst("see 'sectionctl ".count).dropLast()
        }
        return reported
    }
}
