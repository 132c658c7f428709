extension SectionStore {
    /// Verifies everything sectionctl relies on and does not keep by itself: each section's row
    /// count; every node of the rank structure (present on every level, nested, counting exactly
    /// the rows in its range, within its fill bounds); no `rank_pending` note left; positions in
    /// `1 ..< 2^62`; nothing that belongs to a row, section or list that does not exist; the
    /// journal and the undo history against their lists' versions. On a SQLite file also the
    /// engine's `quick_check`, the `journal_writer` row, and every table, column, index, trigger
    /// and view against those a new database of the same schema version has (see
    /// `IntegrityProblem.Kind`). Damaged data is reported, never trusted: a check does not trap.
    /// - Returns: one problem per thing found, in the order of `IntegrityProblem.Kind`; empty
    ///   when everything agrees. `repair()` mends those that are `isRepairable`.
    /// - Complexity: O(n log n) in all rows: it reads the whole database.
    public func check() throws -> [IntegrityProblem] {
        try findingsAtRest().problems
    }

    /// Mends what `check()` finds, in one transaction, keeping every id, title and order:
    ///
    /// - it recounts row counts; rebuilds the rank structure of every section whose structure
    ///   is wrong or noted in `rank_pending` (as the migration that made it does), and clears
    ///   the notes;
    /// - it deletes what belongs to nothing: rows of no section, sections of no list (with their
    ///   rows), rank nodes of no section, journal entries, undo and redo steps and undo log
    ///   entries of no list;
    /// - it gives the items of a section (or list) with any position outside `1 ..< 2^62` evenly
    ///   spaced positions, in their order by (position, id);
    /// - it drops journal entries past their list's version and makes an entry that is neither
    ///   a changeset nor a reload say reload; on a SQLite file it puts `journal_writer` back to
    ///   its one row, inactive, its step counter past every step in use;
    /// - it drops the undo and redo history of a list it cannot trust: steps past the list's
    ///   version, a step filed twice, positions renumbered (the log holds the old ones), or plain
    ///   SQL logged into it while `journal_writer` was left active;
    /// - on a SQLite file, it makes missing or altered indexes, triggers and views again from
    ///   the schema, and drops triggers and unique indexes on sectionctl's tables that the schema
    ///   does not have.
    ///
    /// Every list whose rows, sections, rank structure, journal or history it wrote is marked
    /// for reload (`RepairReport.reloadedLists`): a new version, journaled as a reload, so that
    /// observers and `ListHandle.changes(since:)` read it afresh. Then `check()` finds nothing.
    ///
    /// A database `check()` finds nothing wrong with is not written: the report is empty and no
    /// version changes. On a server, the engine's side (pages, schema objects, writer mark) is
    /// not checked, so not repaired either; the rest is repaired the same way.
    ///
    /// - Returns: what it changed, one line each, and the lists it marked for reload.
    /// - Throws: `RepositoryError.cannotRepair`, writing nothing, when a problem is not
    ///   `isRepairable` (the engine's page check failed, a table is missing or changed);
    ///   `.readOnly` for a database that cannot be written.
    /// - Complexity: O(n log n) in all rows, as `check()`, plus the rows it rewrites.
    @discardableResult
    public func repair() throws -> RepairReport {
        if isReadOnly { throw RepositoryError.readOnly(path: path) }
        // At rest first: inside the write, the writer mark is the transaction's own.
        let atRest = try findingsAtRest()
        guard !atRest.problems.isEmpty else { return RepairReport() }
        try refuseUnrepairable(atRest.problems)
        do {
            return try write { db in
                var found = try Integrity.findings(db, atRest: false)
                found.writerActiveAtRest = atRest.mark?.isActive ?? false
                found.writerStepAtRest = atRest.mark?.step
                let problems = found.problems
                try refuseUnrepairable(problems)
                guard !problems.isEmpty || found.writerActiveAtRest else { throw NothingToRepair() }
                var repair = Repair(db: db, found: found)
                try repair.run()
                let left = try Integrity.findings(db, atRest: false).problems
                guard left.isEmpty else {
                    throw RepositoryError.cannotRepair(path: path, problems: left.map { "it would leave \($0)" })
                }
                return RepairReport(actions: repair.actions, reloadedLists: repair.reloaded)
            }
        } catch is NothingToRepair {
            return RepairReport()
        }
    }

    /// What a check finds, read outside any write, and the writer mark as it was there.
    private func findingsAtRest() throws -> (problems: [IntegrityProblem], mark: WriterMark?) {
        var found: (problems: [IntegrityProblem], mark: WriterMark?)?
        do {
            return try read { db in
                let findings = try Integrity.findings(db, atRest: true)
                found = (findings.problems, findings.engine.writerMark)
                return found!
            }
        } catch let error as RepositoryError where found?.problems.contains(where: { $0.kind == .engine }) == true {
            // Damaged pages can fail even the end of the read (`error`): what it found stands.
            _ = error
            return found!
        }
    }

    private func refuseUnrepairable(_ problems: [IntegrityProblem]) throws {
        let refused = problems.filter { !$0.isRepairable }
        guard refused.isEmpty else { throw RepositoryError.cannotRepair(path: path, problems: refused.map(\.description)) }
    }
}

