import Foundation
import TestSupport
import Testing

@testable import Repository

/// `Intent`: an edit recorded by ids and placements (`ListHandle.intent(of:)`), applied later to a
/// list others have changed (`ListHandle.apply(_:)`) by the rules `Intent` documents.
@Suite("Intents")
struct IntentTests {
    // MARK: - A model of the rules

    /// A list as the model sees it: sections of rows, by id, with titles and values.
    typealias Sections = [Section]

    /// Where the row `id` is in `sections`.
    static func path(ofRow id: RowID, in sections: Sections) -> RowPath? {
        for (index, section) in sections.enumerated() {
            if let row = section.rows.firstIndex(where: { $0.id == id }) { return RowPath(section: index, row: row) }
        }
        return nil
    }

    /// The neighbours of a placement in the order the rules try them, each with whether it is
    /// one of the two nearest: after `before[0]`, before `after[0]`, after `before[1]`, …
    static func tries<ID>(_ before: [ID], _ after: [ID]) -> [(id: ID, after: Bool, nearest: Bool)] {
        var result: [(id: ID, after: Bool, nearest: Bool)] = []
        for index in 0..<max(before.count, after.count) {
            if index < before.count { result.append((before[index], true, index == 0)) }
            if index < after.count { result.append((after[index], false, index == 0)) }
        }
        return result
    }

    /// The slot a placement names among `ids` (the section's rows, or the list's sections,
    /// without the one placed): next to the first neighbour tried that is there, else `index`
    /// (at most the end). `near` and `fallback` say where it went when that is not as meant.
    static func slot<ID: Equatable>(
        before: [ID], after: [ID], index: Int, in ids: [ID], near: (ID, Bool) -> IntentOutcome.Placed,
        fallback: (Int) -> IntentOutcome.Placed
    ) -> (index: Int, outcome: IntentOutcome) {
        let order = tries(before, after)
        for neighbour in order {
            guard let at = ids.firstIndex(of: neighbour.id) else { continue }
            let slot = neighbour.after ? at + 1 : at
            return (slot, neighbour.nearest ? .applied : .placedElsewhere(near(neighbour.id, neighbour.after)))
        }
        let slot = min(index, ids.count)
        return (slot, order.isEmpty ? .applied : .placedElsewhere(fallback(slot)))
    }

    /// The slot a row placement names in `rows` (the section's rows without the moving one).
    static func slot(_ placement: RowPlacement, in rows: [Row]) -> (index: Int, outcome: IntentOutcome) {
        slot(
            before: placement.before, after: placement.after, index: placement.index, in: rows.map(\.id),
            near: { $1 ? .afterRow($0) : .beforeRow($0) }, fallback: { .inSection(placement.section, index: $0) })
    }

    /// The slot a section placement names among `sections` (without the moving one).
    static func slot(_ placement: SectionPlacement, in sections: Sections) -> (index: Int, outcome: IntentOutcome) {
        slot(
            before: placement.before, after: placement.after, index: placement.index, in: sections.map(\.id),
            near: { $1 ? .afterSection($0) : .beforeSection($0) }, fallback: { .inList(index: $0) })
    }

