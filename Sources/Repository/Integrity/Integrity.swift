import Foundation

/// What `check()` looks for, read into `IntegrityFindings` with the ids `repair()` acts on.
enum Integrity {
    /// The tables whose broken foreign keys the shared checks name one by one; the engine's own
    /// foreign-key check reports the others (`EngineIntegrity.otherOrphans`).
    static let tablesWithNamedOrphanChecks: Set<String> = [
        "rows", "sections", "rank_nodes", "rank_pending", "section_rank_nodes", "section_rank_pending", "journal", "undo_steps", "redo_steps",
    ]

    /// Everything a check finds in `db`. `atRest` when read outside sectionctl's own write
    /// transactions (a check); inside one (a repair), the writer mark is the transaction's own,
    /// and what it was at rest comes from a read before.
    static func findings(_ db: any Database, atRest: Bool) throws -> IntegrityFindings {
        var found = IntegrityFindings(atRest: atRest)
        found.engine = try db.engineIntegrity()
        found.writerActiveAtRest = atRest && (found.engine.writerMark?.isActive ?? false)
        found.writerStepAtRest = atRest ? found.engine.writerMark?.step : nil
        // A table missing or changed: the shared checks would read what is not there.
        guard found.engine.schema.allSatisfy(\.isRepairable) else { return found }
        do {
            try found.readTables(db)
        } catch  where !found.engine.pages.isEmpty {
            found.unreadable = String("\(error)".prefix { $0 != "\n" })
        }
        return found
    }

    /// Whether `changes` is what the journal may hold: a changeset, or the reload entry.
    static func isJournalEntry(_ changes: String) -> Bool {
        if changes == Journal.reloadJSON || (try? Changeset(json: changes)) != nil { return true }
        guard let object = try? JSONSerialization.jsonObject(with: Data(changes.utf8)) as? [String: Any] else { return false }
        return object.count == 1 && (object["reload"] as? Bool) == true
    }
}

/// What a check found, kept with the ids and values that `problems` names and repair mends.
struct IntegrityFindings: Sendable {
    var atRest: Bool
    var engine = EngineIntegrity()
    /// Whether the writer mark was set with no sectionctl transaction open.
    var writerActiveAtRest = false
    /// The writer mark's step counter at rest, when it was read there.
    var writerStepAtRest: Int64?
    /// What stopped the checks of the tables on a file whose pages are damaged.
    var unreadable: String?
    var listNames: [Int64: String] = [:]

    var rowsOfMissingSections: [ItemGroup] = []
    var sectionsOfMissingLists: [ItemGroup] = []
    var rankNodesOfMissingOwners: [(space: RankSpace, owner: Int64, count: Int)] = []
    var entriesOfMissingLists: [(table: ListKeyedTable, list: Int64, count: Int)] = []
    var wrongRowCounts: [(id: Int64, stored: Int, actual: Int)] = []
    var rank: [(space: RankSpace, owner: Int64, message: String)] = []
    var pending: [(space: RankSpace, owner: Int64, first: Int64, ownerExists: Bool, nodeExists: Bool)] = []
    var rowsOutsideRange: [ItemGroup] = []
    var sectionsOutsideRange: [ItemGroup] = []
    var journalPastVersion: [VersionGroup] = []
    /// Entries at or before their list's version that are neither a changeset nor a reload.
    var unreadableJournal: [(list: Int64, version: ListVersion, excerpt: String)] = []
    var undoPastVersion: [VersionGroup] = []
    var redoPastVersion: [VersionGroup] = []
    var stepsFiledTwice: [(list: Int64, step: Int64, versions: [ListVersion])] = []
    /// Undo log entries for a run of ids that are no run of sections inserted.
    var malformedUndoRuns: [(list: Int64, step: Int64, entry: Int64, first: Int64, last: Int64)] = []
    /// The steps of undo log entries that name no list.
    var stepsOfOrphanUndoLog: [Int64] = []
    /// The lists plain SQL changed since their last version.
    var listsChangedOutsideSectionctl: [Int64] = []
    /// A replica file's own tables: the runs of allotted ids that overlap ids in use, the next
    /// sequence when it is not past every pending intent, the pending intents that do not read,
    /// and the mirrored list when it is gone.
    var allottedIDsInUse: [(kind: String, first: Int64, last: Int64)] = []
    var sequenceBehind: (next: Int64, highest: Int64)?
    var unreadableIntents: [Int64] = []
    var replicaListMissing: Int64?
    /// The id sequences behind the ids in use, or behind ids replicas hold: (table, sequence,
    /// highest id in use or held).
    var sequencesBehind: [(table: String, sequence: Int64, highest: Int64)] = []
    /// Runs of ids replicas hold unused (the sync service's) that include ids in use.
    var heldIDsInUse: [(replica: String, kind: String, first: Int64, last: Int64)] = []
    /// Stored texts that are not valid UTF-8, with the bytes found.
    var invalidText: [InvalidText] = []

