import Dispatch
import Foundation
import HTTPServer
import PostgresCluster
import Synchronization
import TestSupport
import Testing
import Transfer

@testable import Repository
@testable import SyncService

/// A list's clone, streamed (`GET /lists/NAME/clone`, `SectionStore.clone(from:token:to:)`): the
/// server reads the list in one read transaction and sends it as it reads; the client writes it
/// as it arrives, and keeps it only when its end came and matched. A stream cut off, or one a
/// hostile server made, leaves no file.
@Suite("Streamed clones", .serialized)
struct CloneStreamTests {
    /// The files in `directory`, whatever their names (a clone's partial file starts with a dot).
    static func files(in directory: TemporaryDirectory) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: directory.path(""))
    }

    /// The list as sections of (id, content), with titles and empty texts.
    static func contents(_ store: SectionStore, list: String = SectionStore.defaultList) throws -> [String] {
        try store.list(list).snapshot().sections.map { section in
            "\(section.id.rawValue) \(section.title) \(section.emptyText ?? "-"): "
                + section.rows.map { "\($0.id.rawValue) \($0.content.kind.rawValue) \($0.content.title) \($0.content.value ?? "-")" }
                .joined(separator: " | ")
        }
    }

    @Test(arguments: Backend.all) func aCloneCarriesEveryKindOfRowAndEveryTextAsTheServerHasIt(backend: Backend) throws {
        let server = try StoreFixture(backend)
        let list = server.store.list(SectionStore.defaultList)
        try list.apply(.addSection(title: "Quotes \" and \\ back\nslash", emptyText: "nothing\there"))
        try list.apply(.addRow(.text("plain"), to: .at(0, 0)))
        try list.apply(.addRow(.topic("Heading ✓ 🛒"), to: .at(0, 1)))
        try list.apply(.addRow(.field("Due", "Friday \u{1}"), to: .at(0, 2)))
        try list.apply(.addRow(.field("No value", nil), to: .at(0, 3)))
        try list.apply(.addSection(title: "Empty"))
        try list.apply(.addSection(title: ""))
        try list.apply(.addRow(.text(""), to: .at(2, 0)))
        try list.apply(.deleteRow(.at(0, 0)))
        let served = try ServedStore(server.store)
        let directory = try TemporaryDirectory()
        let status = try SectionStore.clone(
            from: served.address(of: SectionStore.defaultList), token: try served.token(for: SectionStore.defaultList),
            to: directory.path("r.db"))
        let replica = try SectionStore(path: directory.path("r.db"))
        #expect(try Self.contents(replica) == Self.contents(server.store))
        #expect(status.serverVersion == 9)
        #expect(status.pendingIntents == 0)
        #expect(try replica.check().isEmpty)
        #expect(try Self.files(in: directory).filter { !$0.hasPrefix("r.db") } == [])
        // A sync after it finds the two alike.
        try server.store.list(SectionStore.defaultList).apply(.addRow(.text("after"), to: .at(1, 0)))
        _ = try replica.sync()
        #expect(try Self.contents(replica) == Self.contents(server.store))
    }

    /// The list's digest is the one docs/sync-protocol.md defines, so that another client can
    /// compute it: 64-bit FNV-1a over `S` and the section's id, its title, `-` or `+` and its
    /// empty text, then for each row `R` and its id, its kind, its title, `-` or `+` and its value,
    /// each field followed by the byte 0xFF; computed here from that text alone.
    @Test func theDigestIsTheProtocolsFNV1aOverTheListsFields() throws {
        let server = try StoreFixture(.sqlite)
        let list = server.store.list(SectionStore.defaultList)
        try list.apply(.addSection(title: "Fruit ✓", emptyText: "none"))
        try list.apply(.addRow(.text("Apples"), to: .at(0, 0)))
        try list.apply(.addRow(.field("Price", "1.20"), to: .at(0, 1)))
        try list.apply(.addRow(.field("No price", nil), to: .at(0, 2)))
        try list.apply(.addSection(title: ""))
        for index in 0..<12 { try list.apply(.addRow(.topic("t\(index)"), to: .at(1, index))) }
        let snapshot = try list.snapshot()
        var fields: [String] = []
        for section in snapshot.sections {
            fields += ["S\(section.id.rawValue)", section.title, section.emptyText.map { "+" + $0 } ?? "-"]
            for row in section.rows {
                fields += ["R\(row.id.rawValue)", row.content.kind.rawValue, row.content.title, row.content.value.map { "+" + $0 } ?? "-"]
            }
        }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in fields.flatMap({ Array($0.utf8) + [UInt8(0xFF)] }) { hash = (hash ^ UInt64(byte)) &* 0x0000_0100_0000_01b3 }
        let expected = String(hash, radix: 16)
        let digest = try server.store.read { db in try ListDigest.of(try db.listRecord(named: SectionStore.defaultList), db: db) }
        #expect(digest == String(repeating: "0", count: 16 - expected.count) + expected)
    }

    @Test(arguments: Backend.all) func aStreamedCloneIsOneVersionAndHoldsNoLockAWriteWaitsFor(backend: Backend) throws {
        let server = try StoreFixture(backend)
        let list = server.store.list(SectionStore.defaultList)
        try list.apply(.addSection(title: "A"))
        for index in 0..<50 { try list.apply(.addRow(.text("row \(index)"), to: .at(0, index))) }
        let before = try Self.contents(server.store)
        let store = server.store
        var lines: [UInt8] = []
        var wrote = false
        try store.streamClone(list: SectionStore.defaultList, opened: {}) { chunk in
            if !wrote {
                // A write while the clone's read is open goes through at once.
                wrote = true
                let done = DispatchSemaphore(value: 0)
                let result = Mutex<Result<Void, any Error>?>(nil)
                Thread.detachNewThread {
                    let outcome = Result { _ = try store.list(SectionStore.defaultList).apply(.addRow(.text("meanwhile"), to: .at(0, 0))) }
                    result.withLock { $0 = outcome }
                    done.signal()
                }
                #expect(done.wait(timeout: .now() + 60) == .success)
                #expect(throws: Never.self) { try result.withLock { $0 }?.get() }
            }
            lines += chunk
            return true
        }
        let text = String(decoding: lines, as: UTF8.self)
        #expect(text.hasPrefix("{\"format\":1,\"list\":\"default\",\"version\":51}\n"))
        #expect(!text.contains("meanwhile"))
        #expect(text.components(separatedBy: "\n").filter { $0.hasPrefix("{\"row\":") }.count == 50)
        #expect(try Self.contents(server.store) != before)
        #expect(try server.store.list(SectionStore.defaultList).snapshot().sections[0].rows.count == 51)
    }

    /// A server that registers a replica as the sync service would, and answers its clone with
    /// `lines` (joined by newlines) as they are.
    final class FakeServer {
        let server: HTTPServer
        let cloneAsked = DispatchSemaphore(value: 0)

        init(body: @escaping @Sendable (EventStream) -> Void) throws {
            let asked = cloneAsked
            server = try HTTPServer(host: "127.0.0.1", port: 0) { request in
                if request.path.hasSuffix("/replicas") {
                    return .json(
                        201,
                        #"{"list":"default","replica":"0123456789abcdef0123456789abcdef","row_ids":[[100,200]],"section_ids":[[100,200]],"version":3}"#
                    )
                }
                let stream = EventStream()
                body(stream)
                asked.signal()
                return HTTPResponse(status: 200, headers: [("Content-Type", "application/x-ndjson")], body: .stream(stream))
            }
        }

        var address: String { "http://127.0.0.1:\(server.port)/lists/default" }
    }

    static let header = #"{"format":1,"list":"default","version":3}"#
    static let section = #"{"section":1,"title":"A","empty_text":null}"#
    static let row = #"{"row":1,"kind":"text","title":"Milk","value":null}"#

    /// The end line of the list `[section]` followed by `rows` rows as `row` above, with the
    /// digest of those items unless `digest` is given.
    static func end(sections: Int = 1, rows: Int = 1, rowsDigested: Int? = nil, digest: String? = nil) -> String {
        var running = ListDigest.Running()
        running.add(section: 1, title: "A", emptyText: nil)
        for _ in 0..<(rowsDigested ?? rows) { running.add(row: 1, content: .text("Milk")) }
        return #"{"end":true,"sections":\#(sections),"rows":\#(rows),"digest":"\#(digest ?? running.hex)"}"#
    }

    /// Bodies no sync service sends, each with what the refusal says.
    static let hostile: [(name: String, lines: [String], reason: String)] = [
        ("no end line", [header, section, row], "it ends before its end line"),
        ("a body cut inside a line", [header, section, String(row.prefix(20))], "it ends inside a line"),
        ("a wrong digest", [header, section, row, end(digest: "0000000000000000")], "its digest is 0000000000000000"),
        ("wrong counts", [header, section, row, end(rows: 2, rowsDigested: 1)], "its end counts 1 sections and 2 rows; 1 and 1 came"),
        ("a row before any section", [header, row, section, end()], "row 1 comes before any section"),
        ("a row id twice", [header, section, row, row, end(rows: 2)], "is an id named twice?"),
        ("a line that is not JSON", [header, section, "Milk", end()], "line 3 is not one of a clone's"),
        ("a nested value", [header, section, #"{"row":1,"kind":"text","title":{"a":1},"value":null}"#, end()], "a value is not a string"),
        ("a value on a text row", [header, section, #"{"row":1,"kind":"text","title":"Milk","value":"x"}"#, end()], "a text row has a value"),
        ("an unknown kind", [header, section, #"{"row":1,"kind":"image","title":"Milk","value":null}"#, end()], "is not text, topic or field"),
        (
            "an unknown member", [header, section, #"{"row":1,"kind":"text","title":"Milk","value":null,"x":1}"#, end()],
            "a member \"x\" no clone line has"
        ),
        ("a fraction", [header, #"{"section":1.5,"title":"A","empty_text":null}"#, row, end()], "a number is not a whole number"),
        ("a line after the end", [header, section, row, end(), row], "line 5 comes after its end"),
        ("another format", [#"{"format":2,"list":"default","version":3}"#, section, row, end()], "this build reads format 1"),
        ("another list", [#"{"format":1,"list":"other","version":3}"#, section, row, end()], "it is of list \"other\""),
        ("no header", [section, row, end()], "it does not start with its header"),
        ("half a surrogate pair", [header, section, #"{"row":1,"kind":"text","title":"\ud800","value":null}"#, end()], "half a surrogate pair"),
        ("text that is not UTF-8", [header, section, #"{"row":1,"kind":"text","title":"NOT-UTF-8","value":null}"#, end()], "a string is not UTF-8"),
        ("a member twice", [header, section, #"{"row":1,"row":2,"kind":"text","title":"Milk","value":null}"#, end()], "it names \"row\" twice"),
    ]

    @Test(arguments: 0..<hostile.count) func aHostileOrTruncatedCloneIsRefusedAndWritesNothing(index: Int) throws {
        let (name, lines, expected) = Self.hostile[index]
        var body = Array((lines.joined(separator: "\n") + (name == "a body cut inside a line" ? "" : "\n")).utf8)
        // Bytes that are not UTF-8 where the line says so.
        if let start = body.indices.first(where: { body[$0...].starts(with: Array("NOT-UTF-8".utf8)) }) {
            body.replaceSubrange(start..<start + 9, with: [0xC3, 0x28])
        }
        let sent = body
        let fake = try FakeServer { stream in
            stream.send(sent)
            stream.finish()
        }
        let directory = try TemporaryDirectory()
        let error = #expect(throws: RepositoryError.self, "\(name)") {
            try SectionStore.clone(from: fake.address, token: "sct_test", to: directory.path("r.db"))
        }
        guard case .replica(.badAnswer(_, let reason))? = error else {
            Issue.record("\(name): \(String(describing: error))")
            return
        }
        #expect(reason.contains(expected) && reason.hasSuffix("nothing was written"), "\(name): \(reason)")
        #expect(try Self.files(in: directory) == [], "\(name)")
    }

    @Test func aCloneCutOffMidStreamLeavesNoFile() throws {
        let fake = try FakeServer { stream in
            stream.send(Array((Self.header + "\n" + Self.section + "\n" + Self.row + "\n").utf8))
        }
        let proxy = try SocketProxy(forwardingTCPPort: fake.server.port)
        let directory = try TemporaryDirectory()
        let outcome = Mutex<Result<ReplicaStatus, any Error>?>(nil)
        let done = DispatchSemaphore(value: 0)
        let address = "http://127.0.0.1:\(proxy.tcpPort)/lists/default"
        let path = directory.path("r.db")
        Thread.detachNewThread {
            let result = Result { try SectionStore.clone(from: address, token: "sct_test", to: path) }
            outcome.withLock { $0 = result }
            done.signal()
        }
        #expect(fake.cloneAsked.wait(timeout: .now() + 60) == .success)
        proxy.cut()
        #expect(done.wait(timeout: .now() + 60) == .success)
        let result = outcome.withLock { $0 }
        guard case .failure(let error)? = result else {
            Issue.record("a clone cut off succeeded: \(String(describing: result))")
            return
        }
        switch error as? RepositoryError {
        case .unavailable?, .replica(.badAnswer)?: break
        default: Issue.record("a cut clone failed with \(error)")
        }
        #expect(try Self.files(in: directory) == [])
    }

    @Test func clonesPastTheBoundAre503AndAClientThatLeavesFreesItsPlace() throws {
        let server = try StoreFixture(.sqlite)
        try server.store.importJSON(Data(Self.bigList(rows: 300_000).utf8))
        var limits = SyncServiceLimits()
        limits.concurrentClones = 1
        let served = try ServedStore(server.store, limits: limits)
        let token = try served.token(for: SectionStore.defaultList)
        let path = "/lists/default/clone"
        var first: RawHTTP.EventStream? = try RawHTTP.openStream(path, port: served.port, headers: [("Authorization", "Bearer \(token)")])
        #expect(first?.status == 200)
        #expect(first?.headers["content-type"] == "application/x-ndjson")
        let second = try RawHTTP.request("GET", path, port: served.port, headers: [("Authorization", "Bearer \(token)")])
        #expect(second.status == 503)
        #expect(second.headers["retry-after"] == "1")
        first = nil
        _ = first
        let directory = try TemporaryDirectory()
        let deadline = ContinuousClock.now + .seconds(60)
        while true {
            do {
                try SectionStore.clone(from: served.address(of: SectionStore.defaultList), token: token, to: directory.path("r.db"))
                break
            } catch RepositoryError.unavailable {
                // The first stream's reader notices at its next write that its client left.
                #expect(ContinuousClock.now < deadline)
                if ContinuousClock.now >= deadline { return }
                try? FileManager.default.removeItem(atPath: directory.path("r.db.token"))
                Thread.sleep(forTimeInterval: 0.05)
            }
        }
        let replica = try SectionStore(path: directory.path("r.db"))
        #expect(try replica.list(SectionStore.defaultList).snapshot().sections[0].rows.count == 300_000)
    }

    @Test func aCloneIsAGETWithATokenOfItsList() throws {
        let server = try StoreFixture(.sqlite)
        try server.store.createList(named: "other")
        let served = try ServedStore(server.store)
        let token = try served.token(for: SectionStore.defaultList, role: .read)
        let elsewhere = try RawHTTP.request("GET", "/lists/other/clone", port: served.port, headers: [("Authorization", "Bearer \(token)")])
        #expect(elsewhere.status == 403)
        let none = try RawHTTP.request("GET", "/lists/default/clone", port: served.port)
        #expect(none.status == 401)
        let posted = try RawHTTP.request("POST", "/lists/default/clone", port: served.port, headers: [("Authorization", "Bearer \(token)")], body: [])
        #expect(posted.status == 405)
        #expect(posted.headers["allow"] == "GET")
    }

    /// A native document of one section with `rows` text rows.
    static func bigList(rows: Int) -> String {
        "{\"format\":\"sectionctl\",\"version\":1,\"lists\":[{\"name\":\"default\",\"sections\":[{\"title\":\"All\",\"rows\":["
            + (0..<rows).map { "{\"title\":\"row \($0)\"}" }.joined(separator: ",") + "]}]}]}"
    }
}
