import Foundation
import Repository

/// What a token lets its bearer do with its list. Each role allows what the ones below it do:
/// `read < edit < admin`.
public enum TokenRole: String, Sendable, CaseIterable, Comparable {
    /// Pull and watch the list.
    case read
    /// Also push intents.
    case edit
    /// Also register and drop replicas.
    case admin

    /// The roles' order, weakest first.
    private var rank: Int { Self.allCases.firstIndex(of: self)! }

    public static func < (lhs: TokenRole, rhs: TokenRole) -> Bool { lhs.rank < rhs.rank }

    /// Whether this role allows what `needed` does: it is `needed` or above it.
    public func allows(_ needed: TokenRole) -> Bool { self >= needed }
}

/// A token as stored: everything but its secret, which is never kept (only its SHA-256 is).
public struct TokenRecord: Sendable, Hashable {
    /// Its id, unique in the store.
    public var id: Int64
    /// The 16 hex digits between `sct_` and the secret: how a request finds the token's row. Not
    /// a secret: `token ls` shows it, and `token revoke` takes it.
    public var selector: String
    /// The name of the list it is for.
    public var list: String
    /// That list's id.
    public var listID: Int64
    /// What it allows.
    public var role: TokenRole
    /// When it was made (whole seconds).
    public var createdAt: Date
    /// When it stops being accepted; `nil` for never.
    public var expiresAt: Date?
    /// When it was revoked; `nil` while it is not.
    public var revokedAt: Date?

    /// Whether the token is accepted at `now`, or why not.
    public func state(at now: Date = Date()) -> TokenState {
        if revokedAt != nil { return .revoked }
        if let expiresAt, now >= expiresAt { return .expired }
        return .active
    }
}

/// Whether a token is accepted (`TokenRecord.state(at:)`).
public enum TokenState: String, Sendable, Hashable {
    /// Accepted.
    case active
    /// Revoked: refused from then on.
    case revoked
    /// Past its expiry: refused from then on.
    case expired
}

/// A token just made: its text, shown this once and never again, and its record.
///
/// Its description, debug description and mirror leave the text out, so that a log line or a
/// `dump` of it shows no secret; read `token` itself to hand it to the user.
public struct IssuedToken: Sendable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The whole token: `sct_`, the selector, `_`, and the secret (32 random bytes, base64url
    /// without padding). What a request sends as `Authorization: Bearer TOKEN`.
    public var token: String
    /// What is stored of it.
    public var record: TokenRecord

    public var description: String { "token #\(record.id) (\(record.selector)) for list \(record.list), role \(record.role.rawValue)" }
    public var debugDescription: String { "IssuedToken(\(description), secret hidden)" }
    public var customMirror: Mirror { Mirror(self, children: ["record": record]) }
}

/// What checking a request's `Authorization` header found (`Tokens.check(authorization:now:)`).
/// Every case but `valid` means the request is refused with 401.
public enum TokenCheck: Sendable, Equatable {
    /// A token that is accepted: its record.
    case valid(TokenRecord)
    /// No header, or an empty one.
    case missing
    /// Not `Bearer` and a token of the form `sct_SELECTOR_SECRET`.
    case malformed
    /// No token has the selector (or its list was deleted, with its tokens).
    case unknown
    /// The selector is a token's, the secret is not.
    case wrongSecret
    /// The token was revoked.
    case revoked
    /// The token is past its expiry.
    case expired
}

/// Why a token could not be made or revoked. Its messages never hold a token's text.
public enum TokenError: Error, Sendable, Equatable, CustomStringConvertible {
    /// No token has this id or selector.
    case notFound(String)
    /// An expiry under one second (a token must outlive the second it is made in).
    case expiryTooShort
    /// libcrypto's random generator gave no bytes.
    case noRandomness

    public var description: String {
        switch self {
        case .notFound(let name): "no token has the id or selector \(name)"
        case .expiryTooShort: "a token must expire at least a second after it is made"
        case .noRandomness: "the system's random generator gave no random bytes; no token was made"
        }
    }
}

