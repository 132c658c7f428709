import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

/// The sections' rank structure (`Migrations/0006_section_rank.sql`) against the sections it
/// counts: after any sequence of writes, by sectionctl or by plain SQL, `check()` finds nothing,
/// and a lookup through it gives what a plain `ORDER BY position LIMIT 1 OFFSET k` scan gives.
@Suite("Section rank structure")
struct SectionRankTests {
    /// Compares lookups through the structure with plain scans at `samples` random indexes of
    /// every list (and both ends, and one past the end), and checks the whole file.
    func expectLookupsMatchScans(
        _ store: SectionStore, samples: Int, using generator: inout SeededGenerator, seed: UInt64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let problems = try store.check()
        try #require(problems.isEmpty, "seed \(seed): \(problems.prefix(5))", sourceLocation: sourceLocation)
        let lists = try store.read { db in try db.query("SELECT id FROM lists ORDER BY id") { $0.int64(0) } }
        for list in lists {
            let count = try store.read { db in try Int(db.scalarInt("SELECT count(*) FROM sections WHERE list_id = ?", list)!) }
            let counted = try store.read { db in
                try db.sectionCount(of: ListRecord(id: list, name: "", version: 0))
            }
            try #require(counted == count, "seed \(seed): section count of list #\(list)", sourceLocation: sourceLocation)
            var indexes = (0..<samples).map { _ in count == 0 ? 0 : Int.random(in: 0..<count, using: &generator) }
            indexes += [0, count - 1, count]
            for index in indexes where index >= 0 {
                let (ranked, scanned) = try store.read { db in
                    (
                        try RankTree.item(at: index, of: list, in: .sections, db: db)?.id,
                        try db.scalarInt("SELECT id FROM sections WHERE list_id = ? ORDER BY position LIMIT 1 OFFSET ?", list, index)
                    )
                }
                try #require(ranked == scanned, "seed \(seed): section \(index) of list #\(list)", sourceLocation: sourceLocation)
                guard let id = scanned else { continue }
                let rank = try store.read { db in
                    let position = try db.scalarInt("SELECT position FROM sections WHERE id = ?", id)!
                    return try RankTree.index(ofPosition: position, of: list, in: .sections, db: db)
                }
                try #require(rank == index, "seed \(seed): index of section #\(id)", sourceLocation: sourceLocation)
            }
        }
    }

