import Foundation
import TestSupport
import Testing

@testable import Repository

/// A session on a list of many sections reads its sections as they are asked for, not as it
/// begins. These tests make drafts read that way on lists of any size (no list read whole, one
/// stored section a read), so that every lookup of a section goes to the database: by index,
/// by id, by title, and the neighbours of what moves.
@Suite("Edit sessions: sections read as asked")
struct SessionSectionReadTests {
    /// Drafts that read no list whole and one stored section at a time.
    static let oneAtATime = SessionDraft.SectionReads(wholeOutlineLimit: 0, sectionsPerRead: 1)

    @Test("random edits and undos match a stack of drafts, sections read one at a time", arguments: Backend.all, propertySeeds([61, 62]))
    func undoMatchesTheModel(backend: Backend, seed: UInt64) throws {
        try SessionDraft.$sectionReads.withValue(Self.oneAtATime) {
            try SessionUndoTests().undoLastEditMatchesTheModel(backend: backend, seed: seed)
        }
    }

    @Test("edits rebased by id land where they meant, sections read one at a time", arguments: Backend.all, propertySeeds([71, 72]))
    func rebasedEditsLandByID(backend: Backend, seed: UInt64) throws {
        try SessionDraft.$sectionReads.withValue(Self.oneAtATime) {
            try SessionRebaseTests().rebasedEditsLandByID(backend: backend, seed: seed)
        }
    }

    @Test("a session among other writers matches one alone, sections read one at a time", arguments: Backend.all, propertySeeds([71, 72]))
    func amongOtherWriters(backend: Backend, seed: UInt64) throws {
        try SessionDraft.$sectionReads.withValue(Self.oneAtATime) {
            try SessionTests().aSessionAmongOtherWritersMatchesOneAlone(backend: backend, seed: seed)
        }
    }

    @Test("a long session reads like a model, sections read one at a time", arguments: [1] as [UInt64])
    func longSessionMatchesTheModel(seed: UInt64) throws {
        try SessionDraft.$sectionReads.withValue(Self.oneAtATime) {
            try SessionIndexTests().manyRandomEditsReadLikeAModelAndSaveIt(seed: seed)
        }
    }

