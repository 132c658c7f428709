/// Staging: a changeset as the batches `UITableView.performBatchUpdates` accepts, one after
/// another, each with the list it leads to.

/// One batch of a staged changeset, and the list it leads to (`Changeset.stages(from:to:)`).
///
/// Inside `performBatchUpdates` a data source swaps its backing list to `snapshot` and passes
/// `changeset` to the table view; UIKit then asks the data source for counts and cells of
/// `snapshot`, which agree with the view's own after the batch.
public struct ChangesetStage: Hashable, Sendable {
    /// The batch, as UIKit reads one: deletions and reloads (`deletedSections`, `deletedRows`,
    /// `updatedSections`, `updatedRows`) at the indexes before the stage, insertions at the
    /// indexes after it, moves from before to after. `changedFooters`, in the last stage only, are
    /// indexes after it.
    public var changeset: Changeset
    /// The list after this stage: what the data source answers from inside this stage's batch.
    /// The last stage's is the new snapshot; every stage's has its name, version, editing state
    /// and list id.
    public var snapshot: ListSnapshot

    /// Creates a stage.
    public init(changeset: Changeset, snapshot: ListSnapshot) {
        self.changeset = changeset
        self.snapshot = snapshot
    }
}

extension Changeset {
    /// The changeset as batches that `UITableView.performBatchUpdates` accepts as they are, one
    /// after another. In each batch, as UIKit reads it, deletions and reloads (`deletedSections`,
    /// `deletedRows`, `updatedSections`, `updatedRows`) are indexes before the batch, insertions
    /// indexes after it, and moves go from before to after.
    ///
    /// One batch when UIKit reads that batch in one way only and gets it right: then it is this
    /// changeset with its updates moved to their old indexes. UIKit cannot reload an item that
    /// moves in the same batch, nor a section whose rows change in it; rows moving while
    /// sections move leave it unclear which section a row's index refers to; and UIKit's section
    /// map and reload arithmetic go wrong when moved sections come with anything but inserted
    /// sections, reloaded sections with any section inserted, deleted or moved, or reloaded rows
    /// with sections inserted or moved. A changeset with any of these is split into up to four
    /// batches, empty ones left out, none of which mixes them:
    ///
    /// 1. section and row deletions, and row reloads (at the rows' old paths);
    /// 2. section insertions and section moves;
    /// 3. row insertions and row moves;
    /// 4. section reloads.
    ///
    /// No batch moves a row out of a section it deletes or into one it inserts (a changeset has
    /// none: such rows are deleted or inserted with their section). `changedFooters` goes with
    /// the last batch: an editing view refreshes those footers after it. When the changeset has
    /// ids (`hasIDs`), so does every batch, each id beside its entry.
    ///
    /// Inside each batch UIKit asks the data source for the counts and cells after that batch,
    /// not after the last one. A data source that holds its list in memory uses
    /// `stages(from:to:)`, which gives each batch with the list it leads to. One that reads only
    /// the store, which holds the final list alone, can animate a changeset of one stage and
    /// reloads for more.
    /// - Complexity: O(c log c) in the entries of the changeset.
    public var stages: [Changeset] {
        let indexes = StagingIndexes(self)
        let hasIDs = self.hasIDs
        // Updates of inserted items need no reload: an insertion shows their content. Each
        // reload keeps its id beside it (when the changeset has ids) as it moves to its old place.
        let rowReloads = updatedRows.indices.compactMap { entry -> (new: RowPath, old: RowPath, id: RowID?)? in
            indexes.oldPath(ofNew: updatedRows[entry]).map { (updatedRows[entry], $0, hasIDs ? updatedRowIDs[entry] : nil) }
        }.sorted { $0.old < $1.old }
        let sectionReloads = updatedSections.indices.compactMap { entry -> (new: Int, old: Int, id: SectionID?)? in
            indexes.oldSection(ofNew: updatedSections[entry]).map { (updatedSections[entry], $0, hasIDs ? updatedSectionIDs[entry] : nil) }
        }
        let rowsToReload = rowReloads.map(\.new)
        let sectionsToReload = sectionReloads.map(\.new)

        var batch = self
        batch.updatedRows = rowReloads.map(\.old)
        batch.updatedRowIDs = rowReloads.compactMap(\.id)
        let sectionsByOld = sectionReloads.sorted { $0.old < $1.old }
        batch.updatedSections = sectionsByOld.map(\.old)
        batch.updatedSectionIDs = sectionsByOld.compactMap(\.id)
        if indexes.isUnambiguousInOneBatch(reloadingRows: rowsToReload, sections: sectionsToReload) {
            return batch.isEmpty ? [] : [batch]
        }

        var removals = Changeset()
        removals.deletedSections = deletedSections
        removals.deletedRows = deletedRows
        removals.updatedRows = batch.updatedRows
        var sectionArrivals = Changeset()
        sectionArrivals.insertedSections = insertedSections
        sectionArrivals.movedSections = movedSections.map { move in
            Move(from: move.from - StagingIndexes.count(below: move.from, in: indexes.deletedSections), to: move.to)
        }
        var rowArrivals = Changeset()
        rowArrivals.insertedRows = insertedRows
        rowArrivals.movedRows = movedRows.map { move in
            let deletedBefore = StagingIndexes.count(below: move.from.row, in: indexes.deletedRows[move.from.section] ?? [])
            let section = indexes.newSection(ofOld: move.from.section) ?? move.from.section
            return Move(from: RowPath(section: section, row: move.from.row - deletedBefore), to: move.to)
        }
        var reloads = Changeset()
        reloads.updatedSections = sectionsToReload
        if hasIDs {
            // Each stage names the ids of what it touches, as the whole changeset does.
            removals.deletedSectionIDs = deletedSectionIDs
            removals.deletedRowIDs = deletedRowIDs
            removals.updatedRowIDs = batch.updatedRowIDs
            sectionArrivals.insertedSectionIDs = insertedSectionIDs
            sectionArrivals.movedSectionIDs = movedSectionIDs
            rowArrivals.insertedRowIDs = insertedRowIDs
            rowArrivals.movedRowIDs = movedRowIDs
            reloads.updatedSectionIDs = sectionReloads.compactMap(\.id)
        }

        var result = [removals, sectionArrivals, rowArrivals, reloads].filter { !$0.isEmpty }
        if !changedFooters.isEmpty {
            if result.isEmpty { result.append(Changeset()) }
            result[result.count - 1].changedFooters = changedFooters
            if hasIDs { result[result.count - 1].changedFooterIDs = changedFooterIDs }
        }
        return result
    }

