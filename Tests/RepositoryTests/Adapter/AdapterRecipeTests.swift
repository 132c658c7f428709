import Foundation
import Repository
import TestSupport
import Testing

// The recipes of TableViewRecipes.md, as they are shown there, compiled against the stand-in
// table views and run while other writers change the list: another connection, a
// `sectionctl` process, and plain SQL.

// recipe data source begins
/// A table view's data source: every answer is the adapter's, and a row the user drags in
/// reorder mode goes to the adapter's edit session.
final class ListTableDataSource: NSObject, UITableViewDataSource {
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
        try? adapter.userMovedRow(
            from: RowPath(section: source.section, row: source.row), to: RowPath(section: destination.section, row: destination.row))
    }
}
// recipe data source ends

// recipe flat data source begins
/// AppKit's table view has no sections: the adapter lays each section's header, rows and
/// footer out as one run of rows, and the data source answers for each row of the run.
final class ListFlatDataSource: NSObject, NSTableViewDataSource {
    var adapter: ListViewAdapter!

    func numberOfRows(in tableView: NSTableView) -> Int { adapter.flatRowCount }
    func tableView(_ tableView: NSTableView, objectValueFor tableColumn: NSTableColumn?, row: Int) -> Any? {
        switch adapter.flatRow(at: row) {
        case .header(let section): return adapter.title(ofSection: section)
        case .row(let path): return adapter.row(at: path).title
        case .footer(let section): return adapter.footer(ofSection: section)
        }
    }
}
// recipe flat data source ends

@MainActor
@Suite("The table view recipes on the adapter")
struct AdapterRecipeTests {
    @Test("the classic, diffable and reorder-mode recipes follow other writers")
    func theRecipesRun() async throws {
        let fixture = try await threeByThree()
        let store = fixture.store
        let tableView = UITableView()
        let diffableTableView = UITableView()

        // recipe classic begins
        let dataSource = ListTableDataSource()
        tableView.dataSource = dataSource
        dataSource.adapter = try ListViewAdapter(list: store.list("default"), view: tableView, editing: true)
        tableView.reloadData()
        let following = Task { try await dataSource.adapter.follow() }  // cancel it when the app goes to the background
        // recipe classic ends

        // recipe diffable begins
        var adapter: ListViewAdapter?
        let diffableSource = UITableViewDiffableDataSource<SectionID, RowID>(tableView: diffableTableView) { _, _, id in
            let cell = UITableViewCell(style: .value1, reuseIdentifier: nil)
            cell.textLabel?.text = adapter?.row(withID: id)?.title
            cell.detailTextLabel?.text = adapter?.row(withID: id)?.value
            return cell
        }
        adapter = try ListViewAdapter(list: store.list("default"), diffableView: diffableSource)
        let followingDiffable = Task { try await adapter?.follow() }
        // recipe diffable ends

        let nsTableView = NSTableView()
        // recipe flat begins
        let flatSource = ListFlatDataSource()
        nsTableView.dataSource = flatSource
        flatSource.adapter = try ListViewAdapter(list: store.list("default"), flatView: nsTableView, editing: true)
        nsTableView.reloadData()
        let followingFlat = Task { try await flatSource.adapter.follow() }
        // recipe flat ends

        func problems() -> [String] {
            tableView.refusals + tableView.mismatches() + tableView.noOpAnimations + diffableSource.view.refusals
                + diffableSource.view.mismatches(against: adapter!.snapshot)
                + (diffableSource.view.noOpAnimations > 0 ? ["diffable no-op animations"] : [])
                + nsTableView.refusals + nsTableView.mismatches() + nsTableView.noOpAnimations
        }
        func caughtUp() async throws -> Bool {
            let version = try await fixture.list.async.outline().version
            // The views' feeds deliver the commits on this actor; look between deliveries.
            let deadline = Date().addingTimeInterval(hangGuardSeconds)
            while dataSource.adapter.snapshot.version != version || adapter!.snapshot.version != version
                || flatSource.adapter.snapshot.version != version
            {
                if Date() >= deadline { return false }
                try await Task.sleep(for: .milliseconds(5))
            }
            return true
        }

        // Other writers: another connection, a `sectionctl` process, plain SQL.
        let other = try fixture.reopen().list(SectionStore.defaultList)
        try await other.async.apply(.moveRow(.at(0, 0), to: .at(2, 1)))
        try await other.async.apply(.addSection(title: "theirs", at: 1))
        let cli = Process()
        cli.executableURL = builtProduct("sectionctl")
        cli.arguments = ["--db", fixture.path, "row", "add", "0", "from the command line"]
        try cli.run()
        cli.waitUntilExit()
        #expect(cli.terminationStatus == 0)
        try fixture.plainSQL("UPDATE rows SET title = 'by sqlite3' WHERE id = (SELECT min(id) FROM rows)")
        try await other.async.apply(.deleteRow(.at(2, 0)))
        try await other.async.undo()
        #expect(try await caughtUp(), "the views follow the list")
        #expect(problems().isEmpty, "\(problems())")
        #expect(tableView.reloads == 1 && dataSource.adapter.counts.reloads == 0)
        #expect(nsTableView.reloads == 1 && nsTableView.blocks > 0)

        // recipe reorder begins
        try dataSource.adapter.beginEditing()  // Edit: the view shows a draft of the list
        // The user drags rows: `tableView(_:moveRowAt:to:)` hands each to the adapter, unanimated.
        try dataSource.adapter.apply(.addRow(.text("New"), to: .at(0, 0)))  // animated
        do {
            try dataSource.adapter.save()  // Done: shown under the stored ids, without a flash
        } catch RepositoryError.conflict {
            try dataSource.adapter.save()  // rebased onto what another writer saved, on screen too
        }
        // recipe reorder ends
        _ = try await caughtUp()

        // The reorder mode again, with drags and a writer in the middle.
        try dataSource.adapter.beginEditing()
        for drag in 0..<3 {
            let sections = dataSource.adapter.snapshot.sections
            let from = try #require(sections.firstIndex { !$0.rows.isEmpty })
            tableView.userMovesRow(from: IndexPath(row: 0, section: from), to: IndexPath(row: 0, section: sections.count - 1))
            if drag == 1 { try await other.async.apply(.renameSection(.index(0), title: "renamed meanwhile")) }
        }
        do {
            try dataSource.adapter.save()
        } catch RepositoryError.conflict {
            try dataSource.adapter.save()
        }
        #expect(try await caughtUp())
        #expect(problems().isEmpty, "\(problems())")
        let final = try await fixture.list.async.snapshot(editing: true)
        #expect(dataSource.adapter.snapshot == final)
        #expect(adapter!.snapshot.sections == (try await fixture.list.async.snapshot()).sections)
        #expect(final.sections[0].title == "renamed meanwhile")
        #expect(flatSource.adapter.snapshot == final)
        following.cancel()
        followingDiffable.cancel()
        followingFlat.cancel()
    }

