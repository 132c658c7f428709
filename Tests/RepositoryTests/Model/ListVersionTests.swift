import Foundation
import Repository
import TestSupport
import Testing

@Suite("List versions")
struct ListVersionTests {
    @Test func versionsEncodeAndDecodeAsBareNumbers() throws {
        let encoder = JSONEncoder()
        #expect(String(decoding: try encoder.encode(ListVersion(42)), as: UTF8.self) == "42")
        #expect(String(decoding: try encoder.encode([ListVersion(0), ListVersion(Int64.max)]), as: UTF8.self) == "[0,\(Int64.max)]")

        let decoder = JSONDecoder()
        #expect(try decoder.decode(ListVersion.self, from: Data("7".utf8)) == ListVersion(7))
        #expect(try decoder.decode([ListVersion].self, from: Data("[1,2,3]".utf8)) == [1, 2, 3])
        #expect(throws: DecodingError.self) { try decoder.decode(ListVersion.self, from: Data("\"7\"".utf8)) }
        #expect(throws: DecodingError.self) { try decoder.decode(ListVersion.self, from: Data("7.5".utf8)) }
    }

    @Test func literalsRawValuesAndDescriptions() {
        let version: ListVersion = 12
        #expect(version == ListVersion(12) && version == ListVersion(rawValue: 12) && version.rawValue == 12)
        #expect(version.description == "12" && "version \(version)" == "version 12")
        #expect(ListVersion(0).description == "0")
        #expect(version.debugDescription == "ListVersion(12)" && String(reflecting: [ListVersion(3)]) == "[ListVersion(3)]")
    }

    @Test func draftVersionsAreNegative() {
        #expect(ListVersion(-1).isDraft && ListVersion(Int64.min).isDraft)
        #expect(!ListVersion(0).isDraft && !ListVersion(7).isDraft)
    }

    @Test func versionsOrderAndHashByTheirNumbers() {
        #expect(ListVersion(1) < ListVersion(2) && !(ListVersion(2) < ListVersion(2)))
        #expect([ListVersion(5), 1, 3].sorted() == [1, 3, 5])
        #expect([ListVersion(9), 2].max() == 9)
        #expect(Set<ListVersion>([1, 1, 2]).count == 2)
        let seen: [ListVersion: String] = [7: "seven"]
        #expect(seen[ListVersion(7)] == "seven")
    }

    @Test func theArithmeticVersionsNeed() {
        let version: ListVersion = 7
        #expect(version.next == 8 && version.previous == 6)
        #expect(version.next.previous == version)
        #expect(version.advanced(by: 3) == 10 && version.advanced(by: -7) == 0)
        #expect(version.distance(to: 10) == 3 && ListVersion(10).distance(to: version) == -3 && version.distance(to: version) == 0)
        // Strideable: a range of versions is walked one version at a time.
        #expect(Array(version...ListVersion(9)) == [7, 8, 9])
        #expect((version..<version).isEmpty)
    }

    @Test(arguments: Backend.all) func eachCommitGivesTheListTheNextVersion(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        let before = try list.snapshot().version
        let change = try list.apply(.addSection(title: "A"))
        #expect(change.version == before.next)
        #expect(try list.snapshot().version == change.version)
        let unchanged = try list.apply(.renameSection(.index(0), title: "A"))
        #expect(!unchanged.committed && unchanged.version == change.version, "a change that changes nothing keeps the version")
        #expect(try list.changes(since: before).from == before && list.changes(since: before).version == change.version)
    }
}
