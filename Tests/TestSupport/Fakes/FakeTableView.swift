import Foundation
import Repository

// A stand-in for the part of UIKit's table view that the table-view recipes' data sources use
// (the DocC article TableViewRecipes.md), with the same names, so that their code compiles and
// runs here as written. Its
// `performBatchUpdates` holds each batch to UIKit's rules strictly (`performBatchUpdates(_:on:source:)`)
// and notes every refusal, where UIKit would raise.

#if !canImport(UIKit)
    extension IndexPath {
        /// The path of `row` in `section`, as UIKit's table views name rows.
        package init(row: Int, section: Int) { self.init(indexes: [section, row]) }
        package var section: Int { self[0] }
        package var row: Int { self[1] }
    }
#endif

/// A label: its text, and who is told when it changes.
@MainActor package final class UILabel {
    package var text: String? { didSet { onChange?(text) } }
    package var onChange: ((String?) -> Void)?
    package init(text: String? = nil) { self.text = text }
}

/// A cell: what the view shows for one row.
@MainActor package final class UITableViewCell {
    package enum CellStyle { case `default`, value1, value2, subtitle }
    package let textLabel: UILabel?
    package let detailTextLabel: UILabel?
    package init(style: CellStyle, reuseIdentifier: String?) {
        textLabel = UILabel()
        detailTextLabel = style == .default ? nil : UILabel()
    }
}

/// A section's footer view, whose label writes through to what the table view shows.
@MainActor package final class UITableViewHeaderFooterView {
    package let textLabel: UILabel?
    package init(textLabel: UILabel) { self.textLabel = textLabel }
}

/// The questions a table view asks its data source.
@MainActor package protocol UITableViewDataSource: AnyObject {
    func numberOfSections(in tableView: UITableView) -> Int
    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int
    func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell
    func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String?
    func tableView(_ tableView: UITableView, titleForFooterInSection section: Int) -> String?
    func tableView(_ tableView: UITableView, moveRowAt sourceIndexPath: IndexPath, to destinationIndexPath: IndexPath)
}

extension UITableViewDataSource {
    package func numberOfSections(in tableView: UITableView) -> Int { 1 }
    package func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String? { nil }
    package func tableView(_ tableView: UITableView, titleForFooterInSection section: Int) -> String? { nil }
    package func tableView(_ tableView: UITableView, moveRowAt sourceIndexPath: IndexPath, to destinationIndexPath: IndexPath) {}
}

/// What a section shows above and below its rows.
package struct ShownHeader: Equatable, CustomStringConvertible {
    package var title: String?
    package var footer: String?
    package init(title: String? = nil, footer: String? = nil) {
        self.title = title
        self.footer = footer
    }
    package var description: String { "\(title ?? "-") [\(footer ?? "")]" }
}

/// What a cell shows.
package struct ShownCell: Equatable, CustomStringConvertible {
    package var text: String?
    package var detail: String?
    package init(text: String? = nil, detail: String? = nil) {
        self.text = text
        self.detail = detail
    }
    package var description: String { "\(text ?? "-")\(detail.map { "=\($0)" } ?? "")" }

    /// Whether the view showing this cell agrees with a data source answering `other`: the
    /// same cell, or either one a placeholder (no text), drawn while the list moved on and
    /// reconfigured by the view once it caught up.
    package func agrees(with other: ShownCell) -> Bool { self == other || text == nil || other.text == nil }
}

