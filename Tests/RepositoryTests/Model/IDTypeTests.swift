import Foundation
import Repository
import TestSupport
import Testing

@Suite("Typed ids")
struct IDTypeTests {
    @Test func idsEncodeAndDecodeAsBareNumbers() throws {
        let encoder = JSONEncoder()
        #expect(String(decoding: try encoder.encode(RowID(42)), as: UTF8.self) == "42")
        #expect(String(decoding: try encoder.encode(SectionID(-3)), as: UTF8.self) == "-3")
        #expect(String(decoding: try encoder.encode([ListID(1), ListID(Int64.max)]), as: UTF8.self) == "[1,\(Int64.max)]")

        let decoder = JSONDecoder()
        #expect(try decoder.decode(RowID.self, from: Data("7".utf8)) == RowID(7))
        #expect(try decoder.decode([SectionID].self, from: Data("[1,2,-5]".utf8)) == [1, 2, -5])
        #expect(try decoder.decode(ListID.self, from: Data("9".utf8)).rawValue == 9)
        #expect(throws: DecodingError.self) { try decoder.decode(RowID.self, from: Data("\"7\"".utf8)) }
    }

    @Test func literalsRawValuesAndDescriptions() {
        let row: RowID = 12
        let section: SectionID = 3
        let list: ListID = 1
        #expect(row == RowID(12) && row == RowID(rawValue: 12) && row.rawValue == 12)
        #expect(section == SectionID(3) && list == ListID(1))
        #expect(row.description == "12" && "#\(section)" == "#3" && "\(list)" == "1")
        #expect(RowID(-1).description == "-1")
        #expect(RowID(7).debugDescription == "RowID(7)" && String(reflecting: [SectionID(3)]) == "[SectionID(3)]")
    }

    @Test func idsOrderAndHashByTheirNumbers() {
        #expect(RowID(1) < RowID(2) && !(RowID(2) < RowID(2)))
        #expect([SectionID(5), 1, 3].sorted() == [1, 3, 5])
        #expect([ListID(9), 2].max() == 9)
        #expect(Set<RowID>([1, 1, 2]).count == 2)
        let named: [RowID: String] = [7: "seven"]
        #expect(named[RowID(7)] == "seven")
    }

    @Test func createdIDSaysWhatWasCreated() {
        #expect(CreatedID.row(4).rawValue == 4 && CreatedID.row(4).rowID == 4 && CreatedID.row(4).sectionID == nil)
        #expect(CreatedID.section(5).sectionID == 5 && CreatedID.section(5).listID == nil)
        #expect(CreatedID.list(6).listID == 6 && CreatedID.list(6).rowID == nil && CreatedID.list(6).description == "6")
        #expect(CreatedID.row(1) != CreatedID.section(1), "the kind is part of the id")
    }

    @Test(arguments: Backend.all) func eachChangeNamesTheKindItCreated(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store

        let list = try store.createList(named: "other")
        let listID = try #require(list.createdID?.listID)
        #expect(list.createdID == .list(listID))
        #expect(try store.lists().first { $0.name == "other" }?.id == listID)
        #expect(try store.list("other").snapshot().listID == listID)

        let section = try store.list("other").apply(.addSection(title: "A"))
        let sectionID = try #require(section.createdID?.sectionID)
        #expect(section.createdID == .section(sectionID) && section.changeset.insertedSectionIDs == [sectionID])

        let row = try store.list("other").apply(.addRow(.text("a"), to: .init(section: .id(sectionID), index: .end)))
        let rowID = try #require(row.createdID?.rowID)
        #expect(row.createdID == .row(rowID))
        #expect(row.changeset.insertedRowIDs == [rowID])

        // The id a read gives is the one the changeset named.
        let read = try store.list("other").row(at: RowPath(section: 0, row: 0))
        #expect(read.row.id == rowID && read.section.id == sectionID)
        #expect(try store.list("other").path(ofRow: rowID) == RowPath(section: 0, row: 0))
        #expect(try store.list("other").snapshot().sections[0].rows[0].id == row.changeset.insertedRowIDs[0])

        // Ids in the changeset's JSON are still bare numbers.
        let json = String(decoding: try JSONEncoder().encode(row.changeset), as: UTF8.self)
        #expect(json.contains("\"inserted\":[\(rowID.rawValue)]"), "\(json)")
        #expect(try JSONDecoder().decode(Changeset.self, from: Data(json.utf8)) == row.changeset)
    }

    @Test func aSessionMapsItsDraftIDsToStoredOnesByKind() throws {
        let directory = try TemporaryDirectory()
        let store = try SectionStore(path: directory.path("list.db"), create: true)
        let session = try store.list("default").beginEditing()
        let section = try #require(try session.apply(.addSection(title: "A")).createdID?.sectionID)
        let row = try #require(try session.apply(.addRow(.text("a"), to: .at(0, 0))).createdID?.rowID)
        #expect(section < 0 && row < 0, "draft ids are negative")
        try session.save()
        let saved = try store.list("default").snapshot()
        #expect(session.savedSectionIDs == [section: saved.sections[0].id])
        #expect(session.savedRowIDs == [row: saved.sections[0].rows[0].id])
    }
}
