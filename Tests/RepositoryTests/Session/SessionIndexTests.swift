import Foundation
import TestSupport
import Testing

@testable import Repository

/// Long sessions on sections of thousands of stored rows, read after every edit against a plain
/// model: the piece table's blocks split, join and re-key their held rows many times over.
@Suite("Edit sessions: long sessions against a model")
struct SessionIndexTests {
    /// The sections: a large one, a small one and an empty one.
    static let storedRows = [3_000, 40, 0]

    @Test(arguments: [1, 2, 3] as [UInt64]) func manyRandomEditsReadLikeAModelAndSaveIt(seed: UInt64) throws {
        let fixture = try StoreFixture(.sqlite)
        for (index, rows) in Self.storedRows.enumerated() {
            try fixture.list.apply(.addSection(title: "S\(index)"))
            guard rows > 0 else { continue }
            let filling = try fixture.list.beginEditing()
            for row in 0..<rows { try filling.apply(.addRow(.text("s\(index) r\(row)"), to: .init(section: .index(index), index: .end))) }
            try filling.save()
        }
        let before = try fixture.list.snapshot()
        var model = before.sections.map(\.rows)
        var gone: [RowID] = []
        let session = try fixture.list.beginEditing()
        var random = SeededGenerator(seed: seed)
        var added = 0

        func check(_ step: Int) throws {
            let context: Comment = "seed \(seed), step \(step)"
            #expect(try session.outline.sections.map(\.rowCount) == model.map(\.count), context)
            for section in model.indices where !model[section].isEmpty {
                let probe = Int.random(in: 0..<model[section].count, using: &random)
                let row = model[section][probe]
                #expect(try session.row(at: RowPath(section: section, row: probe)).row == row, context)
                #expect(try session.path(ofRow: row.id) == RowPath(section: section, row: probe), context)
                #expect(try session.row(.id(row.id)).path == RowPath(section: section, row: probe), context)
            }
            let section = Int.random(in: 0..<model.count, using: &random)
            let start = Int.random(in: 0...model[section].count, using: &random)
            let limit = Int.random(in: 0...80, using: &random)
            let window = try session.window(from: RowPath(section: section, row: start), limit: limit)
            let expected = (section..<model.count).flatMap { index in
                model[index].indices.dropFirst(index == section ? start : 0).map { (RowPath(section: index, row: $0), model[index][$0]) }
            }.prefix(limit)
            #expect(window.located.map(\.path) == expected.map(\.0), context)
            #expect(window.located.map(\.row) == expected.map(\.1), context)
            if let id = gone.randomElement(using: &random) {
                #expect(throws: RepositoryError.rowNotFound(id, list: "default"), context) { try session.path(ofRow: id) }
            }
        }

        for step in 0..<1_500 {
            let rowCount = model.map(\.count).reduce(0, +)
            let roll = Int.random(in: 0..<100, using: &random)
            let from = model.indices.filter { !model[$0].isEmpty }.randomElement(using: &random)!
            let to = Int.random(in: 0..<model.count, using: &random)
            let fromRow = Int.random(in: 0..<model[from].count, using: &random)
            if roll < 55 || rowCount < 100 && roll < 80 {
                // A move, within the section or to another, by path or by id.
                let row = model[from].remove(at: fromRow)
                let toRow = Int.random(in: 0...model[to].count, using: &random)
                model[to].insert(row, at: toRow)
                let ref: RowRef = roll % 2 == 0 ? .id(row.id) : .at(from, fromRow)
                try session.apply(.moveRow(ref, to: .at(to, toRow)))
            } else if roll < 70 {
                // A burst of rows added at one place: held pieces grow past their bound.
                let toRow = Int.random(in: 0...model[to].count, using: &random)
                for offset in 0..<(roll < 62 ? 1 : 90) {
                    added += 1
                    let content = RowContent.text("added \(added)")
                    let id = try #require(try session.apply(.addRow(content, to: .at(to, toRow + offset))).createdID?.rowID)
                    model[to].insert(Row(id: id, content: content), at: toRow + offset)
                }
            } else if roll < 85 {
                let row = model[from].remove(at: fromRow)
                gone.append(row.id)
                try session.apply(.deleteRow(roll % 2 == 0 ? .id(row.id) : .at(from, fromRow)))
            } else {
                let title = "updated \(step)"
                model[from][fromRow].content.title = title
                try session.apply(.updateRow(.id(model[from][fromRow].id), title: title))
            }
            try check(step)
        }

        let draft = try session.snapshot()
        #expect(draft.sections.map(\.rows) == model, "seed \(seed)")
        let change = try session.save()
        let after = try fixture.list.snapshot()
        // Saved rows have stored ids: compare contents in order, and ids of the rows kept.
        #expect(after.sections.map { $0.rows.map(\.content) } == model.map { $0.map(\.content) }, "seed \(seed)")
        let savedIDs = session.savedRowIDs
        #expect(after.sections.map { $0.rows.map(\.id) } == model.map { $0.map { savedIDs[$0.id] ?? $0.id } }, "seed \(seed)")
        try requireChangeset(change.changeset, turns: before, into: after, "seed \(seed)")
    }
}
