import Foundation
import RepositoryPostgres
import SQLite
import TestSupport
import Testing

@testable import Repository

/// Observers get one update per committed version, in order, from any connection; applying each
/// changeset to the snapshot they hold gives the list at that version, as a table view would.
// A guard against a hang only (a feed that never delivers): async tests wait for the
// cooperative pool while synchronous ones hold it, for many minutes on a loaded machine.
@Suite("Observation", .timeLimit(.minutes(60)))
struct ObservationTests {
    /// Random edits by a second connection; the snapshot after each committed version.
    func randomEdits(_ store: SectionStore, count: Int, seed: UInt64) throws -> [ListVersion: ListSnapshot] {
        var generator = SeededGenerator(seed: seed)
        var snapshots: [ListVersion: ListSnapshot] = [:]
        for step in 0..<count {
            let edit = randomEdit(try store.list("default").outline(), step: step, using: &generator)
            guard let change = try? store.list("default").apply(edit) else { continue }
            if !change.changeset.isEmpty { snapshots[change.version] = try store.list("default").snapshot() }
        }
        return snapshots
    }

    /// Collects updates from `stream` until one reaches `version` (or, against a hang, `limit`
    /// seconds pass).
    func collect(_ stream: ListFeed, until version: ListVersion, limit: Double = hangGuardSeconds) async throws -> [ListUpdate] {
        try await withThrowingTaskGroup(of: [ListUpdate]?.self) { group in
            group.addTask {
                var updates: [ListUpdate] = []
                for try await update in stream {
                    updates.append(update)
                    if update.version >= version || update.isDeleted { break }
                }
                return updates
            }
            group.addTask {
                try await Task.sleep(for: .seconds(limit))
                return nil
            }
            let first = try await group.next()!
            group.cancelAll()
            return first ?? []
        }
    }

    @Test("a table view applying every update stays equal to the list", arguments: Backend.all, propertySeeds([41, 42]))
    func aTableViewFollowsEveryVersion(backend: Backend, seed: UInt64) async throws {
        let fixture = try StoreFixture(backend)
        let viewStore = fixture.store
        let start = try await viewStore.list("default").async.snapshot()
        // Every version, however many the loop reads before the view takes the first.
        let stream = viewStore.list("default").updates(from: start.version, bufferLimit: .max)
        // Another connection (as another process would) makes the changes.
        let writer = try fixture.reopen()
        let snapshots = try randomEdits(writer, count: 300, seed: seed)
        let last = snapshots.keys.max()!
        let updates = try await collect(stream, until: last)
        #expect(updates.map(\.version) == Array((start.version.next)...last), "seed \(seed): one update per version, in order")
        var view = start
        for update in updates {
            let changeset = try #require(update.changeset, "seed \(seed): version \(update.version) has a changeset")
            let expected = snapshots[update.version]!
            // Footers too: an editing view refreshes the ones listed, and needs no other.
            #expect(footerProblem(changeset, turns: view, into: expected, exact: true) == nil, "seed \(seed): version \(update.version)")
            // Stage by stage, under UIKit's rules, the data source answering from each stage.
            let staging = stagingProblem(changeset, turns: view, into: expected)
            #expect(staging == nil, "seed \(seed): version \(update.version): \(staging ?? "")")
            view = try applying(changeset, to: view, contentFrom: expected)
            view.version = update.version
            #expect(view == expected, "seed \(seed): the view at version \(update.version)")
        }
    }

    @Test(arguments: Backend.all) func updatesArriveWhileTheObserverWaits(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let feed = fixture.list.updates()
        var updates = feed.makeAsyncIterator()
        let writer = try fixture.reopen()
        // Each commit after the observer has taken the one before: an update for each, in order.
        for index in 0..<5 {
            try await writer.list("default").async.apply(.addSection(title: "\(index)"))
            let update = try #require(try await updates.next())
            #expect(update.version == ListVersion(Int64(index + 1)) && update.from == ListVersion(Int64(index)))
            #expect(update.changeset?.insertedSections == [index])
        }
    }

