import Foundation
import Repository
import TestSupport
import Testing

// The three ways a view followed a list before ListViewAdapter (TableViewRecipes.md showed them; the adapter's tests show
// where they go wrong) — a data source that holds its list and
// animates batches, a diffable snapshot moved by ids, and a view that reads only what it shows
// at the version it shows — run here while another process writes to the same file at random.
// Every batch goes through the strict model of `performBatchUpdates`, every diffable step
// through the model of `NSDiffableDataSourceSnapshot`; neither may refuse anything, and each
// view ends showing exactly the list.

// README live batch begins
/// Brings a data source that holds its list to the list's current version: the changes since
/// the version shown, and the list at exactly the version they lead to — once more when yet
/// another change came between the two reads.
@MainActor
func catchUp(_ dataSource: ListDataSource, in tableView: UITableView, from list: ListHandle) throws {
    while true {
        let changes = try list.changes(since: dataSource.snapshot.version)
        guard changes.version != dataSource.snapshot.version else { return }
        do {
            let new = try list.snapshot(editing: true, atVersion: changes.version)
            // A `nil` changeset (plain SQL changed the list) does not lead to `new`: a reload.
            dataSource.apply(changes.changeset ?? Changeset(), leadingTo: new, in: tableView)
            return
        } catch RepositoryError.listMovedOn {
            continue
        }
    }
}
// README live batch ends

// README live diffable begins
/// Brings a diffable data source from `version` to the list's current version, by the ids of
/// the changes since; the rows of an inserted section are read at the version the changes lead
/// to. Returns the version it shows.
func catchUp(_ dataSource: DiffableDataSource, from version: ListVersion, of list: ListHandle) throws -> ListVersion {
    while true {
        let changes = try list.changes(since: version)
        guard changes.version != version else { return version }
        do {
            var snapshot = dataSource.snapshot()
            if let changeset = changes.changeset {
                try apply(changeset, to: &snapshot) { section in
                    let count = try list.rowCount(of: .id(section), atVersion: changes.version)
                    let window = try list.window(startingAt: .path(.id(section), .index(0)), limit: count, atVersion: changes.version)
                    return window.parts[0].rows.map(\.id)
                }
            } else {
                // Plain SQL changed the list: build the snapshot afresh.
                snapshot = NSDiffableDataSourceSnapshot()
                for section in try list.snapshot(atVersion: changes.version).sections {
                    snapshot.appendSections([section.id])
                    snapshot.appendItems(section.rows.map(\.id), toSection: section.id)
                }
            }
            dataSource.apply(snapshot, animatingDifferences: true)
            return changes.version
        } catch RepositoryError.listMovedOn {
            continue
        }
    }
}
// README live diffable ends

/// A data source over `VersionedListView`: counts from its outline, each cell read at the
/// version shown, a placeholder (no text) where the list moved on.
@MainActor final class VersionedDataSource: UITableViewDataSource {
    let view: VersionedListView
    /// Placeholders drawn since the view last reconfigured its rows.
    var placeholders = 0

    init(_ view: VersionedListView) { self.view = view }

    func numberOfSections(in tableView: UITableView) -> Int { view.outline.sections.count }

    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int {
        view.outline.sections[section].rowCount
    }

    func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String? {
        view.outline.sections[section].title
    }

    func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell {
        let cell = UITableViewCell(style: .value1, reuseIdentifier: nil)
        if let located = try? view.row(at: RowPath(section: indexPath.section, row: indexPath.row)) {
            cell.textLabel?.text = located.row.title
            cell.detailTextLabel?.text = located.row.value
        } else {
            placeholders += 1
        }
        return cell
    }
}

