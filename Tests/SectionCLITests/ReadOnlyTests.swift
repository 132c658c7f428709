import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A database the user cannot write can still be shown and exported; changes fail with exit 1.
///
/// As root every file is writable, so there the binary runs as `nobody` through `setpriv`; the
/// test is skipped when that is not possible.
@Suite(.enabled(if: ReadOnlyRunner.isAvailable, "needs a non-root user, or setpriv as root"))
struct ReadOnlyTests {
    @Test func aReadOnlyDatabaseCanBeShownButNotChanged() throws {
        let cli = try Sectionctl()
        try cli.seed()
        chmod(cli.directory.path, 0o777)  // room for SQLite's -shm and -wal files
        chmod(cli.databasePath, 0o444)
        defer { chmod(cli.databasePath, 0o644) }

        let show = try ReadOnlyRunner.run(["--db", cli.databasePath, "show"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("[0] To do  #1"))
        let add = try ReadOnlyRunner.run(["--db", cli.databasePath, "row", "add", "0", "x"])
        #expect(add.status == 1)
        #expect(add.stderr == "sectionctl: error: \(cli.databasePath) is read-only; it can be shown and exported, not changed\n")
        let session = try ReadOnlyRunner.run(["--db", cli.databasePath, "edit"], input: "row delete 0:0\nsave\n")
        #expect(session.status == 1)
        #expect(try ReadOnlyRunner.run(["--db", cli.databasePath, "--json", "show"]).status == 0)
        let export = try ReadOnlyRunner.run(["--db", cli.databasePath, "export"])
        #expect(export.status == 0, "\(export.stderr)")
        #expect(export.stdout.contains("\"Write report\""))
        chmod(cli.databasePath, 0o644)
        #expect(try cli.snapshot()["version"] as? Int == 5)
    }
}

extension ReadOnlyTests {
    /// In a directory the user cannot write, SQLite cannot make the WAL's `-shm` file; the
    /// database is then read as an immutable file.
    @Test func aDatabaseInAReadOnlyDirectoryCanStillBeShownAndExported() throws {
        let cli = try Sectionctl()
        try cli.seed()
        chmod(cli.databasePath, 0o444)
        chmod(cli.directory.path, 0o555)
        defer {
            chmod(cli.directory.path, 0o755)
            chmod(cli.databasePath, 0o644)
        }
        let show = try ReadOnlyRunner.run(["--db", cli.databasePath, "show"])
        #expect(show.status == 0, "\(show.stderr)")
        #expect(show.stdout.contains("[0] To do  #1"))
        let export = try ReadOnlyRunner.run(["--db", cli.databasePath, "export"])
        #expect(export.status == 0, "\(export.stderr)")
        let add = try ReadOnlyRunner.run(["--db", cli.databasePath, "section", "add", "x"])
        #expect(add.status == 1)
        #expect(add.stderr.contains("is read-only"))
        // An edit session reads such a database too (its own connection is immutable as well);
        // only its save is refused.
        let session = try ReadOnlyRunner.run(["--db", cli.databasePath, "edit"], input: "row delete 0:0\nshow\nsave\n")
        #expect(session.stdout.contains("[0] To do  #1\n  0:0  Call Mom  #2\n"), "\(session.stderr)")
        #expect(session.status == 1)
        #expect(session.stderr.contains("is read-only"))
    }
}

enum ReadOnlyRunner {
    static let isRoot = getuid() == 0

    /// The command prefix that runs a program as a user who cannot write the database.
    static var prefix: [String] {
        isRoot ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups"] : []
    }

    static let isAvailable: Bool = {
        guard isRoot else { return true }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv") else { return false }
        return (try? run(["--version"]).status) == 0
    }()

    static func run(_ arguments: [String], input: String = "") throws -> RunResult {
        let process = Process()
        let output = Pipe()
        let errors = Pipe()
        let stdin = Pipe()
        let command = prefix + [Sectionctl.binary.path] + arguments
        process.executableURL = URL(fileURLWithPath: command[0])
        process.arguments = Array(command.dropFirst())
        process.environment = Sectionctl.environment()
        process.standardInput = stdin
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self), stderr: String(decoding: err, as: UTF8.self))
    }
}
