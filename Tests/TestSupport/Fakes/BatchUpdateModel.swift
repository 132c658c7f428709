import Repository

/// A batch that `UITableView.performBatchUpdates` refuses (UIKit raises an exception), or that
/// leaves the view showing something other than its data source.
package struct BatchUpdateError: Error, CustomStringConvertible {
    package var description: String
}

/// What a table view shows: per section a header and cells, as it last asked its data source.
package struct ShownTable<Header: Equatable, Cell: Equatable>: Equatable, CustomStringConvertible {
    package struct ShownSection: Equatable {
        package var header: Header
        package var cells: [Cell]
        package init(header: Header, cells: [Cell]) {
            self.header = header
            self.cells = cells
        }
    }
    package var sections: [ShownSection]

    package init(sections: [ShownSection]) { self.sections = sections }

    package var description: String {
        sections.map { "\($0.header): \($0.cells.map { "\($0)" }.joined(separator: ", "))" }.joined(separator: " | ")
    }
}

/// A section header as a list shows it, with the section's id standing for the section.
package struct ListSectionHeader: Equatable, CustomStringConvertible {
    package var id: SectionID
    package var title: String
    package var emptyText: String?
    package var description: String { "#\(id) \(title)" }
}

package typealias ListTable = ShownTable<ListSectionHeader, Row>

extension ShownTable where Header == ListSectionHeader, Cell == Row {
    /// A list as a table view shows it.
    package init(_ snapshot: ListSnapshot) {
        sections = snapshot.sections.map {
            ShownSection(header: ListSectionHeader(id: $0.id, title: $0.title, emptyText: $0.emptyText), cells: $0.rows)
        }
    }
}

