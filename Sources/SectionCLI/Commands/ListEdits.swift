import CommandLineSupport
import Repository

/// One `section …` or `row …` verb: its spec, and the typed arguments its line is read into,
/// which say the edit it asks for.
struct EditVerb: Sendable {
    let spec: CommandSpec
    let arguments: any EditArguments.Type

    init(_ spec: CommandSpec, _ arguments: any EditArguments.Type) {
        self.spec = spec
        self.arguments = arguments
    }
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
    static let kind = OptionSpec(
        "--kind", valueName: "text|topic|field", help: "the row's kind (default: text; field with --value)",
        completion: .choices(kinds))
    static let addValue = OptionSpec("--value", valueName: "V", help: "a field's value (absent shows as -)")
    static let title = OptionSpec("--title", valueName: "T", help: "the new title (a field's label)")
    static let setValue = OptionSpec("--value", valueName: "V", help: "a field's new value")
    static let noValue = OptionSpec("--no-value", help: "remove a field's value (shows as -)")
    static let after = OptionSpec("--after", valueName: "#ID", help: "instead of TO: just after that row, wherever it is then")
    static let before = OptionSpec("--before", valueName: "#ID", help: "instead of TO: just before that row")

    /// The values `--kind` takes.
    static let kinds = RowKind.allCases.map(\.rawValue)

    static let sectionTitle = ArgumentSpec("TITLE", help: "the section's title")
    static let newSectionTitle = ArgumentSpec("TITLE", help: "the new title")
    static let sectionIndex = ArgumentSpec("I", help: "its index after the move")
    static let rowTitle = ArgumentSpec("TITLE", help: "the title (a field's label)")
    static let rowDestination = ArgumentSpec("TO", help: "S:R (its index after the move) or S:end", isOptional: true)

    static let sectionVerbs: [EditVerb] = [
        EditVerb(
            CommandSpec(
                name: "add", summary: "add a section (at the end unless --at)",
                arguments: [sectionTitle],
                options: [sectionAt, addEmptyText],
                examples: ["section add 'To do'", "section add Urgent --at 0"]),
            SectionAddArguments.self),
        EditVerb(
            CommandSpec(
                name: "rename", summary: "change a section's title",
                arguments: [sectionArgument, newSectionTitle],
                examples: ["section rename 0 Today"]),
            SectionRenameArguments.self),
        EditVerb(
            CommandSpec(
                name: "set", summary: "set what an empty section's footer says while editing",
                arguments: [sectionArgument],
                options: [setEmptyText, noEmptyText],
                examples: ["section set Done --empty-text 'Nothing done yet'"]),
            SectionSetArguments.self),
        EditVerb(
            CommandSpec(
                name: "move", summary: "move a section so that its index becomes I",
                arguments: [sectionArgument, sectionIndex],
                examples: ["section move Done 0"]),
            SectionMoveArguments.self),
        EditVerb(
            CommandSpec(
                name: "delete", summary: "delete a section (--force when it has rows)",
                arguments: [sectionArgument],
                options: [sectionForce],
                examples: ["section delete 1", "section delete Done --force"]),
            SectionDeleteArguments.self),
    ]

    static let rowVerbs: [EditVerb] = [
        EditVerb(
            CommandSpec(
                name: "add", summary: "add a row to a section (at the end unless --at)",
                arguments: [sectionArgument, rowTitle],
                options: [rowAt, kind, addValue],
                examples: [
                    "row add 0 'Buy milk'",
                    "row add Profile Name --kind field --value 'Ada'",
                    "row add 1 Contact --kind topic --at 0",
                ]),
            RowAddArguments.self),
        EditVerb(
            CommandSpec(
                name: "set", summary: "change a row's title or value",
                arguments: [pathArgument],
                options: [title, setValue, noValue],
                examples: ["row set 0:1 --title 'Buy oat milk'", "row set '#7' --no-value"]),
            RowSetArguments.self),
        EditVerb(
            CommandSpec(
                name: "move", summary: "move a row, within its section or to another",
                arguments: [pathArgument, rowDestination],
                options: [after, before],
                examples: ["row move 0:1 1:0", "row move '#7' Done:end", "row move '#7' --after '#12'"],
                discussion: """
                    --after and --before name a row by #ID, a place that does not shift when rows are
                    added or moved meanwhile: a move retried after a conflict lands where it was meant.
                    """),
            RowMoveArguments.self),
        EditVerb(
            CommandSpec(
                name: "delete", summary: "delete a row (no confirmation)",
                arguments: [pathArgument],
                examples: ["row delete 0:end"]),
            RowDeleteArguments.self),
    ]

    /// `row get PATH`: reads, changes nothing; the command line and an edit session each run it.
    static let rowGet = CommandSpec(
        name: "get", summary: "print one row with its path and its section",
        arguments: [pathArgument],
        examples: ["row get 0:0", "row get '#7'", "--json row get 1:end"],
        discussion: "Reads only that row: as fast in a list of millions as in a small one.")

    /// What a group does with the edit one of its verbs asks for.
    typealias Apply<Environment> = @Sendable (any EditArguments, Environment) throws -> Void

