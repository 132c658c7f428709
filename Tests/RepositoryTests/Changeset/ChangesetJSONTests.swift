import Foundation
import Postgres
import Repository
import SQLite
import TestSupport
import Testing

/// The public JSON form of a changeset (`Changeset.json`, `init(json:)`, `Codable`): the exact
/// text, round trips, and refusals. Only public API is used here.
@Suite("Changeset JSON")
struct ChangesetJSONTests {
    /// A changeset with something in every array.
    static let everyField: Changeset = {
        var changeset = Changeset()
        changeset.deletedSections = [3]
        changeset.insertedSections = [0, 4]
        changeset.movedSections = [.init(from: 2, to: 1)]
        changeset.updatedSections = [5]
        changeset.changedFooters = [1, 5]
        changeset.deletedRows = [RowPath(section: 0, row: 2)]
        changeset.insertedRows = [RowPath(section: 1, row: 0), RowPath(section: 5, row: 12)]
        changeset.movedRows = [.init(from: RowPath(section: 0, row: 1), to: RowPath(section: 1, row: 10))]
        changeset.updatedRows = [RowPath(section: 2, row: 7)]
        return changeset
    }()

    /// Its text, byte for byte: the journal's and `sectionctl --json`'s.
    static let everyFieldText =
        #"{"sections":{"deleted":[3],"inserted":[0,4],"moved":[{"from":2,"to":1}],"updated":[5],"footers":[1,5]},"#
        + #""rows":{"deleted":[[0,2]],"inserted":[[1,0],[5,12]],"moved":[{"from":[0,1],"to":[1,10]}],"updated":[[2,7]]}}"#

    @Test func theTextIsPinned() throws {
        #expect(Self.everyField.json == Self.everyFieldText)
        #expect(
            Changeset().json
                == #"{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]},"#
                + #""ids":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[]}}}"#)
        #expect(try Changeset(json: Self.everyFieldText) == Self.everyField)
    }

    /// A random changeset: any of its arrays may be empty, indexes are small or large.
    static func randomChangeset(using generator: inout SeededGenerator) -> Changeset {
        func index() -> Int {
            Bool.random(using: &generator) ? Int.random(in: 0..<20, using: &generator) : Int.random(in: 0...Int(Int32.max), using: &generator)
        }
        func path() -> RowPath { RowPath(section: index(), row: index()) }
        func some<T>(_ make: () -> T) -> [T] { (0..<Int.random(in: 0..<5, using: &generator)).map { _ in make() } }
        var changeset = Changeset()
        changeset.deletedSections = some(index)
        changeset.insertedSections = some(index)
        changeset.movedSections = some { .init(from: index(), to: index()) }
        changeset.updatedSections = some(index)
        changeset.changedFooters = some(index)
        changeset.deletedRows = some(path)
        changeset.insertedRows = some(path)
        changeset.movedRows = some { .init(from: path(), to: path()) }
        changeset.updatedRows = some(path)
        return changeset
    }

    @Test("json and init(json:) round-trip, and so does Codable, in the same shape", arguments: propertySeeds([41, 42]))
    func roundTrips(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        let encoder = JSONEncoder()
        for _ in 0..<300 {
            let changeset = Self.randomChangeset(using: &generator)
            let text = changeset.json
            #expect(try Changeset(json: text) == changeset, "seed \(seed): \(text)")
            #expect(!text.contains(" ") && !text.contains("\n"), "seed \(seed): compact")
            // Codable, through Foundation: the same value back, and the same JSON value as `json`.
            let encoded = try encoder.encode(changeset)
            #expect(try JSONDecoder().decode(Changeset.self, from: encoded) == changeset, "seed \(seed)")
            let viaEncoder = try JSONSerialization.jsonObject(with: encoded) as? NSDictionary
            let viaText = try JSONSerialization.jsonObject(with: Data(text.utf8)) as? NSDictionary
            #expect(viaEncoder != nil && viaEncoder == viaText, "seed \(seed): \(String(decoding: encoded, as: UTF8.self))")
        }
    }

