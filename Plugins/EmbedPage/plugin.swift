import Foundation
import PackagePlugin

/// Turns the package's `Page/` files (the page `sectionctl serve` serves at `/lists/NAME`: HTML, an icon,
/// CSS and JavaScript modules) into a Swift source file compiled into the target, so that the
/// binary carries its page with it wherever it is copied. There is no build step for the page
/// itself: the files are served as they are written.
@main
struct EmbedPage: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) async throws -> [Command] {
        let page = context.package.directoryURL.appending(path: "Page")
        let files = try FileManager.default
            .contentsOfDirectory(at: page, includingPropertiesForKeys: nil)
            .filter { ["html", "css", "js", "svg"].contains($0.pathExtension) }
            .sorted { $0.lastPathComponent < $1.lastPathComponent }
        let output = context.pluginWorkDirectoryURL.appending(path: "EmbeddedPage.swift")
        return [
            .buildCommand(
                displayName: "Embedding \(files.count) page files",
                executable: try context.tool(named: "page-embedder").url,
                arguments: [output.path] + files.map(\.path),
                inputFiles: files,
                outputFiles: [output]
            )
        ]
    }
}
