/// Keeps a table view showing a list: it holds the list the view's data source answers from,
/// follows the list through its update feed, and animates each change the way the view takes
/// it — batches (`ListTableView`), diffable snapshots (`DiffableListTableView`), or, for a view
/// without sections, blocks of updates on one run of rows (`FlatListTableView`).
///
/// It owns the catch-up that every view needs, in one place:
/// - it reads the changes since the version it shows and the list at exactly the version they
///   lead to (again when another commit came between the two reads);
/// - it checks the store's changeset against the list it read, and where there is none (plain
///   SQL changed the list, the journal no longer holds the versions) or it does not lead there,
///   diffs the list it shows against the new one by id and content, so that a row or header
///   another program changed is redrawn, and nothing is reloaded that a changeset can animate;
/// - it drops what changes nothing on screen: a deletion and an insertion of one id (a delete
///   and its undo composed), a rename and its rename back, a changeset with no entries — the
///   version still advances;
/// - it splits a change into the batches UIKit accepts (`Changeset.stages(from:to:)`), setting
///   the data source's list to each batch's, and sets the footers whose text changed.
///
/// The view's data source answers from the adapter (`snapshot`, `row(at:)`, `footer(ofSection:)`),
/// and a task runs `follow()`: the DocC article "Table view recipes" shows a classic, a diffable
/// and a reorder-mode view in a few lines each.
///
/// An editing view drives an edit session through it too (`beginEditing()`, `userMovedRow`,
/// `apply(_:)`, `save()`, `cancel()`).
///
/// It runs on the main actor, as a view does, and reads the store there (each read is one read
/// transaction of what the view shows; no write waits for it).
@MainActor
public final class ListViewAdapter {
    /// How the view takes a change.
    private enum Target {
        case batches(any ListTableView)
        case diffable(any DiffableListTableView)
        case flat(any FlatListTableView)
    }

    /// What the adapter has done, counted: for a view's diagnostics and for tests.
    public struct Counts: Hashable, Sendable {
        /// Changes animated (a batch view's stages count once per change).
        public var animated = 0
        /// Batches performed (`ListTableView.performBatch`).
        public var batches = 0
        /// Times the view was shown afresh without animation: a diffable view's first apply.
        public var reloads = 0
        /// Versions taken in with nothing to show: an empty changeset, or one that changed
        /// nothing visible (a rename and its rename back).
        public var silent = 0
        /// Changes shown by diffing the list shown against the new one: no changeset (plain
        /// SQL), or one that did not lead there or named more than the difference (no-ops).
        public var diffed = 0
    }

    /// The list followed.
    public let list: ListHandle
    /// Whether the view shows footers as an editing view does ("No Data" under an empty section).
    public let isEditing: Bool
    /// What the view shows: the list its data source answers from. Inside a batch it is the
    /// list after that batch, as `performBatchUpdates` asks. While an edit session is open it
    /// is the session's draft, whose version is the draft's (`ListVersion.isDraft`) and whose
    /// `draftOf` is the committed version the draft starts from.
    public private(set) var snapshot: ListSnapshot {
        didSet {
            rowsByID = nil
            flatLayoutCache = nil
        }
    }
    /// The edit session the view shows the draft of, between `beginEditing()` and `save()` or
    /// `cancel()`.
    public internal(set) var session: EditSession?
    /// What the adapter has done so far.
    public internal(set) var counts = Counts()

    private let target: Target
    private var rowsByID: [RowID: RowPath]?
    private var flatLayoutCache: FlatListLayout?

    /// Holds `list` at its current version for a table view that takes batches. The view's
    /// data source answers from this adapter (`snapshot`, `row(at:)`…): give it the adapter,
    /// then let the view lay out (or call `reloadData()`), which asks it for the list.
    /// - Throws: what reading the list throws (`RepositoryError.listNotFound`).
    public init(list: ListHandle, view: any ListTableView, editing: Bool = false) throws {
        self.list = list
        isEditing = editing
        target = .batches(view)
        snapshot = try list.snapshot(editing: editing)
    }

