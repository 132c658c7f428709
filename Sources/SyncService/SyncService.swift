import Foundation
import HTTPServer
import Repository
import Synchronization

/// The sync service's bounds, each with a documented default (docs/sync-protocol.md).
public struct SyncServiceLimits: Sendable {
    /// The HTTP layer's: body size, header size, connections, per-connection timeout.
    public var http = HTTPLimits()
    /// How deep a request's JSON may nest.
    public var jsonDepth = 16
    /// Intents in one push.
    public var intentsPerPush = 10_000
    /// Ids in one push's read set.
    public var readItems = 100_000
    /// Registrations and syncs answered at a time: writes to a store take turns, and a request
    /// past this many gets 503 with `Retry-After` at once rather than waiting past its client's
    /// deadline behind the others.
    public var concurrentWrites = 16
    /// Requests each token may make, on average, per second; past them, 429 with `Retry-After`.
    public var requestsPerSecond = 50.0
    /// Requests a token may make at once before its average counts (a client's burst).
    public var requestBurst = 500.0
    /// The page's sessions open at once; past them, opening one ends the least recently used.
    public var pageSessions = 10_000
    /// How long a page's session lasts from its opening (its token typed again after).
    public var pageSessionLifetime = Duration.seconds(12 * 3_600)
    /// Clones streamed at a time: each holds a read transaction (and, on PostgreSQL, a
    /// connection) while its client reads; past this many, 503 with `Retry-After`.
    public var concurrentClones = 4

    public init() {}
}

/// `sectionctl serve`'s requests, answered over a store (docs/sync-protocol.md): every request is
/// authenticated by a token of one list, checked against the token's role, bounded in size, and
/// applied by the server's own rules (`SectionStore.serveSync`). An error is one line of JSON with
/// the status it stands for, and nothing written.
public final class SyncService: Sendable {
    public let store: SectionStore
    public let limits: SyncServiceLimits
    /// Where the page's drag-and-drop library was looked for, and what was found.
    public let assets: PageAssets
    private let tokens: Tokens
    private let events: ListEvents
    /// The registrations and syncs being answered now.
    private let writing = Mutex(0)
    /// The clones being streamed now.
    private let cloning = Mutex(0)
    /// Each token's allowance of requests: a bucket of `requestBurst`, refilled at
    /// `requestsPerSecond`, by token id.
    private let allowances = Mutex<[Int64: (left: Double, at: ContinuousClock.Instant)]>([:])
    /// The page's sessions: what its cookie names.
    let pageSessions: PageSessions

    public init(store: SectionStore, limits: SyncServiceLimits = SyncServiceLimits(), assets: PageAssets = PageAssets()) {
        self.store = store
        self.limits = limits
        self.assets = assets
        self.tokens = Tokens(store: store)
        self.events = ListEvents(store: store)
        self.pageSessions = PageSessions(maximum: limits.pageSessions, lifetime: limits.pageSessionLifetime)
    }

    /// Answers one request. Never throws: every failure becomes its status. Every answer carries
    /// the page's security headers (`securityHeaders`).
    public func respond(to request: HTTPRequest) -> HTTPResponse {
        var response = answer(request)
        response.headers += Self.securityHeaders
        return response
    }

    private func answer(_ request: HTTPRequest) -> HTTPResponse {
        do {
            return try route(request)
        } catch let refusal as SyncRefusal {
            return Self.error(refusal.status, refusal.message)
        } catch let refusal as TooManyRequests {
            return Self.error(
                429, "too many requests with this token; try again in \(refusal.retryAfter) s",
                headers: [(name: "Retry-After", value: String(max(1, refusal.retryAfter)))])
        } catch is Busy {
            return Self.error(503, "the service is busy with other syncs; try again", headers: [(name: "Retry-After", value: "1")])
        } catch RepositoryError.busy {
            return Self.error(503, "the list is busy; try again", headers: [(name: "Retry-After", value: "1")])
        } catch RepositoryError.unavailable {
            return Self.error(503, "the store is out of reach; try again", headers: [(name: "Retry-After", value: "5")])
        } catch {
            // What went wrong stays in the server's log: an answer names no internals.
            FileHandle.standardError.write(Data("sectionctl serve: \(request.method) \(request.path): \(error)\n".utf8))
            return Self.error(500, "the server failed to answer; nothing was written")
        }
    }

