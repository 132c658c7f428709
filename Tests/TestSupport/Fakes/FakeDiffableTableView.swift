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
                    let redraw = fresh || reconfigured.contains(row.id) || oldCells[row.id] == nil
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

    /// Where what the view shows differs from what its providers say now: stale cells and
    /// headers (footers included), by id.
    package func mismatches(against list: ListSnapshot) -> [String] {
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
