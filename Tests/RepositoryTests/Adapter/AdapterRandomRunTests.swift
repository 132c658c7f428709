import Foundation
import Repository
import TestSupport
import Testing

/// Seeded random runs of the adapter: another connection writes at random (edits, undo, and
/// `sqlite3`-style plain SQL, which journals no changeset) while a classic and a diffable view
/// and a view without sections (AppKit's) follow, one of them editing in a session (drags,
/// edits, rebases, saves, cancels). After every catch-up no view may break a rule of UIKit's or
/// AppKit's, show a stale cell, header or footer, animate nothing, or reload. Each step waits
/// for nothing but its own calls.
@MainActor
@Suite("The table view adapter, with other writers at random")
struct AdapterRandomRunTests {
    /// Commits per seed: four seeds make 10,000.
    static let commitsPerSeed = 2_500

    @Test("0 violations, 0 mismatches, 0 stale cells, 0 animated no-ops", arguments: propertySeeds([11, 12, 13, 14]))
    func randomRun(seed: UInt64) async throws {
        var generator = SeededGenerator(seed: seed)
        let fixture = try await threeByThree()
        let other = try fixture.reopen().list(SectionStore.defaultList)
        let views = try AdaptedViews(fixture.list)
        // The view that edits in sessions: the classic one, the diffable one or the one without
        // sections, by seed.
        let editor = [views.classic, views.diffable, views.flat][Int(seed % 3)]
        var commits = 0
        var sessionEdits = 0
        var saves = 0
        var rebases = 0
        var step = 0
        var sqlRenames = 0
        // Every title made is new, so that no two sections or rows look alike on screen (a
        // batch moving one past its twin would show nothing, and count as an animated no-op).
        var labels = 0
        func nextLabel() -> Int {
            labels += 1
            return labels
        }
        func context() -> String { "seed \(seed), step \(step)" }

        while commits < Self.commitsPerSeed {
            step += 1
            // Another writer commits one to six versions.
            for _ in 0..<Int.random(in: 1...6, using: &generator) {
                switch Int.random(in: 0..<10, using: &generator) {
                case 0, 1:
                    // Plain SQL, as `sqlite3` would: a rename, a no-op update, or a deletion.
                    // The row: the k-th by id, k seeded (what a seed does stays the same).
                    let k = Int.random(in: 0..<1_000, using: &generator)
                    let row = "(SELECT id FROM rows ORDER BY id LIMIT 1 OFFSET \(k) % max(1, (SELECT count(*) FROM rows)))"
                    sqlRenames += 1
                    switch Int.random(in: 0..<3, using: &generator) {
                    case 0: try fixture.plainSQL("UPDATE rows SET title = 'sql\(sqlRenames)' WHERE id = \(row)")
                    case 1: try fixture.plainSQL("UPDATE rows SET title = title WHERE id = \(row)")
                    default: try fixture.plainSQL("DELETE FROM rows WHERE id = \(row)")
                    }
                    commits += 1
                case 2:
                    if (try? await other.async.undo())?.committed == true { commits += 1 }
                default:
                    let outline = try await other.async.outline()
                    let edit: Edit
                    if outline.sections.count > 6, Bool.random(using: &generator) {
                        edit = .deleteSection(.index(0), force: true)
                    } else if outline.rowCount > 40 {
                        edit = .deleteRow(.at(outline.sections.firstIndex { $0.rowCount > 0 } ?? 0, 0))
                    } else {
                        edit = randomEdit(outline, step: nextLabel(), using: &generator)
                    }
                    if (try? await other.async.apply(edit))?.committed == true { commits += 1 }
                }
            }
            // The editing view: a session opens now and then; while open, one to three drags
            // and edits, and now and then a save (which may conflict and rebase) or a cancel.
            for _ in 0..<Int.random(in: 1...3, using: &generator) {
                if let session = editor.session {
                    switch Int.random(in: 0..<10, using: &generator) {
                    case 0:
                        do {
                            try editor.save()
                            saves += 1
                            commits += 1
                        } catch RepositoryError.conflict {
                            rebases += 1
                        }
                    case 1:
                        try editor.cancel()
                    case 2, 3, 4:
                        let sections = editor.snapshot.sections
                        if let from = sections.indices.filter({ !sections[$0].rows.isEmpty }).randomElement(using: &generator) {
                            let source = RowPath(section: from, row: Int.random(in: 0..<sections[from].rows.count, using: &generator))
                            let to = Int.random(in: 0..<sections.count, using: &generator)
                            let limit = sections[to].rows.count - (to == from ? 1 : 0)
                            let destination = RowPath(section: to, row: Int.random(in: 0...limit, using: &generator))
                            if editor === views.classic {
                                views.table.userMovesRow(from: IndexPath(source), to: IndexPath(destination))
                            } else if editor === views.flat {
                                // A drop above a row of the run, as AppKit reports it.
                                let layout = editor.flatLayout
                                let drop = Int.random(in: 1...layout.count, using: &generator)
                                if let destination = layout.destination(ofDropAbove: drop, from: source) {
                                    try editor.userMovedRow(from: source, to: destination)
                                }
                            } else {
                                try editor.userMovedRow(from: source, to: destination)
                            }
                            sessionEdits += 1
                        }
                    case 5:
                        if session.editCount > 0 {
                            do {
                                try editor.undoLastEdit()
                                sessionEdits += 1
                            } catch RepositoryError.conflict {
                                rebases += 1
                            }
                        }
                    default:
                        do {
                            try editor.apply(randomEdit(try session.outline, step: nextLabel(), using: &generator))
                            sessionEdits += 1
                        } catch RepositoryError.conflict {
                            rebases += 1
                        } catch {
                            // An edit the draft refuses changes nothing.
                        }
                    }
                } else if Int.random(in: 0..<4, using: &generator) == 0 {
                    try editor.beginEditing()
                }
            }
            try views.catchUp()
            let problems = views.problems()
            try #require(problems.isEmpty, "\(context()): \(problems)")
            let list = try await fixture.list.async.snapshot(editing: true)
            for adapter in [views.classic, views.diffable, views.flat] where adapter.session == nil {
                if list.version == adapter.snapshot.version {
                    try #require(adapter.snapshot == list, "\(context()): the adapter shows the list at its version")
                }
            }
        }
        if editor.session != nil { try editor.cancel() }
        try views.catchUp()
        let final = try await fixture.list.async.snapshot(editing: true)
        #expect(views.classic.snapshot == final && views.diffable.snapshot == final && views.flat.snapshot == final, "\(context())")
        #expect(views.problems().isEmpty, "\(context()): \(views.problems())")
        #expect(
            views.table.reloads == 1 && views.diffable.counts.reloads == 1 && views.flatTable.reloads == 1 && views.flat.counts.reloads == 0,
            "\(context()): no reload but the first")
        #expect(commits >= Self.commitsPerSeed)
        #expect(sessionEdits >= 250, "\(context()): \(sessionEdits) session edits")
        print(
            "seed \(seed): \(commits) commits in \(step) steps; \(sessionEdits) session edits, \(saves) saves, \(rebases) conflicts;",
            "classic \(views.classic.counts), diffable \(views.diffable.counts), flat \(views.flat.counts)")
    }
}
