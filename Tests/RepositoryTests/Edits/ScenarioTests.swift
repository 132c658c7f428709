import Foundation
import TestSupport
import Testing

@testable import Repository
@testable import RepositoryPostgres

@Suite("Seed scenarios")
struct ScenarioTests {
    /// Seed 003: two sections, three rows in the first, moves into the empty second section.
    @Test(arguments: Backend.all) func movingIntoEmptySectionAppendsAndFootersShowOnlyWhileEditing(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "section1"))
        try store.list("default").apply(.addSection(title: "section2"))
        for index in 0..<3 {
            try store.list("default").apply(.addRow(.text(String(format: "Cell%03d", index)), to: .init(section: .index(0), index: .end)))
        }

        // The empty section shows "No Data" in the editing view only; a footer is never a row.
        let editing = try store.list("default").snapshot(editing: true)
        #expect(editing.footer(ofSection: 1) == "No Data")
        #expect(editing.footer(ofSection: 0) == nil)
        #expect(editing.sections[1].rows.isEmpty)
        #expect(try store.list("default").snapshot(editing: false).footer(ofSection: 1) == nil)

        // Row index == count appends: 0 is the count of the empty section.
        let change = try store.list("default").apply(.moveRow(.at(0, 1), to: .at(1, 0)))
        #expect(change.changeset.movedRows == [.init(from: RowPath(section: 0, row: 1), to: RowPath(section: 1, row: 0))])
        var snapshot = try store.list("default").snapshot(editing: true)
        #expect(snapshot.sections.map { $0.rows.map(\.title) } == [["Cell000", "Cell002"], ["Cell001"]])
        #expect(snapshot.footer(ofSection: 1) == nil)

        // Appending with the count, and with `end`.
        try store.list("default").apply(.moveRow(.at(0, 0), to: .at(1, 1)))
        try store.list("default").apply(.moveRow(.path(.index(0), .end), to: RowDestination(section: .title("section2"), index: .end)))
        snapshot = try store.list("default").snapshot(editing: true)
        #expect(snapshot.sections.map { $0.rows.map(\.title) } == [[], ["Cell001", "Cell000", "Cell002"]])
        #expect(snapshot.footer(ofSection: 0) == "No Data")

        // One past the count is refused with the valid range, and nothing changes.
        #expect(throws: RepositoryError.rowIndexOutOfRange(5, section: 0, valid: 0...0)) {
            try store.list("default").apply(.moveRow(.at(1, 0), to: .at(0, 5)))
        }
        #expect(try store.list("default").snapshot(editing: true) == snapshot)
    }

    @Test(arguments: Backend.all) func emptyTextReplacesNoData(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.list.apply(.addSection(title: "Done", emptyText: "Nothing finished yet"))
        try fixture.list.apply(.addSection(title: "Later"))
        try fixture.list.apply(.setEmptyText(.title("Later"), "後で"))
        let snapshot = try fixture.list.snapshot(editing: true)
        #expect(snapshot.sections.indices.map(snapshot.footer(ofSection:)) == ["Nothing finished yet", "後で"])
    }

    @Test(arguments: Backend.all) func movingOntoItsOwnPlaceChangesNothing(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.list.apply(.addSection(title: "A"))
        try fixture.list.apply(.addRow(.text("one"), to: .at(0, 0)))
        try fixture.list.apply(.addRow(.text("two"), to: .at(0, 1)))
        let before = try fixture.list.snapshot()
        let change = try fixture.list.apply(.moveRow(.at(0, 1), to: .at(0, 1)))
        #expect(change.changeset.isEmpty)
        #expect(change.version == before.version)
        #expect(try fixture.list.snapshot() == before)
    }

    @Test(arguments: Backend.all) func endAddressesTheLastRowAndIsRefusedInAnEmptySection(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.list.apply(.addSection(title: "A"))
        #expect(throws: RepositoryError.rowIndexOutOfRange(-1, section: 0, valid: nil)) {
            try fixture.list.apply(.deleteRow(.path(.index(0), .end)))
        }
        try fixture.list.apply(.addRow(.text("first"), to: .init(section: .index(0), index: .end)))
        try fixture.list.apply(.addRow(.text("last"), to: .init(section: .index(0), index: .end)))
        let change = try fixture.list.apply(.deleteRow(.path(.index(0), .end)))
        #expect(change.changeset.deletedRows == [RowPath(section: 0, row: 1)])
        #expect(try fixture.list.snapshot().sections[0].rows.map(\.title) == ["first"])
    }

    @Test(arguments: Backend.all) func idsDoNotShiftWhenOthersMove(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        let section = try #require(try store.list("default").apply(.addSection(title: "A")).createdID?.sectionID)
        let first = try #require(try store.list("default").apply(.addRow(.text("first"), to: .at(0, 0))).createdID?.rowID)
        let second = try #require(try store.list("default").apply(.addRow(.text("second"), to: .at(0, 1))).createdID?.rowID)
        try store.list("default").apply(.moveRow(.id(second), to: .at(0, 0)))
        let change = try store.list("default").apply(.updateRow(.id(first), title: "still first"))
        #expect(change.changeset.updatedRows == [RowPath(section: 0, row: 1)])
        try store.list("default").apply(.addSection(title: "B", at: 0))
        #expect(try store.list("default").apply(.renameSection(.id(section), title: "A2")).changeset.updatedSections == [1])
    }

    @Test(arguments: Backend.all) func deletingASectionWithRowsNeedsForce(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.list.apply(.addSection(title: "A"))
        try fixture.list.apply(.addRow(.text("x"), to: .at(0, 0)))
        #expect(throws: RepositoryError.sectionNotEmpty(title: "A", rowCount: 1)) {
            try fixture.list.apply(.deleteSection(.index(0)))
        }
        #expect(try fixture.list.snapshot().rowCount == 1)
        let change = try fixture.list.apply(.deleteSection(.index(0), force: true))
        #expect(change.changeset.deletedSections == [0])
        #expect(try fixture.list.snapshot().sections.isEmpty)
    }

    @Test(arguments: Backend.all) func fieldRowsKeepValuesOthersRefuseThem(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.list.apply(.addSection(title: "ユーザー情報"))
        try fixture.list.apply(.addRow(.field("名前", "ブログ書き太郎"), to: .at(0, 0)))
        try fixture.list.apply(.addRow(.field("飲み物", nil), to: .at(0, 1)))
        try fixture.list.apply(.addRow(.topic("お気に入り"), to: .at(0, 2)))
        let rows = try fixture.list.snapshot().sections[0].rows
        #expect(rows.map(\.content.displayValue) == ["ブログ書き太郎", "-", "-"])
        #expect(rows[2].kind == .topic && rows[2].value == nil)
        #expect(throws: RepositoryError.valueOnNonFieldRow(row: rows[2].id, kind: .topic)) {
            try fixture.list.apply(.updateRow(.at(0, 2), value: .set("x")))
        }
        try fixture.list.apply(.updateRow(.at(0, 0), value: .remove))
        #expect(try fixture.list.snapshot().sections[0].rows[0].value == nil)
    }

    @Test(arguments: Backend.all) func ambiguousTitlesListTheCandidates(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let first = try #require(try fixture.list.apply(.addSection(title: "Same")).createdID?.sectionID)
        let second = try #require(try fixture.list.apply(.addSection(title: "Same")).createdID?.sectionID)
        #expect(throws: RepositoryError.ambiguousSectionTitle("Same", ids: [first, second])) {
            try fixture.list.apply(.renameSection(.title("Same"), title: "Other"))
        }
        #expect(throws: RepositoryError.sectionNotFound(.title("Missing"), list: "default", titles: ["Same", "Same"])) {
            try fixture.list.apply(.renameSection(.title("Missing"), title: "Other"))
        }
    }

    @Test(arguments: Backend.all) func textsOfAnyKindRoundTrip(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        var texts = ["", "tab\tnew\nline", "quote \" back \\", "\u{1B}[31mred\u{1B}[0m", "'; DROP TABLE rows; --", "🍣 寿司 é", "nul\u{0}inside"]
        if backend == .postgres {
            // PostgreSQL's text cannot hold NUL: refused whole, never cut short, nothing written.
            try fixture.list.apply(.addSection(title: "s"))
            let before = try fixture.list.snapshot()
            #expect(throws: RepositoryError.textContainsNULOnServer) {
                try fixture.list.apply(.addRow(.field("nul\u{0}inside", "v"), to: .at(0, 0)))
            }
            #expect(throws: RepositoryError.textContainsNULOnServer) {
                try fixture.list.apply(.renameSection(.index(0), title: "a\u{0}b"))
            }
            #expect(try fixture.list.snapshot() == before)
            try fixture.list.apply(.deleteSection(.index(0)))
            texts.removeLast()
        }
        try fixture.list.apply(.addSection(title: texts[0]))
        for text in texts {
            try fixture.list.apply(.addRow(.field(text, text), to: .init(section: .index(0), index: .end)))
        }
        let rows = try fixture.list.snapshot().sections[0].rows
        #expect(rows.map(\.title) == texts)
        #expect(rows.map(\.value) == texts)
        // The most a text may have is 1,000,000 UTF-8 bytes.
        let huge = String(repeating: "x", count: 1_000_001)
        #expect(throws: RepositoryError.textTooLong(what: "the row title", bytes: 1_000_001, limit: 1_000_000)) {
            try fixture.list.apply(.addRow(.text(huge), to: .at(0, 0)))
        }
        try fixture.list.apply(.addRow(.text(String(huge.dropLast())), to: .at(0, 0)))
        try fixture.list.apply(.deleteRow(.at(0, 0)))
        #expect(try fixture.list.snapshot().rowCount == texts.count)
    }

    @Test(arguments: Backend.all) func listsAreCreatedRenamedAndDeleted(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        #expect(try store.lists().map(\.name) == ["default"])
        try store.createList(named: "work")
        #expect(throws: RepositoryError.listExists("work")) { try store.createList(named: "work") }
        try store.list("work").apply(.addSection(title: "Inbox"))
        try store.list("work").apply(.addRow(.text("mail"), to: .at(0, 0)))
        #expect(try store.lists().map { "\($0.name):\($0.sectionCount):\($0.rowCount)" } == ["default:0:0", "work:1:1"])
        try store.renameList("work", to: "job")
        #expect(throws: RepositoryError.listNotEmpty("job", sectionCount: 1)) { try store.deleteList("job") }
        let change = try store.deleteList("job", force: true)
        #expect(change.changeset.deletedSections == [0])
        #expect(throws: RepositoryError.listNotFound("job", available: ["default"])) { try store.list("job").snapshot() }
        // Deleting a list deletes its sections and rows.
        let orphans = try store.read { db in try db.scalarInt("SELECT count(*) FROM rows") }
        #expect(orphans == 0)
    }
}