/// A table view that shows what it asked its data source, and changes it only as UIKit would.
@MainActor package final class UITableView {
    package enum RowAnimation { case automatic, fade, none }

    package weak var dataSource: (any UITableViewDataSource)?
    /// What the view shows.
    package private(set) var shown = ShownTable<ShownHeader, ShownCell>(sections: [])
    /// Every batch UIKit would have refused, or after which the view disagrees with its data
    /// source, and every update outside a batch: what UIKit would raise, or show wrongly.
    package private(set) var refusals: [String] = []
    /// The batches applied, in order.
    package private(set) var batches: [Changeset] = []
    /// How many times `reloadData()` was called.
    package private(set) var reloads = 0
    /// Every batch that left the view showing exactly what it showed before (headers, cells,
    /// order): an animation of nothing — a row deleted and inserted in its own place, or a cell
    /// reloaded with what it already said — which flashes on screen.
    package private(set) var noOpAnimations: [String] = []
    private var batch: Changeset?

    package init() {}

    /// Everything the data source says now, as the view would show it.
    package func askDataSource() -> ShownTable<ShownHeader, ShownCell> {
        guard let dataSource else { return ShownTable(sections: []) }
        return ShownTable(
            sections: (0..<dataSource.numberOfSections(in: self)).map { section in
                .init(
                    header: ShownHeader(
                        title: dataSource.tableView(self, titleForHeaderInSection: section),
                        footer: dataSource.tableView(self, titleForFooterInSection: section)),
                    cells: (0..<dataSource.tableView(self, numberOfRowsInSection: section)).map { row in
                        let cell = dataSource.tableView(self, cellForRowAt: IndexPath(row: row, section: section))
                        return ShownCell(text: cell.textLabel?.text, detail: cell.detailTextLabel?.text)
                    })
            })
    }

    package func reloadData() {
        reloads += 1
        shown = askDataSource()
    }

    /// Where what the view shows differs from what its data source says now, footers
    /// included: a stale cell, header or footer, or a count the view did not follow.
    package func mismatches() -> [String] {
        let source = askDataSource()
        guard shown.sections.count == source.sections.count else {
            return ["the view shows \(shown.sections.count) sections; the data source has \(source.sections.count)"]
        }
        var found: [String] = []
        for (index, pair) in zip(shown.sections, source.sections).enumerated() {
            if pair.0.header != pair.1.header { found.append("section \(index) shows \(pair.0.header); the data source has \(pair.1.header)") }
            if pair.0.cells != pair.1.cells { found.append("section \(index) shows \(pair.0.cells); the data source has \(pair.1.cells)") }
        }
        return found
    }

    /// The user drags the row at `source` to `destination` in an editing view: the view moves
    /// the cell itself, then tells its data source (`tableView(_:moveRowAt:to:)`), which must
    /// take the move in without animating it.
    package func userMovesRow(from source: IndexPath, to destination: IndexPath) {
        let cell = shown.sections[source.section].cells.remove(at: source.row)
        shown.sections[destination.section].cells.insert(cell, at: destination.row)
        dataSource?.tableView(self, moveRowAt: source, to: destination)
    }

    package func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)? = nil) {
        guard batch == nil else {
            refusals.append("performBatchUpdates inside performBatchUpdates")
            return
        }
        batch = Changeset()
        updates?()
        let done = batch!
        batch = nil
        batches.append(done)
        let source = askDataSource()
        do {
            // Footers are not part of a batch: they are compared once all is done.
            let after = try TestSupport.performBatchUpdates(done, on: shown, source: source)
            for (index, pair) in zip(after.sections, source.sections).enumerated() {
                let cellsAgree =
                    pair.0.cells.count == pair.1.cells.count
                    && zip(pair.0.cells, pair.1.cells).allSatisfy { $0.agrees(with: $1) }
                if pair.0.header.title != pair.1.header.title || !cellsAgree {
                    refusals.append("after batch \(done), section \(index) shows \(pair.0); the data source has \(pair.1)")
                }
            }
            if after == shown { noOpAnimations.append("batch \(done) changes nothing on screen") }
            shown = after
        } catch {
            refusals.append("\(error)")
        }
        completion?(true)
    }

    private func inBatch(_ name: String, _ change: (inout Changeset) -> Void) {
        guard batch != nil else {
            refusals.append("\(name) outside performBatchUpdates")
            return
        }
        change(&batch!)
    }

    private func rowPaths(_ paths: [IndexPath]) -> [RowPath] { paths.map { RowPath(section: $0.section, row: $0.row) } }

    package func deleteSections(_ sections: IndexSet, with animation: RowAnimation) {
        inBatch("deleteSections") { $0.deletedSections += sections }
    }
    package func insertSections(_ sections: IndexSet, with animation: RowAnimation) {
        inBatch("insertSections") { $0.insertedSections += sections }
    }
    package func moveSection(_ section: Int, toSection newSection: Int) {
        inBatch("moveSection") { $0.movedSections.append(.init(from: section, to: newSection)) }
    }
    package func reloadSections(_ sections: IndexSet, with animation: RowAnimation) {
        inBatch("reloadSections") { $0.updatedSections += sections }
    }
    package func deleteRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        inBatch("deleteRows") { $0.deletedRows += rowPaths(indexPaths) }
    }
    package func insertRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        inBatch("insertRows") { $0.insertedRows += rowPaths(indexPaths) }
    }
    package func moveRow(at indexPath: IndexPath, to newIndexPath: IndexPath) {
        inBatch("moveRow") { $0.movedRows.append(.init(from: rowPaths([indexPath])[0], to: rowPaths([newIndexPath])[0])) }
    }
    package func reloadRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        inBatch("reloadRows") { $0.updatedRows += rowPaths(indexPaths) }
    }
    package func reconfigureRows(at indexPaths: [IndexPath]) {
        inBatch("reconfigureRows") { $0.updatedRows += rowPaths(indexPaths) }
    }

    /// The footer view of a section on screen; setting its label's text changes what it shows.
    package func footerView(forSection section: Int) -> UITableViewHeaderFooterView? {
        guard shown.sections.indices.contains(section) else { return nil }
        let label = UILabel(text: shown.sections[section].header.footer)
        label.onChange = { [weak self] text in self?.shown.sections[section].header.footer = text }
        return UITableViewHeaderFooterView(textLabel: label)
    }
}

/// The stand-in table view driven by a `ListViewAdapter`, as `UITableView+ListTableView.swift`
/// makes UIKit's: each call forwarded to the table view's own.
extension UITableView: ListTableView {
    package func performBatch(_ updates: @escaping () -> Void) { performBatchUpdates(updates) }
    package func deleteSections(_ sections: [Int]) { deleteSections(IndexSet(sections), with: .automatic) }
    package func insertSections(_ sections: [Int]) { insertSections(IndexSet(sections), with: .automatic) }
    package func reloadSections(_ sections: [Int]) { reloadSections(IndexSet(sections), with: .automatic) }
    package func deleteRows(at paths: [RowPath]) { deleteRows(at: paths.map(IndexPath.init), with: .automatic) }
    package func insertRows(at paths: [RowPath]) { insertRows(at: paths.map(IndexPath.init), with: .automatic) }
    package func moveRow(at path: RowPath, to newPath: RowPath) { moveRow(at: IndexPath(path), to: IndexPath(newPath)) }
    package func reconfigureRows(at paths: [RowPath]) { reconfigureRows(at: paths.map(IndexPath.init)) }
    package func setFooter(_ text: String?, forSection section: Int) { footerView(forSection: section)?.textLabel?.text = text }
}

extension IndexPath {
    /// The index path of a list's row path.
    package init(_ path: RowPath) { self.init(row: path.row, section: path.section) }
}
