/// Every command of `sectionctl`: names, arguments, options, help and examples. What they do
/// lives next to this file, one file per noun.
enum Catalog {
    static let helpOption = OptionSpec("--help", short: "h", help: "show help for the command", isHelp: true)

    static let globalOptions = [
        OptionSpec("--db", valueName: "PATH", help: "the database (default: $SECTIONCTL_DB, else $XDG_DATA_HOME/sectionctl/sections.db)"),
        OptionSpec("--list", valueName: "NAME", help: "the list to work on (default: default)"),
        OptionSpec("--json", help: "print JSON for scripts instead of text"),
        helpOption,
        OptionSpec("--version", help: "print the version"),
    ]

    /// The parser for the command line.
    static let parser = ArgumentParser(
        program: "sectionctl",
        root: CommandSpec(
            name: "sectionctl",
            summary: "A persistent, sectioned, ordered list — the model behind a grouped table view — in SQLite.",
            subcommands: [initCommand, demo, show, list, section, row, edit, ui, importCommand, export, check, changes, watch, undo, redo, help],
            isRunnable: true,
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
        globalOptions: globalOptions)

    /// The parser for one line of an edit session: the list-changing commands, `show`, and the
    /// session's own commands.
    static let sessionParser = ArgumentParser(
        program: "",
        root: CommandSpec(
            name: "",
            summary: "An edit session: every change goes to a draft; save writes them all, cancel drops them.",
            subcommands: [
                show, section, row,
                CommandSpec(name: "changes", summary: "what saving now would change"),
                CommandSpec(name: "save", summary: "write every change in one transaction and end the session"),
                CommandSpec(name: "cancel", summary: "drop every change and end the session"),
                CommandSpec(
                    name: "help", summary: "list the commands, or show one's help",
                    arguments: [ArgumentSpec("COMMAND", isOptional: true, isVariadic: true)]),
            ],
            discussion: """
                S is a section index, #ID or exact title; PATH is S:R, S:end or #ID. Rows and sections
                added in the session have negative ids (#-1) until it is saved.
                Type 'help row move' or 'row move --help' for a command's help.
                """),
        globalOptions: [helpOption],
        listsGlobalOptions: false)

    static let initCommand = CommandSpec(
        name: "init", summary: "create and migrate the database (safe to run again)",
        examples: ["init", "--db ./tasks.db init"],
        discussion: "Creates the database and its parent directories. Every other command needs it to exist.")

    static let demo = CommandSpec(
        name: "demo", summary: "build a demo database showing the features, then print its path",
        examples: ["demo", "--db /tmp/demo.db demo"],
        discussion: """
            Uses --db PATH when given (refusing a file that exists), else a new temporary directory.
            The last line of output is the database's path.
            """)

    static let show = CommandSpec(
        name: "show", summary: "show the list: sections, index paths, rows, footers",
        options: [
            OptionSpec("--editing", help: "show the editing view: empty sections show their footer"),
            OptionSpec("--from", valueName: "PATH", help: "show only a window of rows, starting at PATH (S:R, S:end, #ID)"),
            OptionSpec("--limit", valueName: "N", help: "at most N rows in the window (default: 50)"),
        ],
        examples: ["show", "--list work show --editing", "show --json", "show --from 3:1200 --limit 30"],
        discussion: """
            With --from or --limit, only that window is read and shown, with the headers (and, with
            --editing, the footers) of the sections it touches: as fast at any size of list. A window
            may start at S:N where N is the section's row count: it then begins with the next section.
            """)

    static let list = CommandSpec(
        name: "list", summary: "list, add, rename and delete lists",
        subcommands: [
            CommandSpec(
                name: "ls", summary: "every list with its version and counts",
                examples: ["list ls"]),
            CommandSpec(
                name: "add", summary: "create an empty list",
                arguments: [ArgumentSpec("NAME", help: "the new list's name")],
                examples: ["list add work"]),
            CommandSpec(
                name: "rename", summary: "rename a list",
                arguments: [ArgumentSpec("NAME", help: "the list"), ArgumentSpec("NEW", help: "its new name")],
                examples: ["list rename work job"]),
            CommandSpec(
                name: "delete", summary: "delete a list (--force when it has sections)",
                arguments: [ArgumentSpec("NAME", help: "the list")],
                options: [OptionSpec("--force", help: "delete it with its sections and rows")],
                examples: ["list delete work --force"]),
        ],
        examples: ["list ls", "list add work", "--list work section add Inbox"])

    static let sectionArgument = ArgumentSpec("S", help: "a section: index, #ID, or exact title")

    static let section = CommandSpec(
        name: "section", summary: "add, rename, set, move and delete sections",
        subcommands: [
            CommandSpec(
                name: "add", summary: "add a section (at the end unless --at)",
                arguments: [ArgumentSpec("TITLE", help: "the section's title")],
                options: [
                    OptionSpec("--at", valueName: "I", help: "its index after adding (0 = first)"),
                    OptionSpec("--empty-text", valueName: "TEXT", help: "what its footer says while empty (default: No Data)"),
                ],
                examples: ["section add 'To do'", "section add Urgent --at 0"]),
            CommandSpec(
                name: "rename", summary: "change a section's title",
                arguments: [sectionArgument, ArgumentSpec("TITLE", help: "the new title")],
                examples: ["section rename 0 Today"]),
            CommandSpec(
                name: "set", summary: "set what an empty section's footer says while editing",
                arguments: [sectionArgument],
                options: [
                    OptionSpec("--empty-text", valueName: "TEXT", help: "the footer text"),
                    OptionSpec("--no-empty-text", help: "go back to the default, No Data"),
                ],
                examples: ["section set Done --empty-text 'Nothing done yet'"]),
            CommandSpec(
                name: "move", summary: "move a section so that its index becomes I",
                arguments: [sectionArgument, ArgumentSpec("I", help: "its index after the move")],
                examples: ["section move Done 0"]),
            CommandSpec(
                name: "delete", summary: "delete a section (--force when it has rows)",
                arguments: [sectionArgument],
                options: [OptionSpec("--force", help: "delete it with its rows")],
                examples: ["section delete 1", "section delete Done --force"]),
        ],
        examples: ["section add Done", "section move Done 0", "section delete '#4' --force"])

    static let pathArgument = ArgumentSpec("PATH", help: "a row: S:R (0-based), S:end, or #ID")

    static let row = CommandSpec(
        name: "row", summary: "add, change, move, delete and get rows",
        subcommands: [
            CommandSpec(
                name: "add", summary: "add a row to a section (at the end unless --at)",
                arguments: [sectionArgument, ArgumentSpec("TITLE", help: "the title (a field's label)")],
                options: [
                    OptionSpec("--at", valueName: "R", help: "its index after adding, or end"),
                    OptionSpec("--kind", valueName: "text|topic|field", help: "the row's kind (default: text; field with --value)"),
                    OptionSpec("--value", valueName: "V", help: "a field's value (absent shows as -)"),
                ],
                examples: [
                    "row add 0 'Buy milk'",
                    "row add Profile Name --kind field --value 'Ada'",
                    "row add 1 Contact --kind topic --at 0",
                ]),
            CommandSpec(
                name: "set", summary: "change a row's title or value",
                arguments: [pathArgument],
                options: [
                    OptionSpec("--title", valueName: "T", help: "the new title (a field's label)"),
                    OptionSpec("--value", valueName: "V", help: "a field's new value"),
                    OptionSpec("--no-value", help: "remove a field's value (shows as -)"),
                ],
                examples: ["row set 0:1 --title 'Buy oat milk'", "row set '#7' --no-value"]),
            CommandSpec(
                name: "move", summary: "move a row, within its section or to another",
                arguments: [pathArgument, ArgumentSpec("TO", help: "S:R (its index after the move) or S:end", isOptional: true)],
                options: [
                    OptionSpec("--after", valueName: "#ID", help: "instead of TO: just after that row, wherever it is then"),
                    OptionSpec("--before", valueName: "#ID", help: "instead of TO: just before that row"),
                ],
                examples: ["row move 0:1 1:0", "row move '#7' Done:end", "row move '#7' --after '#12'"],
                discussion: """
                    --after and --before name a row by #ID, a place that does not shift when rows are
                    added or moved meanwhile: a move retried after a conflict lands where it was meant.
                    """),
            CommandSpec(
                name: "delete", summary: "delete a row (no confirmation)",
                arguments: [pathArgument],
                examples: ["row delete 0:end"]),
            CommandSpec(
                name: "get", summary: "print one row with its path and its section",
                arguments: [pathArgument],
                examples: ["row get 0:0", "row get '#7'", "--json row get 1:end"],
                discussion: "Reads only that row: as fast in a list of millions as in a small one."),
        ],
        examples: ["row add 0 'Buy milk'", "row move 0:1 1:0", "row set 0:0 --title 'Buy oat milk'", "row delete '#7'"])

    static let edit = CommandSpec(
        name: "edit", summary: "an edit session: changes kept aside until save, dropped by cancel",
        examples: ["edit", "--list work edit"],
        discussion: """
            Each line is a command without 'sectionctl' and its global options (row move 0:1 1:0,
            section add Done, show), or changes, help, save, cancel. Words are split like a shell's.
            At a terminal: a prompt, the editing view after each change; errors keep the session;
            Ctrl-D or cancel drops the changes. From a pipe: '#' comments and blank lines are skipped,
            the first failing line ends the session and nothing is written, and input that ends
            without save or cancel writes nothing and exits 1. A save refused because the list
            changed meanwhile exits 75. From a script:
              printf '%s\\n' 'row move 0:1 1:0' 'section add Later' save | sectionctl edit
            """)

    static let ui = CommandSpec(
        name: "ui", summary: "the list full screen at a terminal: browse, reorder, delete, undo",
        examples: ["ui", "--list work ui"],
        discussion: """
            Keys: arrows or j/k move, PgUp/PgDn page, g/G first/last row, q quits, ? shows them all.
            e enters reorder mode (an edit session; empty sections show their footer): space picks
            up the row under the cursor and drops it, Down/Up carry it one place (from a section's
            last place into the next section's first; an empty section has one place), s saves, Esc
            cancels. d deletes the row under the cursor; u undoes (in reorder mode the last edit,
            otherwise the list's last change). Other processes' changes appear as they happen; a
            save refused because the list changed offers to reload (r) or cancel (Esc).
            Needs a terminal on standard input and output (exit 2 otherwise).
            """)

    static let importCommand = CommandSpec(
        name: "import", summary: "import a list from JSON (as written by export), or records",
        arguments: [ArgumentSpec("FILE", help: "a file, or - for standard input")],
        options: [
            OptionSpec("--replace", help: "replace the content of a list that has sections"),
            OptionSpec("--append", help: "add after the sections of a list that has some"),
            OptionSpec("--records", help: "the input is a JSON array of objects, one section each"),
            OptionSpec("--nl", help: "with --records: one JSON object per line, streamed"),
            OptionSpec("--template", valueName: "FILE", help: "with --records: labels, order and expected keys"),
            OptionSpec("--title-key", valueName: "KEY", help: "with --records: the key whose value titles each section"),
        ],
        examples: [
            "import backup.json",
            "--list people import --records people.json --title-key name",
            "import --records --nl - < people.ndjson",
        ])

    static let export = CommandSpec(
        name: "export", summary: "write the list (or all lists) as JSON",
        options: [
            OptionSpec("--output", short: "o", valueName: "FILE", help: "write to FILE instead of standard output"),
            OptionSpec("--all", help: "every list, not only --list"),
        ],
        examples: ["export -o backup.json", "export --all > everything.json"])

    static let check = CommandSpec(
        name: "check", summary: "verify row counts, order and the rank structure against the rows",
        examples: ["check", "--json check"],
        discussion: """
            Reads the whole database: each section's row count, every node of the rank structure
            (which makes index lookups O(log n)) against the rows in its range, and SQLite's own
            quick_check. Prints ok, or each problem and exits 1.
            """)

    static let changes = CommandSpec(
        name: "changes", summary: "what changed in the list since version V, as one changeset",
        options: [OptionSpec("--since", valueName: "V", help: "the version to start from")],
        examples: ["changes --since 12", "--json changes --since 12"],
        discussion: """
            Composes the journal's entries from V to now into one changeset, as a view at version V
            would apply it. When the journal cannot say — V is older than the last 1,000 versions
            it keeps, newer than the list, or the list was changed with plain SQL in between — it
            says to reload instead ("reload": true), never a wrong changeset. Exit 0 either way.
            """)

    static let watch = CommandSpec(
        name: "watch", summary: "print one line per committed version of the list, until interrupted",
        examples: ["watch", "--list work --json watch"],
        discussion: """
            Follows changes made by any process: each version's changes, or, for a change made
            with plain SQL, a line saying to read the list afresh. Checks 40 times a second and
            reads nothing while nothing changes. Ctrl-C (or SIGTERM) ends it with exit 0; so does
            the list's deletion, after a last line.
            """)

    static let undo = CommandSpec(
        name: "undo", summary: "take back the list's last change, as a new change",
        examples: ["undo", "--json undo"],
        discussion: """
            One command, or one saved edit session, is one step; undo again to take back the one
            before (at least 100 are kept). A deleted row comes back in its place with its id.
            Refused, writing nothing, when there is nothing to undo or the list was changed with
            plain SQL since.
            """)

    static let redo = CommandSpec(
        name: "redo", summary: "reapply the change the last undo took back",
        examples: ["redo"],
        discussion: "Possible until a new change is made to the list, which clears what could be redone.")

    static let help = CommandSpec(
        name: "help", summary: "show help for a command",
        arguments: [ArgumentSpec("COMMAND", isOptional: true, isVariadic: true)],
        examples: ["help row move"])
}
