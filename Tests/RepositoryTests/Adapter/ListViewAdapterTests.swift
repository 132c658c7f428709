import Foundation
import Repository
import TestSupport
import Testing

// The adapter against the stand-in table views that hold it to UIKit's rules: each flaw of the
// earlier recipes (D1–D5) shown on the recipe's own code, then fixed by the adapter; its
// editing mode; and seeded random runs with other writers.

/// A classic table view's data source on the adapter: every answer is the adapter's.
@MainActor final class AdapterDataSource: UITableViewDataSource {
    var adapter: ListViewAdapter!

    func numberOfSections(in tableView: UITableView) -> Int { adapter.numberOfSections }
    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int { adapter.numberOfRows(inSection: section) }
    func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String? { adapter.title(ofSection: section) }
    func tableView(_ tableView: UITableView, titleForFooterInSection section: Int) -> String? { adapter.footer(ofSection: section) }
    func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
        let row = adapter.row(at: RowPath(section: indexPath.section, row: indexPath.row))
        let cell = UITableViewCell(style: .value1, reuseIdentifier: nil)
        cell.textLabel?.text = row.title
        cell.detailTextLabel?.text = row.value
        return cell
    }
    func tableView(_ tableView: UITableView, moveRowAt source: IndexPath, to destination: IndexPath) {
        try! adapter.userMovedRow(
            from: RowPath(section: source.section, row: source.row), to: RowPath(section: destination.section, row: destination.row))
    }
}

/// A view without sections' data source on the adapter: each row says what it is and its id,
/// so that a row shown in another's place is a mismatch even where the titles agree.
@MainActor final class AdapterFlatDataSource: NSTableViewDataSource {
    var adapter: ListViewAdapter!

    func numberOfRows(in tableView: NSTableView) -> Int { adapter.flatRowCount }
    func tableView(_ tableView: NSTableView, objectValueFor tableColumn: NSTableColumn?, row: Int) -> Any? {
        switch adapter.flatRow(at: row) {
        case .header(let section): "header #\(adapter.snapshot.sections[section].id): \(adapter.title(ofSection: section))"
        case .row(let path): "#\(adapter.row(at: path).id): \(adapter.row(at: path).title)=\(adapter.row(at: path).value ?? "-")"
        case .footer(let section): "footer #\(adapter.snapshot.sections[section].id): \(adapter.footer(ofSection: section) ?? "-")"
        }
    }
}

/// A classic view, a diffable one and one without sections (AppKit's), each on an adapter of
/// `list`.
@MainActor struct AdaptedViews {
    let table = UITableView()
    let source = AdapterDataSource()
    let classic: ListViewAdapter
    let diffableTable = FakeDiffableTableView()
    let diffable: ListViewAdapter
    let flatTable = NSTableView()
    let flatSource = AdapterFlatDataSource()
    let flat: ListViewAdapter

    init(_ list: ListHandle, editing: Bool = true) throws {
        flatTable.dataSource = flatSource
        flat = try ListViewAdapter(list: list, flatView: flatTable, editing: editing)
        flatSource.adapter = flat
        flatTable.reloadData()  // the view's first layout
        table.dataSource = source
        classic = try ListViewAdapter(list: list, view: table, editing: editing)
        source.adapter = classic
        table.reloadData()  // the view's first layout
        let cellOf: (ListViewAdapter, RowID) -> ShownCell? = { adapter, id in
            adapter.row(withID: id).map { ShownCell(text: $0.title, detail: $0.value) }
        }
        let headerOf: (ListViewAdapter, SectionID) -> ShownHeader? = { adapter, id in
            adapter.snapshot.sections.firstIndex { $0.id == id }.map {
                ShownHeader(title: adapter.snapshot.sections[$0].title, footer: adapter.snapshot.footer(ofSection: $0))
            }
        }
        var holder: ListViewAdapter?
        let fake = diffableTable
        fake.cell = { id in holder.flatMap { cellOf($0, id) } }
        fake.header = { id in holder.flatMap { headerOf($0, id) } }
        diffable = try ListViewAdapter(list: list, diffableView: fake, editing: editing)
        holder = diffable
        let adapter = diffable
        fake.cell = { id in cellOf(adapter, id) }
        fake.header = { id in headerOf(adapter, id) }
        // The first apply drew with no adapter yet: draw it again, as a view's first layout does.
        fake.apply(
            diffable.snapshot, reconfiguring: diffable.snapshot.sections.flatMap { $0.rows.map(\.id) },
            reloadingSections: diffable.snapshot.sections.map(\.id), animated: false)
    }

