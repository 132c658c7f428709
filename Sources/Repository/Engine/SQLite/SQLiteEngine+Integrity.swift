import Foundation
import SQLite

/// SQLite's side of `check()` and `repair()`: the page check, the schema objects against those
/// of a new database of the same version (built in memory by the migrator), the foreign keys
/// `PRAGMA foreign_key_check` finds broken (it reads them with foreign keys off too), and
/// `journal_writer`, the writer mark.
extension SQLiteEngine {
    package func engineIntegrity() throws -> EngineIntegrity {
        var found = EngineIntegrity()
        do {
            // One result row may hold many lines, under a header naming the database.
            found.pages = try query("PRAGMA quick_check") { $0.string(0) }.flatMap { $0.split(separator: "\n") }
                .filter { $0 != "ok" && !$0.hasPrefix("*** in database ") }.map { "quick_check: \($0)" }
            found.schemaVersion = try schemaVersion()
            found.schema = try SchemaCatalog(reading: connection).differences(from: SchemaCatalog.pristine(version: found.schemaVersion))
            found.schema += try ledgerDifferences(version: found.schemaVersion)
            // The rest reads the tables: only where they are the schema's.
            guard found.schema.allSatisfy(\.isRepairable) else { return found }
            found.otherOrphans = try brokenForeignKeys(outside: Integrity.tablesWithNamedOrphanChecks)
            let mark = try queryFirst("SELECT active, step FROM journal_writer WHERE id = 1") { ($0.int64(0), $0.int64(1)) }
            found.writerMark = WriterMark(
                isPresent: mark != nil, isActive: (mark?.0 ?? 0) != 0, step: mark?.1 ?? 0, highestStepInUse: try highestStepInUse())
        } catch let error as SQLiteError where error.isCorrupt || !found.pages.isEmpty {
            // Pages too damaged to be read through: that is what the check says.
            found.pages.append("reading the file stopped: \(error.message)")
        }
        return found
    }

    package func mend(_ mend: EngineMend) throws -> [String] {
        switch mend {
        case .writerMark(let highestStepInUse): return try restoreWriterMarkRow(pastStep: highestStepInUse)
        case .schema(let differences, let phase): return try mendSchemaObjects(differences, phase: phase)
        }
    }

    /// `EngineMend.writerMark`: the row of `journal_writer`.
    private func restoreWriterMarkRow(pastStep highestStepInUse: Int64?) throws -> [String] {
        let highest = highestStepInUse ?? 0
        guard highest < Int64.max else {
            throw RepositoryError.cannotRepair(
                path: path, problems: ["the undo history uses step \(highest), past which no transaction can be numbered"])
        }
        guard let step = try writerStep() else {
            try run("INSERT INTO journal_writer (id, active, step) VALUES (1, 1, ?)", highest + 1)
            return ["journal_writer: put back its one row, its step counter at \(highest + 1), past every step in use"]
        }
        guard step <= highest else { return [] }
        try run("UPDATE journal_writer SET step = ? WHERE id = 1", highest + 1)
        return ["journal_writer: moved its step counter from \(step - 1), behind step \(highest) of the undo history, past it"]
    }

    /// `EngineMend.schema`: each object dropped or made again from the pristine SQL.
    private func mendSchemaObjects(_ differences: [SchemaDifference], phase: SchemaMendPhase) throws -> [String] {
        var lines: [String] = []
        for difference in differences where difference.isRepairable {
            let name = "\"" + difference.name.replacingOccurrences(of: "\"", with: "\"\"") + "\""
            let drop = "DROP \(difference.type.uppercased()) IF EXISTS \(name)"
            switch (phase, difference.type, difference.change) {
            case (.beforeData, SchemaDifference.migrationRecord, let change):
                try execute(script: difference.pristineSQL ?? "")
                switch change {
                case .missing:
                    lines.append("sectionctl_migrations: put back the record of migration \(difference.name) (applied at an unknown time: now)")
                case .altered: lines.append("sectionctl_migrations: wrote the record of migration \(difference.name) as the schema names it")
                default: lines.append("sectionctl_migrations: deleted the record of version \(difference.name), which no migration has")
                }
            case (.afterData, SchemaDifference.migrationRecord, _):
                break
            case (.beforeData, "view", .missing), (.beforeData, "view", .altered):
                try execute(script: drop)
                try execute(script: difference.pristineSQL ?? "")
                lines.append(
                    "made view \(difference.name) again, as the schema defines it (it was \(difference.change == .missing ? "missing" : "defined differently"))"
                )
            case (.beforeData, _, .unknown):
                try execute(script: drop)
                lines.append("dropped \(difference.type) \(difference.name) on table \(difference.table), which the schema does not have")
            case (.beforeData, _, .altered):
                try execute(script: drop)  // made again after the data, below
            case (.afterData, "view", _), (.afterData, _, .unknown):
                break
            case (.afterData, _, .missing), (.afterData, _, .altered):
                try execute(script: difference.pristineSQL ?? "")
                lines.append(
                    "made \(difference.type) \(difference.name) again, as the schema defines it (it was \(difference.change == .missing ? "missing" : "defined differently"))"
                )
            default:
                break
            }
        }
        return lines
    }