/// One `performBatchUpdates` under UIKit's documented rules, strictly: what the view shows after
/// `batch`, which was `shown` before it, when its data source answers with `source` inside it.
///
/// - Deletions and reloads name old indexes (before the batch); insertions and moves'
///   destinations new ones (after it); moves go from old to new.
/// - Nothing is named twice: no section or row deleted, moved or reloaded twice, no two
///   insertions or moves to one place; nothing is both deleted and moved, deleted and reloaded,
///   or moved and reloaded (a row of a moved section moves with it), and no insertion and move
///   share a destination.
/// - No row is deleted from, or moved out of, a section the batch deletes; no row is inserted
///   into, or moved into, a section it inserts (an inserted section's rows come with it).
/// - A reloaded section has no row of its own deleted, inserted, moved or reloaded in the
///   batch.
/// - Beyond the documented rules, what UIKit is known to get wrong when mixed (its section map
///   and the arithmetic of reloads, which it treats as a deletion and an insertion): a batch
///   that moves sections may insert sections but do nothing else (no section deleted or
///   reloaded, no row deleted, inserted, moved or reloaded — which section a row's index refers
///   to would be ambiguous); a batch that reloads sections inserts, deletes and moves none; a
///   batch that reloads rows inserts and moves no section.
/// - The data source's counts after the batch are the view's: sections before − deleted +
///   inserted, and per surviving section, its rows before − deleted − moved out + inserted +
///   moved in.
///
/// Inserted sections and rows, reloaded sections (header and cells) and reloaded rows show what
/// the data source has at their places after the batch; everything else keeps what it showed.
/// Throws a `BatchUpdateError` naming the broken rule.
package func performBatchUpdates<Header, Cell>(
    _ batch: Changeset, on shown: ShownTable<Header, Cell>, source: ShownTable<Header, Cell>
) throws -> ShownTable<Header, Cell> {
    func refuse(_ text: String) -> BatchUpdateError { BatchUpdateError(description: "invalid batch: \(text)") }
    let oldCount = shown.sections.count
    let newCount = source.sections.count

    // Sections.
    var deletedSections: Set<Int> = []
    for index in batch.deletedSections {
        guard index >= 0 && index < oldCount else { throw refuse("delete section \(index), but there are \(oldCount) before the update") }
        guard deletedSections.insert(index).inserted else { throw refuse("delete section \(index) twice") }
    }
    var sectionMoveTo: [Int: Int] = [:]
    var sectionMoveFrom: [Int: Int] = [:]
    for move in batch.movedSections {
        guard move.from >= 0 && move.from < oldCount else { throw refuse("move section \(move.from), but there are \(oldCount) before the update") }
        guard move.to >= 0 && move.to < newCount else { throw refuse("move section to \(move.to), but there are \(newCount) after the update") }
        guard !deletedSections.contains(move.from) else { throw refuse("delete and move section \(move.from)") }
        guard sectionMoveTo.updateValue(move.to, forKey: move.from) == nil else { throw refuse("move section \(move.from) twice") }
        guard sectionMoveFrom.updateValue(move.from, forKey: move.to) == nil else { throw refuse("move two sections to \(move.to)") }
    }
    var insertedSections: Set<Int> = []
    for index in batch.insertedSections {
        guard index >= 0 && index < newCount else { throw refuse("insert section \(index), but there are \(newCount) after the update") }
        guard insertedSections.insert(index).inserted else { throw refuse("insert section \(index) twice") }
        guard sectionMoveFrom[index] == nil else { throw refuse("insert and move a section to \(index)") }
    }
    var reloadedSections: Set<Int> = []
    for index in batch.updatedSections {
        guard index >= 0 && index < oldCount else { throw refuse("reload section \(index), but there are \(oldCount) before the update") }
        guard !deletedSections.contains(index) else { throw refuse("delete and reload section \(index)") }
        guard sectionMoveTo[index] == nil else { throw refuse("move and reload section \(index)") }
        guard reloadedSections.insert(index).inserted else { throw refuse("reload section \(index) twice") }
    }
    guard newCount == oldCount - deletedSections.count + insertedSections.count else {
        throw refuse(
            "the data source has \(newCount) sections after the update; the view had \(oldCount), "
                + "\(deletedSections.count) deleted and \(insertedSections.count) inserted")
    }
    // Old section of each new index: moved, inserted (nil), or the next one that stays.
    var oldSectionOf = [Int?](repeating: nil, count: newCount)
    var staying = (0..<oldCount).filter { !deletedSections.contains($0) && sectionMoveTo[$0] == nil }.makeIterator()
    for index in 0..<newCount where !insertedSections.contains(index) {
        oldSectionOf[index] = sectionMoveFrom[index] ?? staying.next()
    }
    // Rows leaving their sections.
    func checkOld(_ path: RowPath, _ what: String) throws {
        guard path.section >= 0 && path.section < oldCount, path.row >= 0 && path.row < shown.sections[path.section].cells.count else {
            throw refuse("\(what) row \(path), which is not in the view before the update")
        }
    }
    var deletedRows: Set<RowPath> = []
    for path in batch.deletedRows {
        try checkOld(path, "delete")
        guard !deletedSections.contains(path.section) else { throw refuse("delete row \(path) of deleted section \(path.section)") }
        guard deletedRows.insert(path).inserted else { throw refuse("delete row \(path) twice") }
    }
    var rowMoveFrom: [RowPath: RowPath] = [:]
    var movedSources: Set<RowPath> = []
    for move in batch.movedRows {
        try checkOld(move.from, "move")
        guard !deletedSections.contains(move.from.section) else { throw refuse("move row \(move.from) out of deleted section \(move.from.section)") }
        guard !deletedRows.contains(move.from) else { throw refuse("delete and move row \(move.from)") }
        guard movedSources.insert(move.from).inserted else { throw refuse("move row \(move.from) twice") }
        guard move.to.section >= 0 && move.to.section < newCount else {
            throw refuse("move row to \(move.to), a section not in the view after the update")
        }
        guard !insertedSections.contains(move.to.section) else { throw refuse("move row \(move.from) into inserted section \(move.to.section)") }
        guard rowMoveFrom.updateValue(move.from, forKey: move.to) == nil else { throw refuse("move two rows to \(move.to)") }
    }
    var reloadedRows: Set<RowPath> = []
    for path in batch.updatedRows {
        try checkOld(path, "reload")
        guard !deletedSections.contains(path.section) else { throw refuse("reload row \(path) of deleted section \(path.section)") }
        guard !deletedRows.contains(path) else { throw refuse("delete and reload row \(path)") }
        guard !movedSources.contains(path) else { throw refuse("move and reload row \(path)") }
        guard sectionMoveTo[path.section] == nil else { throw refuse("reload row \(path) of moved section \(path.section)") }
        guard reloadedRows.insert(path).inserted else { throw refuse("reload row \(path) twice") }
    }
    var insertedRows: Set<RowPath> = []
    for path in batch.insertedRows {
        guard path.section >= 0 && path.section < newCount else { throw refuse("insert row \(path), a section not in the view after the update") }
        guard !insertedSections.contains(path.section) else { throw refuse("insert row \(path) into inserted section \(path.section)") }
        guard insertedRows.insert(path).inserted else { throw refuse("insert row \(path) twice") }
        guard rowMoveFrom[path] == nil else { throw refuse("insert and move a row to \(path)") }
    }
    // What UIKit gets wrong when mixed (its section map and its reload arithmetic): moved
    // sections go with inserted ones alone; reloaded sections with no section change; reloaded
    // rows with no section inserted or moved.
    if !batch.movedSections.isEmpty {
        let rowChanges = batch.deletedRows.count + batch.insertedRows.count + batch.movedRows.count + batch.updatedRows.count
        if !batch.movedRows.isEmpty {
            throw refuse("move rows (\(batch.movedRows.map { "\($0.from)→\($0.to)" }.joined(separator: ", "))) in a batch that moves sections")
        }
        guard rowChanges == 0 else { throw refuse("delete, insert or reload rows in a batch that moves sections") }
        guard batch.deletedSections.isEmpty else { throw refuse("delete sections \(batch.deletedSections) in a batch that moves sections") }
        guard batch.updatedSections.isEmpty else { throw refuse("reload sections \(batch.updatedSections) in a batch that moves sections") }
    }
    if !batch.updatedSections.isEmpty && !(batch.insertedSections.isEmpty && batch.deletedSections.isEmpty) {
        throw refuse("reload sections \(batch.updatedSections) in a batch that inserts or deletes sections")
    }
    if !batch.updatedRows.isEmpty && !batch.insertedSections.isEmpty {
        throw refuse("reload rows \(batch.updatedRows) in a batch that inserts sections")
    }
    for index in reloadedSections {
        let touched =
            (batch.deletedRows + batch.movedRows.map(\.from) + batch.updatedRows).contains { $0.section == index }
            || (batch.insertedRows + batch.movedRows.map(\.to)).contains { oldSectionOf[$0.section] == index }
        guard !touched else { throw refuse("reload section \(index) and change rows of it in one batch") }
    }

    // The view after the batch, section by section, checked against the data source's counts.
    var result = ShownTable<Header, Cell>(sections: [])
    for index in 0..<newCount {
        let fresh = source.sections[index]
        guard let old = oldSectionOf[index] else {
            result.sections.append(fresh)
            continue
        }
        let before = shown.sections[old].cells.count
        let leaving = batch.deletedRows.filter { $0.section == old }.count + batch.movedRows.filter { $0.from.section == old }.count
        let movingIn = batch.movedRows.filter { $0.to.section == index }
        let inserted = batch.insertedRows.filter { $0.section == index }
        let count = before - leaving + inserted.count + movingIn.count
        guard fresh.cells.count == count else {
            throw refuse(
                "the data source has \(fresh.cells.count) rows in section \(index) after the update; the view had \(before) "
                    + "in it (section \(old) before the update), \(batch.deletedRows.filter { $0.section == old }.count) deleted, "
                    + "\(inserted.count) inserted, \(batch.movedRows.filter { $0.from.section == old }.count) moved out, "
                    + "\(movingIn.count) moved in")
        }
        if reloadedSections.contains(old) {
            result.sections.append(fresh)
            continue
        }
        // Cells: arrivals at their new rows; the rest, in order, keep what they showed unless reloaded.
        var slots = [Cell?](repeating: nil, count: count)
        for path in inserted {
            guard path.row >= 0 && path.row < count else { throw refuse("insert row \(path), past the end of the section (\(count) rows after)") }
            slots[path.row] = fresh.cells[path.row]
        }
        for move in movingIn {
            guard move.to.row >= 0 && move.to.row < count else {
                throw refuse("move row to \(move.to), past the end of the section (\(count) rows after)")
            }
            slots[move.to.row] = shown.sections[move.from.section].cells[move.from.row]
        }
        var stayers = shown.sections[old].cells.indices.filter {
            !deletedRows.contains(RowPath(section: old, row: $0)) && !movedSources.contains(RowPath(section: old, row: $0))
        }.makeIterator()
        for row in 0..<count where slots[row] == nil {
            let oldRow = stayers.next()!
            slots[row] = reloadedRows.contains(RowPath(section: old, row: oldRow)) ? fresh.cells[row] : shown.sections[old].cells[oldRow]
        }
        result.sections.append(.init(header: shown.sections[old].header, cells: slots.map { $0! }))
    }
    return result
}

