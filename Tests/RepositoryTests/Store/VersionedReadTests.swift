import Foundation
import TestSupport
import Testing

@testable import Repository

// MARK: - The view protocol, as TableViewRecipes.md shows it

// README view protocol begins
/// A view that reads only what it shows, at the version it shows: the outline (sections and
/// counts) of one version of the list, and each row at that version.
final class VersionedListView {
    let list: ListHandle
    /// The sections and counts shown, and the version they are of.
    private(set) var outline: ListOutline
    /// Animates a change to the view (`nil`: reload it). It is called with the view already at
    /// the outline after the change, which is what a batch update asks the data source for.
    var animate: (Changeset?, ListOutline) -> Void = { _, _ in }

    init(_ list: ListHandle) throws {
        self.list = list
        outline = try list.outline()
    }

    /// `cellForRowAt`: the row at the path shown, read at the version shown; `nil` when the list
    /// moved on (draw a placeholder, and reconfigure the visible rows once caught up).
    func row(at path: RowPath) throws -> LocatedRow? {
        do {
            return try list.row(at: path, atVersion: outline.version)
        } catch RepositoryError.listMovedOn {
            return nil
        }
    }

    /// Brings the view to the list's current version: the changes since the version shown, then
    /// the outline at exactly the version they lead to — once more when yet another change came
    /// between the two reads. Call it for each update `updates()` delivers past the version
    /// shown, and when a read says `listMovedOn`.
    func catchUp() throws {
        while true {
            let changes = try list.changes(since: outline.version)
            guard changes.version != outline.version else { return }
            do {
                let new = try list.outline(atVersion: changes.version)
                outline = new
                animate(changes.changeset, new)
                return
            } catch RepositoryError.listMovedOn {
                continue
            }
        }
    }
}
// README view protocol ends

