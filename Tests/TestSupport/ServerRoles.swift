import Foundation
import Postgres
import PostgresCluster
import Synchronization

/// The clusters whose `pg_hba.conf` already asks the password group for a password.
private let passwordLogins = Mutex<Set<ObjectIdentifier>>([])

extension ThrowawayCluster {
    /// The role whose members log in to the test cluster with a password (`scram-sha-256`);
    /// everyone else is trusted, as `initdb -A trust` set it up.
    package static let passwordGroup = "sectionctl_password_login"

    /// A new role that logs in with `password` only, and its name.
    package func newPasswordRole(password: String) throws -> String {
        try requirePasswordLogins()
        let name = Self.newName("pw")
        try connect().execute(script: "CREATE ROLE \(name) LOGIN PASSWORD '\(password)' IN ROLE \(Self.passwordGroup)")
        return name
    }

    /// A new role that logs in without a password, with `attributes` (`CONNECTION LIMIT 0`, …)
    /// and no privileges beyond those every role has; its name.
    package func newRole(_ attributes: String = "") throws -> String {
        let name = Self.newName("role")
        try connect().execute(script: "CREATE ROLE \(name) LOGIN \(attributes)")
        return name
    }

    /// The name of the database a URI of `newDatabase()` names.
    package static func databaseName(of uri: String) -> String {
        String(uri.dropFirst("postgresql:///".count).prefix { $0 != "?" })
    }

    /// A URI of `database` on the cluster for `user`, with `password` in it when given.
    package func uri(database: String, user: String, password: String? = nil) -> String {
        "postgresql://\(user)\(password.map { ":" + $0 } ?? "")@/\(database)?host=\(directory.url.path)"
    }

    /// Puts a line for the password group first in `pg_hba.conf`, once, and waits until the
    /// server uses it (a reload takes effect at some moment after it is asked for).
    private func requirePasswordLogins() throws {
        try passwordLogins.withLock { done in
            guard !done.contains(ObjectIdentifier(self)) else { return }
            let hba = directory.path("data") + "/pg_hba.conf"
            let rules = try String(contentsOfFile: hba, encoding: .utf8)
            try ("local all +\(Self.passwordGroup) scram-sha-256\n" + rules).write(toFile: hba, atomically: false, encoding: .utf8)
            let probe = Self.newName("probe")
            try connect().execute(
                script: """
                    CREATE ROLE \(Self.passwordGroup) NOLOGIN;
                    CREATE ROLE \(probe) LOGIN PASSWORD 'probe' IN ROLE \(Self.passwordGroup);
                    SELECT pg_reload_conf();
                    """)
            let asked = try waitUntil {
                do {
                    _ = try PostgresConnection(connectionString: uri(database: "postgres", user: probe))
                    return false
                } catch let error as PostgresError {
                    return error.needsPassword
                }
            }
            guard asked else { throw ClusterError("the server never asked the password group for a password") }
            done.insert(ObjectIdentifier(self))
        }
    }

    private static func newName(_ prefix: String) -> String {
        prefix + "_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
    }
}

/// A connection of a test's own to a database on the cluster, for the SQL around what the test
/// runs (a lock to hold, a trigger to add, a count to read), for test targets that do not
/// import the PostgreSQL layer themselves.
package final class ServerSession {
    private let connection: PostgresConnection

    /// Connects to the database `uri` names.
    package init(_ uri: String) throws {
        connection = try PostgresConnection(connectionString: uri)
    }

    /// Runs statements.
    package func execute(script sql: String) throws {
        try connection.execute(script: sql)
    }

    /// The first column of the first row of `sql`, as an integer.
    package func int(_ sql: String) throws -> Int64? {
        try connection.execute(sql).int64(0, 0)
    }
}