    /// Applies `intent` to `sections` by the rules, as the model reads them; rows and sections it
    /// creates get ids from `nextID` (negative: never one the store gives). Returns the outcome.
    static func apply(_ intent: Intent, to sections: inout Sections, nextID: inout Int64) -> IntentOutcome {
        switch intent {
        case .addRow(let content, let placement):
            guard let section = sections.firstIndex(where: { $0.id == placement.section }) else {
                return .dropped(.addedRowLost(placement.section, content: content))
            }
            let (index, outcome) = slot(placement, in: sections[section].rows)
            nextID -= 1
            sections[section].rows.insert(Row(id: RowID(nextID), content: content), at: index)
            return outcome
        case .moveRow(let id, let placement):
            guard let from = path(ofRow: id, in: sections) else { return .dropped(.rowGone(id)) }
            guard let section = sections.firstIndex(where: { $0.id == placement.section }) else {
                return .dropped(.destinationSectionGone(placement.section, row: id))
            }
            let row = sections[from.section].rows.remove(at: from.row)
            let (index, outcome) = slot(placement, in: sections[section].rows)
            sections[section].rows.insert(row, at: index)
            return outcome
        case .updateRow(let id, let title, let value):
            guard let at = path(ofRow: id, in: sections) else { return .dropped(.rowGone(id)) }
            if let title { sections[at.section].rows[at.row].content.title = title }
            switch value {
            case .keep: break
            case .set(let text): sections[at.section].rows[at.row].content.value = text
            case .remove: sections[at.section].rows[at.row].content.value = nil
            }
            return .applied
        case .deleteRow(let id):
            guard let at = path(ofRow: id, in: sections) else { return .dropped(.rowGone(id)) }
            sections[at.section].rows.remove(at: at.row)
            return .applied
        case .addSection(let title, let emptyText, let placement):
            let (index, outcome) = slot(placement, in: sections)
            nextID -= 1
            sections.insert(Section(id: SectionID(nextID), title: title, emptyText: emptyText), at: index)
            return outcome
        case .renameSection(let id, let title):
            guard let at = sections.firstIndex(where: { $0.id == id }) else { return .dropped(.sectionGone(id)) }
            sections[at].title = title
            return .applied
        case .setEmptyText(let id, let text):
            guard let at = sections.firstIndex(where: { $0.id == id }) else { return .dropped(.sectionGone(id)) }
            sections[at].emptyText = text
            return .applied
        case .moveSection(let id, let placement):
            guard let at = sections.firstIndex(where: { $0.id == id }) else { return .dropped(.sectionGone(id)) }
            let section = sections.remove(at: at)
            let (index, outcome) = slot(placement, in: sections)
            sections.insert(section, at: index)
            return outcome
        case .deleteSection(let id, let force):
            guard let at = sections.firstIndex(where: { $0.id == id }) else { return .dropped(.sectionGone(id)) }
            guard force || sections[at].rows.isEmpty else { return .dropped(.sectionNotEmpty(id, rowCount: sections[at].rows.count)) }
            sections.remove(at: at)
            return .applied
        }
    }

    /// What a person sees of a list, without ids: titles, empty texts and values, in order.
    static func shape(_ sections: Sections) -> [[String]] {
        sections.map { ["\($0.title) [\($0.emptyText ?? "")]"] + $0.rows.map { "\($0.title)=\($0.value ?? "-")" } }
    }

    // MARK: - Properties

    /// Six sections of eight field rows, the same on every call (so two stores made by it have
    /// the same ids).
    static func fill(_ store: SectionStore) throws {
        for section in 0..<6 {
            try store.list("default").apply(.addSection(title: "S\(section)"))
            for row in 0..<8 {
                try store.list("default").apply(
                    .addRow(RowContent(kind: .field, title: "r\(section).\(row)"), to: .init(section: .index(section), index: .end)))
            }
        }
    }

