import Foundation
import Repository

/// A stand-in for a table view with a `UITableViewDiffableDataSource`, as it behaves: it diffs
/// the identifiers of each snapshot applied against the last, and a cell or header whose id it
/// keeps shows what it showed before unless the apply reconfigures the row or reloads the
/// section. So a row whose text changed and was not reconfigured is a stale cell, as on a
/// device. It refuses, as UIKit raises, an identifier twice and a reconfigured row or reloaded
/// section that is not in the snapshot.
@MainActor package final class FakeDiffableTableView: DiffableListTableView {
    /// One section on screen: its id, header and cells by row id.
    package struct ShownSection: Equatable {
        package var id: SectionID
        package var header: ShownHeader
        package var rows: [(id: RowID, cell: ShownCell)]
        package static func == (a: ShownSection, b: ShownSection) -> Bool {
            a.id == b.id && a.header == b.header && a.rows.map(\.id) == b.rows.map(\.id) && a.rows.map(\.cell) == b.rows.map(\.cell)
        }
    }

    /// What the view shows.
    package private(set) var shown: [ShownSection] = []
    /// What UIKit would have raised on.
    package private(set) var refusals: [String] = []
    /// Applies with animation, and without.
    package private(set) var animatedApplies = 0
    package private(set) var unanimatedApplies = 0
    /// Animated applies that changed nothing on screen: no id moved, arrived or left, and no
    /// cell or header drawn differently.
    package private(set) var noOpAnimations = 0
    /// Draws a cell for a row id and a header for a section id, as the cell provider would.
    package var cell: (RowID) -> ShownCell? = { _ in nil }
    package var header: (SectionID) -> ShownHeader? = { _ in nil }

    package init() {}

    package func apply(_ list: ListSnapshot, reconfiguring rows: [RowID], reloadingSections sections: [SectionID], animated: Bool) {
        let sectionIDs = list.sections.map(\.id)
        let rowIDs = list.sections.flatMap { $0.rows.map(\.id) }
        guard Set(sectionIDs).count == sectionIDs.count, Set(rowIDs).count == rowIDs.count else {
            refusals.append("an identifier twice in \(list.sections.map(\.id))")
            return
        }
        let rowSet = Set(rowIDs)
        let sectionSet = Set(sectionIDs)
        if let missing = rows.first(where: { !rowSet.contains($0) }) { refusals.append("reconfigure row #\(missing), not in the snapshot") }
        if let missing = sections.first(where: { !sectionSet.contains($0) }) {
            refusals.append("reload section #\(missing), not in the snapshot")
        }
        var oldHeaders: [SectionID: ShownHeader] = [:]
        var oldCells: [RowID: ShownCell] = [:]
        for section in shown {
            oldHeaders[section.id] = section.header
            for row in section.rows { oldCells[row.id] = row.cell }
        }
        let reconfigured = Set(rows)
        let reloaded = Set(sections)
        let after = list.sections.map { section in
            let fresh = reloaded.contains(section.id) || oldHeaders[section.id] == nil
            return ShownSection(
                id: section.id, header: fresh ? header(section.id) ?? ShownHeader() : oldHeaders[section.id]!,
                rows: section.rows.map { row in
                    // A cell drawn as a placeholder (no text) is drawn again at the next layout.
                    let redraw = fresh || reconfigured.contains(row.id) || (oldCells[row.id]?.text ?? nil) == nil
                    return (row.id, redraw ? cell(row.id) ?? ShownCell() : oldCells[row.id]!)
                })
        }
        if animated {
            animatedApplies += 1
            if after == shown { noOpAnimations += 1 }
        } else {
            unanimatedApplies += 1
        }
        shown = after
    }

    /// Draws again the cells drawn as placeholders (no text: the cell provider had nothing yet,
    /// as before the first layout), as the view's next layout does.
    package func layOut() {
        for section in shown.indices {
            for row in shown[section].rows.indices where shown[section].rows[row].cell.text == nil {
                if let fresh = cell(shown[section].rows[row].id) { shown[section].rows[row].cell = fresh }
            }
        }
    }

    /// Where what the view shows differs from what its providers say now: stale cells and
    /// headers (footers included), by id.
    package func mismatches(against list: ListSnapshot) -> [String] {
        layOut()
        var found: [String] = []
        if shown.map(\.id) != list.sections.map(\.id) { found.append("sections \(shown.map(\.id)), the list has \(list.sections.map(\.id))") }
        for (section, listed) in zip(shown, list.sections) {
            if section.rows.map(\.id) != listed.rows.map(\.id) { found.append("rows of #\(section.id): \(section.rows.map(\.id))") }
            if let fresh = header(section.id), fresh != section.header { found.append("header #\(section.id) shows \(section.header), not \(fresh)") }
            for row in section.rows {
                if let fresh = cell(row.id), fresh != row.cell { found.append("row #\(row.id) shows \(row.cell), not \(fresh)") }
            }
        }
        return found
    }
}

/// A stand-in for UIKit's `UITableViewDiffableDataSource`, with its initializer: its cells come
/// from the cell provider, and what it shows is a `FakeDiffableTableView`'s (`shown`), under
/// UIKit's diffable rules. The conformance below is the one `UITableView+ListTableView.swift`
/// gives UIKit's.
@MainActor package final class UITableViewDiffableDataSource<SectionIdentifierType: Hashable, ItemIdentifierType: Hashable> {
    package typealias CellProvider = (UITableView, IndexPath, ItemIdentifierType) -> UITableViewCell?
    /// What the table view shows, and its rules.
    package let view = FakeDiffableTableView()
    private let tableView: UITableView
    private let cellProvider: CellProvider
    private var paths: [ItemIdentifierType: IndexPath] = [:]

    package init(tableView: UITableView, cellProvider: @escaping CellProvider) {
        self.tableView = tableView
        self.cellProvider = cellProvider
    }

    /// The cell the provider gives for `id`, as shown.
    fileprivate func cell(_ id: ItemIdentifierType) -> ShownCell? {
        guard let path = paths[id], let cell = cellProvider(tableView, path, id) else { return nil }
        return ShownCell(text: cell.textLabel?.text, detail: cell.detailTextLabel?.text)
    }

    fileprivate func setPaths(_ paths: [ItemIdentifierType: IndexPath]) { self.paths = paths }
}

extension UITableViewDiffableDataSource: DiffableListTableView where SectionIdentifierType == SectionID, ItemIdentifierType == RowID {
    package func apply(_ list: ListSnapshot, reconfiguring rows: [RowID], reloadingSections sections: [SectionID], animated: Bool) {
        var paths: [RowID: IndexPath] = [:]
        for (index, section) in list.sections.enumerated() {
            for (row, item) in section.rows.enumerated() { paths[item.id] = IndexPath(row: row, section: index) }
        }
        setPaths(paths)
        view.cell = { [unowned self] id in cell(id) }
        view.apply(list, reconfiguring: rows, reloadingSections: sections, animated: animated)
    }
}
