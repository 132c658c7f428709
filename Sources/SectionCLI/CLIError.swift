import Repository

/// The exit statuses of `sectionctl` (the numbers come from BSD's `sysexits.h`).
public enum ExitCode: Int32, Sendable {
    /// Done.
    case success = 0
    /// Refused or failed: an address that names nothing, an index out of range, a non-empty
    /// section without `--force`, a file that is not a sectionctl database, a read-only one…
    case failure = 1
    /// A malformed command line: unknown command or option, missing or extra arguments.
    case usage = 2
    /// Bad input data (import).
    case dataError = 65
    /// The database or an input file is missing.
    case noInput = 66
    /// Busy or conflict: try again.
    case temporaryFailure = 75
}

/// A failure to report: one line of message, an optional hint, and the exit status.
public struct CLIError: Error, Sendable, CustomStringConvertible {
    /// What was wrong; printed after `sectionctl: error: `.
    public var message: String
    /// What to do about it; printed on a second line after `hint: `.
    public var hint: String?
    /// The process's exit status.
    public var exitCode: ExitCode

    /// Creates an error.
    public init(_ message: String, hint: String? = nil, exitCode: ExitCode = .failure) {
        self.message = message
        self.hint = hint
        self.exitCode = exitCode
    }

    public var description: String { message }

    /// A malformed command line, with a hint to the command's help.
    static func usage(_ message: String, command path: [String]) -> CLIError {
        let help = (["sectionctl"] + path + [Catalog.helpOption.name]).joined(separator: " ")
        return CLIError(message, hint: "see '\(help)'", exitCode: .usage)
    }

    /// The same error with `prefix` before its message (`line 3: …`).
    func prefixed(_ prefix: String) -> CLIError {
        CLIError(prefix + message, hint: hint, exitCode: exitCode)
    }

    /// A `RepositoryError` as the CLI reports it: bad data 65, missing database 66 (with a hint
    /// to run `init`), busy, conflict and an unavailable server 75, everything else 1.
    static func from(_ error: RepositoryError, databaseOption: String? = nil) -> CLIError {
        switch error {
        case .invalidData:
            return CLIError(error.description, exitCode: .dataError)
        case .databaseMissing:
            // A server's connection string may hold a password: the hint shows it masked.
            let option = databaseOption.map { " --db \(ShellWords.quote(StoreLocation($0).description))" } ?? ""
            return CLIError(error.description, hint: "create it with: sectionctl\(option) init", exitCode: .noInput)
        case .busy, .conflict, .unavailable:
            return CLIError(error.description, exitCode: .temporaryFailure)
        // The library says what was refused; the command line says which option would do it.
        case .listNotEmpty(let name, let count):
            return CLIError("list \(quoted(name)) has \(plural(count, "section")); use --force to delete it with its content")
        case .sectionNotEmpty(let title, let count):
            return CLIError("section \(quoted(title)) has \(plural(count, "row")); use --force to delete it with its rows")
        case .importIntoNonEmptyList(let name, let count):
            return CLIError(
                "list \(quoted(name)) already has \(plural(count, "section")); import with --replace to replace them or --append to add after them")
        default:
            return CLIError(error.description, exitCode: .failure)
        }
    }

    /// Any error as the CLI reports it.
    static func from(_ error: any Error, databaseOption: String? = nil) -> CLIError {
        switch error {
        case let error as CLIError: return error
        case let error as RepositoryError: return from(error, databaseOption: databaseOption)
        case let error as ArgumentError: return usage(error.message, command: error.commandPath)
        default: return CLIError("\(error)")
        }
    }
}