    private func route(_ request: HTTPRequest) throws -> HTTPResponse {
        let parts = request.path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        if parts.count == 3, parts[0].isEmpty, parts[1] == "assets" {
            return try asset(request, name: parts[2])
        }
        guard parts.count >= 3, parts[0].isEmpty, parts[1] == "lists", let list = parts[2].removingPercentEncoding, !list.isEmpty else {
            throw SyncRefusal.notFound("no such endpoint: \(Self.shown(request.path))")
        }
        let action = parts.count == 4 ? parts[3] : parts.count == 3 ? "" : nil
        switch (request.method, action) {
        case ("POST", "replicas"):
            let token = try authenticate(request, list: list, needs: .read)
            try admitWrite()
            defer { endWrite() }
            _ = try decode(RegistrationRequest.self, named: "a registration", from: request)
            let registration = try store.registerReplica(list: list, tokenID: token.id, canWrite: token.role.allows(.edit))
            return HTTPResponse.json(201, String(decoding: SyncMessages.encode(registration), as: UTF8.self))
        case ("POST", "sync"):
            let token = try authenticate(request, list: list, needs: .read)
            try admitWrite()
            defer { endWrite() }
            let sync = try decode(SyncMessages.SyncRequest.self, named: "a sync request", from: request)
            var bounds = SyncLimits()
            bounds.intentsPerPush = limits.intentsPerPush
            bounds.readItems = limits.readItems
            let answer = try store.serveSync(sync, list: list, tokenID: token.id, canWrite: token.role.allows(.edit), limits: bounds)
            return HTTPResponse.json(200, String(decoding: SyncMessages.encode(answer), as: UTF8.self))
        case ("GET", "clone"):
            _ = try authenticate(request, list: list, needs: .read)
            return try clone(list: list)
        case ("GET", "events"):
            _ = try authenticate(request, list: list, needs: .read)
            let resume = request.header("last-event-id") ?? request.query["since"]
            var since: ListVersion?
            if let resume {
                guard let version = Int64(resume), version >= 0 else {
                    throw SyncRefusal.badRequest("the version to resume from is a number, 0 or more, not \(Self.shown(resume))")
                }
                since = ListVersion(rawValue: version)
            }
            do {
                return HTTPResponse.eventStream(try events.stream(list: list, since: since))
            } catch RepositoryError.listNotFound {
                throw SyncRefusal.notFound("no list is named \"\(Self.shown(list))\"")
            }
        case (_, ""):
            return page(request)
        case (_, "session"):
            return try session(request, list: list)
        case (_, "window"):
            return try window(request, list: list)
        case (_, "intents"):
            return try intents(request, list: list)
        case (_, "events"), (_, "clone"):
            return Self.error(405, "\(Self.shown(request.method)) is not allowed here; use GET", headers: [(name: "Allow", value: "GET")])
        case (_, "replicas"), (_, "sync"):
            return Self.error(405, "\(Self.shown(request.method)) is not allowed here; use POST", headers: [(name: "Allow", value: "POST")])
        default:
            throw SyncRefusal.notFound("no such endpoint: \(Self.shown(request.path))")
        }
    }

    /// The list's clone, streamed (`SectionStore.streamClone`): read by a thread of its own in
    /// one read transaction, and written to the connection no faster than the client reads it
    /// (`EventStream.write`), so that the server holds a chunk of it at a time. A quiet stream
    /// sends empty lines, which a clone's reader skips. The answer's status is known before
    /// anything is sent: the list is looked up first (404). A failure after that ends the
    /// stream without its end line, which the client refuses.
    private func clone(list: String) throws -> HTTPResponse {
        let admitted = cloning.withLock { count in
            guard count < limits.concurrentClones else { return false }
            count += 1
            return true
        }
        guard admitted else {
            return Self.error(
                503, "the service is streaming as many clones as it takes at a time; try again", headers: [(name: "Retry-After", value: "1")])
        }
        let stream = EventStream(keepAlive: Array("\n".utf8))
        let opened = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        Thread.detachNewThread { [self] in
            var started = false
            do {
                try store.streamClone(
                    list: list,
                    opened: {
                        started = true
                        opened.signal()
                    }, write: { stream.write($0) })
            } catch {
                if started {
                    FileHandle.standardError.write(Data("sectionctl serve: a clone of \"\(Self.shown(list))\" was cut off: \(error)\n".utf8))
                } else {
                    failure.withLock { $0 = error }
                }
            }
            self.cloning.withLock { $0 -= 1 }
            stream.finish()
            if !started { opened.signal() }
        }
        opened.wait()
        if let error = failure.withLock({ $0 }) { throw error }
        return HTTPResponse(
            status: 200, headers: [(name: "Content-Type", value: "application/x-ndjson"), (name: "Cache-Control", value: "no-store")],
            body: .stream(stream))
    }

