import Foundation
import TestSupport
import Testing

@testable import Repository

/// A deliberately plain model of one list: arrays, ids handed out in order like AUTOINCREMENT.
struct ListModel {
    struct ModelSection: Equatable {
        var id: SectionID
        var title: String
        var emptyText: String?
        var rows: [Row]
    }

    /// The kind of failure an edit must meet, so the store's error can be checked against it.
    enum Failure: Error, Equatable {
        case outOfRange, notFound, ambiguous, notEmpty, invalid
    }

    var sections: [ModelSection] = []
    var nextSectionID: Int64 = 1
    var nextRowID: Int64 = 1

    var snapshotSections: [Section] {
        sections.map { Section(id: $0.id, title: $0.title, emptyText: $0.emptyText, rows: $0.rows) }
    }

    func section(_ ref: SectionRef) -> Result<Int, Failure> {
        switch ref {
        case .index(let index):
            return index >= 0 && index < sections.count ? .success(index) : .failure(.outOfRange)
        case .id(let id):
            return sections.firstIndex { $0.id == id }.map { .success($0) } ?? .failure(.notFound)
        case .title(let title):
            let matches = sections.indices.filter { sections[$0].title == title }
            if matches.count > 1 { return .failure(.ambiguous) }
            return matches.first.map { .success($0) } ?? .failure(.notFound)
        }
    }

    func row(_ ref: RowRef) -> Result<(Int, Int), Failure> {
        switch ref {
        case .path(let sectionRef, let index):
            return section(sectionRef).flatMap { section in
                let count = sections[section].rows.count
                switch index {
                case .end: return count > 0 ? .success((section, count - 1)) : .failure(.outOfRange)
                case .index(let row): return row >= 0 && row < count ? .success((section, row)) : .failure(.outOfRange)
                }
            }
        case .id(let id):
            for (s, section) in sections.enumerated() {
                if let r = section.rows.firstIndex(where: { $0.id == id }) { return .success((s, r)) }
            }
            return .failure(.notFound)
        }
    }

