import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository
@testable import Transfer

/// Imports append, and section and list deletes empty whole sections, with the per-row
/// bookkeeping off, and write it once per batch (`Migrations/0007_bulk_append.sql`): whatever
/// the list held before, every structure comes out exact (`check()`), and undo and redo take
/// the change back and forth.
@Suite("Bulk appends and deletes")
struct BulkAppendTests {
    /// Every list's sections as "title: row, row…".
    static func shape(_ store: SectionStore) throws -> [String: [String]] {
        var shape: [String: [String]] = [:]
        for list in try store.lists() {
            shape[list.name] = try store.list(list.name).snapshot().sections.map { section in
                section.title + ": " + section.rows.map(\.title).joined(separator: ", ")
            }
        }
        return shape
    }

    /// `count` records of one to three fields each, as a JSON array.
    static func records(_ count: Int, seed: UInt64) -> Data {
        var generator = SeededGenerator(seed: seed)
        let records = (0..<count).map { number in
            let fields = (0..<Int.random(in: 1...3, using: &generator)).map { "\"f\($0)\": \"v\(number).\($0)\"" }
            return "{" + (["\"name\": \"r\(number)\""] + fields).joined(separator: ", ") + "}"
        }
        return Data(("[" + records.joined(separator: ",\n") + "]").utf8)
    }

    /// A store whose default list has one section, "old", of 6 rows; and that list's snapshot.
    static func listWithAnOldSection(_ backend: Backend) throws -> (StoreFixture, ListSnapshot) {
        let fixture = try StoreFixture(backend)
        try fixture.list.apply(.addSection(title: "old"))
        for row in 0..<6 { try fixture.list.apply(.addRow(.text("o\(row)"), to: .at(0, row))) }
        return (fixture, try fixture.list.snapshot())
    }

    /// How many entries of the undo log's newest step meet `condition`.
    static func newestStepEntries(_ store: SectionStore, _ condition: String) throws -> Int64? {
        try store.read { db in try db.scalarInt("SELECT count(*) FROM undo_log WHERE step = (SELECT max(step) FROM undo_log) AND \(condition)") }
    }

    /// A native document for the default list: `sections` sections, `s0`, `s1`, …, the one at
    /// index `i` with `rows(i)` rows titled `ri.0`, `ri.1`, ….
    static func document(sections: Int, rows: (Int) -> Int) -> Data {
        let text =
            "{\"format\": \"sectionctl\", \"version\": 1, \"lists\": [{\"name\": \"default\", \"sections\": ["
            + (0..<sections).map { section in
                "{\"title\": \"s\(section)\", \"rows\": ["
                    + (0..<rows(section)).map { "{\"title\": \"r\(section).\($0)\"}" }.joined(separator: ",") + "]}"
            }.joined(separator: ",") + "]}]}"
        return Data(text.utf8)
    }

    @Test(arguments: Backend.all) func anImportAppendedToAFullListKeepsEveryStructureAndUndoesExactly(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        _ = try store.createList(named: "other")
        let list = store.list(SectionStore.defaultList)
        for section in 0..<80 {
            try list.apply(.addSection(title: "s\(section)"))
            for row in 0..<(section % 7) { try list.apply(.addRow(.text("t\(section).\(row)"), to: .init(section: .index(section), index: .end))) }
        }
        try store.list("other").apply(.addSection(title: "elsewhere"))
        let before = try Self.shape(store)
        // Enough records that the list's last section rank node and new sections' nodes split.
        let change = try store.importRecords(
            Self.records(700, seed: 3), options: RecordsImportOptions(list: SectionStore.defaultList, titleKey: "name"))
        #expect(change.changeset.insertedSections == Array(80..<780))
        #expect(try store.check() == [])
        let after = try Self.shape(store)
        #expect(after[SectionStore.defaultList]?.count == 780)
        #expect(after["other"] == before["other"])
        #expect(try list.section(.index(779)).title == "r699")
        let snapshot = try list.snapshot()
        for path in [RowPath(section: 500, row: 0), RowPath(section: 779, row: 1), RowPath(section: 76, row: 5)] {
            #expect(try list.row(at: path).row == snapshot.sections[path.section].rows[path.row], "\(path)")
        }
        _ = try list.undo()
        #expect(try Self.shape(store) == before)
        #expect(try store.check() == [])
        _ = try list.redo()
        #expect(try Self.shape(store) == after)
        #expect(try store.check() == [])
    }

