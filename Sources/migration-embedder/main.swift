// Writes a Swift source file that embeds SQL migration files.
//
//     migration-embedder OUTPUT.swift 0001_initial.sql 0002_more.sql … [--postgres 0001_initial.sql …]
//
// The files before `--postgres` are SQLite's (`EmbeddedMigration.all`), those after it
// PostgreSQL's (`EmbeddedMigration.postgres`).
// Each file must be named NNNN_description.sql; versions must be unique and start at 1.
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("migration-embedder: error: \(message)\n".utf8))
    exit(1)
}

/// A raw string literal holding `text` exactly, with enough `#` that nothing inside ends it.
func rawLiteral(_ text: String) -> String {
    var longestRun = 0
    var run = 0
    for character in text {
        run = character == "#" ? run + 1 : 0
        longestRun = max(longestRun, run)
    }
    let hashes = String(repeating: "#", count: longestRun + 1)
    return "\(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes)"
}

let arguments = CommandLine.arguments.dropFirst()
guard let outputPath = arguments.first else { fail("usage: migration-embedder OUTPUT FILE…") }

/// The Swift entries for one engine's migration files, checked.
func entries(_ paths: some Sequence<String>) -> [String] {
    var entries: [String] = []
    var seenVersions: Set<Int> = []
    for path in paths {
        let fileName = URL(fileURLWithPath: path).deletingPathExtension().lastPathComponent
        let parts = fileName.split(separator: "_", maxSplits: 1)
        guard parts.count == 2, let version = Int(parts[0]), version > 0 else {
            fail("\(path): a migration is named NNNN_description.sql, like 0001_initial.sql")
        }
        guard seenVersions.insert(version).inserted else { fail("\(path): version \(version) appears twice") }
        guard let data = FileManager.default.contents(atPath: path),
            let sql = String(data: data, encoding: .utf8)
        else { fail("\(path): cannot read the file as UTF-8") }
        entries.append(
            "        EmbeddedMigration(version: \(version), name: \(rawLiteral(String(parts[1]))), sql: \(rawLiteral(sql))),")
    }
    return entries
}

let files = Array(arguments.dropFirst())
let split = files.firstIndex(of: "--postgres") ?? files.endIndex
let sqlite = entries(files[..<split])
let postgres = entries(files[split...].dropFirst())

let source = """
    // Generated from Migrations/*.sql and Migrations/postgres/*.sql by the EmbedMigrations
    // plugin. Do not edit.

    extension EmbeddedMigration {
        /// Every SQLite migration in the package, in version order.
        static let all: [EmbeddedMigration] = [
    \(sqlite.joined(separator: "\n"))
        ]

        /// Every PostgreSQL migration in the package, in version order.
        static let postgres: [EmbeddedMigration] = [
    \(postgres.joined(separator: "\n"))
        ]
    }

    """
do {
    let existing = try? String(contentsOfFile: outputPath, encoding: .utf8)
    if existing != source {
        try source.write(toFile: outputPath, atomically: true, encoding: .utf8)
    }
} catch {
    fail("cannot write \(outputPath): \(error)")
}
