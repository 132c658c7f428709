import Foundation
import Postgres

/// Where a `SectionStore` keeps its lists: a SQLite file on this machine, or a PostgreSQL
/// server shared between machines.
public enum StoreLocation: Hashable, Sendable, CustomStringConvertible {
    /// A SQLite database file.
    case file(path: String)
    /// A PostgreSQL server, named by a libpq connection string (a `postgresql://` URI); the
    /// usual `PG*` environment variables fill in what it leaves out.
    case server(connectionString: String)

    /// Reads what a user typed for `--db` or `$SECTIONCTL_DB`: a `postgresql://` or
    /// `postgres://` URI names a server; anything else is a file path.
    public init(_ text: String) {
        let lowered = text.lowercased()
        if lowered.hasPrefix("postgresql://") || lowered.hasPrefix("postgres://") {
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

    /// The path, or the connection string with any password masked: what messages show.
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
