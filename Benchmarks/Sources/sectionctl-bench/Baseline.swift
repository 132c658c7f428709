import CBaseline

/// The C baseline (`Benchmarks/Sources/CBaseline`), from Swift: a connection of its own to a
/// database file, opened with the Repository's pragmas (WAL, synchronous=FULL,
/// foreign_keys=ON), whose work is done entirely in C with prepared statements.
final class Baseline {
    private let connection: OpaquePointer

    init(path: String) throws {
        var message = [CChar](repeating: 0, count: 512)
        let opened = message.withUnsafeMutableBufferPointer { buffer in
            baseline_open(path, buffer.baseAddress, Int32(buffer.count))
        }
        guard let opened else {
            throw BenchmarkError("the C baseline cannot open \(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
        }
        connection = opened
    }

    deinit {
        baseline_close(connection)
    }

    /// The version of the SQLite library linked, which the Repository uses too.
    static var sqliteVersion: String { String(cString: baseline_sqlite_version()) }

    private func check(_ code: Int32) throws {
        guard code == 0 else { throw BenchmarkError("C baseline: \(String(cString: baseline_error_message(connection)))") }
    }

    func execute(_ sql: String) throws {
        try check(baseline_execute(connection, sql))
    }

    func queryInt(_ sql: String) throws -> Int64 {
        var value: Int64 = 0
        try check(baseline_query_int(connection, sql, &value))
        return value
    }

    /// Appends `rows` text rows to a section in one transaction (one prepared INSERT).
    func fillSection(_ sectionID: Int64, rows: Int) throws {
        try check(baseline_fill_section(connection, sectionID, Int64(rows), Layout.firstPosition, Layout.step))
    }

    /// The id and position of the first or last row of a section.
    func endRow(of sectionID: Int64, last: Bool) throws -> (id: Int64, position: Int64) {
        var id: Int64 = 0
        var position: Int64 = 0
        try check(baseline_end_row(connection, sectionID, last ? 1 : 0, &id, &position))
        return (id, position)
    }

    /// One single-row UPDATE in its own transaction.
    func updatePosition(ofRow rowID: Int64, to position: Int64) throws {
        try check(baseline_update_position(connection, rowID, position))
    }

    /// Single-row UPDATEs, all in one transaction.
    func updatePositions(ofRows rowIDs: [Int64], to positions: [Int64]) throws {
        precondition(rowIDs.count == positions.count)
        try check(baseline_update_positions(connection, rowIDs, positions, Int64(rowIDs.count)))
    }

    /// Sections of field rows, shaped like a records import, in one transaction; `plainTables`
    /// for a file made by `createPlain(at:)`, whose transaction is not marked as sectionctl's.
    func insertRecords(intoList listID: Int64, records: Int, fields: Int, plainTables: Bool = false) throws {
        try check(
            baseline_insert_records(
                connection, listID, Int64(records), Int64(fields), Layout.firstPosition, Layout.step, plainTables ? 0 : 1))
    }

    /// Creates a database of plain tables at `path`: the columns, constraints and unique indexes
    /// of sectionctl's `lists`, `sections` and `rows`, no triggers, rank, journal or undo tables,
    /// and the list `default`, whose id it returns.
    static func createPlain(at path: String) throws -> Int64 {
        var message = [CChar](repeating: 0, count: 512)
        let code = message.withUnsafeMutableBufferPointer { buffer in
            baseline_create_plain(path, buffer.baseAddress, Int32(buffer.count))
        }
        guard code == 0 else {
            throw BenchmarkError("the C baseline cannot create \(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
        }
        return try Baseline(path: path).queryInt("SELECT id FROM lists WHERE name = 'default'")
    }

    /// The first column of the first row of `sql` as an integer, from any SQLite file (opened
    /// read-only, without the Repository's pragmas or statements).
    static func queryInt(_ sql: String, inFile path: String) throws -> Int64 {
        var message = [CChar](repeating: 0, count: 512)
        var value: Int64 = 0
        let code = message.withUnsafeMutableBufferPointer { buffer in
            baseline_query_file_int(path, sql, &value, buffer.baseAddress, Int32(buffer.count))
        }
        guard code == 0 else {
            throw BenchmarkError("the C baseline cannot read \(message.withUnsafeBufferPointer { String(cString: $0.baseAddress!) })")
        }
        return value
    }

    /// Appends `count` sections of one text row each to a list, in one transaction.
    func fillSections(ofList listID: Int64, count: Int) throws {
        try check(baseline_fill_sections(connection, listID, Int64(count), Layout.firstPosition, Layout.step))
    }

    /// Reads a whole list with one SELECT in one read transaction; returns the result rows.
    func selectList(_ listID: Int64) throws -> Int {
        var rows: Int64 = 0
        var bytes: Int64 = 0
        try check(baseline_select_list(connection, listID, &rows, &bytes))
        return Int(rows)
    }

    /// Checkpoints the write-ahead log and truncates it to zero bytes.
    func checkpoint() throws {
        try check(baseline_checkpoint_truncate(connection))
    }
}

/// Where bulk-loaded rows go: the i-th row of a section at `firstPosition + i * step`, the
/// layout the Repository's sparse positions give rows appended one by one.
enum Layout {
    static let firstPosition: Int64 = 1 << 61
    static let step: Int64 = 1 << 32
}