/// The tokens of a store (the `tokens` table, Migrations/0012_sync_service.sql): each for one
/// list and one role. A token is random and shown once; the store keeps its selector and the
/// SHA-256 of its secret. A request's secret is hashed and compared in constant time.
public struct Tokens: Sendable {
    /// The store whose tokens these are.
    public let store: SectionStore

    /// What a token's text starts with.
    static let prefix = "sct_"
    /// How many random bytes a secret has.
    static let secretBytes = 32

    /// The tokens of `store`, a file or a server.
    public init(store: SectionStore) {
        self.store = store
    }

    /// Makes a token for the list `list` with `role`, accepted until `expiresAfter` from `now`
    /// (for ever when `nil`).
    /// - Returns: the token's text, which is stored nowhere, and its record.
    /// - Throws: `RepositoryError.listNotFound` when there is no such list;
    ///   `TokenError.expiryTooShort` for an expiry under a second; `TokenError.noRandomness`.
    public func create(list: String, role: TokenRole, expiresAfter: Duration?, now: Date = Date()) throws -> IssuedToken {
        let created = Self.seconds(now)
        var expires: Int64?
        if let expiresAfter {
            let (seconds, attoseconds) = expiresAfter.components
            let whole = seconds + (attoseconds > 0 ? 1 : 0)
            guard whole >= 1 else { throw TokenError.expiryTooShort }
            expires = created + whole
        }
        let selector = Self.hex(try Crypto.randomBytes(8))
        let secret = try Crypto.randomBytes(Self.secretBytes)
        let hash = Crypto.sha256(secret)
        let record = try store.write { db in
            let listID = try db.listRecord(named: list).id
            let id = try db.queryFirst(
                "INSERT INTO tokens (selector, secret_hash, list_id, role, created_at, expires_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id",
                selector, hash, listID, role.rawValue, created, expires
            ) { $0.int64(0) }!
            return try Self.record(id: id, in: db)!
        }
        return IssuedToken(token: Self.prefix + selector + "_" + Self.base64URL(secret), record: record)
    }

    /// Every token, revoked and expired ones too, by id.
    public func all() throws -> [TokenRecord] {
        try store.read { db in try db.query("SELECT \(Self.columns) FROM \(Self.joined) ORDER BY t.id", row: Self.record) }
    }

    /// Revokes the token with this id (digits) or selector (16 hex digits) at `now`: from then
    /// on it is refused. A token revoked already stays revoked as it was.
    /// - Returns: its record, revoked.
    /// - Throws: `TokenError.notFound` when no token has that id or selector.
    public func revoke(_ selectorOrID: String, now: Date = Date()) throws -> TokenRecord {
        let name = Self.shownName(selectorOrID)
        let id = Int64(selectorOrID)
        let selector = Self.isSelector(selectorOrID) ? selectorOrID : nil
        guard id != nil || selector != nil else { throw TokenError.notFound(name) }
        let record = try store.write { db -> TokenRecord? in
            guard
                let id = try db.queryFirst(
                    "UPDATE tokens SET revoked_at = coalesce(revoked_at, ?) WHERE id = ? OR selector = ? RETURNING id", Self.seconds(now), id,
                    selector, row: { $0.int64(0) })
            else { return nil }
            return try Self.record(id: id, in: db)
        }
        guard let record else { throw TokenError.notFound(name) }
        return record
    }

    /// The token with this id, revoked and expired ones too; `nil` when there is none (its list
    /// was deleted, with its tokens).
    public func record(id: Int64) throws -> TokenRecord? {
        try store.read { db in try Self.record(id: id, in: db) }
    }

    /// Checks a request's whole `Authorization` header value (`Bearer sct_…`) at `now`: whether
    /// it names a token that is accepted, or why it is refused. The secret is hashed and compared
    /// with the stored hash in constant time; the token's state is told only to a bearer of the
    /// right secret.
    public func check(authorization header: String?, now: Date = Date()) throws -> TokenCheck {
        guard let header, !header.allSatisfy(\.isWhitespace) else { return .missing }
        guard let (selector, secret) = Self.parse(header) else { return .malformed }
        let found = try store.read { db -> (TokenRecord, [UInt8])? in
            try db.queryFirst("SELECT \(Self.columns), t.secret_hash FROM \(Self.joined) WHERE t.selector = ?", selector) {
                (Self.record($0), $0.bytes(8))
            }
        }
        guard let (record, hash) = found else { return .unknown }
        guard Crypto.constantTimeEqual(Crypto.sha256(secret), hash) else { return .wrongSecret }
        switch record.state(at: now) {
        case .active: return .valid(record)
        case .revoked: return .revoked
        case .expired: return .expired
        }
    }

