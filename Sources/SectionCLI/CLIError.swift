import CommandLineSupport
import Repository

/// The exit statuses of `sectionctl` (the numbers come from BSD's `sysexits.h`).
public enum ExitCode: Int32, Sendable {
    /// Done.
    case success = 0
    /// Refused or failed: an address that names nothing, an index out of range, a non-empty
    /// section without `--force`, a file that is not a sectionctl database, a read-only one; a
    /// server's refused login or privilege, a foreign `sectionctl` schema…
    case failure = 1
    /// A malformed command line: unknown command or option, missing or extra arguments, an
    /// option's value that cannot be read (a malformed `--db` connection string).
    case usage = 2
    /// Bad input data (import).
    case dataError = 65
    /// The database or an input file is missing (on a server: the database, or its schema).
    case noInput = 66
    /// Busy, conflict, or a server that may take the request a moment later: try again.
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

    /// A `RepositoryError` as the CLI reports it: bad data 65, a missing database (file, schema
    /// or database on a server) 66, busy, conflict, an unavailable server and a commit whose
    /// outcome is unknown 75 — only what may work when tried again; a malformed `--db`
    /// connection string 2 (a value on the command line that cannot be read, like any option's);
    /// everything else 1, a malformed `$SECTIONCTL_DB`, a refused login or privilege and a
    /// foreign schema included.
    static func from(_ error: RepositoryError, databaseOption: String? = nil) -> CLIError {
        // A server's connection string may hold a password: hints show it masked.
        let option = databaseOption.map { " --db \(ShellWords.quote(Context.shown(StoreLocation($0))))" } ?? ""
        switch error {
        case .invalidData:
            return CLIError(error.description, exitCode: .dataError)
        case .databaseMissing:
            return CLIError(error.description, hint: "create it with: sectionctl\(option) init", exitCode: .noInput)
        case .serverDatabaseMissing:
            return CLIError(
                error.description, hint: "create the database on the server (createdb NAME), then run: sectionctl\(option) init",
                exitCode: .noInput)
        case .cannotRepair:
            return CLIError(error.description, hint: RepairCommand.copyAdvice(database: option))
        case .busy, .conflict, .unavailable:
            return CLIError(error.description, exitCode: .temporaryFailure)
        case .commitOutcomeUnknown:
            return CLIError(
                error.description, hint: "see the list's version with: sectionctl\(option) list ls, and what changed with: changes --since V",
                exitCode: .temporaryFailure)
        case .malformedConnectionString:
            return CLIError(
                error.description, hint: "a file whose name has an = is written ./NAME; a password can go in PGPASSWORD or ~/.pgpass, unencoded",
                exitCode: databaseOption == nil ? .failure : .usage)
        case .authenticationFailed:
            return CLIError(error.description, hint: "check the user name; a password goes in PGPASSWORD or ~/.pgpass, or in the URI")
        case .permissionDenied:
            return CLIError(error.description, hint: "the server's administrator can grant it, or connect as a user who has it")
        case .replica(.badServerAddress), .replica(.badToken):
            return CLIError(error.description, exitCode: .usage)
        case .inconsistent:
            return CLIError(error.description + " (sectionctl check names the damage, sectionctl repair mends it)")
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

    /// A store error about a place the command line named, worded with the place as it was
    /// written (`row index 007 is out of range …`, `no row #012 …`) and the error's own values;
    /// `nil` when the error is about none of `places`.
    ///
    /// A place matches by kind and value, the first in the order the command line gives them
    /// (the order the store checks them in). A number too large for an `Int` reaches the store
    /// as `Int.max` (or `Int.min`), and is reported as the digits that were written.
    static func about(_ error: RepositoryError, writtenAs places: [WrittenPlace]) -> CLIError? {
        func inVersion(_ version: ListVersion?) -> String { version.map { " in version \($0) of the list" } ?? "" }
        func written(_ literal: (WrittenPlace) -> String?) -> String? {
            places.lazy.compactMap(literal).first.map { TextEscaping.excerpt($0) }
        }
        switch error {
        case .sectionIndexOutOfRange(let index, let valid, let version):
            guard let section = written({ if case .sectionIndex(index, let literal) = $0 { literal } else { nil } }) else { return nil }
            return CLIError(
                "section index \(section) is out of range" + (valid.map { " (valid: \(rangeText($0)))" } ?? ": the list has no sections")
                    + inVersion(version))
        case .rowIndexOutOfRange(let index, let section, let valid, let version):
            // `end` in an empty section (reported with a negative index) matches too: there is no
            // number to quote, and the store's own words say it.
            let place = places.first { place in
                guard case .rowIndex(let row, let named, _) = place else { return false }
                if case .index(let named) = named, named != section { return false }
                return row == .index(index) || (row == .end && index < 0 && valid == nil)
            }
            guard case .rowIndex(.index, _, let literal)? = place else { return nil }
            let row = TextEscaping.excerpt(literal)
            guard let valid else {
                return CLIError("row index \(row) is out of range: section \(section) has no rows" + inVersion(version))
            }
            return CLIError("row index \(row) is out of range for section \(section) (valid: \(rangeText(valid)))" + inVersion(version))
        case .sectionNotFound(.id(let id), let list, let titles):
            guard let section = written({ if case .sectionID(id, let literal) = $0 { literal } else { nil } }) else { return nil }
            let choices = titles.isEmpty ? "it has no sections" : "sections: " + listed(titles)
            return CLIError("no section \(section) in list \(quoted(list)) (\(choices))")
        case .rowNotFound(let id, let list):
            guard let row = written({ if case .rowID(id, let literal) = $0 { literal } else { nil } }) else { return nil }
            return CLIError("no row \(row) in list \(quoted(list))")
        default:
            return nil
        }
    }

    /// Any error as the CLI reports it.
    static func from(_ error: any Error, databaseOption: String? = nil) -> CLIError {
        switch error {
        case let error as CLIError: return error
        case let error as RepositoryError: return from(error, databaseOption: databaseOption)
        case let error as ArgumentError: return usage(error.message, command: error.commandPath)
        case let error as InputLineError: return CLIError(error.message, exitCode: .dataError)
        default: return CLIError("\(error)")
        }
    }
}
