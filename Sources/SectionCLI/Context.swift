import CommandLineSupport
import Repository
import RepositoryPostgres

/// The global options, read from anywhere on the command line.
struct GlobalOptions: Sendable {
    /// `--db PATH`.
    var databasePath: String?
    /// `--list NAME`.
    var listName: String?
    /// `--json`.
    var json = false
    /// `--quiet`: no progress line.
    var quiet = false
    /// `--progress`: a progress line even when standard error is not a terminal.
    var progress = false

    init(_ parsed: ParsedArguments) throws(CLIError) {
        databasePath = parsed.value(Catalog.database)
        listName = parsed.value(Catalog.list)
        json = parsed.has(Catalog.json)
        quiet = parsed.has(Catalog.quiet)
        progress = parsed.has(Catalog.progress)
        if quiet && progress {
            throw CLIError.usage("use either \(Catalog.quiet.name) or \(Catalog.progress.name), not both", command: parsed.commandPath)
        }
    }
}

/// What every command runs with: the global options, the environment, the console, and the
/// styles for its two output streams.
final class Context {
    let options: GlobalOptions
    let environment: [String: String]
    let console: Console
    /// Colour for standard output.
    let style: Style
    /// Colour for standard error.
    let errorStyle: Style

    init(options: GlobalOptions, environment: [String: String], console: Console) {
        self.options = options
        self.environment = environment
        self.console = console
        self.style = Style.forStream(isTerminal: console.outputIsTerminal, environment: environment)
        self.errorStyle = Style.forStream(isTerminal: console.errorIsTerminal, environment: environment)
    }

    /// The list commands work on: `--list`, else `default` (`listName(in:)` also knows a
    /// replica's mirrored list).
    var listName: String { options.listName ?? SectionStore.defaultList }

    /// Whether to print JSON instead of text.
    var json: Bool { options.json }

    /// The database path, or a server's URI, resolved from `--db` and the environment.
    func databasePath() throws(CLIError) -> String {
        try DatabaseLocation.resolve(option: options.databasePath, environment: environment)
    }

    /// What opens server locations: the command line opens them as readily as files (a
    /// replica file's server too).
    static let server: ServerSupport = .postgres

    /// `location` as messages show it: a server's connection string with every password masked.
    static func shown(_ location: StoreLocation) -> String {
        server.describe(location)
    }

    /// Where the database is: a file, or a PostgreSQL server for a `postgresql://` URI.
    func databaseLocation() throws(CLIError) -> StoreLocation {
        StoreLocation(try databasePath())
    }

    /// Opens the database, which must exist.
    func openStore() throws -> SectionStore {
        let location = try databaseLocation()
        let line = migrationLine()
        defer { line?.finish() }
        do {
            var progress: (@Sendable (MigrationProgress) -> Void)?
            if let line { progress = { line.update($0) } }
            // A command reads and writes on one thread: one connection serves both, and the
            // schema is read once (a second connection's reading it was a fifth of `row get`).
            // On a server, the check of the schema goes with the command's first statement.
            return try SectionStore(
                location: location, server: Self.server, migrationProgress: progress, readsBesideWrites: false, checkingOnFirstUse: true)
        } catch let error as RepositoryError {
            throw CLIError.from(error, databaseOption: options.databasePath)
        }
    }

    /// Opens the database, which must exist, and names the list the command works on
    /// (`listName`): the handle every per-list command goes through, as an app's code would.
    func openList() throws -> ListHandle {
        let store = try openStore()
        return store.list(try listName(in: store))
    }

    /// The list commands work on in `store`: `--list`, else the store's default (a replica's
    /// mirrored list, else `default`).
    func listName(in store: SectionStore) throws -> String {
        try options.listName ?? store.defaultListName()
    }

    /// Prints a JSON value on one line.
    func printJSON(_ value: JSONValue) {
        console.writeLine(value.rendered)
    }

    /// Prints a committed change: its JSON, or a sentence.
    func report(_ change: Change) {
        if json {
            printJSON(JSONShapes.change(change))
        } else {
            console.writeLine(ChangeReport.sentence(for: change))
        }
    }
}
