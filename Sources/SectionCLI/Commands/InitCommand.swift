import CommandLineSupport
import Foundation
import Repository

/// `init`: creates the database (and its parent directories) and brings its schema up to date.
/// Running it again is harmless.
enum InitCommand {
    static let command = Command<Context>(
        CommandSpec(
            name: "init", summary: "create and migrate the database (safe to run again)",
            examples: ["init", "--db ./tasks.db init", "--db postgresql://db.example.com/team init"],
            discussion:
                "Creates the database and its parent directories; on a PostgreSQL server, the schema sectionctl in the database the URI names. Every other command needs it to exist."
        ),
        run: { try run(context: $0) })

    static func run(context: Context) throws {
        let location = try context.databaseLocation()
        let path = Context.shown(location)  // a server's URI with any password masked
        let existed: Bool
        let store: SectionStore
        do {
            switch location {
            case .file(let file):
                existed = FileManager.default.fileExists(atPath: file)
                if !existed { try DatabaseLocation.createParentDirectories(of: file) }
            case .server:
                existed = (try? SectionStore(location: location, server: Context.server)) != nil
            }
            store = try SectionStore(location: location, server: Context.server, create: true)
        } catch let error as RepositoryError {
            throw CLIError.from(error, databaseOption: context.options.databasePath)
        }
        let lists = try store.lists()
        // The store just opened, so its backend is present and its version is known.
        let schemaVersion = SectionStore.schemaVersion(at: location, server: Context.server) ?? SectionStore.schemaVersion
        if context.json {
            context.printJSON(
                .object([
                    ("database", .string(path)),
                    ("created", .bool(!existed)),
                    ("schema_version", .int(schemaVersion)),
                    ("lists", .array(lists.map { .string($0.name) })),
                ]))
        } else {
            let what = existed ? "is ready" : "created"
            context.console.writeLine(
                "Database \(TextEscaping.escaped(path)) \(what) (schema version \(schemaVersion)).")
        }
    }
}
