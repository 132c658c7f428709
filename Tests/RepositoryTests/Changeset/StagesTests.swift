import TestSupport
import Testing

@testable import Repository

@Suite("Stages")
struct StagesTests {
    func snapshot(_ sections: [(SectionID, [RowID])]) -> ListSnapshot {
        ListSnapshot(
            name: "t", version: 0,
            sections: sections.map { id, rows in Section(id: id, title: "s\(id)", rows: rows.map { Row(id: $0, content: .text("r\($0)")) }) })
    }

    /// The whole changeset as one batch, its updates at their old indexes (found by id).
    func oneBatch(_ changeset: Changeset, from old: ListSnapshot, to new: ListSnapshot) -> Changeset {
        var oldPaths: [RowID: RowPath] = [:]
        for (s, section) in old.sections.enumerated() {
            for (r, row) in section.rows.enumerated() { oldPaths[row.id] = RowPath(section: s, row: r) }
        }
        let oldSections = Dictionary(uniqueKeysWithValues: old.sections.enumerated().map { ($0.element.id, $0.offset) })
        var batch = changeset
        batch.updatedRows = changeset.updatedRows.map { oldPaths[new[$0].id]! }.sorted()
        batch.updatedSections = changeset.updatedSections.map { oldSections[new.sections[$0].id]! }.sorted()
        return batch
    }

