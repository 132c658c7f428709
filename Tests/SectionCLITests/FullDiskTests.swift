import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Reads work on a full disk, so that the data can be copied off; writes fail cleanly and write
/// nothing. Where the tests may mount a file system (root on Linux) they fill a small tmpfs of
/// their own to the last byte; everywhere they also run the binary with no file allowed to grow
/// (`RLIMIT_FSIZE` 0), which refuses the same room a full disk does.
@Suite struct FullDiskTests {
    /// The reads a person copying the data off would run, and the state of the database.
    static let reads: [[String]] = [
        ["show"], ["--json", "show"], ["show", "--editing"], ["show", "--from", "0:1", "--limit", "2"], ["row", "get", "0:1"],
        ["--json", "row", "get", "#2"], ["export"], ["export", "--all"], ["check"], ["changes", "--since", "0"],
        ["--json", "changes", "--since", "2"], ["list", "ls"], ["--json", "list", "ls"], ["--list", "other", "show"],
    ]

    /// Writes of every kind.
    static func writes(importing file: String) -> [[String]] {
        [
            ["section", "add", "New"], ["row", "add", "0", "New"], ["row", "move", "0:0", "0:1"], ["row", "delete", "0:0"],
            ["section", "rename", "0", "Renamed"], ["undo"], ["list", "add", "third"], ["import", file],
        ]
    }

    /// A database with two lists, rows, a field with a value, and some history.
    static func populate(_ run: ([String]) throws -> RunResult) throws {
        for arguments in [
            ["init"], ["section", "add", "To do"], ["section", "add", "Done"], ["row", "add", "0", "Buy milk"], ["row", "add", "0", "Call Mom"],
            ["row", "add", "0", "Name", "--kind", "field", "--value", "Ada"], ["row", "move", "0:0", "1:0"], ["list", "add", "other"],
            ["--list", "other", "section", "add", "Elsewhere"],
        ] {
            let result = try run(arguments)
            #expect(result.status == 0, "\(arguments): \(result.stderr)")
        }
    }

