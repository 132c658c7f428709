import Foundation

/// Everything the `Repository` module reports as a failure. Switch on the case to decide what
/// to do; `description` is a one-line message for people, naming what was wrong and, where
/// there is one, the valid choice.
public enum RepositoryError: Error, Hashable, Sendable, CustomStringConvertible {
    /// No list has this name. `available` lists the names there are.
    case listNotFound(String, available: [String])
    /// A list with this name already exists.
    case listExists(String)
    /// The list still has sections, and deleting it was not forced.
    case listNotEmpty(String, sectionCount: Int)
    /// An import into a list that already has sections, without saying whether to replace them
    /// or append after them.
    case importIntoNonEmptyList(String, sectionCount: Int)
    /// No section has this id or title in the list. `titles` are the list's section titles.
    case sectionNotFound(SectionRef, list: String, titles: [String])
    /// Several sections have this title; name one by index or id.
    case ambiguousSectionTitle(String, ids: [SectionID])
    /// No row has this id in the list.
    case rowNotFound(RowID, list: String)
    /// A section index outside `valid` (`nil` when the list has no sections). `version` is the
    /// list's version the index was looked up in, when a read of the store reports it (`row(at:)`,
    /// `window(from:)`, …): a view holding an index from an older version learns the list moved on.
    case sectionIndexOutOfRange(Int, valid: ClosedRange<Int>?, version: ListVersion? = nil)
    /// A row index outside `valid` in the section at index `section` (`valid` is `nil` when
    /// the section is empty and a row had to exist). `version` is the list's version the index
    /// was looked up in, when a read of the store reports it.
    case rowIndexOutOfRange(Int, section: Int, valid: ClosedRange<Int>?, version: ListVersion? = nil)
    /// A read was asked for at version `expected` (`atVersion:`), and the list is at `current`:
    /// it moved on (or, when `current` is older, the version asked for is not one it has
    /// reached). Nothing was read; apply the list's changes since `expected`
    /// (`ListHandle.changes(since:)`, `ListHandle.updates(from:bufferLimit:)`) and read again at `current`.
    case listMovedOn(list: String, expected: ListVersion, current: ListVersion)
    /// The section still has rows, and deleting it was not forced.
    case sectionNotEmpty(title: String, rowCount: Int)
    /// The list changed since the edit session began; the save was refused and nothing written.
    /// `currentVersion` is `nil` when the list was deleted (or deleted and made anew) meanwhile;
    /// equal to `sessionVersion` when it was changed without its version growing (by SQL
    /// written outside sectionctl).
    case conflict(list: String, sessionVersion: ListVersion, currentVersion: ListVersion?)
    /// The edit session was already saved or cancelled.
    case sessionClosed
    /// The list has no change left to undo (none made, or all of the last ones undone already).
    case nothingToUndo(list: String)
    /// The list has nothing to redo: nothing was undone, or a change came after the undo.
    case nothingToRedo(list: String)
    /// The list's last change cannot be taken back (or an undone one reapplied); `reason` says why.
    /// Nothing was written.
    case cannotUndo(list: String, reason: String)
    /// Another connection kept the database locked past the busy timeout; try again.
    case busy
    /// The database was written by a newer sectionctl, whose schema this build does not know.
    case newerSchema(path: String, found: Int, known: Int)
    /// The file is a SQLite database, but not one of ours.
    case notOurDatabase(path: String)
    /// The file is not a SQLite database.
    case notADatabase(path: String)
    /// The file cannot be opened or read; `reason` says why (a directory, a write-ahead log that
    /// only a user who can write the directory can read, …).
    case cannotOpen(path: String, reason: String)
    /// There is no database at the path.
    case databaseMissing(path: String)
    /// The disk is full; nothing was written.
    case diskFull
    /// The database cannot be written (file permissions, a read-only mount or open mode).
    case readOnly(path: String)
    /// The database file is damaged.
    case corrupt(path: String, detail: String)
    /// `repair()` found problems it cannot mend safely (`IntegrityProblem.isRepairable` is
    /// false: the engine's page check failed, a table is missing or changed); `problems` names
    /// them. Nothing was written.
    case cannotRepair(path: String, problems: [String])
    /// A list name that is empty.
    case emptyListName
    /// A list name that holds the character NUL (U+0000), which names cannot carry.
    case listNameContainsNUL(String)
    /// A title, value or name of `bytes` bytes, longer than the `limit` a text may have
    /// (`SectionStore.maximumTextLength`); `what` says which text ("the row title").
    case textTooLong(what: String, bytes: Int, limit: Int)
    /// A value given to row `row`, a `kind` row: only field rows have a value.
    case valueOnNonFieldRow(row: RowID, kind: RowKind)
    /// A window asked for a negative number of rows.
    case negativeWindowLimit(Int)
    /// A URL of a scheme that names no database (`nil`: no scheme at all); use a `file:` URL or
    /// a `postgresql://` URI.
    case unsupportedURL(scheme: String?)
    /// A list name was given for an import whose document holds more than one list.
    case listNameForSeveralLists
    /// Text holding the character NUL (U+0000) was to be stored on a PostgreSQL server, which
    /// cannot store it in text (a SQLite file can).
    case textContainsNULOnServer
    /// A migration would leave rows that break foreign keys in `tables`; it was rolled back.
    case migrationBreaksForeignKeys(migration: String, tables: [String])
    /// Data to import is malformed (bad JSON, wrong shape, invalid UTF-8); the text says where
    /// (line, or byte offset) and what was expected. Nothing was written.
    case invalidData(String)
    /// `ListSnapshot.applying` was given a changeset that does not fit the snapshot: one made
    /// from another state, one without ids, or content that names other ids; the text says what
    /// did not fit.
    case changesetDoesNotFit(String)
    /// Any other failure of the database engine: SQLite's extended result code, its message,
    /// and the statement that failed when there was one.
    case database(code: Int32, message: String, sql: String?)
    /// The PostgreSQL server cannot be reached, the connection to it was lost, it has no room
    /// for another connection, it is starting up or shutting down, or a serialization failure
    /// persisted past its retries; `server` is the connection string with any password masked.
    /// Or a replica's sync service (`server` its list's address) cannot be reached, went silent
    /// past the request's deadline, or is busy. Try again.
    case unavailable(server: String, reason: String)
    /// The connection string cannot be used: libpq cannot read it, or would read it other than
    /// it was most likely meant (an unencoded `@` or `/` in a user name or password, a port
    /// that is not a number). `reason` says what, and quotes nothing of the string, which may
    /// hold a password. Nothing was sent to any server.
    case malformedConnectionString(reason: String)
    /// The PostgreSQL server refused the login: a wrong password, a user it does not know or
    /// does not let in (SQLSTATE class 28), or no password given where it asks for one.
    case authenticationFailed(server: String, reason: String)
    /// The PostgreSQL server has no database of the name the connection string gives (or
    /// libpq's default, the user name): SQLSTATE 3D000.
    case serverDatabaseMissing(server: String, reason: String)
    /// The PostgreSQL server refused for want of a privilege (SQLSTATE 42501): to connect to
    /// the database, to use the `sectionctl` schema and its tables, or (`init`) to create it.
    case permissionDenied(server: String, reason: String)
    /// The database on the server has a schema named `schema` that sectionctl did not make (it
    /// holds other objects and no record of sectionctl's migrations); nothing was changed.
    case notOurSchema(server: String, schema: String)
    /// The connection to the server was lost while a change was being committed: it may or may
    /// not have been saved. The list's version (or the journal, `ListHandle.changes(since:)`) says which.
    case commitOutcomeUnknown(server: String, reason: String)
    /// Any other failure a PostgreSQL server reported, with its SQLSTATE and message.
    case server(sqlState: String, message: String)
    /// `location` names a PostgreSQL server, and this program has no server backend: the
    /// `Repository` product reaches SQLite files alone. Add the product `product`
    /// (`RepositoryPostgres`) and open the store with `server: .postgres`.
    case serverSupportMissing(location: String, product: String)
    /// `location` names a PostgreSQL server, and libpq, the PostgreSQL client library this
    /// program loads for servers, could not be loaded: `reason` says what was looked for and
    /// how to install it. SQLite files work without it.
    case serverClientMissing(location: String, reason: String)
    /// A replica (`SectionStore.clone(list:from:to:)`, `sync()`) cannot do what was asked;
    /// `ReplicaProblem` says why and what to do. Nothing pending was lost.
    case replica(ReplicaProblem)
    /// The database disagrees with itself (plain SQL damaged what sectionctl relies on: a count,
    /// the rank structure, a position out of range, a journal entry): the text says what was
    /// found. Nothing was written; `check()` names the damage and `repair()` mends it.
    case inconsistent(String)

