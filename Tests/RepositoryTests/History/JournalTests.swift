import Foundation
import SQLite
import TestSupport
import Testing

@testable import Repository

/// The change journal: each committed change's changeset under its version, plain-SQL changes
/// noticed, a bounded history, and list identity across deletion.
@Suite("Journal")
struct JournalTests {
    /// The journal's entries for list #1, oldest first.
    func entries(_ store: SectionStore, list: Int64 = 1) throws -> [(version: ListVersion, changes: String)] {
        try store.read { db in
            try db.query("SELECT version, changes FROM journal WHERE list_id = ? ORDER BY version", list) { (ListVersion($0.int64(0)), $0.string(1)) }
        }
    }

    @Test("every committed change journals its changeset under its version", arguments: Backend.all, propertySeeds([31, 32]))
    func everyChangeIsJournaled(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: seed)
        var changes: [Change] = []
        for title in ["A", "B", "C"] { changes.append(try store.list("default").apply(.addSection(title: title))) }
        for step in 0..<300 {
            let edit = randomEdit(try store.list("default").outline(), step: step, using: &generator)
            let before = try store.list("default").snapshot()
            guard let change = try? store.list("default").apply(edit) else { continue }
            changes.append(change)
            expectChangeset(change.changeset, turns: before, into: try store.list("default").snapshot(), "seed \(seed), step \(step), \(edit)")
        }
        let committed = changes.filter { !$0.changeset.isEmpty }
        let journal = try entries(store)
        #expect(journal.map(\.version) == committed.map(\.version), "seed \(seed): one entry per committed version")
        for (entry, change) in zip(journal, committed) {
            #expect((try? Changeset(json: entry.changes)) == change.changeset, "seed \(seed): version \(entry.version)")
        }
    }

    @Test(arguments: Backend.all) func aSavedSessionIsOneEntry(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        let session = try store.list("default").beginEditing()
        for index in 0..<10 { try session.apply(.addRow(.text("\(index)"), to: .at(0, 0))) }
        let saved = try session.save()
        let journal = try entries(store)
        #expect(journal.map(\.version) == [1, 2])
        #expect((try? Changeset(json: journal[1].changes)) == saved.changeset)
    }

    @Test(arguments: Backend.all) func aPlainSQLChangeMakesANewVersionJournaledAsAReload(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addRow(.text("a"), to: .at(0, 0)))
        let version = { try store.list("default").outline().version }
        let before = try version()
        // What someone types into the sqlite3 shell: the state it makes has a version of its own.
        try fixture.plainSQL("UPDATE rows SET title = 'changed behind its back'")
        #expect(try version() == before.next)
        var journal = try entries(store)
        #expect(journal.last?.version == before.next && journal.last?.changes == Journal.reloadJSON)
        #expect(try store.list("default").changes(since: before).isReload)
        #expect(try store.list("default").changes(since: before.next).changeset == Changeset())
        // The next change of sectionctl's own starts from that named state: an ordinary changeset.
        let next = try store.list("default").apply(.addRow(.text("b"), to: .at(0, 1)))
        #expect(next.version == before.advanced(by: 2))
        journal = try entries(store)
        #expect(journal.last?.version == next.version)
        #expect((try? Changeset(json: journal.last!.changes)) == next.changeset)
        #expect(try store.list("default").changes(since: before.next).changeset == next.changeset)
        #expect(try store.list("default").changes(since: before).isReload)
        // Every kind of plain write is noticed: rows, sections, and the list row itself.
        for script in [
            "INSERT INTO sections (list_id, position, title) VALUES (1, 99, 'x')",
            "UPDATE sections SET title = 'y' WHERE position = 99",
            "DELETE FROM sections WHERE position = 99",
            "DELETE FROM rows WHERE title = 'b'",
            "UPDATE lists SET name = 'renamed' WHERE id = 1",
        ] {
            try store.list("default").apply(.renameSection(.index(0), title: "t \(script.count)"))
            let current = try fixture.plainInt("SELECT version FROM lists WHERE id = 1")!
            try fixture.plainSQL(script)
            #expect(try fixture.plainInt("SELECT version FROM lists WHERE id = 1")! > current, "\(script)")
            #expect(
                try fixture.plainInt(
                    "SELECT count(*) FROM journal WHERE list_id = 1 AND version = (SELECT version FROM lists WHERE id = 1) AND changes = '{\"reload\":true}'"
                ) == 1,
                "\(script)")
            try fixture.plainSQL("UPDATE lists SET name = 'default' WHERE id = 1")
        }
    }

    @Test(arguments: Backend.all) func theJournalKeepsTheLastThousandVersions(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        for index in 0..<1_050 { try store.list("default").apply(.renameSection(.index(0), title: "\(index)")) }
        let journal = try entries(store)
        #expect(journal.count == 1_000)
        #expect(journal.first?.version == 52)
        #expect(journal.last?.version == 1_051)
    }

    @Test(arguments: Backend.all) func aListMadeAnewNeverReusesAVersion(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        for title in ["A", "B", "C"] { try store.list("default").apply(.addSection(title: title)) }
        #expect(try store.list("default").outline().version == 3)
        try store.deleteList("default", force: true)
        let created = try store.createList(named: "default")
        #expect(created.version == 4, "versions jump past the deleted list's, not restart")
        #expect(try store.list("default").outline().version == 4)
        #expect(try store.list("default").apply(.addSection(title: "again")).version == 5)
        // Renaming another list onto a retired name jumps it past that name's versions too.
        try store.createList(named: "other")
        try store.deleteList("default", force: true)
        let renamed = try store.renameList("other", to: "default")
        #expect(renamed.version == 7)
    }

    @Test("the journal's JSON reads back as the same changeset", arguments: Backend.all, propertySeeds([33]))
    func journalJSONRoundTrips(backend: Backend, seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        for _ in 0..<200 {
            var changeset = Changeset()
            func index() -> Int { Int.random(in: 0..<50, using: &generator) }
            func path() -> RowPath { RowPath(section: index(), row: index()) }
            changeset.deletedSections = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in index() }
            changeset.insertedSections = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in index() }
            changeset.movedSections = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in .init(from: index(), to: index()) }
            changeset.updatedSections = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in index() }
            changeset.deletedRows = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in path() }
            changeset.insertedRows = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in path() }
            changeset.movedRows = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in .init(from: path(), to: path()) }
            changeset.updatedRows = (0..<Int.random(in: 0..<4, using: &generator)).map { _ in path() }
            #expect((try? Changeset(json: changeset.json)) == changeset, "seed \(seed)")
        }
        #expect((try? Changeset(json: Journal.reloadJSON)) == nil)
    }

    @Test("changes since any kept version turn that version's snapshot into the current one", arguments: Backend.all, propertySeeds([34, 35]))
    func changesSinceComposeTheJournal(backend: Backend, seed: UInt64) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var generator = SeededGenerator(seed: seed)
        var snapshots: [ListVersion: ListSnapshot] = [0: try store.list("default").snapshot()]
        for step in 0..<250 {
            let edit = randomEdit(try store.list("default").outline(), step: step, using: &generator)
            guard let change = try? store.list("default").apply(edit), !change.changeset.isEmpty else { continue }
            snapshots[change.version] = try store.list("default").snapshot()
        }
        let current = try store.list("default").snapshot()
        for _ in 0..<60 {
            let since = snapshots.keys.randomElement(using: &generator)!
            let answer = try store.list("default").changes(since: since)
            let changeset = try #require(answer.changeset, "seed \(seed): since \(since)")
            #expect(answer.version == current.version && answer.from == since)
            var applied = try applying(changeset, to: snapshots[since]!, contentFrom: current)
            applied.version = current.version
            #expect(applied == current, "seed \(seed): changes since \(since)")
            let staging = stagingProblem(changeset, turns: snapshots[since]!, into: current)
            #expect(staging == nil, "seed \(seed): changes since \(since): \(staging ?? "")")
        }
        #expect(try store.list("default").changes(since: current.version).changeset == Changeset())
    }

    @Test(arguments: Backend.all) func changesSinceSaysReloadWhenTheJournalCannotSay(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addSection(title: "B"))
        #expect(try store.list("default").changes(since: 3).isReload, "a version newer than the list")
        #expect(try store.list("default").changes(since: -1).isReload)
        #expect(try store.list("default").changes(since: 0).changeset?.insertedSections == [0, 1])
        // (A version a row written on SQLite, where triggers run per row; one a statement on a server.)
        try fixture.plainSQL("UPDATE sections SET title = 'plain'")
        let plain = try store.list("default").outline().version
        #expect(plain > 2)
        #expect(try store.list("default").changes(since: 2).isReload, "plain SQL since the last version")
        try store.list("default").apply(.addSection(title: "C"))
        #expect(try store.list("default").changes(since: 1).isReload, "plain SQL between the two versions")
        #expect(try store.list("default").changes(since: plain).changeset?.insertedSections == [2], "from the state plain SQL made")
        #expect(try store.list("default").changes(since: plain.next).changeset?.isEmpty == true)
        for index in 0..<1_001 { try store.list("default").apply(.renameSection(.index(0), title: "\(index)")) }
        #expect(try store.list("default").changes(since: plain.next).isReload, "older than the journal keeps")
        #expect(try store.list("default").changes(since: plain.advanced(by: 2)).changeset?.updatedSections == [0])
    }
}