    /// Random edits naming sections by title (from a small pool, so that titles repeat and go
    /// missing) and by id, to a session and to the committed list of a twin file: each is taken
    /// or refused alike, with the same error (the titles a missing one lists, the ids an
    /// ambiguous one names), the draft reads as the twin's list, and `rowCount(of:)` by title
    /// answers as the twin's outline does. Run with drafts that read their sections one at a
    /// time, and as they read by default.
    @Test("sections named by title and id in a session act as on the list", arguments: [true, false], propertySeeds([5, 6, 7]))
    func titlesAndIDsActAsOnTheList(oneAtATime: Bool, seed: UInt64) throws {
        try SessionDraft.$sectionReads.withValue(oneAtATime ? Self.oneAtATime : SessionDraft.SectionReads()) {
            let main = try StoreFixture(.sqlite)
            let twin = try StoreFixture(.sqlite)
            let pool = ["A", "B", "C", "D", "E", "F"]
            var generator = SeededGenerator(seed: seed)
            for index in 0..<24 {
                let title = pool.randomElement(using: &generator)!
                for fixture in [main, twin] {
                    try fixture.list.apply(.addSection(title: title))
                    try fixture.list.apply(.addRow(.text("r\(index)"), to: .init(section: .index(index), index: .end)))
                }
            }
            // Both files give the same ids: they were built by the same edits.
            #expect(try main.list.outline().sections.map(\.id) == twin.list.outline().sections.map(\.id))
            let session = try main.list.beginEditing()
            for step in 0..<200 {
                let context: Comment = "seed \(seed), step \(step), one at a time: \(oneAtATime)"
                let outline = try twin.list.outline()
                let title = pool.randomElement(using: &generator)!
                let ref: SectionRef =
                    Bool.random(using: &generator) || outline.sections.isEmpty
                    ? .title(title) : .id(outline.sections.randomElement(using: &generator)!.id)
                let edit: Edit
                switch Int.random(in: 0..<6, using: &generator) {
                case 0: edit = .renameSection(ref, title: pool.randomElement(using: &generator)!)
                case 1: edit = .moveSection(ref, to: Int.random(in: 0..<max(1, outline.sections.count), using: &generator))
                case 2: edit = .addRow(.text("a\(step)"), to: .init(section: ref, index: .end))
                case 3 where step % 4 == 0: edit = .deleteSection(ref, force: true)
                case 4:
                    guard let section = outline.sections.filter({ $0.rowCount > 0 }).randomElement(using: &generator) else { continue }
                    edit = .moveRow(.at(section.index, 0), to: .init(section: ref, index: .end))
                default: edit = .setEmptyText(ref, "none \(step)")
                }
                let inSession = Result { try session.apply(edit) }
                let onList = Result { try twin.list.apply(edit) }
                switch (inSession, onList) {
                case (.success, .success): break
                case (.failure(let sessionError), .failure(let listError)):
                    #expect(sessionError as? RepositoryError == listError as? RepositoryError, "\(context): \(edit)")
                default:
                    Issue.record("\(context): \(edit) in the session: \(inSession), on the list: \(onList)")
                }
                let expected = try twin.list.snapshot()
                #expect(SessionTests.shape(try session.snapshot()) == SessionTests.shape(expected), context)
                let titled = expected.sections.filter { $0.title == title }
                let count = Result { try session.rowCount(of: .title(title)) }
                if titled.count == 1 {
                    #expect((try? count.get()) == titled[0].rows.count, context)
                } else {
                    #expect((try? count.get()) == nil, context)
                }
            }
            try session.save()
            #expect(SessionTests.shape(try main.list.snapshot()) == SessionTests.shape(try twin.list.snapshot()))
        }
    }

    /// A list of more sections than a session reads whole: the session begins without reading
    /// them, reads those it is asked for, and keeps them; once someone else changes the list,
    /// the sections it read stay readable and one it never read is a conflict, as a row is. A
    /// short list's outline is read whole as the session begins and stays readable.
    @Test(arguments: Backend.all) func aLongListsSectionsAreReadAsAskedAndKept(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let limit = SessionDraft.sectionReads.wholeOutlineLimit
        let filling = try fixture.list.beginEditing()
        for index in 0...limit { try filling.apply(.addSection(title: "S\(index)", at: index)) }
        try filling.save()
        let session = try fixture.list.beginEditing()
        let top = try session.outline(from: 0, limit: 10)
        #expect(top.sectionCount == limit + 1 && top.sections.map(\.title) == (0..<10).map { "S\($0)" })
        let change = try fixture.reopen().list("default").apply(.renameSection(.index(0), title: "renamed"))
        let conflict = RepositoryError.conflict(list: "default", sessionVersion: session.baseVersion, currentVersion: change.version)
        #expect(try session.outline(from: 0, limit: 10) == top)
        #expect(throws: conflict) { try session.outline(from: limit - 5, limit: 5) }
        #expect(throws: conflict) { try session.outline }
        #expect(try session.rowCount(of: .index(3)) == 0)

        // One section fewer: read whole as the session begins.
        try fixture.list.apply(.deleteSection(.index(limit)))
        let short = try fixture.list.beginEditing()
        let whole = try short.outline
        let again = try fixture.reopen().list("default").apply(.renameSection(.index(0), title: "again"))
        #expect(try short.outline == whole && short.outline(from: limit - 5, limit: 5).sections.count == 5)
        #expect(throws: RepositoryError.conflict(list: "default", sessionVersion: short.baseVersion, currentVersion: again.version)) {
            try short.window(from: RowPath(section: 0, row: 0), limit: 1)
        }
    }
}