    package func writerStep() throws -> Int64? {
        try scalarInt("SELECT step FROM journal_writer WHERE id = 1")
    }

    /// How `sectionctl_migrations` differs from the record the migrator keeps of schema version
    /// `version`: a migration with no record or another name, a record no migration has.
    private func ledgerDifferences(version: Int) throws -> [SchemaDifference] {
        let recorded = Dictionary(
            try query("SELECT version, name FROM sectionctl_migrations") { (Int($0.int64(0)), $0.string(1)) }, uniquingKeysWith: { first, _ in first }
        )
        var differences: [SchemaDifference] = []
        let applied = EmbeddedMigration.all.filter { $0.version <= version }
        for migration in applied where recorded[migration.version] != migration.name {
            let literal = "'" + migration.name.replacingOccurrences(of: "'", with: "''") + "'"
            differences.append(
                SchemaDifference(
                    type: SchemaDifference.migrationRecord, name: "\(migration.version) (\(migration.name))", table: "sectionctl_migrations",
                    change: recorded[migration.version] == nil ? .missing : .altered,
                    pristineSQL: "INSERT OR REPLACE INTO sectionctl_migrations (version, name) VALUES (\(migration.version), \(literal))"))
        }
        let known = Set(applied.map(\.version))
        for number in recorded.keys.sorted() where !known.contains(number) {
            differences.append(
                SchemaDifference(
                    type: SchemaDifference.migrationRecord, name: "\(number)", table: "sectionctl_migrations", change: .unknown,
                    pristineSQL: "DELETE FROM sectionctl_migrations WHERE version = \(number)"))
        }
        return differences
    }

    /// The file's schema version, as the migrator reads it.
    private func schemaVersion() throws -> Int {
        let recorded = try scalarInt("SELECT max(version) FROM sectionctl_migrations") ?? 0
        let userVersion = try scalarInt("PRAGMA user_version") ?? 0
        return Int(max(recorded, userVersion))
    }

    /// The rows `PRAGMA foreign_key_check` finds naming nothing, in tables other than `covered`,
    /// by (table, the table it names).
    private func brokenForeignKeys(outside covered: Set<String>) throws -> [(table: String, parent: String, count: Int)] {
        var counts: [(table: String, parent: String, count: Int)] = []
        for (table, parent) in try query("PRAGMA foreign_key_check", row: { ($0.string(0), $0.string(2)) }) where !covered.contains(table) {
            if let index = counts.firstIndex(where: { $0.table == table && $0.parent == parent }) {
                counts[index].count += 1
            } else {
                counts.append((table, parent, 1))
            }
        }
        return counts
    }
}

/// The schema objects of a SQLite database, as its catalog (`sqlite_schema`) and
/// `pragma_table_xinfo` give them.
struct SchemaCatalog {
    struct Object {
        var type: String
        var name: String
        var table: String
        var sql: String?
        /// The SQL without comments, quotes around names, case or spacing: two definitions that
        /// say the same thing compare equal, whichever SQLite wrote them down.
        var normalized: String
        /// A table's columns, each as `name type [not null] [default …] [key n]`.
        var columns: [String]
    }

    /// The objects, by lowercased name.
    var objects: [String: Object] = [:]

