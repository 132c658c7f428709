import Postgres
import Repository

/// Brings a server's `sectionctl` schema to this build's version, after checking that it is ours.
///
/// The PostgreSQL migrations (`Migrations/postgres/NNNN_name.sql`, embedded like SQLite's) are
/// recorded in `sectionctl.sectionctl_migrations`. Each runs in a transaction of its own that
/// first takes an advisory lock, so that clients migrating at once apply each migration once.
enum PostgresMigrator {
    /// The newest schema version this build knows for a server.
    static var latestVersion: Int { EmbeddedMigration.postgres.last?.version ?? 0 }

    /// The advisory lock migrations hold: "SECT" in ASCII.
    static let lockKey: Int64 = 0x5345_4354

    /// Refuses a schema that is not ours or is newer, creates it with `create`, and migrates it.
    static func prepare(
        _ db: PostgresEngine, create: Bool, readOnly: Bool, progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws {
        let location = db.maskedTarget
        let version = try inspect(db)
        if version == nil && !create {
            throw RepositoryError.databaseMissing(path: "\(location) (no \(PostgresEngine.schema) schema)")
        }
        if version != latestVersion {
            if readOnly { throw RepositoryError.readOnly(path: location) }
            try migrate(db, progress: progress)
        }
        if readOnly {
            try db.execute(script: "SET default_transaction_read_only = on")
        }
    }

    /// The schema's version; `nil` when there is no `sectionctl` schema, or an empty one.
    static func inspect(_ db: PostgresEngine) throws -> Int? {
        let schema = PostgresEngine.schema
        guard try db.scalarInt("SELECT count(*) FROM pg_namespace WHERE nspname = ?", schema) == 1 else { return nil }
        let hasLedger = try db.scalarInt("SELECT count(*) FROM pg_tables WHERE schemaname = ? AND tablename = 'sectionctl_migrations'", schema) == 1
        if !hasLedger {
            let objects =
                try db.scalarInt("SELECT count(*) FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE n.nspname = ?", schema)
                ?? 0
            if objects == 0 { return nil }
            throw RepositoryError.notOurDatabase(path: "\(db.maskedTarget) (schema \(schema))")
        }
        let version = Int(try db.scalarInt("SELECT max(version) FROM sectionctl_migrations") ?? 0)
        guard version <= latestVersion else {
            throw RepositoryError.newerSchema(path: db.maskedTarget, found: version, known: latestVersion)
        }
        return version
    }

    /// Applies every migration newer than the schema's version.
    static func migrate(_ db: PostgresEngine, progress: (@Sendable (MigrationProgress) -> Void)?) throws {
        let schema = PostgresEngine.schema
        for migration in EmbeddedMigration.postgres {
            try db.inTransaction(.write) {
                try db.run("SELECT pg_advisory_xact_lock(?)", lockKey)
                try db.execute(
                    script: """
                        CREATE SCHEMA IF NOT EXISTS \(schema);
                        CREATE TABLE IF NOT EXISTS \(schema).sectionctl_migrations (
                            version    bigint PRIMARY KEY,
                            name       text NOT NULL,
                            applied_at timestamptz NOT NULL DEFAULT now()
                        )
                        """)
                let current = try db.scalarInt("SELECT max(version) FROM sectionctl_migrations") ?? 0
                guard migration.version > current else { return }
                progress?(
                    MigrationProgress(
                        name: "\(String(migration.version).leftPadded(to: 4))_\(migration.name)", number: migration.version,
                        count: EmbeddedMigration.postgres.count))
                try db.execute(script: migration.sql)
                try db.run("INSERT INTO sectionctl_migrations (version, name) VALUES (?, ?)", migration.version, migration.name)
            }
        }
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        String(repeating: "0", count: max(0, width - count)) + self
    }
}