/// Runs `batch` through `performBatchUpdates(_:on:source:)` and throws unless the view then
/// shows exactly what the data source has (a cell or header that was not reloaded is stale).
package func performBatchUpdatesExpectingAgreement<Header, Cell>(
    _ batch: Changeset, on shown: ShownTable<Header, Cell>, source: ShownTable<Header, Cell>
) throws -> ShownTable<Header, Cell> {
    let after = try performBatchUpdates(batch, on: shown, source: source)
    for (index, pair) in zip(after.sections, source.sections).enumerated() {
        guard pair.0.header == pair.1.header else {
            throw BatchUpdateError(description: "section \(index) shows header \(pair.0.header); the data source has \(pair.1.header)")
        }
        for (row, cells) in zip(pair.0.cells, pair.1.cells).enumerated() where cells.0 != cells.1 {
            throw BatchUpdateError(description: "row \(index):\(row) shows \(cells.0); the data source has \(cells.1)")
        }
    }
    return after
}

/// Applies `stages` one `performBatchUpdates` after another under UIKit's strict rules, the data
/// source answering from each stage's snapshot inside its batch; throws unless each batch is
/// accepted and leaves the view showing that snapshot. Returns the last snapshot (`old` if
/// there are no stages).
@discardableResult
package func applyingStages(_ stages: [ChangesetStage], to old: ListSnapshot) throws -> ListSnapshot {
    var shown = ListTable(old)
    for (number, stage) in stages.enumerated() {
        do {
            shown = try performBatchUpdatesExpectingAgreement(stage.changeset, on: shown, source: ListTable(stage.snapshot))
        } catch {
            throw BatchUpdateError(description: "stage \(number + 1) of \(stages.count) (\(stage.changeset)): \(error)")
        }
    }
    return stages.last?.snapshot ?? old
}