    init(atRest: Bool) {
        self.atRest = atRest
    }

    /// Runs the checks of the tables, in the SQL both engines speak.
    mutating func readTables(_ db: any Database) throws {
        listNames = Dictionary(try db.listRecords().map { ($0.id, $0.name) }, uniquingKeysWith: { first, _ in first })
        rowsOfMissingSections = try db.rowsOfMissingSections()
        sectionsOfMissingLists = try db.sectionsOfMissingLists()
        for space in RankSpace.all {
            rankNodesOfMissingOwners += try db.rankNodesOfMissingOwners(in: space).map { (space, $0.owner, $0.count) }
        }
        for table in ListKeyedTable.allCases {
            entriesOfMissingLists += try db.entriesOfMissingLists(in: table).map { (table, $0.list, $0.count) }
        }
        wrongRowCounts = try db.sectionsWithWrongRowCounts()
        for space in RankSpace.all {
            rank += try RankTree.problems(in: space, db).map { (space, $0.owner, $0.message) }
            pending += try db.pendingRankNotes(in: space).map { (space, $0.owner, $0.first, $0.ownerExists, $0.nodeExists) }
        }
        rowsOutsideRange = try db.itemsOutsidePositionRange(.rows)
        sectionsOutsideRange = try db.itemsOutsidePositionRange(.sections)
        journalPastVersion = try db.journalEntriesPastListVersion()
        var unreadable: [(list: Int64, version: ListVersion, excerpt: String)] = []
        try db.forEachJournalEntry { list, listVersion, version, changes in
            guard version <= listVersion, !Integrity.isJournalEntry(changes) else { return }
            unreadable.append((list, version, excerpt(changes)))
        }
        unreadableJournal = unreadable
        undoPastVersion = try db.historyStepsPastListVersion(.undo)
        redoPastVersion = try db.historyStepsPastListVersion(.redo)
        stepsFiledTwice = try db.historyStepsFiledTwice()
        malformedUndoRuns = try db.malformedUndoRuns()
        stepsOfOrphanUndoLog = try db.stepsOfUndoLogEntriesOfMissingLists()
        listsChangedOutsideSectionctl = try db.listsChangedOutsideSectionctl()
        try readReplicaTables(db)
        try readIDs(db)
        try readTexts(db)
    }

    /// The titles, values and empty texts that are not valid UTF-8 (only SQLite stores such;
    /// a server refuses them). Texts of ASCII alone are passed over without decoding.
    mutating func readTexts(_ db: any Database) throws {
        invalidText = []
        let columns: [(table: String, sql: String, names: [String])] = [
            (
                "rows", "SELECT r.id, s.list_id, r.title, r.value FROM rows AS r JOIN sections AS s ON s.id = r.section_id ORDER BY r.id",
                ["title", "value"]
            ),
            ("sections", "SELECT id, list_id, title, empty_text FROM sections ORDER BY id", ["title", "empty_text"]),
        ]
        var found: [InvalidText] = []
        for (table, sql, names) in columns {
            try db.forEachRow(sql, arguments: []) { row in
                for (index, name) in names.enumerated() {
                    let column = Int32(index + 2)
                    guard !row.isNull(column) else { continue }
                    let bytes = row.bytes(column)
                    guard !bytes.allSatisfy({ $0 < 0x80 }), String(validating: bytes, as: UTF8.self) == nil else { continue }
                    found.append(InvalidText(table: table, column: name, id: row.int64(0), list: row.int64(1), bytes: bytes))
                }
                return true
            }
        }
        invalidText = found
    }

