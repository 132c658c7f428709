import Foundation
import PostgresCluster
import Repository
import SQLite
import TestSupport
import Testing

@testable import RepositoryPostgres

/// The two schemas — `Migrations/*.sql` for SQLite files, `Migrations/postgres/*.sql` for
/// servers — are written separately in two dialects. This suite reads both catalogs from real
/// databases and compares them, so that a table, column, index, view or trigger added to one
/// and not the other fails a test. The differences the engines need are listed here, each with
/// its reason.
@Suite("Schema catalogs", .serialized)
struct SchemaCatalogTests {
    /// What a catalog holds, engine-neutral: one line per fact, sorted.
    struct Catalog {
        var tables: Set<String> = []
        /// "table.column type" with the type as "integer", "text", "bytes" or the engine's own word.
        var columns: Set<String> = []
        /// "table(columns…)" for every unique constraint and primary key.
        var uniques: Set<String> = []
        /// "name on table(columns…)" for every index made by CREATE INDEX.
        var indexes: Set<String> = []
        /// "view: column, column…".
        var views: Set<String> = []
        /// "table event writes target": which tables a trigger on `table` writes when a row is
        /// inserted, updated or deleted: what the triggers are for, however each engine
        /// groups them.
        var triggerPurposes: Set<String> = []
    }

    /// Where each engine must differ, and why.
    static let sqliteOnly: Set<String> = [
        // A server marks sectionctl's own transactions with a transaction-local setting
        // (`sectionctl.writer_begin()`), since writers to different lists run at once there.
        "table journal_writer",
        "column journal_writer.id integer", "column journal_writer.active integer", "column journal_writer.step integer",
        // A file's bulk appends turn its per-row insert triggers off (`0007_bulk_append.sql`); a
        // server's run once per statement already.
        "column journal_writer.bulk integer",
        "unique journal_writer(id)",
        // SQLite triggers cannot call functions: the plain-SQL mark is an INSTEAD OF trigger on a
        // view that the other triggers insert into (a server calls `mark_plain()`). What it writes
        // is read into the triggers that use it.
        "view plain_marks: list_id",
        // The same for the section rank counts: a server's triggers call `section_rank_count()`.
        "view section_rank_counts: list_id, position, delta",
        // Foreign keys may be off in a file (the sqlite3 shell's default): triggers delete what the
        // cascade would. A server always enforces them.
        "trigger sections delete writes rows", "trigger sections delete writes rank_nodes", "trigger sections delete writes rank_pending",
        "trigger lists delete writes sections", "trigger lists delete writes journal",
        "trigger lists delete writes undo_steps", "trigger lists delete writes redo_steps",
        "trigger lists delete writes section_rank_nodes", "trigger lists delete writes section_rank_pending",
        // A file's journal keeps its entries by rowid, so that the changesets lie apart from the
        // key (`0011_journal_rowid.sql`); a server's heap and TOAST keep them apart already.
        "column journal.id integer", "unique journal(id)",
        // A replica is a file that mirrors a server's list (`0010_replica.sql`); a server is
        // what replicas mirror, never one itself.
        "table replica", "table replica_ids", "table replica_intents",
        "column replica.acknowledged integer", "column replica.list_id integer", "column replica.next_sequence integer",
        "column replica.only_row integer", "column replica.replica_id text", "column replica.server text",
        "column replica.server_list text", "column replica.server_version integer",
        "column replica.local_version integer", "column replica.verified_version integer", "column replica.diverged_version integer",
        "column replica_ids.first integer", "column replica_ids.kind text", "column replica_ids.last integer",
        "column replica_intents.intent text", "column replica_intents.new_id integer", "column replica_intents.sequence integer",
        "unique replica(list_id)", "unique replica(only_row)", "unique replica_ids(kind, first)", "unique replica_intents(sequence)",
    ]
    static let postgresOnly: Set<String> = [
        // A server's commit can be lost on the way back to the client: each write commits with a
        // record of itself, which the client reads on a new connection to learn whether it landed
        // (`0007_applied_writes.sql`). A file's commit is never in doubt.
        "table applied_writes", "column applied_writes.writer text", "column applied_writes.write_count integer",
        "column applied_writes.committed_at timestamp with time zone", "unique applied_writes(writer)",
        // A server tells observers about commits with NOTIFY, which a trigger on the journal
        // sends; a SQLite observer polls `PRAGMA data_version` instead.
        "trigger journal insert writes (notify)",
        "trigger lists update writes (notify)", "trigger lists delete writes (notify)",
        "trigger rows insert writes (notify)", "trigger rows update writes (notify)", "trigger rows delete writes (notify)",
        "trigger sections insert writes (notify)", "trigger sections update writes (notify)", "trigger sections delete writes (notify)",
        "trigger journal delete writes (notify)", "trigger undo_log delete writes (notify)",
        "trigger undo_steps delete writes (notify)", "trigger redo_steps delete writes (notify)",
        // A file's undo log asks "was this section added in this step?" of no row any more; a
        // server's row triggers still ask whether a row's section was deleted in the step.
        "index undo_log_item on undo_log(step, item_id)",
        // The migrations ledger's time is a timestamp on a server, ISO 8601 text in a file.
        "column sectionctl_migrations.applied_at timestamp with time zone",
    ]