    /// Shows `list` in a diffable table view, at the list's current version, applied without
    /// animation. The view's cell provider reads rows from this adapter (`row(withID:)`).
    /// - Throws: what reading the list throws (`RepositoryError.listNotFound`).
    public init(list: ListHandle, diffableView view: any DiffableListTableView, editing: Bool = false) throws {
        self.list = list
        isEditing = editing
        target = .diffable(view)
        snapshot = try list.snapshot(editing: editing)
        view.apply(snapshot, reconfiguring: [], reloadingSections: [], animated: false)
        counts.reloads += 1
    }

    /// Holds `list` at its current version for a table view without sections (AppKit's
    /// `NSTableView`), which shows each section's header, rows and footer as one run of rows:
    /// its data source answers from this adapter (`flatRowCount`, `flatRow(at:)`), and each
    /// change is one block of updates on the run.
    /// - Throws: what reading the list throws (`RepositoryError.listNotFound`).
    public init(list: ListHandle, flatView view: any FlatListTableView, editing: Bool = false) throws {
        self.list = list
        isEditing = editing
        target = .flat(view)
        snapshot = try list.snapshot(editing: editing)
    }

    // MARK: - What a data source asks

    /// The number of sections shown.
    public var numberOfSections: Int { snapshot.sections.count }

    /// The number of rows shown in section `section`.
    public func numberOfRows(inSection section: Int) -> Int { snapshot.sections[section].rows.count }

    /// The row shown at `path`.
    public func row(at path: RowPath) -> Row { snapshot[path] }

    /// The title of section `section`, as its header shows it.
    public func title(ofSection section: Int) -> String { snapshot.sections[section].title }

    /// What the footer of section `section` says: "No Data" (or its empty text) under an empty
    /// section of an editing view, else nothing.
    public func footer(ofSection section: Int) -> String? { snapshot.footer(ofSection: section) }

    /// The row shown with id `id` (a diffable view's cell provider), or `nil`.
    /// - Complexity: O(1), after O(n) once per change.
    public func row(withID id: RowID) -> Row? {
        if rowsByID == nil {
            var paths: [RowID: RowPath] = [:]
            for (index, section) in snapshot.sections.enumerated() {
                for (row, item) in section.rows.enumerated() { paths[item.id] = RowPath(section: index, row: row) }
            }
            rowsByID = paths
        }
        return rowsByID?[id].map { snapshot[$0] }
    }

    /// The section shown with id `id` (a diffable view's header and footer), or `nil`.
    public func section(withID id: SectionID) -> Section? { snapshot.sections.first { $0.id == id } }

    /// What is shown laid out as one run of rows, for a view without sections: each section's
    /// header, its rows, and its footer when it shows one.
    /// - Complexity: O(1), after O(s) once per change.
    public var flatLayout: FlatListLayout {
        if let layout = flatLayoutCache { return layout }
        let layout = FlatListLayout(snapshot)
        flatLayoutCache = layout
        return layout
    }

    /// The number of rows a view without sections shows (`numberOfRows(in:)`): headers, rows
    /// and footers.
    public var flatRowCount: Int { flatLayout.count }

    /// What the row at `index` of a view without sections shows: a header (a group row), a row
    /// of the list, or a footer.
    /// - Complexity: O(log s).
    public func flatRow(at index: Int) -> FlatRow { flatLayout.row(at: index) }

    // MARK: - Following the list

    /// Brings the view to the list's current version: the changes since the version shown,
    /// then the list at exactly the version they lead to — again when another commit came
    /// between the two reads — animated. While an edit session is open, it rebases the session
    /// onto the list as it now is instead (`rebase()`), when the list has moved on.
    /// - Throws: what the reads throw (`RepositoryError.listNotFound` once the list is deleted).
    public func catchUp() throws {
        if let base = snapshot.draftOf {
            try rebaseIfListMoved(pastBase: base)
            return
        }
        while true {
            let changes = try list.changes(since: snapshot.version)
            guard changes.version != snapshot.version else { return }
            let new: ListSnapshot
            do {
                new = try list.snapshot(editing: isEditing, atVersion: changes.version)
            } catch RepositoryError.listMovedOn {
                continue
            }
            show(changes.changeset, leadingTo: new)
            return
        }
    }

