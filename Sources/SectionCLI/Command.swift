/// A command of a command tree together with its code: the spec the parser reads, help and
/// completion print, and either the function that runs it or the subcommands that choose.
///
/// A command cannot be listed without code: a leaf is made from its spec and its `run`, and a
/// group's spec takes its subcommands from the commands it is given, so the parser, the help and
/// the code read one tree. `Environment` is what `run` works with: the command line's `Context`,
/// or an edit session.
///
/// ```swift
/// enum GreetCommand {
///     static let times = OptionSpec("--times", valueName: "N", help: "how many times")
///     static let command = Command<Context>(
///         CommandSpec(name: "greet", summary: "say hello", options: [times])
///     ) { parsed, context in
///         context.console.writeLine(String(repeating: "hello ", count: Int(parsed.value(times) ?? "1") ?? 1))
///     }
/// }
/// ```
struct Command<Environment>: Sendable {
    /// What a command does with its parsed line.
    typealias Run = @Sendable (ParsedArguments, Environment) throws -> Void

    /// The spec, with `subcommands` and `isRunnable` filled in from this command's.
    let spec: CommandSpec
    /// The subcommands (`list ls`, `row add`, …); empty for a leaf.
    let subcommands: [Command]
    /// The code; `nil` only for a group that needs one of its subcommands, which the parser
    /// refuses to end on.
    let run: Run?

    /// A command that runs by itself.
    init(_ spec: CommandSpec, run: @escaping Run) {
        self.spec = spec
        self.subcommands = []
        self.run = run
    }

    /// A group (`list`, `row`): its subcommands, and optionally what it does with none given.
    init(_ spec: CommandSpec, subcommands: [Command], run: Run? = nil) {
        precondition(!subcommands.isEmpty, "a group has subcommands")
        var spec = spec
        spec.subcommands = subcommands.map(\.spec)
        spec.isRunnable = run != nil
        self.spec = spec
        self.subcommands = subcommands
        self.run = run
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
    /// - Throws: what the command throws; a usage error if the line names no runnable command,
    ///   which the parser already refuses.
    func dispatch(_ parsed: ParsedArguments, in environment: Environment) throws {
        guard let run = command(at: parsed.commandPath)?.run else {
            throw CLIError.usage("missing a command", command: parsed.commandPath)
        }
        try run(parsed, environment)
    }
}