    /// What a program reading `sectionctl --json` output declares: the changeset is one member.
    struct Reply: Codable, Equatable {
        var list: String
        var version: Int64
        var changes: Changeset
    }

    @Test func decodesInsideALargerDocument() throws {
        let text = #"{"list":"default","version":5,"changes":"# + Self.everyFieldText + "}"
        let reply = try JSONDecoder().decode(Reply.self, from: Data(text.utf8))
        #expect(reply == Reply(list: "default", version: 5, changes: Self.everyField))
    }

    @Test func footersMayBeMissingAndUnknownKeysAreIgnored() throws {
        let older =
            #"{"sections":{"deleted":[],"inserted":[1],"moved":[],"updated":[]},"#
            + #""rows":{"deleted":[],"inserted":[],"moved":[],"updated":[[0,0]]},"note":"x"}"#
        var expected = Changeset()
        expected.insertedSections = [1]
        expected.updatedRows = [RowPath(section: 0, row: 0)]
        #expect(try Changeset(json: older) == expected)
    }

    /// `text` must be refused with a `DecodingError`; returns it.
    @discardableResult
    func refusal(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) -> DecodingError? {
        do {
            let changeset = try Changeset(json: text)
            Issue.record("read \(text) as \(changeset)", sourceLocation: sourceLocation)
            return nil
        } catch let error as DecodingError {
            return error
        } catch {
            Issue.record("\(text): \(error) is not a DecodingError", sourceLocation: sourceLocation)
            return nil
        }
    }