    /// A file to import: what the writes would add.
    static func importFile(in directory: URL) throws -> String {
        let path = directory.appendingPathComponent("import.json").path
        let document = #"{"format": "sectionctl", "version": 1, "lists": [{"name": "third", "sections": [{"title": "T", "rows": []}]}]}"#
        try Data(document.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    @Test(.enabled(if: SmallFileSystem.canMount, "mounting a tmpfs needs root; the file-size test runs without"))
    func readsWorkOnAFullFileSystemAndWritesSayTheDiskIsFull() throws {
        let disk = try SmallFileSystem()
        let cli = try Sectionctl()
        let database = disk.directory.appendingPathComponent("full.db").path
        // SQLite's temporary files on the full disk too.
        func run(_ arguments: [String]) throws -> RunResult {
            try cli.run(["--db", database] + arguments, environment: ["SQLITE_TMPDIR": disk.directory.path], database: false)
        }
        try Self.populate(run)
        let before = try Self.reads.map(run)
        for (arguments, result) in zip(Self.reads, before) { #expect(result.status == 0, "\(arguments): \(result.stderr)") }

        try disk.fill()
        #expect(disk.freeBytes == 0)
        for (arguments, expected) in zip(Self.reads, before) {
            let result = try run(arguments)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments) on a full disk: \(result.stderr)")
            #expect(result.stdout == expected.stdout, "\(arguments) reads the same on a full disk")
        }
        for arguments in Self.writes(importing: try Self.importFile(in: cli.directory)) {
            let result = try run(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr == "sectionctl: error: the disk is full; nothing was written\n", "\(arguments)")
        }
        // Following changes needs a second connection, and room for it: refused, saying so.
        let watch = try run(["watch"])
        #expect(watch.status == 1)
        #expect(
            watch.stderr
                == "sectionctl: error: cannot open \(database): the disk has no room for \(database)-shm, which watching needs (show, export, check and edit work)\n"
        )
        // An edit session reads on the store's own connection: it opens and shows its draft; a
        // save fails as every write does, writing nothing.
        let editing = try cli.run(
            ["--db", database, "edit"], input: "row move 0:0 1:0\nshow\nsave\n", environment: ["SQLITE_TMPDIR": disk.directory.path], database: false)
        #expect(editing.stdout.contains("Buy milk"), "\(editing.stdout) \(editing.stderr)")
        #expect(editing.status == 1 && editing.stderr.contains("the disk is full; nothing was written"), "\(editing.stderr)")

        disk.free()
        for (arguments, expected) in zip(Self.reads, before) {
            #expect(try run(arguments).stdout == expected.stdout, "\(arguments): nothing was written")
        }
        #expect(try run(["section", "add", "New"]).status == 0, "with room again, writes work")
    }

    @Test func readsWorkWhenNoFileMayGrowAndWritesFailWritingNothing() throws {
        let cli = try Sectionctl()
        func run(_ arguments: [String]) throws -> RunResult { try cli.run(arguments) }
        func limited(_ arguments: [String]) throws -> RunResult {
            try Self.runWithoutGrowing([Sectionctl.binary.path, "--db", cli.databasePath] + arguments, in: cli.directory)
        }
        try Self.populate(run)
        let before = try Self.reads.map(run)
        for (arguments, expected) in zip(Self.reads, before) {
            let result = try limited(arguments)
            #expect(result.status == 0 && result.stderr.isEmpty, "\(arguments) with no room to grow a file: \(result.stderr)")
            #expect(result.stdout == expected.stdout, "\(arguments)")
        }
        for arguments in Self.writes(importing: try Self.importFile(in: cli.directory)) {
            let result = try limited(arguments)
            #expect(result.status == 1, "\(arguments): \(result.stderr)")
            #expect(result.stderr.hasPrefix("sectionctl: error: ") && result.stderr.filter { $0 == "\n" }.count == 1, "\(result.stderr)")
        }
        for (arguments, expected) in zip(Self.reads, before) {
            #expect(try run(arguments).stdout == expected.stdout, "\(arguments): nothing was written")
        }
    }

    /// Runs `arguments` with `RLIMIT_FSIZE` at 0 (and `SIGXFSZ` ignored, so a refused write is an
    /// error, not a signal); output through pipes, which the limit does not touch.
    static func runWithoutGrowing(_ arguments: [String], in directory: URL) throws -> RunResult {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #"trap '' XFSZ; ulimit -f 0 && exec "$@""#, "sh"] + arguments
        process.environment = Sectionctl.environment()
        process.currentDirectoryURL = directory
        let output = Pipe()
        let error = Pipe()
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = output
        process.standardError = error
        try process.run()
        // Both pipes at once: a full one would stop the process.
        let errors = ErrorBox()
        let reader = Thread { errors.data = error.fileHandleForReading.readDataToEndOfFile() }
        reader.start()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        #expect(waitUntil { errors.isDone }, "standard error did not end")
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errors.data, as: UTF8.self))
    }

    /// Standard error as a thread reads it.
    private final class ErrorBox: @unchecked Sendable {
        private let lock = NSLock()
        private var stored: Data?
        var data: Data {
            get { lock.withLock { stored ?? Data() } }
            set { lock.withLock { stored = newValue } }
        }
        var isDone: Bool { lock.withLock { stored != nil } }
    }
}

/// A tmpfs of 1 MiB mounted on a directory of its own, unmounted when the value goes away.
final class SmallFileSystem {
    let directory: URL
    private var filler: URL { directory.appendingPathComponent("filler") }

    /// Whether this process may mount one (tried once, then unmounted).
    static let canMount: Bool = (try? SmallFileSystem()) != nil

    init() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("sectionctl-fullfs-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        guard Self.system(["mount", "-t", "tmpfs", "-o", "size=1m", "tmpfs", directory.path]) == 0 else {
            try? FileManager.default.removeItem(at: directory)
            throw SmallFileSystemError()
        }
    }

    deinit {
        _ = Self.system(["umount", directory.path])
        try? FileManager.default.removeItem(at: directory)
    }

    /// The bytes still free.
    var freeBytes: UInt64 {
        var info = statvfs()
        guard statvfs(directory.path, &info) == 0 else { return .max }
        return UInt64(info.f_bavail) * UInt64(info.f_frsize)
    }

    /// Writes a file until no byte more fits.
    func fill() throws {
        let descriptor = open(filler.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        guard descriptor >= 0 else { throw SmallFileSystemError() }
        defer { close(descriptor) }
        var size = 65_536
        let zeros = [UInt8](repeating: 0, count: size)
        while size > 0 {
            while zeros.withUnsafeBytes({ write(descriptor, $0.baseAddress, size) }) == size {}
            size /= 2
        }
    }

    /// Makes room again.
    func free() {
        unlink(filler.path)
    }

    private static func system(_ arguments: [String]) -> Int32 {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = arguments
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return -1 }
        process.waitUntilExit()
        return process.terminationStatus
    }
}

struct SmallFileSystemError: Error {}
