import Foundation
import TestSupport
import Testing

@testable import Repository

/// `EditSession.rebase()`: after another writer changed the list, the session's edits are
/// applied again by id on the list as it is now; those whose subjects are gone are dropped and
/// reported; the save that follows succeeds.
@Suite("Edit session rebase")
struct SessionRebaseTests {
    // MARK: - A model of what a rebase means

    /// What an edit of the session meant, by ids, read from the draft before and after it.
    enum Intent: CustomStringConvertible {
        case moveRow(RowID, section: SectionID, before: RowID?, after: RowID?, index: Int)
        case addRow(RowID, RowContent, section: SectionID, before: RowID?, after: RowID?, index: Int)
        case deleteRow(RowID)
        case updateRow(RowID, title: String?, value: ValueUpdate)
        case addSection(SectionID, title: String, before: SectionID?, after: SectionID?, index: Int)
        case setSection(SectionID, title: String?, emptyText: String??)
        case moveSection(SectionID, before: SectionID?, after: SectionID?, index: Int)
        case deleteSection(SectionID, force: Bool)

        var description: String {
            switch self {
            case .moveRow(let id, let section, let before, let after, let index):
                return "move #\(id) into section #\(section) between \(before.map { "\($0)" } ?? "-") and \(after.map { "\($0)" } ?? "-") (\(index))"
            case .addRow(let id, _, let section, let before, let after, let index):
                return "add #\(id) into section #\(section) between \(before.map { "\($0)" } ?? "-") and \(after.map { "\($0)" } ?? "-") (\(index))"
            case .deleteRow(let id): return "delete row #\(id)"
            case .updateRow(let id, _, _): return "update row #\(id)"
            case .addSection(let id, _, let before, let after, let index):
                return "add section #\(id) between \(before.map { "\($0)" } ?? "-") and \(after.map { "\($0)" } ?? "-") (\(index))"
            case .setSection(let id, _, _): return "set section #\(id)"
            case .moveSection(let id, let before, let after, let index):
                return "move section #\(id) between \(before.map { "\($0)" } ?? "-") and \(after.map { "\($0)" } ?? "-") (\(index))"
            case .deleteSection(let id, let force): return "delete section #\(id)\(force ? " (forced)" : "")"
            }
        }
    }

    /// Where the row `id` is in `sections`.
    static func place(ofRow id: RowID, in sections: [Section]) -> RowPath? {
        for (index, section) in sections.enumerated() {
            if let row = section.rows.firstIndex(where: { $0.id == id }) { return RowPath(section: index, row: row) }
        }
        return nil
    }

    /// The intent of an edit that changed the draft from `before` to `after`.
    static func intent(of edit: Edit, createdID: CreatedID?, before: [Section], after: [Section]) -> Intent {
        func rowID(_ ref: RowRef) -> RowID {
            switch ref {
            case .id(let id): return id
            case .path(.index(let section), .index(let row)): return before[section].rows[row].id
            default: fatalError("the generator names rows by index")
            }
        }
        func sectionID(_ ref: SectionRef) -> SectionID {
            guard case .index(let index) = ref else { fatalError("the generator names sections by index") }
            return before[index].id
        }
        func rowPlace(_ id: RowID) -> (section: SectionID, before: RowID?, after: RowID?, index: Int) {
            let path = place(ofRow: id, in: after)!
            let rows = after[path.section].rows
            return (
                after[path.section].id, path.row > 0 ? rows[path.row - 1].id : nil, path.row + 1 < rows.count ? rows[path.row + 1].id : nil,
                path.row
            )
        }
        func sectionPlace(_ id: SectionID) -> (before: SectionID?, after: SectionID?, index: Int) {
            let index = after.firstIndex { $0.id == id }!
            return (index > 0 ? after[index - 1].id : nil, index + 1 < after.count ? after[index + 1].id : nil, index)
        }
        switch edit {
        case .moveRow(let ref, _):
            let id = rowID(ref)
            let place = rowPlace(id)
            return .moveRow(id, section: place.section, before: place.before, after: place.after, index: place.index)
        case .addRow(let content, _):
            let place = rowPlace(createdID!.rowID!)
            return .addRow(createdID!.rowID!, content, section: place.section, before: place.before, after: place.after, index: place.index)
        case .deleteRow(let ref):
            return .deleteRow(rowID(ref))
        case .updateRow(let ref, let title, let value):
            return .updateRow(rowID(ref), title: title, value: value)
        case .addSection(let title, _, _):
            let place = sectionPlace(createdID!.sectionID!)
            return .addSection(createdID!.sectionID!, title: title, before: place.before, after: place.after, index: place.index)
        case .renameSection(let ref, let title):
            return .setSection(sectionID(ref), title: title, emptyText: nil)
        case .setEmptyText(let ref, let text):
            return .setSection(sectionID(ref), title: nil, emptyText: .some(text))
        case .moveSection(let ref, _):
            let id = sectionID(ref)
            let place = sectionPlace(id)
            return .moveSection(id, before: place.before, after: place.after, index: place.index)
        case .deleteSection(let ref, let force):
            return .deleteSection(sectionID(ref), force: force)
        }
    }

