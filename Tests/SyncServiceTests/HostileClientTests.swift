import Foundation
import Repository
import TestSupport
import Testing

@testable import SyncService

/// The sync service against clients that lie, guess and overreach, each written as raw HTTP over a
/// socket: every abuse gets its documented status and a one-line JSON error naming the problem,
/// writes nothing (the lists, their versions, the journal and the replicas' records stay as they
/// were), and leaks nothing (no token's text in any answer, no list read with another's token).
@Suite("Hostile clients")
struct HostileClientTests {
    /// A served store with two lists — "default" (a section "Basket" with a text row "Milk" and a
    /// field row "Due") and "other" (a section "Private" with a row "Secret plans") — and tokens of
    /// both; every answer it gets is checked for leaked tokens.
    final class Fixture {
        let server: StoreFixture
        let served: ServedStore
        /// Edit tokens of "default" (two of them) and "other", and a read token of "default".
        let edit: String
        let secondEdit: String
        let otherEdit: String
        let read: String
        /// Every token made, whose text no answer may hold.
        private(set) var issued: [String] = []

        var store: SectionStore { server.store }
        var port: UInt16 { served.port }

        init(_ backend: Backend, limits: SyncServiceLimits = SyncServiceLimits()) throws {
            server = try StoreFixture(backend)
            let list = server.store.list(SectionStore.defaultList)
            try list.apply(.addSection(title: "Basket"))
            try list.apply(.addRow(.text("Milk"), to: .at(0, 0)))
            try list.apply(.addRow(.field("Due", "Friday"), to: .at(0, 1)))
            try server.store.createList(named: "other")
            try server.store.list("other").apply(.addSection(title: "Private"))
            try server.store.list("other").apply(.addRow(.text("Secret plans"), to: .at(0, 0)))
            served = try ServedStore(server.store, limits: limits)
            edit = try served.token(for: SectionStore.defaultList)
            secondEdit = try served.token(for: SectionStore.defaultList)
            otherEdit = try served.token(for: "other")
            read = try served.token(for: SectionStore.defaultList, role: .read)
            issued = [edit, secondEdit, otherEdit, read]
        }

        /// Remembers a token made outside `init`, so that answers are checked for it too.
        func made(_ token: String) -> String {
            issued.append(token)
            return token
        }

        /// Sends `method path` with `body` and, unless `nil`, `Authorization: authorization`; checks
        /// that the answer holds no token, nor any token's secret.
        func send(
            _ method: String, _ path: String, authorization: String?, body: [UInt8]? = nil, sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> RawHTTP.Answer {
            let headers = authorization.map { [("Authorization", $0)] } ?? []
            let answer = try RawHTTP.request(method, path, port: port, headers: headers, body: body)
            for token in issued {
                let secret = String(token.dropFirst("sct_0123456789abcdef_".count))
                #expect(!answer.text.contains(token) && !answer.text.contains(secret), "an answer shows a token", sourceLocation: sourceLocation)
            }
            return answer
        }

        /// `POST /lists/LIST/ACTION` with `body`, carrying `token` as a bearer token.
        func post(
            _ action: String, list: String = SectionStore.defaultList, token: String?, body: String = "{}",
            sourceLocation: SourceLocation = #_sourceLocation
        ) throws -> RawHTTP.Answer {
            try send(
                "POST", "/lists/\(list)/\(action)", authorization: token.map { "Bearer \($0)" }, body: Array(body.utf8),
                sourceLocation: sourceLocation)
        }

        /// A replica registered through the API with `token`.
        func register(_ token: String, list: String = SectionStore.defaultList) throws -> Registered {
            let answer = try post("replicas", list: list, token: token)
            try #require(answer.status == 201, "\(answer.text)")
            return try JSONDecoder().decode(Registered.self, from: Data(answer.body))
        }

        /// A sync of `replica` that must succeed.
        @discardableResult
        func sync(_ replica: String, token: String, known: ListVersion = 0, intents: [String] = [], read: String = Fixture.noReads) throws -> Synced {
            let answer = try post("sync", token: token, body: Self.syncBody(replica, known: known, intents: intents, read: read))
            try #require(answer.status == 200, "\(answer.text)")
            return try JSONDecoder().decode(Synced.self, from: Data(answer.body))
        }

        /// Everything a request could write: each list's snapshot and version, and the sync
        /// service's records, summed so that any changed row shows.
        func fingerprint() throws -> Fingerprint {
            var snapshots: [String: ListSnapshot] = [:]
            for list in try store.lists() { snapshots[list.name] = try store.list(list.name).snapshot() }
            let queries = [
                "SELECT count(*) FROM sync_replicas", "SELECT coalesce(sum(last_sequence), 0) FROM sync_replicas",
                "SELECT count(last_intent) FROM sync_replicas", "SELECT count(*) FROM sync_blocks",
                "SELECT coalesce(sum(first * 3 + last), 0) FROM sync_blocks", "SELECT count(*) FROM sync_unused_ids",
                "SELECT coalesce(sum(first * 3 + last), 0) FROM sync_unused_ids", "SELECT count(*) FROM journal",
                "SELECT coalesce(sum(version), 0) FROM journal", "SELECT coalesce(sum(version), 0) FROM lists", "SELECT count(*) FROM tokens",
            ]
            let counts = try store.read { db in
                var counts: [String: Int64] = [:]
                for query in queries { counts[query] = try db.scalarInt(query) ?? -1 }
                counts["highest row id given"] = try db.highestIDGiven(table: "rows")
                counts["highest section id given"] = try db.highestIDGiven(table: "sections")
                return counts
            }
            return Fingerprint(snapshots: snapshots, counts: counts)
        }

        /// Sends what `send` sends and checks that it is refused with `status` and a one-line
        /// JSON error containing `words`, and that nothing was written.
        @discardableResult
        func refuses(
            _ status: Int, saying words: String, sourceLocation: SourceLocation = #_sourceLocation, _ send: () throws -> RawHTTP.Answer
        ) throws -> RawHTTP.Answer {
            let before = try fingerprint()
            let answer = try send()
            expectError(answer, status, saying: words, sourceLocation: sourceLocation)
            #expect(try fingerprint() == before, "a refused request wrote something", sourceLocation: sourceLocation)
            return answer
        }

        /// A sync request's body, written as a client would, or not.
        static func syncBody(_ replica: String, known: ListVersion = 0, intents: [String] = [], read: String = noReads, whole: Bool = false) -> String
        {
            #"{"replica":"\#(replica)","known_version":\#(known),"intents":[\#(intents.joined(separator: ","))],"read":\#(read),"whole":\#(whole)}"#
        }

        /// A read set of nothing.
        static let noReads = #"{"rows":[],"sections":[],"whole_sections":[]}"#
    }

