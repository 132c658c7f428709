import Foundation

/// Where a `SectionStore` keeps its lists: a SQLite file on this machine, or a PostgreSQL
/// server shared between machines.
public enum StoreLocation: Hashable, Sendable, CustomStringConvertible {
    /// A SQLite database file.
    case file(path: String)
    /// A PostgreSQL server, named by a libpq connection string (a `postgresql://` URI or
    /// `key=value` pairs); the usual `PG*` environment variables fill in what it leaves out.
    case server(connectionString: String)

    /// Reads what a user typed for `--db` or `$SECTIONCTL_DB`. A server's connection string is
    /// what libpq itself takes for one (a URI, or text with an `=`): a `postgresql://` or
    /// `postgres://` URI (the scheme in any case); or text with an `=` that does not begin with
    /// `/` or `.` (no libpq keyword does) and names no existing file or directory. Anything
    /// else is a file path: `./a=b.db` names a file.
    public init(_ text: String) {
        if Self.serverURIScheme(of: text) != nil {
            self = .server(connectionString: text)
        } else if text.contains("="), !text.hasPrefix("/"), !text.hasPrefix("."), !FileManager.default.fileExists(atPath: text) {
            self = .server(connectionString: text)
        } else {
            self = .file(path: text)
        }
    }

    /// The location for `url`: a `file:` URL's path, or a `postgresql:`/`postgres:` URI as it is.
    /// `nil` for any other scheme.
    public init?(url: URL) {
        switch url.scheme?.lowercased() {
        case "file": self = .file(path: url.path)
        case "postgresql", "postgres": self = .server(connectionString: url.absoluteString)
        default: return nil
        }
    }

    /// The path; for a server, a placeholder that shows nothing of the connection string but
    /// its scheme, since only the server client can read it to mask its passwords. What a store
    /// shows (`SectionStore.path`) is the string rebuilt with every password `***`, by the
    /// `ServerSupport` it was opened with (`ServerSupport.describe(_:)`).
    public var description: String {
        switch self {
        case .file(let path): return path
        case .server(let connectionString): return Self.placeholder(for: connectionString)
        }
    }

    /// `postgresql` or `postgres`, as written, when `text` begins with `postgresql://` or
    /// `postgres://` in any case.
    static func serverURIScheme(of text: String) -> String? {
        let head = text.utf8.prefix(13)
        for scheme in ["postgresql", "postgres"] where head.count >= scheme.utf8.count + 3 {
            let prefix = head.prefix(scheme.utf8.count + 3)
            if String(decoding: prefix, as: UTF8.self).lowercased() == scheme + "://" {
                return String(decoding: prefix.dropLast(3), as: UTF8.self)
            }
        }
        return nil
    }

    /// What a server's connection string shows where no server client reads it to mask its
    /// secrets: its scheme and nothing else.
    static func placeholder(for connectionString: String) -> String {
        serverURIScheme(of: connectionString).map { $0.lowercased() + "://… (not shown)" } ?? "a connection string (not shown)"
    }

    /// Whether the lists are on a PostgreSQL server.
    public var isServer: Bool {
        if case .server = self { return true }
        return false
    }
}
