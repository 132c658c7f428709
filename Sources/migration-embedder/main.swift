// Writes a Swift source file that embeds SQL migration files and the constants they share with
// the Swift code.
//
//     migration-embedder OUTPUT.swift --constants constants.txt 0001_initial.sql … [--postgres 0001_initial.sql …]
//
// The files before `--postgres` are SQLite's (`EmbeddedMigration.all`), those after it
// PostgreSQL's (`EmbeddedMigration.postgres`).
// Each file must be named NNNN_description.sql; versions must be unique and start at 1.
// `{{name}}` in a file is replaced by the constant of that name (`name = value` lines of the
// constants file; `#` starts a comment line); a name the file does not define is an error.
import Foundation

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("migration-embedder: error: \(message)\n".utf8))
    exit(1)
}

/// A raw string literal holding `text` exactly, with enough `#` that nothing inside ends it.
func rawLiteral(_ text: String, multiline: Bool = true) -> String {
    var longestRun = 0
    var run = 0
    for character in text {
        run = character == "#" ? run + 1 : 0
        longestRun = max(longestRun, run)
    }
    let hashes = String(repeating: "#", count: longestRun + 1)
    return multiline ? "\(hashes)\"\"\"\n\(text)\n\"\"\"\(hashes)" : "\(hashes)\"\(text)\"\(hashes)"
}

var arguments = Array(CommandLine.arguments.dropFirst())
let usage = "usage: migration-embedder OUTPUT --constants FILE SQLFILE… [--postgres SQLFILE…]"
guard arguments.count >= 3, arguments[1] == "--constants" else { fail(usage) }
let outputPath = arguments[0]
let constantsPath = arguments[2]
arguments.removeFirst(3)

/// A constant of the constants file.
struct Constant {
    var name: String
    var value: String
    var integer: Int? { Int(value) }
    /// A number with a point (`1.5`): a `Double` in Swift.
    var fraction: Double? { value.contains(".") ? Double(value) : nil }

    /// `rank_fanout` as `rankFanout`.
    var swiftName: String {
        let words = name.split(separator: "_")
        return words.first.map(String.init)! + words.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
    }
}

func readConstants(_ path: String) -> [Constant] {
    guard let data = FileManager.default.contents(atPath: path), let text = String(data: data, encoding: .utf8) else {
        fail("\(path): cannot read the constants file")
    }
    var constants: [Constant] = []
    for (number, line) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
        let trimmed = line.trimmingCharacters(in: .whitespaces)
        if trimmed.isEmpty || trimmed.hasPrefix("#") { continue }
        let parts = trimmed.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
        guard parts.count == 2, !parts[1].isEmpty, parts[0].allSatisfy({ $0.isLowercase || $0 == "_" || $0.isNumber }) else {
            fail("\(path):\(number + 1): a constant is written `name = value`, the name in lower case with underscores")
        }
        guard !constants.contains(where: { $0.name == parts[0] }) else { fail("\(path):\(number + 1): \(parts[0]) is defined twice") }
        constants.append(Constant(name: parts[0], value: parts[1]))
    }
    return constants
}

let constants = readConstants(constantsPath)

/// The constants and the values derived from them, by the name `{{…}}` uses.
let substitutions: [String: String] = {
    var values = Dictionary(uniqueKeysWithValues: constants.map { ($0.name, $0.value) })
    if let levels = values["rank_levels"].flatMap(Int.init), let fanout = values["rank_fanout"].flatMap(Int.init) {
        values["rank_level_list"] = (1...levels).map(String.init).joined(separator: ", ")
        var span = 1
        values["rank_spans"] = (1...levels).map { level in
            span *= fanout
            return "(\(level), \(span))"
        }.joined(separator: ", ")
    }
    return values
}()

/// `sql` with every `{{name}}` replaced.
func substituted(_ sql: String, in path: String) -> String {
    var output = ""
    var rest = Substring(sql)
    while let open = rest.range(of: "{{") {
        output += rest[..<open.lowerBound]
        guard let close = rest[open.upperBound...].range(of: "}}") else { fail("\(path): {{ without }}") }
        let name = String(rest[open.upperBound..<close.lowerBound])
        guard let value = substitutions[name] else { fail("\(path): {{\(name)}} names no constant of \(constantsPath)") }
        output += value
        rest = rest[close.upperBound...]
    }
    return output + rest
}

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
            let text = String(data: data, encoding: .utf8)
        else { fail("\(path): cannot read the file as UTF-8") }
        let sql = substituted(text, in: path)
        entries.append(
            "        EmbeddedMigration(version: \(version), name: \(rawLiteral(String(parts[1]))), sql: \(rawLiteral(sql))),")
    }
    return entries
}

let files = arguments
let split = files.firstIndex(of: "--postgres") ?? files.endIndex
let sqlite = entries(files[..<split])
let postgres = entries(files[split...].dropFirst())

let constantLines = constants.map { constant in
    let value = constant.integer.map(String.init) ?? constant.fraction.map { "\($0)" } ?? rawLiteral(constant.value, multiline: false)
    return "    package static let \(constant.swiftName) = \(value)"
}

let source = """
    // Generated from Migrations/*.sql, Migrations/postgres/*.sql and Migrations/constants.txt
    // by the EmbedMigrations plugin. Do not edit.

    /// The numbers the schemas of both engines and the Swift code share: Migrations/constants.txt.
    package enum SchemaConstants {
    \(constantLines.joined(separator: "\n"))
    }

    extension EmbeddedMigration {
        /// Every SQLite migration in the package, in version order.
        package static let all: [EmbeddedMigration] = [
    \(sqlite.joined(separator: "\n"))
        ]

        /// Every PostgreSQL migration in the package, in version order.
        package static let postgres: [EmbeddedMigration] = [
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