    func catchUp() throws {
        try classic.catchUp()
        try diffable.catchUp()
        try flat.catchUp()
    }

    /// Everything either view does wrong: refusals, stale or missing cells, headers and
    /// footers, animations of nothing.
    func problems() -> [String] {
        table.refusals + table.mismatches() + table.noOpAnimations + diffableTable.refusals
            + diffableTable.mismatches(against: diffable.snapshot)
            + (diffableTable.noOpAnimations > 0 ? ["\(diffableTable.noOpAnimations) diffable no-op animations"] : [])
            + flatTable.refusals + flatTable.mismatches() + flatTable.noOpAnimations
    }
}

/// A list of three sections of three rows.
func threeByThree() async throws -> StoreFixture {
    let fixture = try StoreFixture()
    for section in 0..<3 {
        try await fixture.list.async.apply(.addSection(title: "S\(section)"))
        for row in 0..<3 { try await fixture.list.async.apply(.addRow(.text("r\(section).\(row)"), to: .at(section, row))) }
    }
    return fixture
}

@MainActor
@Suite("The table view adapter")
struct ListViewAdapterTests {
    @Test("D1: after plain SQL the diffable recipe keeps stale cells; the adapter redraws them")
    func plainSQLRedrawsChangedCells() async throws {
        let fixture = try await threeByThree()
        let list = fixture.list
        let diffable = DiffableDataSource()
        let before = try await list.async.snapshot()
        var version = try catchUp(diffable, from: 0, of: list)
        let views = try AdaptedViews(list)
        let renamed = before.sections[1].rows[1].id
        try fixture.plainSQL("UPDATE rows SET title = 'by sqlite3' WHERE id = \(renamed.rawValue)")
        try fixture.plainSQL("UPDATE sections SET title = 'T' WHERE id = \(before.sections[2].id.rawValue)")

        version = try catchUp(diffable, from: version, of: list)
        let after = try await list.async.snapshot()
        #expect(version == after.version)
        // The recipe: ids and order right, but the renamed row and section are neither
        // reconfigured nor reloaded: their cells keep the old text.
        #expect(diffable.snapshot().itemIdentifiers == after.sections.flatMap { $0.rows.map(\.id) })
        #expect(!diffable.snapshot().reconfiguredItemIdentifiers.contains(renamed))
        #expect(!diffable.snapshot().reloadedSectionIdentifiers.contains(before.sections[2].id))

        try views.catchUp()
        #expect(views.problems().isEmpty, "\(views.problems())")
        #expect(views.diffableTable.shown[1].rows[1].cell.text == "by sqlite3")
        #expect(views.diffableTable.shown[2].header.title == "T")
        #expect(views.table.shown.sections[1].cells[1].text == "by sqlite3")
    }

    @Test("D2: an empty changeset leaves the classic recipe at the old version; the adapter advances")
    func anEmptyChangesetAdvancesTheVersion() async throws {
        let fixture = try await threeByThree()
        let list = fixture.list
        let table = UITableView()
        let recipe = ListDataSource(try await list.async.snapshot(editing: true))
        table.dataSource = recipe
        table.reloadData()
        let views = try AdaptedViews(list)
        let start = recipe.snapshot.version
        try await list.async.apply(.moveRow(.at(0, 0), to: .at(0, 2)))
        try await list.async.apply(.moveRow(.at(0, 2), to: .at(0, 0)))
        #expect(try await list.async.changes(since: start).changeset?.isEmpty == true)

        try catchUp(recipe, in: table, from: list)
        #expect(recipe.snapshot.version == start, "the recipe stays at the old version")

        try views.catchUp()
        #expect(views.classic.snapshot.version == start.advanced(by: 2))
        #expect(views.diffable.snapshot.version == start.advanced(by: 2))
        #expect(views.table.batches.isEmpty && views.problems().isEmpty)
    }

