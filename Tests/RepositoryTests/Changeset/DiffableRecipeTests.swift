import Foundation
import Repository
import TestSupport
import Testing

// MARK: - A model of UIKit's diffable data source

/// A model of UIKit's `NSDiffableDataSourceSnapshot`, with its rules: identifiers are unique in
/// the whole snapshot (sections among sections, items among items), and an identifier a call
/// names as already there (to delete, move, reload, or go next to) must be there. Where UIKit
/// raises, the model records the violation and does nothing.
struct NSDiffableDataSourceSnapshot<SectionIdentifierType: Hashable, ItemIdentifierType: Hashable> {
    private(set) var sectionIdentifiers: [SectionIdentifierType] = []
    private var items: [SectionIdentifierType: [ItemIdentifierType]] = [:]
    private var sectionOfItem: [ItemIdentifierType: SectionIdentifierType] = [:]
    /// What UIKit would have raised on, in order.
    private(set) var violations: [String] = []
    /// The items reconfigured and the sections reloaded, in order.
    private(set) var reconfiguredItemIdentifiers: [ItemIdentifierType] = []
    private(set) var reloadedSectionIdentifiers: [SectionIdentifierType] = []

    var numberOfSections: Int { sectionIdentifiers.count }
    var itemIdentifiers: [ItemIdentifierType] { sectionIdentifiers.flatMap { items[$0]! } }

    func itemIdentifiers(inSection identifier: SectionIdentifierType) -> [ItemIdentifierType] {
        items[identifier] ?? []
    }

    func sectionIdentifier(containingItem identifier: ItemIdentifierType) -> SectionIdentifierType? {
        sectionOfItem[identifier]
    }

    private mutating func violation(_ text: String) {
        violations.append(text)
    }

    /// Whether `identifiers` are new: none there already, none twice.
    private mutating func areNewSections(_ identifiers: [SectionIdentifierType]) -> Bool {
        guard Set(identifiers).count == identifiers.count, identifiers.allSatisfy({ items[$0] == nil }) else {
            violation("sections \(identifiers) are not new and unique")
            return false
        }
        return true
    }

    private mutating func areNewItems(_ identifiers: [ItemIdentifierType]) -> Bool {
        guard Set(identifiers).count == identifiers.count, identifiers.allSatisfy({ sectionOfItem[$0] == nil }) else {
            violation("items \(identifiers) are not new and unique")
            return false
        }
        return true
    }

    mutating func appendSections(_ identifiers: [SectionIdentifierType]) {
        guard areNewSections(identifiers) else { return }
        sectionIdentifiers += identifiers
        for identifier in identifiers { items[identifier] = [] }
    }

    mutating func insertSections(_ identifiers: [SectionIdentifierType], beforeSection other: SectionIdentifierType) {
        insertSections(identifiers, next: other, after: false)
    }

    mutating func insertSections(_ identifiers: [SectionIdentifierType], afterSection other: SectionIdentifierType) {
        insertSections(identifiers, next: other, after: true)
    }

    private mutating func insertSections(_ identifiers: [SectionIdentifierType], next other: SectionIdentifierType, after: Bool) {
        guard let index = sectionIdentifiers.firstIndex(of: other) else { return violation("section \(other) is not there") }
        guard areNewSections(identifiers) else { return }
        sectionIdentifiers.insert(contentsOf: identifiers, at: after ? index + 1 : index)
        for identifier in identifiers { items[identifier] = [] }
    }

    mutating func deleteSections(_ identifiers: [SectionIdentifierType]) {
        for identifier in identifiers {
            guard let gone = items.removeValue(forKey: identifier) else {
                violation("section \(identifier) is not there")
                continue
            }
            for item in gone { sectionOfItem[item] = nil }
            sectionIdentifiers.removeAll { $0 == identifier }
        }
    }

    mutating func moveSection(_ identifier: SectionIdentifierType, beforeSection other: SectionIdentifierType) {
        moveSection(identifier, next: other, after: false)
    }

    mutating func moveSection(_ identifier: SectionIdentifierType, afterSection other: SectionIdentifierType) {
        moveSection(identifier, next: other, after: true)
    }

