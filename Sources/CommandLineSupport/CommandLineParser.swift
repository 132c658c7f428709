/// A small, generic command-line parser: a tree of commands (`noun verb`), each with
/// positional arguments and options, plus global options accepted anywhere on the line.
///
/// What it understands:
/// - subcommands, chosen by the first words that name one (`row add …`);
/// - long options with a value as the next word or after `=` (`--at 2`, `--at=2`), short
///   options with the value next or attached (`-o out.json`, `-oout.json`), and flags;
/// - `--` ends options: every later word is an argument, even one that starts with `-`;
/// - negative-looking words (`-1`, `-2.5`) are arguments unless a short option has that name,
///   and an option that takes a value always takes the next word, whatever it looks like;
/// - global options (`--db PATH`, `--json`) before, between, or after the command words.
///
/// It knows nothing about what the commands do: it returns the command path, the option values
/// and the arguments, or an `ArgumentError` that says what was wrong and for which command.
///
/// ```swift
/// let parser = CommandLineParser(program: "tool", root: CommandSpec(name: "tool", subcommands: [
///     CommandSpec(name: "greet", arguments: [ArgumentSpec("NAME")],
///                 options: [OptionSpec("--times", valueName: "N")]),
/// ]))
/// let parsed = try parser.parse(["greet", "--times=2", "Ada"])
/// // parsed.commandPath == ["greet"], parsed.value("--times") == "2", parsed.arguments == ["Ada"]
/// ```
package struct CommandLineParser: Sendable {
    /// The program's name, used in help and error messages.
    package var program: String
    /// The command tree; its own options are not global (use `globalOptions`).
    package var root: CommandSpec
    /// Options accepted at every level of the tree and anywhere on the line.
    package var globalOptions: [OptionSpec]
    /// Whether help pages list the global options.
    package var listsGlobalOptions: Bool

    /// Creates a parser for a command tree. `program` may be empty, for commands typed at a
    /// prompt rather than in a shell.
    package init(program: String, root: CommandSpec, globalOptions: [OptionSpec] = [], listsGlobalOptions: Bool = true) {
        self.program = program
        self.root = root
        self.globalOptions = globalOptions
        self.listsGlobalOptions = listsGlobalOptions
    }

    /// Parses `words` (the command line without the program name): `tokenise` says what each
    /// word looks like, `match` reads the tokens against the command tree.
    ///
    /// When a help option (`OptionSpec.isHelp`) is present, missing arguments and a missing
    /// subcommand are not errors, so that `tool greet --help` can be answered.
    /// - Throws: `ArgumentError` for an unknown command or option, an option without its value,
    ///   a value given to a flag, or too few or too many arguments.
    package func parse(_ words: [String]) throws(ArgumentError) -> ParsedArguments {
        let (command, parsed) = try match(Self.tokenise(words))
        try validate(parsed, for: command)
        return parsed
    }

    /// What one word of a command line looks like, before the command tree is consulted.
    enum Token: Equatable {
        /// `--name` or `--name=value`.
        case long(name: String, inlineValue: String?, word: String)
        /// `-x` or `-xrest` (which may yet be a negative number, such as `-1`).
        case short(letter: Character, rest: String, word: String)
        /// `--`, which ends the options unless an option takes it as its value.
        case endOfOptions
        /// Any other word.
        case plain(String)

        /// The word as it was written, which an option taking a value takes whatever it looks like.
        var word: String {
            switch self {
            case .long(_, _, let word), .short(_, _, let word): word
            case .plain(let word): word
            case .endOfOptions: "--"
            }
        }
    }

    /// Says what each word looks like, one word at a time: whether `--` ends the options, or a
    /// word is the value of the option before it, is for `match` to decide.
    static func tokenise(_ words: [String]) -> [Token] {
        words.map { word in
            if word == "--" { return .endOfOptions }
            if word.hasPrefix("--") {
                let body = word.dropFirst(2)
                guard let equals = body.firstIndex(of: "=") else { return .long(name: word, inlineValue: nil, word: word) }
                return .long(name: "--" + body[..<equals], inlineValue: String(body[body.index(after: equals)...]), word: word)
            }
            if word.hasPrefix("-") && word.count > 1 {
                return .short(letter: word.dropFirst().first!, rest: String(word.dropFirst(2)), word: word)
            }
            return .plain(word)
        }
    }

    /// Reads tokens against the tree: options (the command's and the global ones) with their
    /// values, subcommand words while the command has subcommands, then arguments.
    private func match(_ tokens: [Token]) throws(ArgumentError) -> (CommandSpec, ParsedArguments) {
        var command = root
        var parsed = ParsedArguments()
        var index = 0
        var optionsEnded = false

        func fail(_ message: String) -> ArgumentError {
            ArgumentError(message: message, commandPath: parsed.commandPath)
        }
        func unknownOption(_ written: String) -> ArgumentError {
            fail("unknown option \(TextEscaping.excerpt(written))\(Self.choices(allOptions(of: command).map(\.name), label: "options"))")
        }
        /// Records `option` with its value: `attached` (after `=` or the letter), else the next word.
        func take(_ option: OptionSpec, attached: String?, spelled: String) throws(ArgumentError) {
            if option.valueName == nil {
                guard attached == nil else { throw fail("option \(spelled) takes no value") }
                parsed.record(option, value: nil)
            } else if let attached {
                parsed.record(option, value: attached)
            } else {
                guard index < tokens.count else { throw fail("option \(spelled) needs a value (\(option.valueName!))") }
                parsed.record(option, value: tokens[index].word)
                index += 1
            }
        }

        while index < tokens.count {
            let token = tokens[index]
            index += 1
            let word: String
            switch optionsEnded ? .plain(token.word) : token {
            case .endOfOptions:
                optionsEnded = true
                continue
            case .long(let name, let inlineValue, _):
                guard let option = lookUp(long: name, in: command) else { throw unknownOption(name) }
                try take(option, attached: inlineValue, spelled: TextEscaping.excerpt(name))
                continue
            case .short(let letter, let rest, let written):
                if let option = lookUp(short: letter, in: command) {
                    try take(option, attached: rest.isEmpty ? nil : rest, spelled: "-\(letter)")
                    continue
                }
                guard Self.looksNegative(written) else { throw unknownOption(written) }
                word = written  // an argument such as -1
            case .plain(let plain):
                word = plain
            }
            // A word: a subcommand while the command has some, else an argument.
            if !command.subcommands.isEmpty && parsed.arguments.isEmpty {
                guard let next = command.subcommands.first(where: { $0.name == word }) else {
                    let what = parsed.commandPath.isEmpty ? "command" : "\(parsed.commandPath.joined(separator: " ")) command"
                    throw fail(
                        "unknown \(what) \"\(TextEscaping.excerpt(word))\"\(Self.choices(command.visibleSubcommands.map(\.name), label: "commands"))")
                }
                command = next
                parsed.commandPath.append(next.name)
                continue
            }
            parsed.arguments.append(word)
        }
        return (command, parsed)
    }

    /// Checks that the chosen command is complete: a verb where one is needed, and as many
    /// arguments as it takes. Nothing is checked when help was asked for.
    private func validate(_ parsed: ParsedArguments, for command: CommandSpec) throws(ArgumentError) {
        func fail(_ message: String) -> ArgumentError {
            ArgumentError(message: message, commandPath: parsed.commandPath)
        }
        let wantsHelp = parsed.options.keys.contains { name in
            allOptions(of: command).contains { $0.name == name && $0.isHelp }
        }
        if wantsHelp { return }
        if !command.subcommands.isEmpty && !command.isRunnable {
            let what = parsed.commandPath.isEmpty ? "a command" : "a \(parsed.commandPath.joined(separator: " ")) command"
            throw fail("missing \(what)\(Self.choices(command.visibleSubcommands.map(\.name), label: "commands"))")
        }
        let required = command.arguments.filter { !$0.isOptional }.count
        if parsed.arguments.count < required {
            let missing = command.arguments[parsed.arguments.count...].filter { !$0.isOptional }.map(\.name)
            throw fail("missing \(missing.count == 1 ? "argument" : "arguments") \(missing.joined(separator: " "))")
        }
        if parsed.arguments.count > command.arguments.count && command.arguments.last?.isVariadic != true {
            let extra = parsed.arguments[command.arguments.count...]
            // Each word, and the whole list, cut short: 2 million extra words make one line.
            let listed = TextEscaping.excerpt(
                extra.lazy.prefix(TextEscaping.echoLimit).map { "\"\(TextEscaping.excerpt($0, limit: 40))\"" }.joined(separator: " "))
            throw fail("unexpected \(extra.count == 1 ? "argument" : "\(extra.count) arguments") \(listed)")
        }
    }

    /// The command at `path` in the tree (the root for an empty path), if there is one.
    package func command(at path: [String]) -> CommandSpec? {
        var command = root
        for name in path {
            guard let next = command.subcommands.first(where: { $0.name == name }) else { return nil }
            command = next
        }
        return command
    }

    /// The options a command accepts: its own, then the global ones.
    package func allOptions(of command: CommandSpec) -> [OptionSpec] {
        command.options + globalOptions
    }

    private func lookUp(long name: String, in command: CommandSpec) -> OptionSpec? {
        allOptions(of: command).first { $0.name == name }
    }

    private func lookUp(short letter: Character, in command: CommandSpec) -> OptionSpec? {
        allOptions(of: command).first { $0.shortName == letter }
    }

    /// Whether a word reads as a negative number (`-1`, `-0.5`), and so as an argument.
    static func looksNegative(_ word: String) -> Bool {
        let body = word.dropFirst()
        guard word.first == "-", let first = body.first, first.isASCII, first.isNumber else { return false }
        return body.allSatisfy { ($0.isASCII && $0.isNumber) || $0 == "." }
    }

    private static func choices(_ names: [String], label: String) -> String {
        names.isEmpty ? "" : " (\(label): \(names.joined(separator: ", ")))"
    }
}

