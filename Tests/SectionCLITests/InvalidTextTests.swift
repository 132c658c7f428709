import Foundation
import Testing

/// Text that is not UTF-8 is refused (exit 65), never stored with replacement characters.
@Suite("Invalid UTF-8")
struct InvalidTextTests {
    /// Runs `sectionctl --db DB` with a last argument holding a byte that is not UTF-8, through
    /// `sh` (Foundation's `Process` only passes valid text).
    func runWithInvalidArgument(_ cli: Sectionctl, _ arguments: [String]) throws -> RunResult {
        let process = Process()
        let output = Pipe()
        let errors = Pipe()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #""$@" "$(printf 'bad\377text')""#, "sh", Sectionctl.binary.path, "--db", cli.databasePath] + arguments
        process.environment = Sectionctl.environment()
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        let out = output.fileHandleForReading.readDataToEndOfFile()
        let err = errors.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: out, as: UTF8.self),
            stderr: String(decoding: err, as: UTF8.self))
    }

    @Test func anArgumentThatIsNotUTF8IsRefusedAndNothingIsWritten() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let before = try cli.orderedOutline()
        let result = try runWithInvalidArgument(cli, ["row", "add", "0"])
        #expect(result.status == 65)
        #expect(result.stderr == "sectionctl: error: argument 6 is not valid UTF-8 text\n")
        #expect(try cli.orderedOutline() == before)
    }

    @Test func anEditLineThatIsNotUTF8AbortsThePipedSession() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let before = try cli.orderedOutline()
        var raw = Data("row add 0 fine\nrow add 0 bad".utf8)
        raw.append(0xFF)
        raw.append(Data("\nsave\n".utf8))
        let path = cli.directory.appendingPathComponent("invalid.in")
        try raw.write(to: path)
        let process = Process()
        process.executableURL = Sectionctl.binary
        process.arguments = ["--db", cli.databasePath, "edit"]
        process.environment = Sectionctl.environment()
        process.standardInput = try FileHandle(forReadingFrom: path)
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = Pipe()
        try process.run()
        let err = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        #expect(process.terminationStatus == 65)
        #expect(err == "sectionctl: error: line 2: the line is not valid UTF-8 text\n")
        #expect(try cli.orderedOutline() == before)
    }
}
