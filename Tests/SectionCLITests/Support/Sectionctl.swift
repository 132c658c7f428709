import Foundation
import PostgresCluster
import TestSupport
import Testing

/// What a run of the `sectionctl` binary did.
struct RunResult {
    var status: Int32
    var stdout: String
    var stderr: String

    /// Standard output's lines, without the final empty one.
    var lines: [String] { stdout.split(separator: "\n", omittingEmptySubsequences: false).dropLast().map(String.init) }

    /// Standard output parsed as one JSON object.
    func json(sourceLocation: SourceLocation = #_sourceLocation) throws -> [String: Any] {
        let object = try JSONSerialization.jsonObject(with: Data(stdout.utf8))
        return try #require(object as? [String: Any], "not a JSON object: \(stdout)", sourceLocation: sourceLocation)
    }
}

/// Runs the built `sectionctl` binary against a database in a fresh temporary directory.
///
/// The binary is found next to the test bundle (the build directory of `swift test`, whatever its
/// scratch path), or at `$SECTIONCTL_BINARY`.
final class Sectionctl: Sendable {
    /// A directory of this test's own, removed when the value goes away.
    let directory: URL
    /// The database every run uses unless it passes `--db` itself.
    let databasePath: String

    static let binary: URL = builtProduct("sectionctl")

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sectionctl-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        databasePath = directory.appendingPathComponent("test.db").path
    }

    /// Runs against `backend`: a file as `init()` does, or a new, empty database on the test
    /// PostgreSQL cluster, named by its `postgresql://` URI (`init` creates the schema there).
    init(_ backend: Backend) throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sectionctl-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        switch backend {
        case .sqlite:
            databasePath = directory.appendingPathComponent("test.db").path
        case .postgres:
            guard let cluster = ThrowawayCluster.shared else { throw ClusterError("no PostgreSQL cluster for this test") }
            databasePath = try cluster.newDatabase()
        }
    }

    deinit {
        try? FileManager.default.removeItem(at: directory)
    }

    /// A clean environment: no colour settings, no database variables, a UTF-8 locale.
    static func environment(_ extra: [String: String] = [:]) -> [String: String] {
        // Completion gives up after a second when nothing says otherwise: a loaded test machine
        // may need longer to read the titles (tests of giving up set it back).
        var environment = [
            "PATH": "/usr/bin:/bin", "HOME": NSTemporaryDirectory(), "LANG": "C.UTF-8",
            "SECTIONCTL_COMPLETE_SECONDS": "\(Int(hangGuardSeconds))",
        ]
        environment.merge(extra) { $1 }
        return environment
    }

    /// Runs `sectionctl --db <test.db> <arguments>` with `input` on standard input (a file, so not
    /// a terminal).
    @discardableResult
    func run(_ arguments: [String], input: String = "", environment: [String: String] = [:], database: Bool = true) throws
        -> RunResult
    {
        let process = try launch(arguments, input: input, environment: environment, database: database)
        return try process.finish()
    }

    /// Starts a run without waiting for it.
    func launch(_ arguments: [String], input: String = "", environment: [String: String] = [:], database: Bool = true) throws
        -> Launched
    {
        let id = UUID().uuidString
        let inputURL = directory.appendingPathComponent("\(id).in")
        let outputURL = directory.appendingPathComponent("\(id).out")
        let errorURL = directory.appendingPathComponent("\(id).err")
        try Data(input.utf8).write(to: inputURL)
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let process = Process()
        process.executableURL = Self.binary
        process.arguments = (database ? ["--db", databasePath] : []) + arguments
        process.environment = Self.environment(environment)
        process.currentDirectoryURL = directory
        process.standardInput = try FileHandle(forReadingFrom: inputURL)
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        return Launched(process: process, outputURL: outputURL, errorURL: errorURL)
    }

    /// Creates the database.
    func initialize() throws {
        let result = try run(["init"])
        #expect(result.status == 0, "init failed: \(result.stderr)")
    }

    /// Runs and expects success, returning standard output.
    @discardableResult
    func ok(_ arguments: [String], input: String = "", sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(arguments, input: input)
        #expect(result.status == 0, "sectionctl \(arguments) failed: \(result.stderr)", sourceLocation: sourceLocation)
        return result.stdout
    }

    /// The list's snapshot as `show --json` gives it.
    func snapshot(list: String? = nil, editing: Bool = false) throws -> [String: Any] {
        let arguments = (list.map { ["--list", $0] } ?? []) + ["--json", "show"] + (editing ? ["--editing"] : [])
        let result = try run(arguments)
        #expect(result.status == 0, "\(result.stderr)")
        return try result.json()
    }

    /// Each section's title and its rows' titles, from `show --json`.
    func outline(list: String? = nil) throws -> [String: [String]] {
        var outline: [String: [String]] = [:]
        for section in try snapshot(list: list)["sections"] as? [[String: Any]] ?? [] {
            let rows = section["rows"] as? [[String: Any]] ?? []
            outline[section["title"] as? String ?? "?"] = rows.map { $0["title"] as? String ?? "?" }
        }
        return outline
    }

    /// Section titles in order, each with its rows' titles in order.
    func orderedOutline(list: String? = nil) throws -> [[String]] {
        try (snapshot(list: list)["sections"] as? [[String: Any]] ?? []).map { section in
            [section["title"] as? String ?? "?"] + (section["rows"] as? [[String: Any]] ?? []).map { $0["title"] as? String ?? "?" }
        }
    }

    /// Sets up sections "To do" (Buy milk, Call Mom, Write report) and "Done" (empty).
    func seed() throws {
        try initialize()
        try ok(["section", "add", "To do"])
        try ok(["section", "add", "Done"])
        for title in ["Buy milk", "Call Mom", "Write report"] {
            try ok(["row", "add", "0", title])
        }
    }
}

/// A run that has started.
struct Launched {
    let process: Process
    let outputURL: URL
    let errorURL: URL

    /// Waits for the run to end and collects what it wrote.
    func finish() throws -> RunResult {
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus,
            stdout: String(decoding: try Data(contentsOf: outputURL), as: UTF8.self),
            stderr: String(decoding: try Data(contentsOf: errorURL), as: UTF8.self))
    }
}