    @Test(
        "random pairs of snapshots: the stages take a strict table view from one to the other, in one batch unless one is refused",
        arguments: propertySeeds([71, 72, 73, 74]))
    func randomSnapshotPairsStage(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        var stageCounts: [Int: Int] = [:]
        for round in 0..<400 {
            let context = "seed \(seed), round \(round)"
            var nextID: Int64 = 1
            func make(_ count: Int) -> [RowID] {
                (0..<count).map { _ in
                    defer { nextID += 1 }
                    return RowID(nextID)
                }
            }
            var old = snapshot(
                (0..<Int.random(in: 0...5, using: &random)).map { (SectionID(Int64(1000 + $0)), make(Int.random(in: 0...4, using: &random))) })
            old.isEditing = true
            // The new snapshot: sections dropped, added, shuffled or kept in order; rows kept in
            // place, shuffled within or moved among sections, dropped and added.
            var sectionIDs = old.sections.map(\.id).filter { _ in Int.random(in: 0..<5, using: &random) > 0 }
            for index in 0..<Int.random(in: 0...2, using: &random) {
                sectionIDs.insert(SectionID(Int64(2000 + index)), at: Int.random(in: 0...sectionIDs.count, using: &random))
            }
            if Bool.random(using: &random) { sectionIDs.shuffle(using: &random) }
            var buckets: [SectionID: [RowID]] = [:]
            for section in old.sections where sectionIDs.contains(section.id) {
                buckets[section.id] = section.rows.map(\.id).filter { _ in Int.random(in: 0..<6, using: &random) > 0 }
                if Int.random(in: 0..<3, using: &random) == 0 { buckets[section.id]!.shuffle(using: &random) }
            }
            if !sectionIDs.isEmpty {
                let strays =
                    old.sections.filter { !sectionIDs.contains($0.id) }.flatMap { $0.rows.map(\.id) } + make(Int.random(in: 0...3, using: &random))
                for id in strays where Int.random(in: 0..<3, using: &random) > 0 {
                    let target = sectionIDs.randomElement(using: &random)!
                    buckets[target, default: []].insert(id, at: Int.random(in: 0...buckets[target, default: []].count, using: &random))
                }
                for _ in 0..<Int.random(in: 0...2, using: &random) {
                    let from = sectionIDs.randomElement(using: &random)!
                    let to = sectionIDs.randomElement(using: &random)!
                    guard let id = buckets[from]?.popLast() else { continue }
                    buckets[to, default: []].insert(id, at: Int.random(in: 0...buckets[to, default: []].count, using: &random))
                }
            }
            var new = snapshot(sectionIDs.map { ($0, buckets[$0] ?? []) })
            new.isEditing = true
            new.version = 1
            for s in new.sections.indices {
                if Int.random(in: 0..<5, using: &random) == 0 { new.sections[s].title = "renamed \(round)" }
                if Int.random(in: 0..<8, using: &random) == 0 { new.sections[s].emptyText = "Nothing" }
                for r in new.sections[s].rows.indices where Int.random(in: 0..<6, using: &random) == 0 {
                    new.sections[s].rows[r].content = .field("edited", "\(round)")
                }
            }

            let changeset = Changeset(from: old, to: new)
            let stages: [ChangesetStage]
            do {
                stages = try changeset.stages(from: old, to: new)
            } catch {
                Issue.record("\(context): stages(from:to:) refused \(changeset): \(error)")
                continue
            }
            #expect(stages.map(\.changeset) == changeset.stages, "\(context)")
            #expect(stages.count <= 4, "\(context): \(stages.count) stages")
            #expect(
                stages.last?.snapshot ?? old == new || (changeset.isEmpty && old.sections == new.sections),
                "\(context): the last stage is the new snapshot")
            #expect(stages.allSatisfy { $0.snapshot.version == new.version && $0.snapshot.isEditing }, "\(context)")
            do {
                let last = try applyingStages(stages, to: old)
                #expect(last.sections == new.sections, "\(context)")
            } catch {
                Issue.record("\(context): \(error)")
            }
            if let problem = stagingProblem(changeset, turns: old, into: new) { Issue.record("\(context): \(problem)") }
            // One batch whenever one batch is accepted; more only when it is refused.
            if !changeset.isEmpty {
                let single = Result {
                    try performBatchUpdatesExpectingAgreement(oneBatch(changeset, from: old, to: new), on: ListTable(old), source: ListTable(new))
                }
                switch single {
                case .success: #expect(stages.count == 1, "\(context): one batch would do, \(stages.count) stages for \(changeset)")
                case .failure(let error): #expect(stages.count > 1, "\(context): one batch \(changeset) is refused (\(error)), yet one stage")
                }
            }
            stageCounts[stages.count, default: 0] += 1
        }
        // The run exercises every staging, from none to four batches.
        #expect(Set(stageCounts.keys) == [0, 1, 2, 3, 4], "seed \(seed): stage counts \(stageCounts)")
    }

    @Test func aRowMovedAcrossSectionsWhileSectionsMoveTakesThreeBatches() throws {
        let old = snapshot([(1, [1, 2]), (2, [3]), (3, [4])])
        var new = snapshot([(2, [3, 1]), (4, [5]), (1, [2])])
        new.sections[2].rows[0].content = .text("two")
        let changeset = Changeset(from: old, to: new)
        #expect(changeset.movedSections.count == 1 && changeset.movedRows.count == 1)
        let stages = try changeset.stages(from: old, to: new)
        #expect(stages.count == 3)
        // 1: section 3 and its row go; row 2 reloads at its old path.
        #expect(stages[0].changeset.deletedSections == [2] && stages[0].changeset.updatedRows == [RowPath(section: 0, row: 1)])
        #expect(stages[0].snapshot.sections.map(\.id) == [1, 2] && stages[0].snapshot.sections[0].rows[1].title == "two")
        // 2: sections arrive; rows stay in theirs.
        #expect(stages[1].changeset.insertedSections == [1] && stages[1].changeset.movedSections.count == 1)
        #expect(stages[1].changeset.movedRows.isEmpty && stages[1].changeset.deletedRows.isEmpty)
        #expect(stages[1].snapshot.sections.map { $0.rows.map(\.id) } == [[3], [5], [1, 2]])
        // 3: row 1 moves from section 1's place after stage 2 (index 2) to 0:1.
        #expect(stages[2].changeset.movedRows == [.init(from: RowPath(section: 2, row: 0), to: RowPath(section: 0, row: 1))])
        #expect(stages[2].snapshot == new)
        // In one batch it is refused.
        #expect(throws: BatchUpdateError.self) {
            try performBatchUpdates(changeset, on: ListTable(old), source: ListTable(new))
        }
        #expect(try applyingStages(stages, to: old) == new)
    }

    @Test func aSectionRenamedWhileItsRowsChangeIsReloadedLast() throws {
        let old = snapshot([(1, [1, 2])])
        var new = snapshot([(1, [2, 3])])
        new.sections[0].title = "renamed"
        let changeset = Changeset(from: old, to: new)
        let stages = try changeset.stages(from: old, to: new)
        #expect(stages.map { $0.changeset.updatedSections } == [[], [], [0]])
        #expect(stages[1].changeset.insertedRows == [RowPath(section: 0, row: 1)])
        #expect(stages[1].snapshot.sections[0].title == "s1" && stages[2].snapshot == new)
        let refusal = #expect(throws: BatchUpdateError.self) {
            try performBatchUpdates(changeset, on: ListTable(old), source: ListTable(new))
        }
        #expect(refusal?.description.contains("reload section 0 and change rows of it") == true)
    }

    @Test func anUnambiguousChangeIsOneBatchWithItsReloadsAtOldPaths() throws {
        let old = snapshot([(1, [1, 2, 3]), (2, [4]), (3, [])])
        var new = snapshot([(1, [2, 3]), (2, [4, 1]), (3, [])])
        new.sections[0].rows[1].content = .text("three")
        new.sections[2].title = "renamed"
        let changeset = Changeset(from: old, to: new)
        #expect(changeset.updatedRows == [RowPath(section: 0, row: 1)], "row 3 is at 0:1 after the change")
        #expect(changeset.updatedSections == [2] && changeset.movedRows.count == 1)
        let stages = try changeset.stages(from: old, to: new)
        #expect(stages.count == 1)
        #expect(stages.first?.changeset.updatedRows == [RowPath(section: 0, row: 2)], "and reloads at 0:2, where it was")
        #expect(stages.first?.changeset.movedRows == changeset.movedRows && stages.first?.changeset.updatedSections == [2])
        #expect(stages.first?.snapshot == new)
        #expect(try applyingStages(stages, to: old) == new)
    }

    @Test func nothingToDoIsNoStageAndFootersAloneAreOne() throws {
        let list = snapshot([(1, [1])])
        #expect(try Changeset().stages(from: list, to: list).isEmpty)
        var footers = Changeset()
        footers.changedFooters = [0]
        #expect(footers.stages == [footers])
        #expect(try footers.stages(from: list, to: list).map(\.snapshot) == [list])
    }

    @Test func aChangesetThatDoesNotFitTheSnapshotsIsRefused() throws {
        let old = snapshot([(1, [1, 2])])
        let new = snapshot([(1, [2, 1])])
        let changeset = Changeset(from: old, to: new)
        #expect(throws: RepositoryError.self) { try changeset.stages(from: new, to: snapshot([(1, [1, 2, 3])])) }
        #expect(throws: RepositoryError.self) { try changeset.stages(from: snapshot([]), to: new) }
        #expect(throws: RepositoryError.self) { try Changeset().stages(from: old, to: new) }
        #expect(try changeset.stages(from: old, to: new).last?.snapshot == new)
    }
}

