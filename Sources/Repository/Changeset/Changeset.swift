/// What changed between two snapshots of a list, in the terms of UIKit's
/// `performBatchUpdates`: deletions at old indexes, insertions at new ones, moves from old to
/// new, and updates (content changed) at new indexes.
///
/// Rows inside an inserted or deleted section are not listed, and no row moves out of a
/// deleted section or into an inserted one. Applying a changeset to the old snapshot — deletions
/// first, in descending old order, then insertions and moves in ascending new order, moves all
/// at once — gives the new snapshot. Every array is sorted in list order.
///
/// ## Ids
///
/// Every entry also names the id of the section or row it is about, for views that follow
/// identity rather than index paths (`NSDiffableDataSourceSnapshot`, SwiftUI's `ForEach`). The
/// ids sit in fields of their own, each parallel to the index field of the same name:
/// `deletedRowIDs[i]` is the id of the row at `deletedRows[i]` (in the old snapshot),
/// `movedRowIDs[i]` the id of the row that `movedRows[i]` moves, `insertedRowIDs[i]` and
/// `updatedRowIDs[i]` the ids of the rows at `insertedRows[i]` and `updatedRows[i]` (in the new
/// snapshot); sections likewise. The index fields keep their meaning, and a view that follows
/// index paths ignores the ids. `changedFooterIDs[i]` is the id of the section whose footer
/// `changedFooters[i]` names. Equality compares the ids too.
///
/// Parallel fields rather than ids inside the entries, so that each kind of change is one
/// array of ids a diffable snapshot takes whole (`deleteItems(changeset.deletedRowIDs)`,
/// `reconfigureItems(changeset.updatedRowIDs)`), with the index beside it for placing inserted
/// and moved items.
///
/// Every changeset the store makes has its ids — edits, sessions (draft ids, negative, until
/// saved; the saved changeset names the stored ids), undo and redo, imports, deleting a list,
/// composing (`ListHandle.changes(since:)`) and inverting. One read back from an older journal entry,
/// written before changesets had ids — or composed from one, or the undo of one — has all of
/// them empty: `hasIDs` says which.
public struct Changeset: Hashable, Sendable {
    /// A move from an old place to a new one.
    public struct Move<Place: Hashable & Sendable & Comparable>: Hashable, Sendable {
        /// The place before the change.
        public var from: Place
        /// The place after the change.
        public var to: Place

        /// Creates a move.
        public init(from: Place, to: Place) {
            self.from = from
            self.to = to
        }
    }

    /// Old indexes of deleted sections.
    public var deletedSections: [Int] = []
    /// New indexes of inserted sections.
    public var insertedSections: [Int] = []
    /// Sections moved from an old index to a new one.
    public var movedSections: [Move<Int>] = []
    /// New indexes of sections whose title or empty text changed.
    public var updatedSections: [Int] = []
    /// Old paths of deleted rows.
    public var deletedRows: [RowPath] = []
    /// New paths of inserted rows.
    public var insertedRows: [RowPath] = []
    /// Rows moved from an old path to a new one.
    public var movedRows: [Move<RowPath>] = []
    /// New paths of rows whose kind, title or value changed.
    public var updatedRows: [RowPath] = []
    /// New indexes of surviving sections whose editing-view footer appeared, disappeared or
    /// changed text: a section emptied or filled, or an empty one whose empty text changed. A
    /// view that is not editing ignores them; an editing one refreshes those footers after the
    /// batch. (A composed changeset may also list a section whose footer changed and changed back.)
    public var changedFooters: [Int] = []

    /// Ids of the deleted sections, parallel to `deletedSections`.
    public var deletedSectionIDs: [SectionID] = []
    /// Ids of the inserted sections, parallel to `insertedSections`.
    public var insertedSectionIDs: [SectionID] = []
    /// Ids of the moved sections, parallel to `movedSections`.
    public var movedSectionIDs: [SectionID] = []
    /// Ids of the updated sections, parallel to `updatedSections`.
    public var updatedSectionIDs: [SectionID] = []
    /// Ids of the deleted rows, parallel to `deletedRows`.
    public var deletedRowIDs: [RowID] = []
    /// Ids of the inserted rows, parallel to `insertedRows` (rows of inserted sections are not
    /// listed, as in `insertedRows`).
    public var insertedRowIDs: [RowID] = []
    /// Ids of the moved rows, parallel to `movedRows`.
    public var movedRowIDs: [RowID] = []
    /// Ids of the updated rows, parallel to `updatedRows`.
    public var updatedRowIDs: [RowID] = []
    /// Ids of the sections whose footer changed, parallel to `changedFooters`: what a diffable
    /// view reloads (`reloadSections(changeset.changedFooterIDs)`).
    public var changedFooterIDs: [SectionID] = []

    /// An empty changeset.
    public init() {}

    /// Whether nothing changed.
    public var isEmpty: Bool {
        deletedSections.isEmpty && insertedSections.isEmpty && movedSections.isEmpty && updatedSections.isEmpty
            && deletedRows.isEmpty && insertedRows.isEmpty && movedRows.isEmpty && updatedRows.isEmpty && changedFooters.isEmpty
    }