    /// Applies an intent to `sections` as a rebase means it; returns why it is dropped, if it is.
    static func apply(_ intent: Intent, to sections: inout [Section]) -> DroppedEdit.Reason? {
        func rowSlot(_ sectionID: SectionID, before: RowID?, after: RowID?, index: Int, in sections: [Section]) -> (Int, Int)? {
            guard let section = sections.firstIndex(where: { $0.id == sectionID }) else { return nil }
            let rows = sections[section].rows
            if let before, let at = rows.firstIndex(where: { $0.id == before }) { return (section, at + 1) }
            if let after, let at = rows.firstIndex(where: { $0.id == after }) { return (section, at) }
            return (section, min(index, rows.count))
        }
        func sectionSlot(before: SectionID?, after: SectionID?, index: Int, in sections: [Section]) -> Int {
            if let before, let at = sections.firstIndex(where: { $0.id == before }) { return at + 1 }
            if let after, let at = sections.firstIndex(where: { $0.id == after }) { return at }
            return min(index, sections.count)
        }
        switch intent {
        case .moveRow(let id, let sectionID, let before, let after, let index):
            guard let path = place(ofRow: id, in: sections) else { return .rowGone(id) }
            var without = sections
            let row = without[path.section].rows.remove(at: path.row)
            guard let (section, slot) = rowSlot(sectionID, before: before, after: after, index: index, in: without) else {
                return .sectionGone(sectionID)
            }
            without[section].rows.insert(row, at: slot)
            sections = without
        case .addRow(let id, let content, let sectionID, let before, let after, let index):
            guard let (section, slot) = rowSlot(sectionID, before: before, after: after, index: index, in: sections) else {
                return .sectionGone(sectionID)
            }
            sections[section].rows.insert(Row(id: id, content: content), at: slot)
        case .deleteRow(let id):
            guard let path = place(ofRow: id, in: sections) else { return .rowGone(id) }
            sections[path.section].rows.remove(at: path.row)
        case .updateRow(let id, let title, let value):
            guard let path = place(ofRow: id, in: sections) else { return .rowGone(id) }
            var content = sections[path.section].rows[path.row].content
            if let title { content.title = title }
            switch value {
            case .keep: break
            case .set(let text): content.value = text
            case .remove: content.value = nil
            }
            sections[path.section].rows[path.row].content = content
        case .addSection(let id, let title, let before, let after, let index):
            sections.insert(
                Section(id: id, title: title, emptyText: nil, rows: []), at: sectionSlot(before: before, after: after, index: index, in: sections))
        case .setSection(let id, let title, let emptyText):
            guard let index = sections.firstIndex(where: { $0.id == id }) else { return .sectionGone(id) }
            if let title { sections[index].title = title }
            if let emptyText { sections[index].emptyText = emptyText }
        case .moveSection(let id, let before, let after, let index):
            guard let at = sections.firstIndex(where: { $0.id == id }) else { return .sectionGone(id) }
            var without = sections
            let section = without.remove(at: at)
            without.insert(section, at: sectionSlot(before: before, after: after, index: index, in: without))
            sections = without
        case .deleteSection(let id, let force):
            guard let index = sections.firstIndex(where: { $0.id == id }) else { return .sectionGone(id) }
            guard force || sections[index].rows.isEmpty else {
                return .refused(.sectionNotEmpty(title: sections[index].title, rowCount: sections[index].rows.count))
            }
            sections.remove(at: index)
        }
        return nil
    }

