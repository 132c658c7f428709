import Foundation
import PostgresCluster
import TestSupport

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tmux server of a test's own (a socket in a directory of its own) with one window running a
/// shell, so a test can start `sectionctl ui` in a real terminal, press keys (`send-keys`) and
/// read the screen (`capture-pane`).
final class Tmux {
    /// The tmux program, or nil when it cannot be found (the tests that need it say
    /// `.needs(.tmux)`, and are skipped).
    static let executable: String? = RequiredTool.onPath("tmux")

    /// A directory of the server's own (its socket), outside the test's directory so that the
    /// server is stopped before the test's files go.
    private let directory: URL
    private let socket: String
    private let target = "ui"
    /// The server's process id, to stop it even if `kill-server` cannot.
    private var serverID: pid_t = 0

    /// Starts a server with one `columns`×`rows` window running `sh`, with the tests' clean
    /// environment plus `environment`, and waits for its prompt.
    init(columns: Int = 100, rows: Int = 24, environment: [String: String] = [:]) throws {
        self.directory = FileManager.default.temporaryDirectory.appendingPathComponent("sectionctl-tmux-\(UUID().uuidString.prefix(8))")
        try FileManager.default.createDirectory(at: self.directory, withIntermediateDirectories: true)
        socket = self.directory.appendingPathComponent("socket").path
        var environment = Sectionctl.environment(environment)
        environment["PS1"] = "ready$ "
        environment["SHELL"] = "/bin/sh"
        try run(["new-session", "-d", "-s", target, "-x", "\(columns)", "-y", "\(rows)", "/bin/sh"], environment: environment)
        // Keys go to the program at once, and the window keeps its size without a client.
        try run(["set-option", "-g", "escape-time", "0"])
        try run(["set-option", "-g", "window-size", "manual"])
        serverID = pid_t(try run(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)) ?? 0
        guard waitFor({ $0.contains("ready$") }) != nil else { throw TmuxError("the shell in tmux did not start") }
    }

    deinit {
        // The server hangs up on the programs in its window as it goes.
        if (try? run(["kill-server"])) == nil, serverID > 0 { kill(serverID, SIGTERM) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Runs a tmux command on this server and returns its output.
    ///
    /// The command is started with `posix_spawn` and waited for with `waitpid`, and its output
    /// goes through a file: the server that the first command starts keeps what it inherits
    /// open, which leaves a pipe without an end and a Foundation `Process` waiting for ever.
    @discardableResult
    func run(_ arguments: [String], environment: [String: String]? = nil) throws -> String {
        guard let executable = Self.executable else { throw TmuxError("tmux not found") }
        let outputPath = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString).out").path
        defer { try? FileManager.default.removeItem(atPath: outputPath) }
        let argv = [executable, "-S", socket, "-f", "/dev/null"] + arguments
        let envp = (environment ?? Sectionctl.environment()).map { "\($0.key)=\($0.value)" }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        closeInheritedDescriptors(&actions)
        // Signals as a fresh program expects them: none blocked (the test runner's threads
        // block some, and a spawned program inherits that), each doing what it does by default.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        var allSignals = sigset_t()
        sigfillset(&allSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        posix_spawnattr_setsigdefault(&attributes, &allSignals)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var pid: pid_t = 0
        let spawned = withCStrings(argv) { argv in
            withCStrings(envp) { envp in posix_spawn(&pid, executable, &actions, &attributes, argv, envp) }
        }
        guard spawned == 0 else { throw TmuxError("cannot start tmux: error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let output = (try? String(contentsOfFile: outputPath, encoding: .utf8)) ?? ""
        guard status == 0 else { throw TmuxError("tmux \(arguments.first ?? "") failed (status \(status))") }
        return output
    }

    /// Types text literally.
    func type(_ text: String) throws {
        try run(["send-keys", "-t", target, "-l", text])
    }

    /// Presses keys by tmux's names: `Up`, `Down`, `Space`, `Escape`, `C-c`, `NPage`, or a letter.
    func press(_ keys: String...) throws {
        for key in keys {
            try run(["send-keys", "-t", target, key])
        }
    }

    /// Sends bytes as they are (`send-keys -H`), whether or not they make characters or keys.
    func send(bytes: [UInt8]) throws {
        for start in stride(from: 0, to: bytes.count, by: 500) {
            let hex = bytes[start..<min(bytes.count, start + 500)].map { String($0, radix: 16) }
            try run(["send-keys", "-t", target, "-H"] + hex)
        }
    }

    /// Runs a command line in the window's shell, then prints `ui exited STATUS` when it ends.
    func start(_ command: String) throws {
        try type(command + "; echo \"ui exited $?\"")
        try press("Enter")
    }

    /// The screen as text, one line per row.
    func screen() throws -> String {
        try run(["capture-pane", "-p", "-t", target])
    }

    /// The screen for a failure message (empty if it cannot be read).
    var shown: String { (try? screen()) ?? "" }

    /// The screen with its colours and attributes as escape sequences.
    func screenWithAttributes() throws -> String {
        try run(["capture-pane", "-p", "-e", "-t", target])
    }

    /// Whether the window shows the alternate screen (a full-screen program is running).
    func isAlternateScreen() throws -> Bool {
        try run(["display-message", "-p", "-t", target, "#{alternate_on}"]).trimmingCharacters(in: .whitespacesAndNewlines) == "1"
    }

    /// Reads the screen until `predicate` holds (returning that screen), or (against a hang)
    /// `seconds` pass (nil).
    func waitFor(seconds: Double = hangGuardSeconds, _ predicate: (String) -> Bool) -> String? {
        let deadline = Date().addingTimeInterval(seconds)
        repeat {
            if let screen = try? screen(), predicate(screen) { return screen }
            Thread.sleep(forTimeInterval: 0.02)
        } while Date() < deadline
        return nil
    }

    /// Reads the screen until it contains `text`.
    func waitFor(_ text: String, seconds: Double = hangGuardSeconds) -> String? {
        waitFor(seconds: seconds) { $0.contains(text) }
    }
}

/// Calls `body` with `strings` as a NULL-terminated array of C strings.
private func withCStrings<T>(_ strings: [String], _ body: ([UnsafeMutablePointer<CChar>?]) -> T) -> T {
    var pointers: [UnsafeMutablePointer<CChar>?] = strings.map { strdup($0) }
    pointers.append(nil)
    defer { for pointer in pointers { free(pointer) } }
    return body(pointers)
}

struct TmuxError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}
