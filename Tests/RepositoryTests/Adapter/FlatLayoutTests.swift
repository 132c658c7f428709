import TestSupport
import Testing

@testable import Repository

/// A list laid out as one run of rows for a table view without sections (AppKit's): the
/// places of headers, rows and footers, where a drop lands, and the calls that take the run from
/// one list to another, applied one after another as AppKit applies them.
@Suite("A list as one run of rows")
struct FlatLayoutTests {
    /// Two sections of two rows and an empty one, in an editing view: its footer shows.
    static let list = ListSnapshot(
        name: "default", version: 3, isEditing: true,
        sections: [
            Section(id: 1, title: "A", rows: [Row(id: 1, content: .text("a0")), Row(id: 2, content: .text("a1"))]),
            Section(id: 2, title: "B"),
            Section(id: 3, title: "C", rows: [Row(id: 3, content: .text("c0")), Row(id: 4, content: .text("c1"))]),
        ])

    @Test("headers, rows and the footers shown, in order, and back")
    func theRunAndItsPlaces() {
        let layout = FlatListLayout(Self.list)
        let expected: [FlatRow] = [
            .header(section: 0), .row(RowPath(section: 0, row: 0)), .row(RowPath(section: 0, row: 1)),
            .header(section: 1), .footer(section: 1),
            .header(section: 2), .row(RowPath(section: 2, row: 0)), .row(RowPath(section: 2, row: 1)),
        ]
        #expect(layout.count == expected.count)
        #expect((0..<layout.count).map(layout.row(at:)) == expected)
        #expect(expected.map(layout.index(of:)) == Array(expected.indices))

        var reading = Self.list
        reading.isEditing = false
        let plain = FlatListLayout(reading)
        #expect((0..<plain.count).map(plain.row(at:)).filter { if case .footer = $0 { true } else { false } }.isEmpty, "no footer unless editing")
        #expect(plain.count == 7)
        #expect(FlatListLayout(ListSnapshot(name: "default", version: 0)).count == 0)
    }

    @Test("a drop above a row, a footer, a header or the end lands where AppKit shows it")
    func dropsLand() {
        let layout = FlatListLayout(Self.list)
        let a0 = RowPath(section: 0, row: 0)
        #expect(layout.destination(ofDropAbove: 0, from: a0) == nil, "above the first header")
        #expect(layout.destination(ofDropAbove: 1, from: a0) == RowPath(section: 0, row: 0), "onto its own place")
        #expect(layout.destination(ofDropAbove: 3, from: a0) == RowPath(section: 0, row: 1), "above B's header: the end of A")
        #expect(layout.destination(ofDropAbove: 4, from: a0) == RowPath(section: 1, row: 0), "above B's footer: into empty B")
        #expect(layout.destination(ofDropAbove: 7, from: a0) == RowPath(section: 2, row: 1))
        #expect(layout.destination(ofDropAbove: 8, from: a0) == RowPath(section: 2, row: 2), "the end of the run")
        #expect(layout.destination(ofDropAbove: 9, from: a0) == nil)
        #expect(layout.destination(ofDropAbove: 6, from: RowPath(section: 2, row: 1)) == RowPath(section: 2, row: 0))
    }

    @Test(
        "random pairs of lists: the calls, applied one after another, give the new run, redraw what changed and nothing else",
        arguments: propertySeeds([81, 82, 83]))
    func randomPairs(seed: UInt64) {
        var random = SeededGenerator(seed: seed)
        let generator = ComposeTests()
        var moves = 0
        for round in 0..<500 {
            var nextID: Int64 = 1
            var old = generator.randomSnapshot(&random, nextID: &nextID)
            old.isEditing = round % 3 != 0
            var new = round % 10 == 0 ? old : generator.evolve(old, &random, nextID: &nextID)
            if round % 7 == 0 { new.isEditing.toggle() }
            let change = FlatChange(from: old, to: new)
            let shown = Self.apply(change, to: Self.run(old), drawing: Self.run(new))
            #expect(shown.run == Self.run(new), "seed \(seed), round \(round): \(change)")
            #expect(shown.redrawn == Set(Self.changedContent(old, new)), "seed \(seed), round \(round): \(change)")
            #expect(change.isEmpty == (Self.run(old) == Self.run(new)), "seed \(seed), round \(round)")
            moves += change.moves.count
        }
        #expect(moves > 0)
    }

    /// What each row of a list's run shows, with its identity.
    static func run(_ list: ListSnapshot) -> [String] {
        let layout = FlatListLayout(list)
        return (0..<layout.count).map { index in
            switch layout.row(at: index) {
            case .header(let section): "h\(list.sections[section].id) \(list.sections[section].title)"
            case .row(let path): "r\(list[path].id) \(list[path].content)"
            case .footer(let section): "f\(list.sections[section].id) \(list.footer(ofSection: section) ?? "")"
            }
        }
    }

    /// The identities (the part before the space) whose text differs between the runs.
    static func changedContent(_ old: ListSnapshot, _ new: ListSnapshot) -> [String] {
        let before = Dictionary(uniqueKeysWithValues: run(old).map { (String($0.split(separator: " ")[0]), $0) })
        return run(new).compactMap { line in
            let id = String(line.split(separator: " ")[0])
            return before[id].map { $0 != line ? id : nil } ?? nil
        }
    }

    /// `change` applied to `run` as AppKit applies a block of updates: removals at once, moves
    /// one after another, insertions at once at their final places, reloads; inserted and reloaded
    /// rows are drawn from `drawing` (the data source after the change). Also which identities
    /// were reloaded.
    static func apply(_ change: FlatChange, to run: [String], drawing: [String]) -> (run: [String], redrawn: Set<String>) {
        var rows: [String?] = run
        for index in change.removed.reversed() { rows.remove(at: index) }
        for move in change.moves { rows.insert(rows.remove(at: move.from), at: move.to) }
        for index in change.inserted { rows.insert(nil, at: index) }
        var redrawn: Set<String> = []
        for index in change.reloaded {
            redrawn.insert(String(drawing[index].split(separator: " ")[0]))
            rows[index] = nil
        }
        return (rows.enumerated().map { $1 ?? drawing[$0] }, redrawn)
    }
}