    /// The catalog of `db`, without SQLite's own objects (`sqlite_…`).
    init(reading db: Connection) throws {
        let rows = try db.query(
            "SELECT type, name, tbl_name, sql FROM sqlite_schema WHERE name NOT LIKE 'sqlite\\_%' ESCAPE '\\'"
        ) { ($0.string(0), $0.string(1), $0.string(2), $0.optionalString(3)) }
        for (type, name, table, sql) in rows {
            var columns: [String] = []
            if type == "table" {
                columns = try db.query(#"SELECT name, type, "notnull", dflt_value, pk FROM pragma_table_xinfo(?)"#, name) { row in
                    var column = "\(row.string(0)) \(row.string(1))"
                    if row.int(2) != 0 { column += " not null" }
                    if let value = row.optionalString(3) { column += " default \(value)" }
                    if row.int(4) != 0 { column += " key \(row.int(4))" }
                    return column
                }
            }
            objects[name.lowercased()] = Object(
                type: type, name: name, table: table, sql: sql, normalized: Self.normalized(sql ?? ""), columns: columns)
        }
    }

    /// The catalog of a new database brought to schema `version` by the migrator, in memory.
    static func pristine(version: Int) throws -> SchemaCatalog {
        let db = try Connection(path: ":memory:", mode: .readWriteCreate)
        try Migrator.migrate(db, through: version)
        return try SchemaCatalog(reading: db)
    }

    /// How this catalog differs from `pristine`'s: its objects missing or defined differently
    /// here, tables first, and the triggers and unique indexes here on its tables that it does
    /// not have.
    func differences(from pristine: SchemaCatalog) -> [SchemaDifference] {
        let order = ["table": 0, "index": 1, "trigger": 2, "view": 3]
        var differences: [SchemaDifference] = []
        for expected in pristine.objects.values.sorted(by: { (order[$0.type] ?? 4, $0.name) < (order[$1.type] ?? 4, $1.name) }) {
            func difference(_ change: SchemaDifference.Change) -> SchemaDifference {
                SchemaDifference(type: expected.type, name: expected.name, table: expected.table, change: change, pristineSQL: expected.sql)
            }
            guard let found = objects[expected.name.lowercased()], found.type == expected.type else {
                differences.append(difference(.missing))
                continue
            }
            if found.columns != expected.columns {
                differences.append(difference(.columns(found: found.columns, expected: expected.columns)))
            } else if found.normalized != expected.normalized || found.table.lowercased() != expected.table.lowercased() {
                differences.append(difference(.altered))
            }
        }
        let tables = Set(pristine.objects.values.filter { $0.type == "table" }.map { $0.name.lowercased() })
        for found in objects.values.sorted(by: { $0.name < $1.name })
        where pristine.objects[found.name.lowercased()] == nil && tables.contains(found.table.lowercased())
            && (found.type == "trigger" || (found.type == "index" && found.normalized.hasPrefix("create unique")))
        {
            differences.append(
                SchemaDifference(type: found.type, name: found.name, table: found.table, change: .unknown, pristineSQL: nil))
        }
        return differences
    }

    /// `sql` without comments and quotes around names, lowercased (quoted text aside), each run
    /// of spaces one space, none next to brackets, commas and semicolons. Read scalar by scalar,
    /// so that a mark combining with a space it follows cannot hide whitespace in a character.
    static func normalized(_ sql: String) -> String {
        var output = String.UnicodeScalarView()
        var scalars = Array(sql.unicodeScalars)[...]
        func pushSpace() {
            if let last = output.last, !" (),;".unicodeScalars.contains(last) { output.append(" ") }
        }
        while let scalar = scalars.popFirst() {
            switch scalar {
            case "'":
                output.append(scalar)
                while let next = scalars.popFirst() {
                    output.append(next)
                    if next == "'" {
                        if scalars.first == "'" { output.append(scalars.removeFirst()) } else { break }
                    }
                }
            case "-" where scalars.first == "-":
                while let next = scalars.popFirst(), next != "\n" {}
                pushSpace()
            case "/" where scalars.first == "*":
                scalars.removeFirst()
                while let next = scalars.popFirst() {
                    if next == "*" && scalars.first == "/" {
                        scalars.removeFirst()
                        break
                    }
                }
                pushSpace()
            case "\"", "`", "[", "]":
                break
            case _ where scalar.properties.isWhitespace:
                pushSpace()
            case "(", ")", ",", ";":
                if output.last == " " { output.removeLast() }
                output.append(scalar)
                while scalars.first?.properties.isWhitespace == true { scalars.removeFirst() }
            default:
                output.append(contentsOf: scalar.properties.lowercaseMapping.unicodeScalars)
            }
        }
        while output.first == " " { output.removeFirst() }
        while output.last == " " { output.removeLast() }
        return String(output)
    }
}
