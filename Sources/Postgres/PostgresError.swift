/// A failure reported by libpq or the server: the SQLSTATE when the server gave one, its
/// message, and what was being done. A connection string never appears in it with a password.
public struct PostgresError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The five-character SQLSTATE (`40001` serialization failure, `23505` unique violation…);
    /// `nil` when the failure was the connection's, not a statement's.
    public var sqlState: String?
    /// The server's or libpq's message, on one line.
    public var message: String
    /// The statement that failed, or what was being done (`connecting to …`).
    public var context: String

    /// Creates an error.
    public init(sqlState: String?, message: String, context: String) {
        self.sqlState = sqlState
        self.message = message
        self.context = context
    }

    public var description: String {
        let code = sqlState.map { "PostgreSQL error \($0): " } ?? "PostgreSQL: "
        return code + message + " — while " + context
    }

    /// A serialization failure or deadlock: the transaction may succeed if tried again.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// A unique, foreign-key, check or not-null constraint refused the statement.
    public var isConstraintViolation: Bool { sqlState?.hasPrefix("23") == true }
    /// The connection is gone or could not be made (no SQLSTATE, or class 08).
    public var isConnectionFailure: Bool { sqlState == nil || sqlState?.hasPrefix("08") == true }
}

/// `uri` with any password in it replaced by `***`: for messages, which must never show one.
/// Handles `postgresql://user:password@host/…` and `password=…` in a key/value string.
public func maskedConnectionString(_ uri: String) -> String {
    var text = uri
    // URI form: the part between "://user:" and "@".
    if let scheme = text.range(of: "://") {
        let rest = text[scheme.upperBound...]
        if let at = rest.firstIndex(of: "@"), let colon = rest[..<at].firstIndex(of: ":") {
            text.replaceSubrange(text.index(after: colon)..<at, with: "***")
        }
    }
    // password=… in a query string or a key/value string, up to the next & or space.
    var searchStart = text.startIndex
    while let found = text.range(of: "password=", options: .caseInsensitive, range: searchStart..<text.endIndex) {
        let end = text[found.upperBound...].firstIndex { $0 == "&" || $0 == " " } ?? text.endIndex
        text.replaceSubrange(found.upperBound..<end, with: "***")
        searchStart = text.index(found.upperBound, offsetBy: 3, limitedBy: text.endIndex) ?? text.endIndex
    }
    return text
}
