import Foundation
import TestSupport
import Testing

/// `sectionctl serve` run as its users run it: a process of its own on a free loopback port.
struct Served {
    let launched: Launched
    /// `http://127.0.0.1:PORT` (`https` with TLS).
    let origin: String

    /// The address of list `name`.
    func address(of name: String) -> String {
        origin + "/lists/" + (name.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? name)
    }

    /// Ends the server as Ctrl-C does, and collects what it wrote.
    func stop() throws -> RunResult {
        launched.process.interrupt()
        return try launched.finish()
    }
}

extension Sectionctl {
    /// Starts `sectionctl serve --listen LISTEN` on the database (with `extra` options) and
    /// waits for the line that says where it listens. By default it takes any free loopback
    /// port; a test that starts the service again where a replica expects it names the port.
    func serve(_ extra: [String] = [], listen: String = "127.0.0.1:0", sourceLocation: SourceLocation = #_sourceLocation) throws -> Served {
        let launched = try launch(["serve", "--listen", listen] + extra)
        func output() -> String { (try? String(contentsOf: launched.outputURL, encoding: .utf8)) ?? "" }
        let started = waitUntil { output().contains("\n") || !launched.process.isRunning }
        let origin = output().firstMatch(of: /https?:\/\/127\.0\.0\.1:[0-9]+/).map { String($0.output) }
        guard started, let origin else {
            if launched.process.isRunning { launched.process.terminate() }
            let result = try launched.finish()
            Issue.record("serve did not start: \(result.stdout) \(result.stderr)", sourceLocation: sourceLocation)
            throw ServeDidNotStart()
        }
        return Served(launched: launched, origin: origin)
    }

    /// A new token of list `list` with `role`, made by `sectionctl token create` and written to
    /// a file in the test's directory, as a user keeps one; the file's path.
    func tokenFile(list: String = "default", role: String = "edit", sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let result = try run(["token", "create", "--list", list, "--role", role])
        #expect(result.status == 0, "\(result.stderr)", sourceLocation: sourceLocation)
        let path = directory.appendingPathComponent("\(list)-\(role)-\(UUID().uuidString.prefix(6)).token").path
        try Data(result.stdout.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }
}

struct ServeDidNotStart: Error {}
