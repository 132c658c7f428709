/// Applying a changeset to a snapshot: a view that keeps the list it shows as a `ListSnapshot`
/// follows the store's changes without reading the list again.
extension ListSnapshot {
    /// The snapshot `changeset` turns this one into, by the changeset's ids.
    ///
    /// A changeset says where things go and which they are (its ids), not what they say: the
    /// content of inserted and updated sections and rows comes from `section` and `row`, asked
    /// by id — and only for those, so a view asks the store for just what changed. (A changeset
    /// carrying content would make every journal entry as big as what it inserted, and could
    /// not be inverted or composed without the content it replaced.)
    ///
    /// Deletions come first, at old indexes, then insertions and moves at new indexes, in
    /// ascending order, then updates; as `performBatchUpdates` applies the changeset.
    ///
    /// - Parameters:
    ///   - changeset: a changeset from this snapshot's state, with its ids (`hasIDs`).
    ///   - version: the version of the result (for a store's change: `Change.version`).
    ///   - section: the section with this id, asked for each inserted section (taken whole, its
    ///     rows included: a changeset does not list them) and each updated one (only its title
    ///     and empty text are taken).
    ///   - row: the content of the row with this id, asked for each inserted and updated row.
    /// - Throws: `RepositoryError.changesetDoesNotFit` when the changeset has no ids, names a
    ///   place outside this snapshot or the result, names at an old place an id that is not the
    ///   one there, puts two things in one place, or would leave an id twice in the list;
    ///   whatever `section` and `row` throw.
    /// - Complexity: O(n + c log c) for n sections and rows, c entries of the changeset (plus
    ///   the rows of inserted sections).
    public func applying(
        _ changeset: Changeset, version: ListVersion, section: (_ id: SectionID) throws -> Section, row: (_ id: RowID) throws -> RowContent
    ) throws -> ListSnapshot {
        func misfit(_ detail: String) -> RepositoryError { .changesetDoesNotFit(detail) }
        guard changeset.hasIDs else {
            throw misfit("it has no ids (it was journaled before changesets had them); read the list afresh")
        }

        // What leaves, checked against the old snapshot: the ids must be those at the places.
        let deletedSections = Set(changeset.deletedSections)
        var leavingSections: [Int: SectionID] = [:]  // old index → id
        for (index, id) in zip(
            changeset.deletedSections + changeset.movedSections.map(\.from), changeset.deletedSectionIDs + changeset.movedSectionIDs)
        {
            guard sections.indices.contains(index) else { throw misfit("section \(index) is not in the old snapshot") }
            guard sections[index].id == id else { throw misfit("section \(index) is #\(sections[index].id), not #\(id)") }
            guard leavingSections.updateValue(id, forKey: index) == nil else { throw misfit("section \(index) leaves twice") }
        }
        var leavingRows: [Int: Set<Int>] = [:]  // old section → old rows
        var movingRows: [RowID: Row] = [:]
        for (path, id) in zip(changeset.deletedRows + changeset.movedRows.map(\.from), changeset.deletedRowIDs + changeset.movedRowIDs) {
            guard sections.indices.contains(path.section), sections[path.section].rows.indices.contains(path.row) else {
                throw misfit("row \(path) is not in the old snapshot")
            }
            guard self[path].id == id else { throw misfit("row \(path) is #\(self[path].id), not #\(id)") }
            guard !deletedSections.contains(path.section) else { throw misfit("row \(path) leaves a deleted section") }
            guard leavingRows[path.section, default: []].insert(path.row).inserted else { throw misfit("row \(path) leaves twice") }
        }
        for (move, id) in zip(changeset.movedRows, changeset.movedRowIDs) { movingRows[id] = self[move.from] }

        // Sections after what left: the ones staying, in order, and the moving ones by id.
        var staying: [Section] = []
        var movingSections: [SectionID: Section] = [:]
        for (index, old) in sections.enumerated() where !deletedSections.contains(index) {
            var kept = old
            if let gone = leavingRows[index] {
                kept.rows = old.rows.indices.filter { !gone.contains($0) }.map { old.rows[$0] }
            }
            if leavingSections[index] != nil { movingSections[kept.id] = kept } else { staying.append(kept) }
        }

        // Sections arriving, at their new indexes; the staying ones fill the rest in order.
        let count = staying.count + movingSections.count + changeset.insertedSections.count
        var placed = [Section?](repeating: nil, count: count)
        var inserted: Set<Int> = []
        func place(_ section: Section, at index: Int) throws {
            guard index >= 0 && index < count else { throw misfit("section \(index) is past the new snapshot's \(count) sections") }
            guard placed[index] == nil else { throw misfit("two sections arrive at \(index)") }
            placed[index] = section
        }
        for (index, id) in zip(changeset.insertedSections, changeset.insertedSectionIDs) {
            var fresh = try section(id)
            fresh.id = id
            try place(fresh, at: index)
            inserted.insert(index)
        }
        for (move, id) in zip(changeset.movedSections, changeset.movedSectionIDs) {
            try place(movingSections[id]!, at: move.to)
        }
        var stayers = staying.makeIterator()
        var result = self
        result.version = version
        result.sections = placed.map { $0 ?? stayers.next()! }

        // Rows arriving, per section, at their new indexes.
        var arrivals: [Int: [Int: Row]] = [:]
        for (path, id) in zip(changeset.insertedRows, changeset.insertedRowIDs) {
            guard arrivals[path.section, default: [:]].updateValue(Row(id: id, content: try row(id)), forKey: path.row) == nil else {
                throw misfit("two rows arrive at \(path)")
            }
        }
        for (move, id) in zip(changeset.movedRows, changeset.movedRowIDs) {
            guard arrivals[move.to.section, default: [:]].updateValue(movingRows[id]!, forKey: move.to.row) == nil else {
                throw misfit("two rows arrive at \(move.to)")
            }
        }
        for (index, rows) in arrivals.sorted(by: { $0.key < $1.key }) {
            guard result.sections.indices.contains(index) else { throw misfit("rows arrive in section \(index), past the new snapshot's") }
            guard !inserted.contains(index) else { throw misfit("rows arrive in section \(index), which is inserted with its rows") }
            let total = result.sections[index].rows.count + rows.count
            var slots = [Row?](repeating: nil, count: total)
            for (rowIndex, arriving) in rows {
                guard rowIndex >= 0 && rowIndex < total else { throw misfit("row \(index):\(rowIndex) is past the section's \(total) rows") }
                slots[rowIndex] = arriving
            }
            var stayingRows = result.sections[index].rows.makeIterator()
            result.sections[index].rows = slots.map { $0 ?? stayingRows.next()! }
        }

        // Updates, at new indexes, checked by id.
        for (index, id) in zip(changeset.updatedSections, changeset.updatedSectionIDs) {
            guard result.sections.indices.contains(index), result.sections[index].id == id else {
                throw misfit("updated section #\(id) is not at \(index) in the new snapshot")
            }
            let fresh = try section(id)
            result.sections[index].title = fresh.title
            result.sections[index].emptyText = fresh.emptyText
        }
        for (path, id) in zip(changeset.updatedRows, changeset.updatedRowIDs) {
            guard result.sections.indices.contains(path.section), result.sections[path.section].rows.indices.contains(path.row),
                result[path].id == id
            else { throw misfit("updated row #\(id) is not at \(path) in the new snapshot") }
            result.sections[path.section].rows[path.row].content = try row(id)
        }

        // An id inserted where it already was.
        var sectionIDs: Set<SectionID> = []
        var rowIDs: Set<RowID> = []
        for section in result.sections {
            guard sectionIDs.insert(section.id).inserted else { throw misfit("section #\(section.id) would be in the list twice") }
            for row in section.rows where !rowIDs.insert(row.id).inserted {
                throw misfit("row #\(row.id) would be in the list twice")
            }
        }
        return result
    }

