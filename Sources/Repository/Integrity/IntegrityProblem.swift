/// One way a database disagrees with what sectionctl relies on, as `SectionStore.check()` finds
/// it: a kind to switch on, a one-line message naming what was found (ids, values), and whether
/// `SectionStore.repair()` can mend it.
public struct IntegrityProblem: Hashable, Sendable, Codable, CustomStringConvertible {
    /// What part of the database a problem is in. The raw values are stable: scripts read them
    /// from `sectionctl --json check`.
    public enum Kind: String, Hashable, Sendable, Codable, CaseIterable {
        /// The engine's own check of the stored pages failed (SQLite's `quick_check`): the file is
        /// damaged below the schema. Never repairable: copy what still reads into a new database,
        /// or restore a backup.
        case engine
        /// Something that belongs to what no longer exists: rows of no section, sections of no
        /// list, rank nodes of no section, journal entries and undo or redo steps of no list,
        /// undo log entries that name no list. Repairable: they are deleted.
        case orphan
        /// A section's `row_count` differs from the rows in it. Repairable: it is recounted.
        case rowCount = "row-count"
        /// The rank structure disagrees with the rows: a node missing at the start of a level,
        /// a node starting no node of the level below, a count that differs from the rows in its
        /// range, a node outside its fill bounds. Repairable: the section's structure is rebuilt.
        case rank
        /// A `rank_pending` note left at rest (each commit settles every one), or one naming a
        /// section or a node that does not exist. Repairable: the notes are cleared, and the
        /// sections they name rebuilt.
        case pending
        /// A row or section at a position outside `1 ..< 2^62` (the parking value −1 included).
        /// Repairable: the items of that section or list get evenly spaced positions, in their
        /// order.
        case position
        /// A table, column, index, trigger or view that differs from what the schema version
        /// makes: missing, defined differently, or a trigger or unique index on one of
        /// sectionctl's tables that the schema does not have. Indexes, triggers and views are
        /// repairable (recreated, or dropped when unknown); a table missing or changed is not:
        /// copy the lists into a new database.
        case schema
        /// The change journal: an entry at a version past its list's, an entry that is neither a
        /// changeset nor a reload, or `journal_writer` not holding its one row inactive with a
        /// step counter past every step in use. Repairable.
        case journal
        /// The undo history: a step at a version past its list's, one step filed under two
        /// versions of a list, or a log entry for a run of ids that is no run of sections
        /// inserted. Repairable: the list's undo and redo history is dropped.
        case undo
        /// A replica file's own tables (`Migrations/0010_replica.sql`): an allotted id that a row
        /// or section already has (repairable: such runs are dropped; a sync takes new ones); the
        /// next intent sequence not past every pending one (repairable: set past them); a
        /// pending intent that is not an intent, or the mirrored list missing (not repairable:
        /// clone a fresh replica, and redo what the intents said).
        case replica
        /// Ids and the sync service's tables (`Migrations/0012_sync_service.sql`): an id sequence
        /// behind the highest id in use (the next add would collide: repairable, the sequence is
        /// moved past it); ids a replica holds unused that an item has already (repairable: they
        /// are taken from the replica, which a sync tells), or that are past the sequence
        /// (repairable: the sequence is moved past them).
        case ids
        /// A row's title or value, or a section's title or empty text, that is not valid UTF-8
        /// (plain SQL can store any bytes as text: `CAST(x'68ff' AS TEXT)`): shown with U+FFFD
        /// in its place, and changed by an export and import unsaid. Repairable: each byte that is
        /// not UTF-8 becomes U+FFFD, as it is shown; the message names the bytes and the text
        /// repair writes.
        case text
    }

    /// What part of the database the problem is in.
    public var kind: Kind
    /// One line naming what was found, with the ids and values involved.
    public var message: String
    /// Whether `SectionStore.repair()` mends it.
    public var isRepairable: Bool

    /// Creates a problem.
    public init(kind: Kind, message: String, isRepairable: Bool = true) {
        self.kind = kind
        self.message = message
        self.isRepairable = isRepairable
    }

    /// `kind: message`.
    public var description: String { "\(kind.rawValue): \(message)" }

    private enum CodingKeys: String, CodingKey {
        case kind, message
        case isRepairable = "repairable"
    }
}

/// What `SectionStore.repair()` changed, one line each, and the lists it marked for reload.
public struct RepairReport: Hashable, Sendable, Codable {
    /// One thing repair changed.
    public struct Action: Hashable, Sendable, Codable, CustomStringConvertible {
        /// The kind of problem it mended.
        public var kind: IntegrityProblem.Kind
        /// What it did, with the ids and values involved.
        public var message: String

        /// Creates an action.
        public init(kind: IntegrityProblem.Kind, message: String) {
            self.kind = kind
            self.message = message
        }

        /// `kind: message`.
        public var description: String { "\(kind.rawValue): \(message)" }
    }

    /// A list repair changed, at the version that names its repaired state (journaled as a
    /// reload, so that views and `ListHandle.changes(since:)` read it afresh).
    public struct ReloadedList: Hashable, Sendable, Codable {
        /// The list's stable id.
        public var id: ListID
        /// The list's name.
        public var name: String
        /// The list's version after the repair.
        public var version: ListVersion

        /// Creates an entry.
        public init(id: ListID, name: String, version: ListVersion) {
            self.id = id
            self.name = name
            self.version = version
        }
    }

    /// What repair changed, in the order it did it.
    public var actions: [Action]
    /// The lists it changed, by name, each marked for reload.
    public var reloadedLists: [ReloadedList]

    /// Creates a report.
    public init(actions: [Action] = [], reloadedLists: [ReloadedList] = []) {
        self.actions = actions
        self.reloadedLists = reloadedLists
    }

    /// Whether repair found nothing to mend (and wrote nothing).
    public var isEmpty: Bool { actions.isEmpty }
}