    public var description: String {
        switch self {
        case .listNotFound(let name, let available):
            return "no list named \(quoted(name)) (lists: \(listed(available)))"
        case .listExists(let name):
            return "a list named \(quoted(name)) already exists"
        case .listNotEmpty(let name, let count):
            return "list \(quoted(name)) has \(plural(count, "section")); deleting it would delete them too, and was not forced"
        case .importIntoNonEmptyList(let name, let count):
            return "list \(quoted(name)) already has \(plural(count, "section")); an import into it must replace them or append after them"
        case .sectionNotFound(let ref, let list, let titles):
            let choices = titles.isEmpty ? "it has no sections" : "sections: " + listed(titles)
            switch ref {
            case .title(let title): return "no section titled \(quoted(title)) in list \(quoted(list)) (\(choices))"
            case .id(let id): return "no section #\(id) in list \(quoted(list)) (\(choices))"
            case .index(let index): return "no section \(index) in list \(quoted(list)) (\(choices))"
            }
        case .ambiguousSectionTitle(let title, let ids):
            return "\(ids.count) sections are titled \(quoted(title)) (\(listed(ids.map { "#\($0)" }, quoting: false))); name one by index or #ID"
        case .rowNotFound(let id, let list):
            return "no row #\(id) in list \(quoted(list))"
        case .sectionIndexOutOfRange(let index, let valid, let version):
            guard let valid else { return "section index \(index) is out of range: the list has no sections" + atVersion(version) }
            return "section index \(index) is out of range (valid: \(rangeText(valid)))" + atVersion(version)
        case .rowIndexOutOfRange(let index, let section, let valid, let version):
            guard let valid else {
                // A negative index comes from `RowIndex.end` in an empty section.
                return (index < 0 ? "section \(section) has no rows" : "row index \(index) is out of range: section \(section) has no rows")
                    + atVersion(version)
            }
            return "row index \(index) is out of range for section \(section) (valid: \(rangeText(valid)))" + atVersion(version)
        case .listMovedOn(let list, let expected, let current):
            guard current > expected else {
                return "list \(quoted(list)) is at version \(current), not \(expected); read it at \(current)"
            }
            return "list \(quoted(list)) moved on from version \(expected) to \(current); apply its changes since \(expected), then read again"
        case .sectionNotEmpty(let title, let count):
            return "section \(quoted(title)) has \(plural(count, "row")); deleting it would delete them too, and was not forced"
        case .conflict(let list, let sessionVersion, let currentVersion):
            guard let currentVersion else {
                return "list \(quoted(list)) was deleted or replaced since this edit session began; nothing was saved"
            }
            guard currentVersion != sessionVersion else {
                return "list \(quoted(list)) was changed outside sectionctl since this edit session began; nothing was saved"
            }
            return
                "list \(quoted(list)) was changed by someone else since this edit session began (version \(sessionVersion), now \(currentVersion)); nothing was saved"
        case .sessionClosed:
            return "the edit session is already closed"
        case .nothingToUndo(let list):
            return "list \(quoted(list)) has no change to undo"
        case .nothingToRedo(let list):
            return "list \(quoted(list)) has nothing to redo: nothing was undone since its last change"
        case .cannotUndo(let list, let reason):
            return "cannot undo in list \(quoted(list)): \(reason); nothing was written"
        case .busy:
            return "the database is busy (another process holds its lock); try again"
        case .newerSchema(let path, let found, let known):
            return "\(path) has schema version \(found), newer than this sectionctl knows (\(known)); use a newer sectionctl"
        case .notOurDatabase(let path):
            return "\(path) is a SQLite database, but not a sectionctl database"
        case .notADatabase(let path):
            return "\(path) is not a SQLite database"
        case .cannotOpen(let path, let reason):
            return "cannot open \(path): \(reason)"
        case .databaseMissing(let path):
            return "no database at \(path)"
        case .diskFull:
            return "the disk is full; nothing was written"
        case .readOnly(let path):
            return "\(path) is read-only; it can be shown and exported, not changed"
        case .corrupt(let path, let detail):
            return "\(path) is damaged: \(detail)"
        case .cannotRepair(let path, let problems):
            let shown = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; and \(problems.count - 3) more" : "")
            return "cannot repair \(path) safely: \(shown); nothing was written"
        case .emptyListName:
            return "a list name cannot be empty"
        case .listNameContainsNUL:
            return "a list name cannot contain the character NUL (U+0000)"
        case .textTooLong(let what, let bytes, let limit):
            return "\(what) is \(bytes) bytes long; at most \(limit) are allowed"
        case .valueOnNonFieldRow(let row, let kind):
            return "row #\(row) is a \(kind.rawValue) row; only field rows have a value"
        case .negativeWindowLimit(let limit):
            return "a window's limit must be 0 or more, not \(limit)"
        case .unsupportedURL(let scheme):
            return "\(scheme ?? "a URL without a scheme") is not a database location; use a file: URL or a postgresql:// URI"
        case .listNameForSeveralLists:
            return "the document holds more than one list; a list name can be given only for a document with one list"
        case .textContainsNULOnServer:
            return "PostgreSQL cannot store the NUL character (U+0000) in text; remove it, or keep this list in a SQLite file"
        case .migrationBreaksForeignKeys(let migration, let tables):
            return "migration \(migration) breaks foreign keys in: \(tables.joined(separator: ", "))"
        case .invalidData(let text):
            return text
        case .changesetDoesNotFit(let detail):
            return "the changeset does not fit the snapshot: \(detail)"
        case .database(let code, let message, _):
            // The statement is for a program to log; the message stays one line for a person.
            return "database error \(code): \(message)"
        case .unavailable(let server, let reason):
            let what = server.hasPrefix("http://") || server.hasPrefix("https://") ? "sync service" : "PostgreSQL server"
            return "the \(what) at \(server) is unavailable: \(reason); try again"
        case .malformedConnectionString(let reason):
            return "the PostgreSQL connection string is malformed: \(reason); it is not shown, as it may hold a password"
        case .authenticationFailed(let server, let reason):
            return "the PostgreSQL server at \(server) refused the login: \(reason)"
        case .serverDatabaseMissing(let server, let reason):
            return "the PostgreSQL server at \(server) has no such database: \(reason)"
        case .permissionDenied(let server, let reason):
            return "the PostgreSQL server at \(server) refused for want of a privilege: \(reason)"
        case .notOurSchema(let server, let schema):
            return "the database at \(server) has a schema \(quoted(schema)) that sectionctl did not make; nothing was changed"
        case .commitOutcomeUnknown(let server, let reason):
            return "the connection to the PostgreSQL server at \(server) was lost while a change was being committed (\(reason)): "
                + "it may or may not have been saved; look at the list's version, or at the changes since the version you had, before trying again"
        case .server(let state, let message):
            return "PostgreSQL error \(state): \(message)"
        case .serverSupportMissing(let location, let product):
            return "\(location) names a PostgreSQL server, and this program was built without server support: "
                + "link the \(product) product and open the store with server: .postgres, or use a SQLite file"
        case .serverClientMissing(let location, let reason):
            return "cannot open \(location): \(reason)"
        case .inconsistent(let detail):
            return "the database disagrees with itself: \(detail); nothing was written"
        case .replica(let problem):
            return problem.description
        }
    }
}

