import Foundation
import Synchronization

/// The page's sessions (docs/browser.md): what its cookie names instead of the token typed into
/// it. A session is opened by a token of one list and is that token's, on that list alone: each
/// request by it reads the token again, so a session ends as soon as its token is revoked or
/// expires. Its id is random (32 bytes) and shown only in the cookie; the server keeps the
/// SHA-256 of it, never the id itself, as it keeps tokens. Sessions live in the serving process:
/// a new `serve` asks for the token again.
final class PageSessions: Sendable {
    /// What is kept of a session.
    struct Session: Sendable {
        /// The token that opened it, by id: read again at every request.
        var tokenID: Int64
        /// The list it is of (the token's).
        var list: String
        /// When it was opened: it ends `lifetime` later.
        var opened: ContinuousClock.Instant
        /// When it was last used: the least recently used goes first when there are too many.
        var used: ContinuousClock.Instant
    }

    /// What a session id starts with.
    static let prefix = "scs_"
    /// How many random bytes an id has.
    static let idBytes = 32

    /// The most sessions kept at once; past it, opening one ends the least recently used.
    let maximum: Int
    /// How long a session lasts from its opening.
    let lifetime: Duration
    /// The sessions, by the SHA-256 of their id, in hex.
    private let sessions = Mutex<[String: Session]>([:])

    init(maximum: Int, lifetime: Duration) {
        self.maximum = max(1, maximum)
        self.lifetime = lifetime
    }

    /// Opens a session of token `tokenID` on `list` and returns its id, the cookie's value.
    func open(tokenID: Int64, list: String, now: ContinuousClock.Instant = .now) throws -> String {
        let id = Self.prefix + Tokens.base64URL(try Crypto.randomBytes(Self.idBytes))
        let key = Self.key(id)
        sessions.withLock { sessions in
            sessions = sessions.filter { now - $0.value.opened < lifetime }
            while sessions.count >= maximum, let oldest = sessions.min(by: { $0.value.used < $1.value.used }) {
                sessions[oldest.key] = nil
            }
            sessions[key] = Session(tokenID: tokenID, list: list, opened: now, used: now)
        }
        return id
    }

    /// The session `id` names, if it is open and has not outlived `lifetime`; marks it used.
    func session(_ id: String, now: ContinuousClock.Instant = .now) -> Session? {
        guard Self.isWellFormed(id) else { return nil }
        let key = Self.key(id)
        return sessions.withLock { sessions in
            guard var session = sessions[key] else { return nil }
            guard now - session.opened < lifetime else {
                sessions[key] = nil
                return nil
            }
            session.used = now
            sessions[key] = session
            return session
        }
    }

    /// Ends the session `id` names (leaving, or its token refused).
    func end(_ id: String) {
        guard Self.isWellFormed(id) else { return }
        let key = Self.key(id)
        sessions.withLock { sessions in sessions[key] = nil }
    }

    /// How many sessions are open.
    var count: Int { sessions.withLock { $0.count } }

    /// The keys the sessions are kept under: all that the server's memory holds of their ids.
    var keys: [String] { sessions.withLock { Array($0.keys) } }

    /// The key a session is kept under: the SHA-256 of its id, in hex.
    static func key(_ id: String) -> String {
        Tokens.hex(Crypto.sha256(Array(id.utf8)))
    }

    /// Whether `id` has a session id's form: the prefix and 32 bytes in base64url.
    private static func isWellFormed(_ id: String) -> Bool {
        guard id.hasPrefix(prefix), let bytes = Tokens.bytes(base64URL: id.dropFirst(prefix.count)) else { return false }
        return bytes.count == idBytes
    }
}