    /// Applies an edit; returns the id of what it created, or the failure it must meet.
    mutating func apply(_ edit: Edit) -> Result<CreatedID?, Failure> {
        switch edit {
        case .addSection(let title, let emptyText, let at):
            let index = at ?? sections.count
            guard index >= 0 && index <= sections.count else { return .failure(.outOfRange) }
            sections.insert(ModelSection(id: SectionID(nextSectionID), title: title, emptyText: emptyText, rows: []), at: index)
            nextSectionID += 1
            return .success(.section(SectionID(nextSectionID - 1)))
        case .renameSection(let ref, let title):
            return section(ref).map {
                sections[$0].title = title
                return nil
            }
        case .setEmptyText(let ref, let text):
            return section(ref).map {
                sections[$0].emptyText = text
                return nil
            }
        case .moveSection(let ref, let to):
            return section(ref).flatMap { index in
                guard to >= 0 && to < sections.count else { return .failure(.outOfRange) }
                sections.insert(sections.remove(at: index), at: to)
                return .success(nil)
            }
        case .deleteSection(let ref, let force):
            return section(ref).flatMap { index in
                guard sections[index].rows.isEmpty || force else { return .failure(.notEmpty) }
                sections.remove(at: index)
                return .success(nil)
            }
        case .addRow(let content, let destination) where destination.anchor != nil:
            let anchor = destination.anchor!
            return row(.id(anchor.rowID)).map { s, r in
                let index: Int
                switch anchor {
                case .after: index = r + 1
                case .before: index = r
                }
                sections[s].rows.insert(Row(id: RowID(nextRowID), content: content), at: index)
                nextRowID += 1
                return .row(RowID(nextRowID - 1))
            }
        case .addRow(let content, let destination):
            return section(destination.section).flatMap { s in
                let count = sections[s].rows.count
                let index: Int
                switch destination.index {
                case .end: index = count
                case .index(let value): index = value
                }
                guard index >= 0 && index <= count else { return .failure(.outOfRange) }
                sections[s].rows.insert(Row(id: RowID(nextRowID), content: content), at: index)
                nextRowID += 1
                return .success(.row(RowID(nextRowID - 1)))
            }
        case .updateRow(let ref, let title, let value):
            return row(ref).flatMap { s, r in
                var content = sections[s].rows[r].content
                if let title { content.title = title }
                switch value {
                case .keep: break
                case .remove: content.value = nil
                case .set(let text):
                    guard content.kind == .field else { return .failure(.invalid) }
                    content.value = text
                }
                sections[s].rows[r].content = content
                return .success(nil)
            }
        case .deleteRow(let ref):
            return row(ref).map { s, r in
                sections[s].rows.remove(at: r)
                return nil
            }
        case .moveRow(let ref, let destination) where destination.anchor != nil:
            // Next to a row, by id: take the moving row out, find the anchor, put it beside.
            let anchor = destination.anchor!
            return row(ref).flatMap { s, r in
                row(.id(anchor.rowID)).map { _, _ in
                    guard sections[s].rows[r].id != anchor.rowID else { return nil }
                    let moving = sections[s].rows.remove(at: r)
                    guard case .success(let (target, index)) = row(.id(anchor.rowID)) else { return nil }
                    switch anchor {
                    case .after: sections[target].rows.insert(moving, at: index + 1)
                    case .before: sections[target].rows.insert(moving, at: index)
                    }
                    return nil
                }
            }
        case .moveRow(let ref, let destination):
            return row(ref).flatMap { s, r in
                section(destination.section).flatMap { target in
                    let count = sections[target].rows.count - (target == s ? 1 : 0)
                    let index: Int
                    switch destination.index {
                    case .end: index = count
                    case .index(let value): index = value
                    }
                    guard index >= 0 && index <= count else { return .failure(.outOfRange) }
                    let moving = sections[s].rows.remove(at: r)
                    sections[target].rows.insert(moving, at: index)
                    return .success(nil)
                }
            }
        }
    }
}

extension RepositoryError {
    var modelFailure: ListModel.Failure? {
        switch self {
        case .sectionIndexOutOfRange, .rowIndexOutOfRange: return .outOfRange
        case .sectionNotFound, .rowNotFound: return .notFound
        case .ambiguousSectionTitle: return .ambiguous
        case .sectionNotEmpty: return .notEmpty
        case .valueOnNonFieldRow, .textTooLong, .negativeWindowLimit, .emptyListName, .listNameContainsNUL: return .invalid
        default: return nil
        }
    }
}

