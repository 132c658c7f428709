/// What `check()` reads and `repair()` writes across the tables, in the SQL both engines speak:
/// what belongs to nothing, positions out of range, counts, and the journal's and undo history's
/// agreement with their lists' versions. (The rank structure's own statements are
/// `RankNodeTable`'s; the engine's own checks, the schema objects and the writer mark on SQLite,
/// live in `Engine/`.)
extension Database {
    // MARK: - What belongs to nothing

    /// The rows whose section does not exist, by section: how many, and the first ids.
    func rowsOfMissingSections() throws -> [ItemGroup] {
        try groups(
            """
            SELECT r.section_id, r.id, r.position FROM rows AS r
            WHERE NOT EXISTS (SELECT 1 FROM sections AS s WHERE s.id = r.section_id)
            ORDER BY r.section_id, r.id
            """)
    }

    /// The sections whose list does not exist, by list: how many, and the first ids.
    func sectionsOfMissingLists() throws -> [ItemGroup] {
        try groups(
            """
            SELECT s.list_id, s.id, s.position FROM sections AS s
            WHERE NOT EXISTS (SELECT 1 FROM lists AS l WHERE l.id = s.list_id)
            ORDER BY s.list_id, s.id
            """)
    }

    /// The lists that entries of `table` (a table with a `list_id`: the journal, the undo and
    /// redo steps, the undo log) name but that do not exist, with how many entries each. The
    /// undo log's list −1 (rows deleted with their section) is no list and never counted.
    func entriesOfMissingLists(in table: ListKeyedTable) throws -> [(list: Int64, count: Int)] {
        try query(
            """
            SELECT e.list_id, count(*) FROM \(table.rawValue) AS e
            WHERE e.list_id <> -1 AND NOT EXISTS (SELECT 1 FROM lists AS l WHERE l.id = e.list_id)
            GROUP BY e.list_id ORDER BY e.list_id
            """
        ) { ($0.int64(0), $0.int(1)) }
    }

    /// The steps of the undo log entries that name a list that does not exist (the lists that
    /// file those steps cannot trust what undoing them would replay).
    func stepsOfUndoLogEntriesOfMissingLists() throws -> [Int64] {
        try query(
            """
            SELECT DISTINCT e.step FROM undo_log AS e
            WHERE e.list_id <> -1 AND NOT EXISTS (SELECT 1 FROM lists AS l WHERE l.id = e.list_id) ORDER BY e.step
            """
        ) { $0.int64(0) }
    }

    /// The lists plain SQL changed since their last version (`journaled` = 0).
    func listsChangedOutsideSectionctl() throws -> [Int64] {
        try query("SELECT id FROM lists WHERE journaled = 0 ORDER BY id") { $0.int64(0) }
    }

    /// Deletes the entries of `table` that belong to `list`, which does not exist.
    @discardableResult
    func deleteEntries(ofMissingList list: Int64, in table: ListKeyedTable) throws -> Int {
        try run("DELETE FROM \(table.rawValue) WHERE list_id = ?", list)
    }

    /// Deletes the rows of a section that does not exist. Returns how many it deleted.
    @discardableResult
    package func deleteRows(ofMissingSection section: Int64) throws -> Int {
        try run("DELETE FROM rows WHERE section_id = ?", section)
    }

    /// Deletes the sections of a list that does not exist, their rows first (as
    /// `deleteSections(of:)` does). Returns how many sections it deleted.
    @discardableResult
    package func deleteSections(ofMissingList list: Int64) throws -> Int {
        try run("DELETE FROM rows WHERE section_id IN (SELECT id FROM sections WHERE list_id = ?)", list)
        return try run("DELETE FROM sections WHERE list_id = ?", list)
    }

    // MARK: - Positions

    /// The items of `table` at positions outside `1 ..< OrderedTable.upperBound`, by parent:
    /// how many, and the first ones with their positions.
    func itemsOutsidePositionRange(_ table: OrderedTable) throws -> [ItemGroup] {
        try groups(
            """
            SELECT \(table.parent), id, position FROM \(table.table)
            WHERE position < 1 OR position >= ? ORDER BY \(table.parent), position, id
            """, OrderedTable.upperBound)
    }