@Suite("Table-view recipes with another writer")
struct LiveRecipeTests {
    /// Two bash loops at once, each running `sectionctl` `count` times on `path`, each run one
    /// random command (or a saved edit session of several): adds, moves across sections,
    /// deletes, section adds, moves and deletes, renames, undo. Most commands are valid in a
    /// small list; the rest are refused and write nothing. Exits 0 when both loops ran to their end.
    static let writerScript = #"""
        set -u
        bin=$1; db=$2; seed=$3; count=$4
        writer() {
          RANDOM=$1
          for ((i = 0; i < count; i++)); do
            s=$((RANDOM % 4)); r=$((RANDOM % 4)); t=$((RANDOM % 4)); u=$((RANDOM % 4))
            case $((RANDOM % 15)) in
              0|1|2) "$bin" --db "$db" row add "$s" "w$i" --at "$r" ;;
              3|4|5) "$bin" --db "$db" row move "$s:$r" "$t:$u" ;;
              6) "$bin" --db "$db" row delete "$s:$r" ;;
              7) "$bin" --db "$db" row set "$s:$r" --title "r$i" ;;
              8|9) "$bin" --db "$db" section add "s$i" --at "$s" ;;
              10) "$bin" --db "$db" section move "$s" "$t" ;;
              11) "$bin" --db "$db" section delete "$s" --force ;;
              12) "$bin" --db "$db" section rename "$s" "n$i" ;;
              13) printf '%s\n' "row move $s:$r $t:$u" "row add $t e$i" "section move $t $s" "row set $s:0 --title x$i" save \
                    | "$bin" --db "$db" edit ;;
              14) "$bin" --db "$db" undo ;;
            esac >/dev/null 2>&1
          done
          return 0
        }
        writer "$seed" & first=$!
        writer "$((seed + 1))" & second=$!
        wait "$first" && wait "$second"
        """#

    @MainActor
    @Test(
        "the batch, diffable and versioned recipes follow another process writing at random",
        .timeLimit(.minutes(60)), arguments: propertySeeds([5, 6]))
    func theRecipesFollowAnotherProcess(seed: UInt64) async throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("live.db")
        let store = try SectionStore(path: path, create: true)
        let list = store.list(SectionStore.defaultList)
        for section in 0..<3 {
            try await list.async.apply(.addSection(title: "S\(section)"))
            for row in 0..<3 { try await list.async.apply(.addRow(.text("r\(section).\(row)"), to: .at(section, row))) }
        }

        // The three views, each at the list's version now.
        let batchView = UITableView()
        let batchSource = ListDataSource(try await list.async.snapshot(editing: true))
        batchView.dataSource = batchSource
        batchView.reloadData()

        let diffable = DiffableDataSource()
        var diffableVersion = try catchUp(diffable, from: 0, of: list)

        let versioned = try VersionedListView(list)
        let versionedView = UITableView()
        let versionedSource = VersionedDataSource(versioned)
        versionedView.dataSource = versionedSource
        versionedView.reloadData()
        var oneStage = 0
        var reloads = 0
        versioned.animate = { changeset, _ in
            // A view that reads only the store can answer for the list after the change alone:
            // it animates a change of one stage (the stage's batch: reloads at old paths) and
            // reloads for more.
            guard let stages = changeset?.stages, stages.count <= 1 else {
                reloads += 1
                return versionedView.reloadData()
            }
            guard let batch = stages.first else { return }
            oneStage += 1
            versionedView.performBatchUpdates {
                versionedView.deleteSections(IndexSet(batch.deletedSections), with: .automatic)
                versionedView.insertSections(IndexSet(batch.insertedSections), with: .automatic)
                for move in batch.movedSections { versionedView.moveSection(move.from, toSection: move.to) }
                versionedView.reloadSections(IndexSet(batch.updatedSections), with: .automatic)
                let paths = { (rows: [RowPath]) in rows.map { IndexPath(row: $0.row, section: $0.section) } }
                versionedView.deleteRows(at: paths(batch.deletedRows), with: .automatic)
                versionedView.insertRows(at: paths(batch.insertedRows), with: .automatic)
                for move in batch.movedRows { versionedView.moveRow(at: paths([move.from])[0], to: paths([move.to])[0]) }
                versionedView.reconfigureRows(at: paths(batch.updatedRows))
            }
        }

        // The other process, and a last change after it, which tells the views the run is over.
        let startVersion = batchSource.snapshot.version
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: "/bin/bash")
        writer.arguments = ["-c", Self.writerScript, "writer", builtProduct("sectionctl").path, path, String(seed % 32768), "120"]
        let finished = AsyncStream<Int32>.makeStream()
        writer.terminationHandler = { process in
            finished.continuation.yield(process.terminationStatus)
            finished.continuation.finish()
        }
        try writer.run()
        let last = "end of run \(seed)"
        let closer = Task {
            var status: Int32 = -1
            for await code in finished.stream { status = code }
            try await store.list(SectionStore.defaultList).async.apply(.addSection(title: last))
            return status
        }

        var updates = 0
        var composed = 0
        var listMovedOnDuringReads = 0
        func refusals() -> [String] { batchView.refusals + diffable.snapshot().violations + versionedView.refusals }
        var generator = SeededGenerator(seed: seed)
        for try await update in list.updates(from: startVersion) {
            updates += 1
            // A main thread busy now and then: the writer gets ahead, so that one catch-up
            // composes several versions, and a read may find the list moved on. Any timing must
            // pass; the pause only makes more of them happen.
            if Int.random(in: 0..<3, using: &generator) == 0 {
                try await Task.sleep(for: .milliseconds(Int.random(in: 10..<120, using: &generator)))
            }
            if update.version > batchSource.snapshot.version {
                let before = batchSource.snapshot.version
                try catchUp(batchSource, in: batchView, from: list)
                if before.distance(to: batchSource.snapshot.version) > 1 { composed += 1 }
            }
            if update.version > diffableVersion {
                diffableVersion = try catchUp(diffable, from: diffableVersion, of: list)
            }
            if update.version > versioned.outline.version {
                try versioned.catchUp()
            }
            if versionedSource.placeholders > 0 {
                // Cells drawn while the list moved on: reconfigure the visible rows, now caught up.
                listMovedOnDuringReads += versionedSource.placeholders
                versionedSource.placeholders = 0
                let visible = versioned.outline.sections.indices.flatMap { section in
                    (0..<versioned.outline.sections[section].rowCount).map { IndexPath(row: $0, section: section) }
                }
                versionedView.performBatchUpdates { versionedView.reconfigureRows(at: visible) }
            }
            try #require(refusals().isEmpty, "seed \(seed), update \(update.from)→\(update.version): \(refusals())")
            // Each view shows the list at the version it is at, unless the list moved on since.
            if let current = try? await list.async.snapshot(editing: true, atVersion: batchSource.snapshot.version) {
                try #require(batchSource.snapshot == current, "seed \(seed): the batch view at version \(current.version)")
            }
            if let current = try? await list.async.snapshot(atVersion: diffableVersion) {
                try #require(diffable.snapshot().sectionIdentifiers == current.sections.map(\.id), "seed \(seed): diffable sections")
            }
            let done = [batchSource.snapshot.sections.last?.title, versioned.outline.sections.last?.title]
            if done.allSatisfy({ $0 == last }) && diffableVersion == versioned.outline.version
                && batchSource.snapshot.version == versioned.outline.version && versionedSource.placeholders == 0
            {
                break
            }
        }
        #expect(try await closer.value == 0, "seed \(seed): the writer ran to its end")

        // Each view shows exactly the list, and nothing was refused on the way.
        let final = try await list.async.snapshot(editing: true)
        let context = "seed \(seed)"
        #expect(refusals().isEmpty, "\(context): \(refusals())")
        #expect(batchSource.snapshot == final, "\(context): the batch view's list")
        #expect(batchView.shown == batchView.askDataSource(), "\(context): the batch view shows its data source")
        #expect(diffableVersion == final.version)
        #expect(diffable.snapshot().sectionIdentifiers == final.sections.map(\.id), "\(context): diffable sections")
        for section in final.sections {
            #expect(diffable.snapshot().itemIdentifiers(inSection: section.id) == section.rows.map(\.id), "\(context): rows of #\(section.id)")
        }
        #expect(versioned.outline == (try await list.async.outline()), "\(context): the versioned view's outline")
        #expect(versionedView.shown == versionedView.askDataSource(), "\(context): the versioned view shows its data source")
        #expect(
            versionedView.shown.sections.map { $0.cells.map(\.text) } == final.sections.map { $0.rows.map(\.title) },
            "\(context): the versioned view shows every row's title")

        // The other process did write while the views followed: many versions, several at once.
        let commits = startVersion.distance(to: final.version)
        #expect(commits >= 80, "\(context): the writer committed \(commits) versions")
        print(
            "\(context): \(commits) versions in \(updates) updates, \(composed) catch-ups over several; versioned view: \(oneStage) one-stage batches,",
            "\(reloads) reloads, \(listMovedOnDuringReads) cells read after the list moved on")
    }
}