    /// Follows the list until the task is cancelled or the list is deleted: `catchUp()` for each
    /// update past the version shown. `bufferLimit` 1 composes whatever came while the view
    /// animated into one change. Cancel it when the app goes to the background (its feed holds
    /// a thread and a connection), and start it again on return: the first catch-up takes in
    /// all that happened meanwhile.
    /// - Throws: what the feed and the reads throw.
    public func follow(bufferLimit: Int = 1) async throws {
        try catchUp()
        for try await update in list.updates(from: snapshot.version, bufferLimit: bufferLimit) {
            if update.isDeleted { return }
            try catchUp()
        }
    }

    // MARK: - Showing a change

    /// The changeset to animate from `old` to `new`: `given` when it has its ids, leads exactly
    /// there (order, ids and content) and names no more than the difference; else the
    /// difference itself, by id and content.
    static func fitting(_ given: Changeset?, from old: ListSnapshot, to new: ListSnapshot) -> (changeset: Changeset, diffed: Bool) {
        let difference = Changeset(from: old, to: new)
        guard let given, given.hasIDs, given.entryCount <= difference.entryCount,
            let applied = try? old.applying(given, contentFrom: new), applied.sections == new.sections
        else { return (difference, true) }
        return (given, false)
    }

    /// How `show` presents a change.
    enum Presentation {
        /// Animated from what is shown.
        case animated
        /// Already on screen (a user's drag): no batch and no animation; only the footers that
        /// changed are set, and a diffable view is given the ids unanimated. A view without
        /// sections moves nothing on a drop, so it is animated there.
        case alreadyShown
        /// The same list under other ids (a save's re-keying): shown as `alreadyShown`; a view
        /// without sections redraws the rows whose ids changed in place, outside any block of
        /// updates (its data source may hand out ids), and moves nothing.
        case rekeyed
    }

    /// Shows `new`, which `given` (if any) leads to from what is shown, as `presentation` says:
    /// silently when nothing visible changed.
    func show(_ given: Changeset?, leadingTo new: ListSnapshot, _ presentation: Presentation = .animated) {
        let old = snapshot
        switch (presentation, target) {
        case (.animated, _), (.alreadyShown, .flat):
            break
        case (.rekeyed, .flat(let view)):
            snapshot = new
            let rows = FlatChange.rekeyedRows(from: old, to: new)
            if !rows.isEmpty { view.reloadRows(rows) }
            return
        case (_, .batches(let view)):
            snapshot = new
            setFooters(Self.changedFooters(from: old, to: new, except: Changeset()), of: new, on: view)
            return
        case (_, .diffable(let view)):
            snapshot = new
            let footers = Self.changedFooters(from: old, to: new, except: Changeset())
            if !footers.isEmpty || !Self.haveSameIDs(old, new) {
                view.apply(new, reconfiguring: [], reloadingSections: footers, animated: false)
            }
            return
        }
        let (changeset, diffed) = Self.fitting(given, from: old, to: new)
        if diffed { counts.diffed += 1 }
        let footers = Self.changedFooters(from: old, to: new, except: changeset)
        snapshot = new
        if changeset.entryCount == 0 && footers.isEmpty {
            counts.silent += 1
            return
        }
        switch target {
        case .batches(let view):
            if changeset.entryCount > 0 {
                guard let stages = try? changeset.stages(from: old, to: new) else {
                    // Cannot happen for a changeset that fits; a reload keeps the view right.
                    view.reloadData()
                    counts.reloads += 1
                    return
                }
                snapshot = old
                counts.animated += 1
                for stage in stages {
                    counts.batches += 1
                    view.performBatch { [self] in
                        snapshot = stage.snapshot
                        Self.perform(stage.changeset, on: view)
                    }
                }
                snapshot = new
            }
            setFooters(footers, of: new, on: view)
        case .diffable(let view):
            // A diffable view follows ids across the whole list (a row out of a deleted section
            // keeps its cell), so what changed in place is found by id, not by the changeset.
            // Footers likewise: every section whose footer text differs, even one the changeset
            // lists as updated (a composed rename and rename back, whose content is as it was).
            let (rows, sections) = Self.changedContent(from: old, to: new)
            let footers = Self.changedFooters(from: old, to: new, except: Changeset()).filter { !sections.contains($0) }
            counts.animated += 1
            view.apply(new, reconfiguring: rows, reloadingSections: sections + footers, animated: true)
        case .flat(let view):
            // One run of rows, followed by id as a diffable view follows them: the changeset's
            // sections and stages mean nothing to it.
            let change = FlatChange(from: old, to: new)
            guard !change.isEmpty else {
                counts.silent += 1
                return
            }
            counts.animated += 1
            counts.batches += 1
            change.perform(on: view)
        }
    }

