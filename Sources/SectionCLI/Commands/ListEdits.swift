import Repository

/// The `section …` and `row …` commands as `Edit` values, so that the same words change the
/// database at once (`sectionctl row move 0:1 1:0`) or an edit session's draft (`row move 0:1 1:0`
/// on a line of `sectionctl edit`).
enum ListEdits {
    /// Whether the command at `path` is one of the list-changing commands.
    static func handles(_ path: [String]) -> Bool {
        path.count == 2 && (path[0] == "section" || path[0] == "row")
    }

    /// The edit a parsed `section …` or `row …` command asks for.
    /// - Throws: `CLIError` (usage) for options that contradict each other or malformed addresses.
    static func edit(for parsed: ParsedArguments) throws(CLIError) -> Edit {
        let path = parsed.commandPath
        func usage(_ message: String) -> CLIError { CLIError.usage(message, command: path) }
        func argument(_ index: Int) -> String { parsed.arguments[index] }

        switch path.joined(separator: " ") {
        case "section add":
            let at = try parsed.value("--at").map { text throws(CLIError) in try Address.sectionIndex(text) }
            return .addSection(title: argument(0), emptyText: parsed.value("--empty-text"), at: at)

        case "section rename":
            return .renameSection(Address.section(argument(0)), title: argument(1))

        case "section set":
            switch (parsed.value("--empty-text"), parsed.has("--no-empty-text")) {
            case (let text?, false): return .setEmptyText(Address.section(argument(0)), text)
            case (nil, true): return .setEmptyText(Address.section(argument(0)), nil)
            case (_?, true): throw usage("use either --empty-text or --no-empty-text, not both")
            case (nil, false): throw usage("nothing to set: use --empty-text TEXT or --no-empty-text")
            }

        case "section move":
            return .moveSection(Address.section(argument(0)), to: try Address.sectionIndex(argument(1)))

        case "section delete":
            return .deleteSection(Address.section(argument(0)), force: parsed.has("--force"))

        case "row add":
            let value = parsed.value("--value")
            let kind: RowKind
            if let name = parsed.value("--kind") {
                guard let named = RowKind(rawValue: name) else {
                    throw usage("unknown kind \"\(TextEscaping.escaped(name))\" (kinds: text, topic, field)")
                }
                kind = named
            } else {
                kind = value == nil ? .text : .field
            }
            if value != nil && kind != .field {
                throw usage("only field rows have a value; use --kind field with --value")
            }
            let index = try parsed.value("--at").map { text throws(CLIError) in try Address.rowIndex(text) } ?? .end
            let destination = RowDestination(section: Address.section(argument(0)), index: index)
            return .addRow(RowContent(kind: kind, title: argument(1), value: value), to: destination)

        case "row set":
            let row = try Address.row(argument(0))
            let value: ValueUpdate
            switch (parsed.value("--value"), parsed.has("--no-value")) {
            case (let text?, false): value = .set(text)
            case (nil, true): value = .remove
            case (nil, false): value = .keep
            case (_?, true): throw usage("use either --value or --no-value, not both")
            }
            let title = parsed.value("--title")
            if title == nil && value == .keep {
                throw usage("nothing to change: use --title T, --value V or --no-value")
            }
            return .updateRow(row, title: title, value: value)

        case "row move":
            let anchors = [("--after", RowAnchor.after), ("--before", RowAnchor.before)].compactMap { option, anchor in
                parsed.value(option).map { (option, $0, anchor) }
            }
            switch (parsed.arguments.count > 1, anchors.count) {
            case (true, 0):
                return .moveRow(try Address.row(argument(0)), to: try Address.destination(argument(1)))
            case (false, 1):
                let (option, word, anchor) = anchors[0]
                guard case .id(let id) = try Address.row(word) else {
                    throw usage("\(option) takes a row's #ID, a place that does not shift; for an index path give TO instead")
                }
                var destination = RowDestination.after(id)
                destination.anchor = anchor(id)
                return .moveRow(try Address.row(argument(0)), to: destination)
            case (false, 0):
                throw usage("missing TO: give S:R, S:end, --after #ID or --before #ID")
            default:
                throw usage("give one destination: TO, --after #ID or --before #ID")
            }

        case "row delete":
            return .deleteRow(try Address.row(argument(0)))

        default:
            throw usage("not a list-changing command: \(path.joined(separator: " "))")
        }
    }

    /// `edit(for:)`, with address errors reported as usage errors of the command.
    static func checkedEdit(for parsed: ParsedArguments) throws(CLIError) -> Edit {
        try checked(parsed) { () throws(CLIError) in try edit(for: parsed) }
    }

    /// Runs `body`, reporting an address error it throws as a usage error of the command.
    static func checked<T>(_ parsed: ParsedArguments, _ body: () throws(CLIError) -> T) throws(CLIError) -> T {
        do {
            return try body()
        } catch where error.exitCode == .usage && error.hint == nil {
            throw CLIError.usage(error.message, command: parsed.commandPath)
        }
    }

    /// Runs a `section …` or `row …` command on the database and reports the change.
    static func run(_ parsed: ParsedArguments, context: Context) throws {
        let edit = try checkedEdit(for: parsed)
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