    /// The `section` group, each verb's edit handed to `apply`.
    static func sectionCommand<Environment>(apply: @escaping Apply<Environment>) -> Command<Environment> {
        Command(
            CommandSpec(
                name: "section", summary: "add, rename, set, move and delete sections",
                examples: ["section add Done", "section move Done 0", "section delete '#4' --force"]),
            subcommands: sectionVerbs.map { command(for: $0, apply: apply) })
    }

    /// The `row` group: each changing verb's edit handed to `apply`, and `row get` run by `get`.
    static func rowCommand<Environment>(
        apply: @escaping Apply<Environment>, get: @escaping @Sendable (RowGetArguments, Environment) throws -> Void
    ) -> Command<Environment> {
        Command(
            CommandSpec(
                name: "row", summary: "add, change, move, delete and get rows",
                examples: ["row add 0 'Buy milk'", "row move 0:1 1:0", "row set 0:0 --title 'Buy oat milk'", "row delete '#7'"]),
            subcommands: rowVerbs.map { command(for: $0, apply: apply) } + [Command(rowGet, reading: RowGetArguments.self, run: get)])
    }

    private static func command<Environment>(for verb: EditVerb, apply: @escaping Apply<Environment>) -> Command<Environment> {
        func command<Arguments: EditArguments>(_: Arguments.Type) -> Command<Environment> {
            Command(verb.spec, reading: Arguments.self) { arguments, environment in try apply(arguments, environment) }
        }
        return command(verb.arguments)
    }

    /// Applies an edit to the database and reports the change: the command line's `section …`
    /// and `row …`.
    static func apply(_ arguments: any EditArguments, context: Context) throws {
        let list = try context.openList()
        context.report(try arguments.places.naming { try list.apply(arguments.edit) })
    }
}

/// The typed arguments of a `section …` or `row …` verb: the edit they ask for, and the places
/// they name as written, which the store's errors about them quote.
protocol EditArguments: CommandArguments {
    /// The change the line asks for.
    var edit: Edit { get }
    /// The indexes and ids the line names, in the order the store checks them.
    var places: [WrittenPlace] { get }
}

/// `section add TITLE [--at I] [--empty-text TEXT]`.
struct SectionAddArguments: EditArguments {
    var title: String
    var emptyText: String?
    /// `--at I`; the end when `nil`.
    var index: SectionIndexAddress?

    init(from line: ParsedLine) throws(CLIError) {
        index = try line.read(ListEdits.sectionAt, SectionIndexAddress.init)
        title = try line.word(ListEdits.sectionTitle)
        emptyText = line.value(ListEdits.addEmptyText)
    }

    var edit: Edit { .addSection(title: title, emptyText: emptyText, at: index?.index) }
    var places: [WrittenPlace] { index?.places ?? [] }
}

/// `section rename S TITLE`.
struct SectionRenameArguments: EditArguments {
    var section: SectionAddress
    var title: String

    init(from line: ParsedLine) throws(CLIError) {
        section = SectionAddress(try line.word(ListEdits.sectionArgument))
        title = try line.word(ListEdits.newSectionTitle)
    }

    var edit: Edit { .renameSection(section.reference, title: title) }
    var places: [WrittenPlace] { section.places }
}

/// `section set S --empty-text TEXT | --no-empty-text`.
struct SectionSetArguments: EditArguments {
    var section: SectionAddress
    /// The footer's text; `nil` for the default.
    var emptyText: String?

    init(from line: ParsedLine) throws(CLIError) {
        section = SectionAddress(try line.word(ListEdits.sectionArgument))
        let (set, none) = (ListEdits.setEmptyText, ListEdits.noEmptyText)
        switch (line.value(set), line.has(none)) {
        case (let text?, false): emptyText = text
        case (nil, true): emptyText = nil
        case (_?, true): throw line.usage("use either \(set.name) or \(none.name), not both")
        case (nil, false): throw line.usage("nothing to set: use \(set.usage) or \(none.name)")
        }
    }

    var edit: Edit { .setEmptyText(section.reference, emptyText) }
    var places: [WrittenPlace] { section.places }
}

/// `section move S I`.
struct SectionMoveArguments: EditArguments {
    var section: SectionAddress
    /// Its index after the move.
    var index: SectionIndexAddress

    init(from line: ParsedLine) throws(CLIError) {
        section = SectionAddress(try line.word(ListEdits.sectionArgument))
        index = try line.read(ListEdits.sectionIndex, SectionIndexAddress.init)
    }

    var edit: Edit { .moveSection(section.reference, to: index.index) }
    var places: [WrittenPlace] { section.places + index.places }
}

/// `section delete S [--force]`.
struct SectionDeleteArguments: EditArguments {
    var section: SectionAddress
    var force: Bool

    init(from line: ParsedLine) throws(CLIError) {
        section = SectionAddress(try line.word(ListEdits.sectionArgument))
        force = line.has(ListEdits.sectionForce)
    }

    var edit: Edit { .deleteSection(section.reference, force: force) }
    var places: [WrittenPlace] { section.places }
}

