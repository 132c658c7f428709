import Foundation
import TestSupport
import Testing

/// `sectionctl serve --tls-cert/--tls-key` with a certificate the test makes with `openssl`, and
/// a replica that verifies it: refused while nothing trusts it, accepted where the system's trust
/// store holds it (in a mount namespace of the test's own, over the system's bundle).
@Suite("Serving over TLS", .needs(.openssl), .needs(.mountNamespace))
struct ServeTLSTests {
    @Test func aReplicaVerifiesTheServersCertificate() throws {
        let server = try Sectionctl()
        try server.initialize()
        try server.ok(["section", "add", "To do"])
        let directory = server.directory.path
        let made = Process()
        made.executableURL = URL(fileURLWithPath: try RequiredTool.openssl.path())
        made.arguments = [
            "req", "-x509", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost", "-addext", "subjectAltName=DNS:localhost",
            "-days", "1", "-keyout", "\(directory)/key.pem", "-out", "\(directory)/cert.pem",
        ]
        made.standardError = FileHandle.nullDevice
        try made.run()
        made.waitUntilExit()
        #expect(made.terminationStatus == 0)
        let token = try server.tokenFile()
        let served = try server.serve(["--tls-cert", "\(directory)/cert.pem", "--tls-key", "\(directory)/key.pem"])
        #expect(served.origin.hasPrefix("https://"))
        let address = served.address(of: "default").replacingOccurrences(of: "127.0.0.1", with: "localhost")

        // Nothing trusts the certificate: refused, as a server out of reach is (exit 75), and nothing is left.
        let untrusted = try server.run(["clone", address, "\(directory)/r.db", "--token-file", token], database: false)
        #expect(untrusted.status == 75)
        #expect(untrusted.stderr.contains("certificate"), "\(untrusted.stderr)")
        #expect(!FileManager.default.fileExists(atPath: "\(directory)/r.db"))

        // The certificate in the system's bundle (in this run's mount namespace only): cloned and synced.
        let bundle =
            try String(contentsOfFile: "/etc/ssl/certs/ca-certificates.crt", encoding: .utf8)
            + String(contentsOfFile: "\(directory)/cert.pem", encoding: .utf8)
        try bundle.write(toFile: "\(directory)/bundle.pem", atomically: true, encoding: .utf8)
        func trusting(_ arguments: [String]) throws -> (status: Int32, stderr: String) {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try RequiredTool.mountNamespace.path())
            let command = ([Sectionctl.binary.path] + arguments).map { "'\($0)'" }.joined(separator: " ")
            process.arguments = [
                "--mount", "sh", "-c", "mount --bind '\(directory)/bundle.pem' /etc/ssl/certs/ca-certificates.crt && exec \(command)",
            ]
            process.environment = Sectionctl.environment()
            let errors = Pipe()
            process.standardError = errors
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            let stderr = String(decoding: errors.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            process.waitUntilExit()
            return (process.terminationStatus, stderr)
        }
        let cloned = try trusting(["clone", address, "\(directory)/r.db", "--token-file", token])
        #expect(cloned.status == 0, "\(cloned.stderr)")
        #expect(try server.run(["--db", "\(directory)/r.db", "row", "add", "0", "Over TLS"], database: false).status == 0)
        let synced = try trusting(["--db", "\(directory)/r.db", "sync"])
        #expect(synced.status == 0, "\(synced.stderr)")
        #expect(try server.run(["show"]).stdout.contains("Over TLS"))
        _ = try served.stop()
    }

    @Test func plainHTTPIsServedOnLoopbackOnlyUnlessAskedForByName() throws {
        let server = try Sectionctl()
        try server.initialize()
        let refused = try server.run(["serve", "--listen", "0.0.0.0:0"])
        #expect(refused.status == 2)
        #expect(refused.stderr.contains("--allow-plain-http"), "\(refused.stderr)")
        let halfTLS = try server.run(["serve", "--tls-cert", "cert.pem"])
        #expect(halfTLS.status == 2)
        #expect(halfTLS.stderr.contains("--tls-cert and --tls-key go together"), "\(halfTLS.stderr)")
        // A replica refuses plain http to another machine unless asked for by name.
        let token = try server.tokenFile()
        let clone = try server.run(["clone", "http://lists.example.com/lists/default", "r.db", "--token-file", token], database: false)
        #expect(clone.status == 2)
        #expect(clone.stderr.contains("in the clear"), "\(clone.stderr)")
    }
}