/// Random edits, mostly valid, some addressing nothing, some ambiguous.
struct EditGenerator {
    var random: SeededGenerator
    let sectionTitles = ["To do", "Done", "未完了", "A", "B"]
    let rowTitles = ["Buy milk", "牛乳を買う", "🍎 apple", "tab\there", "quote \" and \\", "", "x"]

    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &random) }
    mutating func chance(_ percent: Int) -> Bool { int(0...99) < percent }

    mutating func sectionRef(_ model: ListModel) -> SectionRef {
        let roll = int(0...99)
        if roll < 70 { return .index(int(-1...model.sections.count)) }
        if roll < 85 {
            if let section = model.sections.randomElement(using: &random), chance(85) { return .id(section.id) }
            return .id(SectionID(Int64(int(1000...2000))))
        }
        return .title(sectionTitles.randomElement(using: &random)!)
    }

    mutating func rowRef(_ model: ListModel) -> RowRef {
        let roll = int(0...99)
        if roll < 30, let section = model.sections.randomElement(using: &random), let row = section.rows.randomElement(using: &random) {
            return chance(95) ? .id(row.id) : .id(RowID(Int64(int(5000...6000))))
        }
        let section = int(-1...model.sections.count)
        if roll < 40 { return .path(.index(section), .end) }
        let rows = model.sections.indices.contains(section) ? model.sections[section].rows.count : 2
        return .path(.index(section), .index(int(-1...rows)))
    }

    mutating func destination(_ model: ListModel) -> RowDestination {
        if chance(15) {
            // Next to a row named by id (sometimes one that does not exist).
            let rows = model.sections.flatMap(\.rows)
            let id = chance(90) ? rows.randomElement(using: &random)?.id ?? 7_777 : RowID(Int64(int(5000...6000)))
            return chance(50) ? .after(id) : .before(id)
        }
        let section = chance(90) ? SectionRef.index(int(-1...model.sections.count)) : sectionRef(model)
        if chance(20) { return RowDestination(section: section, index: .end) }
        var rows = 3
        if case .index(let index) = section, model.sections.indices.contains(index) { rows = model.sections[index].rows.count }
        return RowDestination(section: section, index: .index(int(-1...(rows + 1))))
    }

    mutating func content() -> RowContent {
        let title = rowTitles.randomElement(using: &random)!
        switch int(0...2) {
        case 0: return .text(title)
        case 1: return .topic(title)
        default: return .field(title, chance(70) ? "value \(int(0...99))" : nil)
        }
    }

    mutating func edit(_ model: ListModel) -> Edit {
        let roll = int(0...99)
        switch roll {
        case 0..<8:
            return .addSection(
                title: sectionTitles.randomElement(using: &random)!, emptyText: chance(20) ? "Nothing here" : nil,
                at: chance(50) ? nil : int(-1...(model.sections.count + 1)))
        case 8..<11: return .renameSection(sectionRef(model), title: sectionTitles.randomElement(using: &random)!)
        case 11..<13: return .setEmptyText(sectionRef(model), chance(50) ? "空です" : nil)
        case 13..<20: return .moveSection(sectionRef(model), to: int(-1...model.sections.count))
        case 20..<24: return .deleteSection(sectionRef(model), force: chance(50))
        case 24..<50: return .addRow(content(), to: destination(model))
        case 50..<57:
            let value: ValueUpdate = [.keep, .remove, .set("v\(int(0...9))")].randomElement(using: &random)!
            return .updateRow(rowRef(model), title: chance(50) ? rowTitles.randomElement(using: &random)! : nil, value: value)
        case 57..<64: return .deleteRow(rowRef(model))
        default: return .moveRow(rowRef(model), to: destination(model))
        }
    }
}

@Suite("Repository against a model")
struct ModelTests {
    @Test("random edits leave the store equal to the model, with consistent changesets", arguments: Backend.all, propertySeeds([1, 2, 3]))
    func randomEditsMatchTheModel(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var model = ListModel()
        var generator = EditGenerator(random: SeededGenerator(seed: seed))
        var before = try store.list("default").snapshot()
        for step in 0..<1500 {
            let edit = generator.edit(model)
            let context = "\(backend), seed \(seed), step \(step), edit \(edit)"
            let expected = model.apply(edit)
            do {
                let change = try store.list("default").apply(edit)
                guard case .success(let createdID) = expected else {
                    Issue.record("the store accepted an edit the model refused (\(expected)). \(context)")
                    return
                }
                try #require(change.createdID == createdID, "\(context)")
                let after = try store.list("default").snapshot()
                try #require(after.sections == model.snapshotSections, "snapshot differs from the model. \(context)")
                try requireChangeset(change.changeset, turns: before, into: after, context)
                let expectedVersion = change.changeset.isEmpty ? before.version : before.version.next
                try #require(after.version == expectedVersion && change.version == after.version, "\(context)")
                before = after
            } catch let error as RepositoryError {
                guard case .failure(let failure) = expected else {
                    Issue.record("the store refused an edit the model accepted: \(error). \(context)")
                    return
                }
                try #require(error.modelFailure == failure, "expected \(failure), got \(error). \(context)")
                try #require(try store.list("default").snapshot() == before, "a refused edit changed the list. \(context)")
            }
        }
        #expect(try store.list("default").snapshot().rowCount > 20, "the run should build a list of some size (seed \(seed))")
        #expect(try store.check() == [], "\(backend), seed \(seed): the rank structure and the counts after the run")
    }

