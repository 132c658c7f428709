import Foundation
import PackagePlugin

/// Turns the package's `Migrations/NNNN_name.sql` files into a Swift source file compiled into
/// the target, so that a binary carries its schema with it wherever it is copied.
@main
struct EmbedMigrations: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let migrations = context.package.directoryURL.appending(path: "Migrations")
        let files = try FileManager.default
            .contentsOfDirectory(at: migrations, includingPropertiesForKeys: nil)
            .filter { $0.pathExtension == "sql" }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedMigrations.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) migrations",
                executable: try context.tool(named: "migration-embedder").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
