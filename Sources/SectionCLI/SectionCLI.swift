import CommandLineSupport
import Foundation
import Repository
import RepositoryPostgres

/// The sectionctl command-line interface.
///
/// `main()` runs the process's command line; `run(_:environment:console:)` runs any command line
/// against any console and returns the exit status, which is how the demo and tests drive it.
public enum SectionCLI {
    /// The version printed by `--version`.
    public static let version = "0.1.0"

    /// Runs the command line in `CommandLine.arguments` and exits with its status.
    public static func main() -> Never {
        DisplayWidth.useEnvironmentLocale()
        let console = Console.standard(maximumLineLength: SectionStore.maximumLineLength)
        let environment = ProcessInfo.processInfo.environment
        // CommandLine.arguments replaces bytes that are not UTF-8; text is refused instead.
        for index in 1..<Int(CommandLine.argc) {
            guard let argument = CommandLine.unsafeArgv[index], String(validatingCString: argument) == nil else { continue }
            report(
                CLIError("argument \(index) is not valid UTF-8 text", exitCode: .dataError), console: console, environment: environment,
                json: asksForJSON(CommandLine.arguments.dropFirst()))
            console.flush()
            exit(ExitCode.dataError.rawValue)
        }
        let status = run(Array(CommandLine.arguments.dropFirst()), environment: environment, console: console)
        console.flush()
        exit(status)
    }

    /// Runs one command line (without the program name) and returns the exit status. Errors are
    /// reported on the console's standard error as `sectionctl: error: …`, with an optional
    /// `hint: …` line; with `--json`, as one line of JSON (`report(_:console:environment:json:)`).
    package static func run(_ arguments: [String], environment: [String: String], console: Console) -> Int32 {
        defer { console.flush() }
        var databaseOption: String?
        // Known before parsing, so that a command line the parser refuses is answered in JSON too.
        var json = asksForJSON(arguments)
        do {
            let parsed = try Catalog.parser.parse(arguments)
            json = parsed.has(Catalog.json)
            let context = Context(options: try GlobalOptions(parsed), environment: environment, console: console)
            databaseOption = context.options.databasePath
            try dispatch(parsed, context: context)
            return ExitCode.success.rawValue
        } catch {
            let reported = CLIError.from(error, databaseOption: databaseOption)
            report(reported, console: console, environment: environment, json: json)
            return reported.exitCode.rawValue
        }
    }

    /// Whether a command line asks for JSON: `--json` among the words before a `--` (a global
    /// option may come anywhere), read without the parser, which may be what refused it.
    static func asksForJSON(_ arguments: some Sequence<String>) -> Bool {
        arguments.prefix { $0 != "--" }.contains(Catalog.json.name)
    }

    /// Prints an error (and its hint) to standard error, escaped and on one line each; with
    /// `json`, as one line of JSON for a script, `{"error": message, "hint": hint or null,
    /// "exit_status": status}`, the status being the process's.
    static func report(_ error: CLIError, console: Console, environment: [String: String], json: Bool = false) {
        if json {
            let object = JSONValue.object([
                ("error", .string(error.message)), ("hint", .string(error.hint)), ("exit_status", .int(Int64(error.exitCode.rawValue))),
            ])
            console.writeErrorLine(object.rendered)
            return
        }
        let style = Style.forStream(isTerminal: console.errorIsTerminal, environment: environment)
        console.writeErrorLine("sectionctl: " + style.red("error:") + " " + TextEscaping.escaped(error.message))
        if let hint = error.hint {
            console.writeErrorLine("hint: " + TextEscaping.escaped(hint))
        }
    }

    /// Runs a parsed command line: help and the version, else the command it names.
    static func dispatch(_ parsed: ParsedArguments, context: Context) throws {
        if parsed.has(Catalog.helpOption) {
            context.console.write(Catalog.parser.help(for: parsed.commandPath))
            return
        }
        if parsed.has(Catalog.version) {
            if context.json {
                context.printJSON(
                    .object([
                        ("version", .string(version)), ("schema_version", .int(SectionStore.schemaVersion)),
                        ("server_schema_version", .int(SectionStore.serverSchemaVersion)),
                    ]))
            } else {
                context.console.writeLine(
                    "sectionctl \(version) (schema version \(SectionStore.schemaVersion) for files, \(SectionStore.serverSchemaVersion) for servers)")
            }
            return
        }
        try Catalog.root.dispatch(parsed, in: context)
    }
}
