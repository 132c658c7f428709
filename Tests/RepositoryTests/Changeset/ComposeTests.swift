import TestSupport
import Testing

@testable import Repository

@Suite("Composing changesets")
struct ComposeTests {
    /// Checks what every changeset must satisfy beyond turning old into new: sorted arrays with
    /// no repeats.
    func expectWellFormed(_ changeset: Changeset, _ context: String) {
        func sortedDistinct<T: Comparable>(_ values: [T]) -> Bool { zip(values, values.dropFirst()).allSatisfy { $0 < $1 } }
        #expect(sortedDistinct(changeset.deletedSections), "\(context)")
        #expect(sortedDistinct(changeset.insertedSections), "\(context)")
        #expect(sortedDistinct(changeset.updatedSections), "\(context)")
        #expect(sortedDistinct(changeset.movedSections.map(\.to)), "\(context)")
        #expect(sortedDistinct(changeset.deletedRows), "\(context)")
        #expect(sortedDistinct(changeset.insertedRows), "\(context)")
        #expect(sortedDistinct(changeset.updatedRows), "\(context)")
        #expect(sortedDistinct(changeset.movedRows.map(\.to)), "\(context)")
        #expect(Set(changeset.updatedRows).isDisjoint(with: changeset.insertedRows), "an inserted row is not also updated. \(context)")
        #expect(Set(changeset.updatedSections).isDisjoint(with: changeset.insertedSections), "\(context)")
        let inserted = Set(changeset.insertedSections)
        let deleted = Set(changeset.deletedSections)
        let arriving = changeset.insertedRows + changeset.updatedRows + changeset.movedRows.map(\.to)
        #expect(arriving.allSatisfy { !inserted.contains($0.section) }, "rows of inserted sections are not listed. \(context)")
        let leaving = changeset.deletedRows + changeset.movedRows.map(\.from)
        #expect(leaving.allSatisfy { !deleted.contains($0.section) }, "rows of deleted sections are not listed. \(context)")
    }

    @Test func movedAwayAndBackIsNoChange() {
        let there = Changeset.with { $0.movedRows = [.init(from: RowPath(section: 0, row: 0), to: RowPath(section: 1, row: 2))] }
        let back = Changeset.with { $0.movedRows = [.init(from: RowPath(section: 1, row: 2), to: RowPath(section: 0, row: 0))] }
        #expect(Changeset(composing: [there, back]).isEmpty)
        let rotate = Changeset.with { $0.movedRows = [.init(from: RowPath(section: 0, row: 0), to: RowPath(section: 0, row: 2))] }
        #expect(Changeset(composing: [rotate, rotate, rotate]).isEmpty, "three rotations of three rows are none")
    }

    @Test func insertedThenDeletedVanishesAndUpdatedThenDeletedIsDeleted() {
        let insert = Changeset.with { $0.insertedRows = [RowPath(section: 0, row: 1)] }
        let update = Changeset.with { $0.updatedRows = [RowPath(section: 0, row: 1), RowPath(section: 0, row: 3)] }
        let delete = Changeset.with { $0.deletedRows = [RowPath(section: 0, row: 1), RowPath(section: 0, row: 3)] }
        let composed = Changeset(composing: [insert, update, delete])
        #expect(composed.insertedRows.isEmpty && composed.updatedRows.isEmpty)
        #expect(composed.deletedRows == [RowPath(section: 0, row: 2)], "old 0:2 was at 0:3 after the insertion")
        #expect(insert.followed(by: update).insertedRows == [RowPath(section: 0, row: 1)])
        #expect(insert.followed(by: update).updatedRows == [RowPath(section: 0, row: 3)])
    }

    @Test func aRowMovedIntoADeletedSectionIsDeletedAndOneOutOfAnInsertedSectionIsInserted() {
        let moveIn = Changeset.with { $0.movedRows = [.init(from: RowPath(section: 0, row: 0), to: RowPath(section: 1, row: 0))] }
        let deleteSection = Changeset.with { $0.deletedSections = [1] }
        let composed = moveIn.followed(by: deleteSection)
        #expect(composed.deletedSections == [1] && composed.deletedRows == [RowPath(section: 0, row: 0)] && composed.movedRows.isEmpty)

        let addSection = Changeset.with { $0.insertedSections = [0] }
        let moveOut = Changeset.with { $0.movedRows = [.init(from: RowPath(section: 0, row: 0), to: RowPath(section: 1, row: 0))] }
        let outOfNew = addSection.followed(by: moveOut)
        #expect(outOfNew.insertedSections == [0] && outOfNew.insertedRows == [RowPath(section: 1, row: 0)] && outOfNew.movedRows.isEmpty)
    }

    @Test(
        "random edits on a database: composing every edit's changeset turns the first snapshot into the last",
        arguments: propertySeeds([31, 32, 33, 34]))
    func composedEditsMatchTheDatabase(seed: UInt64) throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        var model = ListModel()
        var generator = EditGenerator(random: SeededGenerator(seed: seed))
        var operations = 0
        for round in 0..<60 {
            let first = try store.list("default").snapshot()
            var changesets: [Changeset] = []
            let length = generator.int(1...40)
            for _ in 0..<length {
                let edit = generator.edit(model)
                _ = model.apply(edit)
                if let change = try? store.list("default").apply(edit) { changesets.append(change.changeset) }
                operations += 1
            }
            let last = try store.list("default").snapshot()
            let composed = Changeset(composing: changesets)
            let context = "seed \(seed), round \(round), \(changesets.count) changesets"
            expectWellFormed(composed, context)
            try requireChangeset(composed, turns: first, into: last, context, exactFooters: false)
            if first.sections == last.sections { #expect(composed.isEmpty, "\(context)") }
        }
        #expect(operations > 1000)
    }