/// The end of a message about an index looked up in a version of a list: ` in version 7 of the list`.
private func atVersion(_ version: ListVersion?) -> String {
    version.map { " in version \($0) of the list" } ?? ""
}

extension RepositoryError {
    /// This error, saying it was found reading the list at `version`: an index out of range
    /// that does not name a version yet gets this one; any other error is returned as it is.
    func read(atVersion version: ListVersion) -> RepositoryError {
        switch self {
        case .sectionIndexOutOfRange(let index, let valid, nil):
            return .sectionIndexOutOfRange(index, valid: valid, version: version)
        case .rowIndexOutOfRange(let index, let section, let valid, nil):
            return .rowIndexOutOfRange(index, section: section, valid: valid, version: version)
        default:
            return self
        }
    }
}

extension RepositoryError: LocalizedError {
    /// The one-line message, as `description` gives it.
    public var errorDescription: String? { description }
}

// Words the library's messages and the command line's share, so that both say a thing the
// same way.

/// `text` in double quotes, as messages name lists, sections and titles (no escaping: a message
/// is escaped as a whole where it is printed).
package func quoted(_ text: String) -> String { "\"\(text)\"" }

/// The valid indexes of a range as messages give them: `3`, or `0…4`.
package func rangeText(_ range: ClosedRange<Int>) -> String {
    range.lowerBound == range.upperBound ? "\(range.lowerBound)" : "\(range.lowerBound)…\(range.upperBound)"
}