/// Every read says the list's version it read; a read asked for at a version the list is no
/// longer at refuses with `listMovedOn`; an index out of range names the version it was looked
/// up in; and an edit that changes nothing says it committed nothing.
@Suite("Versioned reads")
struct VersionedReadTests {
    /// A list with sections A (rows a0, a1) and B (row b0): version 5.
    func twoSections(_ store: SectionStore) throws {
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addRow(.text("a0"), to: .at(0, 0)))
        try store.list("default").apply(.addRow(.text("a1"), to: .at(0, 1)))
        try store.list("default").apply(.addSection(title: "B"))
        try store.list("default").apply(.addRow(.text("b0"), to: .at(1, 0)))
    }

    @Test(arguments: Backend.all) func eachReadSaysTheVersionItRead(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try twoSections(store)
        let other = try fixture.reopen()
        let b0 = try store.list("default").row(at: RowPath(section: 1, row: 0))
        #expect(b0.version == 5)
        #expect(b0.row.title == "b0")

        // Another writer commits between two reads: the second read says the new version, and
        // its place is the place in that version.
        try other.list("default").apply(.addRow(.text("b-first"), to: .at(1, 0)))
        let again = try store.list("default").row(.id(b0.row.id))
        #expect(again.version == 6)
        #expect(again.path == RowPath(section: 1, row: 1))
        #expect(try store.list("default").versionedPath(ofRow: b0.row.id) == Versioned(RowPath(section: 1, row: 1), version: 6))
        #expect(try store.list("default").path(ofRow: b0.row.id) == RowPath(section: 1, row: 1))
        #expect(try store.list("default").versionedRowCount(of: .index(1)) == Versioned(2, version: 6))
        #expect(try store.list("default").rowCount(of: .title("B")) == 2)

        try other.list("default").apply(.deleteRow(.at(0, 0)))
        let window = try store.list("default").window(from: RowPath(section: 0, row: 0), limit: 10)
        #expect(window.version == 7)
        #expect(window.located.map(\.version) == Array(repeating: 7, count: 3))
        #expect(try store.list("default").outline().version == 7)
        #expect(try store.list("default").header().version == 7)
        #expect(try store.list("default").snapshot().version == 7)
    }

    @Test(arguments: Backend.all) func aReadAtAnotherVersionSaysTheListMovedOn(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try twoSections(store)
        let shown = try store.list("default").outline()
        let id = try store.list("default").row(at: RowPath(section: 0, row: 1)).row.id

        // At the version shown, every read succeeds.
        #expect(try store.list("default").row(at: RowPath(section: 0, row: 1), atVersion: shown.version).row.title == "a1")
        #expect(try store.list("default").row(.id(id), atVersion: shown.version).path == RowPath(section: 0, row: 1))
        #expect(try store.list("default").path(ofRow: id, atVersion: shown.version) == RowPath(section: 0, row: 1))
        #expect(try store.list("default").rowCount(of: .index(0), atVersion: shown.version) == 2)
        #expect(try store.list("default").window(from: RowPath(section: 0, row: 0), limit: 2, atVersion: shown.version).rowCount == 2)
        #expect(try store.list("default").outline(atVersion: shown.version) == shown)
        #expect(try store.list("default").snapshot(atVersion: shown.version).version == shown.version)

        // Another writer moves the list on: each read at the version shown refuses, naming both.
        try fixture.reopen().list("default").apply(.moveRow(.at(0, 1), to: .at(1, 0)))
        let movedOn = RepositoryError.listMovedOn(list: "default", expected: 5, current: 6)
        #expect(throws: movedOn) { try store.list("default").row(at: RowPath(section: 0, row: 1), atVersion: shown.version) }
        #expect(throws: movedOn) { try store.list("default").row(.id(id), atVersion: shown.version) }
        #expect(throws: movedOn) { try store.list("default").path(ofRow: id, atVersion: shown.version) }
        #expect(throws: movedOn) { try store.list("default").versionedPath(ofRow: id, atVersion: shown.version) }
        #expect(throws: movedOn) { try store.list("default").rowCount(of: .index(0), atVersion: shown.version) }
        #expect(throws: movedOn) { try store.list("default").versionedRowCount(of: .index(0), atVersion: shown.version) }
        #expect(throws: movedOn) { try store.list("default").window(from: RowPath(section: 0, row: 0), limit: 2, atVersion: shown.version) }
        #expect(throws: movedOn) { try store.list("default").outline(atVersion: shown.version) }
        #expect(throws: movedOn) { try store.list("default").snapshot(atVersion: shown.version) }
        #expect(throws: movedOn) { try store.list("default").header(atVersion: shown.version) }
        // A place the old version had and the new one lacks refuses with listMovedOn too, not
        // with an index out of range: the view learns to catch up, not that its path was wrong.
        #expect(throws: movedOn) { try store.list("default").window(from: RowPath(section: 0, row: 2), limit: 1, atVersion: shown.version) }
        #expect(movedOn.description == #"list "default" moved on from version 5 to 6; apply its changes since 5, then read again"#)
        #expect(
            RepositoryError.listMovedOn(list: "default", expected: 9, current: 6).description
                == #"list "default" is at version 6, not 9; read it at 6"#)

        // Caught up, the view reads at the new version.
        let update = try store.list("default").changes(since: shown.version)
        #expect(update.version == 6)
        #expect(try store.list("default").row(.id(id), atVersion: update.version).path == RowPath(section: 1, row: 0))
    }

    @Test(arguments: Backend.all) func anIndexOutOfRangeNamesTheVersionItWasLookedUpIn(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try twoSections(store)
        // The list loses its second section after a view read it.
        try fixture.reopen().list("default").apply(.deleteSection(.index(1), force: true))
        let section = RepositoryError.sectionIndexOutOfRange(1, valid: 0...0, version: 6)
        #expect(throws: section) { try store.list("default").window(from: RowPath(section: 1, row: 0), limit: 5) }
        #expect(throws: section) { try store.list("default").row(at: RowPath(section: 1, row: 0)) }
        #expect(section.description == "section index 1 is out of range (valid: 0) in version 6 of the list")
        let row = RepositoryError.rowIndexOutOfRange(3, section: 0, valid: 0...2, version: 6)
        #expect(throws: row) { try store.list("default").window(from: RowPath(section: 0, row: 3), limit: 5) }
        #expect(row.description == "row index 3 is out of range for section 0 (valid: 0…2) in version 6 of the list")
        // An edit's errors are about the edit, not a read: they name no version.
        #expect(throws: RepositoryError.sectionIndexOutOfRange(1, valid: 0...0)) {
            try store.list("default").apply(.deleteRow(.at(1, 0)))
        }
    }

    @Test(arguments: Backend.all) func anEditThatChangesNothingSaysItCommittedNothing(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try twoSections(store)
        let moved = try store.list("default").apply(.moveRow(.at(0, 1), to: .at(0, 0)))
        #expect(moved.committed)
        #expect(moved.version == 6)

        // Another writer commits; a no-op then says it committed nothing, and its version is the
        // one it was checked against, not one it made.
        try fixture.reopen().list("default").apply(.renameSection(.index(1), title: "Bee"))
        let nothing = try store.list("default").apply(.moveRow(.at(0, 0), to: .at(0, 0)))
        #expect(!nothing.committed)
        #expect(nothing.version == 7)
        #expect(nothing.changeset.isEmpty)
        #expect(try store.list("default").outline().version == 7)
        #expect(try store.list("default").changes(since: 7).changeset == Changeset())

        let sameTitle = try store.list("default").apply(.renameSection(.index(1), title: "Bee"))
        #expect(!sameTitle.committed)
        #expect(try store.renameList("default", to: "default").committed == false)
        #expect(try store.list("default").outline().version == 7)
        #expect(try store.renameList("default", to: "other").committed)
    }

    @Test(arguments: Backend.all) func asyncReadsSayTheirVersionAndRefuseAnother(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try await store.perform { try self.twoSections($0) }
        let located = try await store.list("default").async.row(at: RowPath(section: 0, row: 0), atVersion: 5)
        #expect(located.version == 5)
        #expect(try await store.list("default").async.versionedPath(ofRow: located.row.id) == Versioned(RowPath(section: 0, row: 0), version: 5))
        #expect(try await store.list("default").async.versionedRowCount(of: .index(1), atVersion: 5) == Versioned(1, version: 5))
        try await fixture.reopen().list("default").async.apply(.addSection(title: "C"))
        let movedOn = RepositoryError.listMovedOn(list: "default", expected: 5, current: 6)
        await #expect(throws: movedOn) { try await store.list("default").async.row(.id(located.row.id), atVersion: 5) }
        await #expect(throws: movedOn) { try await store.list("default").async.path(ofRow: located.row.id, atVersion: 5) }
        await #expect(throws: movedOn) { try await store.list("default").async.rowCount(of: .index(0), atVersion: 5) }
        await #expect(throws: movedOn) { try await store.list("default").async.outline(atVersion: 5) }
        await #expect(throws: movedOn) { try await store.list("default").async.window(from: RowPath(section: 0, row: 0), limit: 1, atVersion: 5) }
        await #expect(throws: movedOn) { try await store.list("default").async.snapshot(atVersion: 5) }
        #expect(try await store.list("default").async.outline(atVersion: 6).sections.count == 3)
    }

    @Test(arguments: Backend.all) func theReadmesViewReadsAtItsVersionAndCatchesUp(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try twoSections(fixture.store)
        let view = try VersionedListView(fixture.list)
        var animated: [Changeset?] = []
        view.animate = { changeset, _ in animated.append(changeset) }
        #expect(try view.row(at: RowPath(section: 1, row: 0))?.row.title == "b0")

        // Another writer moves the list on: the view's read refuses rather than mix versions.
        let other = try fixture.reopen()
        try other.list("default").apply(.moveRow(.at(1, 0), to: .at(0, 0)))
        try other.list("default").apply(.deleteSection(.index(1)))
        #expect(try view.row(at: RowPath(section: 1, row: 0)) == nil)

        // Caught up, it animated one changeset from the version it showed, and reads again.
        try view.catchUp()
        #expect(view.outline == (try fixture.list.outline()))
        #expect(view.outline.version == 7)
        #expect(animated.count == 1)
        #expect(animated.first??.deletedSections == [1])
        #expect(try view.row(at: RowPath(section: 0, row: 0))?.row.title == "b0")
        try view.catchUp()
        #expect(animated.count == 1)
    }

    @Test func theReadmeShowsTheViewAsTested() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let block = source.components(separatedBy: "// README view protocol begins\n")[1]
            .components(separatedBy: "// README view protocol ends")[0]
        #expect(try DiffableRecipeTests.recipesArticle().contains("```swift\n" + block + "```"))
    }
}
