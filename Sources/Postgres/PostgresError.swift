/// A failure reported by libpq or the server: the SQLSTATE when the server gave one, its
/// message, and what was being done. A connection string never appears in it with a password.
public struct PostgresError: Error, Hashable, Sendable, CustomStringConvertible {
    /// When the failure happened.
    public enum Stage: Hashable, Sendable {
        /// While connecting: the server could not be reached, or refused the connection (then
        /// `sqlState` says why: `28P01` a wrong password, `3D000` no such database, …).
        case connecting
        /// While running a statement.
        case statement
        /// The connection was lost while a `COMMIT` was in flight: the transaction may or may
        /// not have committed, and the client cannot tell which.
        case commitInDoubt
    }

    /// The five-character SQLSTATE (`40001` serialization failure, `23505` unique violation…);
    /// `nil` when the failure was libpq's own (a server that cannot be reached, a connection
    /// lost), not the server's.
    public var sqlState: String?
    /// The server's or libpq's message, on one line.
    public var message: String
    /// The statement that failed, or what was being done (`connecting to …`).
    public var context: String
    /// When the failure happened.
    public var stage: Stage
    /// The server asked for a password while connecting and none was given (libpq's
    /// `PQconnectionNeedsPassword`).
    public var needsPassword: Bool

    /// Creates an error.
    public init(sqlState: String?, message: String, context: String, stage: Stage = .statement, needsPassword: Bool = false) {
        self.sqlState = sqlState
        self.message = message
        self.context = context
        self.stage = stage
        self.needsPassword = needsPassword
    }

    public var description: String {
        let code = sqlState.map { "PostgreSQL error \($0): " } ?? "PostgreSQL: "
        return code + message + " — while " + context
    }

    /// A serialization failure or deadlock: the transaction may succeed if tried again.
    public var isRetryable: Bool { sqlState == "40001" || sqlState == "40P01" }
    /// A unique, foreign-key, check or not-null constraint refused the statement.
    public var isConstraintViolation: Bool { sqlState?.hasPrefix("23") == true }
    /// The connection is gone or could not be made (no SQLSTATE, or class 08), and not for want
    /// of a password.
    public var isConnectionFailure: Bool { !needsPassword && (sqlState == nil || sqlState?.hasPrefix("08") == true) }
    /// The server refused the login: a wrong password, a user it does not know or may not log
    /// in as (`28P01`, class `28`), or a password it asked for and was not given.
    public var isAuthenticationFailure: Bool { needsPassword || sqlState?.hasPrefix("28") == true }
}
