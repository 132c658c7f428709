import Foundation
import Repository
import TestSupport
import Testing
import Transfer

/// A long import asked for with `await` stops when its task is cancelled, and writes nothing.
@Suite("Cancelling an import")
struct CancellationTests {
    @Test(arguments: Backend.all) func anImportCancelledThroughItsTaskWritesNothing(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let store = fixture.store
        try await store.list("default").async.apply(.addSection(title: "Kept"))
        let before = try await store.list("default").async.snapshot()
        let records = "[" + (0..<20_000).map { #"{"name":"record \#($0)","n":\#($0)}"# }.joined(separator: ",") + "]"
        let started = AsyncStream<Void>.makeStream()
        let cancelled = DispatchSemaphore(value: 0)
        let importing = Task {
            try await store.perform { store in
                try store.importRecords(Data(records.utf8), options: RecordsImportOptions(list: "default")) { _ in
                    // The import is under way (on a thread of its own, not the cooperative
                    // pool): hold it until the task is cancelled.
                    started.continuation.yield()
                    if cancelled.wait(timeout: .now() + hangGuardSeconds) == .success { cancelled.signal() }
                }
            }
        }
        var underWay = started.stream.makeAsyncIterator()
        await underWay.next()
        importing.cancel()
        cancelled.signal()
        await #expect(throws: CancellationError.self) { try await importing.value }
        #expect(try await store.list("default").async.snapshot() == before, "nothing of the import was written")
        // The store works on: the same import, not cancelled, writes every record.
        let change = try await store.perform { try $0.importRecords(Data(records.utf8), options: RecordsImportOptions(list: "default")) }
        #expect(change.changeset.insertedSections.count == 20_000)
    }
}
