import Foundation
import Testing

/// Runs a script in a real shell (bash, zsh or fish) with the built `sectionctl` first on the
/// `PATH`, as completion scripts find it once installed.
enum Shell {
    /// The shell's path, or `nil` when it is not installed (`.ci/run` installs all three).
    static func path(of shell: String) -> String? {
        ["/usr/bin/\(shell)", "/bin/\(shell)", "/usr/local/bin/\(shell)"].first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Runs `script` with `shell` in `directory`; returns its status, output and errors.
    static func run(_ shell: String, _ script: String, in directory: URL, sourceLocation: SourceLocation = #_sourceLocation) throws
        -> RunResult?
    {
        guard let path = path(of: shell) else {
            Issue.record("\(shell) is not installed; .ci/run installs it (apt-get install \(shell))", sourceLocation: sourceLocation)
            return nil
        }
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
