import Foundation
import Repository
import TestSupport
import Testing

/// The service's live stream (`GET /lists/NAME/events`), read as raw HTTP on the test's own
/// thread: the events a follower gets, in order, resumed, across services, and refused.
@Suite("Event streams")
struct EventStreamTests {
    /// What an event's `data` says: the versions it leads between, and whether it carries changes.
    struct Carried: Decodable {
        var from: ListVersion
        var version: ListVersion
        var changes: [String: AnyDecodable]?
    }

    /// Any JSON value, read and dropped.
    struct AnyDecodable: Decodable {
        init(from decoder: any Decoder) throws {}
    }

    /// The events of `stream` until one reaches `version`: each as (id, from, version).
    static func events(of stream: RawHTTP.EventStream, until version: ListVersion) throws
        -> [(id: String?, from: ListVersion, version: ListVersion)]
    {
        var seen: [(String?, ListVersion, ListVersion)] = []
        while seen.last?.2 ?? -1 < version {
            guard let event = try stream.next() else { throw RawHTTP.Failure(description: "the stream ended after \(seen)") }
            guard event.name == "change" else { continue }
            let carried = try JSONDecoder().decode(Carried.self, from: Data(event.data.utf8))
            #expect(carried.changes != nil, "an event without changes: \(event.data)")
            seen.append((event.id, carried.from, carried.version))
        }
        return seen
    }

    @Test(arguments: Backend.all)
    func eachCommittedVersionReachesAFollowerAndAResumedOneCatchesUpFirst(backend: Backend) throws {
        let fixture = try StoreFixture(backend)
        let served = try ServedStore(fixture.store)
        let token = try served.token(for: "default", role: .read)
        try fixture.list.apply(.addSection(title: "A"))
        try fixture.list.apply(.addRow(.text("one"), to: .at(0, 0)))
        // Resumed after version 0: the first event carries the list from 0 to 2.
        let stream = try RawHTTP.openStream(
            "/lists/default/events", port: served.port, headers: [("Authorization", "Bearer \(token)"), ("Last-Event-ID", "0")])
        #expect(stream.status == 200 && stream.headers["content-type"]?.hasPrefix("text/event-stream") == true, "\(stream.status) \(stream.headers)")
        let first = try Self.events(of: stream, until: 2)
        #expect(first.map(\.from) == [0] && first.map(\.version) == [2] && first.map(\.id) == ["2"], "\(first)")
        // Then each committed version, in order, each event leading on from the last.
        try fixture.list.apply(.addRow(.text("two"), to: .at(0, 1)))
        try fixture.list.apply(.renameSection(.index(0), title: "B"))
        let next = try Self.events(of: stream, until: 4)
        #expect(next.first?.from == 2 && next.last?.version == 4, "\(next)")
        #expect(zip(next, next.dropFirst()).allSatisfy { $0.version == $1.from }, "\(next)")
        #expect(next.allSatisfy { $0.id == $0.version.description }, "\(next)")
    }

    @Test func sinceInTheQueryResumesAsLastEventIDDoes() throws {
        let fixture = try StoreFixture()
        let served = try ServedStore(fixture.store)
        let token = try served.token(for: "default", role: .read)
        for title in ["A", "B", "C"] { try fixture.list.apply(.addSection(title: title)) }
        let stream = try RawHTTP.openStream("/lists/default/events?since=1", port: served.port, headers: [("Authorization", "Bearer \(token)")])
        let events = try Self.events(of: stream, until: 3)
        #expect(events.map(\.from) == [1] && events.map(\.version) == [3], "\(events)")
    }

    @Test(.needs(.postgreSQL)) func aWriteThroughAnotherServiceOnTheSameServerReachesTheStream() throws {
        let fixture = try StoreFixture(.postgres)
        let first = try ServedStore(fixture.store)
        let second = try ServedStore(try fixture.reopen())
        let token = try first.token(for: "default", role: .edit)
        let stream = try RawHTTP.openStream(
            "/lists/default/events", port: first.port, headers: [("Authorization", "Bearer \(token)"), ("Last-Event-ID", "0")])
        #expect(stream.status == 200)
        // A replica syncs through the second service; the first learns of it from the server.
        let directory = try TemporaryDirectory()
        try SectionStore.clone(from: second.address(of: "default"), token: token, to: directory.path("r.db"))
        let replica = try SectionStore(path: directory.path("r.db"))
        try replica.list("default").apply(.addSection(title: "From the replica"))
        let report = try replica.sync()
        let events = try Self.events(of: stream, until: report.serverVersion)
        #expect(events.last?.version == report.serverVersion, "\(events) vs \(report.serverVersion)")
    }

    @Test func aStreamIsRefusedWithoutAValidTokenOfItsList() throws {
        let fixture = try StoreFixture()
        try fixture.store.createList(named: "other")
        let served = try ServedStore(fixture.store)
        let otherToken = try served.token(for: "other", role: .read)
        let wrong = try RawHTTP.openStream(
            "/lists/default/events", port: served.port, headers: [("Authorization", "Bearer sct_0000000000000000_wrong")])
        #expect(wrong.status == 401)
        let none = try RawHTTP.openStream("/lists/default/events", port: served.port)
        #expect(none.status == 401)
        let elsewhere = try RawHTTP.openStream("/lists/default/events", port: served.port, headers: [("Authorization", "Bearer \(otherToken)")])
        #expect(elsewhere.status == 403)
    }
}