    /// The ids of the rows and sections in both `old` and `new` whose content (kind, title,
    /// value; title, empty text) differs, in `new`'s order.
    static func changedContent(from old: ListSnapshot, to new: ListSnapshot) -> (rows: [RowID], sections: [SectionID]) {
        var rowContent: [RowID: RowContent] = [:]
        var sectionContent: [SectionID: (String, String?)] = [:]
        for section in old.sections {
            sectionContent[section.id] = (section.title, section.emptyText)
            for row in section.rows { rowContent[row.id] = row.content }
        }
        var rows: [RowID] = []
        var sections: [SectionID] = []
        for section in new.sections {
            if let before = sectionContent[section.id], before != (section.title, section.emptyText) { sections.append(section.id) }
            for row in section.rows where rowContent[row.id].map({ $0 != row.content }) ?? false { rows.append(row.id) }
        }
        return (rows, sections)
    }

    /// Sets the footers of the sections `ids` of `list` (which is shown) on `view`.
    private func setFooters(_ ids: [SectionID], of list: ListSnapshot, on view: any ListTableView) {
        guard !ids.isEmpty else { return }
        let wanted = Set(ids)
        for (index, section) in list.sections.enumerated() where wanted.contains(section.id) {
            view.setFooter(list.footer(ofSection: index), forSection: index)
        }
    }

    /// Whether `a` and `b` hold the same sections and rows by id, in the same order.
    static func haveSameIDs(_ a: ListSnapshot, _ b: ListSnapshot) -> Bool {
        a.sections.count == b.sections.count
            && zip(a.sections, b.sections).allSatisfy { $0.id == $1.id && $0.rows.map(\.id) == $1.rows.map(\.id) }
    }

    /// One batch's calls, in the order `performBatchUpdates` documents no order for.
    private static func perform(_ batch: Changeset, on view: any ListTableView) {
        if !batch.deletedSections.isEmpty { view.deleteSections(batch.deletedSections) }
        if !batch.insertedSections.isEmpty { view.insertSections(batch.insertedSections) }
        for move in batch.movedSections { view.moveSection(move.from, toSection: move.to) }
        if !batch.updatedSections.isEmpty { view.reloadSections(batch.updatedSections) }
        if !batch.deletedRows.isEmpty { view.deleteRows(at: batch.deletedRows) }
        if !batch.insertedRows.isEmpty { view.insertRows(at: batch.insertedRows) }
        for move in batch.movedRows { view.moveRow(at: move.from, to: move.to) }
        if !batch.updatedRows.isEmpty { view.reconfigureRows(at: batch.updatedRows) }
    }

    /// The ids of the sections in both `old` and `new` whose footer text differs, except those
    /// `changeset` inserts or reloads (which come with their footers).
    static func changedFooters(from old: ListSnapshot, to new: ListSnapshot, except changeset: Changeset) -> [SectionID] {
        var before: [SectionID: String?] = [:]
        for index in old.sections.indices { before[old.sections[index].id] = old.footer(ofSection: index) }
        let skipped = Set(changeset.insertedSectionIDs + changeset.updatedSectionIDs)
        return new.sections.indices.compactMap { index in
            let id = new.sections[index].id
            guard !skipped.contains(id), let text = before[id], text != new.footer(ofSection: index) else { return nil }
            return id
        }
    }
}

extension Changeset {
    /// The number of entries it lists (sections and rows deleted, inserted, moved, updated),
    /// footers aside.
    var entryCount: Int {
        deletedSections.count + insertedSections.count + movedSections.count + updatedSections.count + deletedRows.count
            + insertedRows.count + movedRows.count + updatedRows.count
    }
}
