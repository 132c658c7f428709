import Foundation
import Glibc
import Postgres
import TestSupport

/// A throwaway PostgreSQL cluster of the test's own: `initdb` in a temporary directory, a server
/// listening only on a Unix socket there (no TCP), stopped when the value goes away. As root it
/// runs as `nobody` (PostgreSQL refuses to run as root), through `setpriv`.
final class TestCluster {
    let directory: TemporaryDirectory
    /// The libpq connection string of the cluster's `postgres` database.
    let connectionString: String

    /// The directory of PostgreSQL's server programs, if they are installed.
    static let binaries: String? = {
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for version in versions.sorted(by: >) where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        return nil
    }()

    static var isAvailable: Bool {
        binaries != nil && (getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    }

    init() throws {
        guard let binaries = Self.binaries else { throw ClusterError("PostgreSQL's server programs are not installed") }
        directory = try TemporaryDirectory()
        chmod(directory.url.path, 0o777)
        let data = directory.path("data")
        connectionString = "host=\(directory.url.path) user=postgres dbname=postgres"
        try Self.run(binaries + "/initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
        try Self.run(
            binaries + "/pg_ctl",
            ["-D", data, "-l", directory.path("server.log"), "-w", "-o",
             "-k \(directory.url.path) -c listen_addresses= -c fsync=off -c synchronous_commit=off", "start"])
    }

    deinit {
        if let binaries = Self.binaries {
            try? Self.run(binaries + "/pg_ctl", ["-D", directory.path("data"), "-m", "immediate", "-w", "stop"])
        }
    }

    /// A new connection to the cluster.
    func connect() throws -> PostgresConnection { try PostgresConnection(connectionString: connectionString) }

    /// Runs a server program and waits for it, through `posix_spawn` and `waitpid`: `pg_ctl start`
    /// leaves the server running with every descriptor it inherited, and Foundation's `Process`
    /// waits until those close, so it would wait for the server. Output goes to a file.
    private static func run(_ program: String, _ arguments: [String]) throws {
        let words = (getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", program] : [program])
            + arguments
        let log = NSTemporaryDirectory() + "sectionctl-pg-\(UUID().uuidString).log"
        defer { unlink(log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        let argv = words.map { strdup($0) } + [nil]
        defer { for word in argv { free(word) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, words[0], &actions, nil, argv, environ)
        guard spawned == 0 else { throw ClusterError("cannot run \(words[0]): \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        let exited = (status & 0x7f) == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
        guard exited == 0 else {
            let text = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
            throw ClusterError("\((program as NSString).lastPathComponent) failed (\(exited)): \(text)")
        }
    }
}

struct ClusterError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
