import CommandLineSupport
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where the database is: `--db PATH`, else `$SECTIONCTL_DB`, else
/// `$XDG_DATA_HOME/sectionctl/sections.db`, else `~/.local/share/sectionctl/sections.db`.
///
/// `--db` and `$SECTIONCTL_DB` may name a server instead: `StoreLocation(_:)` reads a
/// `postgresql://` URI, or a libpq `key=value` string (text with an `=` that does not begin with
/// `/` or `.` and names no existing file), as one.
enum DatabaseLocation {
    /// The path (or connection string) to use. Empty variables count as unset; a relative
    /// `XDG_DATA_HOME` is ignored, as the XDG specification says.
    static func resolve(option: String?, environment: [String: String]) throws(CLIError) -> String {
        if let option {
            guard !option.isEmpty else { throw CLIError("\(Catalog.database.name) needs a path or a connection string", exitCode: .usage) }
            return option
        }
        if let path = environment["SECTIONCTL_DB"], !path.isEmpty { return path }
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return dataHome + "/sectionctl/sections.db"
        }
        guard let home = homeDirectory(environment: environment) else {
            throw CLIError(
                "cannot find a place for the database: HOME is not set",
                hint: "name one with --db PATH or SECTIONCTL_DB")
        }
        return home + "/.local/share/sectionctl/sections.db"
    }

    private static func homeDirectory(environment: [String: String]) -> String? {
        if let home = environment["HOME"], !home.isEmpty { return home }
        guard let entry = getpwuid(getuid()), let directory = entry.pointee.pw_dir else { return nil }
        let path = String(cString: directory)
        return path.isEmpty ? nil : path
    }

    /// Creates the directories that will hold the database at `path`.
    static func createParentDirectories(of path: String) throws(CLIError) {
        let parent = (path as NSString).deletingLastPathComponent
        guard !parent.isEmpty else { return }
        do {
            try FileManager.default.createDirectory(atPath: parent, withIntermediateDirectories: true)
        } catch {
            throw CLIError("cannot create the directory \(TextEscaping.escaped(parent)): \(error.localizedDescription)")
        }
    }
}