    /// The keys of the coding path of `error`.
    func path(of error: DecodingError?) -> [String] {
        let context: DecodingError.Context? =
            switch error {
            case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context): context
            case .keyNotFound(let key, let context):
                DecodingError.Context(codingPath: context.codingPath + [key], debugDescription: context.debugDescription)
            default: nil
            }
        return context?.codingPath.map { $0.intValue.map { "\($0)" } ?? $0.stringValue } ?? []
    }

    @Test func aReloadEntryIsNotAChangeset() {
        #expect(path(of: refusal(#"{"reload":true}"#)) == ["sections"])
    }

    @Test func malformedInputIsRefusedSayingWhere() {
        let good = Self.everyFieldText
        func replacing(_ old: String, with new: String) -> String {
            precondition(good.contains(old))
            return good.replacingOccurrences(of: old, with: new)
        }
        refusal("")
        refusal("not json")
        refusal(String(good.dropLast()))  // cut short
        refusal("[]")
        refusal("null")
        #expect(path(of: refusal(#"{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[]}}"#)) == ["rows"])
        #expect(path(of: refusal(replacing(#""deleted":[3]"#, with: #""deleted":["3"]"#))) == ["sections", "deleted", "0"])
        refusal(replacing(#""deleted":[3]"#, with: #""deleted":[3.5]"#))  // not an integer
        #expect(path(of: refusal(replacing(#""updated":[5]"#, with: #""updated":5"#))) == ["sections", "updated"])
        #expect(path(of: refusal(replacing(#""footers":[1,5]"#, with: #""footers":[null]"#))) == ["sections", "footers", "0"])
        #expect(path(of: refusal(replacing(#"{"from":2,"to":1}"#, with: #"{"from":2}"#))) == ["sections", "moved", "0", "to"])
        #expect(path(of: refusal(replacing(#"[[0,2]]"#, with: #"[[0,2,1]]"#))).starts(with: ["rows", "deleted", "0"]))
        #expect(path(of: refusal(replacing(#"[[0,2]]"#, with: #"[[0]]"#))).starts(with: ["rows", "deleted", "0"]))
        #expect(path(of: refusal(replacing(#"[[0,2]]"#, with: #"[0]"#))) == ["rows", "deleted", "0"])
        #expect(path(of: refusal(replacing(#""to":[1,10]"#, with: #""to":[1,10,0]"#))).starts(with: ["rows", "moved", "0", "to"]))
        #expect(path(of: refusal(replacing(#""to":[1,10]"#, with: #""to":{"section":1,"row":10}"#))) == ["rows", "moved", "0", "to"])
        #expect(path(of: refusal(replacing(#""updated":[[2,7]]"#, with: #""updated":null"#))) == ["rows", "updated"])
    }

    @Test func aWrongPairSaysWhatAPairIs() throws {
        let error = try #require(refusal(Self.everyFieldText.replacingOccurrences(of: "[[0,2]]", with: "[[0,2,1]]")))
        guard case .dataCorrupted(let context) = error else {
            Issue.record("\(error)")
            return
        }
        #expect(context.debugDescription == "a row path is a [section, row] pair of two integers, not 3 elements")
    }

    /// The journal's text, read as a user of the `sqlite3` shell or `psql` would, oldest first.
    func journal(_ fixture: StoreFixture) throws -> [String] {
        let sql = "SELECT changes FROM journal WHERE list_id = 1 ORDER BY version"
        switch fixture.location {
        case .file(let path):
            return try Connection(path: path, mode: .readOnly).query(sql) { $0.string(0) }
        case .server(let uri):
            let db = try PostgresConnection(connectionString: uri)
            try db.execute(script: "SET search_path = sectionctl")
            let result = try db.execute(sql)
            return (0..<result.rowCount).compactMap { result.string($0, 0) }
        }
    }

    @Test("the journal stores each change's json, byte for byte", arguments: Backend.all)
    func theJournalStoresTheText(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var changes = [try store.list("default").apply(.addSection(title: "A")), try store.list("default").apply(.addSection(title: "B"))]
        changes.append(try store.list("default").apply(.addRow(.text("a"), to: .at(0, 0))))
        changes.append(try store.list("default").apply(.moveRow(.at(0, 0), to: .at(1, 0))))
        changes.append(try store.list("default").apply(.moveSection(.index(1), to: 0)))
        changes.append(try store.list("default").apply(.deleteSection(.index(1), force: true)))
        #expect(try journal(fixture) == changes.map(\.changeset.json))
        #expect(
            changes[3].changeset.json
                == #"{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[0,1]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[{"from":[0,0],"to":[1,0]}],"updated":[]},"#
                + #""ids":{"sections":{"deleted":[],"inserted":[],"moved":[],"updated":[],"footers":[1,2]},"#
                + #""rows":{"deleted":[],"inserted":[],"moved":[1],"updated":[]}}}"#)
        let since = try #require(try store.list("default").changes(since: 0).changeset)
        #expect(try Changeset(json: since.json) == since)
    }

    /// A changeset that only inserts and deletes sections, many of them, as an import or the undo
    /// of one makes.
    static let bulk: Changeset = {
        var changeset = Changeset()
        changeset.deletedSections = [0, 1, 2]
        changeset.deletedSectionIDs = [SectionID(9), SectionID(4), SectionID(5)]
        changeset.insertedSections = Array(0..<100) + Array(102..<110)
        changeset.insertedSectionIDs = (1_000..<1_108).map { SectionID(Int64($0)) }
        return changeset
    }()

    @Test func theJournalKeepsABulkChangeAsRunsThatReadBackWhole() throws {
        let text = Self.bulk.journalJSON
        #expect(
            text
                == #"{"runs":{"sections":{"deleted":[[0,2]],"inserted":[[0,99],[102,109]]},"#
                + #""ids":{"deleted":[[9,9],[4,5]],"inserted":[[1000,1107]]}}}"#)
        #expect(try Changeset(json: text) == Self.bulk)
        #expect(try JSONDecoder().decode(Changeset.self, from: Data(text.utf8)) == Self.bulk)
        // Anything else, or too few entries, or runs no shorter: the full form.
        var moved = Self.bulk
        moved.movedSections = [.init(from: 5, to: 6)]
        moved.movedSectionIDs = [SectionID(3)]
        #expect(moved.journalJSON == moved.json)
        var small = Changeset()
        small.insertedSections = Array(0..<10)
        small.insertedSectionIDs = (1...10).map { SectionID(Int64($0)) }
        #expect(small.journalJSON == small.json)
        var scattered = Changeset()
        scattered.insertedSections = Array(stride(from: 0, to: 200, by: 2))
        scattered.insertedSectionIDs = (1...100).map { SectionID(Int64($0)) }
        #expect(scattered.journalJSON == scattered.json)
        #expect(Self.everyField.journalJSON == Self.everyField.json)
    }

    @Test func malformedRunsAreRefusedSayingWhat() throws {
        func runs(deleted: String = "[]", inserted: String = "[[0,9]]", deletedIDs: String = "[]", insertedIDs: String = "[[1,10]]") -> String {
            #"{"runs":{"sections":{"deleted":\#(deleted),"inserted":\#(inserted)},"ids":{"deleted":\#(deletedIDs),"inserted":\#(insertedIDs)}}}"#
        }
        #expect(try Changeset(json: runs()).insertedSections == Array(0...9))
        func reason(_ text: String) -> String {
            guard case .dataCorrupted(let context) = refusal(text) else { return "" }
            return context.debugDescription
        }
        #expect(reason(runs(insertedIDs: "[[1,9]]")) == "9 ids for 10 entries; each entry has one id")
        #expect(reason(runs(inserted: "[[9,0]]")) == "the run [9, 0] ends before it starts")
        #expect(reason(runs(inserted: "[[0,4],[5,9]]")) == "the run [5, 9] does not start past the run before it, which ends at 4")
        #expect(reason(runs(inserted: "[[-1,8]]")) == "the run [-1, 8] holds a negative index")
        #expect(reason(runs(insertedIDs: "[[0,9]]")) == "the run [0, 9] holds an id below 1")
        #expect(reason(runs(inserted: "[[0,9,1]]")) == "a run is a [first, last] pair of two integers, not 3")
        #expect(
            reason(runs(inserted: "[[0,9223372036854775806]]", insertedIDs: "[[1,9223372036854775807]]"))
                == "the runs stand for more than 2147483647 entries")
        #expect(path(of: refusal(#"{"runs":{"sections":{"deleted":[],"inserted":[]}}}"#)) == ["runs", "ids"])
        #expect(reason(#"{"runs":{"sections":{"deleted":[],"inserted":[]},"ids":{"deleted":[],"inserted":[]}},"rows":{}}"#).contains("beside them"))
    }

    /// A session that adds many sections saves one change that only inserts them: the journal
    /// keeps it as runs on both engines, and its undo too, and `changes(since:)` reads both whole.
    @Test("the journal keeps a bulk change as runs, on both engines", arguments: Backend.all)
    func theJournalKeepsABulkChangeAsRuns(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let list = fixture.store.list("default")
        try list.apply(.addSection(title: "first"))
        let session = try list.beginEditing()
        for number in 0..<80 { try session.apply(.addSection(title: "s\(number)", at: number + 1)) }
        let saved = try session.save()
        #expect(try list.changes(since: saved.version.previous).changeset == saved.changeset)
        let undone = try list.undo()
        #expect(try list.changes(since: undone.version.previous).changeset == undone.changeset)
        let entries = try journal(fixture)
        #expect(entries.count == 3)
        #expect(entries[1].hasPrefix(#"{"runs":{"sections":{"deleted":[],"inserted":[[1,80]]},"#), "\(entries[1].prefix(120))")
        #expect(entries[2].hasPrefix(#"{"runs":{"sections":{"deleted":[[1,80]],"inserted":[]},"#), "\(entries[2].prefix(120))")
        #expect(try fixture.store.check() == [])
    }
}