    /// What a refused request may change: nothing.
    struct Fingerprint: Equatable {
        var snapshots: [String: ListSnapshot]
        var counts: [String: Int64]
    }

    /// The answer to registering a replica.
    struct Registered: Decodable {
        var replica: String
        var version: ListVersion
        var rowIDs: [[Int64]]
        var sectionIDs: [[Int64]]

        enum CodingKeys: String, CodingKey {
            case replica, version
            case rowIDs = "row_ids"
            case sectionIDs = "section_ids"
        }
    }

    /// The parts of a sync's answer these tests read.
    struct Synced: Decodable {
        var version: ListVersion
        var acknowledged: Int64
        var rowIDs: [[Int64]]
        var sectionIDs: [[Int64]]
        var rows: [Item]
        var sections: [Item]

        /// An item's id and title.
        struct Item: Decodable {
            var id: Int64
            var title: String
        }

        /// How many row ids the replica holds.
        var rowIDsHeld: Int64 { rowIDs.reduce(0) { $0 + $1[1] - $1[0] + 1 } }

        enum CodingKeys: String, CodingKey {
            case version, acknowledged, rows, sections
            case rowIDs = "row_ids"
            case sectionIDs = "section_ids"
        }
    }

    /// One pushed intent as JSON.
    static func pushed(_ sequence: Int64, _ intent: String, newID: Int64? = nil) -> String {
        #"{"sequence":\#(sequence),"intent":\#(intent)"# + (newID.map { #","new_id":\#($0)"# } ?? "") + "}"
    }

    /// An `addRow` intent putting a text row titled `title` first in section `section`.
    static func addRow(_ title: String, section: Int64) -> String {
        #"{"op":"addRow","content":{"kind":"text","title":"\#(title)"},"at":{"section":\#(section),"before":[],"after":[],"index":0}}"#
    }

    /// A `renameSection` intent.
    static func rename(_ section: Int64, _ title: String) -> String {
        #"{"op":"renameSection","section":\#(section),"title":"\#(title)"}"#
    }

