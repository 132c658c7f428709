import CommandLineSupport

/// A command of a command tree together with its code: the spec the parser reads, help and
/// completion print, and either the function that runs it or the subcommands that choose.
///
/// A command cannot be listed without code: a leaf is made from its spec and its `run`, and a
/// group's spec takes its subcommands from the commands it is given, so the parser, the help and
/// the code read one tree. `Environment` is what `run` works with: the command line's `Context`,
/// or an edit session.
///
/// A command that takes arguments or options names a `CommandArguments` type: its parsed line
/// is read into that typed value before `run` sees it, so that `run` works with addresses,
/// numbers and flags, never with words by position.
///
/// ```swift
/// struct GreetArguments: CommandArguments {
///     static let times = OptionSpec("--times", valueName: "N", help: "how many times")
///     var times: Int
///     init(from line: ParsedLine) throws(CLIError) {
///         times = try line.value(Self.times).map { text throws(CLIError) in
///             guard let times = Int(text) else { throw line.usage("--times takes a number, not \"\(text)\"") }
///             return times
///         } ?? 1
///     }
/// }
/// let greet = Command<Context>(CommandSpec(name: "greet", options: [GreetArguments.times]), reading: GreetArguments.self) {
///     arguments, context in
///     context.console.writeLine(String(repeating: "hello ", count: arguments.times))
/// }
/// ```
struct Command<Environment>: Sendable {
    /// What a command does with its parsed line: read it into its typed arguments, then run.
    typealias Run = @Sendable (ParsedArguments, Environment) throws -> Void

    /// The spec, with `subcommands` and `isRunnable` filled in from this command's.
    let spec: CommandSpec
    /// The subcommands (`list ls`, `row add`, …); empty for a leaf.
    let subcommands: [Command]
    /// The code; `nil` only for a group that needs one of its subcommands, which the parser
    /// refuses to end on.
    let run: Run?

    /// A command that runs by itself, with the arguments and options of `spec` read into
    /// `Arguments` first.
    init<Arguments: CommandArguments>(
        _ spec: CommandSpec, reading _: Arguments.Type, run: @escaping @Sendable (Arguments, Environment) throws -> Void
    ) {
        self.spec = spec
        self.subcommands = []
        self.run = { parsed, environment in
            try run(try Arguments(from: ParsedLine(parsed, spec: spec)), environment)
        }
    }

    /// A command that takes no arguments and no options (global ones aside).
    init(_ spec: CommandSpec, run: @escaping @Sendable (Environment) throws -> Void) {
        precondition(spec.arguments.isEmpty && spec.options.isEmpty, "\(spec.name) takes arguments: name its CommandArguments")
        self.spec = spec
        self.subcommands = []
        self.run = { _, environment in try run(environment) }
    }

    /// A group (`list`, `row`): its subcommands, and optionally what it does with none given.
    init(_ spec: CommandSpec, subcommands: [Command], run: (@Sendable (Environment) throws -> Void)? = nil) {
        precondition(!subcommands.isEmpty, "a group has subcommands")
        var spec = spec
        spec.subcommands = subcommands.map(\.spec)
        spec.isRunnable = run != nil
        self.spec = spec
        self.subcommands = subcommands
        if let run {
            self.run = { _, environment in try run(environment) }
        } else {
            self.run = nil
        }
    }

    /// The command at `path` below this one (this one for an empty path).
    func command(at path: [String]) -> Command? {
        var command = self
        for name in path {
            guard let next = command.subcommands.first(where: { $0.spec.name == name }) else { return nil }
            command = next
        }
        return command
    }

    /// Runs the command a parsed line chose.
    /// - Throws: what the command throws, a usage error for arguments its typed value refuses,
    ///   or a usage error if the line names no runnable command, which the parser already
    ///   refuses.
    func dispatch(_ parsed: ParsedArguments, in environment: Environment) throws {
        guard let run = command(at: parsed.commandPath)?.run else {
            throw CLIError.usage("missing a command", command: parsed.commandPath)
        }
        try run(parsed, environment)
    }
}

/// A command's arguments and options as typed values (addresses, numbers, flags), read from its
/// parsed line before it runs.
protocol CommandArguments: Sendable {
    /// Reads the values from a line parsed against the command's spec.
    /// - Throws: `CLIError` (usage, exit 2): one line naming what was malformed and what the
    ///   argument or option takes.
    init(from line: ParsedLine) throws(CLIError)
}

/// A parsed command line read through its command's spec: each argument by its `ArgumentSpec`
/// (its position is the spec's business), each option by its `OptionSpec`, so that the names in
/// the spec are the only ones there are.
struct ParsedLine: Sendable {
    /// What the parser found.
    let parsed: ParsedArguments
    /// The command it chose.
    let spec: CommandSpec

    /// Reads `parsed` as a line of the command `spec`.
    init(_ parsed: ParsedArguments, spec: CommandSpec) {
        self.parsed = parsed
        self.spec = spec
    }

    /// The command's words (`["row", "move"]`), which usage errors point to the help of.
    var commandPath: [String] { parsed.commandPath }

    /// The word given for `argument`.
    /// - Throws: `CLIError` (usage) when it is missing, which the parser already refuses for an
    ///   argument that is not optional.
    func word(_ argument: ArgumentSpec) throws(CLIError) -> String {
        guard let word = optionalWord(argument) else { throw usage("missing argument \(argument.name)") }
        return word
    }

    /// The word given for `argument`, or `nil` when an optional one was left out.
    func optionalWord(_ argument: ArgumentSpec) -> String? {
        let position = position(of: argument)
        return parsed.arguments.indices.contains(position) ? parsed.arguments[position] : nil
    }

    /// Every word from `argument` on (for a variadic argument, the last).
    func words(_ argument: ArgumentSpec) -> [String] {
        Array(parsed.arguments.dropFirst(position(of: argument)))
    }

    /// The option's value; the last one when it was given more than once.
    func value(_ option: OptionSpec) -> String? { parsed.value(option) }

    /// Whether the option was given.
    func has(_ option: OptionSpec) -> Bool { parsed.has(option) }

    /// A malformed line of this command, with a hint to its help.
    func usage(_ message: String) -> CLIError {
        CLIError.usage(message, command: commandPath)
    }

    /// Reads `argument`'s word with `read` (an address, a number), reporting a malformed one as a
    /// usage error of this command.
    func read<Value>(_ argument: ArgumentSpec, _ read: (String) throws(CLIError) -> Value) throws(CLIError) -> Value {
        try checked { () throws(CLIError) in try read(try word(argument)) }
    }

    /// Reads `option`'s value with `read`, if the option was given; a malformed one is a usage
    /// error of this command.
    func read<Value>(_ option: OptionSpec, _ read: (String) throws(CLIError) -> Value) throws(CLIError) -> Value? {
        try checked { () throws(CLIError) in try value(option).map { text throws(CLIError) in try read(text) } }
    }

    /// Runs `body`, reporting a usage error it throws without a hint (from reading an address)
    /// as a usage error of this command, with the hint to its help.
    private func checked<T>(_ body: () throws(CLIError) -> T) throws(CLIError) -> T {
        do {
            return try body()
        } catch  where error.exitCode == .usage && error.hint == nil {
            throw usage(error.message)
        }
    }

    private func position(of argument: ArgumentSpec) -> Int {
        guard let position = spec.arguments.firstIndex(where: { $0.name == argument.name }) else {
            preconditionFailure("\(argument.name) is not an argument of \(spec.name)")
        }
        return position
    }
}
