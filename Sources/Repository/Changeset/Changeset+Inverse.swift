extension Changeset {
    /// The changeset that takes the new snapshot back to the old one: insertions and deletions
    /// trade places, moves run backwards, and updates are listed at their old paths. The ids go
    /// with their entries (an inserted row's id becomes a deleted row's); a changeset without ids
    /// gives one without ids.
    /// - Complexity: O(c log c) in the number of entries.
    public func inverted() -> Changeset {
        var inverse = Changeset()
        inverse.deletedSections = insertedSections
        inverse.insertedSections = deletedSections
        inverse.movedSections = movedSections.map { Move(from: $0.to, to: $0.from) }
        inverse.deletedRows = insertedRows
        inverse.insertedRows = deletedRows
        inverse.movedRows = movedRows.map { Move(from: $0.to, to: $0.from) }

        let sections = SectionIndexMap(self)
        inverse.updatedSections = updatedSections.map { sections.oldIndex(ofNew: $0) }
        inverse.changedFooters = changedFooters.map { sections.oldIndex(ofNew: $0) }
        let rows = RowPathMap(self, sections: sections)
        inverse.updatedRows = updatedRows.map { rows.oldPath(ofNew: $0) }

        if hasIDs {
            inverse.deletedSectionIDs = insertedSectionIDs
            inverse.insertedSectionIDs = deletedSectionIDs
            inverse.movedSectionIDs = movedSectionIDs
            inverse.updatedSectionIDs = updatedSectionIDs
            inverse.deletedRowIDs = insertedRowIDs
            inverse.insertedRowIDs = deletedRowIDs
            inverse.movedRowIDs = movedRowIDs
            inverse.updatedRowIDs = updatedRowIDs
            inverse.changedFooterIDs = changedFooterIDs
        }
        inverse.sortEntries()
        return inverse
    }
}

/// The k-th item that a changeset leaves in place, found from either side: in the old order, the
/// items not deleted or moved away; in the new order, the places not taken by an insertion or a
/// move. Such items keep their relative order, so the k-th on one side is the k-th on the other.
private func untouchedRank(of index: Int, skipping taken: [Int]) -> Int {
    index - taken.count { $0 < index }
}

private func index(ofUntouchedRank rank: Int, skipping removed: [Int]) -> Int {
    // The smallest index i not in `removed` with exactly `rank` such indexes before it.
    var index = rank
    for removed in removed.sorted() where removed <= index { index += 1 }
    return index
}

/// Maps sections' indexes through a changeset, new to old and old to new.
struct SectionIndexMap {
    let moves: [Int: Int]  // new → old
    let taken: [Int]  // new indexes of inserted and moved-in sections
    let removed: [Int]  // old indexes of deleted and moved-out sections

    init(_ changeset: Changeset) {
        moves = Dictionary(changeset.movedSections.map { ($0.to, $0.from) }, uniquingKeysWith: { first, _ in first })
        taken = changeset.insertedSections + changeset.movedSections.map(\.to)
        removed = changeset.deletedSections + changeset.movedSections.map(\.from)
    }

    /// The new index of the section at `old`, or `nil` when it was deleted.
    func newIndex(ofOld old: Int) -> Int? {
        if let moved = moves.first(where: { $0.value == old })?.key { return moved }
        if removed.contains(old) { return nil }
        return index(ofUntouchedRank: untouchedRank(of: old, skipping: removed), skipping: taken)
    }

    /// The old index of the section at `new`, which must not be an inserted one.
    func oldIndex(ofNew new: Int) -> Int {
        if let moved = moves[new] { return moved }
        return index(ofUntouchedRank: untouchedRank(of: new, skipping: taken), skipping: removed)
    }
}

/// Maps rows' new paths to old ones through a changeset.
private struct RowPathMap {
    let sections: SectionIndexMap
    let moves: [RowPath: RowPath]  // new → old
    let taken: [Int: [Int]]  // new section → new rows taken by insertions and moves in
    let removed: [Int: [Int]]  // old section → old rows removed by deletions and moves out

    init(_ changeset: Changeset, sections: SectionIndexMap) {
        self.sections = sections
        moves = Dictionary(changeset.movedRows.map { ($0.to, $0.from) }, uniquingKeysWith: { first, _ in first })
        var taken: [Int: [Int]] = [:]
        for path in changeset.insertedRows + changeset.movedRows.map(\.to) { taken[path.section, default: []].append(path.row) }
        var removed: [Int: [Int]] = [:]
        for path in changeset.deletedRows + changeset.movedRows.map(\.from) { removed[path.section, default: []].append(path.row) }
        self.taken = taken
        self.removed = removed
    }

    /// The old path of the row at `new`, which must not be an inserted one (nor in an inserted
    /// section).
    func oldPath(ofNew new: RowPath) -> RowPath {
        if let moved = moves[new] { return moved }
        let oldSection = sections.oldIndex(ofNew: new.section)
        let rank = untouchedRank(of: new.row, skipping: taken[new.section] ?? [])
        return RowPath(section: oldSection, row: index(ofUntouchedRank: rank, skipping: removed[oldSection] ?? []))
    }
}
