import Foundation
import RepositoryPostgres
import SQLite
import TestSupport
import Testing

@testable import Repository

/// A file stays proportional to what it holds: a new file gives free pages back after a large
/// delete or undo, `vacuum()` compacts an older one and sets it to do the same, and the
/// write-ahead log is cut back after a large transaction.
@Suite("Space")
struct SpaceTests {
    /// `count` rows of 600 bytes each in a new section of the default list, added with plain
    /// SQL in one statement (the schema keeps counts and ranks), then one edit so the list is
    /// sectionctl's again.
    func bigSection(_ fixture: StoreFixture, rows count: Int) throws {
        try fixture.list.apply(.addSection(title: "Big"))
        try fixture.plainSQL(
            """
            WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(count))
            INSERT INTO rows (section_id, position, title)
            SELECT (SELECT id FROM sections WHERE title = 'Big'), i * 4096, printf('%0600d', i) FROM n
            """)
        try fixture.list.apply(.addSection(title: "Small"))
    }

    func pages(_ fixture: StoreFixture) throws -> (total: Int64, free: Int64) {
        (try fixture.plainInt("PRAGMA page_count") ?? 0, try fixture.plainInt("PRAGMA freelist_count") ?? 0)
    }

    @Test func aNewFileGivesFreePagesBackAfterALargeDeleteAndItsUndo() throws {
        let fixture = try StoreFixture(.sqlite)
        #expect(try fixture.plainInt("PRAGMA auto_vacuum") == 2, "a new file is created with auto_vacuum = INCREMENTAL")
        try bigSection(fixture, rows: 12_000)
        let full = try pages(fixture)
        #expect(full.total > 2_000)

        // Deleting the section frees its pages; the write that freed them gives them back.
        try fixture.list.apply(.deleteSection(.title("Big"), force: true))
        let deleted = try pages(fixture)
        #expect(deleted.free < SpaceReport.reclaimThresholdPages, "free pages after the delete: \(deleted)")
        // The undo log keeps the deleted rows, so the file keeps about their size; what it
        // does not keep is the rank structure and the rows' index.
        #expect(deleted.total < full.total * 2, "\(deleted.total) pages after the delete, \(full.total) before")

        // Undo brings the rows back; redo deletes them again, and the file gives back what that
        // frees: after both, it is about the size it was, not the sum of all three.
        try fixture.list.undo()
        #expect(try fixture.list.rowCount(of: .title("Big")) == 12_000)
        try fixture.list.redo()
        let redone = try pages(fixture)
        #expect(redone.free < SpaceReport.reclaimThresholdPages || redone.free * 8 < redone.total, "\(redone)")
        #expect(Double(redone.total) <= 1.3 * Double(deleted.total), "\(redone.total) pages after undo and redo, \(deleted.total) after the delete")
        #expect(try fixture.store.check().isEmpty)
    }

    @Test func aSmallDeleteLeavesItsPagesForTheNextWrites() throws {
        let fixture = try StoreFixture(.sqlite)
        try bigSection(fixture, rows: 12_000)
        // Some hundred rows: their pages stay free for the next rows, with no work to give back.
        for _ in 0..<3 { try fixture.list.apply(.deleteRow(.at(0, 0))) }
        let after = try pages(fixture)
        #expect(after.free < SpaceReport.reclaimThresholdPages)
        #expect(try fixture.store.check().isEmpty)
    }

    @Test func vacuumCompactsAnOlderFileAndSetsItToGiveSpaceBack() throws {
        let fixture = try StoreFixture(.sqlite)
        // A file made before auto_vacuum: the mode off, set by a rewrite.
        let raw = try Connection(path: fixture.path, mode: .readWrite)
        try raw.execute(script: "PRAGMA auto_vacuum = NONE; VACUUM;")
        #expect(try fixture.plainInt("PRAGMA auto_vacuum") == 0)
        try bigSection(fixture, rows: 8_000)
        // Plain SQL deletes the rows (no undo log keeps them); nothing gives the pages back in
        // that mode.
        try fixture.plainSQL("DELETE FROM rows")
        let kept = try pages(fixture)
        #expect(kept.free > SpaceReport.reclaimThresholdPages)

        let report = try #require(try fixture.store.vacuum())
        #expect(report.freePagesBefore == kept.free)
        #expect(report.reclaimsFreePages)
        #expect(report.bytesAfter < report.bytesBefore)
        let pageSize = try raw.scalarInt("PRAGMA page_size") ?? 0
        let size = try #require(try FileManager.default.attributesOfItem(atPath: fixture.path)[.size] as? Int64)
        #expect(report.bytesAfter == size, "the write-ahead log is empty after it")
        #expect(try pages(fixture) == ((size / pageSize), 0))
        #expect(try fixture.plainInt("PRAGMA auto_vacuum") == 2)
        let problems = try fixture.store.check()
        #expect(problems.isEmpty, "\(problems)")
        #expect(try fixture.list.snapshot().sections.map { $0.rows.count } == [0, 0])

        // Run again: nothing left to compact; the file is the size it was.
        let again = try #require(try fixture.store.vacuum())
        #expect(again.freePagesBefore == 0 && again.bytesAfter == report.bytesAfter)
    }

    @Test func vacuumOnAReadOnlyFileIsRefused() throws {
        let fixture = try StoreFixture(.sqlite)
        let readOnly = try SectionStore(location: fixture.location, server: .postgres, readOnly: true)
        #expect(throws: RepositoryError.readOnly(path: fixture.path)) { try readOnly.vacuum() }
    }

    @Test(arguments: Backend.all) func vacuumOnAServerLeavesItToAutovacuum(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let report = try fixture.store.vacuum()
        #expect((report == nil) == (backend == .postgres))
    }

    @Test func theWriteAheadLogIsCutBackAfterALargeTransaction() throws {
        let fixture = try StoreFixture(.sqlite)
        try bigSection(fixture, rows: 40_000)
        try fixture.list.apply(.deleteSection(.title("Big"), force: true))
        // The next write after a checkpoint reset starts the log from its beginning and cuts
        // the file back to the limit.
        let raw = try Connection(path: fixture.path, mode: .readWrite)
        _ = try raw.query("PRAGMA wal_checkpoint(PASSIVE)") { $0.int(0) }
        try fixture.list.apply(.addSection(title: "After"))
        let wal = try #require(try FileManager.default.attributesOfItem(atPath: fixture.path + "-wal")[.size] as? Int64)
        #expect(wal <= SpaceReport.walSizeLimit, "the write-ahead log is \(wal) bytes")
    }
}
