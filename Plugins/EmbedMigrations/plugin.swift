import Foundation
import PackagePlugin

/// Turns the package's `Migrations/NNNN_name.sql` files (SQLite) and
/// `Migrations/postgres/NNNN_name.sql` files (PostgreSQL), with the constants of
/// `Migrations/constants.txt` written into them, into a Swift source file compiled into the
/// target, so that a binary carries its schemas with it wherever it is copied.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let migrations = context.package.directoryURL.appending(path: "Migrations")
        func sqlFiles(in directory: URL) throws -> [URL] {
            try FileManager.default
                .contentsOfDirectory(at: directory, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "sql" }
                .sorted { $0.lastPathComponent < $1.lastPathComponent }
        }
        let sqlite = try sqlFiles(in: migrations)
        let postgres = (try? sqlFiles(in: migrations.appending(path: "postgres"))) ?? []
        let constants = migrations.appending(path: "constants.txt")
        let files = sqlite + postgres
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations",
                executable: try context.tool(named: "migration-embedder").url,
                arguments: [output.path, "--constants", constants.path] + sqlite.map(\.path) + ["--postgres"] + postgres.map(\.path),
                inputFiles: files + [constants],
                outputFiles: [output]
            )
        ]
    }
}
