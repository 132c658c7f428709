import Repository

/// `edit`: an edit session on standard input.
///
/// Each line is a `section …`/`row …` command, `show`, `changes`, `help`, `save` or `cancel`,
/// split into words like a shell's. Changes go to the session's draft; only `save` writes, in
/// one transaction, and only if nobody changed the list since the session began.
///
/// - At a terminal: a prompt, the editing view after each change, errors reported while the
///   session goes on; `cancel` or Ctrl-D drops the changes and says how many.
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

    static func run(_ parsed: ParsedArguments, context: Context) throws {
        let store = try context.openStore()
        let session = try store.beginEditing(context.listName)
        try EditCommand(context: context, session: session).run()
    }

    private func run() throws {
        if isInteractive {
            console.writeLine(
                "Editing list \"\(TextEscaping.escaped(session.base.name))\" at version \(session.base.version). "
                    + "Type help for commands, save to write, cancel or Ctrl-D to drop the changes.")
            console.writeLine()
            showDraft()
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
        return "edit \(TextEscaping.escaped(session.base.name))\(pending)> "
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
        if parsed.has("--help") {
            console.write(Catalog.sessionParser.help(for: parsed.commandPath))
            return false
        }
        switch parsed.commandPath.first {
        case "save":
            try ensureNothingFollows("save")
            return try save()
        case "cancel":
            try ensureNothingFollows("cancel")
            let dropped = session.editCount
            session.cancel()
            if context.json {
                context.printJSON(
                    .object([
                        ("list", .string(session.base.name)), ("version", .int(session.base.version)),
                        ("cancelled", .bool(true)), ("dropped", .int(dropped)),
                    ]))
            } else {
                console.writeLine(cancelledSentence(dropped))
            }
            return true
        case "help":
            guard Catalog.sessionParser.command(at: parsed.arguments) != nil else {
                throw CLIError(
                    "no command \"\(parsed.arguments.joined(separator: " "))\"", hint: "type help", exitCode: .usage)
            }
            console.write(Catalog.sessionParser.help(for: parsed.arguments))
            return false
        case "changes":
            printPendingChanges()
            return false
        case "show":
            if context.json {
                context.printJSON(JSONShapes.snapshot(session.draft))
            } else {
                showDraft()
            }
            return false
        default:
            let edit = try ListEdits.checkedEdit(for: parsed)
            try ListEdits.namingNumbersAsWritten(parsed) { try session.apply(edit) }
            if isInteractive && !context.json { showDraft() }
            return false
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

    private func save() throws -> Bool {
        let editCount = session.editCount
        let change: Change
        do {
            change = try session.save()
        } catch let error as RepositoryError {
            throw SaveFailure(error: CLIError.from(error))
        }
        if context.json {
            context.printJSON(JSONShapes.change(change))
        } else {
            console.writeLine(context.style.green(ChangeReport.savedSentence(for: change, editCount: editCount)))
        }
        return true
    }

    private func printPendingChanges() {
        let pending = session.pendingChanges
        if context.json {
            context.printJSON(
                .object([
                    ("list", .string(session.base.name)), ("version", .int(session.base.version)),
                    ("pending", .int(session.editCount)), ("changes", JSONShapes.changeset(pending)),
                ]))
        } else {
            for line in ChangeReport.pendingLines(pending, editCount: session.editCount) {
                console.writeLine(line)
            }
        }
    }

    private func showDraft() {
        let draft = session.draft
        let pending = session.editCount == 0 ? "no changes yet" : plural(session.editCount, "change") + " not saved"
        let header =
            context.style.bold(TextEscaping.escaped(draft.name))
            + " (editing version \(session.base.version), \(pending))"
        console.write(Listing(style: context.style).render(draft, header: header))
    }

    private func cancelledSentence(_ dropped: Int) -> String {
        "Cancelled; \(plural(dropped, "change")) dropped, nothing was written."
    }

    /// An error from one line, with usage hints that point at the session's own help.
    private static func sessionError(_ error: any Error) -> CLIError {
        if let error = error as? ArgumentError {
            let help = (error.commandPath + ["--help"]).joined(separator: " ")
            return CLIError(error.message, hint: error.commandPath.isEmpty ? "type help" : "type \(help)", exitCode: .usage)
        }
        var reported = CLIError.from(error)
        if reported.exitCode == .usage, let hint = reported.hint, hint.hasPrefix("see 'sectionctl ") {
            reported.hint = "type " + hint.dropFirst("see 'sectionctl ".count).dropLast()
        }
        return reported
    }
}

private func plural(_ count: Int, _ noun: String) -> String {
    count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
}
