import Foundation
import TestSupport
import Testing

@testable import Repository

/// Reads run on connections of their own where the database allows it, so that a table view's
/// `row(at:)` never waits for a write in progress (an import, a big save) — this store's own or
/// another's.
@Suite("Reads beside writes")
struct ReaderTests {
    /// A write holds its transaction open until the reads are done: were a read to queue behind
    /// it, the read would wait for the hang guard and the test would fail.
    @Test(arguments: Backend.all) func aReadDoesNotWaitForAWriteInProgressAndSeesTheLastCommit(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try store.list("default").apply(.addSection(title: "A"))
        try store.list("default").apply(.addRow(.text("committed"), to: .init(section: .index(0), index: .end)))
        #expect(store.readsBesideWrites)

        let writing = DispatchSemaphore(value: 0)
        let readsDone = DispatchSemaphore(value: 0)
        let writeEnded = DispatchSemaphore(value: 0)
        let writer = Thread {
            _ = try? store.write { db in
                _ = try db.run("UPDATE rows SET title = 'not yet committed'", arguments: [])
                writing.signal()
                // Holds the write until the reads are done (or the guard runs out).
                _ = readsDone.wait(timeout: .now() + hangGuardSeconds)
                throw CancellationError()  // rolls back
            }
            writeEnded.signal()
        }
        writer.start()
        #expect(writing.wait(timeout: .now() + hangGuardSeconds) == .success)
        let readStarted = ContinuousClock.now
        let row = try store.list("default").row(at: RowPath(section: 0, row: 0))
        let outline = try store.list("default").outline()
        let snapshot = try store.list("default").snapshot()
        let readTook = ContinuousClock.now - readStarted
        readsDone.signal()
        #expect(writeEnded.wait(timeout: .now() + hangGuardSeconds) == .success)

        #expect(row.row.title == "committed")
        #expect(outline.version == 2)
        #expect(snapshot.sections[0].rows.map(\.title) == ["committed"])
        // Only a guard: a read that waited would have waited for all of it.
        #expect(readTook < .seconds(hangGuardSeconds))
        #expect(try store.list("default").row(at: RowPath(section: 0, row: 0)).row.title == "committed")
    }

    /// A read on a reader sees what this store just committed, as a read on its own connection
    /// would: one after each write, from many threads at once.
    @Test(arguments: Backend.all) func readsSeeEveryWriteTheStoreCommitted(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try await store.list("default").async.apply(.addSection(title: "A"))
        try await withThrowingTaskGroup(of: Void.self) { group in
            for worker in 0..<4 {
                group.addTask {
                    for index in 0..<25 {
                        let change = try store.list("default").apply(.addRow(.text("\(worker)-\(index)"), to: .init(section: .index(0), index: .end)))
                        let id = try #require(change.createdID?.rowID)
                        // Read right after the commit: the row is there, at a version no older.
                        let path = try store.list("default").path(ofRow: id)
                        #expect(try store.list("default").row(at: path).row.title == "\(worker)-\(index)")
                        #expect(try store.list("default").outline().version >= change.version)
                    }
                }
            }
            try await group.waitForAll()
        }
        #expect(try await store.list("default").async.snapshot().sections[0].rows.count == 100)
    }

    /// A file not in WAL mode (a read-only store leaves a file's journal mode alone) is read on
    /// the store's own connection: there a writer would keep other connections' reads out.
    @Test func aFileNotInWALModeIsReadOnTheStoresConnection() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("shared.db")
        do {
            let store = try SectionStore(path: path, create: true)
            try store.list("default").apply(.addSection(title: "A"))
            #expect(store.readsBesideWrites)
        }
        try tamper(path: path, "PRAGMA journal_mode = DELETE")
        let plain = try SectionStore(path: path, readOnly: true)
        #expect(!plain.readsBesideWrites)
        #expect(try plain.list("default").outline().sections.map(\.title) == ["A"])
    }

    /// A store opened for a process that never reads while it writes (the command line) reads on
    /// its own connection: no reader is opened, and reads see its writes and another's commits.
    @Test func aStoreThatReadsOnItsOwnConnectionOpensNoReader() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("one.db")
        let store = try SectionStore(location: .file(path: path), create: true, readsBesideWrites: false)
        #expect(!store.readsBesideWrites)
        try store.list("default").apply(.addSection(title: "A"))
        let other = try SectionStore(path: path)
        try other.list("default").apply(.addRow(.text("from another"), to: .init(section: .index(0), index: .end)))
        #expect(try store.list("default").row(at: RowPath(section: 0, row: 0)).row.title == "from another")
        #expect(try store.list("default").outline().version == 2)
    }

    /// When no reader can be opened — here the file was removed while the store had it open —
    /// reads go on on the store's own connection, as they did before there were readers.
    @Test func whenNoReaderCanBeOpenedReadsUseTheStoresConnection() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path("removed.db")
        let store = try SectionStore(path: path, create: true)
        try store.list("default").apply(.addSection(title: "A"))
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: path + suffix) }
        #expect(try store.list("default").outline().sections.map(\.title) == ["A"])
    }
}
