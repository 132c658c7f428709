import Repository

/// One `section …` or `row …` verb: its spec, and the edit a parsed line asks for (checking
/// the options against each other and reading the addresses).
struct EditVerb: Sendable {
    let spec: CommandSpec
    /// - Throws: `CLIError` (usage) for options that contradict each other or malformed addresses.
    let edit: @Sendable (ParsedArguments) throws(CLIError) -> Edit
}

/// The `section …` and `row …` commands as `Edit` values, so that the same words change the
/// database at once (`sectionctl row move 0:1 1:0`) or an edit session's draft (`row move 0:1 1:0`
/// on a line of `sectionctl edit`): `sectionCommand` and `rowCommand` build the two groups for
/// either, given what to do with an edit.
enum ListEdits {
    static let sectionArgument = ArgumentSpec("S", help: "a section: index, #ID, or exact title", completion: .sections)
    static let pathArgument = ArgumentSpec("PATH", help: "a row: S:R (0-based), S:end, or #ID")

    /// Where a section goes (`section add --at I`).
    static let sectionAt = OptionSpec("--at", valueName: "I", help: "its index after adding (0 = first)")
    static let addEmptyText = OptionSpec("--empty-text", valueName: "TEXT", help: "what its footer says while empty (default: No Data)")
    static let setEmptyText = OptionSpec("--empty-text", valueName: "TEXT", help: "the footer text")
    static let noEmptyText = OptionSpec("--no-empty-text", help: "go back to the default, No Data")
    static let sectionForce = OptionSpec("--force", help: "delete it with its rows")
    /// Where a row goes (`row add --at R`).
    static let rowAt = OptionSpec("--at", valueName: "R", help: "its index after adding, or end")
    static let kind = OptionSpec("--kind", valueName: "text|topic|field", help: "the row's kind (default: text; field with --value)",
        completion: .choices(kinds))
    static let addValue = OptionSpec("--value", valueName: "V", help: "a field's value (absent shows as -)")
    static let title = OptionSpec("--title", valueName: "T", help: "the new title (a field's label)")
    static let setValue = OptionSpec("--value", valueName: "V", help: "a field's new value")
    static let noValue = OptionSpec("--no-value", help: "remove a field's value (shows as -)")
    static let after = OptionSpec("--after", valueName: "#ID", help: "instead of TO: just after that row, wherever it is then")
    static let before = OptionSpec("--before", valueName: "#ID", help: "instead of TO: just before that row")

    /// The values `--kind` takes.
    static let kinds = RowKind.allCases.map(\.rawValue)

    static let sectionVerbs: [EditVerb] = [
        EditVerb(
            spec: CommandSpec(
                name: "add", summary: "add a section (at the end unless --at)",
                arguments: [ArgumentSpec("TITLE", help: "the section's title")],
                options: [sectionAt, addEmptyText],
                examples: ["section add 'To do'", "section add Urgent --at 0"])
        ) { parsed throws(CLIError) in
            let at = try parsed.value(sectionAt).map { text throws(CLIError) in try Address.sectionIndex(text) }
            return .addSection(title: parsed.arguments[0], emptyText: parsed.value(addEmptyText), at: at)
        },
        EditVerb(
            spec: CommandSpec(
                name: "rename", summary: "change a section's title",
                arguments: [sectionArgument, ArgumentSpec("TITLE", help: "the new title")],
                examples: ["section rename 0 Today"])
        ) { parsed throws(CLIError) in
            .renameSection(Address.section(parsed.arguments[0]), title: parsed.arguments[1])
        },
        EditVerb(
            spec: CommandSpec(
                name: "set", summary: "set what an empty section's footer says while editing",
                arguments: [sectionArgument],
                options: [setEmptyText, noEmptyText],
                examples: ["section set Done --empty-text 'Nothing done yet'"])
        ) { parsed throws(CLIError) in
            let section = Address.section(parsed.arguments[0])
            switch (parsed.value(setEmptyText), parsed.has(noEmptyText)) {
            case (let text?, false): return .setEmptyText(section, text)
            case (nil, true): return .setEmptyText(section, nil)
            case (_?, true): throw usage(parsed, "use either \(setEmptyText.name) or \(noEmptyText.name), not both")
            case (nil, false): throw usage(parsed, "nothing to set: use \(setEmptyText.usage) or \(noEmptyText.name)")
            }
        },
        EditVerb(
            spec: CommandSpec(
                name: "move", summary: "move a section so that its index becomes I",
                arguments: [sectionArgument, ArgumentSpec("I", help: "its index after the move")],
                examples: ["section move Done 0"])
        ) { parsed throws(CLIError) in
            .moveSection(Address.section(parsed.arguments[0]), to: try Address.sectionIndex(parsed.arguments[1]))
        },
        EditVerb(
            spec: CommandSpec(
                name: "delete", summary: "delete a section (--force when it has rows)",
                arguments: [sectionArgument],
                options: [sectionForce],
                examples: ["section delete 1", "section delete Done --force"])
        ) { parsed throws(CLIError) in
            .deleteSection(Address.section(parsed.arguments[0]), force: parsed.has(sectionForce))
        },
    ]

