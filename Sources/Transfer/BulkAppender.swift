import Repository

/// Appends sections, and rows to the section appended last, to one list inside the caller's
/// transaction: positions computed directly (`OrderedTable.step` apart, after the list's current
/// last section), no reads per row, and rows written in bulk the backend's fastest way
/// (`Database.makeRowAppender()`: batched multi-row `INSERT`s on SQLite, `COPY` on PostgreSQL).
/// Call `finish()` to write the last batch.
struct BulkAppender {
    /// How many rows the progress meter is told of at a time.
    static let meterBatch = 50
    let list: ListRecord
    /// The list's sections, the appended ones included.
    private(set) var sectionCount: Int
    /// The ids of the sections appended, in order.
    private(set) var appendedSectionIDs: [Int64] = []
    /// How many positions were written (one per section and row, plus any neighbours spread
    /// out when a gap ran out).
    private(set) var positionWrites = 0
    /// Told of each batch of rows written.
    var meter: ProgressMeter?

    private let db: any Database
    private let rows: any RowAppender
    private var unmetered = 0
    private var lastSectionPosition: Int64?
    private var sectionID: Int64?
    private var rowCount = 0
    private var lastRowPosition: Int64?
    /// While the engine's per-row bookkeeping is off (`Database.beginBulkAppend()`): the highest
    /// section and row ids before the items appended since it went off.
    private var bulkStart: (section: Int64, row: Int64)?

    init(list: ListRecord, db: any Database) throws {
        self.list = list
        self.db = db
        sectionCount = try db.sectionCount(of: list)
        lastSectionPosition = try OrderedTable.sections.checked(db.lastSectionPosition(of: list), of: list.id)
        rows = try db.makeRowAppender()
        try resumeBulk()
    }

    /// Turns the engine's per-row bookkeeping off, where it can, until `endBulk()`.
    mutating func resumeBulk() throws {
        let start = try db.highestItemIDs()
        if try db.beginBulkAppend() { bulkStart = start }
    }

    /// Writes the rows still waiting, then the bookkeeping of everything appended since
    /// `resumeBulk()`, and turns it back on: before anything but an append touches the list.
    mutating func endBulk() throws {
        try rows.finish()
        guard let start = bulkStart else { return }
        bulkStart = nil
        try db.finishBulkAppend(list: list.id, sectionsAfter: start.section, rowsAfter: start.row)
    }

    /// Appends an empty section after the list's last; rows appended next go into it.
    mutating func appendSection(title: String, emptyText: String?) throws {
        let position = try nextPosition(after: lastSectionPosition, in: .sections, parent: list.id, count: sectionCount)
        // Rows still waiting belong to sections already inserted: they can wait for a full batch.
        let id = try db.insertSection(title: title, emptyText: emptyText, position: position, in: list, askingReplica: false)
        sectionID = id
        appendedSectionIDs.append(id)
        lastSectionPosition = position
        sectionCount += 1
        rowCount = 0
        lastRowPosition = nil
    }

    /// Appends a row to the section appended last.
    mutating func appendRow(_ content: RowContent) throws {
        guard let sectionID else { preconditionFailure("a row is appended before any section") }
        let position = try nextPosition(after: lastRowPosition, in: .rows, parent: sectionID, count: rowCount)
        try rows.append(section: sectionID, position: position, content: content)
        lastRowPosition = position
        rowCount += 1
        unmetered += 1
        if unmetered == Self.meterBatch {
            meter?.add(rows: unmetered)
            unmetered = 0
            // A cancelled import stops here, and its transaction rolls back.
            try CancellationFlag.check()
        }
    }

    /// Writes the rows still waiting for a full batch, and the bookkeeping of all.
    mutating func finish() throws {
        try endBulk()
        if unmetered > 0 { meter?.add(rows: unmetered) }
        unmetered = 0
    }

    /// The position after `last` (or the first position in an empty parent); when the space
    /// past the end has run out, the ordered table makes room.
    private mutating func nextPosition(after last: Int64?, in table: OrderedTable, parent: Int64, count: Int) throws -> Int64 {
        positionWrites += 1
        if let position = OrderedTable.position(between: last, and: nil) {
            return position
        }
        // Making room reads the rows and the rank structures, and moves items: done with the
        // bookkeeping on.
        try endBulk()
        let place = try table.positionForSlot(count, of: parent, count: count, movingID: nil, in: db)
        positionWrites += place.rewritten
        try resumeBulk()
        return place.position
    }
}
