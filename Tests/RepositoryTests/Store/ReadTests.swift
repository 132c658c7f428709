import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

/// The reads a table view makes — a row by path, a row's path by id, a section's count, a window,
/// the outline — against the whole snapshot they must agree with.
@Suite("Windowed reads")
struct ReadTests {
    /// A list of `sections` sections with random row counts (some empty), built through the store.
    func randomList(_ store: SectionStore, sections: Int, using generator: inout SeededGenerator) throws {
        for index in 0..<sections {
            try store.list("default").apply(.addSection(title: "S\(index)", emptyText: index % 3 == 0 ? "nothing in \(index)" : nil))
            let rows = Bool.random(using: &generator) ? 0 : Int.random(in: 1...150, using: &generator)
            for row in 0..<rows {
                let kind = RowKind.allCases.randomElement(using: &generator)!
                try store.list("default").apply(
                    .addRow(RowContent(kind: kind, title: "\(index).\(row)", value: kind == .field ? "v" : nil), to: .at(index, row)))
            }
        }
    }

    /// What a window from `start` of `limit` rows must hold, computed from the whole snapshot.
    func expectedWindow(_ snapshot: ListSnapshot, from start: RowPath, limit: Int) -> [(section: Int, first: Int, ids: [RowID])] {
        var parts: [(section: Int, first: Int, ids: [RowID])] = []
        var remaining = limit
        var first = start.row
        for index in start.section..<snapshot.sections.count {
            let rows = snapshot.sections[index].rows
            let taken = Array(rows[min(first, rows.count)...].prefix(remaining)).map(\.id)
            parts.append((index, first, taken))
            remaining -= taken.count
            if remaining == 0 { break }
            first = 0
        }
        return parts
    }

    @Test("reads agree with the whole snapshot", arguments: Backend.all, propertySeeds([21, 22]))
    func readsAgreeWithTheSnapshot(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: seed)
        try randomList(store, sections: 8, using: &generator)
        // Some moves, so positions are no longer in insertion order.
        for _ in 0..<200 {
            let outline = try store.list("default").outline()
            let full = outline.sections.filter { $0.rowCount > 0 }
            guard let from = full.randomElement(using: &generator) else { break }
            let to = outline.sections.randomElement(using: &generator)!
            let others = to.rowCount - (to.id == from.id ? 1 : 0)
            try store.list("default").apply(
                .moveRow(
                    .at(from.index, Int.random(in: 0..<from.rowCount, using: &generator)),
                    to: .at(to.index, Int.random(in: 0...others, using: &generator))))
        }
        let snapshot = try store.list("default").snapshot(editing: true)
        let outline = try store.list("default").outline(editing: true)
        #expect(outline.sections.map(\.id) == snapshot.sections.map(\.id), "seed \(seed)")
        #expect(outline.sections.map(\.rowCount) == snapshot.sections.map(\.rows.count), "seed \(seed)")
        #expect(outline.sections.map { $0.footer(editing: true) } == snapshot.sections.map { $0.footer(editing: true) })
        for (sectionIndex, section) in snapshot.sections.enumerated() {
            #expect(try store.list("default").rowCount(of: .id(section.id)) == section.rows.count)
            for (rowIndex, row) in section.rows.enumerated() {
                let path = RowPath(section: sectionIndex, row: rowIndex)
                let located = try store.list("default").row(at: path)
                #expect(located.row == row && located.section.id == section.id, "seed \(seed): row at \(path)")
                #expect(try store.list("default").path(ofRow: row.id) == path, "seed \(seed): path of #\(row.id)")
                // A one-row window finds its section and row in one lookup (`rankedSectionAndRow`).
                let one = try store.list("default").window(from: path, limit: 1)
                #expect(one.located.map(\.row) == [row] && one.located.map(\.path) == [path], "seed \(seed): window at \(path)")
            }
        }
        for _ in 0..<100 {
            let section = Int.random(in: 0..<snapshot.sections.count, using: &generator)
            let start = RowPath(section: section, row: Int.random(in: 0...snapshot.sections[section].rows.count, using: &generator))
            let limit = Int.random(in: 0...120, using: &generator)
            let window = try store.list("default").window(from: start, limit: limit, editing: true)
            let expected = expectedWindow(snapshot, from: start, limit: limit)
            #expect(window.parts.map(\.section.index) == expected.map(\.section), "seed \(seed): window \(start) +\(limit)")
            #expect(window.parts.map(\.firstRow) == expected.map(\.first), "seed \(seed): window \(start) +\(limit)")
            #expect(window.parts.map { $0.rows.map(\.id) } == expected.map(\.ids), "seed \(seed): window \(start) +\(limit)")
            #expect(window.rowCount == min(limit, expected.reduce(0) { $0 + $1.ids.count }))
            for part in window.parts {
                #expect(part.section.footer(editing: true) == snapshot.sections[part.section.index].footer(editing: true))
            }
        }
    }

    @Test(arguments: Backend.all) func aWindowStartingAtASectionsEndBeginsWithTheNextSection(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        for title in ["A", "Empty", "C"] { try store.list("default").apply(.addSection(title: title)) }
        try store.list("default").apply(.addRow(.text("a"), to: .at(0, 0)))
        try store.list("default").apply(.addRow(.text("c"), to: .at(2, 0)))
        let window = try store.list("default").window(from: RowPath(section: 0, row: 1), limit: 5, editing: true)
        #expect(window.parts.map(\.section.title) == ["A", "Empty", "C"])
        #expect(window.located.map(\.path) == [RowPath(section: 2, row: 0)])
        #expect(window.parts[1].section.footer(editing: window.isEditing) == "No Data")
        #expect(window.parts[0].section.footer(editing: window.isEditing) == nil)
        // One row from the end of a section: the next section's first, past an empty one.
        let one = try store.list("default").window(from: RowPath(section: 0, row: 1), limit: 1)
        #expect(one.parts.map(\.section.title) == ["A", "Empty", "C"] && one.located.map(\.row.title) == ["c"])
    }

    @Test(arguments: Backend.all) func windowsAndLookupsRefuseWhatIsOutsideTheList(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addRow(.text("a"), to: .at(0, 0)))
        #expect(throws: RepositoryError.rowIndexOutOfRange(2, section: 0, valid: 0...1, version: 2)) {
            try store.list("default").window(from: RowPath(section: 0, row: 2), limit: 1)
        }
        #expect(throws: RepositoryError.sectionIndexOutOfRange(1, valid: 0...0, version: 2)) {
            try store.list("default").window(from: RowPath(section: 1, row: 0), limit: 1)
        }
        #expect(throws: RepositoryError.negativeWindowLimit(-1)) {
            try store.list("default").window(from: RowPath(section: 0, row: 0), limit: -1)
        }
        #expect(throws: RepositoryError.rowIndexOutOfRange(1, section: 0, valid: 0...0, version: 2)) {
            try store.list("default").row(at: RowPath(section: 0, row: 1))
        }
        #expect(throws: RepositoryError.rowNotFound(99, list: "default")) { try store.list("default").path(ofRow: 99) }
        // A window may start at a reference too; S:end is the last row.
        let window = try store.list("default").window(startingAt: .path(.index(0), .end), limit: 3)
        #expect(window.located.map(\.row.title) == ["a"])
    }
}
