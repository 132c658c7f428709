import Foundation
import Repository
import Testing

package enum ChangesetApplicationError: Error, CustomStringConvertible {
    case invalid(String)
    package var description: String {
        switch self {
        case .invalid(let text): return text
        }
    }
}

/// Applies `changeset` to `old` as `Changeset` documents its meaning — deletions at old paths,
/// then insertions and moves at new paths, moves all at once, updates at new paths — taking
/// inserted content and updated content from `new`. Throws when the changeset is inconsistent
/// (an index out of range, two things in one place, a row moved into an inserted section…).
/// This is the changeset's meaning, not one batch of UIKit's (which reads reloads at old paths):
/// how a table view applies it is `stagingProblem`'s check, under `performBatchUpdates(_:on:source:)`.
package func applying(_ changeset: Changeset, to old: ListSnapshot, contentFrom new: ListSnapshot) throws -> ListSnapshot {
    func fail(_ text: String) -> ChangesetApplicationError { .invalid(text) }
    let deletedSections = Set(changeset.deletedSections)
    let movedSectionSources = Set(changeset.movedSections.map(\.from))
    let insertedSections = Set(changeset.insertedSections)
    guard deletedSections.count == changeset.deletedSections.count,
        deletedSections.isDisjoint(with: movedSectionSources),
        deletedSections.union(movedSectionSources).allSatisfy({ old.sections.indices.contains($0) })
    else { throw fail("section deletions or move sources are repeated or out of range") }

    // Rows leaving their old sections: deleted, or moved (remember the moved rows).
    var removedRows: [Int: Set<Int>] = [:]
    var movedRowsByDestination: [RowPath: Row] = [:]
    for path in changeset.deletedRows + changeset.movedRows.map(\.from) {
        guard old.sections.indices.contains(path.section), old.sections[path.section].rows.indices.contains(path.row) else {
            throw fail("row \(path) is not in the old snapshot")
        }
        guard !deletedSections.contains(path.section) else { throw fail("row \(path) leaves a deleted section") }
        guard removedRows[path.section, default: []].insert(path.row).inserted else { throw fail("row \(path) leaves twice") }
    }
    for move in changeset.movedRows {
        movedRowsByDestination[move.to] = old[move.from]
    }

    // Sections after deletions: survivors keep their rows minus those that left.
    var remaining: [(oldIndex: Int, section: Section)] = []
    var movedSections: [Int: Section] = [:]
    for (index, section) in old.sections.enumerated() where !deletedSections.contains(index) {
        var trimmed = section
        trimmed.rows = section.rows.enumerated().filter { !(removedRows[index]?.contains($0.offset) ?? false) }.map(\.element)
        if movedSectionSources.contains(index) {
            movedSections[index] = trimmed
        } else {
            remaining.append((index, trimmed))
        }
    }

    // Insertions and moves of sections, at their new indexes; survivors fill the rest in order.
    let sectionCount = remaining.count + movedSections.count + insertedSections.count
    var placed = [Section?](repeating: nil, count: sectionCount)
    var insertedSet = Set<Int>()
    for index in changeset.insertedSections {
        guard index < sectionCount, placed[index] == nil, new.sections.indices.contains(index) else {
            throw fail("section insertion at \(index) is out of range or collides")
        }
        placed[index] = new.sections[index]
        insertedSet.insert(index)
    }
    for move in changeset.movedSections {
        guard move.to < sectionCount, placed[move.to] == nil, let section = movedSections[move.from] else {
            throw fail("section move \(move.from)→\(move.to) is out of range or collides")
        }
        placed[move.to] = section
    }
    var survivors = remaining.makeIterator()
    for index in placed.indices where placed[index] == nil {
        placed[index] = survivors.next()!.section
    }
    var sections = placed.map { $0! }

    // Row insertions and moves, per section, at their new indexes.
    var arrivals: [Int: [Int: Row]] = [:]
    for path in changeset.insertedRows {
        guard new.sections.indices.contains(path.section), new.sections[path.section].rows.indices.contains(path.row) else {
            throw fail("row insertion at \(path) is not in the new snapshot")
        }
        guard arrivals[path.section, default: [:]].updateValue(new[path], forKey: path.row) == nil else {
            throw fail("two rows arrive at \(path)")
        }
    }
    for (path, row) in movedRowsByDestination {
        guard arrivals[path.section, default: [:]].updateValue(row, forKey: path.row) == nil else {
            throw fail("two rows arrive at \(path)")
        }
    }
    for (sectionIndex, rows) in arrivals {
        guard sections.indices.contains(sectionIndex) else { throw fail("rows arrive in missing section \(sectionIndex)") }
        guard !insertedSet.contains(sectionIndex) else { throw fail("rows arrive in inserted section \(sectionIndex)") }
        let count = sections[sectionIndex].rows.count + rows.count
        var slots = [Row?](repeating: nil, count: count)
        for (index, row) in rows {
            guard index < count else { throw fail("row arrives at \(sectionIndex):\(index), past the end (\(count))") }
            slots[index] = row
        }
        var stayers = sections[sectionIndex].rows.makeIterator()
        for index in slots.indices where slots[index] == nil {
            slots[index] = stayers.next()!
        }
        sections[sectionIndex].rows = slots.map { $0! }
    }

    // Updates refresh content at new indexes.
    for index in changeset.updatedSections {
        guard sections.indices.contains(index), new.sections.indices.contains(index) else { throw fail("updated section \(index) out of range") }
        sections[index].title = new.sections[index].title
        sections[index].emptyText = new.sections[index].emptyText
    }
    for path in changeset.updatedRows {
        guard sections.indices.contains(path.section), sections[path.section].rows.indices.contains(path.row) else {
            throw fail("updated row \(path) out of range")
        }
        sections[path.section].rows[path.row].content = new[path].content
    }
    return ListSnapshot(name: new.name, version: new.version, isEditing: new.isEditing, sections: sections, listID: new.listID)
}