/// One command in the tree: its name, what it takes, and how it is documented.
package struct CommandSpec: Sendable {
    /// The word that selects the command.
    package var name: String
    /// One line saying what the command does.
    package var summary: String
    /// Its positional arguments, in order.
    package var arguments: [ArgumentSpec]
    /// Its own options (global options are the parser's).
    package var options: [OptionSpec]
    /// Its subcommands (`list ls`, `list add`, …).
    package var subcommands: [CommandSpec]
    /// Whether the command runs by itself even though it has subcommands.
    package var isRunnable: Bool
    /// Example command lines without the program's name, shown in help after it.
    package var examples: [String]
    /// More text for the help page, after the options.
    package var discussion: String?
    /// Whether help, completion and the manual page leave it out (a command for scripts, such
    /// as the listing that completion scripts call).
    package var isHidden: Bool

    /// Creates a command.
    package init(
        name: String, summary: String = "", arguments: [ArgumentSpec] = [],
        options: [OptionSpec] = [], subcommands: [CommandSpec] = [], isRunnable: Bool = false,
        examples: [String] = [], discussion: String? = nil, isHidden: Bool = false
    ) {
        self.name = name
        self.summary = summary
        self.arguments = arguments
        self.options = options
        self.subcommands = subcommands
        self.isRunnable = isRunnable
        self.examples = examples
        self.discussion = discussion
        self.isHidden = isHidden
    }

    /// The subcommands that help, completion and the manual page show.
    package var visibleSubcommands: [CommandSpec] { subcommands.filter { !$0.isHidden } }
}

