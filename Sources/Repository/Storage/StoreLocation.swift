import Foundation
import Postgres

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
        if ConnectionString.uriScheme(of: text) != nil {
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

    /// The path, or the connection string as messages show it: rebuilt from what libpq parses,
    /// with every password (every option libpq marks secret) `***`; for a string libpq cannot
    /// read, a placeholder that shows nothing of it but its scheme.
    public var description: String {
        switch self {
        case .file(let path): return path
        case .server(let connectionString): return maskedConnectionString(connectionString)
        }
    }

    /// Whether the lists are on a PostgreSQL server.
    public var isServer: Bool {
        if case .server = self { return true }
        return false
    }
}
