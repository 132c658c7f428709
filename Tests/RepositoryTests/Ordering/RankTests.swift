import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

/// The rank structure against the rows it indexes: after any sequence of writes its counts
/// agree with the rows (`check()`), and a lookup through it gives what a plain `ORDER BY
/// position LIMIT 1 OFFSET k` scan gives.
@Suite("Rank structure")
struct RankTests {
    /// Section ids of the default list, in order.
    func sectionIDs(_ store: SectionStore) throws -> [Int64] {
        try store.read { db in try db.query("SELECT id FROM sections WHERE list_id = 1 ORDER BY position") { $0.int64(0) } }
    }

    /// Compares lookups through the tree with plain scans at `samples` random places of every
    /// section, and checks the whole structure.
    func expectLookupsMatchScans(
        _ store: SectionStore, samples: Int, using generator: inout SeededGenerator, seed: UInt64,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let problems = try store.check()
        try #require(problems.isEmpty, "seed \(seed): \(problems.prefix(5))", sourceLocation: sourceLocation)
        for section in try sectionIDs(store) {
            let count = try store.read { db in try Int(db.scalarInt("SELECT count(*) FROM rows WHERE section_id = ?", section)!) }
            var indexes = (0..<samples).map { _ in count == 0 ? 0 : Int.random(in: 0..<count, using: &generator) }
            indexes += [0, count - 1, count]
            for index in indexes where index >= 0 {
                let (ranked, scanned) = try store.read { db in
                    (
                        try RankTree.row(at: index, inSection: section, db: db)?.id,
                        try db.scalarInt(
                            "SELECT id FROM rows WHERE section_id = ? ORDER BY position LIMIT 1 OFFSET ?", section, index)
                    )
                }
                try #require(ranked == scanned, "seed \(seed): row \(index) of section #\(section)", sourceLocation: sourceLocation)
                guard let id = scanned else { continue }
                let rank = try store.read { db in
                    let position = try db.scalarInt("SELECT position FROM rows WHERE id = ?", id)!
                    return try RankTree.index(ofPosition: position, inSection: section, db: db)
                }
                try #require(rank == index, "seed \(seed): index of row #\(id)", sourceLocation: sourceLocation)
            }
        }
    }