/// What shell completion offers for an option's value or an argument.
package enum ValueCompletion: Sendable, Hashable {
    /// Nothing.
    case none
    /// File names.
    case files
    /// One of these words.
    case choices([String])
    /// The words the program itself lists for a kind of value it knows (a plain word, such as
    /// `lists`), through a hidden command of its own: names that only the program's data holds.
    case listed(String)
    /// Command names (for `help COMMAND`).
    case commands
}

/// A positional argument of a command.
package struct ArgumentSpec: Sendable {
    /// The name shown in usage lines (`PATH`, `TITLE`).
    package var name: String
    /// What it means, for help.
    package var help: String
    /// Whether it may be left out (only trailing arguments should be).
    package var isOptional: Bool
    /// Whether it takes every remaining word (only the last argument can).
    package var isVariadic: Bool
    /// What shell completion offers for it.
    package var completion: ValueCompletion

    /// Creates an argument.
    package init(
        _ name: String, help: String = "", isOptional: Bool = false, isVariadic: Bool = false, completion: ValueCompletion = .none
    ) {
        self.name = name
        self.help = help
        self.isOptional = isOptional
        self.isVariadic = isVariadic
        self.completion = completion
    }
}

/// An option: a flag (`--force`) or an option with a value (`--at I`).
package struct OptionSpec: Sendable {
    /// The long name with its dashes: `--at`.
    package var name: String
    /// A one-letter name used as `-x`, if any.
    package var shortName: Character?
    /// The value's name in help (`I`, `PATH`); `nil` for a flag.
    package var valueName: String?
    /// What it does, for help.
    package var help: String
    /// Whether this option asks for help (then missing arguments are not reported).
    package var isHelp: Bool
    /// What shell completion offers for its value.
    package var completion: ValueCompletion

    /// Creates an option.
    package init(
        _ name: String, short shortName: Character? = nil, valueName: String? = nil, help: String = "", isHelp: Bool = false,
        completion: ValueCompletion = .none
    ) {
        self.name = name
        self.shortName = shortName
        self.valueName = valueName
        self.help = help
        self.isHelp = isHelp
        self.completion = completion
    }

    /// How the option reads in a usage line: `--at I`, `--force`, `-o FILE`.
    package var usage: String {
        let spelled = shortName.map { "-\($0)" } ?? name
        return valueName.map { "\(spelled) \($0)" } ?? spelled
    }
}