    @Test(
        "random snapshots: composing the changesets between them turns the first into the last",
        arguments: propertySeeds([41, 42, 43, 44]))
    func composedDiffsMatchTheSnapshots(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var nextID: Int64 = 1
        for round in 0..<200 {
            var snapshots = [randomSnapshot(&random, nextID: &nextID)]
            for _ in 0..<Int.random(in: 1...6, using: &random) {
                snapshots.append(evolve(snapshots.last!, &random, nextID: &nextID))
            }
            let changesets = zip(snapshots, snapshots.dropFirst()).map { Changeset(from: $0, to: $1) }
            let composed = Changeset(composing: changesets)
            let context = "seed \(seed), round \(round)"
            expectWellFormed(composed, context)
            try requireChangeset(composed, turns: snapshots.first!, into: snapshots.last!, context, exactFooters: false)
            // Composition is associative in effect: composing the two halves gives the same.
            let middle = changesets.count / 2
            let halves = Changeset(composing: changesets[..<middle]).followed(by: Changeset(composing: changesets[middle...]))
            try requireChangeset(halves, turns: snapshots.first!, into: snapshots.last!, "\(context), in halves", exactFooters: false)
        }
    }

    func randomSnapshot(_ random: inout SeededGenerator, nextID: inout Int64) -> ListSnapshot {
        var snapshot = ListSnapshot(name: "default", version: 1)
        for _ in 0..<Int.random(in: 0...5, using: &random) {
            snapshot.sections.append(newSection(&random, nextID: &nextID))
        }
        return snapshot
    }

    func newSection(_ random: inout SeededGenerator, nextID: inout Int64) -> Section {
        defer { nextID += 1 }
        var section = Section(id: SectionID(nextID), title: "s\(nextID)")
        nextID += 1
        for _ in 0..<Int.random(in: 0...6, using: &random) {
            section.rows.append(Row(id: RowID(nextID), content: .text("r\(nextID)")))
            nextID += 1
        }
        return section
    }

    /// A few random changes of every kind, leaving much untouched.
    func evolve(_ old: ListSnapshot, _ random: inout SeededGenerator, nextID: inout Int64) -> ListSnapshot {
        var new = old
        new.version = new.version.next
        for _ in 0..<Int.random(in: 1...8, using: &random) {
            let roll = Int.random(in: 0..<100, using: &random)
            let sectionCount = new.sections.count
            switch roll {
            case 0..<10:
                new.sections.insert(newSection(&random, nextID: &nextID), at: Int.random(in: 0...sectionCount, using: &random))
            case 10..<18 where sectionCount > 0:
                new.sections.remove(at: Int.random(in: 0..<sectionCount, using: &random))
            case 18..<28 where sectionCount > 0:
                let section = new.sections.remove(at: Int.random(in: 0..<sectionCount, using: &random))
                new.sections.insert(section, at: Int.random(in: 0..<sectionCount, using: &random))
            case 28..<34 where sectionCount > 0:
                new.sections[Int.random(in: 0..<sectionCount, using: &random)].title = "t\(Int.random(in: 0..<3, using: &random))"
            case 34..<50 where sectionCount > 0:
                let s = Int.random(in: 0..<sectionCount, using: &random)
                new.sections[s].rows.insert(
                    Row(id: RowID(nextID), content: .text("r\(nextID)")), at: Int.random(in: 0...new.sections[s].rows.count, using: &random))
                nextID += 1
            case 50..<62 where sectionCount > 0:
                let s = Int.random(in: 0..<sectionCount, using: &random)
                if !new.sections[s].rows.isEmpty { new.sections[s].rows.remove(at: Int.random(in: 0..<new.sections[s].rows.count, using: &random)) }
            case 62..<74 where sectionCount > 0:
                let s = Int.random(in: 0..<sectionCount, using: &random)
                if !new.sections[s].rows.isEmpty {
                    new.sections[s].rows[Int.random(in: 0..<new.sections[s].rows.count, using: &random)].content = .field("u", "\(nextID)")
                    nextID += 1
                }
            case 74..<100 where sectionCount > 0:
                let from = Int.random(in: 0..<sectionCount, using: &random)
                let to = Int.random(in: 0..<sectionCount, using: &random)
                guard !new.sections[from].rows.isEmpty else { break }
                let row = new.sections[from].rows.remove(at: Int.random(in: 0..<new.sections[from].rows.count, using: &random))
                new.sections[to].rows.insert(row, at: Int.random(in: 0...new.sections[to].rows.count, using: &random))
            default:
                break
            }
        }
        return new
    }
}

extension Changeset {
    /// A changeset built by a closure, for short tests.
    static func with(_ build: (inout Changeset) -> Void) -> Changeset {
        var changeset = Changeset()
        build(&changeset)
        return changeset
    }
}