    private mutating func moveSection(_ identifier: SectionIdentifierType, next other: SectionIdentifierType, after: Bool) {
        guard identifier != other, items[identifier] != nil, items[other] != nil else {
            return violation("cannot move section \(identifier) next to \(other)")
        }
        sectionIdentifiers.removeAll { $0 == identifier }
        let index = sectionIdentifiers.firstIndex(of: other)!
        sectionIdentifiers.insert(identifier, at: after ? index + 1 : index)
    }

    mutating func reloadSections(_ identifiers: [SectionIdentifierType]) {
        for identifier in identifiers {
            guard items[identifier] != nil else {
                violation("section \(identifier) is not there to reload")
                continue
            }
            reloadedSectionIdentifiers.append(identifier)
        }
    }

    mutating func appendItems(_ identifiers: [ItemIdentifierType], toSection section: SectionIdentifierType? = nil) {
        guard let section = section ?? sectionIdentifiers.last, items[section] != nil else {
            return violation("no section \(String(describing: section)) to append items to")
        }
        guard areNewItems(identifiers) else { return }
        items[section]! += identifiers
        for identifier in identifiers { sectionOfItem[identifier] = section }
    }

    mutating func insertItems(_ identifiers: [ItemIdentifierType], beforeItem other: ItemIdentifierType) {
        insertItems(identifiers, next: other, after: false)
    }

    mutating func insertItems(_ identifiers: [ItemIdentifierType], afterItem other: ItemIdentifierType) {
        insertItems(identifiers, next: other, after: true)
    }

    private mutating func insertItems(_ identifiers: [ItemIdentifierType], next other: ItemIdentifierType, after: Bool) {
        guard let section = sectionOfItem[other] else { return violation("item \(other) is not there") }
        guard areNewItems(identifiers) else { return }
        let index = items[section]!.firstIndex(of: other)!
        items[section]!.insert(contentsOf: identifiers, at: after ? index + 1 : index)
        for identifier in identifiers { sectionOfItem[identifier] = section }
    }

    mutating func deleteItems(_ identifiers: [ItemIdentifierType]) {
        for identifier in identifiers {
            guard let section = sectionOfItem.removeValue(forKey: identifier) else {
                violation("item \(identifier) is not there to delete")
                continue
            }
            items[section]!.removeAll { $0 == identifier }
        }
    }

    mutating func moveItem(_ identifier: ItemIdentifierType, beforeItem other: ItemIdentifierType) {
        moveItem(identifier, next: other, after: false)
    }

    mutating func moveItem(_ identifier: ItemIdentifierType, afterItem other: ItemIdentifierType) {
        moveItem(identifier, next: other, after: true)
    }

    private mutating func moveItem(_ identifier: ItemIdentifierType, next other: ItemIdentifierType, after: Bool) {
        guard identifier != other, let from = sectionOfItem[identifier], let to = sectionOfItem[other] else {
            return violation("cannot move item \(identifier) next to \(other)")
        }
        items[from]!.removeAll { $0 == identifier }
        let index = items[to]!.firstIndex(of: other)!
        items[to]!.insert(identifier, at: after ? index + 1 : index)
        sectionOfItem[identifier] = to
    }

    mutating func reconfigureItems(_ identifiers: [ItemIdentifierType]) {
        for identifier in identifiers {
            guard sectionOfItem[identifier] != nil else {
                violation("item \(identifier) is not there to reconfigure")
                continue
            }
            reconfiguredItemIdentifiers.append(identifier)
        }
    }
}

/// A model of `UITableViewDiffableDataSource`: it holds the snapshot last applied.
final class DiffableDataSource {
    private var current = NSDiffableDataSourceSnapshot<SectionID, RowID>()
    private(set) var applied = 0

    func snapshot() -> NSDiffableDataSourceSnapshot<SectionID, RowID> { current }

    func apply(_ snapshot: NSDiffableDataSourceSnapshot<SectionID, RowID>, animatingDifferences: Bool = true) {
        current = snapshot
        applied += 1
    }
}

// MARK: - The recipe, as TableViewRecipes.md shows it