    /// The id sequences, and the ids the sync service gave replicas.
    mutating func readIDs(_ db: any Database) throws {
        for (table, kind) in [("rows", "row"), ("sections", "section")] {
            let sequence = try db.idSequence(table: table)
            let highest = max(
                try db.scalarInt("SELECT coalesce(max(id), 0) FROM \(table)") ?? 0,
                try db.scalarInt("SELECT coalesce(max(last), 0) FROM sync_unused_ids WHERE kind = ?", kind) ?? 0)
            if highest > sequence { sequencesBehind.append((table, sequence, highest)) }
            heldIDsInUse += try db.query(
                """
                SELECT replica, kind, first, last FROM sync_unused_ids AS u
                WHERE kind = ? AND EXISTS (SELECT 1 FROM \(table) WHERE id BETWEEN u.first AND u.last) ORDER BY replica, first
                """, kind
            ) { ($0.string(0), $0.string(1), $0.int64(2), $0.int64(3)) }
        }
    }

    /// The checks of a replica file's own tables (none elsewhere).
    mutating func readReplicaTables(_ db: any Database) throws {
        guard let record = try db.replicaRecord() else { return }
        if try db.listRecordIfAny(id: record.listID) == nil { replicaListMissing = record.listID }
        allottedIDsInUse = try db.query(
            """
            SELECT kind, first, last FROM replica_ids AS i
            WHERE (kind = 'row' AND EXISTS (SELECT 1 FROM rows WHERE id BETWEEN i.first AND i.last))
               OR (kind = 'section' AND EXISTS (SELECT 1 FROM sections WHERE id BETWEEN i.first AND i.last))
            ORDER BY kind, first
            """
        ) { ($0.string(0), $0.int64(1), $0.int64(2)) }
        if let highest = try db.scalarInt("SELECT max(sequence) FROM replica_intents"), highest >= record.nextSequence {
            sequenceBehind = (record.nextSequence, highest)
        }
        unreadableIntents = try db.query("SELECT sequence, intent FROM replica_intents ORDER BY sequence") { row in
            (row.int64(0), (try? Intent(json: row.string(1))) != nil)
        }.filter { !$0.1 }.map(\.0)
    }

    /// `list #ID ("name")`, or `list #ID` for a list that does not exist.
    func list(_ id: Int64) -> String {
        listNames[id].map { "list #\(id) (\(quoted($0)))" } ?? "list #\(id)"
    }

    /// Whether the writer mark's step counter is behind the steps the undo history uses (inside
    /// a write, the counter is already this transaction's).
    var writerStepIsBehind: Bool {
        guard let mark = engine.writerMark, mark.isPresent, let highest = mark.highestStepInUse else { return false }
        return atRest ? mark.step < highest : mark.step <= highest
    }

