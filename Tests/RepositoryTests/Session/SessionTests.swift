import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

@Suite("Edit sessions")
struct SessionTests {
    /// A list with two sections: "To do" with three rows, and an empty "Done".
    func makeList(_ backend: Backend) throws -> StoreFixture {
        let fixture = try StoreFixture(backend)
        try fixture.list.apply(.addSection(title: "To do"))
        try fixture.list.apply(.addSection(title: "Done"))
        for title in ["a", "b", "c"] {
            try fixture.list.apply(.addRow(.text(title), to: .init(section: .index(0), index: .end)))
        }
        return fixture
    }

    /// A draft's snapshot carries a version no committed state has: negative, new with each
    /// change to the draft, with the committed version it starts from beside it. Catching up from
    /// it gives no changeset (never the saved changes again, which the draft shows already), and
    /// a read at it refuses.
    @Test(arguments: Backend.all) func aDraftHasAVersionOfItsOwn(backend: Backend) throws {
        let fixture = try makeList(backend)
        let committed = try fixture.list.snapshot(editing: true)
        #expect(committed.draftOf == nil && !committed.version.isDraft)
        let session = try fixture.list.beginEditing()
        let begun = try session.snapshot()
        #expect(begun.version == -1 && begun.version == session.draftVersion && begun.draftOf == committed.version)
        #expect(begun.sections == committed.sections && begun != committed)

        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        let moved = try session.snapshot()
        #expect(moved.version == -2 && moved.draftOf == committed.version)
        try session.apply(.renameSection(.index(0), title: "To do"))  // changes nothing
        #expect(try session.snapshot() == moved, "an edit that changes nothing keeps the version")
        try session.undoLastEdit()
        try session.undoLastEdit()
        let undone = try session.snapshot()
        #expect(undone.sections == begun.sections && undone.version == -3, "an earlier draft, under a new version")

        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        try fixture.reopen().list(SectionStore.defaultList).apply(.renameSection(.index(1), title: "Finished"))
        let report = try session.rebase()
        let rebased = try session.snapshot()
        #expect(rebased.version == -5 && rebased.draftOf == report.version && report.version == committed.version.next)

        #expect(try fixture.list.changes(since: rebased.version).changeset == nil, "no changes lead from a draft")
        #expect(throws: RepositoryError.listMovedOn(list: "default", expected: rebased.version, current: report.version)) {
            try fixture.list.snapshot(atVersion: rebased.version)
        }
        let saved = try session.save()
        let after = try fixture.list.changes(since: rebased.version)
        #expect(after.version == saved.version && after.changeset == nil, "catching up from the draft never repeats the save")
    }

    @Test(arguments: Backend.all) func cancelWritesNothing(backend: Backend) throws {
        let fixture = try makeList(backend)
        let before = try fixture.list.snapshot()
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        try session.apply(.addSection(title: "Later"))
        try session.apply(.deleteRow(.at(0, 0)))
        #expect(session.editCount == 3)
        session.cancel()
        #expect(try fixture.list.snapshot() == before)
        #expect(throws: RepositoryError.sessionClosed) { try session.save() }
        #expect(throws: RepositoryError.sessionClosed) { try session.apply(.addSection(title: "x")) }
    }

    @Test(arguments: Backend.all) func aDroppedSessionWritesNothing(backend: Backend) throws {
        let fixture = try makeList(backend)
        let before = try fixture.list.snapshot()
        do {
            let session = try fixture.list.beginEditing()
            try session.apply(.moveRow(.at(0, 2), to: .at(0, 0)))
        }
        #expect(try fixture.list.snapshot() == before)
    }

    @Test(arguments: Backend.all) func theDraftIsAnEditingViewAndTheDatabaseWaits(backend: Backend) throws {
        let fixture = try makeList(backend)
        let session = try fixture.list.beginEditing()
        #expect(try session.snapshot().isEditing && session.outline.isEditing)
        #expect(try session.snapshot().footer(ofSection: 1) == "No Data")
        #expect(try session.outline.sections[1].footer(editing: session.outline.isEditing) == "No Data")
        try session.apply(.moveRow(.at(0, 1), to: .at(1, 0)))
        #expect(try session.snapshot().footer(ofSection: 1) == nil)
        #expect(try session.outline.sections[1].footer(editing: true) == nil)
        #expect(try session.snapshot().sections[1].rows.map(\.title) == ["b"])
        #expect(try fixture.list.snapshot().sections[1].rows.isEmpty)
        #expect(session.pendingChanges.movedRows == [.init(from: RowPath(section: 0, row: 1), to: RowPath(section: 1, row: 0))])
    }

    @Test(arguments: Backend.all) func saveIsOneVersionStepAndOneChangeset(backend: Backend) throws {
        let fixture = try makeList(backend)
        let before = try fixture.list.snapshot()
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 1)))
        let created = try #require(try session.apply(.addSection(title: "Later", at: 0)).createdID?.sectionID)
        #expect(created < 0, "a draft id is negative until saved")
        try session.apply(.addRow(.field("when", nil), to: .init(section: .id(created), index: .end)))
        try session.apply(.renameSection(.title("Done"), title: "Finished"))
        let change = try session.save()
        #expect(!session.isOpen)
        let after = try fixture.list.snapshot()
        #expect(change.version == before.version.next && after.version == change.version)
        #expect(after.sections.map(\.title) == ["Later", "To do", "Finished"])
        #expect(after.sections.map { $0.rows.map(\.title) } == [["when"], ["c"], ["a", "b"]])
        #expect(after.sections.allSatisfy { $0.id > 0 } && after.sections[0].rows[0].id > 0)
        try requireChangeset(change.changeset, turns: before, into: after)
        #expect(change.changeset.insertedSections == [0])
        #expect(change.changeset.insertedRows.isEmpty, "rows of an inserted section come with it")
    }

    @Test(arguments: Backend.all) func aConcurrentChangeMakesSaveAConflictAndKeepsTheOtherChange(backend: Backend) throws {
        let fixture = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.deleteRow(.at(0, 0)))
        // Another process (its own connection) changes the list meanwhile: beginning took no lock.
        let other = try fixture.reopen()
        try other.list("default").apply(.addRow(.text("from elsewhere"), to: .init(section: .index(1), index: .end)))
        let afterOther = try fixture.list.snapshot()
        #expect(throws: RepositoryError.conflict(list: "default", sessionVersion: 5, currentVersion: 6)) {
            try session.save()
        }
        #expect(try fixture.list.snapshot() == afterOther, "a refused save writes nothing")
        #expect(session.isOpen, "after a conflict the caller decides: cancel, or begin again")
        session.cancel()
    }

    @Test(arguments: Backend.all) func aListDeletedAndMadeAnewIsAConflictNotATarget(backend: Backend) throws {
        let fixture = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.deleteRow(.at(0, 0)))
        try session.apply(.renameSection(.index(0), title: "Renamed"))
        // Someone replaces the list with another of the same name; its versions start past the old one's.
        let other = try fixture.reopen()
        try other.deleteList("default", force: true)
        try other.createList(named: "default")
        for index in 0..<5 { try other.list("default").apply(.addSection(title: "new \(index)")) }
        let replaced = try fixture.list.snapshot()
        #expect(replaced.version == session.baseVersion.advanced(by: 6))
        #expect(throws: RepositoryError.conflict(list: "default", sessionVersion: 5, currentVersion: nil)) { try session.save() }
        #expect(try fixture.list.snapshot() == replaced)
    }

    @Test(arguments: Backend.all) func aRenamedListIsAConflict(backend: Backend) throws {
        let fixture = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.addRow(.text("x"), to: .at(1, 0)))
        try fixture.reopen().renameList("default", to: "elsewhere")
        #expect(throws: RepositoryError.conflict(list: "default", sessionVersion: 5, currentVersion: 6)) { try session.save() }
        #expect(try fixture.store.list("elsewhere").snapshot().sections[1].rows.isEmpty)
    }

    @Test(arguments: Backend.all) func aChangeMadeWithPlainSQLIsCaughtAtSave(backend: Backend) throws {
        let fixture = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 2), to: .at(1, 0)))
        try session.apply(.deleteRow(.at(0, 0)))
        // SQL written outside sectionctl makes a version of its own.
        try fixture.plainSQL("DELETE FROM rows WHERE title = 'a'")
        let changed = try fixture.list.snapshot()
        #expect(throws: RepositoryError.conflict(list: "default", sessionVersion: 5, currentVersion: 6)) { try session.save() }
        #expect(try fixture.list.snapshot() == changed, "the move before the failing step was rolled back too")
    }

    @Test(arguments: Backend.all) func editsThatAddUpToNothingWriteNothing(backend: Backend) throws {
        let fixture = try makeList(backend)
        let before = try fixture.list.snapshot()
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        try session.apply(.moveRow(.at(1, 0), to: .at(0, 0)))
        try session.apply(.renameSection(.index(1), title: "Done"))
        #expect(session.editCount == 3 && session.pendingChanges.isEmpty)
        let second = try fixture.list.beginEditing()
        let change = try session.save()
        #expect(change.version == before.version && change.changeset.isEmpty)
        #expect(try fixture.list.snapshot() == before)
        // A session begun before that save is not disturbed by it.
        try second.apply(.deleteRow(.at(0, 0)))
        #expect(try second.save().version == before.version.next)
    }

    @Test(arguments: Backend.all) func aFailingEditKeepsTheSessionAndItsDraft(backend: Backend) throws {
        let fixture = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        let draft = try session.snapshot()
        #expect(throws: RepositoryError.rowIndexOutOfRange(9, section: 1, valid: 0...1)) {
            try session.apply(.moveRow(.at(0, 0), to: .at(1, 9)))
        }
        #expect(try session.snapshot() == draft && session.editCount == 1 && session.isOpen)
    }

    @Test(arguments: Backend.all) func aSessionOfAThousandMovesSavesAtOnce(backend: Backend) throws {
        let fixture = try makeList(backend)
        for index in 0..<50 {
            try fixture.list.apply(.addRow(.text("row \(index)"), to: .init(section: .index(1), index: .end)))
        }
        let before = try fixture.list.snapshot()
        let session = try fixture.list.beginEditing()
        var random = SeededGenerator(seed: 7)
        for _ in 0..<1000 {
            let from = Int.random(in: 0..<50, using: &random)
            let to = Int.random(in: 0..<50, using: &random)
            try session.apply(.moveRow(.at(1, from), to: .at(1, to)))
        }
        let draft = try session.snapshot()
        let change = try session.save()
        let after = try fixture.list.snapshot()
        #expect(after.sections == draft.sections)
        #expect(after.version == before.version.next)
        try requireChangeset(change.changeset, turns: before, into: after)
    }

    @Test(arguments: Backend.all) func aChangeElsewhereMakesTheDraftsRowsAConflictUntilRebased(backend: Backend) throws {
        let fixture = try makeList(backend)
        let before = try fixture.list.snapshot()
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 2), to: .at(1, 0)))
        let (edits, pending, outline) = try (session.edits, session.pendingChanges, session.outline)
        // Another connection changes the list while the session is open: nothing waits.
        let other = try fixture.reopen()
        try other.list("default").apply(.deleteRow(.at(0, 0)))
        try other.list("default").apply(.addSection(title: "Elsewhere", at: 0))
        try other.list("default").apply(.renameSection(.index(1), title: "Renamed"))
        // What needs the rows the session began on is refused, as a save would be.
        let conflict = RepositoryError.conflict(list: "default", sessionVersion: 5, currentVersion: 8)
        #expect(throws: conflict) { try session.snapshot() }
        #expect(throws: conflict) { try session.baseSnapshot() }
        #expect(throws: conflict) { try session.row(at: RowPath(section: 0, row: 0)) }
        #expect(throws: conflict) { try session.path(ofRow: before.sections[0].rows[0].id) }
        #expect(throws: conflict) { try session.window(from: RowPath(section: 0, row: 1), limit: 5) }
        #expect(throws: conflict) { try session.apply(.deleteRow(.at(0, 0))) }
        #expect(throws: conflict) { try session.undoLastEdit() }
        #expect(throws: conflict) { try session.save() }
        // What the session holds itself still answers, unchanged.
        #expect(try session.edits == edits && session.pendingChanges == pending && session.outline == outline)
        #expect(try session.outline(from: 0, limit: 5).sections.map(\.title) == ["To do", "Done"])
        #expect(try session.rowCount(of: .index(1)) == 1)
        #expect(session.isOpen && session.baseVersion == 5)
        // Rebased, it reads and saves the list as it is now.
        try session.rebase()
        #expect(try session.snapshot().sections.map { $0.rows.map(\.title) } == [[], ["b"], ["c"]])
        try session.save()
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["Elsewhere", "Renamed", "Done"])
        #expect(throws: RepositoryError.sessionClosed) { try session.snapshot() }
        #expect(throws: RepositoryError.sessionClosed) { try session.outline(from: 0, limit: 1) }
    }

    @Test(arguments: Backend.all) func writesToAnotherListLeaveASessionAsItWas(backend: Backend) throws {
        let fixture = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 2), to: .at(1, 0)))
        let draft = try session.snapshot()
        let other = try fixture.reopen()
        try other.createList(named: "other")
        try other.list("other").apply(.addSection(title: "Elsewhere"))
        #expect(try session.snapshot() == draft)
        try session.apply(.moveRow(.at(0, 0), to: .at(0, 1)))
        #expect(try session.save().version == 6)
        #expect(try fixture.list.snapshot().sections.map { $0.rows.map(\.title) } == [["b", "a"], ["c"]])
    }

    /// A draft's content without ids (row ids are shared by every list of a file, so the twin
    /// files below give out different ones).
    static func shape(_ snapshot: ListSnapshot) -> [[String]] {
        snapshot.sections.map { section in
            ["\(section.title) \(section.emptyText ?? "-")"] + section.rows.map { "\($0.kind) \($0.title) \($0.value ?? "-")" }
        }
    }

    /// Two files with the same list; on one, another connection writes now and then while a
    /// session is open, to another list mostly and to the session's own list sometimes; on the
    /// twin, nobody else writes. The same random edits and undos go to a session on each. Until
    /// its list changes, the session among other writers reads and edits exactly as the one
    /// alone; once it changes, every read of its rows, edit, undo and save is a conflict naming
    /// the list's new version, and what the session holds (outline, edits, pending changes)
    /// stays. Then both sessions are cancelled, the twin takes the same change, and both begin
    /// again. At the end both save, and the lists are equal. (`SessionSectionReadTests` runs it
    /// again with drafts that read their sections one at a time.)
    @Test("a session among other writers works as one alone until its own list changes", arguments: Backend.all, propertySeeds([71, 72, 73]))
    func aSessionAmongOtherWritersMatchesOneAlone(backend: Backend, seed: UInt64) throws {
        let main = try StoreFixture(backend)
        let twin = try StoreFixture(backend)
        var generator = SeededGenerator(seed: seed)
        for store in [main.store, twin.store] {
            try store.createList(named: "other")
            try store.list("other").apply(.addSection(title: "elsewhere"))
        }
        for step in 0..<20 {
            let edit = randomEdit(try main.store.list("default").outline(), step: step, using: &generator)
            try main.store.list("default").apply(edit)
            try twin.store.list("default").apply(edit)
        }
        let other = try main.reopen()
        var session = try main.store.list("default").beginEditing()
        var alone = try twin.store.list("default").beginEditing()
        var conflicts = 0
        for step in 0..<120 {
            let context = "seed \(seed), step \(step)"
            switch Int.random(in: 0..<12, using: &generator) {
            case 0, 1, 2:
                try other.list("other").apply(.addRow(.text("o\(step)"), to: .at(0, 0)))
            case 3:
                let edit = randomEdit(try other.list("default").outline(), step: step, using: &generator)
                guard let change = try? other.list("default").apply(edit) else { continue }
                try twin.store.list("default").apply(edit)
                guard change.committed else { continue }
                conflicts += 1
                let conflict = RepositoryError.conflict(list: "default", sessionVersion: session.baseVersion, currentVersion: change.version)
                let (edits, pending) = (session.edits, session.pendingChanges)
                // The outline stays readable where the session read it: all of it for a short
                // list, read whole as the session began; a draft that reads its sections as they
                // are asked for finds the conflict at a section it has not read.
                let outline = Result { try session.outline }
                if case .failure(let error) = outline {
                    #expect(SessionDraft.sectionReads.wholeOutlineLimit == 0 && error as? RepositoryError == conflict, "\(context)")
                }
                let someOutline = try (try? outline.get()) ?? other.list("default").outline()
                #expect(throws: conflict, "\(context)") { try session.snapshot() }
                #expect(throws: conflict, "\(context)") { try session.window(from: RowPath(section: 0, row: 0), limit: 3) }
                #expect(throws: conflict, "\(context)") { try session.apply(randomEdit(someOutline, step: step, using: &generator)) }
                if !edits.isEmpty { #expect(throws: conflict, "\(context)") { try session.undoLastEdit() } }
                if !pending.isEmpty { #expect(throws: conflict, "\(context)") { try session.save() } }
                #expect(session.edits == edits && session.pendingChanges == pending, "\(context)")
                if case .success(let held) = outline { #expect(try session.outline == held, "\(context)") }
                session.cancel()
                alone.cancel()
                session = try main.store.list("default").beginEditing()
                alone = try twin.store.list("default").beginEditing()
            case 4, 5:
                let undone = Result { try session.undoLastEdit().changeset }
                let undoneAlone = Result { try alone.undoLastEdit().changeset }
                #expect((try? undone.get()).map(\.isEmpty) == (try? undoneAlone.get()).map(\.isEmpty), "\(context): undo")
            default:
                let edit = try randomEdit(session.outline, step: step, using: &generator)
                let applied = (try? session.apply(edit)) != nil
                let appliedAlone = (try? alone.apply(edit)) != nil
                #expect(applied == appliedAlone, "\(context): \(edit)")
            }
            #expect(Self.shape(try session.snapshot()) == Self.shape(try alone.snapshot()), "\(context)")
            #expect(try session.outline.sections.map(\.rowCount) == alone.outline.sections.map(\.rowCount), "\(context)")
            if try !session.outline.sections.isEmpty {
                let window = try session.window(from: RowPath(section: 0, row: 0), limit: 4).located.map(\.row.title)
                #expect(window == (try alone.window(from: RowPath(section: 0, row: 0), limit: 4).located.map(\.row.title)), "\(context)")
            }
        }
        try session.save()
        try alone.save()
        #expect(Self.shape(try main.store.list("default").snapshot()) == Self.shape(try twin.store.list("default").snapshot()), "seed \(seed)")
        #expect(try main.store.check() == [] && twin.store.check() == [], "seed \(seed)")
        #expect(conflicts > 0, "seed \(seed): the list changed under a session at least once")
    }

    /// A session holds no read transaction between its calls, so SQLite can checkpoint the whole
    /// write-ahead log and start it over while the session is open; a held snapshot would keep
    /// every later commit in the log.
    @Test func anOpenSessionLetsTheWholeLogBeCheckpointed() throws {
        let fixture = try makeList(.sqlite)
        let other = try fixture.reopen()
        try other.createList(named: "other")
        let list = other.list("other")
        try list.apply(.addSection(title: "Elsewhere"))
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 2), to: .at(1, 0)))
        for index in 0..<20 { try list.apply(.addRow(.text("row \(index)"), to: .at(0, 0))) }
        _ = try session.window(from: RowPath(section: 0, row: 0), limit: 3)
        let raw = try Connection(path: fixture.path, mode: .readWrite)
        // A reader pinned to an older snapshot would make it busy (1), and TRUNCATE would leave
        // the log as it is.
        let busy = try raw.query("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int(0) }
        #expect(busy == [0])
        let wal = try #require(try FileManager.default.attributesOfItem(atPath: fixture.path + "-wal")[.size] as? Int64)
        #expect(wal == 0)
        // The same checkpoint with a reader holding a snapshot while others commit, as a session
        // that kept one would: busy.
        let pinned = try Connection(path: fixture.path, mode: .readOnly)
        try pinned.execute(script: "BEGIN")
        _ = try pinned.query("SELECT count(*) FROM rows") { $0.int(0) }
        try list.apply(.addRow(.text("late"), to: .at(0, 0)))
        #expect(try raw.query("PRAGMA wal_checkpoint(TRUNCATE)") { $0.int(0) } == [1])
        try pinned.execute(script: "ROLLBACK")
        try session.save()
        #expect(try fixture.list.snapshot().sections[1].rows.map(\.title) == ["c"])
    }

    @Test(arguments: Backend.all) func readsOfTheDraftFollowEveryKindOfEdit(backend: Backend) throws {
        let fixture = try makeList(backend)
        let session = try fixture.list.beginEditing()
        let ids = try fixture.list.snapshot().sections[0].rows.map(\.id)  // a, b, c
        try session.apply(.updateRow(.id(ids[1]), title: "b2"))
        let added = try #require(try session.apply(.addRow(.text("new"), to: .at(0, 1))).createdID?.rowID)
        try session.apply(.moveRow(.id(ids[0]), to: .at(1, 0)))
        // To do: new, b2, c; Done: a
        #expect(try session.path(ofRow: added) == RowPath(section: 0, row: 0))
        #expect(try session.path(ofRow: ids[2]) == RowPath(section: 0, row: 2))
        #expect(try session.row(.id(ids[1])).path == RowPath(section: 0, row: 1))
        #expect(try session.row(.id(ids[1])).row.title == "b2")
        #expect(try session.row(.path(.index(1), .end)).row.id == ids[0])
        #expect(try session.rowCount(of: .title("Done")) == 1)
        try session.apply(.deleteRow(.id(ids[2])))
        #expect(throws: RepositoryError.rowNotFound(ids[2], list: "default")) { try session.path(ofRow: ids[2]) }
        #expect(throws: RepositoryError.rowIndexOutOfRange(2, section: 0, valid: 0...1)) { try session.row(at: RowPath(section: 0, row: 2)) }
        let window = try session.window(from: RowPath(section: 0, row: 2), limit: 3)
        #expect(window.isEditing && window.parts.map(\.section.index) == [0, 1])
        #expect(window.located.map(\.path) == [RowPath(section: 1, row: 0)])
        let diffed = Changeset(from: try session.baseSnapshot(), to: try session.snapshot())
        #expect(session.pendingChanges == diffed, "\(session.pendingChanges) vs \(diffed)")
    }

    @Test(arguments: Backend.all) func aSessionOnALargerListFindsRowsAcrossItsEdits(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.list.apply(.addSection(title: "Many"))
        let session = try fixture.list.beginEditing()
        for index in 0..<500 { try session.apply(.addRow(.text("row \(index)"), to: .init(section: .index(0), index: .end))) }
        #expect(try session.save().changeset.insertedRows.count == 500)
        let before = try fixture.list.snapshot()
        let edits = try fixture.list.beginEditing()
        var model = before.sections[0].rows
        var random = SeededGenerator(seed: 5)
        for step in 0..<300 {
            let from = Int.random(in: 0..<model.count, using: &random)
            let to = Int.random(in: 0..<model.count, using: &random)
            try edits.apply(.moveRow(.at(0, from), to: .at(0, to)))
            model.insert(model.remove(at: from), at: to)
            let probe = Int.random(in: 0..<model.count, using: &random)
            #expect(try edits.row(at: RowPath(section: 0, row: probe)).row == model[probe], "step \(step)")
            #expect(try edits.path(ofRow: model[probe].id) == RowPath(section: 0, row: probe), "step \(step)")
        }
        let change = try edits.save()
        let after = try fixture.list.snapshot()
        #expect(after.sections[0].rows == model)
        try requireChangeset(change.changeset, turns: before, into: after)
    }

    @Test(arguments: Backend.all) func applyReportsLikeTheStoreCancelAnimatesBackAndSaveMapsDraftIDs(backend: Backend) throws {
        let fixture = try makeList(backend)
        let before = try fixture.list.snapshot()
        let session = try fixture.list.beginEditing()
        let added = try session.apply(.addRow(.text("new"), to: .at(1, 0)))
        #expect(added.list == "default" && added.version == before.version, "nothing is committed yet")
        #expect(added.changeset.insertedRows == [RowPath(section: 1, row: 0)] && added.createdID == .row(-1))
        try session.apply(.moveRow(.at(0, 0), to: .at(0, 2)))
        let draft = try session.snapshot()
        // Cancel gives the way back, from the draft to the list as it was.
        let back = session.cancel()
        try requireChangeset(back, turns: draft, into: before)
        #expect(try fixture.list.snapshot() == before)

        let again = try fixture.list.beginEditing()
        let section = try #require(try again.apply(.addSection(title: "Later")).createdID?.sectionID)
        let row = try #require(try again.apply(.addRow(.text("x"), to: .at(2, 0))).createdID?.rowID)
        try again.save()
        let saved = try fixture.list.snapshot()
        #expect(again.savedSectionIDs[section] == saved.sections[2].id)
        #expect(again.savedRowIDs[row] == saved.sections[2].rows[0].id)
        #expect(again.cancel() == Changeset(), "a closed session has nothing to take back")
    }
}
