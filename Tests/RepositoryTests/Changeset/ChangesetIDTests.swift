import Foundation
import Repository
import RepositoryPostgres
import TestSupport
import Testing

/// The ids in changesets: every changeset the store makes names the ids of the sections and rows
/// its entries refer to, in the library, in the journal, composed and inverted; and
/// `ListSnapshot.applying` follows them.
@Suite("Changeset ids")
struct ChangesetIDTests {
    @Test(
        "every change names exactly the ids its indexes refer to, and applying it gives the new snapshot",
        arguments: Backend.all, propertySeeds([61, 62]))
    func everyChangeNamesItsIDs(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: seed)
        for title in ["A", "B", "C"] { try store.list("default").apply(.addSection(title: title)) }
        var snapshots: [ListVersion: ListSnapshot] = [:]
        var changes: [(version: ListVersion, changeset: Changeset)] = []
        snapshots[try store.list("default").snapshot().version] = try store.list("default").snapshot()
        for step in 0..<200 {
            let before = try store.list("default").snapshot()
            let context = "seed \(seed), step \(step)"
            let change: Change
            switch Int.random(in: 0..<12, using: &generator) {
            case 0:
                guard let undone = try? store.list("default").undo() else { continue }
                change = undone
            case 1:
                guard let redone = try? store.list("default").redo() else { continue }
                change = redone
            case 2, 3:
                // A session: draft ids while it runs, stored ids once saved.
                let session = try store.list("default").beginEditing()
                let base = try session.baseSnapshot()
                for index in 0..<Int.random(in: 1...6, using: &generator) {
                    guard (try? session.apply(randomEdit(try session.outline, step: step * 10 + index, using: &generator))) != nil else { continue }
                    try requireIDs(session.pendingChanges, turn: base, into: try session.snapshot(), "\(context): pending, edit \(index)")
                }
                change = try session.save()
                if let drafted = session.savedRowIDs.keys.first {
                    #expect(drafted < 0 && !change.changeset.insertedRowIDs.contains(drafted), "\(context): the saved changeset names stored ids")
                }
            default:
                guard let applied = try? store.list("default").apply(randomEdit(try store.list("default").outline(), step: step, using: &generator))
                else { continue }
                change = applied
            }
            let after = try store.list("default").snapshot()
            guard !change.changeset.isEmpty else { continue }
            // (a) the ids, and (b) applying the changeset to the old snapshot.
            try requireIDs(change.changeset, turn: before, into: after, context)
            // Inverted: the way back, ids included.
            try requireIDs(change.changeset.inverted(), turn: after, into: before, "\(context): inverted")
            snapshots[change.version] = after
            changes.append((change.version, change.changeset))
        }
        try #require(changes.count > 100, "seed \(seed): enough changes were committed")