    /// Every problem found, one line each, in the order of `IntegrityProblem.Kind`.
    var problems: [IntegrityProblem] {
        var problems: [IntegrityProblem] = []
        func add(_ kind: IntegrityProblem.Kind, _ message: String, repairable: Bool = true) {
            problems.append(IntegrityProblem(kind: kind, message: message, isRepairable: repairable))
        }
        for line in engine.pages { add(.engine, line, repairable: false) }
        if let unreadable { add(.engine, "the tables could not be read through: \(unreadable)", repairable: false) }

        for difference in engine.schema {
            add(.schema, difference.message(version: engine.schemaVersion), repairable: difference.isRepairable)
        }

        for group in sectionsOfMissingLists {
            add(.orphan, "\(plural(group.count, "section")) of list #\(group.parent), which does not exist: \(ids(group))")
        }
        for group in rowsOfMissingSections {
            add(.orphan, "\(plural(group.count, "row")) of section #\(group.parent), which does not exist: \(ids(group))")
        }
        for (space, owner, count) in rankNodesOfMissingOwners {
            add(.orphan, "\(plural(count, space.nodeNoun)) of \(space.ownerNoun) #\(owner), which does not exist")
        }
        for (table, list, count) in entriesOfMissingLists {
            add(.orphan, "\(table.entries(count)) of list #\(list), which does not exist")
        }
        for orphan in engine.otherOrphans {
            add(
                .orphan, "\(entries(orphan.count)) of table \(orphan.table) name a row of \(orphan.parent) that does not exist",
                repairable: false)
        }

        for section in wrongRowCounts {
            add(.rowCount, "section #\(section.id) says it has \(section.stored) rows, but \(section.actual) are in it")
        }
        for problem in rank { add(.rank, problem.message) }
        for note in pending {
            let node = "\(note.space.pending) notes node \(note.first) of \(note.space.ownerNoun) #\(note.owner)"
            if !note.ownerExists {
                add(.pending, "\(node), which does not exist")
            } else if !note.nodeExists {
                add(.pending, "\(node), which has no such node")
            } else {
                add(.pending, "\(node) at rest (each commit settles every note)")
            }
        }

        let range = "1…\(OrderedTable.upperBound - 1)"
        for group in sectionsOutsideRange {
            add(.position, "\(list(group.parent)) has \(plural(group.count, "section")) at positions outside \(range): \(places(group))")
        }
        for group in rowsOutsideRange {
            add(.position, "section #\(group.parent) has \(plural(group.count, "row")) at positions outside \(range): \(places(group))")
        }

        for group in journalPastVersion {
            add(
                .journal,
                "\(list(group.list)) is at version \(group.listVersion), but the journal has \(entries(group.count)) past it: versions \(versions(group))"
            )
        }
        for entry in unreadableJournal {
            add(
                .journal, "the journal entry of version \(entry.version) of \(list(entry.list)) is neither a changeset nor a reload: \(entry.excerpt)"
            )
        }
        if let mark = engine.writerMark {
            if !mark.isPresent {
                add(.journal, "journal_writer has no row: sectionctl's writes go unmarked, and plain SQL unnoticed")
            }
            if writerActiveAtRest {
                add(.journal, "journal_writer is active (1) with no sectionctl transaction open: plain SQL since went unnoticed, into undo's log")
            }
            if writerStepIsBehind, let highest = mark.highestStepInUse {
                add(
                    .journal,
                    "journal_writer's step counter is at \(writerStepAtRest ?? mark.step &- 1), behind step \(highest) of the undo history: new steps would mix their undo log with old ones"
                )
            }
        }

        for (groups, what) in [(undoPastVersion, "undo"), (redoPastVersion, "redo")] {
            for group in groups {
                add(
                    .undo,
                    "\(list(group.list)) is at version \(group.listVersion), but its \(what) history has \(plural(group.count, "step")) past it: versions \(versions(group))"
                )
            }
        }
        for twice in stepsFiledTwice {
            add(
                .undo,
                "\(list(twice.list)) files step \(twice.step) under versions \(twice.versions.map(String.init).joined(separator: ", ")): undoing one would replay the others' writes"
            )
        }
        for run in malformedUndoRuns {
            add(
                .undo,
                "\(list(run.list))'s undo log entry #\(run.entry) (step \(run.step)) stands for ids #\(run.first)…#\(run.last), which is no run of sections inserted: undoing its step would take back what it did not do"
            )
        }
        if let list = replicaListMissing {
            add(.replica, "the replica mirrors list #\(list), which does not exist here: clone a fresh replica", repairable: false)
        }
        for run in allottedIDsInUse {
            add(.replica, "allotted \(run.kind) ids \(run.first)…\(run.last) include ids in use: an add would collide")
        }
        if let behind = sequenceBehind {
            add(.replica, "the next intent sequence is \(behind.next), not past pending intent \(behind.highest)")
        }
        for behind in sequencesBehind {
            add(
                .ids,
                "the id sequence of \(behind.table) is at \(behind.sequence), behind id \(behind.highest) in use or held by a replica: the next add would collide"
            )
        }
        for run in heldIDsInUse {
            add(.ids, "replica \(run.replica) holds \(run.kind) ids \(run.first)…\(run.last) unused, and some are in use: its add would collide")
        }
        for text in invalidText {
            add(
                .text,
                "\(text.item) of \(list(text.list)): its \(text.column) is not valid UTF-8 (bytes \(text.shownBytes)); repair writes \(quoted(text.repaired)), U+FFFD for each byte that is not UTF-8"
            )
        }
        if !unreadableIntents.isEmpty {
            add(
                .replica,
                "pending \(unreadableIntents.count == 1 ? "intent" : "intents") \(unreadableIntents.map(String.init).joined(separator: ", ")) not an intent: a sync would stop on it",
                repairable: false)
        }
        return problems
    }
}

