import Foundation
import Testing

@testable import Repository

/// A deliberately plain model of one list: arrays, ids handed out in order like AUTOINCREMENT.
struct ListModel {
    struct ModelSection: Equatable {
        var id: Int64
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
    mutating func apply(_ edit: Edit) -> Result<Int64?, Failure> {
        switch edit {
        case .addSection(let title, let emptyText, let at):
            let index = at ?? sections.count
            guard index >= 0 && index <= sections.count else { return .failure(.outOfRange) }
            sections.insert(ModelSection(id: nextSectionID, title: title, emptyText: emptyText, rows: []), at: index)
            nextSectionID += 1
            return .success(nextSectionID - 1)
        case .renameSection(let ref, let title):
            return section(ref).map { sections[$0].title = title; return nil }
        case .setEmptyText(let ref, let text):
            return section(ref).map { sections[$0].emptyText = text; return nil }
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
        case .addRow(let content, let destination):
            return section(destination.section).flatMap { s in
                let count = sections[s].rows.count
                let index: Int
                switch destination.index {
                case .end: index = count
                case .index(let value): index = value
                }
                guard index >= 0 && index <= count else { return .failure(.outOfRange) }
                sections[s].rows.insert(Row(id: nextRowID, content: content), at: index)
                nextRowID += 1
                return .success(nextRowID - 1)
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
            return row(ref).map { s, r in sections[s].rows.remove(at: r); return nil }
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
        case .invalidInput: return .invalid
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
            return .id(Int64(int(1000...2000)))
        }
        return .title(sectionTitles.randomElement(using: &random)!)
    }

    mutating func rowRef(_ model: ListModel) -> RowRef {
        let roll = int(0...99)
        if roll < 30, let section = model.sections.randomElement(using: &random), let row = section.rows.randomElement(using: &random) {
            return chance(95) ? .id(row.id) : .id(Int64(int(5000...6000)))
        }
        let section = int(-1...model.sections.count)
        if roll < 40 { return .path(.index(section), .end) }
        let rows = model.sections.indices.contains(section) ? model.sections[section].rows.count : 2
        return .path(.index(section), .index(int(-1...rows)))
    }

    mutating func destination(_ model: ListModel) -> RowDestination {
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
    @Test("random edits leave the store equal to the model, with consistent changesets", arguments: propertySeeds([1, 2, 3]))
    func randomEditsMatchTheModel(seed: UInt64) throws {
        let fixture = try StoreFixture()
        let store = fixture.store
        var model = ListModel()
        var generator = EditGenerator(random: SeededGenerator(seed: seed))
        var before = try store.snapshot()
        for step in 0..<1500 {
            let edit = generator.edit(model)
            let context = "seed \(seed), step \(step), edit \(edit)"
            let expected = model.apply(edit)
            do {
                let change = try store.apply(edit)
                guard case .success(let createdID) = expected else {
                    Issue.record("the store accepted an edit the model refused (\(expected)). \(context)")
                    return
                }
                try #require(change.createdID == createdID, "\(context)")
                let after = try store.snapshot()
                try #require(after.sections == model.snapshotSections, "snapshot differs from the model. \(context)")
                try requireChangeset(change.changeset, turns: before, into: after, context)
                let expectedVersion = change.changeset.isEmpty ? before.version : before.version + 1
                try #require(after.version == expectedVersion && change.version == after.version, "\(context)")
                before = after
            } catch let error as RepositoryError {
                guard case .failure(let failure) = expected else {
                    Issue.record("the store refused an edit the model accepted: \(error). \(context)")
                    return
                }
                try #require(error.modelFailure == failure, "expected \(failure), got \(error). \(context)")
                try #require(try store.snapshot() == before, "a refused edit changed the list. \(context)")
            }
        }
        #expect(try store.snapshot().rowCount > 20, "the run should build a list of some size (seed \(seed))")
    }

    @Test("a saved session equals the same edits applied one by one", arguments: propertySeeds([11, 12, 13]))
    func sessionsMatchDirectEdits(seed: UInt64) throws {
        let sessionSide = try StoreFixture()
        let directSide = try StoreFixture()
        var directStore = directSide.store
        var model = ListModel()
        var generator = EditGenerator(random: SeededGenerator(seed: seed))
        var roundsSaved = 0
        var roundsCancelled = 0
        for round in 0..<8 {
            // Both sides start equal, ids included.
            let start = try sessionSide.store.snapshot()
            #expect(start.sections == (try directStore.snapshot()).sections, "seed \(seed), round \(round)")
            // A round that ends in cancel keeps a copy of the direct side (ids and the next ids
            // included) and of the model, to go back to afterwards.
            let cancels = round % 4 == 3
            let backupPath = directSide.directory.path("before-round-\(round).db")
            if cancels {
                try directStore.connection.withLock { try $0.execute(script: "VACUUM INTO '\(backupPath)'") }
            }
            let modelAtStart = model
            let session = try sessionSide.store.beginEditing()
            var applied = 0
            // Stored ids on the direct side → draft ids, for sections and rows apart.
            var draftSectionIDs: [Int64: Int64] = [:]
            var draftRowIDs: [Int64: Int64] = [:]
            for step in 0..<40 {
                let edit = generator.edit(model)
                let context = "seed \(seed), round \(round), step \(step), edit \(edit)"
                let expected = model.apply(edit)
                var sessionError: RepositoryError?
                var directError: RepositoryError?
                var draftCreated: Int64?
                var directCreated: Int64?
                do {
                    draftCreated = try session.apply(
                        edit.mappingIDs(sections: { draftSectionIDs[$0] ?? $0 }, rows: { draftRowIDs[$0] ?? $0 })
                    ).createdID
                } catch let error as RepositoryError { sessionError = error }
                do { directCreated = try directStore.apply(edit).createdID } catch let error as RepositoryError { directError = error }
                if let draftCreated, let directCreated {
                    if case .addSection = edit { draftSectionIDs[directCreated] = draftCreated } else { draftRowIDs[directCreated] = draftCreated }
                }
                try #require(sessionError?.modelFailure == directError?.modelFailure && (sessionError == nil) == (directError == nil), "session and store disagree. \(context)")
                if case .failure(let failure) = expected {
                    try #require(sessionError?.modelFailure == failure, "\(context)")
                } else {
                    applied += 1
                }
                let direct = try directStore.snapshot()
                try #require(
                    session.draft.sections.map(contentOnly) == direct.sections.map(contentOnly),
                    "the draft differs from the directly edited list. \(context)")
                }
            #expect(session.editCount == applied)
            #expect(try sessionSide.store.snapshot() == start, "a session wrote before save (seed \(seed))")
            if cancels {
                session.cancel()
                #expect(try sessionSide.store.snapshot() == start)
                // The direct side goes back to where the round began, as the session side is.
                directStore = try SectionStore(path: backupPath)
                model = modelAtStart
                roundsCancelled += 1
                continue
            }
            let change = try session.save()
            roundsSaved += 1
            let saved = try sessionSide.store.snapshot()
            #expect(saved.sections == (try directStore.snapshot()).sections, "saved list differs (seed \(seed), round \(round))")
            #expect(change.version == start.version + (applied > 0 ? 1 : 0) && saved.version == change.version)
            try requireChangeset(change.changeset, turns: start, into: saved, "seed \(seed), round \(round)")
        }
        #expect(roundsSaved == 6 && roundsCancelled == 2, "every round ran (seed \(seed))")
        #expect(try sessionSide.store.snapshot().sections == (try directStore.snapshot()).sections)
    }
}

/// A section's content without ids, for comparing a draft (whose new items have draft ids).
private func contentOnly(_ section: Section) -> [String] {
    [section.title, section.emptyText ?? "∅"] + section.rows.map { "\($0.kind):\($0.title):\($0.value ?? "∅")" }
}


extension Edit {
    /// The same edit with section ids and row ids mapped apart (stored ids of the two kinds overlap).
    func mappingIDs(sections: (Int64) -> Int64, rows: (Int64) -> Int64) -> Edit {
        func section(_ ref: SectionRef) -> SectionRef {
            if case .id(let id) = ref { return .id(sections(id)) }
            return ref
        }
        func destination(_ destination: RowDestination) -> RowDestination {
            RowDestination(section: section(destination.section), index: destination.index)
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
