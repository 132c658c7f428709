import Foundation
import Repository
import TestSupport
import Testing

@Suite("README")
struct ReadmeExampleTests {
    @Test func theLibraryExampleRunsAndIsTheOneInTheReadme() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("tasks.db")

        // README example begins
        let store = try SectionStore(path: path, create: true)
        let list = store.list("default")  // a new file has the list "default"; createList(named:) makes more

        // Two sections, three rows in the first.
        try list.apply(.addSection(title: "To do"))
        try list.apply(.addSection(title: "Done"))
        for title in ["Buy milk", "Write report", "Call Aiko"] {
            try list.apply(.addRow(.text(title), to: RowDestination(section: .index(0), index: .end)))
        }

        // Move 0:1 into the empty section. The change says what a table view animates.
        let change = try list.apply(.moveRow(.at(0, 1), to: .at(1, 0)))
        // change.version == 6, change.changeset.movedRows == [0:1 → 1:0]

        // An edit session: edits go to a draft; save writes them all in one transaction.
        let session = try list.beginEditing()
        try session.apply(.moveRow(.at(1, 0), to: .at(0, 0)))
        let footer = try session.outline.sections[1].footer(editing: true)  // "No Data": empty while editing
        let saved = try session.save()  // or session.cancel()

        let snapshot = try list.snapshot()
        // README example ends

        #expect(change.version == 6)
        #expect(change.changeset.movedRows == [.init(from: RowPath(section: 0, row: 1), to: RowPath(section: 1, row: 0))])
        #expect(footer == "No Data")
        #expect(saved.version == 7)
        #expect(snapshot.sections.map { $0.rows.map(\.title) } == [["Write report", "Buy milk", "Call Aiko"], []])

        // The README and the library's DocC landing page show exactly these lines.
        let example = try excerpt("README example", indent: 8)
        #expect(try readme().contains(example), "README.md's library example differs from this test's")
        let landing = try String(contentsOf: packageRoot.appending(path: "Sources/Repository/Documentation.docc/Repository.md"), encoding: .utf8)
        #expect(landing.contains(example), "Repository.md's library example differs from this test's")
    }

    @MainActor
    @Test("the table-view recipe's data source animates every change of a store through a strict table view", arguments: propertySeeds([91, 92]))
    func theTableViewExampleFollowsEveryChange(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let store = try SectionStore(path: directory.path("list.db"), create: true)
        var generator = SeededGenerator(seed: seed)
        let tableView = UITableView()
        let dataSource = ListDataSource(try store.list("default").snapshot(editing: true))
        tableView.dataSource = dataSource
        tableView.reloadData()
        var stageCounts: [Int: Int] = [:]
        for step in 0..<200 {
            let before = dataSource.snapshot
            let changeset: Changeset
            if step % 8 == 7 {
                // A session of several edits, saved as one change.
                let session = try store.list("default").beginEditing()
                for inner in 0..<8 { _ = try? session.apply(randomEdit(try session.outline, step: step * 10 + inner, using: &generator)) }
                changeset = try session.save().changeset
            } else {
                guard let change = try? store.list("default").apply(randomEdit(try store.list("default").outline(), step: step, using: &generator))
                else { continue }
                changeset = change.changeset
            }
            let after = try store.list("default").snapshot(editing: true)
            let context = "seed \(seed), step \(step), \(changeset)"
            let stages = try #require(try? changeset.stages(from: before, to: after), "\(context): the changeset fits the snapshots")
            let batches = tableView.batches.count
            dataSource.apply(changeset, leadingTo: after, in: tableView)
            #expect(tableView.batches.count - batches == stages.count, "\(context): one batch a stage")
            #expect(tableView.refusals.isEmpty, "\(context): \(tableView.refusals)")
            #expect(dataSource.snapshot == after, "\(context)")
            #expect(tableView.shown == tableView.askDataSource(), "\(context): the view shows \(tableView.shown)")
            if !tableView.refusals.isEmpty || tableView.shown != tableView.askDataSource() { break }
            stageCounts[stages.count, default: 0] += 1
        }
        #expect(stageCounts.keys.contains { $0 >= 2 }, "seed \(seed): some change takes several batches (\(stageCounts))")
        #expect(tableView.shown.sections.contains { $0.header.footer == "No Data" }, "seed \(seed): an empty section shows its footer")

        // A changeset that does not start from what is shown: the view reloads.
        let batches = tableView.batches.count
        var elsewhere = try store.list("default").snapshot(editing: true)
        elsewhere.sections.insert(Section(id: -1, title: "elsewhere", rows: [Row(id: -2, content: .text("x"))]), at: 0)
        dataSource.apply(Changeset(), leadingTo: elsewhere, in: tableView)
        #expect(tableView.batches.count == batches && tableView.refusals.isEmpty)
        #expect(dataSource.snapshot == elsewhere && tableView.shown == tableView.askDataSource())
        #expect(tableView.shown.sections.first?.header.title == "elsewhere")

    }

    /// The lines of this file between `// <marker> begins` and `// <marker> ends`, `indent`
    /// spaces taken off each.
    func excerpt(_ marker: String, indent: Int) throws -> String {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        return source.components(separatedBy: "// \(marker) begins\n")[1]
            .components(separatedBy: String(repeating: " ", count: indent) + "// \(marker) ends")[0]
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.count >= indent ? String($0.dropFirst(indent)) : String($0) }
            .joined(separator: "\n")
    }

    func recipesArticle() throws -> String {
        try String(contentsOf: packageRoot.appending(path: "Sources/Repository/Documentation.docc/TableViewRecipes.md"), encoding: .utf8)
    }

    func readme() throws -> String {
        let readmeURL = packageRoot.appending(path: "README.md")
        return try String(contentsOf: readmeURL, encoding: .utf8)
    }
}