    @Test("random edits keep the structure equal to the rows", arguments: Backend.all, propertySeeds([1, 2, 3]))
    func randomEdits(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: seed)
        var model: [[String]] = [[], [], []]
        for title in ["A", "B", "C"] { try store.list("default").apply(.addSection(title: title)) }
        var next = 0
        for step in 0..<3_000 {
            let section = Int.random(in: 0..<model.count, using: &generator)
            let count = model[section].count
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<5:
                // Mostly at one hot index, so level-1 nodes fill, split and fill again.
                let index = Bool.random(using: &generator) ? min(1, count) : Int.random(in: 0...count, using: &generator)
                try store.list("default").apply(.addRow(.text("r\(next)"), to: .at(section, index)))
                model[section].insert("r\(next)", at: index)
                next += 1
            case 5..<7 where count > 0:
                let index = Int.random(in: 0..<count, using: &generator)
                try store.list("default").apply(.deleteRow(.at(section, index)))
                model[section].remove(at: index)
            case 7..<10 where count > 0:
                let from = Int.random(in: 0..<count, using: &generator)
                let target = Int.random(in: 0..<model.count, using: &generator)
                let others = model[target].count - (target == section ? 1 : 0)
                let to = Int.random(in: 0...others, using: &generator)
                try store.list("default").apply(.moveRow(.at(section, from), to: .at(target, to)))
                model[target].insert(model[section].remove(at: from), at: to)
            default:
                break
            }
            if step % 500 == 499 {
                try expectLookupsMatchScans(store, samples: 20, using: &generator, seed: seed)
            }
        }
        let titles = try store.list("default").snapshot().sections.map { $0.rows.map(\.title) }
        #expect(titles == model, "seed \(seed)")
        try expectLookupsMatchScans(store, samples: 50, using: &generator, seed: seed)
    }

    @Test(arguments: Backend.all) func aSectionEmptiedAndRefilledStaysConsistent(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        var generator = SeededGenerator(seed: 7)
        for round in 0..<3 {
            for index in 0..<600 {
                try store.list("default").apply(.addRow(.text("\(round).\(index)"), to: .at(0, index / 2)))
            }
            try expectLookupsMatchScans(store, samples: 30, using: &generator, seed: 7)
            for _ in 0..<600 {
                try store.list("default").apply(.deleteRow(.at(0, 0)))
            }
            try expectLookupsMatchScans(store, samples: 1, using: &generator, seed: 7)
            let nodes = try store.read { db in try db.scalarInt("SELECT count(*) FROM rank_nodes WHERE section_id = 1") }
            #expect(nodes == 4, "an empty section keeps only its four starting nodes, round \(round)")
        }
    }

    @Test(arguments: Backend.all) func rowsShuttledBetweenTwoSectionsKeepBothConsistent(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addSection(title: "B"))
        for index in 0..<1_000 {
            try store.list("default").apply(.addRow(.text("\(index)"), to: .init(section: .index(0), index: .end)))
        }
        var generator = SeededGenerator(seed: 11)
        // Everything from A's front to B's middle, then back from B's end to A's middle.
        for _ in 0..<1_000 {
            let count = try store.list("default").rowCount(of: .index(1))
            try store.list("default").apply(.moveRow(.at(0, 0), to: .at(1, count / 2)))
        }
        try expectLookupsMatchScans(store, samples: 30, using: &generator, seed: 11)
        for _ in 0..<1_000 {
            let count = try store.list("default").rowCount(of: .index(0))
            try store.list("default").apply(.moveRow(.path(.index(1), .end), to: .at(0, count / 2)))
        }
        try expectLookupsMatchScans(store, samples: 30, using: &generator, seed: 11)
    }

    @Test(arguments: Backend.all) func aBulkInsertIsCutIntoBalancedNodesBeforeCommit(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        // Rows added by plain SQL in one transaction, as a script or an import would.
        try store.write { db in
            try db.execute(
                script: """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 20000)
                    INSERT INTO rows (section_id, position, title) SELECT 1, i * 4096, 'r' || i FROM n;
                    """)
        }
        // Cut into nodes of 32 children (the last of a level keeps the rest), within 8…64:
        // 625 nodes of 32 rows, under 20 nodes (19 of 32 children, 1,024 rows, and one of 17), under one node
        // of 20, under the top level's one; four levels.
        let nodes = try store.read { db in
            try db.query("SELECT level, count(*), min(row_count), max(row_count) FROM rank_nodes WHERE section_id = 1 GROUP BY level ORDER BY level")
            {
                [$0.int(0), $0.int(1), $0.int(2), $0.int(3)]
            }
        }
        #expect(nodes == [[1, 625, 32, 32], [2, 20, 544, 1_024], [3, 1, 20_000, 20_000], [4, 1, 20_000, 20_000]])
        #expect(try store.check() == [])
        var generator = SeededGenerator(seed: 13)
        try expectLookupsMatchScans(store, samples: 100, using: &generator, seed: 13)
    }

    @Test(arguments: Backend.all) func checkNamesACountThatDisagreesWithTheRows(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addRow(.text("x"), to: .at(0, 0)))
        #expect(try store.check().isEmpty)
        try fixture.plainSQL("UPDATE rank_nodes SET row_count = 5 WHERE section_id = 1 AND level = 2")
        let problems = try store.check()
        #expect(
            problems == [
                IntegrityProblem(kind: .rank, message: "section #1: rank node -9223372036854775808 of level 2 counts 5 rows, but 1 are in its range")
            ])
    }

    @Test func theMigrationBuildsTheStructureForRowsAlreadyThere() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("old.db")
        // A database at schema version 1, with rows, as 0.1.0 left it.
        let db = try Connection(path: path, mode: .readWriteCreate)
        try db.execute(script: EmbeddedMigration.all[0].sql)
        try db.execute(
            script: """
                CREATE TABLE sectionctl_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,
                    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) STRICT;
                INSERT INTO sectionctl_migrations (version, name) VALUES (1, 'initial');
                PRAGMA user_version = 1;
                INSERT INTO sections (list_id, position, title) VALUES (1, 1, 'A'), (1, 2, 'Empty');
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
                INSERT INTO rows (section_id, position, title) SELECT 1, i, 'r' || i FROM n;
                """)
        let store = try SectionStore(path: path)
        var generator = SeededGenerator(seed: 17)
        try expectLookupsMatchScans(store, samples: 100, using: &generator, seed: 17)
        let levelOne = try store.read { db in
            try db.scalarInt("SELECT count(*) FROM rank_nodes WHERE section_id = 1 AND level = 1")
        }
        #expect(levelOne == 157, "5,000 rows in nodes of 32: 156 full ones and one of 8")
    }
}