        // (c) The journal holds the same ids: one version at a time, as an observer reads them, and
        // the last one as `changes(since:)` gives it.
        let watcher = try ListWatcher(location: store.location, server: .postgres, list: SectionStore.defaultList, from: changes[0].version.previous)
        let updates = try watcher.poll()
        let committed = Dictionary(uniqueKeysWithValues: changes.map { ($0.version, $0.changeset) })
        #expect(updates.count == changes.count, "seed \(seed): one update per committed version")
        for update in updates {
            #expect(update.changeset == committed[update.version], "seed \(seed): the journal's changeset of version \(update.version), ids included")
        }
        let last = changes[changes.count - 1]
        #expect(
            try store.list("default").changes(since: last.version.previous).changeset == last.changeset, "seed \(seed): the last change, ids included"
        )
        // (d) Composed: from the journal since any version, and from the changesets themselves.
        let current = try store.list("default").snapshot()
        for _ in 0..<40 {
            let since = snapshots.keys.randomElement(using: &generator)!
            let composed = try #require(try store.list("default").changes(since: since).changeset, "seed \(seed): since \(since)")
            try requireIDs(composed, turn: snapshots[since]!, into: current, "seed \(seed): changes since \(since)")
            try requireIDs(composed.inverted(), turn: current, into: snapshots[since]!, "seed \(seed): changes since \(since), inverted")

            let first = Int.random(in: 0..<changes.count, using: &generator)
            let last = Int.random(in: first..<min(changes.count, first + 30), using: &generator)
            let run = Changeset(composing: changes[first...last].map(\.changeset))
            let from = snapshots[changes[first].version.previous]!
            let to = snapshots[changes[last].version]!
            try requireIDs(run, turn: from, into: to, "seed \(seed): changes \(first)…\(last) composed")
        }
    }

    @Test(arguments: Backend.all) func deletingAListNamesItsSections(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.createList(named: "gone")
        for title in ["A", "B", "C"] { try store.list("gone").apply(.addSection(title: title)) }
        let ids = try store.list("gone").snapshot().sections.map(\.id)
        let change = try store.deleteList("gone", force: true)
        #expect(change.changeset.deletedSections == [0, 1, 2])
        #expect(change.changeset.deletedSectionIDs == ids)
    }

    @Test func aChangesetMadeFromTwoSnapshotsNamesItsIDs() throws {
        func row(_ id: RowID, _ title: String) -> Row { Row(id: id, content: .text(title)) }
        let old = ListSnapshot(
            name: "l", version: 1,
            sections: [
                Section(id: 1, title: "A", rows: [row(10, "a"), row(11, "b"), row(12, "c")]),
                Section(id: 2, title: "B", rows: [row(20, "d")]),
                Section(id: 3, title: "C"),
            ])
        let new = ListSnapshot(
            name: "l", version: 2,
            sections: [
                Section(id: 3, title: "C", rows: [row(12, "c")]),
                Section(id: 4, title: "D", rows: [row(40, "x")]),
                Section(id: 1, title: "A2", rows: [row(11, "B"), row(13, "n")]),
            ])
        let changeset = Changeset(from: old, to: new)
        #expect(changeset.deletedSections == [1] && changeset.deletedSectionIDs == [2])
        #expect(changeset.insertedSections == [1] && changeset.insertedSectionIDs == [4])
        #expect(changeset.movedSections.map(\.to) == [0] && changeset.movedSectionIDs == [3])
        #expect(changeset.updatedSections == [2] && changeset.updatedSectionIDs == [1])
        #expect(changeset.deletedRows == [RowPath(section: 0, row: 0)] && changeset.deletedRowIDs == [10])
        #expect(changeset.insertedRows == [RowPath(section: 2, row: 1)] && changeset.insertedRowIDs == [13])
        #expect(changeset.movedRows.map(\.to) == [RowPath(section: 0, row: 0)] && changeset.movedRowIDs == [12])
        #expect(changeset.updatedRows == [RowPath(section: 2, row: 0)] && changeset.updatedRowIDs == [11])
        #expect(changeset.changedFooters == [0] && changeset.changedFooterIDs == [3], "C is no longer empty")
        #expect(changeset.inverted().changedFooters == [2] && changeset.inverted().changedFooterIDs == [3])
        #expect(try old.applying(changeset, contentFrom: new) == new)
        #expect(try new.applying(changeset.inverted(), contentFrom: old) == old)
    }

    /// A changeset of the shape `aChangesetMadeFromTwoSnapshotsNamesItsIDs` makes, as JSON.
    static let text =
        #"{"sections":{"deleted":[1],"inserted":[1],"moved":[{"from":2,"to":0}],"updated":[2],"footers":[0]},"#
        + #""rows":{"deleted":[[0,0]],"inserted":[[2,1]],"moved":[{"from":[0,2],"to":[0,0]}],"updated":[[2,0]]},"#
        + #""ids":{"sections":{"deleted":[2],"inserted":[4],"moved":[3],"updated":[1],"footers":[3]},"#
        + #""rows":{"deleted":[10],"inserted":[13],"moved":[12],"updated":[11]}}}"#

    @Test func theIDsAreWrittenLastAndReadBack() throws {
        let changeset = try Changeset(json: Self.text)
        #expect(changeset.hasIDs)
        #expect(changeset.movedSectionIDs == [3] && changeset.deletedRowIDs == [10] && changeset.updatedRowIDs == [11])
        #expect(changeset.changedFooterIDs == [3])
        #expect(changeset.json == Self.text)
        let coded = try JSONDecoder().decode(Changeset.self, from: try JSONEncoder().encode(changeset))
        #expect(coded == changeset)
    }

    @Test func anEntryWrittenBeforeIDsReadsWithout() throws {
        let old = Self.text.components(separatedBy: #","ids":"#)[0] + "}"
        let changeset = try Changeset(json: old)
        #expect(!changeset.hasIDs && changeset.deletedRowIDs.isEmpty && changeset.insertedSectionIDs.isEmpty)
        #expect(changeset == (try Changeset(json: Self.text)).withoutIDs)
        #expect(changeset.json == old, "written back as it was")
        #expect(!changeset.inverted().hasIDs)
        #expect(!Changeset(composing: [changeset, changeset.inverted()]).hasIDs)
        let snapshot = ListSnapshot(
            name: "l", version: 1, sections: [Section(id: 1, title: "A"), Section(id: 2, title: "B"), Section(id: 3, title: "C")])
        #expect {
            try snapshot.applying(changeset, contentFrom: snapshot)
        } throws: { error in
            guard case .changesetDoesNotFit(let detail) = error as? RepositoryError else { return false }
            return detail.contains("no ids")
        }
    }

    /// Footers have had ids since after the other entries: an entry journaled in between reads
    /// with its other ids, and, where a footer changed, as a changeset without all its ids.
    @Test func anEntryWrittenBeforeFooterIDsReadsWithoutThem() throws {
        let changeset = try Changeset(json: Self.text.replacingOccurrences(of: #","footers":[3]}"#, with: "}"))
        #expect(changeset.changedFooters == [0] && changeset.changedFooterIDs.isEmpty && changeset.movedSectionIDs == [3])
        #expect(!changeset.hasIDs)
        var noFooters = try Changeset(json: Self.text)
        noFooters.changedFooters = []
        noFooters.changedFooterIDs = []
        let written = noFooters.json
        #expect(written.contains(#""updated":[1],"footers":[]}"#))
        #expect(try Changeset(json: written.replacingOccurrences(of: #","footers":[]}"#, with: "}")) == noFooters)
    }

    @Test func idsThatDoNotMatchTheirEntriesAreRefused() {
        let short = Self.text.replacingOccurrences(of: #""moved":[12]"#, with: #""moved":[]"#)
        #expect(throws: DecodingError.self) { try Changeset(json: short) }
    }

    @Test func applyingAChangesetFromAnotherStateIsRefused() throws {
        let old = ListSnapshot(name: "l", version: 1, sections: [Section(id: 1, title: "A", rows: [Row(id: 10, content: .text("a"))])])
        var changeset = Changeset()
        changeset.deletedRows = [RowPath(section: 0, row: 0)]
        changeset.deletedRowIDs = [11]
        #expect(throws: RepositoryError.changesetDoesNotFit("row 0:0 is #10, not #11")) {
            try old.applying(changeset, contentFrom: old)
        }
        changeset.deletedRowIDs = [10]
        changeset.insertedRows = [RowPath(section: 0, row: 1)]
        changeset.insertedRowIDs = [12]
        #expect(throws: RepositoryError.changesetDoesNotFit("row 0:1 is past the section's 1 rows")) {
            try old.applying(changeset, version: 2, section: { _ in Section(id: 0, title: "") }, row: { _ in .text("twelve") })
        }
        changeset.insertedRows = [RowPath(section: 0, row: 0)]
        var asked: [RowID] = []
        let applied = try old.applying(
            changeset, version: 2,
            section: { id in
                Issue.record("section #\(id) is asked for, though none is inserted or updated")
                return Section(id: id, title: "")
            },
            row: { id in
                asked.append(id)
                return .text("twelve")
            })
        #expect(asked == [12])
        #expect(applied.sections[0].rows == [Row(id: 12, content: .text("twelve"))] && applied.version == 2 && applied.name == "l")
    }
}
