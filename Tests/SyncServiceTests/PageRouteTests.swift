import Foundation
import Repository
import TestSupport
import Testing

@testable import SyncService

/// The page's routes (`/lists/NAME`, `/assets/…`, `session`, `window`, `intents`) against
/// requests an attacker writes, as raw HTTP over a socket: a token only ever in a body or an
/// `HttpOnly` cookie, never in an answer; writes by cookie refused without the CSRF header; every
/// read and write scoped to the token's list and role and bounded; a refused request writes nothing.
@Suite("The page's routes")
struct PageRouteTests {
    typealias Fixture = HostileClientTests.Fixture

    /// Opens a session for `token` on `list` and returns its cookie header and CSRF value.
    static func session(_ fixture: Fixture, token: String, list: String = SectionStore.defaultList) throws -> (cookie: String, csrf: String) {
        let answer = try RawHTTP.request(
            "POST", "/lists/\(list)/session", port: fixture.port, headers: [("Content-Type", "application/json")],
            body: Array(#"{"token":"\#(token)"}"#.utf8))
        try #require(answer.status == 200, "\(answer.text)")
        let setCookie = try #require(answer.headers["set-cookie"])
        let csrf = try #require((try JSONSerialization.jsonObject(with: Data(answer.body)) as? [String: Any])?["csrf"] as? String)
        return (String(setCookie.split(separator: ";")[0]), csrf)
    }

    @Test func thePageIsServedWithItsSecurityHeadersAndNoData() throws {
        let fixture = try Fixture(.sqlite)
        let page = try RawHTTP.request("GET", "/lists/default", port: fixture.port)
        #expect(page.status == 200)
        #expect(page.headers["content-type"] == "text/html; charset=utf-8")
        let policy = try #require(page.headers["content-security-policy"])
        #expect(policy.contains("frame-ancestors 'none'") && policy.contains("script-src 'self'") && !policy.contains("unsafe-inline"))
        #expect(page.headers["x-frame-options"] == "DENY" && page.headers["x-content-type-options"] == "nosniff")
        // No inline script: every script has a source of its own.
        #expect(!page.text.contains("<script>") && page.text.contains(#"<script type="module" src="/assets/page.js">"#))
        #expect(!page.text.contains("Milk"), "the page holds no data of the list")
        // The page of a list of any name is the same page: nothing of the path is written into it.
        let hostile = try RawHTTP.request("GET", "/lists/%3Cscript%3Ealert(1)%3C%2Fscript%3E", port: fixture.port)
        #expect(hostile.status == 200 && !hostile.text.contains("alert(1)"))
        for name in ["page.js", "escape.js", "page.css", "icon.svg"] {
            let file = try RawHTTP.request("GET", "/assets/\(name)", port: fixture.port)
            #expect(file.status == 200 && file.headers["content-security-policy"] != nil, "\(name)")
        }
        // Only the page's own names are served: nothing else of the disk, however it is spelt.
        for path in ["/assets/page.html", "/assets/..%2F..%2Fetc%2Fpasswd", "/assets/../Package.swift", "/assets/", "/assets/a/page.js"] {
            let answer = try RawHTTP.request("GET", path, port: fixture.port)
            #expect(answer.status == 404, "\(path): \(answer.status)")
        }
        HostileClientTests.expectError(try RawHTTP.request("POST", "/lists/default", port: fixture.port, body: []), 405, saying: "use GET")
    }

    @Test func aSessionTurnsATokenIntoAnHttpOnlyStrictCookieOfItsListAlone() throws {
        let fixture = try Fixture(.sqlite)
        let answer = try RawHTTP.request(
            "POST", "/lists/default/session", port: fixture.port, headers: [("Content-Type", "application/json")],
            body: Array(#"{"token":"\#(fixture.edit)"}"#.utf8))
        #expect(answer.status == 200)
        let cookie = try #require(answer.headers["set-cookie"])
        #expect(cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict") && cookie.contains("Path=/lists/default"))
        #expect(cookie.hasPrefix("sectionctl_session=scs_") && !cookie.contains(fixture.edit), "the cookie names a session, never the token")
        #expect(cookie.contains("Max-Age=43200"), "the session lasts 12 hours")
        #expect(!cookie.contains("Secure"), "plain HTTP on loopback: a Secure cookie would never be sent back")
        #expect(!answer.text.contains(fixture.edit), "the answer's body holds no token")
        #expect(answer.text.contains(#""role":"edit""#))
        // The cookie reads the session back; no cookie, no session.
        let (jar, csrf) = try Self.session(fixture, token: fixture.edit)
        let again = try RawHTTP.request("GET", "/lists/default/session", port: fixture.port, headers: [("Cookie", jar)])
        #expect(again.status == 200 && again.text.contains(csrf))
        let none = try RawHTTP.request("GET", "/lists/default/session", port: fixture.port)
        #expect(none.status == 200 && none.text == #"{"role":null}"#, "no cookie: no session, and the page asks for a token")

        // Refused: a token of another list, a wrong one, one in a form (no JSON), one that is not a string.
        try fixture.refuses(403, saying: "another list") {
            try RawHTTP.request(
                "POST", "/lists/default/session", port: fixture.port, headers: [("Content-Type", "application/json")],
                body: Array(#"{"token":"\#(fixture.otherEdit)"}"#.utf8))
        }
        try fixture.refuses(401, saying: "valid token") {
            try RawHTTP.request(
                "POST", "/lists/default/session", port: fixture.port, headers: [("Content-Type", "application/json")],
                body: Array(#"{"token":"sct_0123456789abcdef_AAAA"}"#.utf8))
        }
        try fixture.refuses(400, saying: "application/json") {
            try RawHTTP.request(
                "POST", "/lists/default/session", port: fixture.port, headers: [("Content-Type", "application/x-www-form-urlencoded")],
                body: Array("token=\(fixture.edit)".utf8))
        }
        try fixture.refuses(400, saying: "session request") {
            try RawHTTP.request(
                "POST", "/lists/default/session", port: fixture.port, headers: [("Content-Type", "application/json")],
                body: Array(#"{"token":["a"]}"#.utf8))
        }
        // A cookie smuggling attributes, or holding a token (this list's or another's) rather than a
        // session, is no session.
        for cookie in [
            "sectionctl_session=x; Path=/", "sectionctl_session=\(fixture.edit)", "sectionctl_session=\(fixture.otherEdit)",
            "sectionctl_session=scs_\(String(repeating: "A", count: 43))",
        ] {
            HostileClientTests.expectError(
                try RawHTTP.request("GET", "/lists/default/session", port: fixture.port, headers: [("Cookie", cookie)]), 401, saying: "valid token")
        }
        // A token in a cookie of any other name is no session either: the page asks for a token.
        let tokenCookie = try RawHTTP.request(
            "GET", "/lists/default/session", port: fixture.port, headers: [("Cookie", "sectionctl_token=\(fixture.edit)")])
        #expect(tokenCookie.status == 200 && tokenCookie.text == #"{"role":null}"#)
        // Another list's session is refused as such.
        let (otherJar, _) = try Self.session(fixture, token: fixture.otherEdit, list: "other")
        HostileClientTests.expectError(
            try RawHTTP.request("GET", "/lists/default/session", port: fixture.port, headers: [("Cookie", otherJar)]), 403, saying: "another list")
        // Leaving ends the session and clears the cookie: the old cookie opens nothing after.
        let left = try RawHTTP.request("DELETE", "/lists/default/session", port: fixture.port, headers: [("Cookie", jar)])
        #expect(left.status == 204 && left.headers["set-cookie"]?.contains("Max-Age=0") == true)
        HostileClientTests.expectError(
            try RawHTTP.request("GET", "/lists/default/window", port: fixture.port, headers: [("Cookie", jar)]), 401, saying: "session ended")
    }

    @Test func aSessionIsRandomKeptHashedAndEndsWithItsToken() throws {
        let fixture = try Fixture(.sqlite)
        let sessions = fixture.served.service.pageSessions
        let (first, firstCSRF) = try Self.session(fixture, token: fixture.edit)
        let (second, secondCSRF) = try Self.session(fixture, token: fixture.edit)
        #expect(first != second && firstCSRF != secondCSRF, "each session is new and random, with a CSRF value of its own")
        // The server keeps the SHA-256 of each id, never the id.
        let id = String(first.split(separator: "=", maxSplits: 1)[1])
        #expect(sessions.keys.contains(PageSessions.key(id)) && !sessions.keys.contains(id))
        #expect(PageSessions.key(id) == Tokens.hex(Crypto.sha256(Array(id.utf8))))
        // A session takes the CSRF value of its own, not another session's.
        let delete = Array(#"{"intents":[{"op":"deleteRow","row":999999}]}"#.utf8)
        try fixture.refuses(403, saying: "X-Sectionctl-CSRF") {
            try RawHTTP.request(
                "POST", "/lists/default/intents", port: fixture.port, headers: [("Cookie", first), ("X-Sectionctl-CSRF", secondCSRF)], body: delete)
        }
        // Revoking the token ends its sessions at their next request; another token's session stays.
        let (readJar, _) = try Self.session(fixture, token: fixture.read)
        _ = try Tokens(store: fixture.store).revoke(String(fixture.edit.split(separator: "_")[1]))
        for jar in [first, second] {
            HostileClientTests.expectError(
                try RawHTTP.request("GET", "/lists/default/window", port: fixture.port, headers: [("Cookie", jar)]), 401, saying: "revoked or expired"
            )
            HostileClientTests.expectError(
                try RawHTTP.request("GET", "/lists/default/session", port: fixture.port, headers: [("Cookie", jar)]), 401, saying: "session ended")
        }
        #expect(sessions.count == 1)
        let still = try RawHTTP.request("GET", "/lists/default/window", port: fixture.port, headers: [("Cookie", readJar)])
        #expect(still.status == 200, "\(still.text)")
    }

    @Test func aSessionEndsWhenItsTokenExpires() throws {
        let fixture = try Fixture(.sqlite)
        let token = fixture.made(try Tokens(store: fixture.store).create(list: "default", role: .edit, expiresAfter: .seconds(2)).token)
        let (jar, _) = try Self.session(fixture, token: token)
        #expect(try RawHTTP.request("GET", "/lists/default/window", port: fixture.port, headers: [("Cookie", jar)]).status == 200)
        // The token's expiry is a time: wait for it (a deadline guards against a hang).
        let deadline = Date().addingTimeInterval(30)
        var answer = try RawHTTP.request("GET", "/lists/default/window", port: fixture.port, headers: [("Cookie", jar)])
        while answer.status == 200, Date() < deadline {
            Thread.sleep(forTimeInterval: 0.1)
            answer = try RawHTTP.request("GET", "/lists/default/window", port: fixture.port, headers: [("Cookie", jar)])
        }
        HostileClientTests.expectError(answer, 401, saying: "revoked or expired")
    }

    @Test func sessionsAreBoundedInNumberAndInTime() throws {
        var limits = SyncServiceLimits()
        limits.pageSessions = 3
        let fixture = try Fixture(.sqlite, limits: limits)
        let jars = try (0..<3).map { _ in try Self.session(fixture, token: fixture.edit).cookie }
        // The first is used again: the second is now the least recently used, and the fourth ends it.
        #expect(try RawHTTP.request("GET", "/lists/default/session", port: fixture.port, headers: [("Cookie", jars[0])]).status == 200)
        _ = try Self.session(fixture, token: fixture.read)
        #expect(fixture.served.service.pageSessions.count == 3)
        HostileClientTests.expectError(
            try RawHTTP.request("GET", "/lists/default/session", port: fixture.port, headers: [("Cookie", jars[1])]), 401, saying: "session ended")
        for jar in [jars[0], jars[2]] {
            #expect(try RawHTTP.request("GET", "/lists/default/session", port: fixture.port, headers: [("Cookie", jar)]).status == 200)
        }
        // A session outlives nothing of its lifetime.
        let sessions = PageSessions(maximum: 10, lifetime: .seconds(60))
        let opened = ContinuousClock.now
        let id = try sessions.open(tokenID: 1, list: "default", now: opened)
        #expect(sessions.session(id, now: opened + .seconds(59))?.tokenID == 1)
        #expect(sessions.session(id, now: opened + .seconds(60)) == nil && sessions.count == 0)
    }

    @Test func theEventStreamTakesTheCookieOfItsListAlone() throws {
        let fixture = try Fixture(.sqlite)
        let (otherJar, _) = try Self.session(fixture, token: fixture.otherEdit, list: "other")
        HostileClientTests.expectError(
            try RawHTTP.request("GET", "/lists/default/events", port: fixture.port, headers: [("Cookie", otherJar)]), 403, saying: "another list")
        HostileClientTests.expectError(try RawHTTP.request("GET", "/lists/default/events", port: fixture.port), 401, saying: "valid token")
        // A wrong bearer token is refused even beside a good cookie: the header is what is checked.
        let (jar, _) = try Self.session(fixture, token: fixture.edit)
        HostileClientTests.expectError(
            try RawHTTP.request(
                "GET", "/lists/default/window", port: fixture.port, headers: [("Cookie", jar), ("Authorization", "Bearer sct_0123456789abcdef_x")]),
            401, saying: "valid token")
    }

    @Test func aCookieOfAListNamedToBreakTheHeaderStaysItsOwn() {
        #expect(SyncService.cookiePath("a; Domain=evil.example") == "/lists/a%3B%20Domain%3Devil.example")
        #expect(SyncService.cookiePath("x\r\nSet-Cookie: y") == "/lists/x%0D%0ASet-Cookie%3A%20y")
    }

    @Test func writesByCookieNeedTheCSRFHeaderAndAnEditToken() throws {
        let fixture = try Fixture(.sqlite)
        let (jar, csrf) = try Self.session(fixture, token: fixture.edit)
        let delete = Array(#"{"intents":[{"op":"deleteRow","row":1}]}"#.utf8)
        for (headers, words) in [
            ([("Cookie", jar)], "X-Sectionctl-CSRF"),
            ([("Cookie", jar), ("X-Sectionctl-CSRF", (csrf.first == "0" ? "1" : "0") + csrf.dropFirst())], "X-Sectionctl-CSRF"),
            ([("Cookie", jar), ("X-Sectionctl-CSRF", "")], "X-Sectionctl-CSRF"),
        ] {
            try fixture.refuses(403, saying: words) {
                try RawHTTP.request(
                    "POST", "/lists/default/intents", port: fixture.port, headers: headers + [("Content-Type", "application/json")], body: delete)
            }
        }
        // The sync endpoints take the cookie too, with the same header.
        try fixture.refuses(403, saying: "X-Sectionctl-CSRF") {
            try RawHTTP.request("POST", "/lists/default/replicas", port: fixture.port, headers: [("Cookie", jar)], body: Array("{}".utf8))
        }
        // A read token's session reads and cannot write, CSRF header or not.
        let (readJar, readCSRF) = try Self.session(fixture, token: fixture.read)
        try fixture.refuses(403, saying: "role") {
            try RawHTTP.request(
                "POST", "/lists/default/intents", port: fixture.port, headers: [("Cookie", readJar), ("X-Sectionctl-CSRF", readCSRF)], body: delete)
        }
        // With the header, the write is made: one change.
        let before = try fixture.store.list("default").header().version.rawValue
        let done = try RawHTTP.request(
            "POST", "/lists/default/intents", port: fixture.port, headers: [("Cookie", jar), ("X-Sectionctl-CSRF", csrf)], body: delete)
        #expect(done.status == 200, "\(done.text)")
        #expect(try fixture.store.list("default").header().version.rawValue == before + 1)
    }

    @Test func aBatchIsOneChangeAndABaseBehindTheListIsAConflict() throws {
        let fixture = try Fixture(.sqlite)
        let list = fixture.store.list("default")
        try list.apply(.addSection(title: "Empty"))
        let version = try list.header().version.rawValue
        let snapshot = try list.snapshot()
        let section = snapshot.sections[1].id.rawValue
        let (milk, due) = (snapshot.sections[0].rows[0].id.rawValue, snapshot.sections[0].rows[1].id.rawValue)
        let moves = #"""
            {"base":\#(version),"intents":[
            {"op":"moveRow","row":\#(due),"to":{"section":\#(section),"before":[],"after":[],"index":0}},
            {"op":"moveRow","row":\#(milk),"to":{"section":\#(section),"before":[\#(due)],"after":[],"index":1}}]}
            """#
        let answer = try fixture.send("POST", "/lists/default/intents", authorization: "Bearer \(fixture.edit)", body: Array(moves.utf8))
        #expect(answer.status == 200, "\(answer.text)")
        #expect(try list.header().version.rawValue == version + 1, "two moves saved as one version")
        #expect(try list.snapshot().sections[1].rows.map(\.id.rawValue) == [due, milk])
        // The same batch against the version it was made at is now a conflict, and writes nothing.
        try fixture.refuses(409, saying: "someone else saved") {
            try fixture.send("POST", "/lists/default/intents", authorization: "Bearer \(fixture.edit)", body: Array(moves.utf8))
        }
        // Another list's rows and sections are not this list's to move; bad batches are refused whole.
        let other = try fixture.store.list("other").snapshot().sections[0].rows[0].id.rawValue
        for (body, status, words) in [
            (
                #"{"intents":[{"op":"deleteRow","row":\#(milk)},{"op":"moveRow","row":\#(milk),"to":{"section":99999,"before":[],"after":[],"index":0}}]}"#,
                200, ""
            ),
            (#"{"intents":[]}"#, 400, "no intents"),
            (#"{"intents":[{"op":"dance"}]}"#, 400, "batch of intents"),
            (#"{"intents":"#, 400, "not"),
            (String(repeating: "[", count: 40), 400, "nests deeper"),
        ] where status != 200 {
            try fixture.refuses(status, saying: words) {
                try fixture.send("POST", "/lists/default/intents", authorization: "Bearer \(fixture.edit)", body: Array(body.utf8))
            }
        }
        let before = try fixture.fingerprint()
        let foreign = try fixture.send(
            "POST", "/lists/default/intents", authorization: "Bearer \(fixture.edit)",
            body: Array(#"{"intents":[{"op":"deleteRow","row":\#(other)}]}"#.utf8))
        #expect(foreign.status == 200 && foreign.text.contains("dropped"), "\(foreign.text)")
        #expect(try fixture.fingerprint() == before, "a row of another list is never this list's to delete")
        try fixture.refuses(403, saying: "another list") {
            try fixture.send("POST", "/lists/other/intents", authorization: "Bearer \(fixture.edit)", body: Array(#"{"intents":[]}"#.utf8))
        }
        HostileClientTests.expectError(
            try fixture.send("GET", "/lists/default/intents", authorization: "Bearer \(fixture.edit)"), 405, saying: "use POST")
    }

    @Test func aWindowIsBoundedScopedAndReadAtOneVersion() throws {
        let fixture = try Fixture(.sqlite)
        let first = try fixture.send("GET", "/lists/default/window?limit=1", authorization: "Bearer \(fixture.read)")
        #expect(first.status == 200, "\(first.text)")
        let object = try #require(try JSONSerialization.jsonObject(with: Data(first.body)) as? [String: Any])
        #expect((object["rows"] as? [Any])?.count == 1 && object["next"] as? String == "0:1")
        let version = try #require(object["version"] as? Int)
        let second = try fixture.send("GET", "/lists/default/window?limit=1&from=0:1&version=\(version)", authorization: "Bearer \(fixture.read)")
        #expect(second.text.contains(#""title":"Due""#) && second.text.contains(#""value":"Friday""#) && second.text.contains(#""next":null"#))
        try fixture.store.list("default").apply(.addRow(.text("Bread"), to: .at(0, 0)))
        HostileClientTests.expectError(
            try fixture.send("GET", "/lists/default/window?from=0:1&version=\(version)", authorization: "Bearer \(fixture.read)"), 409,
            saying: "read it again")
        for (query, words) in [
            ("limit=0", "limit"), ("limit=1001", "limit"), ("limit=-1", "limit"), ("limit=1e3", "limit"), ("from=0", "from"),
            ("from=-1:0", "from"), ("from=0:99", "out of range"), ("from=7:0", "sections"), ("version=x", "version"),
            ("from=99999999999999999999:0", "from"),
        ] {
            HostileClientTests.expectError(
                try fixture.send("GET", "/lists/default/window?\(query)", authorization: "Bearer \(fixture.read)"), 400, saying: words)
        }
        HostileClientTests.expectError(
            try fixture.send("GET", "/lists/other/window", authorization: "Bearer \(fixture.read)"), 403, saying: "another list")
        HostileClientTests.expectError(try fixture.send("GET", "/lists/default/window", authorization: nil), 401, saying: "valid token")
        HostileClientTests.expectError(
            try fixture.send("POST", "/lists/default/window", authorization: "Bearer \(fixture.read)", body: []), 405, saying: "use GET")
    }

    @Test func withoutSortableThePageLeavesTheLibraryOutAndSaysSo() throws {
        let server = try StoreFixture(.sqlite)
        let empty = try TemporaryDirectory()
        let served = try ServedStore(server.store, assets: PageAssets(directory: empty.url.path))
        let page = try RawHTTP.request("GET", "/lists/default", port: served.port)
        #expect(page.status == 200 && !page.text.contains("Sortable"))
        let library = try RawHTTP.request("GET", "/assets/Sortable.min.js", port: served.port)
        HostileClientTests.expectError(library, 404, saying: "apt-get install libjs-sortable")
        let script = try RawHTTP.request("GET", "/assets/page.js", port: served.port)
        #expect(script.text.contains("Drag is off"))
    }
}