/// `row add S TITLE [--at R] [--kind K] [--value V]`.
struct RowAddArguments: EditArguments {
    var section: SectionAddress
    var content: RowContent
    /// `--at R`; the end when `nil`.
    var index: RowIndexAddress?

    init(from line: ParsedLine) throws(CLIError) {
        let value = line.value(ListEdits.addValue)
        let kind: RowKind
        if let name = line.value(ListEdits.kind) {
            guard let named = RowKind(rawValue: name) else {
                throw line.usage("unknown kind \"\(TextEscaping.escaped(name))\" (kinds: \(ListEdits.kinds.joined(separator: ", ")))")
            }
            kind = named
        } else {
            kind = value == nil ? .text : .field
        }
        if value != nil && kind != .field {
            throw line.usage("only field rows have a value; use \(ListEdits.kind.name) field with \(ListEdits.addValue.name)")
        }
        index = try line.read(ListEdits.rowAt, RowIndexAddress.init)
        section = SectionAddress(try line.word(ListEdits.sectionArgument))
        content = RowContent(kind: kind, title: try line.word(ListEdits.rowTitle), value: value)
    }

    var edit: Edit { .addRow(content, to: RowDestination(section: section.reference, index: index?.index ?? .end)) }
    var places: [WrittenPlace] { section.places + (index.map { [$0.place(in: section)] } ?? []) }
}

/// `row set PATH [--title T] [--value V | --no-value]`.
struct RowSetArguments: EditArguments {
    var row: RowAddress
    /// The new title; `nil` keeps it.
    var title: String?
    var value: ValueUpdate

    init(from line: ParsedLine) throws(CLIError) {
        row = try line.read(ListEdits.pathArgument, RowAddress.init)
        let (set, none) = (ListEdits.setValue, ListEdits.noValue)
        switch (line.value(set), line.has(none)) {
        case (let text?, false): value = .set(text)
        case (nil, true): value = .remove
        case (nil, false): value = .keep
        case (_?, true): throw line.usage("use either \(set.name) or \(none.name), not both")
        }
        title = line.value(ListEdits.title)
        if title == nil && value == .keep {
            throw line.usage("nothing to change: use \(ListEdits.title.usage), \(set.usage) or \(none.name)")
        }
    }

    var edit: Edit { .updateRow(row.reference, title: title, value: value) }
    var places: [WrittenPlace] { row.places }
}

/// `row move PATH TO`, or `row move PATH --after #ID | --before #ID`.
struct RowMoveArguments: EditArguments {
    /// Where the row goes.
    enum Destination: Hashable, Sendable {
        /// `TO`: `S:R` or `S:end`.
        case place(DestinationAddress)
        /// `--after #ID` or `--before #ID`: next to that row, wherever it is then; `literal` is
        /// the id as written.
        case anchor(RowAnchor, literal: String)
    }

    var source: RowAddress
    var destination: Destination

    init(from line: ParsedLine) throws(CLIError) {
        let anchors = [(ListEdits.after, RowAnchor.after), (ListEdits.before, RowAnchor.before)].compactMap { option, anchor in
            line.value(option).map { (option, $0, anchor) }
        }
        let (after, before) = (ListEdits.after, ListEdits.before)
        switch (line.optionalWord(ListEdits.rowDestination), anchors.count) {
        case (_?, 0):
            source = try line.read(ListEdits.pathArgument, RowAddress.init)
            destination = .place(try line.read(ListEdits.rowDestination, DestinationAddress.init))
        case (nil, 1):
            let (option, word, anchor) = anchors[0]
            guard case .id(let id) = try line.read(option, RowAddress.init)?.form else {
                throw line.usage("\(option.name) takes a row's #ID, a place that does not shift; for an index path give TO instead")
            }
            destination = .anchor(anchor(id), literal: word)
            source = try line.read(ListEdits.pathArgument, RowAddress.init)
        case (nil, 0):
            throw line.usage("missing TO: give S:R, S:end, \(after.usage) or \(before.usage)")
        default:
            throw line.usage("give one destination: TO, \(after.usage) or \(before.usage)")
        }
    }

    var edit: Edit {
        switch destination {
        case .place(let place):
            return .moveRow(source.reference, to: place.destination)
        case .anchor(let anchor, _):
            var destination = RowDestination.after(anchor.rowID)
            destination.anchor = anchor
            return .moveRow(source.reference, to: destination)
        }
    }

    var places: [WrittenPlace] {
        switch destination {
        case .place(let place): source.places + place.places
        case .anchor(let anchor, let literal): source.places + [.rowID(anchor.rowID, literal: literal)]
        }
    }
}

/// `row delete PATH`.
struct RowDeleteArguments: EditArguments {
    var row: RowAddress

    init(from line: ParsedLine) throws(CLIError) {
        row = try line.read(ListEdits.pathArgument, RowAddress.init)
    }

    var edit: Edit { .deleteRow(row.reference) }
    var places: [WrittenPlace] { row.places }
}

/// `row get PATH`.
struct RowGetArguments: CommandArguments {
    var row: RowAddress

    init(from line: ParsedLine) throws(CLIError) {
        row = try line.read(ListEdits.pathArgument, RowAddress.init)
    }
}
