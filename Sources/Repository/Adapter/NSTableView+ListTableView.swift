// AppKit's table views, driven by a `ListViewAdapter`: each call forwarded to AppKit's own, and
// nothing else. An `NSTableView` has no sections: the adapter lays each section's header, rows
// and footer out as one run of rows (`FlatListLayout`, `FlatChange`, platform-neutral and tested
// on Linux), and this file only passes the calls on. It compiles only where AppKit is (macOS;
// not Mac Catalyst, which has UIKit's face); the project's CI runs on Linux and cannot compile
// it. The same calls are made on the tests' stand-in `NSTableView` (`Tests/TestSupport/Fakes/`),
// whose conformance a test compares with this one line by line.
#if canImport(AppKit) && !targetEnvironment(macCatalyst)
    import AppKit

    /// An `NSTableView` takes the adapter's blocks of updates with fading rows; its own
    /// `reloadData()`, `beginUpdates()`, `endUpdates()` and `moveRow(at:to:)` are the rest.
    extension NSTableView: FlatListTableView {
        public func removeRows(_ rows: [Int]) { removeRows(at: IndexSet(rows), withAnimation: .effectFade) }
        public func insertRows(_ rows: [Int]) { insertRows(at: IndexSet(rows), withAnimation: .effectFade) }
        public func reloadRows(_ rows: [Int]) { reloadData(forRowIndexes: IndexSet(rows), columnIndexes: IndexSet(integersIn: 0..<numberOfColumns)) }
    }

    /// A diffable data source keyed by the store's ids applies the adapter's lists (its section
    /// headers come from its `sectionHeaderViewProvider`; it draws no footers).
    extension NSTableViewDiffableDataSource: DiffableListTableView where SectionIdentifierType == SectionID, ItemIdentifierType == RowID {
        public func apply(_ list: ListSnapshot, reconfiguring rows: [RowID], reloadingSections sections: [SectionID], animated: Bool) {
            var snapshot = NSDiffableDataSourceSnapshot<SectionID, RowID>()
            snapshot.appendSections(list.sections.map(\.id))
            for section in list.sections { snapshot.appendItems(section.rows.map(\.id), toSection: section.id) }
            snapshot.reconfigureItems(rows)
            snapshot.reloadSections(sections)
            apply(snapshot, animatingDifferences: animated)
        }
    }
#endif
