/// A table view that a `ListViewAdapter` drives by batches, as UIKit's `UITableView` and
/// AppKit's `NSTableView` animate: the few calls the adapter makes, in the list's own terms
/// (sections by index, rows by `RowPath`).
///
/// The adapter calls `performBatch` (`performBatchUpdates`) once per stage of a change (`ChangesetStage`), and
/// inside it sets the list its data source answers from (`ListViewAdapter.snapshot`) to the
/// list after that stage before it names what changed, so that every count and cell the view
/// asks for is the one after the batch. Deletions and reloads name old places, insertions and
/// moves' destinations new ones, as `performBatchUpdates` reads them. Footers are not part of a
/// batch: after the last one, the adapter sets the footers whose text changed.
///
/// A conformance only forwards each call to the platform's (`UITableView+ListTableView.swift`
/// does it for UIKit); its data source answers from the adapter's `snapshot`.
@MainActor
public protocol ListTableView: AnyObject {
    /// Shows the data source's list afresh, with no animation (`reloadData()`).
    func reloadData()
    /// Runs `updates` as one animated batch (`performBatchUpdates(_:completion:)`), which calls
    /// it before it returns.
    func performBatch(_ updates: @escaping () -> Void)
    /// Deletes sections at their old indexes.
    func deleteSections(_ sections: [Int])
    /// Inserts sections at their new indexes.
    func insertSections(_ sections: [Int])
    /// Moves a section from its old index to its new one.
    func moveSection(_ section: Int, toSection newSection: Int)
    /// Reloads sections whose title or empty text changed, at their old indexes.
    func reloadSections(_ sections: [Int])
    /// Deletes rows at their old paths.
    func deleteRows(at paths: [RowPath])
    /// Inserts rows at their new paths.
    func insertRows(at paths: [RowPath])
    /// Moves a row from its old path to its new one.
    func moveRow(at path: RowPath, to newPath: RowPath)
    /// Redraws the cells of rows whose content changed, in place, at their old paths
    /// (`reconfigureRows(at:)`: no fade, the cell is kept).
    func reconfigureRows(at paths: [RowPath])
    /// Sets the text of a section's footer, outside any batch (`nil`: no footer). Called after a
    /// change for each section whose footer text changed: an editing view's "No Data" appears
    /// under a section just emptied and goes from one just filled.
    func setFooter(_ text: String?, forSection section: Int)
}

/// A table view that a `ListViewAdapter` drives by whole snapshots of ids, as UIKit's
/// `UITableViewDiffableDataSource` and AppKit's `NSTableViewDiffableDataSource` do.
///
/// The view diffs ids alone, so the adapter also names what changed in place: the rows to
/// reconfigure and the sections (headers, footers) to reload. A conformance builds its
/// `NSDiffableDataSourceSnapshot<SectionID, RowID>` from `list` (sections by id, each with its
/// rows' ids), reconfigures and reloads what it is told, and applies it; its cell provider
/// reads the row from the adapter (`ListViewAdapter.row(withID:)`).
@MainActor
public protocol DiffableListTableView: AnyObject {
    /// Applies the ids of `list`, in its order; redraws the rows in `reconfiguring` and the
    /// sections in `reloadingSections` (their title, empty text or footer changed); animates
    /// unless `animated` is false (the first apply, and a save that re-keys draft ids, which
    /// must not show as a deletion and an insertion).
    func apply(_ list: ListSnapshot, reconfiguring rows: [RowID], reloadingSections sections: [SectionID], animated: Bool)
}
