import Foundation
import Postgres
import PostgresCluster
import Repository
import RepositoryPostgres
import SQLite

// What every test target shares: temporary directories, fresh databases, a seedable generator
// and the seeds of the property tests. Declarations are `package`: the package's tests see them.

/// A directory under the system's temporary directory, removed when the value is deinitialised.
package final class TemporaryDirectory {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "sectionctl-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` in the directory.
    package func path(_ name: String) -> String { url.appending(path: name).path }
}

extension ThrowawayCluster {
    /// The test process's cluster (`shared`), for stores opened with `server: .postgres`, as the
    /// command line opens them.
    package static var forStores: ThrowawayCluster? { shared }
}

/// The storage backends the conformance suite runs against.
package enum Backend: String, Sendable, CustomStringConvertible {
    /// A SQLite file in a temporary directory.
    case sqlite
    /// A fresh database on the test process's own PostgreSQL cluster (`ThrowawayCluster.shared`).
    case postgres

    /// SQLite, and PostgreSQL when its server programs are installed (else the PostgreSQL suite
    /// is skipped, and the test process says so on standard error).
    package static var all: [Backend] { ThrowawayCluster.shared == nil ? [.sqlite] : [.sqlite, .postgres] }

    package var description: String { rawValue }
}

/// A fresh database — a file in a temporary directory, or a new database on the test
/// PostgreSQL cluster — that lives as long as the fixture.
package struct StoreFixture {
    package let directory: TemporaryDirectory
    package let store: SectionStore
    package let backend: Backend
    /// The database file's path; for a server, its URI.
    package var path: String { store.path }
    /// Where the database is.
    package var location: StoreLocation { store.location }
    /// The list every new database has, `default` (`SectionStore.defaultList`).
    package var list: ListHandle { store.list(SectionStore.defaultList) }

    package init(_ backend: Backend = .sqlite, name: String = "test.db") throws {
        self.backend = backend
        directory = try TemporaryDirectory()
        switch backend {
        case .sqlite:
            store = try SectionStore(path: directory.path(name), create: true)
        case .postgres:
            guard let cluster = ThrowawayCluster.forStores else { throw ClusterError("no PostgreSQL cluster for this test") }
            let uri = try cluster.newSectionctlDatabase {
                _ = try SectionStore(location: .server(connectionString: $0), server: .postgres, create: true)
            }
            store = try SectionStore(location: .server(connectionString: uri), server: .postgres)
        }
    }

    /// Opens a second store on the same database, as another part of a program would.
    package func reopen() throws -> SectionStore { try SectionStore(location: location, server: .postgres) }

    /// Runs `sql` on the database as a user of the `sqlite3` shell or `psql` would, outside
    /// sectionctl (on a server, with the `sectionctl` schema first in the search path).
    package func plainSQL(_ sql: String) throws {
        switch location {
        case .file(let path):
            try Connection(path: path, mode: .readWrite).execute(script: sql)
        case .server(let uri):
            try PostgresConnection(connectionString: uri).execute(script: "SET search_path = sectionctl; " + sql)
        }
    }

    /// The first column of the first row of `sql`, read outside sectionctl, as an integer.
    package func plainInt(_ sql: String) throws -> Int64? {
        switch location {
        case .file(let path):
            return try Connection(path: path, mode: .readOnly).scalarInt(sql)
        case .server(let uri):
            let db = try PostgresConnection(connectionString: uri)
            try db.execute(script: "SET search_path = sectionctl")
            return try db.execute(sql).int64(0, 0)
        }
    }
}