    @Test("TableViewRecipes.md shows these recipes")
    func theArticleShowsTheRecipes() throws {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let article = try DiffableRecipeTests.recipesArticle()
        for (name, indent) in [("data source", 0), ("classic", 8), ("diffable", 8), ("reorder", 8), ("flat data source", 0), ("flat", 8)] {
            let block = source.components(separatedBy: "// recipe \(name) begins\n")[1]
                .components(separatedBy: String(repeating: " ", count: indent) + "// recipe \(name) ends")[0]
                .split(separator: "\n", omittingEmptySubsequences: false)
                .map { line -> String in "\(line.dropFirst(min(indent, line.count)))" }
                .joined(separator: "\n")
            #expect(article.contains("```swift\n" + block + "```"), "TableViewRecipes.md's \(name) recipe differs from this file's")
        }
    }

    @Test("the UIKit conformance forwards exactly as the stand-in table view's does")
    func theUIKitFaceIsTheTestedOne() throws {
        func body(_ path: String, after marker: String) throws -> [String] {
            let text = try String(contentsOf: packageRoot.appending(path: path), encoding: .utf8)
            let lines = text.components(separatedBy: marker)[1].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            return lines.prefix { $0 != "}" }.map { $0.replacingOccurrences(of: "package func", with: "public func") }
        }
        let face = try body("Sources/Repository/Adapter/UITableView+ListTableView.swift", after: "extension UITableView: ListTableView {")
        let fake = try body("Tests/TestSupport/Fakes/FakeTableView.swift", after: "extension UITableView: ListTableView {")
        #expect(face == fake)
        #expect(face.count == 9)
    }

    @Test("the AppKit conformance forwards exactly as the stand-in NSTableView's does")
    func theAppKitFaceIsTheTestedOne() throws {
        func body(_ path: String, after marker: String) throws -> [String] {
            let text = try String(contentsOf: packageRoot.appending(path: path), encoding: .utf8)
            let lines = text.components(separatedBy: marker)[1].split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            return lines.prefix { $0 != "}" }.map { $0.replacingOccurrences(of: "package func", with: "public func") }
        }
        let face = try body("Sources/Repository/Adapter/NSTableView+ListTableView.swift", after: "extension NSTableView: FlatListTableView {")
        let fake = try body("Tests/TestSupport/Fakes/FakeNSTableView.swift", after: "extension NSTableView: FlatListTableView {")
        #expect(face == fake)
        #expect(face.count == 3)
        // The diffable faces of UIKit and AppKit build the same snapshot from the same list.
        let uiKit = try body("Sources/Repository/Adapter/UITableView+ListTableView.swift", after: "animated: Bool) {")
        let appKit = try body("Sources/Repository/Adapter/NSTableView+ListTableView.swift", after: "animated: Bool) {")
        #expect(uiKit == appKit && appKit.count == 6)
    }
}
