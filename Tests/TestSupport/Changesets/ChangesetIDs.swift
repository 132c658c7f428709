import Repository
import Testing

/// Why the ids of `changeset` are wrong for `old` → `new`, or `nil`: each id field must be as
/// long as its index field and name, entry by entry, the section or row the index names — in
/// `old` for deletions and where moves come from, in `new` for insertions, where moves go,
/// updates and changed footers.
package func idProblem(_ changeset: Changeset, turns old: ListSnapshot, into new: ListSnapshot) -> String? {
    guard changeset.hasIDs else { return "the changeset has no ids" }
    func section(_ snapshot: ListSnapshot, _ index: Int) -> SectionID? {
        snapshot.sections.indices.contains(index) ? snapshot.sections[index].id : nil
    }
    func row(_ snapshot: ListSnapshot, _ path: RowPath) -> RowID? {
        guard snapshot.sections.indices.contains(path.section), snapshot.sections[path.section].rows.indices.contains(path.row)
        else { return nil }
        return snapshot[path].id
    }
    func check<Entry, ID: Equatable>(_ what: String, _ entries: [Entry], _ ids: [ID], _ found: (Entry) -> [ID?]) -> String? {
        for (entry, id) in zip(entries, ids) where found(entry).contains(where: { $0 != id }) {
            return "\(what) \(entry) names #\(id), not \(found(entry).map { $0.map { "#\($0)" } ?? "nothing" })"
        }
        return nil
    }
    return check("deleted section", changeset.deletedSections, changeset.deletedSectionIDs) { [section(old, $0)] }
        ?? check("inserted section", changeset.insertedSections, changeset.insertedSectionIDs) { [section(new, $0)] }
        ?? check("moved section", changeset.movedSections, changeset.movedSectionIDs) { [section(old, $0.from), section(new, $0.to)] }
        ?? check("updated section", changeset.updatedSections, changeset.updatedSectionIDs) { [section(new, $0)] }
        ?? check("deleted row", changeset.deletedRows, changeset.deletedRowIDs) { [row(old, $0)] }
        ?? check("inserted row", changeset.insertedRows, changeset.insertedRowIDs) { [row(new, $0)] }
        ?? check("moved row", changeset.movedRows, changeset.movedRowIDs) { [row(old, $0.from), row(new, $0.to)] }
        ?? check("updated row", changeset.updatedRows, changeset.updatedRowIDs) { [row(new, $0)] }
        ?? check("changed footer", changeset.changedFooters, changeset.changedFooterIDs) { [section(new, $0)] }
}

/// Requires that the ids of `changeset` name exactly what its indexes refer to in `old` and
/// `new` (`idProblem`), and that `old.applying(changeset, contentFrom: new)` is `new` (its
/// sections and rows, version and name); stops the test otherwise.
package func requireIDs(
    _ changeset: Changeset, turn old: ListSnapshot, into new: ListSnapshot, _ context: @autoclosure () -> String = "",
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let problem = idProblem(changeset, turns: old, into: new)
    try #require(problem == nil, "\(problem ?? ""): \(changeset). \(context())", sourceLocation: sourceLocation)
    let applied: ListSnapshot
    do {
        applied = try old.applying(changeset, contentFrom: new)
    } catch {
        Issue.record("applying \(changeset) failed: \(error). \(context())", sourceLocation: sourceLocation)
        throw error
    }
    try #require(
        applied.sections == new.sections && applied.version == new.version && applied.name == new.name,
        "applying \(changeset) does not give the new snapshot. \(context())", sourceLocation: sourceLocation)
}
