import CPostgres

/// libpq, the PostgreSQL client library, which this layer loads the first time a connection
/// string is read or a connection made, rather than linking it: a process that only ever opens
/// SQLite files does not load libpq, nor the TLS, Kerberos and LDAP libraries it needs.
///
/// The library is `libpq.so.5` (on Apple platforms `libpq.5.dylib`, looked for also where
/// Homebrew and Postgres.app install it), or the file named by the `SECTIONCTL_LIBPQ`
/// environment variable when that is set.
public enum LibPQ {
    /// Loads libpq if this process has not yet; every later call returns at once.
    /// - Throws: `LibPQUnavailable` when the library cannot be found or lacks a function this
    ///   layer calls; the process is unchanged and can go on with SQLite files.
    public static func load() throws(LibPQUnavailable) {
        if cpostgres_load() == 1 { return }
        throw LibPQUnavailable(reason: String(cString: cpostgres_load_error()))
    }
}

/// libpq could not be loaded: not installed, or too old. `reason` says which, and how to
/// install it.
public struct LibPQUnavailable: Error, Hashable, Sendable, CustomStringConvertible {
    /// The loader's message: the library it looked for and why it could not use it.
    public var reason: String

    /// Creates an error.
    public init(reason: String) {
        self.reason = reason
    }

    public var description: String { reason }
}