    @Test("D3: the classic recipe reloads on plain SQL; the adapter animates the difference")
    func plainSQLIsAnimated() async throws {
        let fixture = try await threeByThree()
        let list = fixture.list
        let table = UITableView()
        let recipe = ListDataSource(try await list.async.snapshot(editing: true))
        table.dataSource = recipe
        table.reloadData()
        let views = try AdaptedViews(list)
        let ids = try await list.async.snapshot().sections.map { $0.rows.map(\.id.rawValue) }
        try fixture.plainSQL("DELETE FROM rows WHERE id = \(ids[0][1])")
        try fixture.plainSQL("UPDATE rows SET title = 'x' WHERE id = \(ids[2][0])")

        try catchUp(recipe, in: table, from: list)
        #expect(table.reloads == 2, "the recipe reloads")

        try views.catchUp()
        #expect(views.table.reloads == 1, "the adapter's one reload is the first")
        #expect(views.classic.counts.animated == 1 && views.classic.counts.diffed == 1)
        #expect(views.problems().isEmpty, "\(views.problems())")
    }

    @Test("D5: a delete and its undo, a rename and its rename back: the recipe animates them; the adapter drops them")
    func noOpsAreDropped() async throws {
        let fixture = try await threeByThree()
        let list = fixture.list
        let table = UITableView()
        let recipe = ListDataSource(try await list.async.snapshot(editing: true))
        table.dataSource = recipe
        table.reloadData()
        let views = try AdaptedViews(list)
        try await list.async.apply(.deleteRow(.at(1, 1)))
        try await list.async.undo()
        try await list.async.apply(.updateRow(.at(2, 0), title: "x"))
        try await list.async.apply(.updateRow(.at(2, 0), title: "r2.0"))

        try catchUp(recipe, in: table, from: list)
        #expect(!table.noOpAnimations.isEmpty, "the recipe animates nothing")

        try views.catchUp()
        #expect(views.table.batches.isEmpty && views.diffableTable.animatedApplies == 0)
        #expect(views.classic.counts.silent == 1 && views.classic.snapshot.version == recipe.snapshot.version)
        #expect(views.problems().isEmpty, "\(views.problems())")
    }

    @Test("a user's drag moves the draft without a batch, and sets the footers it changed")
    func userDragsAreNotAnimated() async throws {
        let fixture = try await threeByThree()
        let list = fixture.list
        try await list.async.apply(.addSection(title: "empty"))
        let views = try AdaptedViews(list)
        try views.classic.beginEditing()
        try views.diffable.beginEditing()
        for row in 0..<3 {
            views.table.userMovesRow(from: IndexPath(row: 0, section: 0), to: IndexPath(row: row, section: 3))
            try views.diffable.userMovedRow(from: RowPath(section: 0, row: 0), to: RowPath(section: 3, row: row))
        }
        #expect(views.table.batches.isEmpty && views.diffableTable.animatedApplies == 0)
        #expect(views.table.shown.sections[0].header.footer == "No Data")
        #expect(views.diffableTable.shown[0].header.footer == "No Data")
        #expect(views.problems().isEmpty, "\(views.problems())")
        #expect(views.classic.snapshot.sections == (try views.classic.session!.snapshot()).sections)
    }