    /// The changeset as the batches of `stages`, each with the list it leads to: inside
    /// `performBatchUpdates`, a data source swaps its list to the stage's `snapshot` and applies
    /// the stage's `changeset` to the table view.
    ///
    /// `old` and `new` are the snapshots this changeset leads from and to: the stages' snapshots
    /// take inserted and updated content from `new`, and the last one is `new`.
    /// - Throws: `RepositoryError.changesetDoesNotFit` when this changeset does not turn `old` into
    ///   `new` (an index out of range, or a different list at the end): the view should reload.
    /// - Complexity: O(n · k) for n sections and rows and k stages (at most four), plus O(c log c)
    ///   in the entries of the changeset.
    public func stages(from old: ListSnapshot, to new: ListSnapshot) throws -> [ChangesetStage] {
        var newSections: [SectionID: Section] = [:]
        var newRows: [RowID: RowContent] = [:]
        for section in new.sections {
            newSections[section.id] = section
            for row in section.rows { newRows[row.id] = row.content }
        }
        var current = old
        current.name = new.name
        current.version = new.version
        current.isEditing = new.isEditing
        current.listID = new.listID
        var result: [ChangesetStage] = []
        for (number, batch) in stages.enumerated() {
            do {
                current.sections = try applyingBatch(batch, to: current.sections, new: new, newSections: newSections, newRows: newRows)
            } catch {
                throw RepositoryError.changesetDoesNotFit("stage \(number + 1): \(error.text)")
            }
            result.append(ChangesetStage(changeset: batch, snapshot: current))
        }
        guard current.sections == new.sections else {
            throw RepositoryError.changesetDoesNotFit("its stages do not turn the old snapshot into the new one")
        }
        return result
    }
}

/// Why a batch does not fit the list it is applied to.
private struct BatchMismatch: Error {
    var text: String
}

