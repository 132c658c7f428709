import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

@Suite("Sparse positions")
struct PositionTests {
    /// Positions of one section's rows in order, read straight from the table.
    func positions(_ store: SectionStore, section: Int64 = 1) throws -> [Int64] {
        try store.read { db in try db.query("SELECT position FROM rows WHERE section_id = ? ORDER BY position", section) { $0.int64(0) } }
    }

    func expectSaneOrder(_ store: SectionStore, expected titles: [String], sourceLocation: SourceLocation = #_sourceLocation) throws {
        let snapshot = try store.list("default").snapshot()
        try #require(snapshot.sections[0].rows.map(\.title) == titles, sourceLocation: sourceLocation)
        let stored = try positions(store)
        #expect(stored.allSatisfy { $0 >= 1 && $0 < OrderedTable.upperBound }, sourceLocation: sourceLocation)
        let counted = try store.read { db in try db.scalarInt("SELECT row_count FROM sections WHERE id = 1") }
        #expect(counted == Int64(titles.count), sourceLocation: sourceLocation)
    }

    @Test(
        "inserts that keep hitting one gap stay ordered and cost O(log n) writes",
        arguments: [("index 1", 1), ("index 0", 0), ("middle", -1), ("before last", -2)])
    func adversarialInserts(pattern: String, target: Int) throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        var model: [String] = []
        for index in 0..<20 {
            try store.list("default").apply(.addRow(.text("seed \(index)"), to: .init(section: .index(0), index: .end)))
            model.append("seed \(index)")
        }
        let writesBefore = store.positionWrites
        let inserts = 2000
        for step in 0..<inserts {
            let index: Int
            switch target {
            case -1: index = model.count / 2
            case -2: index = model.count - 1
            default: index = target
            }
            try store.list("default").apply(.addRow(.text("r\(step)"), to: .at(0, index)))
            model.insert("r\(step)", at: index)
        }
        try expectSaneOrder(store, expected: model)
        let perInsert = Double(store.positionWrites - writesBefore) / Double(inserts)
        #expect(perInsert <= 32, "\(pattern): \(perInsert) position writes per insert")
    }

    @Test func randomMovesWriteAboutOneRowEach() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        var model: [String] = []
        for index in 0..<300 {
            try store.list("default").apply(.addRow(.text("\(index)"), to: .init(section: .index(0), index: .end)))
            model.append("\(index)")
        }
        var random = SeededGenerator(seed: 99)
        let writesBefore = store.positionWrites
        let moves = 3000
        for _ in 0..<moves {
            let from = Int.random(in: 0..<model.count, using: &random)
            let to = Int.random(in: 0..<model.count, using: &random)
            try store.list("default").apply(.moveRow(.at(0, from), to: .at(0, to)))
            model.insert(model.remove(at: from), at: to)
        }
        try expectSaneOrder(store, expected: model)
        let perMove = Double(store.positionWrites - writesBefore) / Double(moves)
        #expect(perMove <= 1.5, "\(perMove) position writes per move")
    }

    @Test func anExhaustedGapIsSpreadLocally() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        // 1,000 rows a step apart, but rows 490…510 packed one position apart: no gap there.
        try store.write { db in
            for index in 0..<1000 {
                let position =
                    index >= 490 && index <= 510
                    ? OrderedTable.firstPosition + 490 * OrderedTable.step + Int64(index - 490)
                    : OrderedTable.firstPosition + Int64(index) * OrderedTable.step
                try db.run("INSERT INTO rows (section_id, position, title) VALUES (1, ?, ?)", position, "\(index)")
            }
        }
        var model = (0..<1000).map(String.init)
        let writesBefore = store.positionWrites
        try store.list("default").apply(.addRow(.text("new"), to: .at(0, 500)))
        model.insert("new", at: 500)
        try expectSaneOrder(store, expected: model)
        let rewritten = store.positionWrites - writesBefore - 1
        #expect(rewritten > 0 && rewritten < 100, "rewrote \(rewritten) of 1000 neighbours")
        // A move into a full neighbourhood parks the moving row while the block is spread.
        try store.list("default").apply(.moveRow(.at(0, 10), to: .at(0, 11)))
        model.insert(model.remove(at: 10), at: 11)
        try store.list("default").apply(.moveRow(.at(0, 900), to: .at(0, 501)))
        model.insert(model.remove(at: 900), at: 501)
        try expectSaneOrder(store, expected: model)
    }

    @Test func positionsNeverLeaveTheirBounds() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        // Rows crowded against both ends of the space.
        try store.write { db in
            try db.run("INSERT INTO rows (section_id, position, title) VALUES (1, 1, 'low')")
            try db.run("INSERT INTO rows (section_id, position, title) VALUES (1, ?, 'high')", OrderedTable.upperBound - 1)
        }
        var model = ["low", "high"]
        for step in 0..<100 {
            try store.list("default").apply(.addRow(.text("front \(step)"), to: .at(0, 0)))
            model.insert("front \(step)", at: 0)
            try store.list("default").apply(.addRow(.text("back \(step)"), to: .init(section: .index(0), index: .end)))
            model.append("back \(step)")
        }
        try expectSaneOrder(store, expected: model)
    }

    @Test func thePositionBetweenNeighbours() {
        #expect(OrderedTable.position(between: nil, and: nil) == OrderedTable.firstPosition)
        #expect(OrderedTable.position(between: 10, and: 20) == 15)
        #expect(OrderedTable.position(between: 10, and: 11) == nil)
        #expect(OrderedTable.position(between: 100, and: nil) == 100 + OrderedTable.step)
        #expect(OrderedTable.position(between: nil, and: OrderedTable.step + 8) == 8)
        #expect(OrderedTable.position(between: nil, and: 1) == nil)
        #expect(OrderedTable.position(between: OrderedTable.upperBound - 1, and: nil) == nil)
    }

    @Test func sectionsUseTheSameScheme() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        var model: [String] = []
        for index in 0..<300 {
            try store.list("default").apply(.addSection(title: "s\(index)", at: min(1, model.count)))
            model.insert("s\(index)", at: min(1, model.count))
        }
        #expect(try store.list("default").snapshot().sections.map(\.title) == model)
        // Positions stay inside the range kept for them (0 and below are for parking).
        let stored = try store.read { db in try db.query("SELECT position FROM sections ORDER BY position") { $0.int64(0) } }
        #expect(stored.allSatisfy { $0 >= 1 && $0 < OrderedTable.upperBound })
    }
}