    /// Whether every id field is as long as its index field, so that the ids name every entry.
    /// True for every changeset the store makes (and for an empty one); false for one read from
    /// a journal entry written before changesets had ids, or built by hand without them.
    public var hasIDs: Bool {
        deletedSectionIDs.count == deletedSections.count && insertedSectionIDs.count == insertedSections.count
            && movedSectionIDs.count == movedSections.count && updatedSectionIDs.count == updatedSections.count
            && deletedRowIDs.count == deletedRows.count && insertedRowIDs.count == insertedRows.count
            && movedRowIDs.count == movedRows.count && updatedRowIDs.count == updatedRows.count
            && changedFooterIDs.count == changedFooters.count
    }

    /// The same changeset without ids (every id field empty): to compare the places alone.
    public var withoutIDs: Changeset {
        var copy = self
        copy.clearIDs()
        return copy
    }

    /// Empties every id field.
    mutating func clearIDs() {
        deletedSectionIDs = []
        insertedSectionIDs = []
        movedSectionIDs = []
        updatedSectionIDs = []
        deletedRowIDs = []
        insertedRowIDs = []
        movedRowIDs = []
        updatedRowIDs = []
        changedFooterIDs = []
    }

    /// The changeset with every id found in `map` replaced by the id it maps to (an edit
    /// session's draft ids by the stored ones, at save).
    func mappingIDs(_ map: [Int64: Int64]) -> Changeset {
        guard !map.isEmpty else { return self }
        var copy = self
        func mapped(_ ids: [RowID]) -> [RowID] { ids.map { RowID(map[$0.rawValue] ?? $0.rawValue) } }
        func mapped(_ ids: [SectionID]) -> [SectionID] { ids.map { SectionID(map[$0.rawValue] ?? $0.rawValue) } }
        copy.deletedSectionIDs = mapped(deletedSectionIDs)
        copy.insertedSectionIDs = mapped(insertedSectionIDs)
        copy.movedSectionIDs = mapped(movedSectionIDs)
        copy.updatedSectionIDs = mapped(updatedSectionIDs)
        copy.deletedRowIDs = mapped(deletedRowIDs)
        copy.insertedRowIDs = mapped(insertedRowIDs)
        copy.movedRowIDs = mapped(movedRowIDs)
        copy.updatedRowIDs = mapped(updatedRowIDs)
        copy.changedFooterIDs = mapped(changedFooterIDs)
        return copy
    }

    /// The changeset that turns `old` into `new`, matching sections and rows by id.
    ///
    /// Moves are kept few: among the items that stay in one container, those on a longest
    /// increasing run of old indexes stay put and only the others are reported as moved.
    /// Footers are compared as an editing view shows them.
    ///
    /// Use it when all you have is two snapshots (a view that reloaded, a test); a store's changes
    /// come with their changesets already (`Change`, `ListHandle.changes(since:)`, `ListHandle.updates(from:bufferLimit:)`).
    /// - Complexity: O(n log n) in the rows and sections of both snapshots.
    public init(from old: ListSnapshot, to new: ListSnapshot) {
        var oldSectionIndex: [SectionID: Int] = [:]
        for (index, section) in old.sections.enumerated() { oldSectionIndex[section.id] = index }
        var newSectionIndex: [SectionID: Int] = [:]
        for (index, section) in new.sections.enumerated() { newSectionIndex[section.id] = index }

        // Sections.
        deletedSections = old.sections.indices.filter { newSectionIndex[old.sections[$0].id] == nil }
        deletedSectionIDs = deletedSections.map { old.sections[$0].id }
        var survivingOldIndexes: [Int] = []  // in new order
        for (newIndex, section) in new.sections.enumerated() {
            if let oldIndex = oldSectionIndex[section.id] {
                survivingOldIndexes.append(oldIndex)
                let before = old.sections[oldIndex]
                if before.title != section.title || before.emptyText != section.emptyText {
                    updatedSections.append(newIndex)
                    updatedSectionIDs.append(section.id)
                }
                if before.footer(editing: true) != section.footer(editing: true) {
                    changedFooters.append(newIndex)
                    changedFooterIDs.append(section.id)
                }
            } else {
                insertedSections.append(newIndex)
                insertedSectionIDs.append(section.id)
            }
        }
        let staying = Set(longestIncreasingSubsequence(survivingOldIndexes))
        for (newIndex, section) in new.sections.enumerated() {
            if let oldIndex = oldSectionIndex[section.id], !staying.contains(oldIndex) {
                movedSections.append(Move(from: oldIndex, to: newIndex))
                movedSectionIDs.append(section.id)
            }
        }

        // Rows: where each row was, by id.
        var oldRowPlace: [RowID: (path: RowPath, content: RowContent)] = [:]
        for (sectionIndex, section) in old.sections.enumerated() {
            for (rowIndex, row) in section.rows.enumerated() {
                oldRowPlace[row.id] = (RowPath(section: sectionIndex, row: rowIndex), row.content)
            }
        }
        let survivingNewSections = Set(new.sections.indices.filter { oldSectionIndex[new.sections[$0].id] != nil })
        var seenRows: Set<RowID> = []
        for (newSection, section) in new.sections.enumerated() where survivingNewSections.contains(newSection) {
            let oldSection = oldSectionIndex[section.id]!
            // Rows that stay in this section, in new order, with their old row indexes.
            var stayers: [(newRow: Int, oldRow: Int)] = []
            for (newRow, row) in section.rows.enumerated() {
                let newPath = RowPath(section: newSection, row: newRow)
                seenRows.insert(row.id)
                guard let before = oldRowPlace[row.id], newSectionIndex[old.sections[before.path.section].id] != nil
                else {
                    insertedRows.append(newPath)  // new, or out of a deleted section
                    insertedRowIDs.append(row.id)
                    continue
                }
                if before.content != row.content {
                    updatedRows.append(newPath)
                    updatedRowIDs.append(row.id)
                }
                if before.path.section == oldSection {
                    stayers.append((newRow, before.path.row))
                } else {
                    movedRows.append(Move(from: before.path, to: newPath))
                    movedRowIDs.append(row.id)
                }
            }
            let kept = Set(longestIncreasingSubsequence(stayers.map(\.oldRow)))
            for stayer in stayers where !kept.contains(stayer.oldRow) {
                movedRows.append(
                    Move(from: RowPath(section: oldSection, row: stayer.oldRow), to: RowPath(section: newSection, row: stayer.newRow)))
                movedRowIDs.append(section.rows[stayer.newRow].id)
            }
        }
        // Rows that left a surviving section for nowhere (deleted) or for an inserted section.
        for (oldSection, section) in old.sections.enumerated() where newSectionIndex[section.id] != nil {
            for (oldRow, row) in section.rows.enumerated() where !seenRows.contains(row.id) {
                deletedRows.append(RowPath(section: oldSection, row: oldRow))
                deletedRowIDs.append(row.id)
            }
        }
        sortEntries()
    }