    /// The kinds of edit `randomEdit(_:kinds:step:using:)` picks from.
    enum Kind: CaseIterable {
        case moveRow, addRow, deleteRow, updateRow, renameSection, setEmptyText, addSection, moveSection, deleteSection
    }

    /// A random edit of the list in `outline`, of a kind drawn from `kinds` (repeat a kind to make
    /// it likelier), naming rows and sections by index; an unforced deletion for empty sections.
    static func randomEdit(_ outline: ListOutline, kinds: [Kind], step: Int, using generator: inout SeededGenerator) -> Edit {
        guard let section = outline.sections.randomElement(using: &generator) else { return .addSection(title: "S\(step)") }
        let rows = outline.sections.filter { $0.rowCount > 0 }
        func anyRow() -> RowRef? {
            guard let section = rows.randomElement(using: &generator) else { return nil }
            return .at(section.index, Int.random(in: 0..<section.rowCount, using: &generator))
        }
        switch kinds.randomElement(using: &generator)! {
        case .moveRow:
            guard let row = anyRow(), case .path(.index(let from), _) = row else { break }
            let target = outline.sections.randomElement(using: &generator)!
            let others = target.rowCount - (target.index == from ? 1 : 0)
            return .moveRow(row, to: .at(target.index, Int.random(in: 0...others, using: &generator)))
        case .addRow:
            return .addRow(
                RowContent(kind: .field, title: "r\(step)", value: Bool.random(using: &generator) ? "v" : nil),
                to: .at(section.index, Int.random(in: 0...section.rowCount, using: &generator)))
        case .deleteRow:
            guard let row = anyRow() else { break }
            return .deleteRow(row)
        case .updateRow:
            guard let row = anyRow() else { break }
            switch Int.random(in: 0..<3, using: &generator) {
            case 0: return .updateRow(row, title: "u\(step)")
            case 1: return .updateRow(row, value: Bool.random(using: &generator) ? .set("w\(step)") : .remove)
            default: return .updateRow(row, title: "u\(step)", value: .set("w\(step)"))
            }
        case .renameSection:
            return .renameSection(.index(section.index), title: "n\(step)")
        case .setEmptyText:
            return .setEmptyText(.index(section.index), Bool.random(using: &generator) ? "e\(step)" : nil)
        case .addSection:
            return .addSection(title: "S\(step)", at: Int.random(in: 0...outline.sections.count, using: &generator))
        case .moveSection:
            return .moveSection(.index(section.index), to: Int.random(in: 0..<outline.sections.count, using: &generator))
        case .deleteSection:
            return .deleteSection(.index(section.index), force: section.rowCount > 0)
        }
        return .addRow(.text("r\(step)"), to: .at(section.index, 0))
    }

    // MARK: - The property

    @Test(
        "random session edits rebased over random edits of another writer land where they meant, by id",
        arguments: Backend.all, propertySeeds([71, 72, 73, 74, 75]))
    func rebasedEditsLandByID(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: seed)
        for section in 0..<6 {
            try store.list("default").apply(.addSection(title: "S\(section)"))
            for row in 0..<8 {
                try store.list("default").apply(
                    .addRow(RowContent(kind: .field, title: "r\(section).\(row)"), to: .init(section: .index(section), index: .end)))
            }
        }
        let session = try store.list("default").beginEditing()
        var intents: [Intent?] = []
        let sessionKinds: [Kind] = Array(repeating: .moveRow, count: 8) + [.addRow, .addRow, .addRow] + Kind.allCases
        for step in 0..<60 {
            let before = try session.snapshot().sections
            let edit = try Self.randomEdit(session.outline, kinds: sessionKinds, step: 100 + step, using: &generator)
            guard let change = try? session.apply(edit) else { continue }
            let after = try session.snapshot().sections
            intents.append(
                change.changeset.isEmpty ? nil : Self.intent(of: edit, createdID: change.createdID, before: before, after: after))
        }
        let other = try fixture.reopen()
        var otherEdits = 0
        let otherKinds: [Kind] = Array(repeating: .deleteRow, count: 4) + Array(repeating: .moveRow, count: 4) + Kind.allCases
        for step in 0..<25 {
            let change = try? other.list("default").apply(
                Self.randomEdit(try other.list("default").outline(), kinds: otherKinds, step: 200 + step, using: &generator))
            if let change, !change.changeset.isEmpty { otherEdits += 1 }
        }
        let context = "\(backend), seed \(seed)"
        guard otherEdits > 0 else {
            Issue.record("the other writer should change the list. \(context)")
            return
        }
        #expect(throws: RepositoryError.self, "\(context): the save conflicts") { try session.save() }