    @Test("a saved session equals the same edits applied one by one", arguments: propertySeeds([11, 12, 13]))
    func sessionsMatchDirectEdits(seed: UInt64) throws {
        try compareSessionsWithDirectEdits(seed: seed, prefill: 0)
    }

    @Test("sessions on a list of some size match direct edits, reads included", arguments: propertySeeds([14, 15]))
    func sessionsOnALargerListMatchDirectEdits(seed: UInt64) throws {
        try compareSessionsWithDirectEdits(seed: seed, prefill: 300)
    }

    /// Runs random edits in sessions on one store and directly on another, and requires after
    /// every edit the same outcome (errors compared in full), the same draft as list, and the
    /// same answers from the reads at random places.
    func compareSessionsWithDirectEdits(seed: UInt64, prefill: Int) throws {
        let sessionSide = try ReplaceableStore()
        let directSide = try StoreFixture()
        var directStore = directSide.store
        var model = ListModel()
        var generator = EditGenerator(random: SeededGenerator(seed: seed))
        var roundsSaved = 0
        var roundsCancelled = 0
        // A start of some size: rows spread over three sections.
        for index in 0..<(prefill > 0 ? 3 : 0) {
            let edit = Edit.addSection(title: "Prefilled \(index)")
            _ = model.apply(edit)
            try sessionSide.store.list("default").apply(edit)
            try directSide.store.list("default").apply(edit)
        }
        for index in 0..<prefill {
            let edit = Edit.addRow(.text("row \(index)"), to: .init(section: .index(generator.int(0...2)), index: .end))
            _ = model.apply(edit)
            try sessionSide.store.list("default").apply(edit)
            try directSide.store.list("default").apply(edit)
        }
        for round in 0..<8 {
            // Both sides start equal, ids included: the session side starts each round as a copy
            // of the direct side.
            if round > 0 { try sessionSide.replaceDatabase(withCopyOf: directStore.path) }
            let start = try sessionSide.store.list("default").snapshot()
            #expect(start.sections == (try directStore.list("default").snapshot()).sections, "seed \(seed), round \(round)")
            // A round that ends in cancel keeps a copy of the direct side (ids and the next ids
            // included) and of the model, to go back to afterwards.
            let cancels = round % 4 == 3
            let backupPath = directSide.directory.path("before-round-\(round).db")
            if cancels {
                try directStore.connection.withLock { try $0.execute(script: "VACUUM INTO '\(backupPath)'") }
            }
            let modelAtStart = model
            let session = try sessionSide.store.list("default").beginEditing()
            var applied = 0
            // Stored ids on the direct side ⇄ draft ids, for sections and rows apart.
            var ids = IDMap()
            for step in 0..<40 {
                let edit = generator.edit(model)
                let context = "seed \(seed), round \(round), step \(step), edit \(edit)"
                let expected = model.apply(edit)
                var sessionError: RepositoryError?
                var directError: RepositoryError?
                var draftCreated: CreatedID?
                var directCreated: CreatedID?
                do {
                    draftCreated = try session.apply(edit.mappingIDs(sections: ids.draftSection, rows: ids.draftRow)).createdID
                } catch let error as RepositoryError { sessionError = error }
                do { directCreated = try directStore.list("default").apply(edit).createdID } catch let error as RepositoryError {
                    directError = error
                }
                switch (draftCreated, directCreated) {
                case (.section(let draft)?, .section(let direct)?): ids.addSection(draft: draft, direct: direct)
                case (.row(let draft)?, .row(let direct)?): ids.addRow(draft: draft, direct: direct)
                default: break
                }
                try #require(sessionError.map(ids.direct) == directError, "session and store disagree. \(context)")
                if case .failure(let failure) = expected {
                    try #require(sessionError?.modelFailure == failure, "\(context)")
                } else {
                    applied += 1
                }
                let direct = try directStore.list("default").snapshot()
                let draft = try session.snapshot()
                try #require(
                    draft.sections.map(contentOnly) == direct.sections.map(contentOnly),
                    "the draft differs from the directly edited list. \(context)")
                // The pending changes, composed edit by edit, turn the start into the draft.
                try requireChangeset(session.pendingChanges, turns: start, into: draft, context, exactFooters: false)
                try compareReads(session, directStore, direct: direct, ids: ids, generator: &generator, context)
            }
            #expect(session.editCount == applied)
            #expect(try sessionSide.store.list("default").snapshot() == start, "a session wrote before save (seed \(seed))")
            if cancels {
                session.cancel()
                #expect(try sessionSide.store.list("default").snapshot() == start)
                // The direct side goes back to where the round began, as the session side is.
                directStore = try SectionStore(path: backupPath)
                model = modelAtStart
                roundsCancelled += 1
                continue
            }
            let change = try session.save()
            roundsSaved += 1
            let saved = try sessionSide.store.list("default").snapshot()
            // Ids of what the round created may differ: the direct side spent ids on rows and
            // sections that the session created and deleted again without ever writing them.
            let known = start.sections.flatMap { [$0.id.rawValue] + $0.rows.map(\.id.rawValue) }.max() ?? 0
            #expect(
                withNewIDsHidden(saved.sections, known: known) == withNewIDsHidden(try directStore.list("default").snapshot().sections, known: known),
                "saved list differs (seed \(seed), round \(round))")
            #expect(change.version == start.version.advanced(by: change.changeset.isEmpty ? 0 : 1) && saved.version == change.version)
            try requireChangeset(change.changeset, turns: start, into: saved, "seed \(seed), round \(round)", exactFooters: false)
        }
        #expect(roundsSaved == 6 && roundsCancelled == 2, "every round ran (seed \(seed))")
    }

    /// The session's reads and the store's, at random places, agree in full (draft ids mapped).
    func compareReads(
        _ session: EditSession, _ store: SectionStore, direct: ListSnapshot, ids: IDMap, generator: inout EditGenerator,
        _ context: String
    ) throws {
        func same<T: Equatable>(_ draft: () throws -> T, _ stored: () throws -> T, map: (T) -> T, _ what: String) throws {
            let left = Result { try draft() }.map(map).mapError { ($0 as! RepositoryError) }
            // A store's read names the version it looked in; a draft is at no committed version.
            let right = Result { try stored() }.mapError { ($0 as! RepositoryError).withoutReadVersion }
            switch (left, right) {
            case (.success(let a), .success(let b)):
                try #require(a == b, "\(what): session \(a), store \(b). \(context)")
            case (.failure(let a), .failure(let b)):
                try #require(ids.direct(a) == b, "\(what): session \(a), store \(b). \(context)")
            default:
                Issue.record("\(what): session \(left), store \(right). \(context)")
                throw ChangesetApplicationError.invalid("reads disagree")
            }
        }
        var outline = try session.outline
        var storedOutline = try store.list("default").outline(editing: true)
        outline.version = 0
        storedOutline.version = 0
        outline.sections = outline.sections.map(ids.direct)
        try #require(outline == storedOutline, "outlines differ. \(context)")
        for _ in 0..<3 {
            let sectionIndex = generator.int(-1...direct.sections.count)
            let rows = direct.sections.indices.contains(sectionIndex) ? direct.sections[sectionIndex].rows.count : 2
            let path = RowPath(section: sectionIndex, row: generator.int(-1...rows))
            try same(
                { try session.row(at: path) },
                {
                    var row = try store.list("default").row(at: path)
                    row.version = nil
                    return row
                }, map: ids.direct, "row at \(path)")
            try same(
                { try session.row(.path(.index(sectionIndex), .end)) },
                {
                    var row = try store.list("default").row(.path(.index(sectionIndex), .end))
                    row.version = nil
                    return row
                }, map: ids.direct, "row \(sectionIndex):end")
            let limit = generator.int(0...7)
            try same(
                {
                    var window = try session.window(from: path, limit: limit)
                    window.version = 0
                    return window
                },
                {
                    var window = try store.list("default").window(from: path, limit: limit, editing: true)
                    window.version = 0
                    return window
                },
                map: ids.direct, "window from \(path), \(limit) rows")
            try same(
                {
                    var window = try session.window(startingAt: .path(.index(sectionIndex), .end), limit: limit)
                    window.version = 0
                    return window
                },
                {
                    var window = try store.list("default").window(startingAt: .path(.index(sectionIndex), .end), limit: limit, editing: true)
                    window.version = 0
                    return window
                },
                map: ids.direct, "window from \(sectionIndex):end, \(limit) rows")
        }
        let storedIDs = direct.sections.flatMap { $0.rows.map(\.id) }
        for _ in 0..<3 {
            let id =
                generator.chance(85) && !storedIDs.isEmpty
                ? storedIDs[generator.int(0...(storedIDs.count - 1))] : RowID(Int64(generator.int(-5...9000)))
            try same({ try session.path(ofRow: ids.draftRow(id)) }, { try store.list("default").path(ofRow: id) }, map: { $0 }, "path of #\(id)")
            try same(
                { try session.row(.id(ids.draftRow(id))) },
                {
                    var row = try store.list("default").row(.id(id))
                    row.version = nil
                    return row
                }, map: ids.direct, "row #\(id)")
            try same(
                {
                    var window = try session.window(startingAt: .id(ids.draftRow(id)), limit: 3)
                    window.version = 0
                    return window
                },
                {
                    var window = try store.list("default").window(startingAt: .id(id), limit: 3, editing: true)
                    window.version = 0
                    return window
                },
                map: ids.direct, "window from #\(id)")
        }
    }
}