/// Why `changeset`'s footers are wrong for `old` → `new`, or `nil`: it must list every surviving
/// section whose editing-view footer changed — exactly those, or, for a composed changeset
/// (`exact: false`), possibly some whose footer changed and changed back — and no other index.
package func footerProblem(_ changeset: Changeset, turns old: ListSnapshot, into new: ListSnapshot, exact: Bool) -> String? {
    var needed: Set<Int> = []
    var surviving: Set<Int> = []
    let oldSections = Dictionary(old.sections.map { ($0.id, $0) }, uniquingKeysWith: { first, _ in first })
    for (index, section) in new.sections.enumerated() {
        guard let before = oldSections[section.id] else { continue }
        surviving.insert(index)
        if before.footer(editing: true) != section.footer(editing: true) { needed.insert(index) }
    }
    let listed = Set(changeset.changedFooters)
    if !needed.isSubset(of: listed) { return "footers \(changeset.changedFooters) miss \(needed.subtracting(listed).sorted())" }
    if !listed.isSubset(of: surviving) { return "footers \(changeset.changedFooters) name sections that are not surviving ones" }
    if exact && listed != needed { return "footers \(changeset.changedFooters) list more than \(needed.sorted())" }
    return nil
}

/// Expects that `changeset` turns `old` into `new` exactly, footers included, and that its stages
/// do so under UIKit's rules (`stagingProblem`).
package func expectChangeset(
    _ changeset: Changeset, turns old: ListSnapshot, into new: ListSnapshot, _ context: @autoclosure () -> String = "",
    exactFooters: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) {
    do {
        let result = try applying(changeset, to: old, contentFrom: new)
        #expect(result.sections == new.sections, "changeset \(changeset) does not turn old into new. \(context())", sourceLocation: sourceLocation)
        if let problem = footerProblem(changeset, turns: old, into: new, exact: exactFooters) {
            Issue.record("\(problem). \(context())", sourceLocation: sourceLocation)
        }
        if let problem = stagingProblem(changeset, turns: old, into: new) {
            Issue.record("\(problem). \(context())", sourceLocation: sourceLocation)
        }
    } catch {
        Issue.record("inconsistent changeset \(changeset): \(error). \(context())", sourceLocation: sourceLocation)
    }
}

/// Requires that `changeset` turns `old` into `new` exactly, footers included, and that its
/// stages do so under UIKit's rules (`stagingProblem`); stops the test otherwise.
package func requireChangeset(
    _ changeset: Changeset, turns old: ListSnapshot, into new: ListSnapshot, _ context: @autoclosure () -> String = "",
    exactFooters: Bool = true, sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let result: ListSnapshot
    do {
        result = try applying(changeset, to: old, contentFrom: new)
    } catch {
        Issue.record("inconsistent changeset \(changeset): \(error). \(context())", sourceLocation: sourceLocation)
        throw error
    }
    try #require(
        result.sections == new.sections, "changeset \(changeset) does not turn old into new. \(context())",
        sourceLocation: sourceLocation)
    let problem = footerProblem(changeset, turns: old, into: new, exact: exactFooters)
    try #require(problem == nil, "\(problem ?? ""). \(context())", sourceLocation: sourceLocation)
    // And as a table view applies it: stage by stage, under UIKit's rules.
    let staging = stagingProblem(changeset, turns: old, into: new)
    try #require(staging == nil, "\(staging ?? ""). \(context())", sourceLocation: sourceLocation)
}