    /// A consumer that does not take what waits gets the versions it missed as one update, and
    /// the feed holds no more than its limit meanwhile.
    @Test(arguments: Backend.all) func aConsumerThatFallsBehindGetsOneComposedUpdate(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try await store.list("default").async.apply(.addSection(title: "A"))
        try await store.list("default").async.apply(.addSection(title: "B"))
        let start = try await store.list("default").async.snapshot()
        let feed = store.list("default").updates(from: start.version, bufferLimit: 1)
        let writer = try fixture.reopen()
        var generator = SeededGenerator(seed: 7)
        var last = start.version
        for step in 0..<30 {
            let edit = randomEdit(try await writer.list("default").async.outline(), step: step, using: &generator)
            if let change = try? await writer.list("default").async.apply(edit), !change.changeset.isEmpty { last = change.version }
            #expect(feed.waiting.count <= 1, "the feed holds no more than its limit")
        }
        #expect(try await eventually { feed.waiting.last?.version == last }, "the feed read every version")
        #expect(feed.waiting.count == 1)
        var updates = feed.makeAsyncIterator()
        let composed = try #require(try await updates.next())
        #expect(composed.from == start.version && composed.version == last)
        let end = try await store.list("default").async.snapshot()
        var view = try applying(try #require(composed.changeset), to: start, contentFrom: end)
        view.version = composed.version
        #expect(view == end, "the composed changeset turns the view's state into the list's")
        // Caught up, it gets the next version on its own.
        let next = try await writer.list("default").async.apply(.addSection(title: "C"))
        let single = try #require(try await updates.next())
        #expect(single.from == last && single.version == next.version && single.changeset?.insertedSections == [end.sections.count])
    }

    /// Cancelling the task that iterates a feed ends the iteration and the feed's loop; dropping
    /// a feed ends its loop too.
    @Test(arguments: Backend.all) func cancellingTheTaskOrDroppingTheFeedEndsIt(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        var feed: ListFeed? = store.list("default").updates()
        let buffer = try #require(feed?.buffer)
        let first = AsyncStream<Void>.makeStream()
        let iterating = Task { [feed] in
            var received = 0
            for try await _ in feed! {
                received += 1
                first.continuation.yield()
            }
            return received
        }
        feed = nil
        try await store.list("default").async.apply(.addSection(title: "A"))
        var signals = first.stream.makeAsyncIterator()
        _ = await signals.next()  // the task got the update, and waits for the next
        iterating.cancel()
        #expect(try await iterating.value == 1, "the iteration ends without another update")
        #expect(try await eventually { buffer.loopHasEnded }, "the loop stopped")

        let droppedBuffer = store.list("default").updates().buffer  // the feed itself is dropped at once
        #expect(try await eventually { droppedBuffer.loopHasEnded }, "a feed nobody holds stops its loop")
    }

    @Test(arguments: Backend.all) func aPlainSQLChangeArrivesAsAReloadAndADeletionEndsTheSequence(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try await store.list("default").async.apply(.addSection(title: "A"))
        let watcher = try ListWatcher(location: fixture.location, server: .postgres, list: "default")
        // (On a server, `poll(waitingUpTo:)` waits for the notification a commit sends.)
        #expect(try watcher.poll().isEmpty)
        try fixture.plainSQL("UPDATE sections SET title = 'B'")
        let reload = try watcher.poll(waitingUpTo: hangGuardSeconds)
        #expect(reload.map(\.isReload) == [true])
        #expect(reload.first?.version == 2, "plain SQL made a version of its own")
        #expect(try watcher.poll().isEmpty, "the same plain change is reported once")
        try fixture.plainSQL("UPDATE sections SET title = 'B2'")
        let second = try watcher.poll(waitingUpTo: hangGuardSeconds)
        #expect(second.map(\.version) == [3] && second.first?.isReload == true, "a second plain change is reported too")
        try await store.list("default").async.apply(.addSection(title: "C"))
        let next = try watcher.poll(waitingUpTo: hangGuardSeconds)
        #expect(next.map(\.version) == [4] && next.first?.changeset?.insertedSections == [1], "the change after plain SQL has its changeset")
        try await store.list("default").async.apply(.addSection(title: "D"))
        #expect(try watcher.poll(waitingUpTo: hangGuardSeconds).first?.changeset?.insertedSections == [2])
        try store.deleteList("default", force: true)
        let deleted = try watcher.poll(waitingUpTo: hangGuardSeconds)
        #expect(deleted.map(\.isDeleted) == [true])
        #expect(try watcher.poll().isEmpty)
    }

    @Test(arguments: Backend.all) func aPlainStatementWritingManyRowsArrivesAsOneReload(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        for index in 0..<5 { try store.list("default").apply(.addRow(.text("r\(index)"), to: .at(0, index))) }
        let watcher = try ListWatcher(location: fixture.location, server: .postgres, list: "default")
        #expect(try watcher.poll().isEmpty)
        try fixture.plainSQL("UPDATE rows SET title = title || '!'")
        try store.list("default").apply(.addRow(.text("after"), to: .at(0, 0)))
        let latest = try store.list("default").outline().version
        // Wait for both commits: the plain one and sectionctl's.
        var updates: [ListUpdate] = []
        #expect(
            try waitUntil {
                updates += try watcher.poll(waitingUpTo: 1)
                return updates.last?.version == latest
            })
        #expect(updates.map(\.isReload) == [true, false], "one reload for the statement, then the change: \(updates.map(\.version))")
        #expect(updates.first?.version == latest.previous)
        #expect(updates.last?.changeset?.insertedRows == [RowPath(section: 0, row: 0)])
    }

    @Test(arguments: Backend.all) func catchingUpFromAPrunedVersionIsAReload(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        for index in 0..<1_005 { try store.list("default").apply(.renameSection(.index(0), title: "\(index)")) }
        let watcher = try ListWatcher(location: fixture.location, server: .postgres, list: "default", from: 2)
        let updates = try watcher.poll()
        #expect(updates.count == 1)
        #expect(updates.first?.isReload == true && updates.first?.version == 1_006)
        let recent = try ListWatcher(location: fixture.location, server: .postgres, list: "default", from: 1_000)
        #expect(try recent.poll().map(\.version) == Array(1_001...1_006))
    }
}