/// Thrown out of repair's transaction when it finds nothing to do, so that nothing is written.
private struct NothingToRepair: Error {}

/// One repair, inside its write transaction: mends what `found` names, in an order where each
/// part finds what it needs (views before the data, triggers after it), and notes what it did.
private struct Repair {
    let db: any Database
    let found: IntegrityFindings
    private(set) var actions: [RepairReport.Action] = []
    private(set) var reloaded: [RepairReport.ReloadedList] = []
    /// The lists whose rows, sections, rank structure, journal or history it wrote.
    private var changedLists: Set<Int64> = []
    /// The lists whose undo history cannot be trusted, with why.
    private var untrustedHistory: [Int64: String] = [:]
    /// The sections whose rank structure to build afresh.
    private var sectionsToRebuild: Set<Int64> = []
    /// The lists whose section rank structure to build afresh.
    private var listsToRebuild: Set<Int64> = []

    init(db: any Database, found: IntegrityFindings) {
        self.db = db
        self.found = found
    }

    mutating func run() throws {
        // Plain SQL changed these lists since their last version: their damage may be what is
        // mended here, so the mended state gets a version of its own.
        changedLists.formUnion(found.listsChangedOutsideSectionctl)
        try distrustAfterTriggerChanges()
        try mendWriterMark()
        for line in try db.mendSchema(found.engine.schema, phase: .beforeData) { note(.schema, line) }
        try removeOrphans()
        try renumberPositions()
        try recountRows()
        try rebuildRankStructures()
        try mendJournal()
        try dropUntrustedHistory()
        try mendReplicaTables()
        try mendIDs()
        try mendTexts()
        for line in try db.mendSchema(found.engine.schema, phase: .afterData) { note(.schema, line) }
        // What the triggers logged of this repair is no step anyone can undo.
        if let step = try db.writerStep() { try db.dropUndoLog(step: step) }
        try markChangedLists()
    }

    /// A replica file's tables: drops the runs of allotted ids that overlap ids in use (a sync
    /// takes new ones), and sets the next intent sequence past every pending intent.
    private mutating func mendReplicaTables() throws {
        for run in found.allottedIDsInUse {
            try db.run("DELETE FROM replica_ids WHERE kind = ? AND first = ?", run.kind, run.first)
            note(.replica, "dropped allotted \(run.kind) ids \(run.first)…\(run.last), which included ids in use")
        }
        if let behind = found.sequenceBehind {
            try db.run("UPDATE replica SET next_sequence = ?", behind.highest + 1)
            note(.replica, "set the next intent sequence to \(behind.highest + 1), past every pending intent")
        }
    }

    /// Takes ids in use from what replicas hold, and moves each id sequence past every id in
    /// use or held.
    private mutating func mendIDs() throws {
        for run in found.heldIDsInUse {
            let table = run.kind == "row" ? "rows" : "sections"
            let used = try db.query("SELECT id FROM \(table) WHERE id BETWEEN ? AND ? ORDER BY id", run.first, run.last) { $0.int64(0) }
            try db.run("DELETE FROM sync_unused_ids WHERE replica = ? AND kind = ? AND first = ?", run.replica, run.kind, run.first)
            var next = run.first
            for id in used + [run.last + 1] {
                if next < id {
                    try db.run(
                        "INSERT INTO sync_unused_ids (replica, kind, first, last) VALUES (?, ?, ?, ?)", run.replica, run.kind, next, id - 1)
                }
                next = id + 1
            }
            note(.ids, "took \(used.count) \(run.kind) ids in use from those replica \(run.replica) held")
        }
        for behind in found.sequencesBehind {
            try db.setIDSequence(table: behind.table, to: behind.highest)
            note(.ids, "moved the id sequence of \(behind.table) from \(behind.sequence) to \(behind.highest)")
        }
    }

