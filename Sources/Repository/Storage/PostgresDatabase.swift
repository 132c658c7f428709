import Postgres
import SQLite

/// PostgreSQL's side of the storage seam: one libpq connection to a server, whose sectionctl
/// tables live in the schema `sectionctl` (set as the connection's `search_path`).
///
/// The Repository's SQL runs here as written: each `?` becomes `$1`, `$2`, … (outside quotes
/// and comments), every statement is prepared once per connection and reused, arguments travel
/// as text, and rows are read as they arrive. Write transactions run at READ COMMITTED and
/// lock the lists they read (`locksListRows`): writes to one list are serialized by its row
/// lock, writes to different lists run side by side.
package final class PostgresDatabase: Database {
    /// The schema that holds sectionctl's tables on a server.
    package static let schema = "sectionctl"
    /// The channel every committed change (and every plain-SQL write) notifies, with the list's
    /// id as the payload.
    package static let notificationChannel = "sectionctl"

    let connection: PostgresConnection
    /// The connection string with any password masked: what messages may show.
    package var maskedTarget: String { connection.maskedTarget }
    private var translated: [String: String] = [:]
    /// Whether a write transaction is open: list lookups then lock the list's row.
    package private(set) var locksListRows = false

    /// Connects to the server `connectionString` names (a libpq URI or key/value string; the
    /// `PG*` environment variables fill in what it leaves out).
    package init(connectionString: String) throws {
        connection = try PostgresConnection(connectionString: connectionString)
        try connection.execute(script: "SET search_path = \(Self.schema); SET client_min_messages = warning")
    }

    package var dialect: SQLDialect { .postgres }

    package var isAutocommit: Bool { connection.isIdle }

    @discardableResult
    package func run(_ sql: String, arguments: [(any SQLArgument)?]) throws -> Int {
        try connection.forEachRow(prepared: translate(sql), Self.texts(arguments)) { _ in true }
    }

    package func forEachRow(_ sql: String, arguments: [(any SQLArgument)?], _ body: (any ResultRow) throws -> Bool) throws {
        try connection.forEachRow(prepared: translate(sql), Self.texts(arguments)) { row in try body(row) }
    }

    package func execute(script sql: String) throws {
        try connection.execute(script: sql)
    }

    package func inTransaction<T>(_ kind: TransactionKind, _ body: () throws -> T) throws -> T {
        switch kind {
        case .immediate:
            try connection.execute(script: "BEGIN ISOLATION LEVEL READ COMMITTED")
            locksListRows = true
        case .deferred:
            try connection.execute(script: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        }
        defer { locksListRows = false }
        do {
            let result = try body()
            try connection.execute(script: "COMMIT")
            return result
        } catch {
            if !connection.isIdle { try? connection.execute(script: "ROLLBACK") }
            throw error
        }
    }

    package func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        if connection.isIdle { return try inTransaction(.immediate, body) }
        try connection.execute(script: "SAVEPOINT nested")
        do {
            let result = try body()
            try connection.execute(script: "RELEASE nested")
            return result
        } catch {
            try? connection.execute(script: "ROLLBACK TO nested; RELEASE nested")
            throw error
        }
    }

    package func beginSnapshot() throws {
        try connection.execute(script: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
    }

    package func endSnapshot() {
        if !connection.isIdle { try? connection.execute(script: "ROLLBACK") }
    }

    /// Sends `lines` (tab-separated fields, see `PostgresConnection.copyField`) to `COPY sql FROM STDIN`.
    package func copy(_ sql: String, lines: some Sequence<String>) throws -> Int {
        try connection.copy(sql, lines: lines)
    }

    /// Waits up to `seconds` for notifications on the channels this connection listens to.
    package func notifications(waitingUpTo seconds: Double) throws -> [(channel: String, payload: String)] {
        try connection.notifications(waitingUpTo: seconds)
    }

    /// `sql` with its `?` placeholders numbered as PostgreSQL's `$1`, `$2`, …; remembered.
    private func translate(_ sql: String) -> String {
        if let known = translated[sql] { return known }
        let result = Self.numberingPlaceholders(sql)
        translated[sql] = result
        return result
    }

    /// Replaces each `?` outside quoted text, quoted names and comments with `$n`.
    package static func numberingPlaceholders(_ sql: String) -> String {
        var output = ""
        output.reserveCapacity(sql.utf8.count + 16)
        var number = 0
        var quote: Character?
        var lineComment = false
        var previous: Character = " "
        for character in sql {
            defer { previous = character }
            if lineComment {
                if character == "\n" { lineComment = false }
            } else if let open = quote {
                if character == open { quote = nil }
            } else if character == "'" || character == "\"" {
                quote = character
            } else if character == "-" && previous == "-" {
                lineComment = true
            } else if character == "?" {
                number += 1
                output += "$\(number)"
                continue
            }
            output.append(character)
        }
        return output
    }

    /// The arguments as the text libpq sends. Text holding NUL is refused: PostgreSQL's text
    /// cannot store it, and a C string would silently end there.
    private static func texts(_ arguments: [(any SQLArgument)?]) throws -> [String?] {
        try arguments.map { argument in
            switch argument?.sqlValue {
            case nil: return nil
            case .integer(let value): return String(value)
            case .real(let value): return String(value)
            case .text(let value):
                guard !value.utf8.contains(0) else { throw RepositoryError.invalidInput(SectionStore.nulOnServerMessage) }
                return value
            }
        }
    }
}

extension PostgresRow: ResultRow {}

extension SectionStore {
    /// Why a text holding NUL is refused on a server.
    public static let nulOnServerMessage =
        "PostgreSQL cannot store the NUL character (U+0000) in text; remove it, or keep this list in a SQLite file"
}

extension PostgresDatabase {
    package func makeRowAppender() throws -> any RowAppender {
        PostgresRowAppender(db: self)
    }
}

/// Appends rows to a server through `COPY rows FROM STDIN`, `batchSize` rows a copy: the
/// server's fastest way in, with every trigger (row counts, rank, undo) firing as for an insert.
private final class PostgresRowAppender: RowAppender {
    static let batchSize = 10_000
    private let db: PostgresDatabase
    private var lines: [String] = []

    init(db: PostgresDatabase) {
        self.db = db
        lines.reserveCapacity(Self.batchSize)
    }

    func append(section: Int64, position: Int64, content: RowContent) throws {
        guard !content.title.utf8.contains(0) && !(content.value?.utf8.contains(0) ?? false) else {
            throw RepositoryError.invalidInput(SectionStore.nulOnServerMessage)
        }
        let field = PostgresConnection.copyField
        lines.append("\(section)\t\(position)\t\(content.kind.rawValue)\t\(field(content.title))\t\(field(content.value))")
        if lines.count == Self.batchSize { try finish() }
    }

    @discardableResult
    func finish() throws -> Int {
        guard !lines.isEmpty else { return 0 }
        defer { lines.removeAll(keepingCapacity: true) }
        return try db.copy("COPY rows (section_id, position, kind, title, value) FROM STDIN", lines: lines)
    }
}