    // MARK: - The token's text

    /// The selector and secret of `header` when it is `Bearer` (any case), spaces, and a token
    /// `sct_` + 16 lowercase hex digits + `_` + a base64url secret of 32 bytes.
    static func parse(_ header: String) -> (selector: String, secret: [UInt8])? {
        let words = header.split(separator: " ", omittingEmptySubsequences: true)
        guard words.count == 2, words[0].lowercased() == "bearer" else { return nil }
        let token = words[1]
        guard token.hasPrefix(prefix) else { return nil }
        let parts = token.dropFirst(prefix.count).split(separator: "_", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, isSelector(parts[0]), let secret = bytes(base64URL: parts[1]), secret.count == secretBytes else { return nil }
        return (String(parts[0]), secret)
    }

    /// Whether `text` is a selector: 16 lowercase hex digits.
    static func isSelector(_ text: some StringProtocol) -> Bool {
        text.utf8.count == 16
            && text.utf8.allSatisfy { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) }
    }

    /// How an error names what `revoke` was given: a whole token is not repeated.
    private static func shownName(_ text: String) -> String {
        text.hasPrefix(prefix) ? "(a token's text: give its selector or id)" : "\"\(text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined())\""
    }

    /// `bytes` as lowercase hex digits.
    static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef")
        return String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 0x0f)]] })
    }

    /// `bytes` in base64url (RFC 4648 §5), without padding.
    static func base64URL(_ bytes: [UInt8]) -> String {
        Data(bytes).base64EncodedString().replacingOccurrences(of: "+", with: "-").replacingOccurrences(of: "/", with: "_")
            .replacingOccurrences(of: "=", with: "")
    }

    /// The bytes of base64url text without padding; `nil` when it is not that.
    static func bytes(base64URL text: some StringProtocol) -> [UInt8]? {
        guard text.utf8.allSatisfy({ base64URLAlphabet.contains($0) }), text.utf8.count % 4 != 1 else { return nil }
        var base64 = text.replacingOccurrences(of: "-", with: "+").replacingOccurrences(of: "_", with: "/")
        base64 += String(repeating: "=", count: (4 - base64.utf8.count % 4) % 4)
        guard let data = Data(base64Encoded: base64) else { return nil }
        return Array(data)
    }

    /// The 64 characters of base64url, as bytes.
    private static let base64URLAlphabet = Set("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)

    // MARK: - The table

    /// The columns `record(_:)` reads, in order, from `joined`.
    private static let columns = "t.id, t.selector, l.name, t.list_id, t.role, t.created_at, t.expires_at, t.revoked_at"
    /// The tokens with their lists.
    private static let joined = "tokens t JOIN lists l ON l.id = t.list_id"

    /// A token read from a row of `columns`.
    private static func record(_ row: any ResultRow) -> TokenRecord {
        TokenRecord(
            id: row.int64(0), selector: row.string(1), list: row.string(2), listID: row.int64(3),
            role: TokenRole(rawValue: row.string(4)) ?? .read, createdAt: date(row.int64(5)), expiresAt: row.optionalInt64(6).map(date),
            revokedAt: row.optionalInt64(7).map(date))
    }

    /// The token with this id, if there is one.
    private static func record(id: Int64, in db: any SQLExecutor) throws -> TokenRecord? {
        try db.queryFirst("SELECT \(columns) FROM \(joined) WHERE t.id = ?", id, row: record)
    }

    /// `date` in whole seconds since 1970, as the table keeps times (earlier fractions dropped).
    static func seconds(_ date: Date) -> Int64 { Int64(date.timeIntervalSince1970.rounded(.down)) }

    private static func date(_ seconds: Int64) -> Date { Date(timeIntervalSince1970: TimeInterval(seconds)) }
}
