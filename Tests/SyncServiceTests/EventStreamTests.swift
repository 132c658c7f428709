import Foundation
import Synchronization
import TestSupport
import Testing

@testable import Repository

/// The service's live stream (`GET /lists/NAME/events`), followed by the library's own client as
/// `sync --watch` follows it.
@Suite("Event streams", .serialized)
struct EventStreamTests {
    /// The versions a follower has seen.
    final class Seen: Sendable {
        let versions = Mutex<[Int64]>([])
        var all: [Int64] { versions.withLock { $0 } }
    }

    /// Waits, without holding a thread of the cooperative pool (the follower's task needs one),
    /// until `condition` holds; false when the hang guard ran out first.
    static func eventually(_ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + .seconds(hangGuardSeconds)
        while !condition() {
            guard ContinuousClock.now < deadline else { return false }
            try? await Task.sleep(for: .milliseconds(10))
        }
        return true
    }

    /// Follows list "default" of `served` from version `since`, noting each version in `seen`.
    static func follow(_ served: ServedStore, token: String, since: Int64, into seen: Seen) throws -> Task<Void, any Error> {
        let client = HTTPSyncClient(endpoint: try SyncEndpoint(served.address(of: "default"), token: token), timeout: .seconds(30))
        return Task.detached {
            try await client.followEvents(since: since) { version in seen.versions.withLock { $0.append(version) } }
        }
    }

    @Test(arguments: Backend.all)
    func eachCommittedVersionReachesAFollowerAndAResumedOneCatchesUpFirst(backend: Backend) async throws {
        let fixture = try StoreFixture(backend)
        let served = try ServedStore(fixture.store)
        let token = try served.token(for: "default", role: .read)
        try await fixture.list.apply(.addSection(title: "A"))
        try await fixture.list.apply(.addRow(.text("one"), to: .at(0, 0)))
        // Resumed from version 0: one event carries it to version 2, then each version follows.
        let seen = Seen()
        let following = try Self.follow(served, token: token, since: 0, into: seen)
        defer { following.cancel() }
        #expect(await Self.eventually { seen.all == [2] }, "\(seen.all)")
        try await fixture.list.apply(.addRow(.text("two"), to: .at(0, 1)))
        try await fixture.list.apply(.renameSection(.index(0), title: "B"))
        // Each version in order; under load two commits may come as one event (from 2 to 4).
        #expect(await Self.eventually { seen.all.last == 4 }, "\(seen.all)")
        #expect(seen.all.first == 2 && seen.all == seen.all.sorted() && Set(seen.all).count == seen.all.count, "\(seen.all)")
    }

    @Test(.needs(.postgreSQL)) func aWriteThroughAnotherServiceOnTheSameServerReachesTheStream() async throws {
        let fixture = try StoreFixture(.postgres)
        let first = try ServedStore(fixture.store)
        let second = try ServedStore(try fixture.reopen())
        let token = try first.token(for: "default", role: .edit)
        let seen = Seen()
        let following = try Self.follow(first, token: token, since: 0, into: seen)
        defer { following.cancel() }
        // A replica syncs through the second service; the first learns of it from the server.
        let directory = try TemporaryDirectory()
        try SectionStore.clone(from: second.address(of: "default"), token: token, to: directory.path("r.db"))
        let replica = try SectionStore(path: directory.path("r.db"))
        try await replica.list("default").apply(.addSection(title: "From the replica"))
        let report = try replica.sync()
        #expect(await Self.eventually { seen.all.last == report.serverVersion }, "\(seen.all) vs \(report.serverVersion)")
    }

    @Test func aStreamIsRefusedWithoutAValidTokenOfItsList() async throws {
        let fixture = try StoreFixture()
        let served = try ServedStore(fixture.store)
        let seen = Seen()
        let client = HTTPSyncClient(
            endpoint: try SyncEndpoint(served.address(of: "default"), token: "sct_0000000000000000_wrong"), timeout: .seconds(30))
        let done = Mutex<Result<Void, any Error>?>(nil)
        let task = Task.detached {
            do {
                try await client.followEvents(since: 0) { version in seen.versions.withLock { $0.append(version) } }
                done.withLock { $0 = .success(()) }
            } catch {
                done.withLock { $0 = .failure(error) }
            }
        }
        defer { task.cancel() }
        #expect(await Self.eventually { done.withLock { $0 != nil } })
        let failed = done.withLock { result -> Bool in
            guard case .failure(RepositoryError.replica(.refusedByServer(_, 401, _))) = result else { return false }
            return true
        }
        #expect(failed, "\(String(describing: done.withLock { $0 }))")
        #expect(seen.all.isEmpty)
    }
}
