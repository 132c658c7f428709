import Foundation
import SQLite

/// SQLite's side of the storage seam (see `Database`): the engine of a database file. It wraps
/// one `SQLite.Connection`, the thin layer over SQLite's C API, which knows nothing of lists;
/// what sectionctl asks of a file is here and in the `SQLiteEngine+…` files beside it.
package final class SQLiteEngine: Database {
    /// The connection to the file.
    package let connection: Connection

    /// The engine of the file `connection` has open.
    init(_ connection: Connection) {
        self.connection = connection
    }

    /// The path of the file, as it was opened.
    var path: String { connection.path }

    /// Whether the connection can only read.
    var isReadOnly: Bool { connection.isReadOnly }

    // MARK: - Running SQL

    /// A file has no round trips to save: the statement runs at once.
    package func send(_ sql: String, arguments: [(any SQLArgument)?]) throws {
        try run(sql, arguments: arguments)
    }

    @discardableResult
    package func run(_ sql: String, arguments: [(any SQLArgument)?]) throws -> Int {
        let statement = try connection.statement(sql)
        try statement.bind(arguments.map { $0?.sqliteValue })
        defer { statement.reset() }
        while try statement.step() {}
        return connection.changes
    }

    package func forEachRow(_ sql: String, arguments: [(any SQLArgument)?], _ body: (any ResultRow) throws -> Bool) throws {
        let statement = try connection.statement(sql)
        try statement.bind(arguments.map { $0?.sqliteValue })
        defer { statement.reset() }
        while try statement.step() {
            guard try body(statement) else { return }
        }
    }

    package func execute(script sql: String) throws {
        try connection.execute(script: sql)
    }

    package func inTransaction<T>(_ mode: TransactionMode, _ body: () throws -> T) throws -> T {
        switch mode {
        case .read: try connection.inTransaction(.deferred, body)
        case .write: try connection.inTransaction(.immediate, body)
        case .ownWrite:
            try connection.inTransaction(.immediate) {
                try setWriterMark(active: true)
                return try body()
            }
        }
    }

    package func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        try connection.inSavepoint(body)
    }

    package var isAutocommit: Bool { connection.isAutocommit }

    /// Writers take turns on the whole file (`BEGIN IMMEDIATE`): a list needs no lock of its own.
    package var listLockClause: String { "" }

    package func oneOf(_ column: String, _ ids: [Int64]) -> (sql: String, argument: String) {
        ("\(column) IN (SELECT value FROM json_each(?))", "[" + ids.map(String.init).joined(separator: ",") + "]")
    }
}

extension Statement: ResultRow {}

extension SQLArgument {
    /// The argument as SQLite binds it.
    var sqliteValue: any SQLiteBindable {
        switch sqlValue {
        case .integer(let value): return value
        case .real(let value): return value
        case .text(let value): return value
        case .blob(let value): return value
        }
    }
}

// MARK: - The domain operations

extension SQLiteEngine {
    package func lockList(holding owner: Int64, in space: RankSpace) throws {}

    /// The mark is the one row of `journal_writer`: writers take turns, so no other connection
    /// ever sees it set. Its `step` numbers the transaction's entries in `undo_log`.
    package func setWriterMark(active: Bool) throws {
        if active {
            // Without its row (plain SQL with the guards dropped), nothing is marked: a commit
            // then fails on the missing step, and `repair` puts the row back.
            try run("UPDATE journal_writer SET active = 1, step = step + 1 WHERE id = 1")
        } else {
            try run("UPDATE journal_writer SET active = 0, bulk = 0 WHERE id = 1")
        }
    }

    package func commitChange(_ changesJSON: String, to list: ListRecord, history: HistoryStep) throws -> ListVersion {
        let version = try bumpVersion(of: list)
        try appendJournalEntry(list: list.id, version: version.number, changes: version.wasJournaled ? changesJSON : Journal.reloadJSON)
        try pruneJournal(list: list.id, through: version.number.advanced(by: -Journal.keptVersions))
        try fileInHistory(history, version: version.number, of: list)
        return version.number
    }