    @Test("programmatic edits animate; save re-keys draft ids without a flash and continues at the saved version")
    func programmaticEditsAndSave() async throws {
        let fixture = try await threeByThree()
        let views = try AdaptedViews(fixture.list)
        for adapter in [views.classic, views.diffable, views.flat] {
            try adapter.beginEditing()
            try adapter.apply(.addRow(.text("new"), to: .at(1, 0)))
            try adapter.apply(.moveSection(.index(2), to: 0))
            try adapter.apply(.updateRow(.at(0, 0), title: "renamed"))
            #expect(adapter.snapshot.version.isDraft && adapter.snapshot.draftOf == adapter.session?.baseVersion, "a draft's version")
        }
        #expect(views.table.batches.count >= 3 && views.diffableTable.animatedApplies == 3 && views.flatTable.blocks == 3)
        #expect(views.diffable.snapshot.sections[2].rows[0].id.rawValue < 0, "a draft id")
        #expect(views.problems().isEmpty, "\(views.problems())")

        let animatedBefore = views.diffableTable.animatedApplies
        try views.classic.save()
        let saved = try fixture.list.snapshot(editing: true)
        #expect(views.classic.snapshot.draftOf == nil && views.classic.snapshot == saved)
        try views.diffable.catchUp()  // the other view's session rebases onto the saved list
        views.diffable.session!.cancel()
        #expect(throws: RepositoryError.self) { try views.flat.save() }  // rebased onto the saved list
        try views.flat.save()
        let savedAgain = try fixture.list.snapshot(editing: true)
        #expect(views.flat.snapshot == savedAgain)
        #expect(views.flatTable.mismatches().isEmpty && views.flatTable.refusals.isEmpty, "\(views.flatTable.mismatches())")
        let diffableViews = try AdaptedViews(fixture.list)
        try diffableViews.diffable.beginEditing()
        try diffableViews.diffable.apply(.addRow(.text("newer"), to: .at(0, 0)))
        let applied = diffableViews.diffableTable.animatedApplies
        try diffableViews.diffable.save()
        #expect(diffableViews.diffableTable.animatedApplies == applied, "no delete and insert of the re-keyed row")
        #expect(diffableViews.diffable.snapshot == (try await fixture.list.async.snapshot(editing: true)))
        #expect(diffableViews.problems().isEmpty, "\(diffableViews.problems())")
        _ = animatedBefore
    }

    @Test("another writer rebases an open session, animated from the screen; cancel animates back to the list as it is")
    func conflictsAndCancel() async throws {
        let fixture = try await threeByThree()
        let views = try AdaptedViews(fixture.list)
        try views.classic.beginEditing()
        try views.diffable.beginEditing()
        for adapter in [views.classic, views.diffable] { try adapter.apply(.moveRow(.at(0, 0), to: .at(2, 3))) }
        let other = try fixture.reopen().list(SectionStore.defaultList)
        try await other.async.apply(.deleteRow(.at(1, 0)))
        try await other.async.apply(.addSection(title: "theirs", at: 0))
        try views.catchUp()
        #expect(views.problems().isEmpty, "\(views.problems())")
        #expect(views.classic.snapshot.sections[0].title == "theirs")
        #expect(views.classic.session?.baseVersion == (try await fixture.list.async.snapshot().version))

        try await other.async.apply(.renameSection(.index(0), title: "theirs again"))
        #expect(throws: RepositoryError.self) { try views.classic.save() }
        #expect(views.classic.snapshot.sections[0].title == "theirs again")
        try views.classic.save()
        try views.diffable.cancel()
        let final = try await fixture.list.async.snapshot(editing: true)
        #expect(views.classic.snapshot == final && views.diffable.snapshot == final)
        #expect(views.problems().isEmpty, "\(views.problems())")
        #expect(views.table.reloads == 1 && views.diffable.counts.reloads == 1)
    }

    @Test("rowIDs(of:atVersion:) reads a section's row ids in one read, at the version asked")
    func rowIDsOfASection() async throws {
        let fixture = try await threeByThree()
        let list = fixture.list
        let snapshot = try await list.async.snapshot()
        #expect(try list.rowIDs(of: .index(1)) == snapshot.sections[1].rows.map(\.id))
        #expect(try list.rowIDs(of: .id(snapshot.sections[2].id), atVersion: snapshot.version) == snapshot.sections[2].rows.map(\.id))
        try await list.async.apply(.deleteRow(.at(0, 0)))
        #expect(throws: RepositoryError.self) { try list.rowIDs(of: .index(0), atVersion: snapshot.version) }
    }
}