// README diffable recipe begins
/// Brings a diffable snapshot keyed by the store's ids from one version of a list to the next,
/// by the changeset's ids, without reading the list again: only the rows of sections the change
/// inserted are asked for.
func apply(
    _ changeset: Changeset, to snapshot: inout NSDiffableDataSourceSnapshot<SectionID, RowID>,
    rowIDs: (_ section: SectionID) throws -> [RowID]
) rethrows {
    // What leaves; a deleted section's rows go with it.
    snapshot.deleteItems(changeset.deletedRowIDs)
    snapshot.deleteSections(changeset.deletedSectionIDs)

    // Sections that arrive, in ascending new index: each goes next to its neighbour in the new
    // order, counting neither itself nor the moved sections not placed yet.
    var waiting = Set(changeset.movedSectionIDs)
    let sections =
        zip(changeset.insertedSections, changeset.insertedSectionIDs).map { (index: $0, id: $1, moved: false) }
        + zip(changeset.movedSections.map(\.to), changeset.movedSectionIDs).map { (index: $0, id: $1, moved: true) }
    for arrival in sections.sorted(by: { $0.index < $1.index }) {
        waiting.remove(arrival.id)
        let placed = snapshot.sectionIdentifiers.filter { $0 != arrival.id && !waiting.contains($0) }
        let before = arrival.index > 0 ? placed[arrival.index - 1] : nil
        if arrival.moved {
            if let before {
                snapshot.moveSection(arrival.id, afterSection: before)
            } else if let first = placed.first {
                snapshot.moveSection(arrival.id, beforeSection: first)
            }
        } else {
            if let before {
                snapshot.insertSections([arrival.id], afterSection: before)
            } else if let first = placed.first {
                snapshot.insertSections([arrival.id], beforeSection: first)
            } else {
                snapshot.appendSections([arrival.id])
            }
            snapshot.appendItems(try rowIDs(arrival.id), toSection: arrival.id)  // a changeset does not list them
        }
    }

    // Rows that arrive, in ascending new path, likewise.
    var waitingRows = Set(changeset.movedRowIDs)
    let rows =
        zip(changeset.insertedRows, changeset.insertedRowIDs).map { (path: $0, id: $1, moved: false) }
        + zip(changeset.movedRows.map(\.to), changeset.movedRowIDs).map { (path: $0, id: $1, moved: true) }
    for arrival in rows.sorted(by: { $0.path < $1.path }) {
        waitingRows.remove(arrival.id)
        let section = snapshot.sectionIdentifiers[arrival.path.section]
        let placed = snapshot.itemIdentifiers(inSection: section).filter { $0 != arrival.id && !waitingRows.contains($0) }
        if arrival.path.row > 0 {
            let before = placed[arrival.path.row - 1]
            if arrival.moved {
                snapshot.moveItem(arrival.id, afterItem: before)
            } else {
                snapshot.insertItems([arrival.id], afterItem: before)
            }
        } else if let first = placed.first {
            if arrival.moved {
                snapshot.moveItem(arrival.id, beforeItem: first)
            } else {
                snapshot.insertItems([arrival.id], beforeItem: first)
            }
        } else {
            // No row placed in the section yet, so none to go next to.
            if arrival.moved { snapshot.deleteItems([arrival.id]) }
            snapshot.appendItems([arrival.id], toSection: section)
        }
    }

    // Content that changed in place.
    snapshot.reconfigureItems(changeset.updatedRowIDs)
    snapshot.reloadSections(changeset.updatedSectionIDs)
}
// README diffable recipe ends

