import Foundation
import Repository
import TestSupport
import Testing

/// Finding, creating and refusing databases.
@Suite struct DatabaseTests {
    @Test func initCreatesTheDatabaseAndItsDirectories() throws {
        let cli = try Sectionctl()
        let path = cli.directory.appendingPathComponent("a/b/c/tasks.db").path
        let first = try cli.run(["--db", path, "init"], database: false)
        #expect(first.status == 0)
        #expect(first.stdout == "Database \(path) created (schema version \(SectionStore.schemaVersion)).\n")
        #expect(FileManager.default.fileExists(atPath: path))
        let again = try cli.run(["--db", path, "--json", "init"], database: false)
        #expect(again.status == 0)
        #expect(
            again.stdout == #"{"database":"\#(path)","created":false,"schema_version":\#(SectionStore.schemaVersion),"lists":["default"]}"# + "\n")
    }

    @Test func aMissingDatabaseExits66WithAHintAndCreatesNothing() throws {
        let cli = try Sectionctl()
        let path = cli.directory.appendingPathComponent("nowhere/tasks.db").path
        for arguments in [["show"], ["list", "ls"], ["section", "add", "x"], ["row", "delete", "0:0"], ["edit"], ["export"]] {
            let result = try cli.run(["--db", path] + arguments, database: false)
            #expect(result.status == 66, "\(arguments)")
            #expect(result.stdout.isEmpty)
            #expect(result.stderr == "sectionctl: error: no database at \(path)\nhint: create it with: sectionctl --db \(path) init\n")
        }
        #expect(!FileManager.default.fileExists(atPath: path))
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("nowhere").path))
    }

    @Test func theDatabaseComesFromTheEnvironmentWithoutDb() throws {
        let cli = try Sectionctl()
        let explicit = cli.directory.appendingPathComponent("env.db").path
        #expect(try cli.run(["init"], environment: ["SECTIONCTL_DB": explicit], database: false).status == 0)
        #expect(FileManager.default.fileExists(atPath: explicit))

        let dataHome = cli.directory.appendingPathComponent("data").path
        #expect(try cli.run(["init"], environment: ["XDG_DATA_HOME": dataHome], database: false).status == 0)
        #expect(FileManager.default.fileExists(atPath: dataHome + "/sectionctl/sections.db"))

        let home = cli.directory.appendingPathComponent("home").path
        let missing = try cli.run(["show"], environment: ["HOME": home], database: false)
        #expect(missing.status == 66)
        #expect(missing.stderr.contains(home + "/.local/share/sectionctl/sections.db"))
        #expect(missing.stderr.contains("hint: create it with: sectionctl init"))
        #expect(try cli.run(["init"], environment: ["HOME": home], database: false).status == 0)
        #expect(FileManager.default.fileExists(atPath: home + "/.local/share/sectionctl/sections.db"))

        // --db wins over the environment.
        let result = try cli.run(["--json", "init"], environment: ["SECTIONCTL_DB": explicit])
        #expect(try result.json()["database"] as? String == cli.databasePath)
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndLeftAlone() throws {
        let cli = try Sectionctl()
        let text = "just some text, certainly not SQLite\n".repeated(200)
        try text.write(toFile: cli.databasePath, atomically: true, encoding: .utf8)
        for arguments in [["show"], ["init"], ["row", "add", "0", "x"]] {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            #expect(result.stderr.hasPrefix("sectionctl: error: \(cli.databasePath) is not a SQLite database"))
        }
        #expect(try String(contentsOfFile: cli.databasePath, encoding: .utf8) == text)
    }

    @Test(.needs(.sqlite3)) func aDatabaseThatIsNotOursIsRefused() throws {
        let cli = try Sectionctl()
        try sqlite(cli.databasePath, "CREATE TABLE notes (body TEXT);")
        let result = try cli.run(["show"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("is a SQLite database, but not a sectionctl database"))
        #expect(try cli.run(["init"]).status == 1)
    }

    @Test(.needs(.sqlite3)) func aNewerSchemaIsRefused() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try sqlite(cli.databasePath, "PRAGMA user_version = 99;")
        let result = try cli.run(["show"])
        #expect(result.status == 1)
        #expect(result.stderr.contains("newer than this sectionctl knows"))
    }

    @Test func versionAndHelp() throws {
        let cli = try Sectionctl()
        let version = try cli.run(["--version"], database: false)
        #expect(version.status == 0)
        #expect(version.stdout == "sectionctl 0.1.0 (schema version 14 for files, 14 for servers)\n")
        #expect(
            try cli.run(["--json", "--version"], database: false).stdout
                == #"{"version":"0.1.0","schema_version":14,"server_schema_version":14}"# + "\n")
        let help = try cli.run(["--help"], database: false)
        #expect(help.status == 0)
        #expect(help.stdout.hasPrefix("usage: sectionctl "))
        for command in ["init", "demo", "show", "list", "section", "row", "edit", "import", "export"] {
            #expect(help.stdout.contains("\n  \(command)"), "\(command)")
        }
        let nothing = try cli.run([], database: false)
        #expect(nothing.status == 2)
        #expect(
            nothing.stderr
                == "sectionctl: error: missing a command (commands: init, demo, show, list, section, row, edit, ui, import, export, check, repair, vacuum, changes, watch, clone, status, sync, serve, token, undo, redo, completion, help)\n"
                + "hint: see 'sectionctl --help'\n")
    }

    @Test(arguments: [
        ["init"], ["demo"], ["show"], ["list", "ls"], ["list", "add"], ["list", "rename"], ["list", "delete"],
        ["section", "add"], ["section", "rename"], ["section", "set"], ["section", "move"], ["section", "delete"],
        ["row", "add"], ["row", "set"], ["row", "move"], ["row", "delete"], ["edit"], ["import"], ["export"],
    ])
    func everyCommandHasHelpWithUsageAndAnExample(command: [String]) throws {
        let cli = try Sectionctl()
        let result = try cli.run(command + ["--help"], database: false)
        #expect(result.status == 0)
        #expect(result.stdout.hasPrefix("usage: sectionctl \(command.joined(separator: " "))"))
        #expect(result.stdout.contains("\n  sectionctl \(command.first!)") || result.stdout.contains("sectionctl --"))
        let viaHelp = try cli.run(["help"] + command, database: false)
        #expect(viaHelp.stdout == result.stdout)
    }
}

/// Runs SQL on a database with the sqlite3 shell.
func sqlite(_ path: String, _ sql: String) throws {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: try RequiredTool.sqlite3.path())
    process.arguments = [path, sql]
    process.standardOutput = FileHandle.nullDevice
    try process.run()
    process.waitUntilExit()
    #expect(process.terminationStatus == 0, "sqlite3 failed")
}

/// Reads one value with the sqlite3 shell.
func sqliteValue(_ path: String, _ sql: String) throws -> String {
    let process = Process()
    let pipe = Pipe()
    process.executableURL = URL(fileURLWithPath: try RequiredTool.sqlite3.path())
    process.arguments = [path, sql]
    process.standardOutput = pipe
    try process.run()
    let data = pipe.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}

extension String {
    func repeated(_ count: Int) -> String { String(repeating: self, count: count) }
}