    static let rowVerbs: [EditVerb] = [
        EditVerb(
            spec: CommandSpec(
                name: "add", summary: "add a row to a section (at the end unless --at)",
                arguments: [sectionArgument, ArgumentSpec("TITLE", help: "the title (a field's label)")],
                options: [rowAt, kind, addValue],
                examples: [
                    "row add 0 'Buy milk'",
                    "row add Profile Name --kind field --value 'Ada'",
                    "row add 1 Contact --kind topic --at 0",
                ])
        ) { parsed throws(CLIError) in
            let value = parsed.value(addValue)
            let rowKind: RowKind
            if let name = parsed.value(kind) {
                guard let named = RowKind(rawValue: name) else {
                    throw usage(parsed, "unknown kind \"\(TextEscaping.escaped(name))\" (kinds: \(kinds.joined(separator: ", ")))")
                }
                rowKind = named
            } else {
                rowKind = value == nil ? .text : .field
            }
            if value != nil && rowKind != .field {
                throw usage(parsed, "only field rows have a value; use \(kind.name) field with \(addValue.name)")
            }
            let index = try parsed.value(rowAt).map { text throws(CLIError) in try Address.rowIndex(text) } ?? .end
            let destination = RowDestination(section: Address.section(parsed.arguments[0]), index: index)
            return .addRow(RowContent(kind: rowKind, title: parsed.arguments[1], value: value), to: destination)
        },
        EditVerb(
            spec: CommandSpec(
                name: "set", summary: "change a row's title or value",
                arguments: [pathArgument],
                options: [title, setValue, noValue],
                examples: ["row set 0:1 --title 'Buy oat milk'", "row set '#7' --no-value"])
        ) { parsed throws(CLIError) in
            let row = try Address.row(parsed.arguments[0])
            let value: ValueUpdate
            switch (parsed.value(setValue), parsed.has(noValue)) {
            case (let text?, false): value = .set(text)
            case (nil, true): value = .remove
            case (nil, false): value = .keep
            case (_?, true): throw usage(parsed, "use either \(setValue.name) or \(noValue.name), not both")
            }
            let newTitle = parsed.value(title)
            if newTitle == nil && value == .keep {
                throw usage(parsed, "nothing to change: use \(title.usage), \(setValue.usage) or \(noValue.name)")
            }
            return .updateRow(row, title: newTitle, value: value)
        },
        EditVerb(
            spec: CommandSpec(
                name: "move", summary: "move a row, within its section or to another",
                arguments: [pathArgument, ArgumentSpec("TO", help: "S:R (its index after the move) or S:end", isOptional: true)],
                options: [after, before],
                examples: ["row move 0:1 1:0", "row move '#7' Done:end", "row move '#7' --after '#12'"],
                discussion: """
                    --after and --before name a row by #ID, a place that does not shift when rows are
                    added or moved meanwhile: a move retried after a conflict lands where it was meant.
                    """)
        ) { parsed throws(CLIError) in
            let anchors = [(after, RowAnchor.after), (before, RowAnchor.before)].compactMap { option, anchor in
                parsed.value(option).map { (option.name, $0, anchor) }
            }
            switch (parsed.arguments.count > 1, anchors.count) {
            case (true, 0):
                return .moveRow(try Address.row(parsed.arguments[0]), to: try Address.destination(parsed.arguments[1]))
            case (false, 1):
                let (option, word, anchor) = anchors[0]
                guard case .id(let id) = try Address.row(word) else {
                    throw usage(parsed, "\(option) takes a row's #ID, a place that does not shift; for an index path give TO instead")
                }
                var destination = RowDestination.after(id)
                destination.anchor = anchor(id)
                return .moveRow(try Address.row(parsed.arguments[0]), to: destination)
            case (false, 0):
                throw usage(parsed, "missing TO: give S:R, S:end, \(after.usage) or \(before.usage)")
            default:
                throw usage(parsed, "give one destination: TO, \(after.usage) or \(before.usage)")
            }
        },
        EditVerb(
            spec: CommandSpec(
                name: "delete", summary: "delete a row (no confirmation)",
                arguments: [pathArgument],
                examples: ["row delete 0:end"])
        ) { parsed throws(CLIError) in
            .deleteRow(try Address.row(parsed.arguments[0]))
        },
    ]