    /// Gives the items of `parent` evenly spaced positions across `1 ..< OrderedTable.upperBound`,
    /// in their order by (position, id), writing only positions in that range. Returns the ids
    /// and old positions of the items, in order.
    ///
    /// Items moving down are written first, lowest first, then items moving up, highest first:
    /// under `UNIQUE (parent, position)`, neither order ever lands on a position still taken
    /// (the order of `OrderedTable`'s spreading, over the whole range).
    @discardableResult
    func renumberItems(of parent: Int64, in table: OrderedTable) throws -> [(id: Int64, position: Int64)] {
        let items = try query(
            "SELECT id, position FROM \(table.table) WHERE \(table.parent) = ? ORDER BY position, id", parent
        ) { (id: $0.int64(0), position: $0.int64(1)) }
        let gap = (OrderedTable.upperBound - 1) / Int64(items.count + 1)
        let moves = items.enumerated().map { index, item in (id: item.id, from: item.position, to: Int64(index + 1) * gap) }
        for move in moves where move.to < move.from {
            try run("UPDATE \(table.table) SET position = ? WHERE id = ?", move.to, move.id)
        }
        for move in moves.reversed() where move.to > move.from {
            try run("UPDATE \(table.table) SET position = ? WHERE id = ?", move.to, move.id)
        }
        return items
    }

    // MARK: - Counts

    /// Sets a section's row count.
    func setRowCount(_ count: Int, ofSection section: Int64) throws {
        try run("UPDATE sections SET row_count = ? WHERE id = ?", count, section)
    }

    // MARK: - The journal and the undo history against the lists' versions

    /// The journal entries at versions past their list's version, by list, oldest first.
    func journalEntriesPastListVersion() throws -> [VersionGroup] {
        try versionGroups(
            """
            SELECT j.list_id, l.version, j.version FROM journal AS j JOIN lists AS l ON l.id = j.list_id
            WHERE j.version > l.version ORDER BY j.list_id, j.version
            """)
    }

    /// The steps of `history` at versions past their list's version, by list, oldest first.
    func historyStepsPastListVersion(_ history: UndoHistory) throws -> [VersionGroup] {
        try versionGroups(
            """
            SELECT h.list_id, l.version, h.version FROM \(history.table) AS h JOIN lists AS l ON l.id = h.list_id
            WHERE h.version > l.version ORDER BY h.list_id, h.version
            """)
    }

    /// Calls `body` with every journal entry of the lists there are, as (list, the list's
    /// version, the entry's version, changes).
    func forEachJournalEntry(_ body: (Int64, ListVersion, ListVersion, String) throws -> Void) throws {
        try forEachRow(
            """
            SELECT j.list_id, l.version, j.version, j.changes FROM journal AS j JOIN lists AS l ON l.id = j.list_id
            ORDER BY j.list_id, j.version
            """, arguments: []
        ) { row in
            try body(row.int64(0), row.listVersion(1), row.listVersion(2), row.string(3))
            return true
        }
    }

    /// Drops the list's journal entries past `version`. Returns how many it dropped.
    @discardableResult
    func dropJournalEntries(list: Int64, after version: ListVersion) throws -> Int {
        try run("DELETE FROM journal WHERE list_id = ? AND version > ?", list, version.rawValue)
    }

    /// Sets what the journal says `version` of the list changed.
    func replaceJournalEntry(list: Int64, version: ListVersion, changes: String) throws {
        try run("UPDATE journal SET changes = ? WHERE list_id = ? AND version = ?", changes, list, version.rawValue)
    }

    /// The steps a list files under more than one version (of its undo and redo history
    /// together), as (list, step, versions).
    func historyStepsFiledTwice() throws -> [(list: Int64, step: Int64, versions: [ListVersion])] {
        let rows = try query(
            """
            WITH h AS (SELECT list_id, step, version FROM undo_steps UNION ALL SELECT list_id, step, version FROM redo_steps)
            SELECT a.list_id, a.step, a.version FROM h AS a
            WHERE (SELECT count(*) FROM h AS b WHERE b.list_id = a.list_id AND b.step = a.step) > 1
            ORDER BY a.list_id, a.step, a.version
            """
        ) { (list: $0.int64(0), step: $0.int64(1), version: $0.listVersion(2)) }
        var result: [(list: Int64, step: Int64, versions: [ListVersion])] = []
        for row in rows {
            if let last = result.last, last.list == row.list, last.step == row.step {
                result[result.count - 1].versions.append(row.version)
            } else {
                result.append((row.list, row.step, [row.version]))
            }
        }
        return result
    }

