import Repository
import SQLite

/// Appends sections, and rows to the section appended last, to one list inside the caller's
/// transaction: prepared statements reused, positions computed directly (`OrderedTable.step`
/// apart, after the list's current last section), no reads per row, and rows inserted
/// `batchSize` at a time by one multi-row `INSERT` (one statement per row costs SQLite most of
/// its time). Call `finish()` to write the last batch.
struct BulkAppender {
    /// Rows per multi-row `INSERT`: 5 parameters each, far under SQLite's limit.
    static let batchSize = 50
    let list: ListRecord
    /// The list's sections, the appended ones included.
    private(set) var sectionCount: Int
    /// How many positions were written (one per section and row, plus any neighbours spread
    /// out when a gap ran out).
    private(set) var positionWrites = 0
    /// Told of each batch of rows written.
    var meter: ProgressMeter?

    private let db: Connection
    private let insertSection: Statement
    private let insertRow: Statement
    private let insertRowBatch: Statement
    private var pendingRows: [(any SQLiteBindable)?] = []
    private var lastSectionPosition: Int64?
    private var sectionID: Int64?
    private var rowCount = 0
    private var lastRowPosition: Int64?

    init(list: ListRecord, db: Connection) throws {
        self.list = list
        self.db = db
        sectionCount = try db.sectionCount(of: list)
        lastSectionPosition = try db.scalarInt("SELECT max(position) FROM sections WHERE list_id = ?", list.id)
        insertSection = try db.statement(SectionRecord.insertSQL)
        insertRow = try db.statement(RowRecord.insertSQL(rows: 1))
        insertRowBatch = try db.statement(RowRecord.insertSQL(rows: Self.batchSize))
        pendingRows.reserveCapacity(Self.batchSize * 5)
    }

    /// Appends an empty section after the list's last; rows appended next go into it.
    mutating func appendSection(title: String, emptyText: String?) throws {
        let position = try nextPosition(after: lastSectionPosition, in: .sections, parent: list.id, count: sectionCount)
        try insertSection.bind([list.id, position, title, emptyText])
        defer { insertSection.reset() }
        try insertSection.step()
        sectionID = db.lastInsertedRowID
        lastSectionPosition = position
        sectionCount += 1
        rowCount = 0
        lastRowPosition = nil
    }

    /// Appends a row to the section appended last.
    mutating func appendRow(_ content: RowContent) throws {
        guard let sectionID else { preconditionFailure("a row is appended before any section") }
        let position = try nextPosition(after: lastRowPosition, in: .rows, parent: sectionID, count: rowCount)
        pendingRows += [sectionID, position, content.kind.rawValue, content.title, content.value]
        lastRowPosition = position
        rowCount += 1
        if pendingRows.count == Self.batchSize * 5 {
            try insert(pendingRows, with: insertRowBatch)
            pendingRows.removeAll(keepingCapacity: true)
            meter?.add(rows: Self.batchSize)
        }
    }

    /// Writes the rows still waiting for a full batch.
    mutating func finish() throws {
        for start in stride(from: 0, to: pendingRows.count, by: 5) {
            try insert(Array(pendingRows[start..<(start + 5)]), with: insertRow)
        }
        if !pendingRows.isEmpty { meter?.add(rows: pendingRows.count / 5) }
        pendingRows.removeAll(keepingCapacity: true)
    }

    private func insert(_ values: [(any SQLiteBindable)?], with statement: Statement) throws {
        try statement.bind(values)
        defer { statement.reset() }
        try statement.step()
    }

    /// The position after `last` (or the first position in an empty parent); when the space
    /// past the end has run out, the ordered table makes room.
    private mutating func nextPosition(after last: Int64?, in table: OrderedTable, parent: Int64, count: Int) throws -> Int64 {
        positionWrites += 1
        if let position = OrderedTable.position(between: last, and: nil) {
            return position
        }
        try finish()  // making room reads the rows
        let place = try table.positionForSlot(count, of: parent, count: count, movingID: nil, in: db)
        positionWrites += place.rewritten
        return place.position
    }
}