// README table view begins
/// A table view's data source that holds the list it shows, and animates changes to it.
final class ListDataSource: NSObject, UITableViewDataSource {
    private(set) var snapshot: ListSnapshot

    init(_ snapshot: ListSnapshot) { self.snapshot = snapshot }

    func numberOfSections(in tableView: UITableView) -> Int { snapshot.sections.count }

    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
        snapshot.sections[section].rows.count
    }

    func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String? {
        snapshot.sections[section].title
    }

    func tableView(_ tableView: UITableView, titleForFooterInSection section: Int) -> String? {
        snapshot.footer(ofSection: section)  // "No Data" under an empty section, while editing
    }

    func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
        let row = snapshot[RowPath(section: indexPath.section, row: indexPath.row)]
        let cell = UITableViewCell(style: .value1, reuseIdentifier: nil)
        cell.textLabel?.text = row.title
        cell.detailTextLabel?.text = row.value
        return cell
    }

    /// Animates `changeset`, which leads from the list shown to `new`.
    func apply(_ changeset: Changeset, leadingTo new: ListSnapshot, in tableView: UITableView) {
        guard let stages = try? changeset.stages(from: snapshot, to: new) else {
            snapshot = new  // the changeset does not start from what is shown: start afresh
            tableView.reloadData()
            return
        }
        func paths(_ rows: [RowPath]) -> [IndexPath] { rows.map { IndexPath(row: $0.row, section: $0.section) } }
        for stage in stages {
            let batch = stage.changeset
            tableView.performBatchUpdates {
                self.snapshot = stage.snapshot  // UIKit asks for the counts and cells after this batch
                tableView.deleteSections(IndexSet(batch.deletedSections), with: .automatic)
                tableView.insertSections(IndexSet(batch.insertedSections), with: .automatic)
                for move in batch.movedSections { tableView.moveSection(move.from, toSection: move.to) }
                tableView.reloadSections(IndexSet(batch.updatedSections), with: .automatic)
                tableView.deleteRows(at: paths(batch.deletedRows), with: .automatic)
                tableView.insertRows(at: paths(batch.insertedRows), with: .automatic)
                for move in batch.movedRows { tableView.moveRow(at: paths([move.from])[0], to: paths([move.to])[0]) }
                tableView.reconfigureRows(at: paths(batch.updatedRows))
            }
        }
        // Footers are not rows: an editing view sets the ones that changed ("No Data" appears
        // under a section just emptied, and goes from one just filled).
        for section in changeset.changedFooters {
            tableView.footerView(forSection: section)?.textLabel?.text = snapshot.footer(ofSection: section)
        }
    }
}
// README table view ends