/// `sections` after one batch as UIKit reads it (reloads and deletions at indexes before it,
/// insertions and moves' destinations after it), taking inserted sections and rows from `new`
/// at their indexes and reloaded content from `new` by id.
private func applyingBatch(
    _ batch: Changeset, to sections: [Section], new: ListSnapshot, newSections: [SectionID: Section], newRows: [RowID: RowContent]
) throws(BatchMismatch) -> [Section] {
    var sections = sections
    for index in batch.updatedSections {
        guard sections.indices.contains(index), let fresh = newSections[sections[index].id] else {
            throw BatchMismatch(text: "section \(index) cannot be reloaded")
        }
        sections[index].title = fresh.title
        sections[index].emptyText = fresh.emptyText
    }
    for path in batch.updatedRows {
        guard sections.indices.contains(path.section), sections[path.section].rows.indices.contains(path.row),
            let fresh = newRows[sections[path.section].rows[path.row].id]
        else { throw BatchMismatch(text: "row \(path) cannot be reloaded") }
        sections[path.section].rows[path.row].content = fresh
    }

    // What leaves: sections deleted or moved, rows deleted or moved.
    var leavingSections: Set<Int> = []
    for index in batch.deletedSections + batch.movedSections.map(\.from) {
        guard sections.indices.contains(index), leavingSections.insert(index).inserted else {
            throw BatchMismatch(text: "section \(index) is out of range or leaves twice")
        }
    }
    var leavingRows: [Int: Set<Int>] = [:]
    for path in batch.deletedRows + batch.movedRows.map(\.from) {
        guard sections.indices.contains(path.section), sections[path.section].rows.indices.contains(path.row),
            leavingRows[path.section, default: []].insert(path.row).inserted
        else { throw BatchMismatch(text: "row \(path) is out of range or leaves twice") }
    }
    let movingRows = batch.movedRows.map { (to: $0.to, row: sections[$0.from.section].rows[$0.from.row]) }
    for (index, leaving) in leavingRows {
        sections[index].rows = sections[index].rows.enumerated().filter { !leaving.contains($0.offset) }.map(\.element)
    }

    // Sections arrive at their new indexes; the others keep their order around them.
    let count = sections.count - batch.deletedSections.count + batch.insertedSections.count
    var placed = [Section?](repeating: nil, count: max(count, 0))
    for index in batch.insertedSections {
        guard placed.indices.contains(index), placed[index] == nil, new.sections.indices.contains(index) else {
            throw BatchMismatch(text: "section insertion at \(index) is out of range or collides")
        }
        placed[index] = new.sections[index]
    }
    for move in batch.movedSections {
        guard placed.indices.contains(move.to), placed[move.to] == nil else {
            throw BatchMismatch(text: "section move to \(move.to) is out of range or collides")
        }
        placed[move.to] = sections[move.from]
    }
    var stayers = sections.indices.lazy.filter { !leavingSections.contains($0) }.map { sections[$0] }.makeIterator()
    for index in placed.indices where placed[index] == nil {
        guard let section = stayers.next() else { throw BatchMismatch(text: "too few sections") }
        placed[index] = section
    }
    var result = placed.map { $0! }

    // Rows arrive at their new paths; the others keep their order around them.
    var arrivals: [Int: [Int: Row]] = [:]
    for path in batch.insertedRows {
        guard new.sections.indices.contains(path.section), new.sections[path.section].rows.indices.contains(path.row),
            arrivals[path.section, default: [:]].updateValue(new[path], forKey: path.row) == nil
        else { throw BatchMismatch(text: "row insertion at \(path) is out of range or collides") }
    }
    for moving in movingRows {
        guard arrivals[moving.to.section, default: [:]].updateValue(moving.row, forKey: moving.to.row) == nil else {
            throw BatchMismatch(text: "two rows arrive at \(moving.to)")
        }
    }
    for (index, rows) in arrivals {
        guard result.indices.contains(index) else { throw BatchMismatch(text: "rows arrive in missing section \(index)") }
        var slots = [Row?](repeating: nil, count: result[index].rows.count + rows.count)
        for (row, arriving) in rows {
            guard slots.indices.contains(row) else { throw BatchMismatch(text: "row arrives at \(index):\(row), past the end") }
            slots[row] = arriving
        }
        var staying = result[index].rows.makeIterator()
        for row in slots.indices where slots[row] == nil { slots[row] = staying.next() }
        result[index].rows = slots.map { $0! }
    }
    return result
}

/// Where the items of a changeset were and go, from its entries alone: old and new indexes of
/// the sections and rows that stay in place.
private struct StagingIndexes {
    let deletedSections: [Int]
    /// Old indexes of sections that leave their place (deleted or moved), sorted.
    let sectionDepartures: [Int]
    /// New indexes of sections that arrive (inserted or moved), sorted.
    let sectionArrivals: [Int]
    let insertedSections: Set<Int>
    let deletedSectionSet: Set<Int>
    let sectionMoveTo: [Int: Int]
    let sectionMoveFrom: [Int: Int]
    /// Per old section, the sorted old rows deleted.
    let deletedRows: [Int: [Int]]
    /// Per old section, the sorted old rows that leave (deleted or moved).
    let rowDepartures: [Int: [Int]]
    /// Per new section, the sorted new rows that arrive (inserted or moved).
    let rowArrivals: [Int: [Int]]
    let insertedRows: Set<RowPath>
    let rowMoveFrom: [RowPath: RowPath]
    let changeset: Changeset