    /// Writes each text that is not valid UTF-8 as it is shown: U+FFFD for each byte that is
    /// not UTF-8.
    private mutating func mendTexts() throws {
        for text in found.invalidText {
            try db.run("UPDATE \(text.table) SET \(text.column) = ? WHERE id = ?", text.repaired, text.id)
            note(.text, "\(text.item) of \(list(text.list)): wrote its \(text.column) as \(quoted(text.repaired)) (bytes \(text.shownBytes))")
            changedLists.insert(text.list)
            untrustedHistory[text.list] = "its undo log may hold texts that are not valid UTF-8"
        }
    }

    private mutating func note(_ kind: IntegrityProblem.Kind, _ message: String) {
        actions.append(RepairReport.Action(kind: kind, message: message))
    }

    private func list(_ id: Int64) -> String { found.list(id) }

    private mutating func mendWriterMark() throws {
        guard let mark = found.engine.writerMark else { return }
        for line in try db.restoreWriterMark(pastStep: mark.highestStepInUse) { note(.journal, line) }
        guard found.writerActiveAtRest else { return }
        note(.journal, "journal_writer: set active back to 0, and marked every list for reload (plain SQL went unnoticed while it was 1)")
        changedLists.formUnion(found.listNames.keys)
        if let step = found.writerStepAtRest {
            for list in try db.lists(filingStep: step) {
                untrustedHistory[list] = "plain SQL may have been logged into its step \(step) while journal_writer was active"
            }
        }
    }

    /// A trigger missing, changed or unknown may have let writes go unnoticed (every list is
    /// marked for reload) or unlogged (a trigger that logs for undo, or one that could do
    /// anything: every list's undo history is dropped).
    private mutating func distrustAfterTriggerChanges() throws {
        let triggers = found.engine.schema.filter { $0.type == "trigger" }
        guard !triggers.isEmpty else { return }
        changedLists.formUnion(found.listNames.keys)
        for trigger in triggers {
            let reason: String
            switch trigger.change {
            case .missing where trigger.pristineSQL?.contains("undo_log") == true:
                reason = "trigger \(trigger.name), which logs writes for undo, was missing"
            case .altered:
                reason = "trigger \(trigger.name) was defined differently"
            case .unknown:
                reason = "trigger \(trigger.name), which the schema does not have, was on table \(trigger.table)"
            default:
                continue
            }
            for list in found.listNames.keys where untrustedHistory[list] == nil { untrustedHistory[list] = reason }
        }
    }

    private mutating func removeOrphans() throws {
        for step in found.stepsOfOrphanUndoLog {
            for list in try db.lists(filingStep: step) where untrustedHistory[list] == nil {
                untrustedHistory[list] = "entries of its step \(step) named a list that does not exist"
            }
        }
        for group in found.sectionsOfMissingLists {
            let count = try db.deleteSections(ofMissingList: group.parent)
            note(.orphan, "deleted \(plural(count, "section")) of list #\(group.parent), which does not exist, with their rows: \(ids(group))")
        }
        for group in found.rowsOfMissingSections {
            let count = try db.deleteRows(ofMissingSection: group.parent)
            note(.orphan, "deleted \(plural(count, "row")) of section #\(group.parent), which does not exist: \(ids(group))")
        }
        for (space, owner, count) in found.rankNodesOfMissingOwners {
            try db.deleteRankNodes(in: space, ofMissingOwner: owner)
            note(.orphan, "deleted \(plural(count, space.nodeNoun)) of \(space.ownerNoun) #\(owner), which does not exist")
        }
        for (table, list, _) in found.entriesOfMissingLists {
            let count = try db.deleteEntries(ofMissingList: list, in: table)
            note(.orphan, "deleted \(table.entries(count)) of list #\(list), which does not exist")
        }
    }

    private mutating func renumberPositions() throws {
        for group in found.sectionsOutsideRange where found.listNames[group.parent] != nil {
            let items = try db.renumberItems(of: group.parent, in: .sections)
            note(
                .position,
                "\(list(group.parent)): gave its \(plural(items.count, "section")) evenly spaced positions, in their order (before: \(places(group)))"
            )
            changedLists.insert(group.parent)
            listsToRebuild.insert(group.parent)
            untrustedHistory[group.parent] = "its sections' positions were renumbered, and its undo log holds the old ones"
        }
        for group in found.rowsOutsideRange {
            guard let list = try db.listID(ofSection: group.parent) else { continue }  // an orphan, gone
            let items = try db.renumberItems(of: group.parent, in: .rows)
            note(
                .position,
                "section #\(group.parent): gave its \(plural(items.count, "row")) evenly spaced positions, in their order (before: \(places(group)))")
            sectionsToRebuild.insert(group.parent)
            changedLists.insert(list)
            untrustedHistory[list] = "the positions of section #\(group.parent)'s rows were renumbered, and its undo log holds the old ones"
        }
    }