    /// The undo log's entries for a run of ids (`last_id` set) that are no run of sections
    /// inserted (`Migrations/0013_compact_bulk_history.sql`): on another kind of entry, or not
    /// ending past a first id above 0. Undoing such a step would take back what it did not do.
    /// Only entries of lists there are (the others are named as belonging to no list).
    func malformedUndoRuns() throws -> [(list: Int64, step: Int64, entry: Int64, first: Int64, last: Int64)] {
        try query(
            """
            SELECT e.list_id, e.step, e.id, e.item_id, e.last_id FROM undo_log AS e
            WHERE e.last_id IS NOT NULL AND NOT (e.action = 'insert' AND e.target = 'section' AND e.item_id > 0 AND e.last_id > e.item_id)
                AND EXISTS (SELECT 1 FROM lists AS l WHERE l.id = e.list_id)
            ORDER BY e.list_id, e.id
            """
        ) { (list: $0.int64(0), step: $0.int64(1), entry: $0.int64(2), first: $0.int64(3), last: $0.int64(4)) }
    }

    /// The lists whose undo or redo history files `step`.
    package func lists(filingStep step: Int64) throws -> [Int64] {
        try query(
            "SELECT list_id FROM undo_steps WHERE step = ? UNION SELECT list_id FROM redo_steps WHERE step = ? ORDER BY 1", step, step
        ) { $0.int64(0) }
    }

    /// The highest step number the undo history uses (its log, and the steps filed), if any.
    package func highestStepInUse() throws -> Int64? {
        try scalarInt(
            """
            SELECT max(step) FROM (
                SELECT max(step) AS step FROM undo_log UNION ALL SELECT max(step) FROM undo_steps
                UNION ALL SELECT max(step) FROM redo_steps) AS s
            """)
    }

    /// Drops the list's whole undo and redo history: its steps and everything they logged.
    /// Returns how many steps of each it dropped.
    @discardableResult
    func dropUndoHistory(of list: Int64) throws -> (undo: Int, redo: Int) {
        let undo = try historySteps(.undo, of: list)
        let redo = try historySteps(.redo, of: list)
        for step in undo + redo { try dropUndoLog(step: step.step, list: list) }
        try run("DELETE FROM undo_log WHERE list_id = ?", list)
        try clearHistory(.undo, of: list)
        try clearHistory(.redo, of: list)
        return (undo.count, redo.count)
    }

    /// Drops what `step` logged, for every list: the log of a transaction that files no step.
    func dropUndoLog(step: Int64) throws {
        try run("DELETE FROM undo_log WHERE step = ?", step)
    }

    // MARK: - Grouping

    /// Reads (parent, id, position) rows, in parent order, into groups.
    private func groups(_ sql: String, _ arguments: (any SQLArgument)?...) throws -> [ItemGroup] {
        var groups: [ItemGroup] = []
        try forEachRow(sql, arguments: arguments) { row in
            let (parent, id, position) = (row.int64(0), row.int64(1), row.int64(2))
            if groups.last?.parent != parent { groups.append(ItemGroup(parent: parent)) }
            groups[groups.count - 1].add(id: id, position: position)
            return true
        }
        return groups
    }

    /// Reads (list, list version, version) rows, in list order, into groups.
    private func versionGroups(_ sql: String) throws -> [VersionGroup] {
        var groups: [VersionGroup] = []
        try forEachRow(sql, arguments: []) { row in
            let (list, listVersion, version) = (row.int64(0), row.listVersion(1), row.listVersion(2))
            if groups.last?.list != list { groups.append(VersionGroup(list: list, listVersion: listVersion)) }
            groups[groups.count - 1].add(version)
            return true
        }
        return groups
    }
}

/// A table whose entries belong to a list by `list_id`.
enum ListKeyedTable: String, CaseIterable, Sendable {
    case journal
    case undoSteps = "undo_steps"
    case redoSteps = "redo_steps"
    case undoLog = "undo_log"
}

/// Items of one parent (a section's rows, a list's sections) that a check found: how many, and
/// the first few with their positions, for a message.
struct ItemGroup: Sendable {
    /// How many items a message names by id.
    static let shownItems = 5

    package var parent: Int64
    package var count = 0
    package var first: [(id: Int64, position: Int64)] = []

    package init(parent: Int64) {
        self.parent = parent
    }

    mutating func add(id: Int64, position: Int64) {
        count += 1
        if first.count < Self.shownItems { first.append((id, position)) }
    }
}

/// Versions of one list that a check found past the list's version.
struct VersionGroup: Sendable {
    package var list: Int64
    var listVersion: ListVersion
    package var count = 0
    package var first: [ListVersion] = []

    package init(list: Int64, listVersion: ListVersion) {
        self.list = list
        self.listVersion = listVersion
    }

    mutating func add(_ version: ListVersion) {
        count += 1
        if first.count < ItemGroup.shownItems { first.append(version) }
    }
}
