import CommandLineSupport

/// Every command of `sectionctl`, in the order help lists them, and the global options. Each
/// command carries its spec (names, arguments, options, help, examples) and its code, in its
/// own file next to this one; adding a command is adding its `Command` value to `commands`.
enum Catalog {
    static let database = OptionSpec(
        "--db", valueName: "PATH",
        help:
            "the database file, or a server: a postgresql:// URI or key=value string (default: $SECTIONCTL_DB, else $XDG_DATA_HOME/sectionctl/sections.db)",
        completion: .files)
    static let list = OptionSpec("--list", valueName: "NAME", help: "the list to work on (default: default)", completion: .lists)
    static let json = OptionSpec("--json", help: "print JSON for scripts instead of text")
    static let helpOption = OptionSpec("--help", short: "h", help: "show help for the command", isHelp: true)
    static let version = OptionSpec("--version", help: "print the version")
    static let quiet = OptionSpec("--quiet", short: "q", help: "no progress line on long work")
    static let progress = OptionSpec(
        "--progress", help: "a progress line on long work even when standard error is not a terminal (one a second)")

    static let globalOptions = [database, list, json, quiet, progress, helpOption, version]

    /// The commands, in the order help lists them.
    static let commands: [Command<Context>] = [
        InitCommand.command,
        DemoCommand.command,
        ShowCommand.command,
        ListCommands.command,
        ListEdits.sectionCommand { arguments, context in try ListEdits.apply(arguments, context: context) },
        ListEdits.rowCommand(
            apply: { arguments, context in try ListEdits.apply(arguments, context: context) },
            get: { arguments, context in try RowGetCommand.run(arguments, context: context) }),
        EditCommand.command,
        UICommand.command,
        ImportCommand.command,
        ExportCommand.command,
        CheckCommand.command,
        RepairCommand.command,
        VacuumCommand.command,
        ChangesCommand.command,
        WatchCommand.command,
        ReplicaCommands.clone,
        ReplicaCommands.status,
        ReplicaCommands.sync,
        ServeCommand.command,
        TokenCommands.command,
        UndoCommands.undo,
        UndoCommands.redo,
        CompletionCommand.command,
        help,
        ValuesCommand.command,
    ]

    /// The whole tree: the commands under the program's name, which alone (or with `--help` or
    /// `--version`) runs too.
    static let root = Command<Context>(
        CommandSpec(
            name: "sectionctl",
            summary: "A persistent, sectioned, ordered list — the model behind a grouped table view — in a SQLite file or on a PostgreSQL server.",
            examples: [
                "init",
                "section add 'To do'",
                "row add 0 'Buy milk'",
                "show",
                "demo",
            ],
            discussion: """
                addresses: S is a section index (0-based), #ID, or exact title (an all-digit word is an index);
                PATH is S:R (0-based), S:end (the last row; as a destination, after it), or #ID of a row.
                exit codes: 0 ok, 1 refused or failed, 2 usage, 65 bad input data, 66 missing database
                or input file, 75 busy or conflict (try again).
                """),
        subcommands: commands
    ) { _ in
        let names = commands.filter { !$0.spec.isHidden }.map(\.spec.name).joined(separator: ", ")
        throw CLIError("missing a command (commands: \(names))", hint: "see 'sectionctl --help'", exitCode: .usage)
    }

    /// The parser for the command line.
    static let parser: CommandLineParser = CommandLineParser(program: "sectionctl", root: root.spec, globalOptions: globalOptions)

    /// The parser for one line of an edit session: the list-changing commands, `show`, and the
    /// session's own commands.
    static let sessionParser: CommandLineParser = CommandLineParser(
        program: "", root: EditCommand.sessionRoot.spec, globalOptions: [helpOption], listsGlobalOptions: false)

    static let manualPage = OptionSpec("--man", help: "write the manual page (roff) for man(1) instead")

    static let helpCommand = ArgumentSpec("COMMAND", isOptional: true, isVariadic: true, completion: .commands)

    static let help = Command<Context>(
        CommandSpec(
            name: "help", summary: "show help for a command",
            arguments: [helpCommand],
            options: [manualPage],
            examples: ["help row move", "help --man > sectionctl.1"]),
        reading: HelpArguments.self
    ) { arguments, context in
        switch arguments.page {
        case .manual:
            context.console.write(ManualPage(parser: parser, version: SectionCLI.version).roff())
        case .command(let path):
            context.console.write(parser.help(for: path))
        }
    }
}

/// `help [COMMAND…]` or `help --man`.
struct HelpArguments: CommandArguments {
    /// What to print.
    enum Page: Hashable, Sendable {
        /// The help of the command with these words (the program's own for none).
        case command([String])
        /// The whole manual page.
        case manual
    }

    var page: Page

    init(from line: ParsedLine) throws(CLIError) {
        let path = line.words(Catalog.helpCommand)
        if line.has(Catalog.manualPage) {
            guard path.isEmpty else { throw line.usage("\(Catalog.manualPage.name) writes the whole manual page; give no COMMAND") }
            page = .manual
            return
        }
        guard Catalog.parser.command(at: path) != nil else { throw line.usage("no command \"\(path.joined(separator: " "))\"") }
        page = .command(path)
    }
}