    /// Checks that `answer` is refused with `status` and the one-line error `{"error": "…"}` whose
    /// message contains `words`; a 401 asks for a bearer token.
    static func expectError(_ answer: RawHTTP.Answer, _ status: Int, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(answer.status == status, "answered \(answer.status): \(answer.text)", sourceLocation: sourceLocation)
        #expect(answer.headers["content-type"] == "application/json", sourceLocation: sourceLocation)
        #expect(!answer.body.contains(UInt8(ascii: "\n")) && !answer.body.contains(UInt8(ascii: "\r")), sourceLocation: sourceLocation)
        let object = (try? JSONSerialization.jsonObject(with: Data(answer.body))) as? [String: Any]
        #expect(object?.count == 1, "not {\"error\": …}: \(answer.text)", sourceLocation: sourceLocation)
        let message = object?["error"] as? String ?? ""
        #expect(message.localizedCaseInsensitiveContains(words), "\"\(message)\" does not say \"\(words)\"", sourceLocation: sourceLocation)
        if status == 401 { #expect(answer.headers["www-authenticate"] == "Bearer", sourceLocation: sourceLocation) }
    }

    func expectError(_ answer: RawHTTP.Answer, _ status: Int, saying words: String, sourceLocation: SourceLocation = #_sourceLocation) {
        Self.expectError(answer, status, saying: words, sourceLocation: sourceLocation)
    }

    // MARK: - 400

    @Test(arguments: Backend.all) func aBodyThatIsNotASyncRequestIs400AndWritesNothing(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let replica = try fixture.register(fixture.edit).replica
        let section = try fixture.store.list("default").snapshot().sections[0].id.rawValue
        let valid = Fixture.syncBody(replica)
        for body in ["hello", "", "{", "[]", "null", valid + "x", String(valid.dropLast())] {
            try fixture.refuses(400, saying: "not a sync request", { try fixture.post("sync", token: fixture.edit, body: body) })
        }
        try fixture.refuses(400, saying: "not a sync request") {
            try fixture.send("POST", "/lists/default/sync", authorization: "Bearer \(fixture.edit)", body: [0x7B, 0xFF, 0xFE, 0x7D])
        }
        // Nested far deeper than the bound: refused before the decoder sees it.
        try fixture.refuses(400, saying: "deeper than 16") {
            try fixture.post("sync", token: fixture.edit, body: String(repeating: "[", count: 10_000))
        }
        try fixture.refuses(400, saying: "deeper than 16") {
            try fixture.post("sync", token: fixture.edit, body: #"{"replica":"\#(replica)","x":"# + String(repeating: "{\"a\":", count: 17) + "1}")
        }
        // Brackets inside a string are text, not nesting.
        let deepText = Fixture.syncBody(replica, intents: [Self.pushed(1, Self.rename(section, String(repeating: "[", count: 100)))])
        let renamed = try fixture.post("sync", token: fixture.edit, body: deepText)
        #expect(renamed.status == 200, "\(renamed.text)")

        let fresh = try fixture.register(fixture.edit).replica
        let missing = #"{"replica":"\#(fresh)","known_version":0,"intents":[],"whole":false}"#
        try fixture.refuses(400, saying: #"has no "read""#) { try fixture.post("sync", token: fixture.edit, body: missing) }
        let mistyped = #"{"replica":"\#(fresh)","known_version":"five","intents":[],"read":\#(Fixture.noReads),"whole":false}"#
        try fixture.refuses(400, saying: #""known_version""#) { try fixture.post("sync", token: fixture.edit, body: mistyped) }
        let intentsNotAList = #"{"replica":"\#(fresh)","known_version":0,"intents":{},"read":\#(Fixture.noReads),"whole":false}"#
        try fixture.refuses(400, saying: #""intents""#) { try fixture.post("sync", token: fixture.edit, body: intentsNotAList) }
        try fixture.refuses(400, saying: "known_version") {
            try fixture.post("sync", token: fixture.edit, body: Fixture.syncBody(fresh, known: -1))
        }
        try fixture.refuses(400, saying: "unknown op") {
            try fixture.post("sync", token: fixture.edit, body: Fixture.syncBody(fresh, intents: [Self.pushed(1, #"{"op":"dropTable"}"#)]))
        }
        // A registration's body is an object too: nothing is registered for anything else.
        for body in ["", "hello", "[]", "\"{}\"", "{", String(repeating: "{\"a\":", count: 20) + "1" + String(repeating: "}", count: 20)] {
            try fixture.refuses(400, saying: "the body") { try fixture.post("replicas", token: fixture.edit, body: body) }
        }
        try fixture.refuses(400, saying: "is not what it should be") {
            try fixture.post(
                "sync", token: fixture.edit, body: #"{"replica":"\#(fresh)","known_version":0,"intents":[],"read":{"rows":[[1]]},"whole":false}"#)
        }
    }

    @Test(arguments: Backend.all) func sequencesThatDoNotRiseOrLeaveAGapAre400(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let replica = try fixture.register(fixture.edit).replica
        let section = try fixture.store.list("default").snapshot().sections[0].id.rawValue
        let body = { (intents: [String]) in Fixture.syncBody(replica, intents: intents) }
        try fixture.refuses(400, saying: "must rise") {
            try fixture.post(
                "sync", token: fixture.edit, body: body([Self.pushed(2, Self.rename(section, "a")), Self.pushed(1, Self.rename(section, "b"))]))
        }
        try fixture.refuses(400, saying: "must rise") {
            try fixture.post(
                "sync", token: fixture.edit, body: body([Self.pushed(1, Self.rename(section, "a")), Self.pushed(1, Self.rename(section, "b"))]))
        }
        try fixture.refuses(400, saying: "must rise") {
            try fixture.post("sync", token: fixture.edit, body: body([Self.pushed(0, Self.rename(section, "a"))]))
        }
        try fixture.refuses(400, saying: "must rise") {
            try fixture.post("sync", token: fixture.edit, body: body([Self.pushed(-5, Self.rename(section, "a"))]))
        }
        // A first push that does not start at 1, and a later one that skips a number.
        try fixture.refuses(400, saying: "intents are missing") {
            try fixture.post("sync", token: fixture.edit, body: body([Self.pushed(2, Self.rename(section, "a"))]))
        }
        try fixture.sync(replica, token: fixture.edit, intents: [Self.pushed(1, Self.rename(section, "one"))])
        try fixture.refuses(400, saying: "intents are missing") {
            try fixture.post(
                "sync", token: fixture.edit, body: body([Self.pushed(1, Self.rename(section, "one")), Self.pushed(3, Self.rename(section, "three"))]))
        }
        try fixture.refuses(400, saying: "intents are missing") {
            try fixture.post("sync", token: fixture.edit, body: body([Self.pushed(Int64.max, Self.rename(section, "last"))]))
        }
        #expect(try fixture.store.list("default").snapshot().sections[0].title == "one")
    }

    /// The finding "ids pushed just ahead of the server's sequence make every later row add fail":
    /// an add carries only an id the server gave this replica.
    @Test(arguments: Backend.all) func anIDTheReplicaWasNotGivenIs400AndTheServerStillAdds(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let mine = try fixture.register(fixture.edit)
        let theirs = try fixture.register(fixture.secondEdit)
        let section = try fixture.store.list("default").snapshot().sections[0].id.rawValue
        let highest = try fixture.store.read { try $0.highestIDGiven(table: "rows") }
        let highestSection = try fixture.store.read { try $0.highestIDGiven(table: "sections") }
        let refusedIDs = [theirs.rowIDs[0][0], theirs.rowIDs[0][1], highest + 1, highest + 2, highest + 1_000_000, Int64.max, 0, -1]
        for id in refusedIDs {
            try fixture.refuses(400, saying: "did not give this replica") {
                try fixture.post(
                    "sync", token: fixture.edit,
                    body: Fixture.syncBody(mine.replica, intents: [Self.pushed(1, Self.addRow("stolen", section: section), newID: id)]))
            }
        }
        let addSection = #"{"op":"addSection","title":"S","at":{"before":[],"after":[],"index":0}}"#
        for id in [theirs.sectionIDs[0][0], highestSection + 1, mine.rowIDs[0][0] + 5_000] {
            try fixture.refuses(400, saying: "did not give this replica") {
                try fixture.post("sync", token: fixture.edit, body: Fixture.syncBody(mine.replica, intents: [Self.pushed(1, addSection, newID: id)]))
            }
        }
        try fixture.refuses(400, saying: "adds nothing and carries a new_id") {
            try fixture.post(
                "sync", token: fixture.edit,
                body: Fixture.syncBody(mine.replica, intents: [Self.pushed(1, Self.rename(section, "x"), newID: mine.rowIDs[0][0])]))
        }
        try fixture.refuses(400, saying: "without the new_id") {
            try fixture.post(
                "sync", token: fixture.edit, body: Fixture.syncBody(mine.replica, intents: [Self.pushed(1, Self.addRow("a", section: section))]))
        }

        // The server's own adds go on, on every list; and the replica's own ids still work.
        try fixture.store.list("default").apply(.addRow(.text("on the server"), to: .at(0, 0)))
        try fixture.store.list("other").apply(.addRow(.text("on the server too"), to: .at(0, 0)))
        try fixture.store.list("default").apply(.addSection(title: "server section"))
        let own = mine.rowIDs[0][0]
        let synced = try fixture.sync(mine.replica, token: fixture.edit, intents: [Self.pushed(1, Self.addRow("mine", section: section), newID: own)])
        #expect(synced.acknowledged == 1)
        let rows = try fixture.store.list("default").snapshot().sections.flatMap(\.rows)
        #expect(rows.contains { $0.id.rawValue == own && $0.content.title == "mine" })
        #expect(!rows.contains { $0.content.title == "stolen" })
        try fixture.store.list("default").apply(.addRow(.text("after the replica's add"), to: .at(0, 0)))
    }

    @Test(arguments: Backend.all) func anIntentTheRulesCannotApplyIs400AndTheWholePushWritesNothing(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let mine = try fixture.register(fixture.edit)
        let snapshot = try fixture.store.list("default").snapshot()
        let section = snapshot.sections[0].id.rawValue
        let milk = snapshot.sections[0].rows[0].id.rawValue
        // A valid add first, which takes one of the replica's ids, then a value on a text row.
        let intents = [
            Self.pushed(1, Self.addRow("fine", section: section), newID: mine.rowIDs[0][0]),
            Self.pushed(2, #"{"op":"updateRow","row":\#(milk),"value":"2 litres"}"#),
        ]
        try fixture.refuses(400, saying: "intent 2 cannot be applied") {
            try fixture.post("sync", token: fixture.edit, body: Fixture.syncBody(mine.replica, intents: intents))
        }
        let again = try fixture.sync(mine.replica, token: fixture.edit)
        #expect(again.acknowledged == 0 && again.rowIDs == mine.rowIDs, "the add's id is still the replica's")
    }

    // MARK: - 401

    @Test(arguments: Backend.all) func aRequestWithoutAValidTokenIs401(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let replica = try fixture.register(fixture.edit).replica
        let tokens = Tokens(store: fixture.store)
        let revoked = fixture.made(try tokens.create(list: "default", role: .edit, expiresAfter: nil).token)
        let revokedReplica = try fixture.register(revoked).replica
        let selector = String(revoked.split(separator: "_")[1])
        _ = try tokens.revoke(selector)
        let expiredToken = try tokens.create(list: "default", role: .edit, expiresAfter: .seconds(60), now: Date().addingTimeInterval(-3600))
        let expired = fixture.made(expiredToken.token)
        let editSelector = String(fixture.edit.split(separator: "_")[1])
        let wrongSecret = "sct_\(editSelector)_\(Tokens.base64URL([UInt8](repeating: 7, count: 32)))"

        let headers: [String?] = [
            nil, "", "Basic dXNlcjpwYXNz", "Basic \(fixture.edit)", "Bearer", "Bearer \(wrongSecret)", "Bearer \(revoked)", "Bearer \(expired)",
            "Bearer \(fixture.edit.dropLast())", "Bearer sct_0123456789abcdef_\(Tokens.base64URL([UInt8](repeating: 1, count: 32)))",
            fixture.edit,
        ]
        for header in headers {
            for (action, body) in [("replicas", "{}"), ("sync", Fixture.syncBody(replica)), ("sync", Fixture.syncBody(revokedReplica))] {
                try fixture.refuses(401, saying: "a valid token is needed") {
                    try fixture.send("POST", "/lists/default/\(action)", authorization: header, body: Array(body.utf8))
                }
            }
        }
    }

    // MARK: - 403

    /// A token of list A never reads or changes list B, and a read token never pushes.
    @Test(arguments: Backend.all) func aTokenOfAnotherListOrAReadTokenPushingIs403(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let mine = try fixture.register(fixture.edit)
        let theirs = try fixture.register(fixture.otherEdit, list: "other")
        for answer in [
            try fixture.refuses(403, saying: "another list") { try fixture.post("replicas", list: "other", token: fixture.edit) },
            try fixture.refuses(403, saying: "another list") {
                try fixture.post(
                    "sync", list: "other", token: fixture.edit,
                    body: Fixture.syncBody(mine.replica, read: #"{"rows":[],"sections":[],"whole_sections":[]}"#, whole: true))
            },
            try fixture.refuses(403, saying: "another list") {
                try fixture.post("sync", list: "other", token: fixture.edit, body: Fixture.syncBody(theirs.replica, whole: true))
            },
            try fixture.refuses(403, saying: "another list") {
                try fixture.post(
                    "sync", list: "other", token: fixture.read,
                    body: Fixture.syncBody(theirs.replica, intents: [Self.pushed(1, Self.rename(1, "mine"))]))
            },
        ] {
            #expect(!answer.text.contains("Secret plans") && !answer.text.contains("Private"))
        }
        // Its own list's replica, named on the other list with the other list's token: not that list's replica.
        try fixture.refuses(409, saying: "not registered with list \"other\"") {
            try fixture.post("sync", list: "other", token: fixture.otherEdit, body: Fixture.syncBody(mine.replica, whole: true))
        }

        // A read token registers and pulls, with no ids, and may not push.
        let reader = try fixture.register(fixture.read)
        #expect(reader.rowIDs.isEmpty && reader.sectionIDs.isEmpty)
        let pulled = try fixture.post("sync", token: fixture.read, body: Fixture.syncBody(reader.replica, whole: true))
        #expect(pulled.status == 200, "\(pulled.text)")
        #expect(pulled.text.contains("Milk") && !pulled.text.contains("Secret plans"))
        let section = try fixture.store.list("default").snapshot().sections[0].id.rawValue
        try fixture.refuses(403, saying: "may read the list, not change it") {
            try fixture.post(
                "sync", token: fixture.read, body: Fixture.syncBody(reader.replica, intents: [Self.pushed(1, Self.rename(section, "read-only"))]))
        }
        try fixture.refuses(403, saying: "may read the list, not change it") {
            try fixture.post(
                "sync", token: fixture.read,
                body: Fixture.syncBody(reader.replica, intents: [Self.pushed(1, Self.addRow("x", section: section), newID: mine.rowIDs[0][0])]))
        }
        let afterwards = try fixture.sync(reader.replica, token: fixture.read)
        #expect(afterwards.rowIDs.isEmpty && afterwards.acknowledged == 0, "a read replica is never given ids")
    }

    // MARK: - 404, 405

    /// No endpoint but the documented ones exists; a list the token is not for is refused the same whether it
    /// exists or not, so an answer never tells which lists there are.
    @Test(arguments: Backend.all) func unknownEndpointsAre404AndUnknownListsTellNothing(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let replica = try fixture.register(fixture.edit).replica
        let bearer = "Bearer \(fixture.edit)"
        for path in [
            "/", "/lists", "/lists/", "/lists/default/copy", "/lists/default/sync/extra", "/assets",
            "/lists//sync", "/lists/%ZZ/sync", "/replicas", "/lists/default/replicas/\(replica)", "/LISTS/default/sync",
        ] {
            try fixture.refuses(404, saying: "no such endpoint") {
                try fixture.send("POST", path, authorization: bearer, body: Array(Fixture.syncBody(replica).utf8))
            }
        }
        // The list's address is its page, which is only read, as its clone is.
        for path in ["/lists/default", "/lists/default/", "/lists/default/clone"] {
            try fixture.refuses(405, saying: "use GET") {
                try fixture.send("POST", path, authorization: bearer, body: Array(Fixture.syncBody(replica).utf8))
            }
        }
        let unknown = try fixture.refuses(403, saying: "another list") {
            try fixture.post("sync", list: "nosuchlist", token: fixture.edit, body: Fixture.syncBody(replica))
        }
        let existing = try fixture.refuses(403, saying: "another list") {
            try fixture.post("sync", list: "other", token: fixture.edit, body: Fixture.syncBody(replica))
        }
        #expect(unknown.text == existing.text)
        try fixture.refuses(403, saying: "another list") { try fixture.post("replicas", list: "nosuchlist", token: fixture.edit) }
        try fixture.refuses(401, saying: "a valid token") { try fixture.post("replicas", list: "nosuchlist", token: nil) }
        // A list deleted takes its tokens with it.
        try fixture.store.deleteList("other", force: true)
        try fixture.refuses(401, saying: "a valid token") { try fixture.post("replicas", list: "other", token: fixture.otherEdit) }
    }

    @Test func aMethodTheEndpointDoesNotTakeIs405WithAllow() throws {
        let fixture = try Fixture(.sqlite)
        let replica = try fixture.register(fixture.edit).replica
        for (method, action) in [("GET", "sync"), ("PUT", "sync"), ("DELETE", "sync"), ("GET", "replicas"), ("PATCH", "replicas")] {
            let answer = try fixture.refuses(405, saying: "\(method) is not allowed here") {
                try fixture.send(
                    method, "/lists/default/\(action)", authorization: "Bearer \(fixture.edit)", body: Array(Fixture.syncBody(replica).utf8))
            }
            #expect(answer.headers["allow"] == "POST")
        }
    }

    // MARK: - 409

    @Test(arguments: Backend.all) func aVersionAheadOfTheServerIs409(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let mine = try fixture.register(fixture.edit)
        let section = try fixture.store.list("default").snapshot().sections[0].id.rawValue
        for known in [mine.version.next, ListVersion(rawValue: .max)] {
            try fixture.refuses(409, saying: "older than version \(known)") {
                try fixture.post(
                    "sync", token: fixture.edit,
                    body: Fixture.syncBody(mine.replica, known: known, intents: [Self.pushed(1, Self.rename(section, "from the future"))]))
            }
        }
        #expect(try fixture.sync(mine.replica, token: fixture.edit, known: mine.version).version == mine.version)
    }

    /// The finding "a push carrying another replica's id takes over that replica's exactly-once
    /// record": a replica is bound to the token it was registered with, and its record stays its own.
    @Test(arguments: Backend.all) func aReplicaSyncedWithAnotherTokenIs409AndTheVictimStillSyncs(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let victim = try fixture.register(fixture.edit)
        let section = try fixture.store.list("default").snapshot().sections[0].id.rawValue
        try fixture.sync(victim.replica, token: fixture.edit, intents: [Self.pushed(1, Self.rename(section, "victim's 1"))])

        let hijacks = [
            [Self.pushed(2, Self.rename(section, "hijacked"))],
            [Self.pushed(1, Self.rename(section, "hijacked")), Self.pushed(2, Self.rename(section, "hijacked"))],
            [Self.pushed(1_000, Self.rename(section, "hijacked"))], [],
        ]
        for intents in hijacks {
            for token in [fixture.secondEdit, fixture.read] {
                try fixture.refuses(409, saying: "registered with another token") {
                    try fixture.post("sync", token: token, body: Fixture.syncBody(victim.replica, intents: intents))
                }
            }
        }
        for token in [fixture.otherEdit] {
            try fixture.refuses(403, saying: "another list") {
                try fixture.post("sync", token: token, body: Fixture.syncBody(victim.replica, intents: hijacks[0]))
            }
        }
        // Names the server never gave.
        for name in ["0123456789abcdef0123456789abcdef", "", String(repeating: "a", count: 10_000), victim.replica.uppercased()] {
            try fixture.refuses(409, saying: "is not registered with list") {
                try fixture.post("sync", token: fixture.edit, body: Fixture.syncBody(name, intents: hijacks[0]))
            }
        }

        let synced = try fixture.sync(
            victim.replica, token: fixture.edit,
            intents: [Self.pushed(1, Self.rename(section, "victim's 1")), Self.pushed(2, Self.rename(section, "victim's 2"))])
        #expect(synced.acknowledged == 2)
        #expect(try fixture.store.list("default").snapshot().sections[0].title == "victim's 2")
    }

    @Test(arguments: Backend.all) func anotherIntentUnderAnAppliedSequenceIs409(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let mine = try fixture.register(fixture.edit)
        let section = try fixture.store.list("default").snapshot().sections[0].id.rawValue
        try fixture.sync(mine.replica, token: fixture.edit, intents: [Self.pushed(1, Self.rename(section, "first"))])
        // A copy of the file pushes its own intent 1, alone or with more after it.
        for intents in [
            [Self.pushed(1, Self.rename(section, "copy's first"))],
            [Self.pushed(1, Self.rename(section, "copy's first")), Self.pushed(2, Self.rename(section, "copy's second"))],
            [Self.pushed(1, Self.addRow("copy", section: section), newID: mine.rowIDs[0][0])],
        ] {
            try fixture.refuses(409, saying: "applied another intent as number 1") {
                try fixture.post("sync", token: fixture.edit, body: Fixture.syncBody(mine.replica, intents: intents))
            }
        }
        // The same intent again, with its keys in another order, is skipped: exactly once.
        let reordered = #"{"title":"first","section":\#(section),"op":"renameSection"}"#
        let again = try fixture.sync(
            mine.replica, token: fixture.edit, intents: [Self.pushed(1, reordered), Self.pushed(2, Self.rename(section, "second"))])
        #expect(again.acknowledged == 2)
        #expect(try fixture.store.list("default").snapshot().sections[0].title == "second")
    }

    // MARK: - 413

    @Test(arguments: Backend.all) func requestsOverTheirBoundsAre413(backend: Backend) throws {
        var limits = SyncServiceLimits()
        limits.http.maxBodyBytes = 4096
        limits.intentsPerPush = 3
        limits.readItems = 5
        let fixture = try Fixture(backend, limits: limits)
        let mine = try fixture.register(fixture.edit)
        let section = try fixture.store.list("default").snapshot().sections[0].id.rawValue

        // A body over the bound: declared (answered before it is sent), and chunked (read and dropped).
        try fixture.refuses(413, saying: "longer than 4096 bytes") {
            try RawHTTP.exchange(
                Array("POST /lists/default/sync HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fixture.edit)\r\nContent-Length: 4097\r\n\r\n".utf8),
                port: fixture.port)
        }
        let long = Fixture.syncBody(mine.replica, intents: [Self.pushed(1, Self.rename(section, String(repeating: "x", count: 5000)))])
        let chunked =
            "POST /lists/default/sync HTTP/1.1\r\nHost: x\r\nAuthorization: Bearer \(fixture.edit)\r\nTransfer-Encoding: chunked\r\n\r\n"
            + String(long.utf8.count, radix: 16) + "\r\n" + long + "\r\n0\r\n\r\n"
        try fixture.refuses(413, saying: "longer than 4096 bytes") { try RawHTTP.exchange(Array(chunked.utf8), port: fixture.port) }

        let four = (1...4).map { Self.pushed(Int64($0), Self.rename(section, "n\($0)")) }
        try fixture.refuses(413, saying: "4 intents in one push; at most 3") {
            try fixture.post("sync", token: fixture.edit, body: Fixture.syncBody(mine.replica, intents: four))
        }
        for read in [#"{"rows":[1,2,3,4,5,6],"sections":[],"whole_sections":[]}"#, #"{"rows":[1,2],"sections":[1,2],"whole_sections":[1,2]}"#] {
            try fixture.refuses(413, saying: "6 items to read; at most 5") {
                try fixture.post("sync", token: fixture.edit, body: Fixture.syncBody(mine.replica, read: read))
            }
        }
        // At the bounds, taken.
        let three = try fixture.sync(
            mine.replica, token: fixture.edit, intents: Array(four.prefix(3)), read: #"{"rows":[1,2,3,4,5],"sections":[],"whole_sections":[]}"#)
        #expect(three.acknowledged == 3)
    }

    // MARK: - Ids

    /// The finding "want_rows = 3000000 holds a list's lock": a client cannot ask for ids; it holds
    /// at most what the server gives — another block only when fewer than half a block are left.
    @Test(arguments: Backend.all) func theIDsAReplicaHoldsNeverExceedWhatTheServerGives(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let block = Int64(SectionStore.replicaIDBlock)
        let mine = try fixture.register(fixture.edit)
        let given = { try fixture.store.read { try $0.highestIDGiven(table: "rows") } }
        let start = try given()
        #expect(mine.rowIDs.reduce(0) { $0 + $1[1] - $1[0] + 1 } == block)
        let greedy =
            #"{"replica":"\#(mine.replica)","known_version":0,"intents":[],"read":\#(Fixture.noReads),"whole":false,"#
            + #""want_rows":3000000,"want_sections":3000000,"row_ids":[[1,9000000000]]}"#
        for _ in 0..<20 {
            let answer = try fixture.post("sync", token: fixture.edit, body: greedy)
            #expect(answer.status == 200)
            let synced = try JSONDecoder().decode(Synced.self, from: Data(answer.body))
            #expect(synced.rowIDsHeld == block && synced.rowIDs == mine.rowIDs)
        }
        #expect(try given() == start, "no ids drawn")

        // Using more than half of them earns one more block, and only one.
        let section = try fixture.store.list("default").snapshot().sections[0].id.rawValue
        let ids = Array(mine.rowIDs[0][0]..<(mine.rowIDs[0][0] + block / 2 + 88))
        let adds = ids.enumerated().map { Self.pushed(Int64($0.offset + 1), Self.addRow("r\($0.offset)", section: section), newID: $0.element) }
        let pushed = try fixture.sync(mine.replica, token: fixture.edit, intents: adds)
        #expect(pushed.rowIDsHeld == block - Int64(ids.count) + block)
        #expect(pushed.rowIDsHeld < block + block / 2)
        for _ in 0..<10 {
            let synced = try fixture.sync(mine.replica, token: fixture.edit, known: pushed.version)
            #expect(synced.rowIDsHeld == pushed.rowIDsHeld)
        }
        #expect(try given() == start + block)
        let blocks = try fixture.store.read { try $0.scalarInt("SELECT count(*) FROM sync_blocks WHERE kind = 'row' AND replica = ?", mine.replica) }
        #expect(blocks == 2)
    }

    // MARK: - The journal

    /// The finding "a push whose changeset is wrong changes rows while the journal says nothing
    /// happened": a push's journal entry is the server's own changeset, which turns the list
    /// before it into the list after it.
    @Test(arguments: Backend.all) func aPushesJournalEntryIsTheChangesetBetweenTheSnapshots(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let mine = try fixture.register(fixture.edit)
        let list = fixture.store.list("default")
        let before = try list.snapshot()
        let section = before.sections[0].id.rawValue
        let milk = before.sections[0].rows[0].id.rawValue
        let due = before.sections[0].rows[1].id.rawValue
        let newRow = mine.rowIDs[0][0]
        let newSection = mine.sectionIDs[0][0]
        let intents = [
            Self.pushed(1, Self.addRow("Oat milk", section: section), newID: newRow),
            Self.pushed(2, #"{"op":"moveRow","row":\#(milk),"to":{"section":\#(section),"before":[\#(due)],"after":[],"index":2}}"#),
            Self.pushed(3, #"{"op":"updateRow","row":\#(due),"value":"Monday"}"#),
            Self.pushed(4, #"{"op":"addSection","title":"Later","at":{"before":[\#(section)],"after":[],"index":1}}"#, newID: newSection),
            Self.pushed(5, Self.rename(section, "Cart")),
            Self.pushed(6, #"{"op":"deleteRow","row":\#(due)}"#),
            // A changeset of the client's own is not part of the protocol: it is ignored.
            Self.pushed(7, #"{"op":"deleteRow","row":\#(newRow)}"#),
        ]
        let body = Fixture.syncBody(mine.replica, known: before.version, intents: intents).dropLast() + #","changeset":{"rows":{},"sections":{}}}"#
        let answer = try fixture.post("sync", token: fixture.edit, body: String(body))
        #expect(answer.status == 200, "\(answer.text)")
        let after = try list.snapshot()
        #expect(after.version == before.version.next)
        #expect(after != before)
        let journaled = try #require(try list.changes(since: before.version).changeset)
        #expect(!journaled.isEmpty)
        #expect(try before.applying(journaled, contentFrom: after) == after)
        #expect(try before.applying(Changeset(from: before, to: after), contentFrom: after) == after)

        // A push that changes nothing journals nothing.
        let journalRows = try fixture.fingerprint().counts["SELECT count(*) FROM journal"]
        let idle = try fixture.sync(
            mine.replica, token: fixture.edit, known: after.version, intents: intents + [Self.pushed(8, #"{"op":"deleteRow","row":\#(due)}"#)])
        #expect(idle.acknowledged == 8 && idle.version == after.version)
        #expect(try fixture.fingerprint().counts["SELECT count(*) FROM journal"] == journalRows)
        #expect(try list.snapshot() == after)
    }

    /// Past `concurrentWrites` registrations and syncs at a time, a request is answered 503 with
    /// `Retry-After` at once, writing nothing (with a bound of 0, every one is past it); events
    /// still flow.
    @Test func writesPastTheBoundAreAnswered503WithRetryAfter() throws {
        var limits = SyncServiceLimits()
        limits.concurrentWrites = 0
        let fixture = try Fixture(.sqlite, limits: limits)
        let answer = try fixture.refuses(503, saying: "busy") { try fixture.post("replicas", token: fixture.edit) }
        #expect(answer.headers["retry-after"] == "1", "\(answer.headers)")
        try fixture.refuses(503, saying: "busy") {
            try fixture.post("sync", token: fixture.edit, body: Fixture.syncBody(String(repeating: "a", count: 32)))
        }
    }

    /// Past its allowance (a burst, then an average rate), a token's requests are answered 429
    /// with `Retry-After`, writing nothing; another token is not held back by it.
    @Test func aTokenPastItsAllowanceIsAnswered429WithRetryAfter() throws {
        var limits = SyncServiceLimits()
        limits.requestBurst = 2
        limits.requestsPerSecond = 0.001
        let fixture = try Fixture(.sqlite, limits: limits)
        _ = try fixture.register(fixture.edit)
        _ = try fixture.register(fixture.edit)
        let answer = try fixture.refuses(429, saying: "too many requests") { try fixture.post("replicas", token: fixture.edit) }
        let retryAfter = try #require(answer.headers["retry-after"].flatMap { Int($0) }, "\(answer.headers)")
        #expect(retryAfter >= 1)
        _ = try fixture.register(fixture.secondEdit)
    }
}