    /// The snapshot `changeset` turns this one into, with the content of inserted and updated
    /// sections and rows, the version and the name taken from `content`, by id: for a view
    /// that has the new state at hand (an edit session's draft, a test), or to check a
    /// changeset — `old.applying(change, contentFrom: new) == new` holds exactly when the
    /// changeset, ids included, turns `old` into `new`'s order.
    /// - Throws: `RepositoryError.changesetDoesNotFit` as `applying(_:version:section:row:)`
    ///   does, and when `content` has no section or row of an id the changeset inserts or
    ///   updates.
    /// - Complexity: O(n + m + c log c), n and m the sections and rows of both snapshots.
    public func applying(_ changeset: Changeset, contentFrom content: ListSnapshot) throws -> ListSnapshot {
        var sectionsByID: [SectionID: Section] = [:]
        var rowsByID: [RowID: RowContent] = [:]
        for section in content.sections {
            sectionsByID[section.id] = section
            for row in section.rows { rowsByID[row.id] = row.content }
        }
        var result = try applying(
            changeset, version: content.version,
            section: { id in
                guard let found = sectionsByID[id] else { throw RepositoryError.changesetDoesNotFit("no section #\(id) to take content from") }
                return found
            },
            row: { id in
                guard let found = rowsByID[id] else { throw RepositoryError.changesetDoesNotFit("no row #\(id) to take content from") }
                return found
            })
        result.name = content.name
        return result
    }
}
