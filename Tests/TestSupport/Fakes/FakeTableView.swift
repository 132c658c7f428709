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
    init(row: Int, section: Int) { self.init(indexes: [section, row]) }
    var section: Int { self[0] }
    var row: Int { self[1] }
}
#endif

/// A label: its text, and who is told when it changes.
@MainActor final class UILabel {
    var text: String? { didSet { onChange?(text) } }
    var onChange: ((String?) -> Void)?
    init(text: String? = nil) { self.text = text }
}

/// A cell: what the view shows for one row.
@MainActor final class UITableViewCell {
    enum CellStyle { case `default`, value1, value2, subtitle }
    let textLabel: UILabel?
    let detailTextLabel: UILabel?
    init(style: CellStyle, reuseIdentifier: String?) {
        textLabel = UILabel()
        detailTextLabel = style == .default ? nil : UILabel()
    }
}

/// A section's footer view, whose label writes through to what the table view shows.
@MainActor final class UITableViewHeaderFooterView {
    let textLabel: UILabel?
    init(textLabel: UILabel) { self.textLabel = textLabel }
}

/// The questions a table view asks its data source.
@MainActor protocol UITableViewDataSource: AnyObject {
    func numberOfSections(in tableView: UITableView) -> Int
    func tableView(_ tableView: UITableView, numberOfRowsInSection section: Int) -> Int
    func tableView(_ tableView: UITableView, cellForRowAt indexPath: IndexPath) -> UITableViewCell
    func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String?
    func tableView(_ tableView: UITableView, titleForFooterInSection section: Int) -> String?
}

extension UITableViewDataSource {
    func numberOfSections(in tableView: UITableView) -> Int { 1 }
    func tableView(_ tableView: UITableView, titleForHeaderInSection section: Int) -> String? { nil }
    func tableView(_ tableView: UITableView, titleForFooterInSection section: Int) -> String? { nil }
}

/// What a section shows above and below its rows.
struct ShownHeader: Equatable, CustomStringConvertible {
    var title: String?
    var footer: String?
    var description: String { "\(title ?? "-") [\(footer ?? "")]" }
}

/// What a cell shows.
struct ShownCell: Equatable, CustomStringConvertible {
    var text: String?
    var detail: String?
    var description: String { "\(text ?? "-")\(detail.map { "=\($0)" } ?? "")" }

    /// Whether the view showing this cell agrees with a data source answering `other`: the
    /// same cell, or either one a placeholder (no text), drawn while the list moved on and
    /// reconfigured by the view once it caught up.
    func agrees(with other: ShownCell) -> Bool { self == other || text == nil || other.text == nil }
}

/// A table view that shows what it asked its data source, and changes it only as UIKit would.
@MainActor final class UITableView {
    enum RowAnimation { case automatic, fade, none }

    weak var dataSource: (any UITableViewDataSource)?
    /// What the view shows.
    private(set) var shown = ShownTable<ShownHeader, ShownCell>(sections: [])
    /// Every batch UIKit would have refused, or after which the view disagrees with its data
    /// source, and every update outside a batch: what UIKit would raise, or show wrongly.
    private(set) var refusals: [String] = []
    /// The batches applied, in order.
    private(set) var batches: [Changeset] = []
    private var batch: Changeset?

    /// Everything the data source says now, as the view would show it.
    func askDataSource() -> ShownTable<ShownHeader, ShownCell> {
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

    func reloadData() { shown = askDataSource() }

    func performBatchUpdates(_ updates: (() -> Void)?, completion: ((Bool) -> Void)? = nil) {
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
            let after = try RepositoryTests.performBatchUpdates(done, on: shown, source: source)
            for (index, pair) in zip(after.sections, source.sections).enumerated() {
                let cellsAgree = pair.0.cells.count == pair.1.cells.count
                    && zip(pair.0.cells, pair.1.cells).allSatisfy { $0.agrees(with: $1) }
                if pair.0.header.title != pair.1.header.title || !cellsAgree {
                    refusals.append("after batch \(done), section \(index) shows \(pair.0); the data source has \(pair.1)")
                }
            }
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

    func deleteSections(_ sections: IndexSet, with animation: RowAnimation) {
        inBatch("deleteSections") { $0.deletedSections += sections }
    }
    func insertSections(_ sections: IndexSet, with animation: RowAnimation) {
        inBatch("insertSections") { $0.insertedSections += sections }
    }
    func moveSection(_ section: Int, toSection newSection: Int) {
        inBatch("moveSection") { $0.movedSections.append(.init(from: section, to: newSection)) }
    }
    func reloadSections(_ sections: IndexSet, with animation: RowAnimation) {
        inBatch("reloadSections") { $0.updatedSections += sections }
    }
    func deleteRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        inBatch("deleteRows") { $0.deletedRows += rowPaths(indexPaths) }
    }
    func insertRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        inBatch("insertRows") { $0.insertedRows += rowPaths(indexPaths) }
    }
    func moveRow(at indexPath: IndexPath, to newIndexPath: IndexPath) {
        inBatch("moveRow") { $0.movedRows.append(.init(from: rowPaths([indexPath])[0], to: rowPaths([newIndexPath])[0])) }
    }
    func reloadRows(at indexPaths: [IndexPath], with animation: RowAnimation) {
        inBatch("reloadRows") { $0.updatedRows += rowPaths(indexPaths) }
    }
    func reconfigureRows(at indexPaths: [IndexPath]) {
        inBatch("reconfigureRows") { $0.updatedRows += rowPaths(indexPaths) }
    }

    /// The footer view of a section on screen; setting its label's text changes what it shows.
    func footerView(forSection section: Int) -> UITableViewHeaderFooterView? {
        guard shown.sections.indices.contains(section) else { return nil }
        let label = UILabel(text: shown.sections[section].header.footer)
        label.onChange = { [weak self] text in self?.shown.sections[section].header.footer = text }
        return UITableViewHeaderFooterView(textLabel: label)
    }
}