extension RepositoryError {
    /// The error without the version a store's read names, as an edit session's draft reports it.
    fileprivate var withoutReadVersion: RepositoryError {
        switch self {
        case .sectionIndexOutOfRange(let index, let valid, _): return .sectionIndexOutOfRange(index, valid: valid)
        case .rowIndexOutOfRange(let index, let section, let valid, _): return .rowIndexOutOfRange(index, section: section, valid: valid)
        default: return self
        }
    }
}

/// Stored ids on the direct side and draft ids of the same things in a session, both ways.
struct IDMap {
    private var draftSections: [SectionID: SectionID] = [:]
    private var draftRows: [RowID: RowID] = [:]
    private var directSections: [SectionID: SectionID] = [:]
    private var directRows: [RowID: RowID] = [:]

    mutating func addSection(draft: SectionID, direct: SectionID) {
        draftSections[direct] = draft
        directSections[draft] = direct
    }

    mutating func addRow(draft: RowID, direct: RowID) {
        draftRows[direct] = draft
        directRows[draft] = direct
    }

    func draftSection(_ id: SectionID) -> SectionID { draftSections[id] ?? id }
    func draftRow(_ id: RowID) -> RowID { draftRows[id] ?? id }
    func directSection(_ id: SectionID) -> SectionID { directSections[id] ?? id }
    func directRow(_ id: RowID) -> RowID { directRows[id] ?? id }