    init(_ changeset: Changeset) {
        self.changeset = changeset
        deletedSections = changeset.deletedSections.sorted()
        deletedSectionSet = Set(changeset.deletedSections)
        insertedSections = Set(changeset.insertedSections)
        sectionDepartures = (changeset.deletedSections + changeset.movedSections.map(\.from)).sorted()
        sectionArrivals = (changeset.insertedSections + changeset.movedSections.map(\.to)).sorted()
        sectionMoveTo = Dictionary(changeset.movedSections.map { ($0.from, $0.to) }, uniquingKeysWith: { first, _ in first })
        sectionMoveFrom = Dictionary(changeset.movedSections.map { ($0.to, $0.from) }, uniquingKeysWith: { first, _ in first })
        func grouped(_ paths: [RowPath]) -> [Int: [Int]] {
            Dictionary(grouping: paths, by: \.section).mapValues { $0.map(\.row).sorted() }
        }
        deletedRows = grouped(changeset.deletedRows)
        rowDepartures = grouped(changeset.deletedRows + changeset.movedRows.map(\.from))
        rowArrivals = grouped(changeset.insertedRows + changeset.movedRows.map(\.to))
        insertedRows = Set(changeset.insertedRows)
        rowMoveFrom = Dictionary(changeset.movedRows.map { ($0.to, $0.from) }, uniquingKeysWith: { first, _ in first })
    }

    /// How many of the sorted `values` are below `value`.
    static func count(below value: Int, in sorted: [Int]) -> Int {
        var low = 0
        var high = sorted.count
        while low < high {
            let middle = (low + high) / 2
            if sorted[middle] < value { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The `k`th (from 0) non-negative integer missing from the sorted, distinct `taken`.
    static func nthFree(_ k: Int, skipping taken: [Int]) -> Int {
        // taken[i] - i never decreases; every taken value at or below the answer shifts it by one.
        var low = 0
        var high = taken.count
        while low < high {
            let middle = (low + high) / 2
            if taken[middle] - middle <= k { low = middle + 1 } else { high = middle }
        }
        return k + low
    }

    /// The old index of the section at new index `index`, or nil for an inserted one.
    func oldSection(ofNew index: Int) -> Int? {
        if let from = sectionMoveFrom[index] { return from }
        if insertedSections.contains(index) { return nil }
        return Self.nthFree(index - Self.count(below: index, in: sectionArrivals), skipping: sectionDepartures)
    }

    /// The new index of the section at old index `index`, or nil for a deleted one.
    func newSection(ofOld index: Int) -> Int? {
        if let to = sectionMoveTo[index] { return to }
        if deletedSectionSet.contains(index) { return nil }
        return Self.nthFree(index - Self.count(below: index, in: sectionDepartures), skipping: sectionArrivals)
    }

    /// The old path of the row at new path `path`, or nil for an inserted one (or one of an
    /// inserted section).
    func oldPath(ofNew path: RowPath) -> RowPath? {
        if let from = rowMoveFrom[path] { return from }
        if insertedRows.contains(path) { return nil }
        guard let section = oldSection(ofNew: path.section) else { return nil }
        let staying = path.row - Self.count(below: path.row, in: rowArrivals[path.section] ?? [])
        return RowPath(section: section, row: Self.nthFree(staying, skipping: rowDepartures[section] ?? []))
    }

    /// Whether the whole changeset, its updates at their old indexes, is one batch that UIKit
    /// reads in one way only, and gets right. Sections that move go with inserted sections alone
    /// (moving rows too, it is unclear which section a row's index refers to; other changes
    /// upset UIKit's section map). No reloaded row moves, and no section is inserted or moved
    /// alongside row reloads. A reloaded section has no rows of its own changed, and no section
    /// is inserted, deleted or moved alongside it (UIKit reloads by deleting and inserting).
    func isUnambiguousInOneBatch(reloadingRows rows: [RowPath], sections: [Int]) -> Bool {
        if !changeset.movedSections.isEmpty {
            return changeset.deletedSections.isEmpty && sections.isEmpty && rows.isEmpty && changeset.deletedRows.isEmpty
                && changeset.insertedRows.isEmpty && changeset.movedRows.isEmpty
        }
        if !rows.isEmpty {
            guard changeset.insertedSections.isEmpty else { return false }
            for path in rows where rowMoveFrom[path] != nil { return false }
        }
        if !sections.isEmpty {
            guard changeset.insertedSections.isEmpty && changeset.deletedSections.isEmpty else { return false }
            let reloadedRowSections = Set(rows.map(\.section))
            for index in sections {
                guard let old = oldSection(ofNew: index) else { return false }
                if rowDepartures[old] != nil || rowArrivals[index] != nil || reloadedRowSections.contains(index) { return false }
            }
        }
        return true
    }
}
