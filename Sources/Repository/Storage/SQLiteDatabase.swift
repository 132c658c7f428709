import SQLite

/// SQLite's side of the storage seam: a `Connection` on a database file.
extension Connection: Database {
    package var dialect: SQLDialect { .sqlite }

    @discardableResult
    package func run(_ sql: String, arguments: [(any SQLArgument)?]) throws -> Int {
        let statement = try statement(sql)
        try statement.bind(arguments.map { $0?.sqliteValue })
        defer { statement.reset() }
        while try statement.step() {}
        return changes
    }

    package func forEachRow(_ sql: String, arguments: [(any SQLArgument)?], _ body: (any ResultRow) throws -> Bool) throws {
        let statement = try statement(sql)
        try statement.bind(arguments.map { $0?.sqliteValue })
        defer { statement.reset() }
        while try statement.step() {
            guard try body(statement) else { return }
        }
    }

    package func beginSnapshot() throws {
        // A deferred transaction whose first read fixes the WAL snapshot it sees.
        try execute(script: "BEGIN")
    }

    package func endSnapshot() {
        if !isAutocommit { try? execute(script: "ROLLBACK") }
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
        }
    }
}

extension Connection {
    package var locksListRows: Bool { false }

    package func makeRowAppender() throws -> any RowAppender {
        try SQLiteRowAppender(db: self)
    }
}

/// Appends rows to a SQLite database `batchSize` at a time by one multi-row `INSERT` (one
/// statement per row costs SQLite most of its time), its statements prepared once.
private final class SQLiteRowAppender: RowAppender {
    /// Rows per multi-row `INSERT`: 5 parameters each, far under SQLite's limit.
    static let batchSize = 50
    private let insertRow: Statement
    private let insertRowBatch: Statement
    private var pending: [(any SQLiteBindable)?] = []

    init(db: Connection) throws {
        insertRow = try db.statement(RowRecord.insertSQL(rows: 1))
        insertRowBatch = try db.statement(RowRecord.insertSQL(rows: Self.batchSize))
        pending.reserveCapacity(Self.batchSize * 5)
    }

    func append(section: Int64, position: Int64, content: RowContent) throws {
        pending += [section, position, content.kind.rawValue, content.title, content.value]
        if pending.count == Self.batchSize * 5 {
            try insert(pending, with: insertRowBatch)
            pending.removeAll(keepingCapacity: true)
        }
    }

    func finish() throws -> Int {
        for start in stride(from: 0, to: pending.count, by: 5) {
            try insert(Array(pending[start..<(start + 5)]), with: insertRow)
        }
        defer { pending.removeAll(keepingCapacity: true) }
        return pending.count / 5
    }

    private func insert(_ values: [(any SQLiteBindable)?], with statement: Statement) throws {
        try statement.bind(values)
        defer { statement.reset() }
        try statement.step()
    }
}