    /// `row get PATH`: reads, changes nothing; the command line and an edit session each run it.
    static let rowGet = CommandSpec(
        name: "get", summary: "print one row with its path and its section",
        arguments: [pathArgument],
        examples: ["row get 0:0", "row get '#7'", "--json row get 1:end"],
        discussion: "Reads only that row: as fast in a list of millions as in a small one.")

    /// What a group does with the edit one of its verbs asks for.
    typealias Apply<Environment> = @Sendable (Edit, ParsedArguments, Environment) throws -> Void

    /// The `section` group, each verb's edit handed to `apply`.
    static func sectionCommand<Environment>(apply: @escaping Apply<Environment>) -> Command<Environment> {
        Command(
            CommandSpec(
                name: "section", summary: "add, rename, set, move and delete sections",
                examples: ["section add Done", "section move Done 0", "section delete '#4' --force"]),
            subcommands: sectionVerbs.map { command(for: $0, apply: apply) })
    }

    /// The `row` group: each changing verb's edit handed to `apply`, and `row get` run by `get`.
    static func rowCommand<Environment>(apply: @escaping Apply<Environment>, get: @escaping Command<Environment>.Run) -> Command<Environment> {
        Command(
            CommandSpec(
                name: "row", summary: "add, change, move, delete and get rows",
                examples: ["row add 0 'Buy milk'", "row move 0:1 1:0", "row set 0:0 --title 'Buy oat milk'", "row delete '#7'"]),
            subcommands: rowVerbs.map { command(for: $0, apply: apply) } + [Command(rowGet, run: get)])
    }

    private static func command<Environment>(for verb: EditVerb, apply: @escaping Apply<Environment>) -> Command<Environment> {
        Command(verb.spec) { parsed, environment in
            let edit = try checked(parsed) { () throws(CLIError) in try verb.edit(parsed) }
            try apply(edit, parsed, environment)
        }
    }

    private static func usage(_ parsed: ParsedArguments, _ message: String) -> CLIError {
        CLIError.usage(message, command: parsed.commandPath)
    }

    /// Runs `body`, reporting an address error it throws as a usage error of the command.
    static func checked<T>(_ parsed: ParsedArguments, _ body: () throws(CLIError) -> T) throws(CLIError) -> T {
        do {
            return try body()
        } catch where error.exitCode == .usage && error.hint == nil {
            throw CLIError.usage(error.message, command: parsed.commandPath)
        }
    }

    /// Applies an edit to the database and reports the change: the command line's `section …`
    /// and `row …`.
    static func apply(_ edit: Edit, _ parsed: ParsedArguments, context: Context) throws {
        let store = try context.openStore()
        context.report(try namingNumbersAsWritten(parsed) { try store.apply(edit, to: context.listName) })
    }

    /// Runs `body`, which applies the edit `parsed` asks for. A number too large for an index
    /// reaches the store as `Int.max` (or `Int.min`, negative), always out of range; the store's
    /// error then names the number as it was written, with the valid range.
    @discardableResult
    static func namingNumbersAsWritten<T>(_ parsed: ParsedArguments, _ body: () throws -> T) throws -> T {
        do {
            return try body()
        } catch let error as RepositoryError {
            let index: Int
            let isRow: Bool
            switch error {
            case .sectionIndexOutOfRange(let value, _): (index, isRow) = (value, false)
            case .rowIndexOutOfRange(let value, _, _): (index, isRow) = (value, true)
            default: throw error
            }
            guard index == .max || index == .min,
                let written = oversizedNumber(in: parsed, rowIndex: isRow, negative: index < 0)
            else { throw error }
            var reported = CLIError.from(error)
            reported.message = reported.message.replacing("index \(index)", with: "index \(written)")
            throw reported
        }
    }

    /// The first number that does not fit in an `Int` among the words where a section index
    /// (a whole word, or the part of `S:R` before the colon) or a row index (a whole word, or
    /// the part after the colon) may be written.
    private static func oversizedNumber(in parsed: ParsedArguments, rowIndex: Bool, negative: Bool) -> String? {
        let words = parsed.arguments + parsed.options.keys.sorted().flatMap { parsed.options[$0] ?? [] }
        for word in words {
            var candidates = [Substring(word)]
            if let colon = word.utf8.lastIndex(of: UInt8(ascii: ":")) {
                candidates.append(rowIndex ? word[word.index(after: colon)...] : word[..<colon])
            }
            for candidate in candidates {
                let digits = candidate.utf8.first == UInt8(ascii: "-") ? candidate.utf8.dropFirst() : candidate.utf8[...]
                guard !digits.isEmpty, digits.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }), Int(candidate) == nil,
                    (candidate.utf8.first == UInt8(ascii: "-")) == negative
                else { continue }
                return TextEscaping.excerpt(String(candidate))
            }
        }
        return nil
    }
}