    func direct(_ section: SectionInfo) -> SectionInfo {
        var section = section
        section.id = directSection(section.id)
        return section
    }

    func direct(_ row: Row) -> Row {
        var row = row
        row.id = directRow(row.id)
        return row
    }

    func direct(_ located: LocatedRow) -> LocatedRow {
        LocatedRow(path: located.path, row: direct(located.row), section: direct(located.section))
    }

    func direct(_ window: ListWindow) -> ListWindow {
        var window = window
        window.parts = window.parts.map { ListWindow.Part(section: direct($0.section), firstRow: $0.firstRow, rows: $0.rows.map(direct)) }
        return window
    }

    /// The error with draft ids in it turned into the direct side's ids.
    func direct(_ error: RepositoryError) -> RepositoryError {
        func section(_ ref: SectionRef) -> SectionRef {
            if case .id(let id) = ref { return .id(directSection(id)) }
            return ref
        }
        switch error {
        case .sectionNotFound(let ref, let list, let titles):
            return .sectionNotFound(section(ref), list: list, titles: titles)
        case .ambiguousSectionTitle(let title, let ids):
            return .ambiguousSectionTitle(title, ids: ids.map(directSection))
        case .rowNotFound(let id, let list):
            return .rowNotFound(directRow(id), list: list)
        case .valueOnNonFieldRow(let id, let kind):
            return .valueOnNonFieldRow(row: directRow(id), kind: kind)
        default:
            return error
        }
    }
}