/// Runs `sql` on the database file at `path` as a user of the `sqlite3` shell would (foreign keys
/// off), past the schema's guards: the triggers named `guard_…` are dropped for it and put back
/// after, and CHECK constraints are ignored, so that the damage is made whatever the schema
/// refuses — and only that damage (the guards are whole again afterwards).
package func tamper(path: String, _ sql: String) throws {
    let db = try Connection(path: path, mode: .readWrite)
    try db.execute(script: "PRAGMA foreign_keys = OFF; PRAGMA ignore_check_constraints = ON")
    let guards = try db.query("SELECT name, sql FROM sqlite_schema WHERE type = 'trigger' AND name LIKE 'guard\\_%' ESCAPE '\\'") {
        ($0.string(0), $0.string(1))
    }
    for (name, _) in guards { try db.execute(script: "DROP TRIGGER \"\(name)\"") }
    try db.execute(script: sql)
    for (_, definition) in guards { try db.execute(script: definition) }
}

/// A small, fast, seedable generator (SplitMix64), so a failing run can be repeated.
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Seeds for the property tests: a few fixed ones, plus `SECTIONCTL_TEST_SEED` when set.
package func propertySeeds(_ fixed: [UInt64]) -> [UInt64] {
    if let text = ProcessInfo.processInfo.environment["SECTIONCTL_TEST_SEED"], let seed = UInt64(text) {
        return fixed + [seed]
    }
    return fixed
}

/// How long a test waits for an event (a line, an exit, a lock, a notification) before it calls
/// the wait a hang and fails: minutes, so that only a test that would never end runs into it,
/// however loaded the machine. Tests wait for events, never for a time to pass.
package let hangGuardSeconds: Double = 300

/// Checks `condition` every few milliseconds until it holds, and returns true; false only if it
/// still does not hold after `seconds` (a hang). For events that give no signal of their own
/// (a file growing, a server's view of its clients), polled as often as is cheap.
package func waitUntil(seconds: Double = hangGuardSeconds, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while true {
        if try condition() { return true }
        if Date() >= deadline { return false }
        Thread.sleep(forTimeInterval: 0.01)
    }
}

/// `waitUntil` for async tests: sleeps between looks instead of blocking a thread of the
/// cooperative pool, which the work being waited for may need.
package func eventually(seconds: Double = hangGuardSeconds, _ condition: () throws -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .seconds(seconds)
    while true {
        if try condition() { return true }
        if ContinuousClock.now >= deadline { return false }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Whether the tests run at the sizes that make them slow (`SECTIONCLI_TEST_LARGE=1`): by
/// default they use small sizes that test the same behaviour.
package var largeTestsEnabled: Bool { ProcessInfo.processInfo.environment["SECTIONCLI_TEST_LARGE"] == "1" }

/// An executable product of this package as `swift build` left it: next to the test bundle
/// (the build directory of `swift test`, whatever its scratch path), in the package's own
/// `.build/debug`, or at `$<NAME>_BINARY` (`SECTIONCTL_BINARY`) when that is set.
/// The package's root directory (where `Package.swift` is), from this file's place in
/// `Tests/TestSupport`: what tests read the README, docs and migrations from, wherever their own
/// files sit.
package let packageRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
    .deletingLastPathComponent()

package func builtProduct(_ name: String) -> URL {
    let variable = name.uppercased().replacingOccurrences(of: "-", with: "_") + "_BINARY"
    if let path = ProcessInfo.processInfo.environment[variable] {
        return URL(fileURLWithPath: path)
    }
    var candidates: [URL] = []
    if let executable = Bundle.main.executableURL { candidates.append(executable.deletingLastPathComponent()) }
    candidates.append(Bundle.main.bundleURL.deletingLastPathComponent())
    candidates.append(Bundle.main.bundleURL)
    candidates.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
    // The package's own .build.
    candidates.append(packageRoot.appendingPathComponent(".build/debug"))
    for directory in candidates {
        let binary = directory.appendingPathComponent(name)
        var isDirectory: ObjCBool = false
        if FileManager.default.fileExists(atPath: binary.path, isDirectory: &isDirectory), !isDirectory.boolValue {
            return binary
        }
    }
    return candidates[0].appendingPathComponent(name)
}