    /// A registration's body: a JSON object (`{}`), whose members are kept for later versions
    /// of the protocol and ignored now.
    private struct RegistrationRequest: Decodable {
        init(from decoder: any Decoder) throws {
            _ = try decoder.container(keyedBy: NoKeys.self)
        }

        /// No member is read.
        enum NoKeys: CodingKey {}
    }

    /// Counts a registration or sync in, or refuses it (503) when `limits.concurrentWrites` are
    /// being answered already.
    func admitWrite() throws {
        let admitted = writing.withLock { count in
            guard count < limits.concurrentWrites else { return false }
            count += 1
            return true
        }
        guard admitted else { throw Busy() }
    }

    /// Counts a write admitted by `admitWrite()` out.
    func endWrite() {
        writing.withLock { $0 -= 1 }
    }

    /// Too many writes at once: answered 503 with `Retry-After`.
    private struct Busy: Error {}

    /// The token of the request, if it is valid, for list `list`, with a role of at least `needs`:
    /// from its `Authorization` header, or else from the page's cookie. A request that is not a
    /// `GET` and is authenticated by the cookie must carry the session's CSRF value in
    /// `X-Sectionctl-CSRF` (a browser sends the cookie with another site's form; it never lets
    /// another site set that header).
    func authenticate(_ request: HTTPRequest, list: String, needs: TokenRole) throws -> TokenRecord {
        if let header = request.header("authorization") {
            return try authenticate(authorization: header, list: list, needs: needs)
        }
        guard let id = Self.cookieSession(request) else {
            throw SyncRefusal(status: 401, "a valid token is needed: Authorization: Bearer TOKEN")
        }
        let token = try authenticate(session: id, list: list, needs: needs)
        if request.method != "GET" {
            let sent = Array((request.header(Self.csrfHeader) ?? "").utf8)
            let expected = Array(Self.csrf(for: id).utf8)
            guard sent.count == expected.count, Crypto.constantTimeEqual(sent, expected) else {
                throw SyncRefusal.forbidden("a write from the page carries the session's \(Self.csrfHeader) header")
            }
        }
        return token
    }

    /// The token of the page's session `id`, read again, if the session is open, of list
    /// `list`, and its token still accepted with a role of at least `needs`. A session whose
    /// token was revoked or expired ends here.
    func authenticate(session id: String, list: String, needs: TokenRole) throws -> TokenRecord {
        guard let session = pageSessions.session(id) else {
            throw SyncRefusal(status: 401, "a valid token is needed: the page's session ended; type the token again")
        }
        guard session.list == list else { throw SyncRefusal.forbidden("the session is for another list") }
        guard let token = try tokens.record(id: session.tokenID), token.list == list, token.state() == .active else {
            pageSessions.end(id)
            throw SyncRefusal(status: 401, "a valid token is needed: the session's token was revoked or expired; type a token again")
        }
        guard token.role.allows(needs) else { throw SyncRefusal.forbidden("the token's role (\(token.role.rawValue)) does not allow this") }
        try spend(token)
        return token
    }

    /// The token an `Authorization` header value names, if it is valid, for list `list`, with a
    /// role of at least `needs`.
    func authenticate(authorization: String, list: String, needs: TokenRole) throws -> TokenRecord {
        guard case .valid(let token) = try tokens.check(authorization: authorization) else {
            throw SyncRefusal(status: 401, "a valid token is needed: Authorization: Bearer TOKEN")
        }
        guard token.list == list else { throw SyncRefusal.forbidden("the token is for another list") }
        guard token.role.allows(needs) else { throw SyncRefusal.forbidden("the token's role (\(token.role.rawValue)) does not allow this") }
        try spend(token)
        return token
    }