/// A stored text that is not valid UTF-8: where it is, and its bytes.
struct InvalidText: Sendable {
    /// `rows` or `sections`.
    var table: String
    /// `title`, `value` or `empty_text`.
    var column: String
    var id: Int64
    /// The list the item is in.
    var list: Int64
    var bytes: [UInt8]

    /// `row #4` or `section #2`.
    var item: String { "\(table == "rows" ? "row" : "section") #\(id)" }

    /// The text repair writes: each byte that is not UTF-8 as U+FFFD, as the text is shown.
    var repaired: String { String(decoding: bytes, as: UTF8.self) }

    /// The bytes in hex, the first 32 of them and how many more.
    var shownBytes: String {
        let shown = bytes.prefix(32).map { String(format: "%02x", $0) }.joined(separator: " ")
        return bytes.count > 32 ? shown + " and \(bytes.count - 32) more" : shown
    }
}

extension ListKeyedTable {
    /// `count` of its entries, as a message says it: `1 journal entry`, `3 undo steps`.
    func entries(_ count: Int) -> String {
        switch self {
        case .journal: return count == 1 ? "1 journal entry" : "\(count) journal entries"
        case .undoSteps: return plural(count, "undo step")
        case .redoSteps: return plural(count, "redo step")
        case .undoLog: return count == 1 ? "1 undo log entry" : "\(count) undo log entries"
        }
    }
}

/// The first ids of a group, and how many more: `#4, #5, #6` or `#4, #5, #6, #7, #8 and 20 more`.
func ids(_ group: ItemGroup) -> String {
    more(group.first.map { "#\($0.id)" }, of: group.count)
}

/// The first items of a group with their positions: `#4 at 0, #5 at -1 (the parking value)`.
func places(_ group: ItemGroup) -> String {
    more(
        group.first.map { "#\($0.id) at \($0.position)" + ($0.position == OrderedTable.parkingPosition ? " (the parking value)" : "") },
        of: group.count)
}

/// The first versions of a group, and how many more.
func versions(_ group: VersionGroup) -> String {
    more(group.first.map(\.description), of: group.count)
}

/// `1 entry`, `3 entries`.
func entries(_ count: Int) -> String {
    count == 1 ? "1 entry" : "\(count) entries"
}

private func more(_ shown: [String], of count: Int) -> String {
    shown.joined(separator: ", ") + (count > shown.count ? " and \(count - shown.count) more" : "")
}

/// The start of a stored text, for a message.
private func excerpt(_ text: String) -> String {
    text.count <= 40 ? text : String(text.prefix(40)) + "…"
}
