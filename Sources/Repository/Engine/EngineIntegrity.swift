/// What an engine checks on its own side of `check()` (`Database.engineIntegrity()`): what only
/// it can read — its pages, its catalog of schema objects, its writer mark — and the foreign
/// keys its own check finds broken where the shared checks do not look.
package struct EngineIntegrity: Sendable {
    /// What the engine's page check says is wrong (SQLite's `quick_check`), one line each, and
    /// where reading the pages failed.
    package var pages: [String] = []
    /// The schema version the objects were compared against.
    package var schemaVersion = 0
    /// The schema objects that differ from those a new database of that version has.
    package var schema: [SchemaDifference] = []
    /// Entries whose foreign key names nothing, in tables the shared checks do not cover, by
    /// (table, the table it names): how many.
    package var otherOrphans: [(table: String, parent: String, count: Int)] = []
    /// The writer mark, where it is a row of the database (`journal_writer` on SQLite); `nil`
    /// where it is the transaction's own (a server's settings local to a transaction).
    package var writerMark: WriterMark?

    package init() {}
}

/// The state of the writer mark that a table holds (`journal_writer` on SQLite).
package struct WriterMark: Sendable {
    /// Whether the table holds its one row.
    package var isPresent: Bool
    /// Whether the row says a sectionctl transaction is writing.
    package var isActive: Bool
    /// The step counter: the number of the last (or, inside a write, the open) transaction.
    package var step: Int64
    /// The highest step number the undo history uses.
    package var highestStepInUse: Int64?

    package init(isPresent: Bool, isActive: Bool, step: Int64, highestStepInUse: Int64?) {
        self.isPresent = isPresent
        self.isActive = isActive
        self.step = step
        self.highestStepInUse = highestStepInUse
    }
}

/// A schema object that differs from the one a new database of the same schema version has.
package struct SchemaDifference: Hashable, Sendable {
    /// How it differs.
    package enum Change: Hashable, Sendable {
        /// The schema has it; the database does not.
        case missing
        /// Both have it, defined differently.
        case altered
        /// A table with other columns than the schema's: (name type …) found, and expected.
        case columns(found: [String], expected: [String])
        /// The database has it on one of the schema's tables; the schema does not (a trigger, or
        /// a unique index: either can refuse or change what sectionctl writes).
        case unknown
    }

    /// `table`, `index`, `trigger` or `view`; or `migrationRecord`, a row of
    /// `sectionctl_migrations` (its `name` then `N (name)`, or `N` for a record no migration has).
    package var type: String
    package var name: String
    /// The table it is on (its own name, for a table).
    package var table: String
    package var change: Change
    /// What creates it in a new database; `nil` for an unknown object.
    package var pristineSQL: String?

    package init(type: String, name: String, table: String, change: Change, pristineSQL: String?) {
        self.type = type
        self.name = name
        self.table = table
        self.change = change
        self.pristineSQL = pristineSQL
    }

    /// The `type` of a record of `sectionctl_migrations` that differs from the migrations the
    /// schema version was made by.
    package static let migrationRecord = "migration record"

    /// Whether repair can mend it: an index, a trigger or a view is made again (or dropped), a
    /// migration record written as the migrator writes it; a table holds data and is not.
    package var isRepairable: Bool { type != "table" }

    /// One line saying how it differs from what schema version `version` makes.
    package func message(version: Int) -> String {
        if type == Self.migrationRecord {
            switch change {
            case .missing: return "sectionctl_migrations has no record of migration \(name), which schema version \(version) is made by"
            case .altered: return "sectionctl_migrations records migration \(name) under another name"
            default: return "sectionctl_migrations has a record of version \(name), which no migration of schema version \(version) has"
            }
        }
        switch change {
        case .missing:
            return "\(type) \(name) is missing (schema version \(version) has it)"
        case .altered:
            return "\(type) \(name) is defined differently from schema version \(version)'s"
        case .columns(let found, let expected):
            return
                "table \(name) has columns (\(found.joined(separator: ", "))) where schema version \(version) has (\(expected.joined(separator: ", ")))"
        case .unknown:
            return "\(type) \(name) on table \(table) is not part of schema version \(version)"
        }
    }
}

/// When repair mends schema objects (`Database.mendSchema(_:phase:)`).
package enum SchemaMendPhase: Sendable {
    /// Before the data is mended: what would get in its way goes (altered and unknown triggers
    /// and indexes are dropped), and what it reads comes back (views are made again).
    case beforeData
    /// After: the missing and altered triggers and indexes are made again, so that they see
    /// the data as repair leaves it.
    case afterData
}