    /// Takes one request from `token`'s allowance, or refuses it (429) when none is left.
    private func spend(_ token: TokenRecord) throws {
        let now = ContinuousClock.now
        let (rate, burst) = (limits.requestsPerSecond, limits.requestBurst)
        let wait: Double? = allowances.withLock { allowances in
            var (left, at) = allowances[token.id] ?? (burst, now)
            let elapsed = Double((now - at).components.seconds) + Double((now - at).components.attoseconds) / 1e18
            left = min(burst, left + elapsed * rate)
            defer { allowances[token.id] = (left, now) }
            guard left >= 1 else { return rate > 0 ? (1 - left) / rate : .infinity }
            left -= 1
            return nil
        }
        guard let wait else { return }
        throw TooManyRequests(retryAfter: Int(min(wait, 3_600).rounded(.up)))
    }

    /// A token past its allowance: answered 429 with `Retry-After`.
    private struct TooManyRequests: Error {
        var retryAfter: Int
    }

    /// The request's body as `T` (`name` in an error), after its nesting is checked against
    /// `limits.jsonDepth`.
    func decode<T: Decodable>(_ type: T.Type, named name: String, from request: HTTPRequest) throws -> T {
        if let depth = Self.depthExceeding(limits.jsonDepth, in: request.body) {
            throw SyncRefusal.badRequest("the body nests deeper than \(limits.jsonDepth) levels (at byte \(depth))")
        }
        do {
            return try JSONDecoder().decode(type, from: Data(request.body))
        } catch let error as DecodingError {
            throw SyncRefusal.badRequest("the body is not \(name): \(Self.reason(error))")
        } catch {
            throw SyncRefusal.badRequest("the body is not JSON")
        }
    }

    /// The offset at which `body`'s JSON nests deeper than `limit`, or `nil`. Strings are skipped,
    /// escapes and all; the rest of the syntax is the decoder's to check.
    static func depthExceeding(_ limit: Int, in body: [UInt8]) -> Int? {
        var depth = 0
        var inString = false
        var escaped = false
        for (offset, byte) in body.enumerated() {
            if inString {
                if escaped {
                    escaped = false
                } else if byte == UInt8(ascii: "\\") {
                    escaped = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): inString = true
            case UInt8(ascii: "["), UInt8(ascii: "{"):
                depth += 1
                if depth > limit { return offset }
            case UInt8(ascii: "]"), UInt8(ascii: "}"): depth -= 1
            default: break
            }
        }
        return nil
    }

    /// A decoding error in one line: where, and what.
    private static func reason(_ error: DecodingError) -> String {
        func place(_ path: [any CodingKey]) -> String {
            path.isEmpty ? "the body" : "\"" + path.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".") + "\""
        }
        switch error {
        case .keyNotFound(let key, let context): return "\(place(context.codingPath)) has no \"\(key.stringValue)\""
        case .typeMismatch(_, let context), .valueNotFound(_, let context): return "\(place(context.codingPath)) is not what it should be"
        case .dataCorrupted(let context):
            return context.codingPath.isEmpty ? "it is not JSON" : "\(place(context.codingPath)): \(context.debugDescription)"
        @unknown default: return "\(error)"
        }
    }

    /// Text from a request, shortened and with controls escaped, fit for an error message.
    public static func shown(_ text: String) -> String {
        let short = text.count > 80 ? String(text.prefix(80)) + "…" : text
        return short.unicodeScalars.map { $0.value < 0x20 || $0.value == 0x7F ? "\\u{\(String($0.value, radix: 16))}" : String($0) }.joined()
    }

    /// An error's answer: `{"error": message}`.
    static func error(_ status: Int, _ message: String, headers: [(name: String, value: String)] = []) -> HTTPResponse {
        var headers = headers
        if status == 401 { headers.append((name: "WWW-Authenticate", value: "Bearer")) }
        return HTTPResponse.json(
            status, String(decoding: SyncMessages.encode(SyncMessages.ErrorBody(error: message)), as: UTF8.self), headers: headers)
    }
}