/// Why `changeset`'s stages do not take a table view from `old` to `new` under UIKit's strict
/// rules, or `nil`: `stages(from:to:)` must give the batches of `stages`, each accepted by
/// `performBatchUpdates` with the data source answering from the stage's snapshot, the last
/// snapshot `new`, and the footers with the last stage alone.
package func stagingProblem(_ changeset: Changeset, turns old: ListSnapshot, into new: ListSnapshot) -> String? {
    let stages: [ChangesetStage]
    do {
        stages = try changeset.stages(from: old, to: new)
    } catch {
        return "stages(from:to:) refused \(changeset): \(error)"
    }
    if stages.map(\.changeset) != changeset.stages { return "stages(from:to:) and stages differ for \(changeset)" }
    if stages.count > 4 { return "\(stages.count) stages for \(changeset)" }
    if stages.dropLast().contains(where: { !$0.changeset.changedFooters.isEmpty })
        || (stages.last?.changeset.changedFooters ?? []) != changeset.changedFooters
    {
        return "the footers of \(changeset) are not with its last stage alone"
    }
    do {
        let last = try applyingStages(stages, to: old)
        if last.sections != new.sections { return "the stages of \(changeset) end elsewhere than the new snapshot" }
    } catch {
        return "the stages of \(changeset) are refused: \(error)"
    }
    if changeset.hasIDs {
        // Every stage names the ids of what it touches: deletions, moves' sources and reloads
        // in the list before it, insertions and moves' destinations in the list after it.
        var before = old
        for (number, stage) in stages.enumerated() {
            guard stage.changeset.hasIDs else { return "stage \(number + 1) of \(changeset) has no ids" }
            var structure = stage.changeset
            structure.updatedRows = []
            structure.updatedRowIDs = []
            structure.updatedSections = []
            structure.updatedSectionIDs = []
            if let problem = idProblem(structure, turns: before, into: stage.snapshot) { return "stage \(number + 1) of \(changeset): \(problem)" }
            for (path, id) in zip(stage.changeset.updatedRows, stage.changeset.updatedRowIDs) {
                guard before.sections.indices.contains(path.section), before.sections[path.section].rows.indices.contains(path.row),
                    before[path].id == id
                else { return "stage \(number + 1) of \(changeset) reloads row \(path) as #\(id)" }
            }
            for (index, id) in zip(stage.changeset.updatedSections, stage.changeset.updatedSectionIDs) {
                guard before.sections.indices.contains(index), before.sections[index].id == id else {
                    return "stage \(number + 1) of \(changeset) reloads section \(index) as #\(id)"
                }
            }
            before = stage.snapshot
        }
    }
    return nil
}
