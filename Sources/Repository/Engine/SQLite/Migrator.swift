import SQLite

/// One schema migration, embedded from `Migrations/NNNN_name.sql` at build time.
package struct EmbeddedMigration: Sendable {
    /// The number at the start of the file name.
    package let version: Int
    /// The rest of the file name, without the extension.
    package let name: String
    /// The file's SQL.
    package let sql: String

    /// The line that lets a migration rewrite table definitions in `sqlite_schema` in place
    /// (`Connection.rewritingSchema(_:)`): for a change to a constraint that no row can fail,
    /// which would otherwise mean copying the table.
    static let schemaRewriteMarker = "-- sectionctl: rewrites sqlite_schema"

    /// Whether a line of the migration is `schemaRewriteMarker`.
    var rewritesSchema: Bool {
        sql.split(separator: "\n").contains { $0 == Self.schemaRewriteMarker }
    }
}

/// Applies the embedded migrations to a database, after checking that the file is ours.
///
/// Applied migrations are recorded in `sectionctl_migrations` (version, name, time) and in
/// `PRAGMA user_version`. Each runs in its own transaction with foreign keys off, and the
/// foreign-key check must find no more violations than before it, or it does not commit.
enum Migrator {
    /// `PRAGMA application_id` of a sectionctl database: "SECT" in ASCII.
    static let applicationID: Int64 = 0x5345_4354

    /// The newest schema version this build knows.
    static var latestVersion: Int { EmbeddedMigration.all.last?.version ?? 0 }

    /// What is in a database file, read without writing anything.
    enum Inspection: Equatable {
        /// No schema at all: a new or empty file.
        case empty
        /// Ours, at this schema version.
        case ours(version: Int)
    }

    /// Reads the file's schema and refuses a file that is not SQLite, not ours, or newer.
    static func inspect(_ db: Connection) throws -> Inspection {
        let objectCount: Int64
        do {
            objectCount = try db.scalarInt("SELECT count(*) FROM sqlite_schema") ?? 0
        } catch let error as SQLiteError where error.isNotADatabase {
            throw RepositoryError.notADatabase(path: db.path)
        }
        if objectCount == 0 {
            return .empty
        }
        let applicationID = try db.scalarInt("PRAGMA application_id") ?? 0
        let hasLedger =
            try db.scalarInt(
                "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'sectionctl_migrations'") ?? 0
        guard applicationID == Self.applicationID, hasLedger == 1 else {
            throw RepositoryError.notOurDatabase(path: db.path)
        }
        let recorded = Int(try db.scalarInt("SELECT max(version) FROM sectionctl_migrations") ?? 0)
        let userVersion = Int(try db.scalarInt("PRAGMA user_version") ?? 0)
        let version = max(recorded, userVersion)
        guard version <= latestVersion else {
            throw RepositoryError.newerSchema(path: db.path, found: version, known: latestVersion)
        }
        return .ours(version: version)
    }

    /// Applies every migration newer than the database's version, up to `last` (this build's
    /// newest unless told). Safe to run from several processes at once: each migration re-reads
    /// the version inside its write transaction.
    static func migrate(_ db: Connection, through last: Int = latestVersion, progress: (@Sendable (MigrationProgress) -> Void)? = nil) throws {
        try db.execute(script: "PRAGMA foreign_keys = OFF")
        defer { try? db.execute(script: "PRAGMA foreign_keys = ON") }
        for migration in EmbeddedMigration.all where migration.version <= last {
            try db.inTransaction(.immediate) {
                try db.execute(
                    script: """
                        CREATE TABLE IF NOT EXISTS sectionctl_migrations (
                            version    INTEGER PRIMARY KEY,
                            name       TEXT NOT NULL,
                            applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))
                        ) STRICT
                        """)
                let current = try db.scalarInt("SELECT max(version) FROM sectionctl_migrations") ?? 0
                guard migration.version > current else { return }
                if let progress {
                    let step = MigrationProgress(
                        name: "\(String(format: "%04d", migration.version))_\(migration.name)", number: migration.version,
                        count: EmbeddedMigration.all.count)
                    progress(step)
                    db.setProgressHandler(every: 100_000) { progress(step) }
                }
                defer { db.setProgressHandler(every: 0, nil) }
                // Orphans plain SQL left behind before (with foreign keys off) are `check`'s and
                // `repair`'s to name and mend, not a reason to leave the file unopenable.
                let orphansBefore = try db.query("PRAGMA foreign_key_check") { $0.string(0) }.count
                if migration.rewritesSchema {
                    try db.rewritingSchema { try db.execute(script: migration.sql) }
                } else {
                    try db.execute(script: migration.sql)
                }
                try db.run("INSERT INTO sectionctl_migrations (version, name) VALUES (?, ?)", migration.version, migration.name)
                try db.execute(script: "PRAGMA user_version = \(migration.version)")
                let violations = try db.query("PRAGMA foreign_key_check") { $0.string(0) }
                guard violations.count <= orphansBefore else {
                    throw RepositoryError.migrationBreaksForeignKeys(migration: "\(migration.version)_\(migration.name)", tables: violations)
                }
            }
        }
    }
}

/// A migration under way, as reported while a database is brought up to this build's schema: a
/// migration that builds data for what is already there (the rank structure of 0002, say) can
/// take a while on a large database. Reported when it starts, then about every 100,000 steps of
/// SQLite's engine while it runs.
public struct MigrationProgress: Hashable, Sendable {
    /// The migration's file name without `.sql`, such as `0002_rank`.
    public var name: String
    /// Its number, and how many migrations this build has.
    public var number: Int
    public var count: Int

    package init(name: String, number: Int, count: Int) {
        self.name = name
        self.number = number
        self.count = count
    }
}