/// The strict model of `performBatchUpdates` refuses what UIKit refuses, and says why.
@Suite("performBatchUpdates model")
struct BatchUpdateModelTests {
    let old = ListSnapshot(
        name: "t", version: 0,
        sections: [
            Section(id: 1, title: "A", rows: [Row(id: 1, content: .text("a")), Row(id: 2, content: .text("b"))]),
            Section(id: 2, title: "B", rows: [Row(id: 3, content: .text("c"))]),
        ])

    func refusal(_ build: (inout Changeset) -> Void, source: ListSnapshot? = nil) -> String? {
        var batch = Changeset()
        build(&batch)
        do {
            _ = try performBatchUpdatesExpectingAgreement(batch, on: ListTable(old), source: ListTable(source ?? old))
            return nil
        } catch {
            return "\(error)"
        }
    }

    func path(_ section: Int, _ row: Int) -> RowPath { RowPath(section: section, row: row) }

    @Test func aConsistentBatchIsAccepted() throws {
        var new = old
        new.sections[0].rows.swapAt(0, 1)
        new.sections[1].rows[0].content = .text("c2")
        #expect(
            refusal(
                {
                    $0.movedRows = [.init(from: path(0, 1), to: path(0, 0))]
                    $0.updatedRows = [path(1, 0)]
                }, source: new) == nil)
    }

    @Test func countsMustAgreeWithTheDataSource() {
        var new = old
        new.sections[0].rows.removeLast()
        #expect(refusal({ _ in }, source: new)?.contains("1 rows in section 0 after the update; the view had 2") == true)
        #expect(refusal({ $0.deletedSections = [1] })?.contains("the data source has 2 sections after the update") == true)
    }

    @Test func aCellNotReloadedIsStale() {
        var new = old
        new.sections[1].rows[0].content = .text("c2")
        #expect(refusal({ _ in }, source: new)?.contains("row 1:0 shows") == true)
    }

    @Test func reloadsAndDeletionsNameOldPathsAndNeverAMovedOrDeletedItem() {
        #expect(refusal { $0.updatedRows = [path(1, 1)] }?.contains("reload row 1:1, which is not in the view before") == true)
        var swapped = old
        swapped.sections[0].rows.swapAt(0, 1)
        #expect(
            refusal(
                {
                    $0.movedRows = [.init(from: path(0, 0), to: path(0, 1))]
                    $0.updatedRows = [path(0, 0)]
                }, source: swapped)?
                .contains("move and reload row 0:0") == true)
        var shorter = old
        shorter.sections[0].rows.removeFirst()
        #expect(
            refusal(
                {
                    $0.deletedRows = [path(0, 0)]
                    $0.updatedRows = [path(0, 0)]
                }, source: shorter)?.contains("delete and reload row 0:0") == true)
        #expect(
            refusal(
                {
                    $0.deletedRows = [path(0, 0)]
                    $0.movedRows = [.init(from: path(0, 0), to: path(0, 0))]
                }, source: shorter)?
                .contains("delete and move row 0:0") == true)
        #expect(
            refusal(
                {
                    $0.deletedSections = [0]
                    $0.updatedSections = [0]
                }, source: ListSnapshot(name: "t", version: 0, sections: [old.sections[1]]))?
                .contains("delete and reload section 0") == true)
    }

    @Test func noMoveOutOfADeletedSectionOrIntoAnInsertedOne() {
        let withoutA = ListSnapshot(
            name: "t", version: 0, sections: [Section(id: 2, title: "B", rows: old.sections[1].rows + [old.sections[0].rows[0]])])
        #expect(
            refusal(
                {
                    $0.deletedSections = [0]
                    $0.movedRows = [.init(from: path(0, 0), to: path(0, 1))]
                }, source: withoutA)?
                .contains("move row 0:0 out of deleted section 0") == true)
        var withC = old
        withC.sections[0].rows.removeFirst()
        withC.sections.append(Section(id: 3, title: "C", rows: [old.sections[0].rows[0]]))
        #expect(
            refusal(
                {
                    $0.insertedSections = [2]
                    $0.movedRows = [.init(from: path(0, 0), to: path(2, 0))]
                }, source: withC)?
                .contains("move row 0:0 into inserted section 2") == true)
        #expect(
            refusal(
                {
                    $0.insertedSections = [2]
                    $0.insertedRows = [path(2, 0)]
                }, source: withC)?.contains("into inserted section 2") == true)
    }

    @Test func noTwoItemsArriveAtOnePlaceAndRowsDoNotMoveWhileSectionsDo() {
        var twoMore = old
        twoMore.sections[1].rows += [Row(id: 9, content: .text("x"))]
        #expect(refusal({ $0.insertedRows = [path(1, 1), path(1, 1)] }, source: twoMore)?.contains("insert row 1:1 twice") == true)
        var crossed = old
        crossed.sections.swapAt(0, 1)
        crossed.sections[0].rows.append(crossed.sections[1].rows.removeFirst())
        let moves: (inout Changeset) -> Void = {
            $0.movedSections = [.init(from: 1, to: 0)]
            $0.movedRows = [.init(from: path(0, 0), to: path(0, 1))]
        }
        #expect(refusal(moves, source: crossed)?.contains("in a batch that moves sections") == true)
        #expect(refusal({ $0.movedSections = [.init(from: 0, to: 1), .init(from: 1, to: 1)] })?.contains("move two sections to 1") == true)
    }

    @Test func whatUIKitGetsWrongMixedIsRefused() {
        // Sections: B moves before A, and C is appended.
        let c = Section(id: 3, title: "C")
        var moved = old
        moved.sections.swapAt(0, 1)
        #expect(refusal({ $0.movedSections = [.init(from: 1, to: 0)] }, source: moved) == nil)
        var movedAndInserted = moved
        movedAndInserted.sections.append(c)
        #expect(
            refusal(
                {
                    $0.movedSections = [.init(from: 1, to: 0)]
                    $0.insertedSections = [2]
                }, source: movedAndInserted) == nil)
        // A section move with a row inserted into another section, or a section deleted.
        var movedAndGrown = moved
        movedAndGrown.sections[1].rows.append(Row(id: 9, content: .text("x")))
        #expect(
            refusal(
                {
                    $0.movedSections = [.init(from: 1, to: 0)]
                    $0.insertedRows = [path(1, 2)]
                }, source: movedAndGrown)?
                .contains("delete, insert or reload rows in a batch that moves sections") == true)
        let three = ListSnapshot(name: "t", version: 0, sections: old.sections + [c])
        let twoLeft = ListSnapshot(name: "t", version: 0, sections: [c, old.sections[0]])
        let shown = ListTable(three)
        #expect(throws: BatchUpdateError.self) {
            try performBatchUpdates(
                Self.batch {
                    $0.deletedSections = [1]
                    $0.movedSections = [.init(from: 2, to: 0)]
                }, on: shown, source: ListTable(twoLeft))
        }
        // A section reloaded while another is inserted; a row reloaded while a section is inserted.
        var renamedAndInserted = old
        renamedAndInserted.sections[0].title = "A2"
        renamedAndInserted.sections.append(c)
        #expect(
            refusal(
                {
                    $0.updatedSections = [0]
                    $0.insertedSections = [2]
                }, source: renamedAndInserted)?
                .contains("reload sections [0] in a batch that inserts or deletes sections") == true)
        var rowChangedAndInserted = old
        rowChangedAndInserted.sections[1].rows[0].content = .text("c2")
        rowChangedAndInserted.sections.append(c)
        #expect(
            refusal(
                {
                    $0.updatedRows = [path(1, 0)]
                    $0.insertedSections = [2]
                }, source: rowChangedAndInserted)?
                .contains("reload rows [1:0] in a batch that inserts sections") == true)
        // Staged, each comes apart: the reload first, then the insertion.
        let stages = try? Changeset(from: old, to: ListSnapshot(name: "t", version: 0, sections: rowChangedAndInserted.sections))
            .stages(from: old, to: ListSnapshot(name: "t", version: 0, sections: rowChangedAndInserted.sections))
        #expect(stages?.map { $0.changeset.updatedRows } == [[path(1, 0)], []])
        #expect(stages?.map { $0.changeset.insertedSections } == [[], [2]])
    }

    static func batch(_ build: (inout Changeset) -> Void) -> Changeset {
        var batch = Changeset()
        build(&batch)
        return batch
    }

    @Test func aReloadedSectionHasNoRowChangesAndIsNotMoved() {
        var renamed = old
        renamed.sections[0].title = "A2"
        #expect(refusal({ $0.updatedSections = [0] }, source: renamed) == nil)
        renamed.sections[0].rows.removeLast()
        #expect(
            refusal(
                {
                    $0.updatedSections = [0]
                    $0.deletedRows = [path(0, 1)]
                }, source: renamed)?
                .contains("reload section 0 and change rows of it") == true)
        var swapped = old
        swapped.sections.swapAt(0, 1)
        #expect(
            refusal(
                {
                    $0.movedSections = [.init(from: 0, to: 1)]
                    $0.updatedSections = [0]
                }, source: swapped)?
                .contains("move and reload section 0") == true)
    }
}
