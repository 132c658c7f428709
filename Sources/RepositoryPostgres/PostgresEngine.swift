import Postgres
import Repository

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// PostgreSQL's side of the storage seam (see `Database`), the twin of `SQLiteEngine`: it wraps
/// one `PostgresConnection`, the thin layer over libpq, to a server whose sectionctl tables live
/// in the schema `sectionctl` (set as the connection's `search_path`).
///
/// The Repository's SQL runs here as written: each `?` becomes `$1`, `$2`, … (outside quotes
/// and comments), a statement runs unprepared its first two times and is prepared from its third
/// on a connection (`PostgresConnection.forEachRow(prepared:_:_:)`), arguments travel
/// as text, and rows are read as they arrive. Write transactions run at READ COMMITTED and
/// lock the lists they read (`locksListRows`): writes to one list are serialized by its row
/// lock, writes to different lists run side by side.
package final class PostgresEngine: Database {
    /// The schema that holds sectionctl's tables on a server.
    package static let schema = "sectionctl"
    /// The channel every committed change (and every plain-SQL write) notifies, with the list's
    /// id as the payload.
    package static let notificationChannel = "sectionctl"

    /// The connection; a new one after a connection lost while committing (`settleLostCommit`).
    private(set) var connection: PostgresConnection
    private let connectionString: String
    /// The connection string with any password masked: what messages may show.
    package var maskedTarget: String { connection.maskedTarget }
    private var translated: [String: String] = [:]
    /// Whether a write transaction is open: list lookups then lock the list's row.
    private var inWrite = false
    /// This connection's name in `applied_writes`: random, never reused.
    private let writer: String
    /// How many write transactions this connection has committed or tried to.
    private var writeCount: Int64 = 0
    /// Whether the schema has `applied_writes` (after `PostgresMigrator.prepare`, for a store
    /// that writes): a migration's own transaction does not record itself.
    package var schemaRecordsWrites = false
    /// Whether write transactions record themselves in `applied_writes`: the schema has it and
    /// the role may read and write it, found out with the connection's first write (a role
    /// granted the other tables before the table existed still writes; only a commit it loses on
    /// the way stays unknown).
    private var recordsWrites: Bool?

    /// The settings every connection starts with.
    private static let setup = "SET search_path = \(schema); SET client_min_messages = warning"
    /// The settings, when they have not been sent yet: they go with the first statement
    /// (`settingUp(thenQuery:)`), or on their own before it.
    private var pendingSetup: String?

    /// Connects to the server `connectionString` names (a libpq URI or key/value string; the
    /// `PG*` environment variables fill in what it leaves out). With `deferringSetup`, the
    /// connection's settings are sent with its first statement rather than at once: an opening
    /// whose first statement is `settingUp(thenQuery:)` saves a round trip.
    package init(connectionString: String, deferringSetup: Bool = false) throws {
        self.connectionString = connectionString
        connection = try Self.connect(connectionString, settingUp: !deferringSetup)
        pendingSetup = deferringSetup ? Self.setup : nil
        writer = (0..<2).map { _ in String(UInt64.random(in: .min ... .max), radix: 16) }.joined(separator: "-")
    }

    private static func connect(_ connectionString: String, settingUp: Bool = true) throws -> PostgresConnection {
        let connection = try PostgresConnection(connectionString: connectionString)
        if settingUp { try connection.execute(script: setup) }
        return connection
    }

    /// Before a statement: throws the refusal of the opening's short check when the server gave
    /// one in this transaction (`checkSchemaOnFirstUse`), and holds the connection's settings
    /// back to go with the statement when they are still pending.
    private func prepareToSend() throws {
        if let openingRefused { throw openingRefused }
        guard let setup = pendingSetup else { return }
        for setting in setup.split(separator: ";") { connection.enqueue(setting.trimmingCharacters(in: .whitespaces)) }
        pendingSetup = nil
        setupUnsettled = true
    }

    /// Whether the settings went out with statements whose transaction has not ended: they
    /// share its fate (a round trip of the extended protocol is one transaction, which a
    /// `BEGIN` in it extends), so a rollback undoes them, and they are sent again.
    private var setupUnsettled = false

    /// Runs `work`, a call that may send the opening's short check (`schema_ready`), and notes
    /// the server's refusal of it.
    private func noting<R>(_ work: () throws -> R) throws -> R {
        do {
            return try work()
        } catch let error as PostgresError where error.context == Self.schemaReady && !error.isConnectionFailure {
            openingRefused = error
            throw error
        }
    }

    // MARK: - The opening's check, with the first transaction

    /// The whole check an opening makes (`PostgresBackend.openStoreConnection`), when this
    /// connection's opening left it to the first transaction (`checkSchemaOnFirstUse`).
    private var openingLeft: ((PostgresEngine) throws -> Void)?
    /// The server's refusal of the short check, once seen: every statement of the transaction
    /// throws it, and the transaction runs again after the whole check.
    private var openingRefused: PostgresError?
    /// The short check (`Migrations/postgres/0013_fewer_round_trips.sql`), which goes first in
    /// the first transaction's round trip.
    private static let schemaReady = "SELECT sectionctl.schema_ready($1)"

    /// Leaves the opening's check to the first transaction, whose first round trip then
    /// carries it: the server's `schema_ready` returns when the schema is at this build's
    /// version and this role may record its writes, which is the usual case, and the
    /// transaction goes on. When it refuses (an older schema, a missing one, one this role may
    /// not use), the transaction is rolled back, `wholeCheck` makes the opening's whole check,
    /// which throws what is wrong or migrates, and the transaction runs again.
    package func checkSchemaOnFirstUse(otherwise wholeCheck: @escaping (PostgresEngine) throws -> Void) {
        openingLeft = wholeCheck
        schemaRecordsWrites = true
        recordsWrites = true
    }

    /// Runs `sql` (literal SQL, no parameters: a query of the catalogue) after the connection's
    /// settings if they are still pending, in one round trip; its rows.
    package func settingUp(thenQuery sql: String) throws -> PostgresResult {
        guard let setup = pendingSetup else { return try connection.execute(script: sql) }
        let result = try connection.execute(script: setup + ";\n" + sql)
        pendingSetup = nil
        return result
    }

    package var isAutocommit: Bool { connection.isIdle }

    @discardableResult
    package func run(_ sql: String, arguments: [(any SQLArgument)?]) throws -> Int {
        try prepareToSend()
        return try noting { try connection.forEachRow(prepared: translate(sql), Self.texts(arguments)) { _ in true } }
    }

    /// The statement goes with the next one this connection waits on (`PostgresConnection.enqueue`).
    package func send(_ sql: String, arguments: [(any SQLArgument)?]) throws {
        try prepareToSend()
        connection.enqueue(translate(sql), try Self.texts(arguments))
    }

    package func forEachRow(_ sql: String, arguments: [(any SQLArgument)?], _ body: (any ResultRow) throws -> Bool) throws {
        try prepareToSend()
        _ = try noting { try connection.forEachRow(prepared: translate(sql), Self.texts(arguments)) { row in try body(row) } }
    }

    package func execute(script sql: String) throws {
        try prepareToSend()
        _ = try noting { try connection.execute(script: sql) }
    }

    /// The transaction's `BEGIN` (and the settings, when still pending) is held back to go
    /// with its first statement, in one round trip; so is the opening's check when it was left
    /// to the first transaction (`checkSchemaOnFirstUse`).
    package func inTransaction<T>(_ mode: TransactionMode, _ body: () throws -> T) throws -> T {
        guard let wholeCheck = openingLeft else { return try transaction(mode, body) }
        openingLeft = nil
        let generation = connection.queueGeneration
        do {
            let result = try transaction(mode, body, checkingSchema: true)
            if openingRefused == nil { return result }
        } catch {
            guard openingRefused != nil else {
                // Nothing reached the server: the check waits for the next transaction.
                if connection.queueGeneration == generation { openingLeft = wholeCheck }
                throw error
            }
        }
        openingRefused = nil
        recordsWrites = nil
        try wholeCheck(self)
        return try transaction(mode, body)
    }

    /// A transaction; `checkingSchema` sends the opening's short check first in it (after its
    /// `BEGIN`, which must come before any query).
    private func transaction<T>(_ mode: TransactionMode, _ body: () throws -> T, checkingSchema: Bool = false) throws -> T {
        try prepareToSend()
        // What was queued before the transaction (settings, the opening's check) stays queued
        // when it fails before its first statement.
        let before = connection.queuedCount
        let generation = connection.queueGeneration
        switch mode {
        case .write:
            connection.enqueue("BEGIN ISOLATION LEVEL READ COMMITTED")
            inWrite = true
        case .ownWrite:
            connection.enqueue("BEGIN ISOLATION LEVEL READ COMMITTED")
            connection.enqueue("SELECT sectionctl.writer_begin()")
            inWrite = true
        case .read:
            connection.enqueue("BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY")
        }
        if checkingSchema { connection.enqueue(Self.schemaReady, [String(PostgresMigrator.latestVersion)]) }
        defer { inWrite = false }
        do {
            let result = try body()
            if let openingRefused { throw openingRefused }
            if mode == .read && connection.queueGeneration != generation {
                // What it read is read: the commit goes without a wait. (A read that sent
                // nothing, or only now would send the opening's check, waits for its answer.)
                try connection.commitWithoutWaiting()
                setupUnsettled = false
                return result
            }
            guard mode != .read, try writesAreRecorded() else {
                try connection.commit(after: [])
                setupUnsettled = false
                return result
            }
            writeCount += 1
            do {
                try connection.commit(after: recordingWrite)
            } catch let error as PostgresError where error.stage == .commitInDoubt {
                // Whether it landed is found out on a new connection; when it did, the result stands.
                guard try settleLostCommit(after: error) else { throw WriteNotCommitted(cause: error) }
            }
            setupUnsettled = false
            return result
        } catch {
            let nothingSent = connection.queueGeneration == generation
            connection.discardQueued(keepingFirst: nothingSent ? before : 0)
            if setupUnsettled && !nothingSent {
                pendingSetup = Self.setup
                setupUnsettled = false
            }
            if !connection.isIdle { _ = try? connection.execute(script: "ROLLBACK") }
            throw error
        }
    }

    /// Takes what the opening read: whether this role may read and write `applied_writes`
    /// (`PostgresMigrator.SchemaFacts.mayRecordWrites`, for a schema it did not migrate), so
    /// that the first write need not ask.
    package func knowWritesRecordable(_ recordable: Bool) {
        recordsWrites = recordable
    }

    /// Whether this write transaction records itself (`recordsWrites`), asking the server the
    /// first time, inside the transaction, unless the opening said.
    private func writesAreRecorded() throws -> Bool {
        guard schemaRecordsWrites else { return false }
        if let recordsWrites { return recordsWrites }
        let granted = try scalarInt(
            """
            SELECT count(*) FROM (VALUES ('SELECT'), ('INSERT'), ('UPDATE'), ('DELETE')) AS p (privilege)
            WHERE has_table_privilege('applied_writes', p.privilege)
            """)
        recordsWrites = granted == 4
        return granted == 4
    }

    /// The statements a write transaction commits with: its number, under this connection's
    /// name, in `applied_writes` (`Migrations/postgres/0007_applied_writes.sql`); with the
    /// connection's first write, the entries of a day ago and older go.
    private var recordingWrite: [String] {
        var statements = [
            """
            INSERT INTO applied_writes (writer, write_count) VALUES ('\(writer)', \(writeCount))
            ON CONFLICT (writer) DO UPDATE SET write_count = excluded.write_count, committed_at = now()
            """
        ]
        if writeCount == 1 { statements.append("DELETE FROM applied_writes WHERE committed_at < now() - interval '1 day'") }
        return statements
    }

    /// After the connection was lost while committing: connects again, waits until the server
    /// is done with the lost connection's backend (ending it when it lingers, which is safe: a
    /// commit that was written stays), and reads `applied_writes` to say whether the write
    /// committed. The new connection then serves the store.
    /// - Throws: `lost`, when the server cannot be asked (unreachable, or the backend does not
    ///   end): the outcome stays unknown.
    private func settleLostCommit(after lost: PostgresError) throws -> Bool {
        let backend = connection.backendProcessID
        do {
            let fresh = try Self.connect(connectionString)
            let lingering = "SELECT count(*) FROM pg_stat_activity WHERE pid = $1"
            func gone() throws -> Bool { try fresh.execute(lingering, [String(backend)]).int64(0, 0) == 0 }
            // A backend whose client went away ends by itself once it sees so; give it a moment.
            let patience = ContinuousClock.now + .seconds(2)
            while try !gone() && ContinuousClock.now < patience { usleep(10_000) }
            if try !gone() {
                _ = try fresh.execute("SELECT pg_terminate_backend($1)", [String(backend)])
                let guardTime = ContinuousClock.now + .seconds(60)
                while try !gone() {
                    guard ContinuousClock.now < guardTime else { throw lost }
                    usleep(10_000)
                }
            }
            let recorded = try fresh.execute("SELECT write_count FROM applied_writes WHERE writer = $1", [writer])
            let committed = recorded.rowCount == 1 && recorded.int64(0, 0) == writeCount
            connection = fresh
            return committed
        } catch {
            throw lost
        }
    }

    package func inSavepoint<T>(_ body: () throws -> T) throws -> T {
        try prepareToSend()
        if connection.isIdle { return try inTransaction(.write, body) }
        try connection.execute(script: "SAVEPOINT nested")
        do {
            let result = try body()
            try connection.execute(script: "RELEASE nested")
            return result
        } catch {
            _ = try? connection.execute(script: "ROLLBACK TO nested; RELEASE nested")
            throw error
        }
    }

    /// Sends `lines` (tab-separated fields, see `PostgresConnection.copyField`) to `COPY sql FROM STDIN`.
    package func copy(_ sql: String, lines: some Sequence<String>) throws -> Int {
        try prepareToSend()
        return try noting { try connection.copy(sql, lines: lines) }
    }

    // MARK: - Dialect

    package var listLockClause: String { inWrite ? " FOR UPDATE" : "" }

    package func oneOf(_ column: String, _ ids: [Int64]) -> (sql: String, argument: String) {
        ("\(column) = ANY(CAST(? AS bigint[]))", "{" + ids.map(String.init).joined(separator: ",") + "}")
    }

    // MARK: - The domain operations

    package func lockList(holding owner: Int64, in space: RankSpace) throws {
        if space == .sections {
            try run("SELECT 1 FROM lists WHERE id = ? FOR UPDATE", owner)
        } else {
            try run("SELECT 1 FROM lists WHERE id = (SELECT list_id FROM sections WHERE id = ?) FOR UPDATE", owner)
        }
    }

    /// The walks are server functions (`Migrations/postgres/0002_rank_walk.sql`): one round trip
    /// instead of one a level.
    package func rankedItem(at index: Int, of owner: Int64, in space: RankSpace) throws -> (id: Int64, position: Int64)? {
        guard index >= 0 else { return nil }
        let sql =
            space == .rows
            ? "SELECT row_id, row_position FROM sectionctl.rank_row_at(?, ?)"
            : "SELECT section_id, section_position FROM sectionctl.section_rank_at(?, ?)"
        return try queryFirst(sql, owner, index) { row in
            row.isNull(0) ? nil : (row.int64(0), row.int64(1))
        } ?? nil
    }

    package func rankedRowWithContent(at index: Int, inSection section: Int64) throws -> (id: Int64, position: Int64, content: RowContent)? {
        guard index >= 0 else { return nil }
        return try queryFirst(
            """
            SELECT r.id, r.position, \(RowContent.columns)
            FROM sectionctl.rank_row_at(?, ?) AS found JOIN rows AS r ON r.id = found.row_id
            """, section, index, row: { ($0.int64(0), $0.int64(1), RowContent($0, from: 2)) })
    }

    /// One statement: the section found through the list's rank structure, joined with its row
    /// found through the section's.
    package func rankedSectionAndRow(at sectionIndex: Int, row rowIndex: Int?, inList list: Int64) throws -> (
        section: SectionRecord, row: (id: Int64, position: Int64, content: RowContent)?
    )? {
        guard sectionIndex >= 0 else { return nil }
        return try queryFirst(
            """
            SELECT s.id, s.title, s.empty_text, s.row_count, s.position, r.id, r.position, r.kind, r.title, r.value
            FROM (
                SELECT \(SectionRecord.columns) FROM sections
                WHERE list_id = ? AND position >= (SELECT section_position FROM sectionctl.section_rank_at(?, ?))
                ORDER BY position LIMIT 1
            ) AS s
            LEFT JOIN LATERAL (
                SELECT r.id, r.position, \(RowContent.columns)
                FROM sectionctl.rank_row_at(s.id, coalesce(?::bigint, s.row_count - 1)) AS found JOIN rows AS r ON r.id = found.row_id
            ) AS r ON true
            """, list, list, sectionIndex, rowIndex.map(Int64.init),
            row: { row in
                (
                    SectionRecord(row, index: sectionIndex),
                    row.isNull(5) ? nil : (row.int64(5), row.int64(6), RowContent(row, from: 7))
                )
            })
    }

    package func rankedRows(ofSection section: Int64, from index: Int, limit: Int) throws -> [Row] {
        guard index >= 0, limit > 0 else { return [] }
        return try query(
            """
            SELECT \(Row.columns) FROM rows
            WHERE section_id = ? AND position >= (SELECT row_position FROM sectionctl.rank_row_at(?, ?))
            ORDER BY position LIMIT ?
            """, section, section, index, limit
        ) { Row($0, from: 0) }
    }

    package func rankedSectionRecords(inList list: Int64, from index: Int, limit: Int) throws -> [SectionRecord] {
        guard index >= 0, limit > 0 else { return [] }
        var next = index - 1
        return try query(
            """
            SELECT \(SectionRecord.columns) FROM sections
            WHERE list_id = ? AND position >= (SELECT section_position FROM sectionctl.section_rank_at(?, ?))
            ORDER BY position LIMIT ?
            """, list, list, index, limit
        ) { row in
            next += 1
            return SectionRecord(row, index: next)
        }
    }

    package func rankedIndex(ofPosition position: Int64, of owner: Int64, in space: RankSpace) throws -> Int {
        let sql = space == .rows ? "SELECT sectionctl.rank_index_of(?, ?)" : "SELECT sectionctl.section_rank_index_of(?, ?)"
        return Int(try scalarInt(sql, owner, position) ?? 0)
    }

    /// The ordering is the server's own (`Migrations/postgres/0012_ordering_on_the_server.sql`):
    /// an item's place, neighbours and spreading included, is one call.
    package func positionForSlot(
        _ slot: Int, of owner: Int64, in space: RankSpace, count: Int, moving: Int64?, movingIndex: Int?
    ) throws -> (position: Int64, rewritten: Int)? {
        try queryFirst(
            "SELECT new_position, rewritten FROM sectionctl.position_at_slot(?, ?, ?, ?, ?, ?)",
            space == .rows ? "rows" : "sections", owner, slot, count, moving, movingIndex
        ) { (position: $0.int64(0), rewritten: Int($0.int64(1))) }
    }

    /// Settling is the server's own too: one call, whatever it finds noted, which goes with the
    /// commit that follows it (`PostgresConnection.enqueue`): its answer is only whether it
    /// failed.
    package func settleRankNodes() throws -> Bool {
        try send("SELECT sectionctl.rank_settle()", arguments: [])
        return true
    }

    /// Writers to different lists run at once, so the mark is a setting local to the
    /// transaction (`sectionctl.writer_begin()`), which ends with it: nothing to clear.
    package func setWriterMark(active: Bool) throws {
        guard active else { return }
        _ = try scalarInt("SELECT sectionctl.writer_begin()")
    }

    /// One call of `sectionctl.commit_change_as` (`Migrations/postgres/0013_fewer_round_trips.sql`,
    /// over `0003_commit_change.sql`'s `commit_change`), which goes with the commit that follows
    /// it (`PostgresConnection.enqueue`): the new version is the one after the version read
    /// under the list's row lock, and the server refuses the commit if it would be another.
    package func commitChange(_ changesJSON: String, to list: ListRecord, history: HistoryStep) throws -> ListVersion {
        let (kind, of): (String, Int64?) =
            switch history {
            // Replicas are files: a server receives no pulls, and files nothing as received.
            case .change, .received: ("change", nil)
            case .undo(let version): ("undo", version.rawValue)
            case .redo(let version): ("redo", version.rawValue)
            }
        let version = list.version.next
        try send("SELECT sectionctl.commit_change_as(?, ?, ?, ?, ?)", arguments: [list.id, changesJSON, kind, of, version.rawValue])
        return version
    }

    /// A server checks its own pages, its schema objects are its owner's (a role that can
    /// change them can change anything), and its writer mark is local to each transaction:
    /// nothing here is the client's to check.
    package func engineIntegrity() throws -> EngineIntegrity { EngineIntegrity() }

    /// The writer mark is the transaction's own (`sectionctl.writer_begin()`), and
    /// `engineIntegrity()` finds no schema differences on a server: nothing to mend.
    package func mend(_ mend: EngineMend) throws -> [String] { [] }

    package func writerStep() throws -> Int64? {
        try scalarInt("SELECT sectionctl.writer_step()")
    }

    package func makeCommitSignal(listID: Int64) throws -> any CommitSignal {
        try NotificationSignal(database: self, listID: listID)
    }

    /// A server's autovacuum reclaims dead rows by itself.
    package func reclaimFreePages() throws {}

    /// A server's autovacuum reclaims dead rows by itself: nothing to do.
    package func compact() throws -> SpaceReport? { nil }

    package func holdsReplicaTables() throws -> Bool { false }

    /// The identity sequence's last value (0 before its first).
    package func idSequence(table: String) throws -> Int64 {
        precondition(table == "rows" || table == "sections")
        return try scalarInt(
            "SELECT CASE WHEN is_called THEN last_value ELSE 0 END FROM \(Self.sequence(of: table))") ?? 0
    }

    package func setIDSequence(table: String, to value: Int64) throws {
        precondition(table == "rows" || table == "sections")
        _ = try scalarInt("SELECT setval(pg_get_serial_sequence('sectionctl.\(table)', 'id'), ?, ?)", max(value, 1), value > 0)
    }

    /// The identity sequence of `table`'s ids, as a name (`pg_get_serial_sequence`).
    private static func sequence(of table: String) -> String { "sectionctl.\(table)_id_seq" }

    package func allotIDs(table: String, count: Int) throws -> [Int64] {
        precondition(table == "rows" || table == "sections")
        return try query("SELECT nextval(pg_get_serial_sequence('sectionctl.\(table)', 'id')) FROM generate_series(1, CAST(? AS integer))", count) {
            $0.int64(0)
        }
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

    /// The arguments as the text libpq sends (bytes in `bytea`'s hex format). Text holding NUL is refused: PostgreSQL's text
    /// cannot store it, and a C string would silently end there.
    private static func texts(_ arguments: [(any SQLArgument)?]) throws -> [String?] {
        try arguments.map { argument in
            switch argument?.sqlValue {
            case nil: return nil
            case .integer(let value): return String(value)
            case .real(let value): return String(value)
            case .text(let value):
                guard !value.utf8.contains(0) else { throw RepositoryError.textContainsNULOnServer }
                return value
            case .blob(let value): return Bytea.encode(value)
            }
        }
    }
}

extension PostgresRow: ResultRow {}

extension PostgresEngine {
    package func makeRowAppender(keepingIDs: Bool) throws -> any RowAppender {
        PostgresRowAppender(db: self, keepingIDs: keepingIDs)
    }

    /// A server's insert triggers run once per statement (`COPY` included), and take the bulk
    /// path while the transaction's `sectionctl.bulk` names the highest section id from before
    /// the append (`Migrations/postgres/0014_bulk_append.sql`): each statement's rows go to
    /// their sections' counts and last rank nodes in one pass, and rows of sections appended
    /// since get no undo entry of their own. The setting goes with the next statement.
    package func beginBulkAppend() throws -> Bool {
        try send("SELECT set_config('sectionctl.bulk', (SELECT coalesce(max(id), 0) FROM sections)::text, true)", arguments: [])
        return true
    }

    /// The triggers did the bookkeeping: the bulk path ends with the append.
    package func finishBulkAppend(list: Int64, sectionsAfter: Int64, rowsAfter: Int64) throws {
        try send("SELECT set_config('sectionctl.bulk', '', true)", arguments: [])
    }

    package func highestItemIDs() throws -> (section: Int64, row: Int64) { (0, 0) }

    /// A server's delete triggers run once per statement already.
    package func emptySectionsInBulk(list: Int64, where condition: String, _ arguments: [(any SQLArgument)?]) throws -> Bool { false }

    /// A server's triggers run once per statement already; row by row is as fast.
    package func takeBackLoggedRowsInBulk(_ write: LoggedRowWrite, list: Int64, logIDs: [Int64]) throws -> BulkReversal { .unsupported }

    /// A server's triggers log every row it puts back.
    package func noteSectionsPutBack(_ note: SectionsPutBack) throws {}
}

/// Appends rows to a server through `COPY rows FROM STDIN`, `batchSize` rows a copy: the
/// server's fastest way in, with every trigger (row counts, rank, undo) firing as for an insert.
private final class PostgresRowAppender: RowAppender {
    static let batchSize = 10_000
    private let db: PostgresEngine
    private let keepingIDs: Bool
    private var lines: [String] = []

    init(db: PostgresEngine, keepingIDs: Bool) {
        self.db = db
        self.keepingIDs = keepingIDs
        lines.reserveCapacity(Self.batchSize)
    }

    func append(section: Int64, position: Int64, content: RowContent, id: Int64?) throws {
        precondition((id != nil) == keepingIDs, "an appender that keeps ids takes one with every row, and another none")
        guard !content.title.utf8.contains(0) && !(content.value?.utf8.contains(0) ?? false) else {
            throw RepositoryError.textContainsNULOnServer
        }
        let field = PostgresConnection.copyField
        let line = "\(section)\t\(position)\t\(content.kind.rawValue)\t\(field(content.title))\t\(field(content.value))"
        lines.append(id.map { "\($0)\t" + line } ?? line)
        if lines.count == Self.batchSize { try finish() }
    }

    @discardableResult
    func finish() throws -> Int {
        guard !lines.isEmpty else { return 0 }
        defer { lines.removeAll(keepingCapacity: true) }
        let columns = keepingIDs ? "id, section_id, position, kind, title, value" : "section_id, position, kind, title, value"
        return try db.copy("COPY rows (\(columns)) FROM STDIN", lines: lines)
    }
}

/// A commit seen on a server: a notification on `PostgresEngine.notificationChannel` naming
/// the list (or naming none: plain SQL whose list the trigger could not tell). Listening starts
/// when the signal is made, so nothing committed after the observer's first read is missed.
private final class NotificationSignal: CommitSignal {
    private let database: PostgresEngine
    private let payload: String
    private var first = true

    init(database: PostgresEngine, listID: Int64) throws {
        self.database = database
        self.payload = String(listID)
        try database.execute(script: "LISTEN \(PostgresEngine.notificationChannel)")
    }

    func wait(upTo seconds: Double) throws -> Bool {
        let notes = try database.connection.notifications(waitingUpTo: first ? 0 : seconds)
        defer { first = false }
        return first || notes.contains { $0.payload == payload || $0.payload.isEmpty }
    }
}

/// A write whose connection was lost while it committed, and which the server says did not
/// commit (`PostgresEngine.settleLostCommit`): nothing of it was saved, so it may run again
/// on the new connection, and `SectionStore.write` runs it again once.
struct WriteNotCommitted: EngineError {
    /// The loss, as libpq reported it.
    let cause: PostgresError

    func repositoryError(at location: StoreLocation) -> any Error {
        RepositoryError.unavailable(
            server: location.shownByPostgres,
            reason:
                "the connection was lost while a change was being committed, and the server did not commit it (\(cause.message)); nothing was saved")
    }

    var isRetryableConflict: Bool { true }
    var isConstraintViolation: Bool { false }
}
