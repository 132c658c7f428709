import Foundation
import HTTPServer
import Repository

/// Where the page finds SortableJS, the drag-and-drop library it uses (docs/browser.md): Debian's
/// `libjs-sortable`, or a directory `serve --assets DIR` names. It is never copied into the
/// repository or the binary; without it the page reorders by keyboard and says why drag is off.
public struct PageAssets: Sendable {
    /// Where Debian's `libjs-sortable` puts the library.
    public static let systemDirectory = "/usr/share/javascript/sortable"

    /// The library's text, when it was found.
    public let sortable: [UInt8]?
    /// Where it was looked for: the message the page shows when it was not found names it.
    public let directory: String

    /// The library from `directory` (`Sortable.min.js`, else `Sortable.js`), read once.
    public init(directory: String = PageAssets.systemDirectory) {
        self.directory = directory
        let names = ["Sortable.min.js", "Sortable.js"]
        sortable = names.lazy.compactMap { FileManager.default.contents(atPath: directory + "/" + $0).map(Array.init) }.first
    }
}

/// The page's routes (docs/browser.md, docs/sync-protocol.md): the page itself, its files, the
/// session that turns a token typed once into a cookie, a window of rows, and a batch of intents
/// written as one change.
extension SyncService {
    /// The cookie that holds a page's session id (never the token): `HttpOnly` (no script reads
    /// it), `SameSite=Strict`, scoped to its list's path.
    static let cookieName = "sectionctl_session"
    /// The header a write authenticated by the cookie must carry, with the session's CSRF value.
    static let csrfHeader = "X-Sectionctl-CSRF"
    /// The most rows one window read returns.
    public static let maximumWindow = 1_000

    /// The headers every answer carries: the page runs no inline script, loads nothing from
    /// elsewhere and is never framed.
    static let securityHeaders: [(name: String, value: String)] = [
        (
            "Content-Security-Policy",
            "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; connect-src 'self'; "
                + "form-action 'self'; base-uri 'none'; frame-ancestors 'none'"
        ),
        ("X-Content-Type-Options", "nosniff"),
        ("X-Frame-Options", "DENY"),
        ("Referrer-Policy", "no-referrer"),
    ]