    /// An import into new sections logs the sections, not their rows, and the sections as one
    /// entry for their run of ids: undoing a section's insert empties it first, logging the rows
    /// for the redo. The redo puts the sections back, then
    /// their rows in bulk, before any other write of rows, so it logs the sections only too.
    /// Every round trip gives the exact lists back, ids included.
    @Test func anImportLogsItsSectionsNotTheirRowsAndUndoesAndRedoesExactly() throws {
        let (fixture, before) = try Self.listWithAnOldSection(.sqlite)
        let store = fixture.store
        let list = fixture.list
        func entries(_ condition: String) throws -> Int64? { try Self.newestStepEntries(store, condition) }
        // 40 sections of 10 to 30 rows each, appended after the old one.
        _ = try store.importJSON(Self.document(sections: 40) { 10 + $0 % 21 }, policy: .append)
        let imported = try list.snapshot()
        #expect(imported.sections.count == 41)
        #expect(
            try entries("1") == 1 && entries("target = 'section' AND action = 'insert' AND last_id - item_id = 39") == 1,
            "one entry for the run of 40 sections, none per row")
        for round in 0..<2 {
            _ = try list.undo()
            #expect(try list.snapshot().sections == before.sections, "round \(round): undone, ids included")
            #expect(try entries("target = 'row' AND action = 'delete'") == Int64(imported.sections.dropFirst().map(\.rows.count).reduce(0, +)))
            #expect(try store.check() == [])
            _ = try list.redo()
            #expect(try list.snapshot().sections == imported.sections, "round \(round): redone, ids included")
            #expect(try entries("target = 'row'") == 0, "the redo puts the sections back, then their rows, which it does not log")
            #expect(try store.check() == [])
        }
    }

    /// On a server too, an import's rows are counted per statement, and those of the sections
    /// it appends get no undo entry of their own (`Migrations/postgres/0014_bulk_append.sql`).
    /// Undo and redo, of it and of a second import after it, give the exact lists back, and
    /// `check` finds every count and rank node right.
    @Test func anImportOnAServerLogsItsSectionsNotTheirRows() throws {
        let (fixture, before) = try Self.listWithAnOldSection(.postgres)
        let store = fixture.store
        let list = fixture.list
        func entries(_ condition: String) throws -> Int64? { try Self.newestStepEntries(store, condition) }
        // 30 sections of 70 to 99 rows, enough that rank nodes split, after the old one.
        _ = try store.importJSON(Self.document(sections: 30) { 70 + $0 }, policy: .append)
        let imported = try list.snapshot()
        #expect(imported.sections.count == 31 && imported.sections.last?.rows.count == 99)
        #expect(try entries("target = 'row'") == 0, "no entry per row of an appended section")
        #expect(try entries("target = 'section' AND action = 'insert'") ?? 0 > 0)
        #expect(try store.check() == [])
        #expect(try store.read { db in try db.scalarInt("SELECT count(*) FROM rank_nodes WHERE level = 1 AND row_count > 64") } == 0, "split")
        _ = try store.importJSON(Self.document(sections: 1) { _ in 5 }, policy: .append)
        #expect(try entries("target = 'row'") == 0)
        _ = try list.undo()
        #expect(try list.snapshot().sections == imported.sections)
        _ = try list.undo()
        #expect(try list.snapshot().sections == before.sections, "undone, ids included")
        #expect(try store.check() == [])
        _ = try list.redo()
        #expect(try list.snapshot().sections == imported.sections, "redone, ids included")
        #expect(try store.check() == [])
    }

    /// The bulk path is sectionctl's own: plain SQL that sets `sectionctl.bulk` still has its
    /// rows counted and placed among the rank nodes one by one, and the list marked as changed
    /// outside sectionctl.
    @Test func plainSQLSettingTheBulkFlagOnAServerIsCountedAsAlways() throws {
        let fixture = try StoreFixture(.postgres)
        let list = fixture.list
        try list.apply(.addSection(title: "s"))
        for row in 0..<3 { try list.apply(.addRow(.text("r\(row)"), to: .at(0, row))) }
        try fixture.plainSQL(
            """
            SELECT set_config('sectionctl.bulk', '0', false);
            INSERT INTO rows (section_id, position, kind, title)
            SELECT id, (SELECT min(position) FROM rows) - 1000, 'text', 'first' FROM sections
            """)
        #expect(try list.snapshot().sections[0].rows.map(\.title) == ["first", "r0", "r1", "r2"])
        #expect(try fixture.store.check() == [])
        #expect(throws: RepositoryError.self) { try list.undo() }
    }

    /// A step that deletes the last rows of a section one by one, moves another row to the
    /// section's end (where the first deleted row was: appended rows take the next step of
    /// positions) and deletes the section. Its undo puts the section back with its rows, takes
    /// the moved row out, then puts the deleted rows back, in bulk; so the redo must take those
    /// away before it moves the row back into the place one of them holds. Round trips give the
    /// exact list back, ids included.
    @Test(arguments: Backend.all) func rowsPutBackAfterOtherWritesToTheirSectionAreTakenBackFirst(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        try list.apply(.addSection(title: "S"))
        try list.apply(.addSection(title: "T"))
        for row in 0..<10 { try list.apply(.addRow(.text("s\(row)"), to: .at(0, row))) }
        try list.apply(.addRow(.text("q"), to: .at(1, 0)))
        let before = try list.snapshot()
        let session = try list.beginEditing()
        for _ in 0..<5 { try session.apply(.deleteRow(.path(.index(0), .end))) }
        try session.apply(.moveRow(.at(1, 0), to: .init(section: .index(0), index: .end)))
        try session.apply(.deleteSection(.index(0), force: true))
        try session.save()
        let after = try list.snapshot()
        for round in 0..<2 {
            _ = try list.undo()
            #expect(try list.snapshot().sections == before.sections, "round \(round): undone")
            _ = try list.redo()
            #expect(try list.snapshot().sections == after.sections, "round \(round): redone")
            #expect(try fixture.store.check() == [])
        }
    }

    @Test(arguments: Backend.all) func anAppendPastTheLastFreePositionMakesRoomWithTheBookkeepingOn(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let list = store.list(SectionStore.defaultList)
        for title in ["a", "b", "c"] { try list.apply(.addSection(title: title)) }
        // The last section at the top of the range: every append past it must make room first.
        try fixture.plainSQL("UPDATE sections SET position = \(OrderedTable.upperBound - 2) WHERE title = 'c'")
        _ = try store.importRecords(Self.records(40, seed: 5), options: RecordsImportOptions(list: SectionStore.defaultList, titleKey: "name"))
        #expect(try store.check() == [])
        let titles = try list.snapshot().sections.map(\.title)
        #expect(titles == ["a", "b", "c"] + (0..<40).map { "r\($0)" })
        _ = try list.undo()
        #expect(try list.snapshot().sections.map(\.title) == ["a", "b", "c"])
        #expect(try store.check() == [])
    }

    @Test(arguments: Backend.all) func anEmptyTextGivenAfterTheRowsIsUndoneWithItsSection(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let document = #"""
            {"format": "sectionctl", "version": 1, "lists": [{"name": "n", "sections": [
                {"title": "A", "rows": [{"title": "x"}, {"title": "y"}], "empty_text": "none yet"},
                {"title": "B", "rows": [], "empty_text": "nothing"},
                {"title": "C", "rows": [{"title": "z"}]}]}]}
            """#
        _ = try store.importJSON(Data(document.utf8))
        #expect(try store.check() == [])
        let sections = try store.list("n").snapshot().sections
        #expect(sections.map(\.title) == ["A", "B", "C"])
        #expect(sections.map(\.emptyText) == ["none yet", "nothing", nil])
        #expect(sections.map { $0.rows.map(\.title) } == [["x", "y"], [], ["z"]])
        _ = try store.list("n").undo()
        #expect(try store.list("n").snapshot().sections.isEmpty)
        #expect(try store.check() == [])
    }

    @Test func plainSQLCannotTurnTheInsertTriggersOff() throws {
        let fixture = try StoreFixture(.sqlite)
        _ = try fixture.store.importRecords(Self.records(5, seed: 7), options: RecordsImportOptions(list: SectionStore.defaultList, titleKey: "name"))
        let bulk = try fixture.store.read { db in try db.scalarInt("SELECT bulk FROM journal_writer") }
        #expect(bulk == 0, "an import sets the flag back")
        #expect {
            try fixture.plainSQL("UPDATE journal_writer SET bulk = 1")
        } throws: { error in
            "\(error)".contains("journal_writer.bulk is 1 only inside sectionctl's own write transaction")
        }
    }

    @Test(arguments: Backend.all) func aBigSectionDeletedInBulkComesBackInOrderAndGoesAgain(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let list = store.list(SectionStore.defaultList)
        _ = try store.importRecords(Self.records(30, seed: 11), options: RecordsImportOptions(list: SectionStore.defaultList, titleKey: "name"))
        // A section of 300 rows in the middle, so that it has rank nodes past the first.
        try list.apply(.addSection(title: "big", at: 10))
        for row in 0..<300 { try list.apply(.addRow(.text("b\(row)"), to: .init(section: .index(10), index: .end))) }
        let before = try Self.shape(store)
        let change = try list.apply(.deleteSection(.index(10), force: true))
        #expect(change.changeset.deletedSections == [10])
        #expect(try store.check() == [])
        let deleted = try Self.shape(store)
        #expect(deleted[SectionStore.defaultList]?.count == 30)
        _ = try list.undo()
        #expect(try Self.shape(store) == before)
        #expect(try store.check() == [])
        #expect(try list.row(at: RowPath(section: 10, row: 299)).row.title == "b299")
        _ = try list.redo()
        #expect(try Self.shape(store) == deleted)
        #expect(try store.check() == [])
    }

    @Test(arguments: Backend.all) func anImportReplacingAListEmptiesItsSectionsInBulkAndUndoes(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        _ = try store.importRecords(Self.records(40, seed: 13), options: RecordsImportOptions(list: "r", titleKey: "name"))
        _ = try store.createList(named: "other")
        try store.list("other").apply(.addSection(title: "kept"))
        let before = try Self.shape(store)
        let document = #"{"format": "sectionctl", "version": 1, "lists": [{"name": "r", "sections": [{"title": "new", "rows": [{"title": "n"}]}]}]}"#
        _ = try store.importJSON(Data(document.utf8), policy: .replace)
        #expect(try store.check() == [])
        #expect(try Self.shape(store)["r"] == ["new: n"])
        _ = try store.list("r").undo()
        #expect(try Self.shape(store) == before)
        #expect(try store.check() == [])
    }
}
