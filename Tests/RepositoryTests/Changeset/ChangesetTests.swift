import TestSupport
import Testing

@testable import Repository

@Suite("Changesets")
struct ChangesetTests {
    func snapshot(_ sections: [(SectionID, [RowID])]) -> ListSnapshot {
        ListSnapshot(
            name: "t", version: 0,
            sections: sections.map { id, rows in Section(id: id, title: "s\(id)", rows: rows.map { Row(id: $0, content: .text("r\($0)")) }) })
    }

    @Test func oneRowToTheFrontIsOneMove() {
        let old = snapshot([(1, [1, 2, 3, 4, 5])])
        let new = snapshot([(1, [5, 1, 2, 3, 4])])
        let changeset = Changeset(from: old, to: new)
        #expect(changeset.movedRows == [.init(from: RowPath(section: 0, row: 4), to: RowPath(section: 0, row: 0))])
        #expect(changeset.insertedRows.isEmpty && changeset.deletedRows.isEmpty)
    }

    @Test func rowsOfInsertedAndDeletedSectionsAreNotListed() throws {
        let old = snapshot([(1, [1, 2]), (2, [3, 4])])
        let new = snapshot([(1, [1, 4]), (3, [2, 5])])
        let changeset = Changeset(from: old, to: new)
        #expect(changeset.deletedSections == [1] && changeset.insertedSections == [1])
        // Row 2 leaves for an inserted section: deleted. Row 4 leaves a deleted section: inserted.
        #expect(changeset.deletedRows == [RowPath(section: 0, row: 1)])
        #expect(changeset.insertedRows == [RowPath(section: 0, row: 1)])
        #expect(changeset.movedRows.isEmpty)
        try requireChangeset(changeset, turns: old, into: new)
    }

    @Test func updatesUseNewIndexes() throws {
        var new = snapshot([(2, [3]), (1, [2, 1])])
        new.sections[1].rows[1].content = .text("changed")
        new.sections[0].title = "renamed"
        let old = snapshot([(1, [1, 2]), (2, [3])])
        let changeset = Changeset(from: old, to: new)
        #expect(changeset.updatedRows == [RowPath(section: 1, row: 1)])
        #expect(changeset.updatedSections == [0])
        try requireChangeset(changeset, turns: old, into: new)
    }

    @Test func theLongestIncreasingRunStaysPut() {
        #expect(longestIncreasingSubsequence([]) == [])
        #expect(longestIncreasingSubsequence([3, 1, 2, 0, 4]) == [1, 2, 4])
        #expect(longestIncreasingSubsequence([5, 4, 3]).count == 1)
    }

    @Test("random pairs of snapshots: the changeset always turns one into the other", arguments: propertySeeds([21, 22, 23, 24]))
    func randomSnapshotPairs(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        for round in 0..<300 {
            var nextID: Int64 = 1
            func make(_ count: Int) -> [RowID] {
                (0..<count).map { _ in
                    defer { nextID += 1 }
                    return RowID(nextID)
                }
            }
            let old = snapshot(
                (0..<Int.random(in: 0...4, using: &random)).map { _ in (nextID + 1000, make(Int.random(in: 0...5, using: &random))) }
                    .enumerated().map { (SectionID(Int64($0.offset + 1000)), $0.element.1) })
            // The new snapshot: some sections dropped, some added, rows shuffled among sections.
            var sectionIDs = old.sections.map(\.id).filter { _ in Int.random(in: 0..<4, using: &random) > 0 }
            for index in 0..<Int.random(in: 0...2, using: &random) { sectionIDs.append(SectionID(Int64(2000 + index))) }
            sectionIDs.shuffle(using: &random)
            var rowIDs = old.sections.flatMap { $0.rows.map(\.id) }.filter { _ in Int.random(in: 0..<5, using: &random) > 0 }
            rowIDs += make(Int.random(in: 0...3, using: &random))
            rowIDs.shuffle(using: &random)
            var buckets = [[RowID]](repeating: [], count: sectionIDs.count)
            if !buckets.isEmpty {
                for id in rowIDs { buckets[Int.random(in: 0..<buckets.count, using: &random)].append(id) }
            }
            var new = snapshot(Array(zip(sectionIDs, buckets)))
            for s in new.sections.indices {
                for r in new.sections[s].rows.indices where Int.random(in: 0..<6, using: &random) == 0 {
                    new.sections[s].rows[r].content = .field("edited", "\(round)")
                }
            }
            try requireChangeset(Changeset(from: old, to: new), turns: old, into: new, "seed \(seed), round \(round)")
        }
    }

    @Test func aRowRenamedAndMovedIsReloadedInABatchOfItsOwn() throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addSection(title: "B"))
        for title in ["a", "b"] { try store.list("default").apply(.addRow(.text(title), to: .init(section: .index(0), index: .end))) }
        let before = try store.list("default").snapshot()
        let session = try store.list("default").beginEditing()
        try session.apply(.updateRow(.at(0, 0), title: "a2"))
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        let change = try session.save()
        let after = try store.list("default").snapshot()
        #expect(change.changeset.movedRows == [.init(from: RowPath(section: 0, row: 0), to: RowPath(section: 1, row: 0))])
        #expect(change.changeset.updatedRows == [RowPath(section: 1, row: 0)])
        // In one batch UIKit would read the reload at the old path 1:0, which is nothing, and
        // raise on an item both moved and reloaded; staged, it applies.
        #expect(throws: BatchUpdateError.self) {
            try performBatchUpdates(change.changeset, on: ListTable(before), source: ListTable(after))
        }
        var reloadAtOldPath = change.changeset
        reloadAtOldPath.updatedRows = [RowPath(section: 0, row: 0)]
        let refusal = #expect(throws: BatchUpdateError.self) {
            try performBatchUpdates(reloadAtOldPath, on: ListTable(before), source: ListTable(after))
        }
        #expect(refusal?.description.contains("move and reload row 0:0") == true, "\(String(describing: refusal))")
        let stages = try change.changeset.stages(from: before, to: after)
        // First the reload at the row's old path, then the move.
        #expect(stages.map(\.changeset) == change.changeset.stages)
        #expect(stages.count == 2)
        #expect(stages[0].changeset.updatedRows == [RowPath(section: 0, row: 0)] && stages[0].changeset.movedRows.isEmpty)
        #expect(stages[0].snapshot.sections.map { $0.rows.map(\.title) } == [["a2", "b"], []])
        #expect(stages[1].changeset.movedRows == change.changeset.movedRows && stages[1].changeset.updatedRows.isEmpty)
        #expect(stages[1].changeset.changedFooters == [1], "the footers go with the last stage")
        #expect(stages[1].snapshot == after)
        #expect(try applyingStages(stages, to: before).sections == after.sections)
    }
}