    @Test(
        "an intent applied to the list it was recorded on does what its edit does",
        arguments: Backend.all, propertySeeds([31, 32, 33]))
    func anIntentOnAnUnchangedListIsItsEdit(backend: Backend, seed: UInt64) throws {
        let byEdit = try StoreFixture(backend)
        let byIntent = try StoreFixture(backend)
        try Self.fill(byEdit.store)
        try Self.fill(byIntent.store)
        var generator = SeededGenerator(seed: seed)
        let context = "\(backend), seed \(seed)"
        for step in 0..<80 {
            let edit = SessionRebaseTests.randomEdit(
                try byEdit.store.list("default").outline(), kinds: SessionRebaseTests.Kind.allCases, step: step, using: &generator)
            let list = byIntent.store.list(SectionStore.defaultList)
            let expected = Result { try byEdit.store.list("default").apply(edit) }
            let intent: Intent
            do {
                intent = try list.intent(of: edit)
            } catch {
                guard case .failure(let editError) = expected else {
                    Issue.record("step \(step): recording \(edit) threw \(error), but the edit applied. \(context)")
                    return
                }
                #expect("\(error)" == "\(editError)", "step \(step): recording refuses \(edit) as applying it does. \(context)")
                continue
            }
            let change = try #require(try? expected.get(), "step \(step): \(edit) was recorded but refused. \(context)")
            let result = try list.apply(intent)
            #expect(result.outcome == .applied, "step \(step): \(intent). \(context)")
            #expect(result.change?.changeset == change.changeset, "step \(step): \(intent) reports the edit's changeset. \(context)")
            #expect(result.change?.version == change.version, "step \(step). \(context)")
            try #require(
                try byIntent.store.list("default").snapshot() == byEdit.store.list("default").snapshot(),
                "step \(step): \(edit) as an intent, \(intent). \(context)")
        }
        #expect(try byIntent.store.check() == [], "\(context)")
    }

    @Test(
        "intents recorded on one copy of a list land on another copy, changed meanwhile, by the rules",
        arguments: Backend.all, propertySeeds([41, 42, 43]))
    func intentsLandByTheRules(backend: Backend, seed: UInt64) throws {
        let server = try StoreFixture(backend)
        let replica = try StoreFixture(backend)
        try Self.fill(server.store)
        try Self.fill(replica.store)
        // What the replica creates gets ids the server never gives, as allotted ids would be.
        switch backend {
        case .sqlite:
            try replica.plainSQL("UPDATE sqlite_sequence SET seq = seq + 1000000 WHERE name IN ('rows', 'sections')")
        case .postgres:
            try replica.plainSQL(
                "ALTER TABLE rows ALTER COLUMN id RESTART WITH 1000000; ALTER TABLE sections ALTER COLUMN id RESTART WITH 1000000")
        }
        var generator = SeededGenerator(seed: seed)
        let context = "\(backend), seed \(seed)"
        let kinds = Array(repeating: SessionRebaseTests.Kind.moveRow, count: 6) + [.addRow, .addRow] + SessionRebaseTests.Kind.allCases

        var intents: [Intent] = []
        let replicaList = replica.store.list(SectionStore.defaultList)
        for step in 0..<40 {
            let edit = SessionRebaseTests.randomEdit(try replica.store.list("default").outline(), kinds: kinds, step: 100 + step, using: &generator)
            guard let intent = try? replicaList.intent(of: edit) else { continue }
            try replica.store.list("default").apply(edit)
            intents.append(intent)
        }
        for step in 0..<30 {
            _ = try? server.store.list("default").apply(
                SessionRebaseTests.randomEdit(try server.store.list("default").outline(), kinds: kinds, step: 200 + step, using: &generator))
        }

        var expected = try server.store.list("default").snapshot().sections
        var nextID: Int64 = 0
        let serverList = server.store.list(SectionStore.defaultList)
        var placedElsewhere = 0
        for (index, intent) in intents.enumerated() {
            let before = try server.store.list("default").snapshot()
            let outcome = Self.apply(intent, to: &expected, nextID: &nextID)
            let result = try serverList.apply(intent)
            #expect(result.outcome == outcome, "intent \(index), \(intent). \(context)")
            if case .placedElsewhere = outcome { placedElsewhere += 1 }
            let after = try server.store.list("default").snapshot()
            try #require(Self.shape(after.sections) == Self.shape(expected), "intent \(index), \(intent). \(context)")
            if case .dropped = outcome {
                #expect(result.change == nil && after.version == before.version, "a dropped intent writes nothing. \(context)")
            } else if let change = result.change, change.committed {
                try requireChangeset(change.changeset, turns: before, into: after, "intent \(index): its changeset. \(context)")
            }
        }
        #expect(try server.store.check() == [], "\(context)")
        print("intents (\(context)): \(intents.count) applied, \(placedElsewhere) placed by a farther neighbour or their index")
    }

    // MARK: - Cases

    /// A list with "To do" holding a, b, c, d, e and "Done" holding f; the ids by title.
    func makeList(_ backend: Backend) throws -> (StoreFixture, SessionRebaseTests.KnownIDs) {
        let fixture = try StoreFixture(backend)
        var ids = SessionRebaseTests.KnownIDs()
        ids.sections["To do"] = try fixture.list.apply(.addSection(title: "To do")).createdID?.sectionID
        ids.sections["Done"] = try fixture.list.apply(.addSection(title: "Done")).createdID?.sectionID
        for (title, section) in [("a", 0), ("b", 0), ("c", 0), ("d", 0), ("e", 0), ("f", 1)] {
            ids.rows[title] = try fixture.list.apply(.addRow(.text(title), to: .init(section: .index(section), index: .end))).createdID?.rowID
        }
        return (fixture, ids)
    }

    func titles(_ store: SectionStore) throws -> [[String]] {
        try store.list("default").snapshot().sections.map { [$0.title] + $0.rows.map(\.title) }
    }

    @Test(arguments: Backend.all) func aMoveIsRecordedAsItsSectionAndTheRowsAroundItsSlot(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        let version = try list.header().version
        // a to 0:2: among b c d e, between c and d.
        let intent = try list.intent(of: .moveRow(.at(0, 0), to: .at(0, 2)))
        #expect(
            intent
                == .moveRow(
                    ids.row("a"),
                    to: RowPlacement(
                        section: ids.section("To do"), before: [ids.row("c"), ids.row("b")], after: [ids.row("d"), ids.row("e")], index: 2)))
        #expect(try list.header().version == version, "recording writes nothing")
        #expect(
            try list.intent(of: .addRow(.text("x"), to: .init(section: .index(1), index: .end)))
                == .addRow(.text("x"), at: RowPlacement(section: ids.section("Done"), before: [ids.row("f")], after: [], index: 1)))
        #expect(
            try list.intent(of: .moveSection(.index(1), to: 0))
                == .moveSection(ids.section("Done"), to: SectionPlacement(before: [], after: [ids.section("To do")], index: 0)))
        #expect(try list.intent(of: .deleteSection(.index(1), force: true)) == .deleteSection(ids.section("Done"), force: true))
        #expect(try list.intent(of: .updateRow(.at(1, 0), title: "F")) == .updateRow(ids.row("f"), title: "F", value: .keep))
    }

    @Test(arguments: Backend.all) func recordingRefusesWhatTheEditWouldRefuse(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        #expect(throws: RepositoryError.rowIndexOutOfRange(9, section: 0, valid: 0...4)) {
            try list.intent(of: .moveRow(.at(0, 0), to: .at(0, 9)))
        }
        #expect(throws: RepositoryError.rowNotFound(RowID(999), list: "default")) { try list.intent(of: .deleteRow(.id(999))) }
        #expect(throws: RepositoryError.sectionNotEmpty(title: "Done", rowCount: 1)) {
            try list.intent(of: .deleteSection(.index(1), force: false))
        }
        #expect(throws: RepositoryError.valueOnNonFieldRow(row: ids.row("a"), kind: .text)) {
            try list.intent(of: .updateRow(.at(0, 0), value: .set("v")))
        }
        #expect(throws: RepositoryError.listNotFound("nope", available: ["default"])) {
            try fixture.store.list("nope").intent(of: .deleteRow(.id(1)))
        }
    }

    @Test(arguments: Backend.all) func aRowLandsNextToTheNearestNeighbourLeftInItsSection(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        // f into To do between c and d (before: c b a, after: d e).
        let intent = try list.intent(of: .moveRow(.at(1, 0), to: .at(0, 3)))
        try list.apply(.deleteRow(.id(ids.row("c"))))
        try list.apply(.moveRow(.id(ids.row("d")), to: .at(1, 0)))  // d leaves the section: gone for the rule
        try list.apply(.addRow(.text("x"), to: .at(0, 0)))
        // Left in To do: x a b e. Tried: after c (gone), before d (in Done), after b: found.
        let result = try list.apply(intent)
        #expect(result.outcome == .placedElsewhere(.afterRow(ids.row("b"))))
        #expect(try titles(fixture.store) == [["To do", "x", "a", "b", "f", "e"], ["Done", "d"]])
        #expect(try fixture.store.check() == [])
    }

    @Test(arguments: Backend.all) func theNearestNeighbourOnEitherSideIsWhatWasMeant(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        let intent = try list.intent(of: .moveRow(.at(1, 0), to: .at(0, 3)))  // f between c and d
        try list.apply(.deleteRow(.id(ids.row("c"))))
        try list.apply(.addRow(.text("x"), to: .at(0, 0)))
        let result = try list.apply(intent)
        #expect(result.outcome == .applied, "before d is where the person put it")
        #expect(try titles(fixture.store) == [["To do", "x", "a", "b", "f", "d", "e"], ["Done"]])
    }

    @Test(arguments: Backend.all) func withNoNeighbourLeftARowKeepsItsIndex(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        let intent = try list.intent(of: .moveRow(.at(1, 0), to: .at(0, 1)))  // f at index 1 of To do
        for title in ["a", "b", "c", "d", "e"] { try list.apply(.deleteRow(.id(ids.row(title)))) }
        for title in ["x", "y", "z"] { try list.apply(.addRow(.text(title), to: .init(section: .index(0), index: .end))) }
        let result = try list.apply(intent)
        #expect(result.outcome == .placedElsewhere(.inSection(ids.section("To do"), index: 1)))
        #expect(try titles(fixture.store) == [["To do", "x", "f", "y", "z"], ["Done"]])

        let toTheEnd = try list.intent(of: .moveRow(.at(0, 0), to: .at(0, 3)))  // x after z: index 3
        for _ in 0..<3 { try list.apply(.deleteRow(.at(0, 1))) }  // f, y and z go
        #expect(try list.apply(toTheEnd).outcome == .placedElsewhere(.inSection(ids.section("To do"), index: 0)), "at most the end")
        #expect(try titles(fixture.store) == [["To do", "x"], ["Done"]])
    }

    @Test(arguments: Backend.all) func intentsOnWhatIsGoneAreDroppedAndWriteNothing(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        let move = try list.intent(of: .moveRow(.id(ids.row("a")), to: .at(1, 0)))
        let update = try list.intent(of: .updateRow(.id(ids.row("a")), title: "A"))
        let delete = try list.intent(of: .deleteRow(.id(ids.row("a"))))
        let intoDone = try list.intent(of: .moveRow(.id(ids.row("b")), to: .at(1, 1)))
        let addToDone = try list.intent(of: .addRow(.text("new"), to: .init(section: .index(1), index: .end)))
        let rename = try list.intent(of: .renameSection(.index(1), title: "Finished"))
        let empty = try list.intent(of: .setEmptyText(.index(1), "nothing"))
        let moveDone = try list.intent(of: .moveSection(.index(1), to: 0))
        let deleteDone = try list.intent(of: .deleteSection(.index(1), force: true))
        try list.apply(.deleteRow(.id(ids.row("a"))))
        try list.apply(.deleteSection(.index(1), force: true))
        let version = try list.header().version
        let expected: [(Intent, IntentOutcome)] = [
            (move, .dropped(.rowGone(ids.row("a")))),
            (update, .dropped(.rowGone(ids.row("a")))),
            (delete, .dropped(.rowGone(ids.row("a")))),
            (intoDone, .dropped(.destinationSectionGone(ids.section("Done"), row: ids.row("b")))),
            (addToDone, .dropped(.addedRowLost(ids.section("Done"), content: .text("new")))),
            (rename, .dropped(.sectionGone(ids.section("Done")))),
            (empty, .dropped(.sectionGone(ids.section("Done")))),
            (moveDone, .dropped(.sectionGone(ids.section("Done")))),
            (deleteDone, .dropped(.sectionGone(ids.section("Done")))),
        ]
        for (intent, outcome) in expected {
            let result = try list.apply(intent)
            #expect(result == IntentResult(outcome: outcome, change: nil), "\(intent)")
        }
        #expect(try list.header().version == version, "nothing was written")
        #expect(try titles(fixture.store) == [["To do", "b", "c", "d", "e"]])
    }

    @Test(arguments: Backend.all) func anUnforcedSectionDeleteIsDroppedWhenRowsWereAddedSince(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        let empty = try list.apply(.addSection(title: "Empty")).createdID!.sectionID!
        let unforced = try list.intent(of: .deleteSection(.id(empty), force: false))
        let forced = try list.intent(of: .deleteSection(.id(empty), force: true))
        try list.apply(.moveRow(.id(ids.row("a")), to: .init(section: .id(empty), index: .end)))
        #expect(try list.apply(unforced) == IntentResult(outcome: .dropped(.sectionNotEmpty(empty, rowCount: 1)), change: nil))
        let result = try list.apply(forced)
        #expect(result.outcome == .applied && result.change?.changeset.deletedSectionIDs == [empty])
        #expect(try titles(fixture.store) == [["To do", "b", "c", "d", "e"], ["Done", "f"]], "a forced delete takes the rows it holds")
    }

    @Test(arguments: Backend.all) func aSectionLandsNextToTheNearestSectionLeft(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        let later = try list.apply(.addSection(title: "Later")).createdID!.sectionID!
        // Sections: To do, Done, Later. "New" between To do and Done; Later first.
        let add = try list.intent(of: .addSection(title: "New", at: 1))
        let move = try list.intent(of: .moveSection(.id(later), to: 0))
        #expect(
            add
                == .addSection(
                    title: "New", emptyText: nil, at: SectionPlacement(before: [ids.section("To do")], after: [ids.section("Done"), later], index: 1))
        )
        try list.apply(.deleteSection(.id(ids.section("To do")), force: true))
        try list.apply(.addSection(title: "Other", at: 0))
        // Sections: Other, Done, Later. After To do (gone), before Done: found, the nearest after.
        #expect(try list.apply(add).outcome == .applied)
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["Other", "New", "Done", "Later"])
        // Later before To do (gone), else before Done, the next section it had after it.
        #expect(try list.apply(move).outcome == .placedElsewhere(.beforeSection(ids.section("Done"))))
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["Other", "New", "Later", "Done"])
        // With no neighbour left, a section goes to its placement's index.
        let first = try list.intent(of: .moveSection(.id(later), to: 0))
        for title in ["Other", "New", "Done"] { try list.apply(.deleteSection(.title(title), force: true)) }
        try list.apply(.addSection(title: "Last"))
        #expect(try list.apply(first).outcome == .placedElsewhere(.inList(index: 0)))
        #expect(try fixture.list.snapshot().sections.map(\.title) == ["Later", "Last"])
        #expect(try fixture.store.check() == [])
    }

    @Test(arguments: Backend.all) func anIntentAppliedIsOneStepThatUndoTakesBack(backend: Backend) throws {
        let (fixture, ids) = try makeList(backend)
        let list = fixture.store.list(SectionStore.defaultList)
        let intent = try list.intent(of: .moveRow(.id(ids.row("f")), to: .after(ids.row("b"))))
        let before = try fixture.list.snapshot()
        let result = try list.apply(intent)
        #expect(result.change?.version == before.version.next && result.change?.changeset.movedRowIDs == [ids.row("f")])
        #expect(try list.changes(since: before.version).changeset == result.change?.changeset, "journalled as one change")
        try list.undo()
        #expect(try fixture.list.snapshot().sections == before.sections)
    }

    @Test func theReadmeExampleRuns() throws {
        let (fixture, ids) = try makeList(.sqlite)
        let list = fixture.store.list(SectionStore.defaultList)
        var said: [String] = []
        // As in the DocC article "Intents: an edit applied later" (Intents.md).
        let intent = try list.intent(of: .moveRow(.at(0, 0), to: .at(1, 0)))  // reads, writes nothing
        try list.apply(.addRow(.text("x"), to: .at(1, 0)))
        let result = try list.apply(intent)
        switch result.outcome {
        case .applied: break
        case .placedElsewhere(let place): said.append("placed \(place)")
        case .dropped(let reason): said.append("not applied: \(reason)")
        }
        #expect(said == [] && result.change?.changeset.movedRowIDs == [ids.row("a")])
        #expect(try titles(fixture.store) == [["To do", "b", "c", "d", "e"], ["Done", "x", "a", "f"]], "before f, as meant")
    }

    // MARK: - JSON

    /// One of each intent, with every optional part present and absent.
    static let everyShape: [Intent] = [
        .addRow(.text("a"), at: RowPlacement(section: 3, before: [7, 6], after: [8], index: 2)),
        .addRow(.field("Due", "Friday"), at: RowPlacement(section: 3, index: 0)),
        .addRow(.field("Due", nil), at: RowPlacement(section: 3, index: 0)),
        .addRow(.topic("Next"), at: RowPlacement(section: 1, before: [2], index: 1)),
        .moveRow(12, to: RowPlacement(section: 3, before: [11, 10], after: [13], index: 2)),
        .updateRow(12, title: "t", value: .keep),
        .updateRow(12, title: nil, value: .set("v")),
        .updateRow(12, title: nil, value: .remove),
        .deleteRow(12),
        .addSection(title: "S", emptyText: nil, at: SectionPlacement(before: [1], after: [2, 4], index: 1)),
        .addSection(title: "S", emptyText: "Nothing yet", at: SectionPlacement(index: 0)),
        .renameSection(3, title: "T \"quoted\" \n é"),
        .setEmptyText(3, "e"),
        .setEmptyText(3, nil),
        .moveSection(3, to: SectionPlacement(after: [1], index: 0)),
        .deleteSection(3, force: true),
        .deleteSection(3, force: false),
    ]

    @Test func everyIntentReadsBackFromItsJSON() throws {
        for intent in Self.everyShape {
            #expect(try Intent(json: intent.json) == intent, "\(intent.json)")
        }
        #expect(Set(Self.everyShape.map(\.json)).count == Self.everyShape.count, "different intents, different texts")
    }

    @Test func theDocumentedFormIsTheOneWritten() throws {
        #expect(
            Intent.moveRow(12, to: RowPlacement(section: 3, before: [11, 10], after: [13], index: 2)).json
                == #"{"op":"moveRow","row":12,"to":{"after":[13],"before":[11,10],"index":2,"section":3}}"#)
        #expect(
            Intent.addRow(.field("Due", "Friday"), at: RowPlacement(section: 3, before: [7], index: 1)).json
                == #"{"at":{"after":[],"before":[7],"index":1,"section":3},"content":{"kind":"field","title":"Due","value":"Friday"},"op":"addRow"}"#)
        #expect(Intent.updateRow(12, title: "Call Aiko", value: .remove).json == #"{"op":"updateRow","row":12,"title":"Call Aiko","value":null}"#)
        #expect(Intent.deleteSection(3, force: true).json == #"{"force":true,"op":"deleteSection","section":3}"#)
        #expect(try Intent(json: #"{"op":"updateRow","row":5}"#) == .updateRow(5, title: nil, value: .keep), "absent keys keep")
    }

    @Test(arguments: [
        ("", "not an intent: the text is not JSON"),
        ("[1]", "not an intent: the intent is not what it should be"),
        (#"{"row":1}"#, #"not an intent: the intent has no "op""#),
        (
            #"{"op":"swapRows"}"#,
            #"not an intent: "op": unknown op "swapRows" (one of addRow, moveRow, updateRow, deleteRow, addSection, renameSection, setEmptyText, moveSection, deleteSection)"#
        ),
        (#"{"op":"deleteRow"}"#, #"not an intent: the intent has no "row""#),
        (#"{"op":"deleteRow","row":"7"}"#, #"not an intent: "row" is not what it should be"#),
        (#"{"op":"setEmptyText","section":1}"#, #"not an intent: the intent has no "emptyText""#),
        (#"{"op":"moveRow","row":1,"to":{"section":1,"before":[],"after":[],"index":-1}}"#, #"not an intent: "to.index": a negative index (-1)"#),
        (
            #"{"op":"addRow","content":{"kind":"note","title":"x"},"at":{"section":1,"before":[],"after":[],"index":0}}"#,
            #"not an intent: "content.kind""#
        ),
    ])
    func malformedIntentsAreRefusedSayingWhy(text: String, message: String) {
        do {
            let intent = try Intent(json: text)
            Issue.record("\(text) was read as \(intent)")
        } catch {
            #expect("\(error)".hasPrefix(message), "\(text): \(error)")
            #expect(!"\(error)".contains("\n"), "one line")
        }
    }

    @Test func aPlacementWithTooManyNeighboursIsRefused() {
        let ids = (1...65).map(String.init).joined(separator: ",")
        let text = #"{"op":"moveSection","section":1,"to":{"before":["# + ids + #"],"after":[],"index":0}}"#
        #expect(throws: RepositoryError.invalidData(#"not an intent: "to.before": more than 64 neighbours on a side (65)"#)) {
            try Intent(json: text)
        }
    }

    @Test(arguments: Backend.all) func recordedIntentsReadBackFromTheirJSONAndApplyTheSame(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        try Self.fill(fixture.store)
        let list = fixture.store.list(SectionStore.defaultList)
        var generator = SeededGenerator(seed: 61)
        for step in 0..<40 {
            let edit = SessionRebaseTests.randomEdit(
                try fixture.list.outline(), kinds: SessionRebaseTests.Kind.allCases, step: step, using: &generator)
            guard let intent = try? list.intent(of: edit) else { continue }
            let read = try Intent(json: intent.json)
            #expect(read == intent, "\(intent.json)")
            try list.apply(read)
        }
        #expect(try fixture.store.check() == [])
    }
}