    /// Random section edits on two lists against a model of their titles: adds (mostly at one
    /// hot index, so that level-1 nodes fill, split and fill again), deletes, moves, renames, and
    /// now and then a whole list deleted and made again.
    @Test("random section edits keep the structure equal to the sections", arguments: Backend.all, propertySeeds([1, 2]))
    func randomEdits(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: seed)
        _ = try store.createList(named: "other")
        let names = [SectionStore.defaultList, "other"]
        var model: [[String]] = [[], []]
        var next = 0
        for step in 0..<1_500 {
            let list = Int.random(in: 0..<2, using: &generator)
            let handle = store.list(names[list])
            let count = model[list].count
            switch Int.random(in: 0..<20, using: &generator) {
            case 0..<10:
                let index = Bool.random(using: &generator) ? min(1, count) : Int.random(in: 0...count, using: &generator)
                try handle.apply(.addSection(title: "s\(next)", at: index))
                model[list].insert("s\(next)", at: index)
                next += 1
            case 10..<14 where count > 0:
                let index = Int.random(in: 0..<count, using: &generator)
                try handle.apply(.deleteSection(.index(index), force: true))
                model[list].remove(at: index)
            case 14..<18 where count > 0:
                let from = Int.random(in: 0..<count, using: &generator)
                let to = Int.random(in: 0..<count, using: &generator)
                try handle.apply(.moveSection(.index(from), to: to))
                model[list].insert(model[list].remove(at: from), at: to)
            case 18 where count > 0:
                let index = Int.random(in: 0..<count, using: &generator)
                try handle.apply(.renameSection(.index(index), title: "t\(next)"))
                model[list][index] = "t\(next)"
                next += 1
            case 19 where list == 1 && step % 7 == 0:
                _ = try store.deleteList("other", force: true)
                _ = try store.createList(named: "other")
                model[1] = []
            default:
                break
            }
            if step % 300 == 299 {
                try expectLookupsMatchScans(store, samples: 20, using: &generator, seed: seed)
                // A window of the outline is that run of the sections.
                for (list, name) in names.enumerated() {
                    let count = model[list].count
                    let first = Int.random(in: 0...count, using: &generator)
                    let limit = Int.random(in: 0...40, using: &generator)
                    let window = try store.list(name).outline(from: first, limit: limit)
                    #expect(window.sectionCount == count && window.first == first, "seed \(seed): list \(name)")
                    #expect(
                        window.sections.map(\.title) == Array(model[list][first..<min(count, first + limit)]),
                        "seed \(seed): list \(name) from \(first)")
                    #expect(window.sections.map(\.index) == Array(first..<window.end), "seed \(seed)")
                }
            }
        }
        for (list, name) in names.enumerated() {
            let titles = try store.list(name).snapshot().sections.map(\.title)
            #expect(titles == model[list], "seed \(seed): list \(name)")
        }
        try expectLookupsMatchScans(store, samples: 50, using: &generator, seed: seed)
    }

    @Test(arguments: Backend.all) func aWindowOfTheOutlineReadsARunOfSectionsWithTheirCounts(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        for section in 0..<5 {
            try await list.async.apply(.addSection(title: "s\(section)"))
            for _ in 0..<section { try await list.async.apply(.addRow(.text("r"), to: .init(section: .index(section), index: .end))) }
        }
        let whole = try await list.async.outline(editing: true)
        let window = try await list.async.outline(from: 1, limit: 3, editing: true, atVersion: whole.version)
        #expect(window.sections == Array(whole.sections[1..<4]))
        #expect(window.sectionCount == 5 && window.first == 1 && window.end == 4 && window.version == whole.version && window.isEditing)
        #expect(!window.isWhole && window[0] == nil && window[1]?.rowCount == 1 && window[3]?.title == "s3" && window[4] == nil)
        #expect(OutlineWindow(whole).isWhole && OutlineWindow(whole)[4] == whole.sections[4])
        let tail = try await list.async.outline(from: 3, limit: 10)
        #expect(tail.sections.map(\.title) == ["s3", "s4"], "a limit past the end gives what there is")
        #expect(try await list.async.outline(from: 5, limit: 10).sections.isEmpty, "from the count: none")
        await #expect(throws: RepositoryError.sectionIndexOutOfRange(6, valid: 0...5, version: whole.version)) {
            try await list.async.outline(from: 6, limit: 1)
        }
        await #expect(throws: RepositoryError.sectionIndexOutOfRange(-1, valid: 0...5, version: whole.version)) {
            try await list.async.outline(from: -1, limit: 1)
        }
        await #expect(throws: RepositoryError.negativeWindowLimit(-1)) { try await list.async.outline(from: 0, limit: -1) }
        await #expect(throws: RepositoryError.listMovedOn(list: list.name, expected: whole.version.previous, current: whole.version)) {
            try await list.async.outline(from: 0, limit: 1, atVersion: whole.version.previous)
        }
        // An edit session's draft, the same way.
        let session = try list.beginEditing()
        try session.apply(.addSection(title: "new", at: 1))
        let draft = try session.outline(from: 1, limit: 2)
        #expect(draft.sections.map(\.title) == ["new", "s1"] && draft.sections.map(\.index) == [1, 2])
        #expect(draft.sectionCount == 6 && draft.version == whole.version && draft.isEditing)
        #expect(try draft.sections == Array(session.outline.sections[1..<3]))
        #expect(throws: RepositoryError.sectionIndexOutOfRange(7, valid: 0...6)) { try session.outline(from: 7, limit: 1) }
        #expect(throws: RepositoryError.negativeWindowLimit(-2)) { try session.outline(from: 0, limit: -2) }
        session.cancel()
        #expect(throws: RepositoryError.sessionClosed) { try session.outline(from: 0, limit: 1) }
    }

    @Test(arguments: Backend.all) func aBulkInsertByPlainSQLIsCutIntoBalancedNodesAtTheNextCommit(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        // 5,000 sections in one plain statement, then one section by sectionctl, whose commit
        // settles what the statement noted.
        let series =
            backend == .sqlite
            ? "WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000) SELECT i FROM n"
            : "SELECT generate_series(1, 5000) AS i"
        try fixture.plainSQL("INSERT INTO sections (list_id, position, title) SELECT 1, i * 4096, 's' || i FROM (\(series)) AS n")
        try store.list("default").apply(.addSection(title: "last"))
        let levelOne = try store.read { db in
            try db.query("SELECT section_count FROM section_rank_nodes WHERE list_id = 1 AND level = 1") { $0.int(0) }
        }
        #expect(levelOne.count > 5_000 / 64 && levelOne.allSatisfy { $0 <= 64 }, "\(levelOne.count) nodes")
        var generator = SeededGenerator(seed: 19)
        try expectLookupsMatchScans(store, samples: 100, using: &generator, seed: 19)
        #expect(try store.list(SectionStore.defaultList).section(.index(4_999)).title == "s5000")
        #expect(try store.list(SectionStore.defaultList).section(.index(5_000)).title == "last")
    }

    @Test(arguments: Backend.all) func checkNamesAWrongCountAndRepairRebuildsIt(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        for title in ["A", "B", "C"] { try store.list("default").apply(.addSection(title: title)) }
        try fixture.plainSQL("UPDATE section_rank_nodes SET section_count = 7 WHERE list_id = 1 AND level = 3")
        #expect(
            try store.check() == [
                IntegrityProblem(
                    kind: .rank, message: "list #1: section rank node -9223372036854775808 of level 3 counts 7 sections, but 3 are in its range")
            ])
        let report = try store.repair()
        #expect(report.actions.contains { $0.message.contains("built its section rank structure afresh from its sections") }, "\(report.actions)")
        #expect(try store.check() == [])
        #expect(try store.list(SectionStore.defaultList).section(.index(2)).title == "C")
        #expect(try store.list(SectionStore.defaultList).section(.title("B")).index == 1)
    }

    @Test func aListDeletedByPlainSQLWithForeignKeysOffTakesItsNodes() throws {
        let fixture = try StoreFixture(.sqlite)
        let store = fixture.store
        _ = try store.createList(named: "gone")
        for title in ["A", "B"] { try store.list("gone").apply(.addSection(title: title)) }
        try fixture.plainSQL("DELETE FROM lists WHERE name = 'gone'")
        #expect(try store.check() == [])
        let nodes = try store.read { db in try db.scalarInt("SELECT count(*) FROM section_rank_nodes WHERE list_id <> 1") }
        #expect(nodes == 0)
    }

    @Test func theMigrationBuildsTheStructureForSectionsAlreadyThere() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("old.db")
        // A database at schema version 5, with 3,000 sections in one list and 2 in another.
        do {
            let db = try Connection(path: path, mode: .readWriteCreate)
            try Migrator.migrate(db, through: 5)
            try db.execute(
                script: """
                    INSERT INTO lists (name) VALUES ('small');
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 3000)
                    INSERT INTO sections (list_id, position, title) SELECT 1, i * 1024, 's' || i FROM n;
                    INSERT INTO sections (list_id, position, title) VALUES (2, 5, 'x'), (2, 9, 'y');
                    """)
        }
        let store = try SectionStore(path: path)
        var generator = SeededGenerator(seed: 23)
        try expectLookupsMatchScans(store, samples: 100, using: &generator, seed: 23)
        let levelOne = try store.read { db in
            try db.scalarInt("SELECT count(*) FROM section_rank_nodes WHERE list_id = 1 AND level = 1")
        }
        #expect(levelOne == 94, "3,000 sections in nodes of 32: 93 full ones and one of 24")
        #expect(try store.list("small").section(.index(1)).title == "y")
    }
}
