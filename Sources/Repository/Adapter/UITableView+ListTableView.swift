// UIKit's table views, driven by a `ListViewAdapter`: each call forwarded to UIKit's own, and
// nothing else. This file compiles only where UIKit is (iOS, iPadOS, Mac Catalyst, visionOS);
// the project's CI runs on Linux and cannot compile it. The same calls are made, under UIKit's
// rules, on the tests' stand-in table views (`Tests/TestSupport/Fakes/`).
#if canImport(UIKit)
    import UIKit

    /// A `UITableView` animates the adapter's batches with `.automatic` animations.
    extension UITableView: ListTableView {
        public func performBatch(_ updates: @escaping () -> Void) { performBatchUpdates(updates) }
        public func deleteSections(_ sections: [Int]) { deleteSections(IndexSet(sections), with: .automatic) }
        public func insertSections(_ sections: [Int]) { insertSections(IndexSet(sections), with: .automatic) }
        public func reloadSections(_ sections: [Int]) { reloadSections(IndexSet(sections), with: .automatic) }
        public func deleteRows(at paths: [RowPath]) { deleteRows(at: paths.map(IndexPath.init), with: .automatic) }
        public func insertRows(at paths: [RowPath]) { insertRows(at: paths.map(IndexPath.init), with: .automatic) }
        public func moveRow(at path: RowPath, to newPath: RowPath) { moveRow(at: IndexPath(path), to: IndexPath(newPath)) }
        public func reconfigureRows(at paths: [RowPath]) { reconfigureRows(at: paths.map(IndexPath.init)) }
        public func setFooter(_ text: String?, forSection section: Int) { footerView(forSection: section)?.textLabel?.text = text }
    }

    /// A diffable data source keyed by the store's ids applies the adapter's lists.
    extension UITableViewDiffableDataSource: DiffableListTableView where SectionIdentifierType == SectionID, ItemIdentifierType == RowID {
        public func apply(_ list: ListSnapshot, reconfiguring rows: [RowID], reloadingSections sections: [SectionID], animated: Bool) {
            var snapshot = NSDiffableDataSourceSnapshot<SectionID, RowID>()
            snapshot.appendSections(list.sections.map(\.id))
            for section in list.sections { snapshot.appendItems(section.rows.map(\.id), toSection: section.id) }
            snapshot.reconfigureItems(rows)
            snapshot.reloadSections(sections)
            apply(snapshot, animatingDifferences: animated)
        }
    }

    extension IndexPath {
        /// The index path of a list's row path.
        init(_ path: RowPath) { self.init(row: path.row, section: path.section) }
    }
#endif
