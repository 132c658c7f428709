import CommandLineSupport

/// The manual page `sectionctl(1)`: what the page says of sectionctl besides its command tree.
extension ManualPage {
    /// The exit statuses and what each means.
    static let exitStatuses: [(ExitCode, String)] = [
        (.success, "Done."),
        (
            .failure,
            "Refused or failed: an address that names nothing, an index out of range, a non-empty section without --force, a file that is not a sectionctl database, a read-only one; on a server, a refused login or privilege, a sectionctl schema sectionctl did not make, a malformed SECTIONCTL_DB."
        ),
        (
            .usage,
            "A malformed command line: an unknown command or option, missing or extra arguments, an option's value that cannot be read (a malformed --db connection string too)."
        ),
        (.dataError, "Bad input data: malformed JSON, a record or line too long, text that is not UTF-8."),
        (.noInput, "The database or an input file is missing (on a server, the database or its sectionctl schema)."),
        (
            .temporaryFailure,
            "Busy, a conflict with another writer, or a server that cannot be reached, lost the connection, has no room for another or is shutting down: try again. A connection lost while a change was committed is settled on a new connection (saved, or made again once); when the server cannot be reached again it is 75 too, and the message says the change may or may not have been saved."
        ),
    ]

    /// The environment variables read, and what for.
    static let environment: [(String, String)] = [
        (
            "SECTIONCTL_DB",
            "The database, when --db is not given: a file, or a server's postgresql:// URI or libpq key=value string (text with an = that does not begin with / or . and names no existing file). Messages show it with every password as ***."
        ),
        (
            "PGHOST, PGUSER, PGPASSWORD",
            "For a server, these and the other PG* variables of libpq fill in what the URI leaves out (as does ~/.pgpass)."
        ),
        (
            "SECTIONCTL_LIBPQ",
            "The file of libpq, the PostgreSQL client library, when it is not where the system's loader finds libpq.so.5 (libpq.5.dylib on macOS). It is loaded only when a server is named; files never need it."
        ),
        (
            "SECTIONCTL_LIBPQ_PIPELINE",
            "0 sends a server one statement with parameters a round trip, as with a libpq older than 14, rather than several together in libpq's pipeline mode (for a proxy in front of the server that mishandles pipelined statements)."
        ),
        (
            "SECTIONCTL_LIBCURL",
            "The file of libcurl, which a replica's sync runs on (Linux), when it is not where the system's loader finds libcurl.so.4. It is loaded only when a replica syncs or is cloned; other commands never need it."
        ),
        ("XDG_DATA_HOME", "Where the default database lives: $XDG_DATA_HOME/sectionctl/sections.db (an absolute path; else ~/.local/share)."),
        ("NO_COLOR", "When set, output at a terminal has no colour."),
    ]

    /// The files used, as roff source.
    static let files: [(path: String, meaning: String)] = [
        (
            "$XDG_DATA_HOME/sectionctl/sections.db",
            "The database when neither --db nor SECTIONCTL_DB names one; ~/.local/share/sectionctl/sections.db when XDG_DATA_HOME is unset. Its -wal and -shm files sit beside it while it is in use."
        )
    ]

    /// sectionctl's page for the catalog's `parser`: the edit session's commands are named in
    /// its prose too.
    init(parser: CommandLineParser, version: String) {
        self.init(
            parser: parser, version: version, exitStatuses: Self.exitStatuses.map { ($0.0.rawValue, $0.1) },
            environment: Self.environment, files: Self.files, seeAlso: [("sqlite3", 1)],
            otherCommandNames: Self.commandNames(Catalog.sessionParser.root))
    }
}