/// A section's content without ids, for comparing a draft (whose new items have draft ids).
private func contentOnly(_ section: Section) -> [String] {
    [section.title, section.emptyText ?? "∅"] + section.rows.map { "\($0.kind):\($0.title):\($0.value ?? "∅")" }
}

extension Edit {
    /// The same edit with section ids and row ids mapped apart (stored ids of the two kinds overlap).
    func mappingIDs(sections: (SectionID) -> SectionID, rows: (RowID) -> RowID) -> Edit {
        func section(_ ref: SectionRef) -> SectionRef {
            if case .id(let id) = ref { return .id(sections(id)) }
            return ref
        }
        func destination(_ destination: RowDestination) -> RowDestination {
            switch destination.anchor {
            case .after(let id)?: return .after(rows(id))
            case .before(let id)?: return .before(rows(id))
            case nil: return RowDestination(section: section(destination.section), index: destination.index)
            }
        }
        func row(_ ref: RowRef) -> RowRef {
            switch ref {
            case .id(let id): return .id(rows(id))
            case .path(let sectionRef, let index): return .path(section(sectionRef), index)
            }
        }
        switch self {
        case .addSection: return self
        case .renameSection(let ref, let title): return .renameSection(section(ref), title: title)
        case .setEmptyText(let ref, let text): return .setEmptyText(section(ref), text)
        case .moveSection(let ref, let to): return .moveSection(section(ref), to: to)
        case .deleteSection(let ref, let force): return .deleteSection(section(ref), force: force)
        case .addRow(let content, let to): return .addRow(content, to: destination(to))
        case .updateRow(let ref, let title, let value): return .updateRow(row(ref), title: title, value: value)
        case .deleteRow(let ref): return .deleteRow(row(ref))
        case .moveRow(let ref, let to): return .moveRow(row(ref), to: destination(to))
        }
    }
}

/// The sections with every id above `known` replaced by 0: what a round created, whatever ids it got.
func withNewIDsHidden(_ sections: [Section], known: Int64) -> [Section] {
    sections.map { section in
        var copy = section
        if copy.id.rawValue > known { copy.id = 0 }
        copy.rows = copy.rows.map { row in
            var row = row
            if row.id.rawValue > known { row.id = 0 }
            return row
        }
        return copy
    }
}

/// A store whose database can be replaced by a copy of another's between uses.
final class ReplaceableStore {
    let directory: TemporaryDirectory
    private(set) var store: SectionStore

    init() throws {
        directory = try TemporaryDirectory()
        store = try SectionStore(path: directory.path("test.db"), create: true)
    }

    /// Closes the store, copies the database at `path` (with its write-ahead log) over it, and
    /// opens the copy. The other database must not be in the middle of a write.
    func replaceDatabase(withCopyOf path: String) throws {
        let own = store.path
        store = try SectionStore(path: directory.path("placeholder-\(UUID().uuidString).db"), create: true)
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: own + suffix) }
        for suffix in ["", "-wal"] where FileManager.default.fileExists(atPath: path + suffix) {
            try FileManager.default.copyItem(atPath: path + suffix, toPath: own + suffix)
        }
        store = try SectionStore(path: own)
    }
}
