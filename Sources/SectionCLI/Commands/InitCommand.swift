import Foundation
import Repository

/// `init`: creates the database (and its parent directories) and brings its schema up to date.
/// Running it again is harmless.
enum InitCommand {
    static let command = Command<Context>(
        CommandSpec(
            name: "init", summary: "create and migrate the database (safe to run again)",
            examples: ["init", "--db ./tasks.db init"],
            discussion: "Creates the database and its parent directories. Every other command needs it to exist."),
        run: { try run($0, context: $1) })

    static func run(_ parsed: ParsedArguments, context: Context) throws {
        let path = try context.databasePath()
        let existed = FileManager.default.fileExists(atPath: path)
        if !existed { try DatabaseLocation.createParentDirectories(of: path) }
        let store: SectionStore
        do {
            store = try SectionStore(path: path, create: true)
        } catch let error as RepositoryError {
            throw CLIError.from(error, databaseOption: context.options.databasePath)
        }
        let lists = try store.lists()
        if context.json {
            context.printJSON(
                .object([
                    ("database", .string(path)),
                    ("created", .bool(!existed)),
                    ("schema_version", .int(SectionStore.schemaVersion)),
                    ("lists", .array(lists.map { .string($0.name) })),
                ]))
        } else {
            let what = existed ? "is ready" : "created"
            context.console.writeLine(
                "Database \(TextEscaping.escaped(path)) \(what) (schema version \(SectionStore.schemaVersion)).")
        }
    }
}
