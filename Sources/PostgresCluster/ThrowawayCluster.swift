import Foundation
import Postgres

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A throwaway PostgreSQL cluster for the tests and the benchmark: `initdb` in a temporary
/// directory, a server listening only on a Unix socket there (no TCP), stopped when the value
/// goes away. As root it runs as `nobody` (PostgreSQL refuses to run as root), through `setpriv`.
///
/// Public for the benchmark package, which starts a durable one; the tests share `shared`.
public final class ThrowawayCluster: @unchecked Sendable {
    /// The cluster's directory: its data, its server log and its Unix socket.
    public let directory: ClusterDirectory
    /// The libpq connection string of the cluster's `postgres` database.
    package let connectionString: String
    /// Whether the server syncs its log to disk at every commit (`fsync`, `synchronous_commit`),
    /// as a real server does; off for the tests, which never need to survive a power cut.
    package let durable: Bool
    private let lock = NSLock()
    private var templateReady = false

    /// The cluster a test process shares, started on first use and stopped when the test
    /// process exits; `nil` when PostgreSQL's server programs are not installed.
    package static let shared: ThrowawayCluster? = {
        guard isAvailable else {
            let why =
                isSwitchedOff
                ? "SECTIONCTL_TEST_POSTGRES=0" : "PostgreSQL's server programs (initdb, pg_ctl) are not installed (apt-get install postgresql)"
            FileHandle.standardError.write(Data("note: \(why): the tests on PostgreSQL are skipped\n".utf8))
            return nil
        }
        do {
            let cluster = try ThrowawayCluster()
            sharedForExit = cluster
            atexit {
                guard let cluster = ThrowawayCluster.sharedForExit else { return }
                cluster.stop()
                try? FileManager.default.removeItem(at: cluster.directory.url)
            }
            return cluster
        } catch {
            FileHandle.standardError.write(Data("note: cannot start a PostgreSQL cluster (\(error)): the PostgreSQL suite is skipped\n".utf8))
            return nil
        }
    }()
    nonisolated(unsafe) private static var sharedForExit: ThrowawayCluster?

    /// A libpq URI of a new, empty database on the cluster.
    public func newDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try connect().execute(script: "CREATE DATABASE \(name)")
        return uri(of: name)
    }

    /// A libpq URI of a new database on the cluster that already holds the sectionctl schema,
    /// copied from a template migrated once: quicker than migrating each.
    package func newSectionctlDatabase(migrate: (String) throws -> Void) throws -> String {
        try lock.withLock {
            if !templateReady {
                try connect().execute(script: "CREATE DATABASE sectionctl_template")
                try migrate(uri(of: "sectionctl_template"))
                templateReady = true
            }
        }
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        // CREATE DATABASE … TEMPLATE refuses while another copy is being made: take turns.
        try lock.withLock { _ = try connect().execute(script: "CREATE DATABASE \(name) TEMPLATE sectionctl_template") }
        return uri(of: name)
    }

    /// The URI of database `name` on the cluster, over its Unix socket.
    package func uri(of name: String) -> String {
        "postgresql:///\(name)?host=\(directory.url.path)&user=postgres"
    }

    /// The directory of PostgreSQL's server programs, if they are installed: the one named by
    /// `SECTIONCTL_TEST_POSTGRES_BIN` when it is set (only there), else the first on the `PATH`
    /// that holds `initdb` and `pg_ctl` (as Homebrew installs them), else Debian's
    /// `/usr/lib/postgresql/<version>/bin`, the newest version first.
    package static let binaries: String? = {
        let environment = ProcessInfo.processInfo.environment
        let holdsPrograms = { (directory: String) in
            ["initdb", "pg_ctl"].allSatisfy { FileManager.default.isExecutableFile(atPath: "\(directory)/\($0)") }
        }
        if let directory = environment["SECTIONCTL_TEST_POSTGRES_BIN"] { return holdsPrograms(directory) ? directory : nil }
        if let directory = (environment["PATH"] ?? "").split(separator: ":").map(String.init).first(where: holdsPrograms) {
            return directory
        }
        let root = "/usr/lib/postgresql"
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: root)) ?? []
        for version in versions.sorted(by: >) where FileManager.default.isExecutableFile(atPath: "\(root)/\(version)/bin/initdb") {
            return "\(root)/\(version)/bin"
        }
        return nil
    }()

    /// Whether a cluster can be started here: the server programs are installed (and, as root,
    /// `setpriv` to run them as `nobody`), and `SECTIONCTL_TEST_POSTGRES` is not `0`.
    public static var isAvailable: Bool { !isSwitchedOff && isInstalled }

    /// Whether the server programs are installed (and, as root, `setpriv`).
    package static var isInstalled: Bool {
        binaries != nil && (getuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv"))
    }

    /// `SECTIONCTL_TEST_POSTGRES=0`: run the tests on SQLite only, even where PostgreSQL is installed.
    package static var isSwitchedOff: Bool { ProcessInfo.processInfo.environment["SECTIONCTL_TEST_POSTGRES"] == "0" }

    /// Creates and starts a cluster; `durable` makes it sync every commit to disk, as a real
    /// server does (the benchmark), instead of `fsync=off` and `synchronous_commit=off` (the tests).
    public init(durable: Bool = false) throws {
        guard let binaries = Self.binaries else { throw ClusterError("PostgreSQL's server programs are not installed") }
        self.durable = durable
        directory = try ClusterDirectory()
        chmod(directory.url.path, 0o777)
        let data = directory.path("data")
        connectionString = "host=\(directory.url.path) user=postgres dbname=postgres"
        try Self.run(binaries + "/initdb", ["-D", data, "-A", "trust", "-U", "postgres", "--no-sync", "-E", "UTF8", "--locale=C"])
        try start()
    }

    deinit {
        stop()
    }

    /// Starts the server (again).
    package func start() throws {
        let sync = durable ? "on" : "off"
        try Self.run(
            Self.binaries! + "/pg_ctl",
            [
                "-D", directory.path("data"), "-l", directory.path("server.log"), "-w", "-o",
                "-k \(directory.url.path) -c listen_addresses= -c fsync=\(sync) -c synchronous_commit=\(sync) -c max_connections=400",
                "start",
            ])
    }

    /// Stops the server at once, as a crash or a pulled plug would (`pg_ctl stop -m immediate`).
    public func stop() {
        if let binaries = Self.binaries {
            try? Self.run(binaries + "/pg_ctl", ["-D", directory.path("data"), "-m", "immediate", "-w", "stop"])
        }
    }

    /// A new connection to the cluster.
    public func connect() throws -> PostgresConnection { try PostgresConnection(connectionString: connectionString) }

    /// Runs a server program and waits for it, through `posix_spawn` and `waitpid`: `pg_ctl start`
    /// leaves the server running with every descriptor it inherited, and Foundation's `Process`
    /// waits until those close, so it would wait for the server. Output goes to a file.
    private static func run(_ program: String, _ arguments: [String]) throws {
        let words =
            (getuid() == 0 ? ["/usr/bin/setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", program] : [program])
            + arguments
        let log = NSTemporaryDirectory() + "sectionctl-pg-\(UUID().uuidString).log"
        defer { unlink(log) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        closeInheritedDescriptors(&actions)
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

package struct ClusterError: Error, CustomStringConvertible {
    package let description: String
    package init(_ description: String) { self.description = description }
}

/// The cluster's directory under the system's temporary directory, removed with the value.
public final class ClusterDirectory: Sendable {
    /// Where the directory is.
    public let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "sectionctl-cluster-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` in the directory.
    package func path(_ name: String) -> String { url.appending(path: name).path }
}