    /// Puts every array in list order, each id field along with its index field.
    mutating func sortEntries() {
        sortAlong(&deletedSections, &deletedSectionIDs, by: <)
        sortAlong(&insertedSections, &insertedSectionIDs, by: <)
        sortAlong(&movedSections, &movedSectionIDs) { $0.to < $1.to }
        sortAlong(&updatedSections, &updatedSectionIDs, by: <)
        sortAlong(&deletedRows, &deletedRowIDs, by: <)
        sortAlong(&insertedRows, &insertedRowIDs, by: <)
        sortAlong(&movedRows, &movedRowIDs) { $0.to < $1.to }
        sortAlong(&updatedRows, &updatedRowIDs, by: <)
        sortAlong(&changedFooters, &changedFooterIDs, by: <)
    }

    /// Notes the footer changes of one edit, from the sections it touched: each with its index
    /// after the edit, its id, its row count and empty text before and after.
    mutating func noteFooters(
        _ touched: [(index: Int, id: SectionID, countBefore: Int, countAfter: Int, textBefore: String?, textAfter: String?)]
    ) {
        for section in touched {
            let before = section.countBefore == 0 ? (section.textBefore ?? Section.defaultEmptyText) : nil
            let after = section.countAfter == 0 ? (section.textAfter ?? Section.defaultEmptyText) : nil
            if before != after && !changedFooters.contains(section.index) {
                changedFooters.append(section.index)
                changedFooterIDs.append(section.id)
            }
        }
        sortAlong(&changedFooters, &changedFooterIDs, by: <)
    }
}

/// Sorts `entries` by `areInIncreasingOrder`, and `ids` with them when it is parallel to them
/// (as long); otherwise leaves `ids` as it is.
func sortAlong<Entry, ID>(_ entries: inout [Entry], _ ids: inout [ID], by areInIncreasingOrder: (Entry, Entry) -> Bool) {
    guard ids.count == entries.count else {
        entries.sort(by: areInIncreasingOrder)
        return
    }
    let order = entries.indices.sorted { areInIncreasingOrder(entries[$0], entries[$1]) }
    entries = order.map { entries[$0] }
    ids = order.map { ids[$0] }
}

/// The values of one longest strictly increasing subsequence of `values` (patience sorting,
/// O(n log n)).
func longestIncreasingSubsequence(_ values: [Int]) -> [Int] {
    guard !values.isEmpty else { return [] }
    var tails: [Int] = []  // indexes into values: tails[k] ends the best run of length k+1
    var previous = [Int](repeating: -1, count: values.count)
    for (index, value) in values.enumerated() {
        var low = 0
        var high = tails.count
        while low < high {
            let middle = (low + high) / 2
            if values[tails[middle]] < value { low = middle + 1 } else { high = middle }
        }
        if low > 0 { previous[index] = tails[low - 1] }
        if low == tails.count { tails.append(index) } else { tails[low] = index }
    }
    var result: [Int] = []
    var index = tails.last!
    while index >= 0 {
        result.append(values[index])
        index = previous[index]
    }
    return result.reversed()
}