    @Test(.needs(.postgreSQL)) func bothSchemasHaveTheSameTablesColumnsIndexesViewsAndTriggerPurposes() throws {
        _ = try #require(ThrowawayCluster.forStores)
        let file = try StoreFixture(.sqlite)
        let server = try StoreFixture(.postgres)
        let sqlite = try Self.lines(of: Self.sqliteCatalog(path: file.path))
        let postgres = try Self.lines(of: Self.postgresCatalog(uri: Self.uri(of: server)))
        var expectedSQLite = postgres.subtracting(Self.postgresOnly).union(Self.sqliteOnly)
        expectedSQLite.insert("column sectionctl_migrations.applied_at text")
        let missingInSQLite = expectedSQLite.subtracting(sqlite).sorted()
        let extraInSQLite = sqlite.subtracting(expectedSQLite).sorted()
        #expect(missingInSQLite.isEmpty, "the PostgreSQL schema has, and the SQLite one lacks: \(missingInSQLite)")
        #expect(extraInSQLite.isEmpty, "the SQLite schema has, and the PostgreSQL one lacks: \(extraInSQLite)")
        // The listed differences are real ones: an entry nothing needs any more goes.
        #expect(Self.sqliteOnly.subtracting(sqlite).isEmpty, "listed as SQLite-only but absent: \(Self.sqliteOnly.subtracting(sqlite).sorted())")
        #expect(
            Self.postgresOnly.subtracting(postgres).isEmpty,
            "listed as PostgreSQL-only but absent: \(Self.postgresOnly.subtracting(postgres).sorted())")
    }

    @Test func theCatalogReaderSeesWhatTheSchemaHas() throws {
        // The comparison above is only as good as what it reads: pin a few facts of each kind.
        let file = try StoreFixture(.sqlite)
        let catalog = try Self.lines(of: Self.sqliteCatalog(path: file.path))
        for fact in [
            "table rows", "column rows.position integer", "column sections.title text", "unique sections(list_id, position)",
            "index undo_log_step on undo_log(list_id, step)",
            "view ordered_rows: id, list, list_id, section_id, section_title, section_index, row_index, path, kind, title, value, position",
            "trigger rows insert writes rank_nodes", "trigger rows delete writes sections", "trigger rows update writes undo_log",
            "trigger sections insert writes rank_nodes", "trigger lists delete writes retired_lists",
        ] {
            #expect(catalog.contains(fact), "\(fact) is not among \(catalog.sorted())")
        }
    }

    // MARK: - Reading catalogs

    static func lines(of catalog: Catalog) -> Set<String> {
        var lines: Set<String> = []
        lines.formUnion(catalog.tables.map { "table \($0)" })
        lines.formUnion(catalog.columns.map { "column \($0)" })
        lines.formUnion(catalog.uniques.map { "unique \($0)" })
        lines.formUnion(catalog.indexes.map { "index \($0)" })
        lines.formUnion(catalog.views.map { "view \($0)" })
        lines.formUnion(catalog.triggerPurposes.map { "trigger \($0)" })
        return lines
    }

    static func uri(of fixture: StoreFixture) -> String {
        guard case .server(let uri) = fixture.location else { preconditionFailure("a server fixture") }
        return uri
    }

    /// The tables a trigger's SQL writes; `(notify)` for a notification.
    static func writtenTables(_ sql: String) -> Set<String> {
        var tables: Set<String> = []
        let pattern = try! Regex(#"(?i)(?:UPDATE|INSERT\s+(?:OR\s+\w+\s+)?INTO|DELETE\s+FROM)\s+(?:sectionctl\.)?([a-z_]+)"#)
        for match in sql.matches(of: pattern) {
            // `ON CONFLICT … DO UPDATE SET` updates the table inserted into.
            if let name = match.output[1].substring, name.lowercased() != "set" { tables.insert(String(name).lowercased()) }
        }
        if sql.range(of: #"(?i)pg_notify|\bNOTIFY\b"#, options: .regularExpression) != nil { tables.insert("(notify)") }
        return tables
    }

    static func normalizedType(_ type: String) -> String {
        switch type.lowercased() {
        case "integer", "bigint", "int", "int8", "smallint": return "integer"
        case "text": return "text"
        // Bytes: a BLOB in a file, a bytea on a server (a token's hash).
        case "blob", "bytea": return "bytes"
        default: return type.lowercased()
        }
    }

    static func sqliteCatalog(path: String) throws -> Catalog {
        let db = try Connection(path: path, mode: .readOnly)
        var catalog = Catalog()
        let objects = try db.query("SELECT type, name, tbl_name, coalesce(sql, '') FROM sqlite_schema WHERE name NOT LIKE 'sqlite_%'") {
            ($0.string(0), $0.string(1), $0.string(2), $0.string(3))
        }
        func body(of trigger: String) -> String { trigger.range(of: "BEGIN").map { String(trigger[$0.upperBound...]) } ?? trigger }
        // What writing each view does: the tables its INSTEAD OF triggers write.
        var views: [String: Set<String>] = [:]
        for (type, name, _, _) in objects where type == "view" { views[name] = [] }
        for (type, _, table, sql) in objects where type == "trigger" && views.keys.contains(table) {
            views[table, default: []].formUnion(writtenTables(body(of: sql)))
        }
        for (name, targets) in views where targets.isEmpty { views[name] = nil }
        for (type, name, table, sql) in objects {
            switch type {
            case "table":
                catalog.tables.insert(name)
                for (column, columnType) in try db.query("SELECT name, type FROM pragma_table_info(?)", name, row: { ($0.string(0), $0.string(1)) }) {
                    catalog.columns.insert("\(name).\(column) \(normalizedType(columnType))")
                }
                let keys = try db.query("SELECT name FROM pragma_table_info(?) WHERE pk > 0 ORDER BY pk", name) { $0.string(0) }
                if !keys.isEmpty { catalog.uniques.insert("\(name)(\(keys.joined(separator: ", ")))") }
                for index in try db.query("SELECT name FROM pragma_index_list(?) WHERE \"unique\" = 1 AND origin = 'u'", name, row: { $0.string(0) })
                {
                    let columns = try db.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", index) { $0.string(0) }
                    catalog.uniques.insert("\(name)(\(columns.joined(separator: ", ")))")
                }
            case "index":
                guard !sql.isEmpty else { continue }  // an automatic index: a constraint's, read above
                let columns = try db.query("SELECT name FROM pragma_index_info(?) ORDER BY seqno", name) { $0.string(0) }
                catalog.indexes.insert("\(name) on \(table)(\(columns.joined(separator: ", ")))")
            case "view":
                let columns = try db.query("SELECT name FROM pragma_table_info(?)", name) { $0.string(0) }
                catalog.views.insert("\(name): \(columns.joined(separator: ", "))")
            case "trigger":
                // A trigger on a view (INSTEAD OF) is read into the triggers that write the view.
                guard !views.keys.contains(table) else { continue }
                let header = sql.prefix { $0 != "\n" }.uppercased()
                let event = header.contains(" INSERT ") ? "insert" : header.contains(" DELETE ") ? "delete" : "update"
                for written in writtenTables(body(of: sql)) {
                    for target in views[written] ?? [written] { catalog.triggerPurposes.insert("\(table) \(event) writes \(target)") }
                }
            default:
                break
            }
        }
        return catalog
    }

    static func postgresCatalog(uri: String) throws -> Catalog {
        let db = try PostgresEngine(connectionString: uri)
        var catalog = Catalog()
        let schema = "sectionctl"
        for table in try db.query(
            "SELECT table_name FROM information_schema.tables WHERE table_schema = ? AND table_type = 'BASE TABLE'", schema, row: { $0.string(0) })
        {
            catalog.tables.insert(table)
        }
        let columns = try db.query(
            """
            SELECT c.table_name, c.column_name, c.data_type, t.table_type FROM information_schema.columns AS c
            JOIN information_schema.tables AS t ON t.table_schema = c.table_schema AND t.table_name = c.table_name
            WHERE c.table_schema = ? ORDER BY c.table_name, c.ordinal_position
            """, schema
        ) { ($0.string(0), $0.string(1), $0.string(2), $0.string(3)) }
        var viewColumns: [String: [String]] = [:]
        for (table, column, type, kind) in columns {
            if kind == "VIEW" {
                viewColumns[table, default: []].append(column)
            } else {
                catalog.columns.insert("\(table).\(column) \(normalizedType(type))")
            }
        }
        for (view, names) in viewColumns { catalog.views.insert("\(view): \(names.joined(separator: ", "))") }
        // Every index with its columns in order; those behind a constraint are uniques.
        let indexes = try db.query(
            """
            SELECT t.relname, i.relname, ix.indisunique OR ix.indisprimary, c.conname IS NOT NULL,
                (SELECT string_agg(a.attname, ', ' ORDER BY k.ordinality)
                 FROM unnest(ix.indkey) WITH ORDINALITY AS k (attnum, ordinality)
                 JOIN pg_attribute AS a ON a.attrelid = t.oid AND a.attnum = k.attnum)
            FROM pg_index AS ix
            JOIN pg_class AS i ON i.oid = ix.indexrelid
            JOIN pg_class AS t ON t.oid = ix.indrelid
            JOIN pg_namespace AS n ON n.oid = t.relnamespace
            LEFT JOIN pg_constraint AS c ON c.conindid = ix.indexrelid AND c.contype IN ('p', 'u')
            WHERE n.nspname = ?
            """, schema
        ) { ($0.string(0), $0.string(1), $0.string(2) == "t" || $0.string(2) == "1", $0.string(3) == "t" || $0.string(3) == "1", $0.string(4)) }
        for (table, index, _, isConstraint, columns) in indexes {
            if isConstraint {
                catalog.uniques.insert("\(table)(\(columns))")
            } else {
                catalog.indexes.insert("\(index) on \(table)(\(columns))")
            }
        }
        // A trigger function may leave work to other functions of the schema: follow its calls.
        let functions = Dictionary(
            try db.query(
                "SELECT p.proname, pg_get_functiondef(p.oid) FROM pg_proc AS p JOIN pg_namespace AS n ON n.oid = p.pronamespace WHERE n.nspname = ?",
                schema, row: { ($0.string(0), $0.string(1)) }), uniquingKeysWith: { $0 + "\n" + $1 })
        func written(byFunction name: String, seen: inout Set<String>) -> Set<String> {
            guard seen.insert(name).inserted, let body = functions[name] else { return [] }
            var tables = writtenTables(body)
            for other in functions.keys where other != name && body.range(of: "\\b\(other)\\(", options: .regularExpression) != nil {
                tables.formUnion(written(byFunction: other, seen: &seen))
            }
            return tables
        }
        let triggers = try db.query(
            """
            SELECT c.relname, t.tgtype, p.proname
            FROM pg_trigger AS t JOIN pg_class AS c ON c.oid = t.tgrelid JOIN pg_namespace AS n ON n.oid = c.relnamespace
            JOIN pg_proc AS p ON p.oid = t.tgfoid
            WHERE n.nspname = ? AND NOT t.tgisinternal
            """, schema
        ) { ($0.string(0), $0.int(1), $0.string(2)) }
        for (table, type, function) in triggers {
            var seen: Set<String> = []
            let tables = written(byFunction: function, seen: &seen)
            // tgtype's bits: 4 insert, 8 delete, 16 update.
            for (bit, event) in [(4, "insert"), (8, "delete"), (16, "update")] where type & bit != 0 {
                for target in tables { catalog.triggerPurposes.insert("\(table) \(event) writes \(target)") }
            }
        }
        return catalog
    }
}