    /// `GET /assets/NAME`: one of the page's files, or SortableJS. Only these names are served.
    func asset(_ request: HTTPRequest, name: String) throws -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return Self.error(405, "\(Self.shown(request.method)) is not allowed here; use GET", headers: [(name: "Allow", value: "GET")])
        }
        if name == "Sortable.min.js" {
            guard let sortable = assets.sortable else {
                throw SyncRefusal.notFound("SortableJS is not installed here (apt-get install libjs-sortable, or serve --assets DIR)")
            }
            return Self.file(sortable, type: "text/javascript")
        }
        guard name != "page.html", let text = EmbeddedPage.files[name] else { throw SyncRefusal.notFound("no such file: \(Self.shown(name))") }
        let type = name.hasSuffix(".css") ? "text/css" : name.hasSuffix(".svg") ? "image/svg+xml" : "text/javascript"
        return Self.file(Array(text.utf8), type: type)
    }

    /// `GET /lists/NAME`: the page. It holds no data of the list: its script reads the list
    /// through the endpoints below once its session is open.
    func page(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD" else {
            return Self.error(405, "\(Self.shown(request.method)) is not allowed here; use GET", headers: [(name: "Allow", value: "GET")])
        }
        let library = assets.sortable == nil ? "" : "<script src=\"/assets/Sortable.min.js\"></script>"
        let html = (EmbeddedPage.files["page.html"] ?? "").replacingOccurrences(of: "<!--sortable-->", with: library)
        return Self.file(Array(html.utf8), type: "text/html; charset=utf-8")
    }

    /// A file's answer: its type, and never kept by a cache (a new binary serves a new page).
    private static func file(_ bytes: [UInt8], type: String) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [("Content-Type", type), ("Cache-Control", "no-store")], body: .bytes(bytes))
    }

    /// `/lists/NAME/session`: `POST` `{"token": "…"}` checks the token, opens a session of it
    /// (`PageSessions`) and sets the cookie to the session's id; `GET` says what the cookie's
    /// session allows (`{"role": null}` without a cookie: the page then asks for a token);
    /// `DELETE` ends the session and clears the cookie.
    func session(_ request: HTTPRequest, list: String) throws -> HTTPResponse {
        let secure = request.isTLS ? "; Secure" : ""
        switch request.method {
        case "POST":
            // A form of another site cannot send JSON without asking first (and is never let).
            guard request.header("content-type")?.lowercased().hasPrefix("application/json") == true else {
                throw SyncRefusal.badRequest("a session is opened with a JSON body: Content-Type: application/json")
            }
            let body = try decode(SessionRequest.self, named: "a session request ({\"token\": \"…\"})", from: request)
            let token = try authenticate(authorization: "Bearer " + body.token, list: list, needs: .read)
            let id = try pageSessions.open(tokenID: token.id, list: list)
            let lifetime = pageSessions.lifetime.components.seconds
            let cookie = "\(Self.cookieName)=\(id); Path=\(Self.cookiePath(list)); Max-Age=\(lifetime); HttpOnly; SameSite=Strict\(secure)"
            return HTTPResponse.json(200, Self.sessionAnswer(token, session: id), headers: [("Set-Cookie", cookie)])
        case "GET":
            guard let id = Self.cookieSession(request) else { return HTTPResponse.json(200, "{\"role\":null}") }
            let token = try authenticate(session: id, list: list, needs: .read)
            return HTTPResponse.json(200, Self.sessionAnswer(token, session: id))
        case "DELETE":
            if let id = Self.cookieSession(request), let session = pageSessions.session(id), session.list == list {
                pageSessions.end(id)
            }
            let cookie = "\(Self.cookieName)=; Path=\(Self.cookiePath(list)); Max-Age=0; HttpOnly; SameSite=Strict\(secure)"
            return HTTPResponse(status: 204, headers: [("Set-Cookie", cookie)])
        default:
            return Self.error(
                405, "\(Self.shown(request.method)) is not allowed here; use GET, POST or DELETE",
                headers: [(name: "Allow", value: "GET, POST, DELETE")])
        }
    }

    /// A session request's body.
    private struct SessionRequest: Decodable {
        var token: String
    }

    /// A session's answer: the list, the token's role, and the value writes carry in
    /// `X-Sectionctl-CSRF`.
    private static func sessionAnswer(_ token: TokenRecord, session: String) -> String {
        let list = String(decoding: (try? JSONEncoder().encode(token.list)) ?? Data(), as: UTF8.self)
        return "{\"csrf\":\"\(csrf(for: session))\",\"list\":\(list),\"role\":\"\(token.role.rawValue)\"}"
    }

    /// The CSRF value of a session: the SHA-256 of a fixed prefix and the session's id, in hex.
    /// A page of the same origin reads it from its session; no other site can, and it tells
    /// nothing of the id.
    static func csrf(for session: String) -> String {
        Tokens.hex(Crypto.sha256(Array(("sectionctl csrf " + session).utf8)))
    }

    /// The cookie's `Path`: the list's own, its name percent-encoded with nothing but unreserved
    /// characters left bare, so that no name can add an attribute to the cookie.
    static func cookiePath(_ list: String) -> String {
        let unreserved = CharacterSet(charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")
        return "/lists/" + (list.addingPercentEncoding(withAllowedCharacters: unreserved) ?? "")
    }

    /// The session id the request's cookie holds, if it has one.
    static func cookieSession(_ request: HTTPRequest) -> String? {
        guard let header = request.header("cookie") else { return nil }
        for pair in header.split(whereSeparator: { $0 == ";" || $0 == "," }) {
            let parts = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            if parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == cookieName {
                let value = parts[1].trimmingCharacters(in: .whitespaces)
                return value.isEmpty ? nil : value
            }
        }
        return nil
    }

    /// `GET /lists/NAME/window?from=S:R&limit=N[&version=V]`: every section's outline and up to
    /// `limit` rows from `S:R`, read at one version (`V` when given, else 409).
    func window(_ request: HTTPRequest, list: String) throws -> HTTPResponse {
        guard request.method == "GET" else {
            return Self.error(405, "\(Self.shown(request.method)) is not allowed here; use GET", headers: [(name: "Allow", value: "GET")])
        }
        _ = try authenticate(request, list: list, needs: .read)
        var start = RowPath(section: 0, row: 0)
        if let from = request.query["from"] {
            let parts = from.split(separator: ":", omittingEmptySubsequences: false)
            guard parts.count == 2, let section = Int(parts[0]), let row = Int(parts[1]), section >= 0, row >= 0 else {
                throw SyncRefusal.badRequest("from is a row's place S:R (like 0:0), not \(Self.shown(from))")
            }
            start = RowPath(section: section, row: row)
        }
        var limit = 500
        if let text = request.query["limit"] {
            guard let number = Int(text), (1...Self.maximumWindow).contains(number) else {
                throw SyncRefusal.badRequest("limit is a number from 1 to \(Self.maximumWindow), not \(Self.shown(text))")
            }
            limit = number
        }
        var expected: Int64?
        if let text = request.query["version"] {
            guard let number = Int64(text), number >= 0 else {
                throw SyncRefusal.badRequest("version is a number, 0 or more, not \(Self.shown(text))")
            }
            expected = number
        }
        let handle = store.list(list)
        let outline: ListOutline
        let window: ListWindow
        do {
            outline = try handle.outline(editing: true, atVersion: expected.map { ListVersion($0) })
            guard outline.sections.isEmpty || start.section < outline.sections.count else {
                throw SyncRefusal.badRequest("the list has \(outline.sections.count) sections; from names section \(start.section)")
            }
            window =
                outline.sections.isEmpty
                ? ListWindow(listID: outline.listID, name: outline.name, version: outline.version)
                : try handle.window(from: start, limit: limit, atVersion: outline.version)
        } catch RepositoryError.listMovedOn(_, _, let current) {
            throw SyncRefusal.conflict("the list is at version \(current.rawValue) now; read it again from the start")
        } catch RepositoryError.listNotFound {
            throw SyncRefusal.notFound("no list is named \"\(Self.shown(list))\"")
        } catch let error as RepositoryError {
            guard case .rowIndexOutOfRange = error else { throw error }
            throw SyncRefusal.badRequest(error.description)
        }
        var text = "{\"version\":\(outline.version.rawValue),\"sections\":["
        text += outline.sections.map { section in
            "{\"id\":\(section.id.rawValue),\"index\":\(section.index),\"title\":\(Self.jsonString(section.title)),"
                + "\"empty_text\":\(section.emptyText.map(Self.jsonString) ?? "null"),\"rows\":\(section.rowCount)}"
        }.joined(separator: ",")
        text += "],\"rows\":["
        var rows: [String] = []
        var end: (section: Int, row: Int)?
        for part in window.parts {
            for (offset, row) in part.rows.enumerated() {
                let index = part.firstRow + offset
                rows.append(
                    "{\"id\":\(row.id.rawValue),\"section\":\(part.section.index),\"index\":\(index),\"kind\":\"\(row.kind.rawValue)\","
                        + "\"title\":\(Self.jsonString(row.title)),\"value\":\(row.value.map(Self.jsonString) ?? "null")}")
                end = (part.section.index, index + 1)
            }
        }
        text += rows.joined(separator: ",") + "],\"next\":"
        if rows.count == limit, let end, Self.hasRows(after: end, in: outline) {
            text += "\"\(end.section):\(end.row)\"}"
        } else {
            text += "null}"
        }
        return HTTPResponse.json(200, text, headers: [("Cache-Control", "no-store")])
    }

    /// Whether the list has a row at or after `place` (a row index may be its section's count).
    private static func hasRows(after place: (section: Int, row: Int), in outline: ListOutline) -> Bool {
        outline.sections.dropFirst(place.section).enumerated().contains { offset, section in
            offset == 0 ? place.row < section.rowCount : section.rowCount > 0
        }
    }

    /// `text` as a JSON string.
    static func jsonString(_ text: String) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(text)) ?? Data("\"\"".utf8), as: UTF8.self)
    }

    /// `POST /lists/NAME/intents` `{"base": V, "intents": […]}`: the intents applied in order as
    /// one change (one version), the list at version `V` when it is given (else 409).
    func intents(_ request: HTTPRequest, list: String) throws -> HTTPResponse {
        guard request.method == "POST" else {
            return Self.error(405, "\(Self.shown(request.method)) is not allowed here; use POST", headers: [(name: "Allow", value: "POST")])
        }
        _ = try authenticate(request, list: list, needs: .edit)
        try admitWrite()
        defer { endWrite() }
        let batch = try decode(IntentBatch.self, named: "a batch of intents ({\"base\": V, \"intents\": […]})", from: request)
        guard !batch.intents.isEmpty else { throw SyncRefusal.badRequest("the batch has no intents") }
        guard batch.intents.count <= limits.intentsPerPush else {
            throw SyncRefusal.tooLarge("\(batch.intents.count) intents in one batch; at most \(limits.intentsPerPush) are taken at a time")
        }
        let result: IntentBatchResult
        do {
            result = try store.list(list).apply(batch: batch.intents, expecting: batch.base.map { ListVersion($0) })
        } catch IntentBatchRefusal.listMovedOn(let expected, let current) {
            throw SyncRefusal.conflict(
                "the list is at version \(current.rawValue), not \(expected.rawValue): someone else saved meanwhile; nothing was written")
        } catch RepositoryError.listNotFound {
            throw SyncRefusal.notFound("no list is named \"\(Self.shown(list))\"")
        } catch let error as RepositoryError where !Self.isTransient(error) {
            throw SyncRefusal.badRequest("the intents cannot be applied: \(error.description); nothing was written")
        }
        let outcomes = result.outcomes.enumerated().map { BatchOutcome(sequence: $0.offset + 1, outcome: $0.element) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let encoded = String(decoding: (try? encoder.encode(outcomes)) ?? Data("[]".utf8), as: UTF8.self)
        return HTTPResponse.json(200, "{\"outcomes\":\(encoded),\"version\":\(result.version.rawValue)}")
    }

    /// What became of one intent of a batch: its place in the batch (from 1) and its outcome, as
    /// a sync's outcomes are written.
    private struct BatchOutcome: Encodable {
        var sequence: Int
        var outcome: IntentOutcome
    }

    /// A batch's body.
    private struct IntentBatch: Decodable {
        var base: Int64?
        var intents: [Intent]
    }

    /// Whether `error` is the store's being busy or out of reach (answered 503), not the request's fault.
    private static func isTransient(_ error: RepositoryError) -> Bool {
        switch error {
        case .busy, .unavailable: true
        default: false
        }
    }
}
