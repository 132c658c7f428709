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
        _ db: PostgresEngine, facts: SchemaFacts, create: Bool, readOnly: Bool, progress: (@Sendable (MigrationProgress) -> Void)?
    ) throws {
        let location = db.maskedTarget
        let version = try inspect(db, facts: facts)
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

    /// What opening a store first reads of the server's catalogue, in one statement.
    struct SchemaFacts {
        /// Whether the `sectionctl` schema exists.
        var exists: Bool
        /// Whether it exists and this user may not use it.
        var unusable: Bool
        /// Whether it holds the ledger of migrations, `sectionctl_migrations`.
        var hasLedger: Bool
        /// The ledger's newest version, read with the rest when the schema is one of ours this
        /// user may use (else `inspect` reads it).
        var version: Int?
        /// Whether this user may read and write `applied_writes`, read with the version.
        var mayRecordWrites: Bool?
    }

    /// Reads `SchemaFacts` in one round trip, with the connection's settings when they are
    /// still to be sent (`PostgresEngine.settingUp(thenQuery:)`).
    static func schemaFacts(_ db: PostgresEngine) throws -> SchemaFacts {
        // The schema's name is this build's constant, not input: it is written into the queries.
        let schema = PostgresEngine.schema
        let catalogue = """
            SELECT count(*), count(*) FILTER (WHERE NOT has_schema_privilege(n.oid, 'USAGE')),
                (SELECT count(*) FROM pg_tables WHERE schemaname = '\(schema)' AND tablename = 'sectionctl_migrations')
            FROM pg_namespace AS n WHERE n.nspname = '\(schema)'
            """
        // The usual case, a schema of ours this user may use, is read whole in one statement;
        // any other (no schema, someone else's, one without the tables) makes it fail, and the
        // catalogue alone says which.
        let usual = """
            SELECT facts.*, (SELECT max(version) FROM \(schema).sectionctl_migrations),
                (SELECT count(*) FROM (VALUES ('SELECT'), ('INSERT'), ('UPDATE'), ('DELETE')) AS p (privilege)
                 WHERE has_table_privilege('\(schema).applied_writes', p.privilege))
            FROM (\(catalogue)) AS facts
            """
        let result: PostgresResult
        var whole = true
        do {
            result = try db.settingUp(thenQuery: usual)
        } catch let error as PostgresError where !error.isConnectionFailure {
            result = try db.settingUp(thenQuery: catalogue)
            whole = false
        }
        guard result.rowCount == 1, let exists = result.int64(0, 0), let unusable = result.int64(0, 1), let ledger = result.int64(0, 2)
        else { throw RepositoryError.inconsistent("the server's catalogue answered nothing about schema \(schema)") }
        var facts = SchemaFacts(exists: exists == 1, unusable: unusable == 1, hasLedger: ledger == 1)
        if whole {
            facts.version = Int(result.int64(0, 3) ?? 0)
            facts.mayRecordWrites = result.int64(0, 4) == 4
        }
        return facts
    }

    /// The schema's version; `nil` when there is no `sectionctl` schema, or an empty one.
    static func inspect(_ db: PostgresEngine, facts: SchemaFacts) throws -> Int? {
        let schema = PostgresEngine.schema
        guard facts.exists else { return nil }
        if !facts.hasLedger {
            let objects =
                try db.scalarInt("SELECT count(*) FROM pg_class AS c JOIN pg_namespace AS n ON n.oid = c.relnamespace WHERE n.nspname = ?", schema)
                ?? 0
            if objects == 0 { return nil }
            throw RepositoryError.notOurDatabase(path: "\(db.maskedTarget) (schema \(schema))")
        }
        let version = try facts.version ?? Int(db.scalarInt("SELECT max(version) FROM sectionctl_migrations") ?? 0)
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