/// How many names a message lists before it says how many more there are.
let listedNamesLimit = 10

/// Names as a message lists them: the first `listedNamesLimit`, each quoted and cut to
/// `excerpt(_:)`'s length, then "and N more", so that a list of 20,000 sections still makes one
/// short line: `"A", "B" and 19998 more`.
package func listed(_ names: [String], quoting: Bool = true) -> String {
    let shown = names.prefix(listedNamesLimit).map { quoting ? quoted(excerpt($0, limit: 40)) : $0 }.joined(separator: ", ")
    return names.count > listedNamesLimit ? "\(shown) and \(names.count - listedNamesLimit) more" : shown
}

/// `text` cut to at most `limit` UTF-8 bytes, between two Unicode scalars, with "…" after it
/// when it was cut.
package func excerpt(_ text: String, limit: Int) -> String {
    guard text.utf8.count > limit else { return text }
    var result = String.UnicodeScalarView()
    var length = 0
    for scalar in text.unicodeScalars {
        length += UTF8.width(scalar)
        if length > limit { break }
        result.append(scalar)
    }
    return String(result) + "…"
}

/// A count with its noun, plural unless it is 1: `1 row`, `3 rows`.
package func plural(_ count: Int, _ noun: String) -> String {
    count == 1 ? "1 \(noun)" : "\(count) \(noun)s"
}