        let base = try store.list("default").snapshot(editing: true)
        var expected = base.sections
        var expectedDropped: [Int: DroppedEdit.Reason] = [:]
        for (index, intent) in intents.enumerated() {
            guard let intent else { continue }
            if let reason = Self.apply(intent, to: &expected) { expectedDropped[index] = reason }
        }
        let report = try session.rebase()
        #expect(report.version == base.version && session.baseVersion == base.version, "\(context)")
        #expect(
            Dictionary(uniqueKeysWithValues: report.dropped.map { ($0.index, $0.reason) }) == expectedDropped,
            "\(context): dropped are exactly the edits whose subjects are gone")
        #expect(report.kept.count + report.dropped.count == intents.count && session.editCount == report.kept.count, "\(context)")
        let draft = try session.snapshot()
        try #require(draft.sections == expected, "\(context): the rebased draft is the intents applied by id to the new list")
        try requireChangeset(report.changeset, turns: base, into: draft, "\(context): the rebase's changeset")
        #expect(session.pendingChanges == report.changeset, "\(context)")

        let preSave = try store.list("default").snapshot()
        let saved = try session.save()
        let postSave = try store.list("default").snapshot()
        #expect(saved.version == (report.changeset.isEmpty ? preSave.version : preSave.version.next), "\(context)")
        try requireChangeset(saved.changeset, turns: preSave, into: postSave, "\(context): the saved changeset")
        let storedIDs = draft.sections.map {
            [(session.savedSectionIDs[$0.id] ?? $0.id).rawValue] + $0.rows.map { (session.savedRowIDs[$0.id] ?? $0.id).rawValue }
        }
        #expect(
            postSave.sections.map { [$0.id.rawValue] + $0.rows.map(\.id.rawValue) } == storedIDs, "\(context): what is saved is the rebased draft")
        #expect(try store.check() == [], "\(context)")
    }

    // MARK: - Cases

    /// The ids of a list's rows and sections, by title.
    struct KnownIDs {
        var rows: [String: RowID] = [:]
        var sections: [String: SectionID] = [:]

        func row(_ title: String) -> RowID { rows[title]! }
        func section(_ title: String) -> SectionID { sections[title]! }
    }

    /// A list with "To do" holding a, b, c and "Done" holding d; returns the ids of the rows and
    /// sections by title.
    func makeList(_ backend: Backend) throws -> (StoreFixture, KnownIDs) {
        let fixture = try StoreFixture(backend)
        var ids = KnownIDs()
        ids.sections["To do"] = try fixture.list.apply(.addSection(title: "To do")).createdID?.sectionID
        ids.sections["Done"] = try fixture.list.apply(.addSection(title: "Done")).createdID?.sectionID
        for (title, section) in [("a", 0), ("b", 0), ("c", 0), ("d", 1)] {
            ids.rows[title] = try fixture.list.apply(.addRow(.text(title), to: .init(section: .index(section), index: .end))).createdID?.rowID
        }
        return (fixture, ids)
    }

    func titles(_ store: SectionStore) throws -> [[String]] {
        try store.list("default").snapshot().sections.map { [$0.title] + $0.rows.map(\.title) }
    }

    @Test(arguments: Backend.all) func aMoveIsAppliedAgainNextToTheSameRowNotAtTheSamePath(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 0), to: .at(0, 1)))  // a after b
        try fixture.reopen().list("default").apply(.addRow(.text("x"), to: .at(0, 0)))
        #expect(throws: RepositoryError.self) { try session.save() }
        let report = try session.rebase()
        #expect(report.dropped.isEmpty && report.previousVersion.next == report.version)
        #expect(report.kept == [.moveRow(.id(ids.row("a")), to: .after(ids.row("b")))])
        #expect(session.edits == report.kept && session.baseVersion == report.version)
        try session.save()
        #expect(try titles(fixture.store) == [["To do", "x", "b", "a", "c"], ["Done", "d"]], "a lands after b, not at 0:1")
    }

    @Test(arguments: Backend.all) func editsOfARowDeletedElsewhereAreDroppedAndSaid(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.id(ids.row("b")), to: .at(1, 0)))
        try session.apply(.updateRow(.id(ids.row("b")), title: "B"))
        try session.apply(.deleteRow(.id(ids.row("b"))))
        try session.apply(.moveRow(.id(ids.row("c")), to: .at(0, 0)))
        try fixture.reopen().list("default").apply(.deleteRow(.id(ids.row("b"))))
        let report = try session.rebase()
        #expect(report.dropped.map(\.index) == [0, 1, 2])
        #expect(report.dropped.map(\.reason) == Array(repeating: .rowGone(ids.row("b")), count: 3))
        #expect(report.dropped[1].edit == .updateRow(.id(ids.row("b")), title: "B"), "the edit as the session had it")
        #expect(report.dropped[0].reason.description == "row #\(ids.row("b")) is gone")
        #expect(report.kept == [.moveRow(.id(ids.row("c")), to: .before(ids.row("a")))])
        try session.save()
        #expect(try titles(fixture.store) == [["To do", "c", "a"], ["Done", "d"]])
        #expect(try fixture.store.check() == [])
    }

    @Test(arguments: Backend.all) func rowsGoingIntoASectionDeletedElsewhereAreDropped(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        let added = try #require(try session.apply(.addRow(.text("new"), to: .at(1, 1))).createdID?.rowID)
        try session.apply(.moveRow(.id(ids.row("a")), to: .at(1, 0)))
        try session.apply(.updateRow(.id(added), title: "newer"))
        try session.apply(.renameSection(.id(ids.section("Done")), title: "Finished"))
        try session.apply(.moveRow(.id(ids.row("c")), to: .at(0, 0)))
        try fixture.reopen().list("default").apply(.deleteSection(.id(ids.section("Done")), force: true))
        let report = try session.rebase()
        #expect(report.dropped.map(\.index) == [0, 1, 2, 3])
        #expect(
            report.dropped.map(\.reason) == [
                .sectionGone(ids.section("Done")), .sectionGone(ids.section("Done")), .rowGone(added), .sectionGone(ids.section("Done")),
            ],
            "the update of a row whose adding was dropped is dropped too")
        #expect(
            try session.apply(.addRow(.text("later"), to: .at(0, 0))).createdID?.rowID == RowID(added.rawValue - 1),
            "a dropped row's draft id is not given again")
        try session.save()
        #expect(try titles(fixture.store) == [["To do", "later", "a", "c", "b"]], "a stays where it was: its move was dropped")
    }

    @Test(arguments: Backend.all) func editsOfASectionDeletedElsewhereAreDropped(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.setEmptyText(.id(ids.section("Done")), "Nothing yet"))
        try session.apply(.moveSection(.id(ids.section("Done")), to: 0))
        try session.apply(.deleteSection(.id(ids.section("Done")), force: true))
        try fixture.reopen().list("default").apply(.deleteSection(.id(ids.section("Done")), force: true))
        let report = try session.rebase()
        #expect(report.dropped.map(\.reason) == Array(repeating: .sectionGone(ids.section("Done")), count: 3))
        #expect(report.kept.isEmpty && session.pendingChanges.isEmpty)
        try session.save()
        #expect(try titles(fixture.store) == [["To do", "a", "b", "c"]])
    }

    @Test(arguments: Backend.all) func anUnforcedDeletionOfASectionFilledElsewhereIsRefused(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        try fixture.list.apply(.deleteRow(.id(ids.row("d"))))
        let session = try fixture.list.beginEditing()
        try session.apply(.deleteSection(.id(ids.section("Done"))))
        try fixture.reopen().list("default").apply(.addRow(.text("e"), to: .init(section: .id(ids.section("Done")), index: .end)))
        let report = try session.rebase()
        #expect(report.dropped.map(\.reason) == [.refused(.sectionNotEmpty(title: "Done", rowCount: 1))])
        try session.save()
        #expect(try titles(fixture.store) == [["To do", "a", "b", "c"], ["Done", "e"]])
    }

    @Test(arguments: Backend.all) func aRowWhoseNeighboursAreGoneKeepsItsIndexInItsSection(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.id(ids.row("d")), to: .at(0, 1)))  // between a and b
        let other = try fixture.reopen()
        try other.list("default").apply(.deleteRow(.id(ids.row("a"))))
        try other.list("default").apply(.deleteRow(.id(ids.row("b"))))
        try other.list("default").apply(.addRow(.text("y"), to: .at(0, 0)))
        try other.list("default").apply(.addRow(.text("z"), to: .at(0, 0)))
        let report = try session.rebase()
        #expect(report.kept == [.moveRow(.id(ids.row("d")), to: RowDestination(section: .id(ids.section("To do")), index: .index(1)))])
        try session.save()
        #expect(try titles(fixture.store) == [["To do", "z", "d", "y", "c"], ["Done"]])
    }

    @Test(arguments: Backend.all) func anUpdateSetsOnlyWhatItSet(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try fixture.list.apply(.addSection(title: "S"))
        let id = try #require(try fixture.list.apply(.addRow(RowContent(kind: .field, title: "label", value: "1"), to: .at(0, 0))).createdID?.rowID)
        let session = try fixture.list.beginEditing()
        try session.apply(.updateRow(.at(0, 0), value: .set("2")))
        try fixture.reopen().list("default").apply(.updateRow(.id(id), title: "renamed"))
        try session.rebase()
        try session.save()
        #expect(try fixture.list.snapshot().sections[0].rows[0].content == RowContent(kind: .field, title: "renamed", value: "2"))
    }

    @Test(arguments: Backend.all) func draftIDsKeepWorkingAcrossARebase(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        let section = try #require(try session.apply(.addSection(title: "Later", at: 1)).createdID?.sectionID)
        let row = try #require(try session.apply(.addRow(.text("new"), to: .init(section: .id(section), index: .end))).createdID?.rowID)
        try session.apply(.moveRow(.id(ids.row("a")), to: .after(row)))
        try fixture.reopen().list("default").apply(.moveSection(.id(ids.section("Done")), to: 0))
        let report = try session.rebase()
        #expect(report.dropped.isEmpty)
        #expect(report.kept[0] == .addSection(title: "Later", at: 2), "just after To do, which was before it, and is now second")
        #expect(try session.path(ofRow: row) == RowPath(section: 2, row: 0))
        #expect(try session.outline.sections.map(\.id) == [ids.section("Done"), ids.section("To do"), section])
        try session.apply(.updateRow(.id(row), title: "newer"))
        let saved = try session.save()
        let stored = try fixture.list.snapshot()
        #expect(stored.sections.map { [$0.title] + $0.rows.map(\.title) } == [["Done", "d"], ["To do", "b", "c"], ["Later", "newer", "a"]])
        #expect(session.savedSectionIDs[section] == stored.sections[2].id && session.savedRowIDs[row] == stored.sections[2].rows[0].id)
        #expect(saved.changeset.insertedSectionIDs == [stored.sections[2].id])
    }

    @Test(arguments: Backend.all) func aSessionCanBeRebasedAgainAfterTheListMovesAgain(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        let row = try #require(try session.apply(.addRow(.text("new"), to: .at(0, 1))).createdID?.rowID)  // after a
        try session.apply(.moveRow(.id(ids.row("d")), to: .after(row)))
        let other = try fixture.reopen()
        try other.list("default").apply(.moveRow(.id(ids.row("a")), to: .at(1, 0)))
        let first = try session.rebase()
        #expect(first.kept.first == .addRow(.text("new"), to: .before(ids.row("b"))), "a left the section: next to b, which was after it")
        #expect(try session.outline.sections.map(\.rowCount) == [4, 1])
        try other.list("default").apply(.deleteRow(.id(ids.row("b"))))
        try other.list("default").apply(.addRow(.text("y"), to: .at(0, 0)))
        #expect(throws: RepositoryError.self) { try session.save() }
        let second = try session.rebase()
        #expect(second.dropped.isEmpty && second.previousVersion == first.version)
        #expect(
            second.kept == [
                .addRow(.text("new"), to: RowDestination(section: .id(ids.section("To do")), index: .index(0))),
                .moveRow(.id(ids.row("d")), to: .after(row)),
            ], "neither neighbour of new is left: its index; d still follows it by its draft id")
        #expect(try session.path(ofRow: row) == RowPath(section: 0, row: 0))
        try session.save()
        #expect(try titles(fixture.store) == [["To do", "new", "d", "y", "c"], ["Done", "a"]])
        #expect(try fixture.store.check() == [])
    }

    @Test(arguments: Backend.all) func aRebaseWithNothingNewKeepsEverything(backend: Backend) throws {
        let (fixture, _) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 2), to: .at(1, 0)))
        try session.apply(.renameSection(.index(0), title: "Now"))
        try session.apply(.renameSection(.index(0), title: "Now"))  // changes nothing
        let pending = session.pendingChanges
        let draft = try session.snapshot()
        let report = try session.rebase()
        #expect(report.version == report.previousVersion && report.dropped.isEmpty && report.kept.count == 3)
        #expect(report.changeset == pending)
        #expect(try session.snapshot() == draft)
        try session.save()
        #expect(try titles(fixture.store) == [["Now", "a", "b"], ["Done", "c", "d"]])
    }

    @Test(arguments: Backend.all) func undoAfterARebaseTakesBackTheEditAsAppliedAgain(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 0), to: .at(0, 2)))
        try session.apply(.deleteRow(.at(0, 0)))  // b
        try fixture.reopen().list("default").apply(.addRow(.text("x"), to: .at(0, 0)))
        try session.rebase()
        let base = try fixture.list.snapshot(editing: true)
        let before = try session.snapshot()
        let undo = try session.undoLastEdit()
        try requireChangeset(undo.changeset, turns: before, into: try session.snapshot())
        #expect(try session.snapshot().sections[0].rows.map(\.id) == [base.sections[0].rows[0].id, ids.row("b"), ids.row("c"), ids.row("a")])
        try requireChangeset(session.pendingChanges, turns: base, into: try session.snapshot())
        try session.save()
        #expect(try titles(fixture.store) == [["To do", "x", "b", "c", "a"], ["Done", "d"]])
    }

    @Test(arguments: Backend.all) func aListDeletedElsewhereCannotBeRebasedOnAndTheSessionStaysAsItWas(backend: Backend) throws {
        let (fixture, _) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        let (edits, pending, outline) = try (session.edits, session.pendingChanges, session.outline)
        let version = session.baseVersion
        try fixture.reopen().deleteList("default", force: true)
        let gone = RepositoryError.conflict(list: "default", sessionVersion: version, currentVersion: nil)
        #expect(throws: gone) { try session.rebase() }
        #expect(try session.edits == edits && session.pendingChanges == pending && session.outline == outline)
        #expect(session.baseVersion == version && session.isOpen)
        // The draft's rows are not there to read: the list they were in is gone.
        #expect(throws: gone) { try session.snapshot() }
        session.cancel()
        #expect(throws: RepositoryError.sessionClosed) { try session.rebase() }
    }

    @Test(arguments: Backend.all) func aRenamedListIsRebasedOnUnderItsNewName(backend: Backend) throws {
        let (fixture, _) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        try fixture.reopen().renameList("default", to: "renamed")
        #expect(throws: RepositoryError.self) { try session.save() }
        try session.rebase()
        #expect(session.name == "renamed")
        let saved = try session.save()
        #expect(saved.list == "renamed")
        #expect(try fixture.store.list("renamed").snapshot().sections.map { $0.rows.map(\.title) } == [["b", "c"], ["a", "d"]])
    }

    // MARK: - Cancel

    @Test(arguments: Backend.all) func cancelIsTheInverseOfThePendingChangesAndReadsNothing(backend: Backend) throws {
        let (fixture, _) = try makeList(backend)
        let session = try fixture.list.beginEditing()
        try session.apply(.moveRow(.at(0, 0), to: .at(1, 1)))
        try session.apply(.addSection(title: "Later", at: 0))
        try session.apply(.addRow(.text("new"), to: .at(0, 0)))
        try session.apply(.deleteRow(.at(1, 1)))
        try session.apply(.renameSection(.index(2), title: "Finished"))
        let pending = session.pendingChanges
        let draft = try session.snapshot()
        let base = try session.baseSnapshot()
        // `cancel()` cannot fail: it reads nothing, and computes the way back from the edits.
        let back = session.cancel()
        #expect(back == pending.inverted())
        try requireChangeset(
            back, turns: draft,
            into: ListSnapshot(name: base.name, version: base.version, isEditing: true, sections: base.sections, listID: base.listID))
    }
}