    private mutating func recountRows() throws {
        for section in found.wrongRowCounts {
            guard let list = try db.listID(ofSection: section.id) else { continue }
            try db.setRowCount(section.actual, ofSection: section.id)
            note(.rowCount, "section #\(section.id): set its row count to \(section.actual) (it said \(section.stored))")
            changedLists.insert(list)
        }
    }

    private mutating func rebuildRankStructures() throws {
        sectionsToRebuild.formUnion(found.rank.filter { $0.space == .rows }.map(\.owner))
        sectionsToRebuild.formUnion(found.pending.filter { $0.space == .rows && $0.ownerExists }.map(\.owner))
        var lists: [Int64: Int64] = [:]
        for section in sectionsToRebuild.sorted() {
            lists[section] = try db.listID(ofSection: section)  // none for an orphan, gone
        }
        let nodes = try db.rebuildRankNodes(in: .rows, owners: lists.keys.sorted())
        for (section, list) in lists.sorted(by: { $0.key < $1.key }) {
            note(.rank, "section #\(section): built its rank structure afresh from its rows (\(plural(nodes[section] ?? 0, "node")))")
            changedLists.insert(list)
        }
        listsToRebuild.formUnion(found.rank.filter { $0.space == .sections }.map(\.owner))
        listsToRebuild.formUnion(found.pending.filter { $0.space == .sections && $0.ownerExists }.map(\.owner))
        let listNodes = try db.rebuildRankNodes(in: .sections, owners: listsToRebuild.sorted())
        for list in listsToRebuild.sorted() {
            note(.rank, "\(self.list(list)): built its section rank structure afresh from its sections (\(plural(listNodes[list] ?? 0, "node")))")
            changedLists.insert(list)
        }
        for space in RankSpace.all {
            try db.clearRankPending(in: space)
            let notes = found.pending.count { $0.space == space }
            if notes > 0 { note(.pending, "cleared \(plural(notes, "\(space.pending) note"))") }
        }
    }

    private mutating func mendJournal() throws {
        for group in found.journalPastVersion {
            let count = try db.dropJournalEntries(list: group.list, after: group.listVersion)
            note(
                .journal,
                "\(list(group.list)): dropped \(entries(count)) of the journal past its version \(group.listVersion): versions \(versions(group))")
            changedLists.insert(group.list)
        }
        for entry in found.unreadableJournal {
            try db.replaceJournalEntry(list: entry.list, version: entry.version, changes: Journal.reloadJSON)
            note(.journal, "\(list(entry.list)): the journal entry of version \(entry.version), neither a changeset nor a reload, now says reload")
            changedLists.insert(entry.list)
        }
    }

    private mutating func dropUntrustedHistory() throws {
        for group in found.undoPastVersion + found.redoPastVersion {
            untrustedHistory[group.list] = "it named versions past the list's \(group.listVersion)"
        }
        for twice in found.stepsFiledTwice {
            untrustedHistory[twice.list] = "it filed step \(twice.step) under \(twice.versions.count) versions"
        }
        for run in found.malformedUndoRuns {
            untrustedHistory[run.list] = "its undo log entry #\(run.entry) stood for ids #\(run.first)…#\(run.last), no run of sections inserted"
        }
        for (id, reason) in untrustedHistory.sorted(by: { $0.key < $1.key }) where found.listNames[id] != nil {
            let dropped = try db.dropUndoHistory(of: id)
            changedLists.insert(id)
            guard dropped.undo + dropped.redo > 0 else { continue }
            note(
                .undo,
                "\(list(id)): dropped its undo history (\(plural(dropped.undo, "step")) to undo, \(dropped.redo) to redo): \(reason)")
        }
    }

    private mutating func markChangedLists() throws {
        for id in changedLists.sorted() {
            guard let version = try db.markListForReload(id: id), let record = try db.listRecordIfAny(id: id) else { continue }
            reloaded.append(RepairReport.ReloadedList(id: ListID(id), name: record.name, version: version))
        }
        reloaded.sort { ($0.name.utf8.lexicographicallyPrecedes($1.name.utf8)) }
    }
}
