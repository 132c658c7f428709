import Foundation
import TestSupport
import Testing

/// Runs a script in a real shell (bash, zsh or fish) with the built `sectionctl` first on the
/// `PATH`, as completion scripts find it once installed.
enum Shell {
    /// Runs `script` with `shell` in `directory`; returns its status, output and errors. Where
    /// the shell is not installed the test (case) is skipped, saying so (`RequiredTool`).
    static func run(_ shell: String, _ script: String, in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> RunResult
    {
        let path = try RequiredTool.shell(shell).path(sourceLocation: sourceLocation)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: path)
        let arguments: [String]
        switch shell {
        case "zsh": arguments = ["-f", "-c", script]
        case "fish": arguments = ["--no-config", "-c", script]
        default: arguments = ["--noprofile", "--norc", "-c", script]
        }
        process.arguments = arguments
        let binaryDirectory = Sectionctl.binary.deletingLastPathComponent().path
        var environment = Sectionctl.environment(["PATH": binaryDirectory + ":/usr/bin:/bin"])
        environment["XDG_CONFIG_HOME"] = directory.appendingPathComponent("config").path
        environment["XDG_DATA_HOME"] = directory.appendingPathComponent("data").path
        process.environment = environment
        process.currentDirectoryURL = directory
        let output = Pipe()
        let error = Pipe()
        process.standardOutput = output
        process.standardError = error
        process.standardInput = FileHandle.nullDevice
        try process.run()
        let outputData = output.fileHandleForReading.readDataToEndOfFile()
        let errorData = error.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: outputData, as: UTF8.self),
            stderr: String(decoding: errorData, as: UTF8.self))
    }
}