@Suite("The diffable recipe")
struct DiffableRecipeTests {
    /// The lines between `// README <name> begins` and `// README <name> ends` in this file,
    /// without their first `indent` spaces.
    static func block(_ name: String, indent: Int) throws -> String {
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let pad = String(repeating: " ", count: indent)
        return source.components(separatedBy: "// README \(name) begins\n")[1]
            .components(separatedBy: "\(pad)// README \(name) ends")[0]
            .split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.count >= indent ? String($0.dropFirst(indent)) : String($0) }
            .joined(separator: "\n")
    }

    /// The library's table-view recipes (a DocC article), where this file's recipes and those of
    /// LiveRecipeTests and VersionedReadTests are shown.
    static func recipesArticle() throws -> String {
        let url = packageRoot.appending(path: "Sources/Repository/Documentation.docc/TableViewRecipes.md")
        return try String(contentsOf: url, encoding: .utf8)
    }

    /// Requires that the data source shows the store's list: the same sections and rows, by id,
    /// in the same order, and that nothing was refused.
    func requireShows(_ dataSource: DiffableDataSource, _ list: ListSnapshot, _ context: String) throws {
        let shown = dataSource.snapshot()
        try #require(shown.violations.isEmpty, "\(context): the snapshot refused \(shown.violations)")
        try #require(shown.sectionIdentifiers == list.sections.map(\.id), "\(context): sections")
        for section in list.sections {
            try #require(shown.itemIdentifiers(inSection: section.id) == section.rows.map(\.id), "\(context): rows of #\(section.id)")
        }
    }

    @Test("the recipe keeps a diffable snapshot equal to the store's, by ids", arguments: propertySeeds([71, 72, 73]))
    func theRecipeFollowsTheStore(seed: UInt64) throws {
        let directory = try TemporaryDirectory()
        let store = try SectionStore(path: directory.path("list.db"), create: true)
        let list = store.list("default")
        var generator = SeededGenerator(seed: seed)
        let dataSource = DiffableDataSource()
        var start = NSDiffableDataSourceSnapshot<SectionID, RowID>()
        for title in ["A", "B"] {
            let id = try #require(try store.list("default").apply(.addSection(title: title)).createdID?.sectionID)
            start.appendSections([id])
        }
        dataSource.apply(start)
        var reconfigured = 0
        for step in 0..<250 {
            let context = "seed \(seed), step \(step)"
            let change: Change
            switch Int.random(in: 0..<10, using: &generator) {
            case 0:
                guard let undone = try? store.list("default").undo() else { continue }
                change = undone
            case 1:
                let session = try store.list("default").beginEditing()
                for index in 0..<Int.random(in: 1...5, using: &generator) {
                    _ = try? session.apply(randomEdit(try session.outline, step: step * 10 + index, using: &generator))
                }
                change = try session.save()
            default:
                guard let applied = try? store.list("default").apply(randomEdit(try store.list("default").outline(), step: step, using: &generator))
                else { continue }
                change = applied
            }

            // README diffable use begins
            var snapshot = dataSource.snapshot()
            try apply(change.changeset, to: &snapshot) { section in
                let count = try list.rowCount(of: .id(section), atVersion: change.version)
                let window = try list.window(startingAt: .path(.id(section), .index(0)), limit: count, atVersion: change.version)
                return window.parts[0].rows.map(\.id)
            }
            dataSource.apply(snapshot, animatingDifferences: true)
            // README diffable use ends

            try requireShows(dataSource, try store.list("default").snapshot(), context)
            let newlyReconfigured = Array(snapshot.reconfiguredItemIdentifiers.dropFirst(reconfigured))
            #expect(newlyReconfigured == change.changeset.updatedRowIDs, "\(context): the updated rows are reconfigured")
            reconfigured = snapshot.reconfiguredItemIdentifiers.count
        }
        #expect(dataSource.applied > 150, "seed \(seed): enough changes were applied")
    }

    @Test func theModelKeepsUIKitsRules() {
        var snapshot = NSDiffableDataSourceSnapshot<SectionID, RowID>()
        snapshot.appendSections([1, 2])
        snapshot.appendItems([10, 11], toSection: 1)
        snapshot.appendItems([10], toSection: 2)
        snapshot.moveItem(12, afterItem: 10)
        snapshot.insertSections([1], beforeSection: 2)
        snapshot.reconfigureItems([13])
        #expect(snapshot.violations.count == 4, "\(snapshot.violations)")
        snapshot.moveItem(10, afterItem: 11)
        snapshot.moveSection(2, beforeSection: 1)
        snapshot.deleteSections([1])
        #expect(snapshot.violations.count == 4)
        #expect(snapshot.sectionIdentifiers == [2] && snapshot.itemIdentifiers.isEmpty)
        snapshot.appendItems([10])
        #expect(snapshot.itemIdentifiers(inSection: 2) == [10], "a deleted section's items are gone with it")
    }
}