    package func makeCommitSignal(listID: Int64) throws -> any CommitSignal {
        DataVersionSignal(connection: connection)
    }

    package func makeRowAppender(keepingIDs: Bool) throws -> any RowAppender {
        try SQLiteRowAppender(db: self, keepingIDs: keepingIDs)
    }

    /// In a file with `auto_vacuum = INCREMENTAL` (every file created since schema 5, and any
    /// file `compact()` rewrote), runs `PRAGMA incremental_vacuum` once at least
    /// `SpaceReport.reclaimThresholdPages` pages and an eighth of the file are free: the file
    /// shrinks by them. O(1) otherwise (two header reads).
    package func reclaimFreePages() throws {
        guard isAutocommit, !isReadOnly else { return }
        let free = try scalarInt("PRAGMA freelist_count") ?? 0
        guard free >= SpaceReport.reclaimThresholdPages, free * 8 >= (try scalarInt("PRAGMA page_count") ?? 0),
            try scalarInt("PRAGMA auto_vacuum") == 2
        else { return }
        try execute(script: "PRAGMA incremental_vacuum")
    }

    /// `VACUUM` with `auto_vacuum = INCREMENTAL` (which converts an older file), then a
    /// checkpoint that truncates the write-ahead log.
    package func compact() throws -> SpaceReport? {
        let before = try spaceInUse()
        try execute(script: "PRAGMA auto_vacuum = INCREMENTAL")
        try execute(script: "VACUUM")
        _ = try query("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int(0) }
        let after = try spaceInUse()
        return SpaceReport(
            bytesBefore: before.bytes, bytesAfter: after.bytes, freePagesBefore: before.freePages,
            reclaimsFreePages: try scalarInt("PRAGMA auto_vacuum") == 2)
    }

    package func holdsReplicaTables() throws -> Bool {
        try scalarInt("SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = 'replica'") == 1
    }

    /// Moves the table's `AUTOINCREMENT` counter (`sqlite_sequence`) past `count` ids and returns
    /// them: SQLite never gives an id at or below the counter to a row inserted without one.
    package func allotIDs(table: String, count: Int) throws -> [Int64] {
        let highest = try highestIDGiven(table: table)
        try setIDSequence(table: table, to: highest + Int64(count))
        return Array((highest + 1)...(highest + Int64(count)))
    }

    /// The `AUTOINCREMENT` counter (`sqlite_sequence`).
    package func idSequence(table: String) throws -> Int64 {
        precondition(table == "rows" || table == "sections")
        return try scalarInt("SELECT seq FROM sqlite_sequence WHERE name = ?", table) ?? 0
    }

    package func setIDSequence(table: String, to value: Int64) throws {
        precondition(table == "rows" || table == "sections")
        if try scalarInt("SELECT count(*) FROM sqlite_sequence WHERE name = ?", table) == 0 {
            try run("INSERT INTO sqlite_sequence (name, seq) VALUES (?, ?)", table, value)
        } else {
            try run("UPDATE sqlite_sequence SET seq = ? WHERE name = ?", value, table)
        }
    }

    /// The file's size and free pages, as its header says, plus its write-ahead log's size.
    private func spaceInUse() throws -> (bytes: Int64, freePages: Int64) {
        let pages = try scalarInt("PRAGMA page_count") ?? 0
        let pageSize = try scalarInt("PRAGMA page_size") ?? 0
        let free = try scalarInt("PRAGMA freelist_count") ?? 0
        let wal = (try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int64 ?? 0
        return (pages * pageSize + wal, free)
    }
}

extension SQLiteEngine {
    /// Files the committed version (made by the current write transaction's step) in the list's
    /// undo or redo history, and drops the logs nothing can use any more. A server does the same
    /// in `sectionctl.commit_change`.
    private func fileInHistory(_ history: HistoryStep, version: ListVersion, of list: ListRecord) throws {
        let step = try currentWriterStep()
        switch history {
        case .change:
            for old in try historySteps(.redo, of: list.id) { try dropUndoLog(step: old.step, list: list.id) }
            try clearHistory(.redo, of: list.id)
            try addHistoryStep(.undo, list: list.id, version: version, step: step)
            for old in try historySteps(.undo, of: list.id, skippingNewest: Journal.keptUndoSteps) {
                try dropUndoLog(step: old.step, list: list.id)
                try removeHistoryStep(.undo, list: list.id, version: old.version)
            }
        case .undo(let undone):
            try dropUndoLog(step: try historyStep(.undo, list: list.id, version: undone)!, list: list.id)
            try removeHistoryStep(.undo, list: list.id, version: undone)
            try addHistoryStep(.redo, list: list.id, version: version, step: step)
        case .redo(let redone):
            try dropUndoLog(step: try historyStep(.redo, list: list.id, version: redone)!, list: list.id)
            try removeHistoryStep(.redo, list: list.id, version: redone)
            try addHistoryStep(.undo, list: list.id, version: version, step: step)
        case .received:
            for old in try historySteps(.undo, of: list.id) + historySteps(.redo, of: list.id) {
                try dropUndoLog(step: old.step, list: list.id)
            }
            try clearHistory(.undo, of: list.id)
            try clearHistory(.redo, of: list.id)
            try dropUndoLog(step: step, list: list.id)
        }
    }
}

/// A commit seen on a SQLite file: `PRAGMA data_version` changes whenever another connection
/// commits. A look that finds nothing new costs one pragma and reads nothing else.
private final class DataVersionSignal: CommitSignal {
    private let connection: Connection
    private var dataVersion: Int64?
    /// How often a wait looks again.
    private static let interval = 0.025

    init(connection: Connection) {
        self.connection = connection
    }

    func wait(upTo seconds: Double) throws -> Bool {
        var waited = 0.0
        while true {
            let current = try connection.scalarInt("PRAGMA data_version") ?? 0
            if current != dataVersion {
                dataVersion = current
                return true
            }
            guard waited < seconds else { return false }
            let pause = min(Self.interval, seconds - waited)
            Thread.sleep(forTimeInterval: pause)
            waited += pause
        }
    }
}

/// Appends rows to a SQLite database `batchSize` at a time by one multi-row `INSERT` (one
/// statement per row costs SQLite most of its time), its statements prepared once.
private final class SQLiteRowAppender: RowAppender {
    /// Rows per multi-row `INSERT`: 5 or 6 parameters each, far under SQLite's limit.
    static let batchSize = 50
    private let insertRow: Statement
    private let insertRowBatch: Statement
    private let keepingIDs: Bool
    /// Parameters per row.
    private let width: Int
    private var pending: [(any SQLiteBindable)?] = []

    init(db: SQLiteEngine, keepingIDs: Bool) throws {
        self.keepingIDs = keepingIDs
        width = keepingIDs ? 6 : 5
        insertRow = try db.connection.statement(RowRecord.insertSQL(rows: 1, withIDs: keepingIDs))
        insertRowBatch = try db.connection.statement(RowRecord.insertSQL(rows: Self.batchSize, withIDs: keepingIDs))
        pending.reserveCapacity(Self.batchSize * width)
    }

    func append(section: Int64, position: Int64, content: RowContent, id: Int64?) throws {
        precondition((id != nil) == keepingIDs, "an appender that keeps ids takes one with every row, and another none")
        if let id { pending.append(id) }
        pending += [section, position, content.kind.rawValue, content.title, content.value]
        if pending.count == Self.batchSize * width {
            try insert(pending, with: insertRowBatch)
            pending.removeAll(keepingCapacity: true)
        }
    }

    func finish() throws -> Int {
        for start in stride(from: 0, to: pending.count, by: width) {
            try insert(Array(pending[start..<(start + width)]), with: insertRow)
        }
        defer { pending.removeAll(keepingCapacity: true) }
        return pending.count / width
    }

    private func insert(_ values: [(any SQLiteBindable)?], with statement: Statement) throws {
        try statement.bind(values)
        defer { statement.reset() }
        try statement.step()
    }
}