/// The result of parsing: which command, its options and its arguments.
package struct ParsedArguments: Hashable, Sendable {
    /// The names of the chosen command and its parents, from the top (`["row", "add"]`).
    package var commandPath: [String] = []
    /// Every option given, by long name, with its values in order (an empty string for a flag).
    package var options: [String: [String]] = [:]
    /// The positional arguments, in order.
    package var arguments: [String] = []

    /// An empty result.
    package init() {}

    mutating func record(_ option: OptionSpec, value: String?) {
        options[option.name, default: []].append(value ?? "")
    }

    /// Whether the option named `name` (with its dashes) was given.
    package func has(_ name: String) -> Bool { options[name] != nil }

    /// The value of the option named `name`; the last one when it was given more than once.
    package func value(_ name: String) -> String? { options[name]?.last }

    /// Whether the option was given.
    package func has(_ option: OptionSpec) -> Bool { has(option.name) }

    /// The option's value; the last one when it was given more than once.
    package func value(_ option: OptionSpec) -> String? { value(option.name) }
}

/// A malformed command line: what was wrong, and the command it was for.
package struct ArgumentError: Error, Hashable, Sendable, CustomStringConvertible {
    /// One line saying what was wrong.
    package var message: String
    /// The command being parsed when the error was found (empty at the top level).
    package var commandPath: [String]

    /// Creates an error.
    package init(message: String, commandPath: [String]) {
        self.message = message
        self.commandPath = commandPath
    }

    package var description: String { message }
}
