import CPostgres
import Foundation

/// One connection to a PostgreSQL server, through libpq. Statements take their values as
/// parameters (`$1`, `$2`, …), never pasted into the SQL. Not `Sendable`: one thread uses it at
/// a time; the layer above serialises access, as `SectionStore` does for SQLite.
public final class PostgresConnection {
    private let handle: OpaquePointer
    /// The connection string as `ConnectionString.masked` shows it, every password `***`: what
    /// errors may show.
    public let maskedTarget: String
    /// The process id of the server's backend serving this connection (as `pg_backend_pid()`
    /// gives it), kept from when the connection was made: libpq forgets it (`PQbackendPID`
    /// answers 0) once the connection is lost, which is when it is needed, to ask the server
    /// whether that backend still runs.
    public let backendProcessID: Int32

    /// Connects with a libpq connection string: a `postgresql://` URI or `key=value` pairs; the
    /// usual `PG*` environment variables fill in what it leaves out.
    /// - Throws: `MalformedConnectionString` when libpq cannot read the string, reads it as
    ///   other than it was most likely meant (see `ConnectionString`), or refuses one of its
    ///   values (`sslmode=bogus`, with libpq's reason); nothing is sent then.
    ///   `PostgresError` (stage `.connecting`) when the server cannot be reached or refuses the
    ///   connection, with the SQLSTATE the server gave (`28P01`, `3D000`, `42501`, `53300`, …).
    ///   No message shows a password. `LibPQUnavailable` when libpq cannot be loaded.
    public init(connectionString: String) throws {
        let parsed = try ConnectionString(parsing: connectionString)
        maskedTarget = parsed.masked
        handle = try Self.connect(connectionString, parsed: parsed, context: "connecting to \(parsed.masked)")
        backendProcessID = PQbackendPID(handle)
        // Notices (e.g. "relation already exists, skipping") are not errors: keep them off stderr.
        PQsetNoticeProcessor(handle, { _, _ in }, nil)
    }

    /// Connects as `PQconnectdb` does, but with libpq's verbose messages while connecting: a
    /// server's refusal of the connection reaches the client only as text, and only the verbose
    /// text carries its SQLSTATE. libpq waits for each host up to `connect_timeout`; here the
    /// wait is the same, but the attempt ends when it runs out, where libpq would try the next
    /// host of a list.
    private static func connect(_ text: String, parsed: ConnectionString, context: String) throws -> OpaquePointer {
        guard let handle = PQconnectStart(text) else {
            throw PostgresError(sqlState: nil, message: "out of memory", context: context, stage: .connecting)
        }
        PQsetErrorVerbosity(handle, PQERRORS_VERBOSE)
        func failure(_ libpqMessage: String? = nil) -> PostgresError {
            let (state, message) = connectionFailure(libpqMessage ?? String(cString: PQerrorMessage(handle)))
            // The string's secrets, and those libpq took from elsewhere (`PGPASSWORD`).
            let secrets = parsed.secrets + effectiveOptions(handle).filter(\.isSecret).map(\.value)
            let error = PostgresError(
                sqlState: state, message: ConnectionString.masking(secrets, in: message, shown: parsed.masked), context: context,
                stage: .connecting, needsPassword: PQconnectionNeedsPassword(handle) == 1)
            PQfinish(handle)
            return error
        }
        // libpq refused the options before trying any host (`sslmode=bogus`): PQping, which
        // tells that case apart (PQPING_NO_ATTEMPT), makes it a malformed string, a usage error,
        // not a server that a retry could reach.
        if PQstatus(handle) == CONNECTION_BAD, PQping(text) == PQPING_NO_ATTEMPT {
            let reason = ConnectionString.masking(
                parsed.secrets, in: String(cString: PQerrorMessage(handle)).trimmingCharacters(in: .whitespacesAndNewlines),
                shown: parsed.masked)
            PQfinish(handle)
            throw MalformedConnectionString(reason: reason)
        }
        let timeout: Int
        do {
            timeout = try connectTimeout(handle)
        } catch {
            PQfinish(handle)
            throw error
        }
        var polling = PGRES_POLLING_WRITING
        var attempt: (socket: Int32, host: String, port: String)?
        var deadline = ContinuousClock.now
        while PQstatus(handle) != CONNECTION_BAD && polling != PGRES_POLLING_OK {
            let socket = PQsocket(handle)
            if polling == PGRES_POLLING_READING || polling == PGRES_POLLING_WRITING, socket >= 0 {
                // The timer restarts for each host and address, as libpq's own does.
                let current = (socket, PQhost(handle).map { String(cString: $0) } ?? "", PQport(handle).map { String(cString: $0) } ?? "")
                if attempt == nil || attempt! != current {
                    attempt = current
                    deadline = .now + .seconds(timeout)
                }
                let events = Int16(polling == PGRES_POLLING_READING ? POLLIN : POLLOUT)
                guard wait(for: socket, events: events, until: timeout > 0 ? deadline : nil) else {
                    throw failure("timeout expired")
                }
            }
            polling = PQconnectPoll(handle)
            if polling == PGRES_POLLING_FAILED { break }
        }
        guard PQstatus(handle) == CONNECTION_OK else { throw failure() }
        PQsetErrorVerbosity(handle, PQERRORS_DEFAULT)
        return handle
    }

    /// Waits until `socket` is ready for `events`, or `deadline` passes (then `false`).
    private static func wait(for socket: Int32, events: Int16, until deadline: ContinuousClock.Instant?) -> Bool {
        while true {
            var milliseconds: Int32 = -1
            if let deadline {
                let left = deadline - .now
                guard left > .zero else { return false }
                let (seconds, attoseconds) = left.components
                milliseconds = Int32(min(seconds * 1000 + attoseconds / 1_000_000_000_000_000 + 1, Int64(Int32.max)))
            }
            var descriptor = pollfd(fd: socket, events: events, revents: 0)
            let ready = poll(&descriptor, 1, milliseconds)
            if ready > 0 { return true }
            if ready < 0 && errno != EINTR { return true }  // PQconnectPoll reports the socket's failure
        }
    }

    /// The options the connection uses: the string's, the `PG*` variables' and libpq's defaults.
    private static func effectiveOptions(_ handle: OpaquePointer) -> [ConnectionString.Option] {
        PQconninfo(handle).map(ConnectionString.options(takingOwnershipOf:)) ?? []
    }

    /// The connect timeout libpq would use, in seconds (0: none): the string's or
    /// `PGCONNECT_TIMEOUT`'s, at least 2 when set.
    private static func connectTimeout(_ handle: OpaquePointer) throws(MalformedConnectionString) -> Int {
        guard let value = effectiveOptions(handle).first(where: { $0.keyword == "connect_timeout" })?.value else { return 0 }
        let text = value.trimmingCharacters(in: .whitespaces)
        if text.isEmpty { return 0 }
        guard let seconds = Int(text) else {
            throw MalformedConnectionString(reason: "connect_timeout (or PGCONNECT_TIMEOUT) is not a whole number of seconds")
        }
        return seconds <= 0 ? 0 : max(seconds, 2)
    }

    /// The SQLSTATE in libpq's verbose message about a failed connection (the server's
    /// `SEVERITY:  XXXXX: text`; the first, when several hosts refused), and the message as
    /// libpq's default verbosity words it (without the code and the server's source location).
    static func connectionFailure(_ verbose: String) -> (sqlState: String?, message: String) {
        var state: String?
        var lines: [String] = []
        for line in verbose.split(whereSeparator: \.isNewline) {
            if line.hasPrefix("LOCATION:") { continue }
            var text = String(line)
            var searchFrom = text.startIndex
            while state == nil, let marker = text.range(of: ":  ", range: searchFrom..<text.endIndex) {
                let code = text[marker.upperBound...].prefix(7)
                if code.count == 7, code.hasSuffix(": "),
                    code.prefix(5).utf8.allSatisfy({ ($0 >= 0x30 && $0 <= 0x39) || ($0 >= 0x41 && $0 <= 0x5A) })
                {
                    state = String(code.prefix(5))
                    text.removeSubrange(marker.upperBound..<code.endIndex)
                    break
                }
                searchFrom = marker.upperBound
            }
            lines.append(text)
        }
        return (state, oneLine(lines.joined(separator: "\n")))
    }

    deinit {
        readOwedBeforeClosing(within: .seconds(1))
        PQfinish(handle)
    }

    /// Reads the answers still owed to a read's `COMMIT` sent without waiting, for at most
    /// `limit`, before the connection closes: a client that closes before they arrive makes the
    /// server log that it lost the client ("could not send data to client") for every read. The
    /// transaction has ended either way; a server that does not answer in time is left to
    /// notice the close.
    private func readOwedBeforeClosing(within limit: Duration) {
        guard owed > 0 else { return }
        let deadline = ContinuousClock.now + limit
        let socket = PQsocket(handle)
        // Each statement's answer is its results, then a null that ends them.
        var ended = 0
        while ended < owed {
            while PQisBusy(handle) == 1 {
                guard socket >= 0, Self.wait(for: socket, events: Int16(POLLIN), until: deadline), PQconsumeInput(handle) == 1 else { return }
            }
            if let result = PQgetResult(handle) { PQclear(result) } else { ended += 1 }
        }
        owed = 0
    }

    /// Runs one statement with `parameters` bound to `$1`, `$2`, … as text (`nil` is NULL).
    /// - Returns: the rows it returned (none for a command).
    /// - Throws: `PostgresError` with the SQLSTATE and the statement.
    @discardableResult
    public func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
        try sendQueued()
        let result: OpaquePointer? = withParameterPointers(parameters) { values in
            PQexecParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
        }
        return try check(result, context: sql)
    }

    // MARK: Statements sent with the next

    /// A statement waiting to go with the next one that is waited on.
    private struct Queued {
        let sql: String
        let parameters: [String?]
    }

    /// The statements `enqueue(_:_:)` holds back, in order.
    private var queue: [Queued] = []

    /// Whether statements can go several to a round trip: the libpq loaded has pipeline mode
    /// (libpq 14 and later), and `SECTIONCTL_LIBPQ_PIPELINE` is not `0`, which does without it
    /// as an older libpq would.
    public static let pipelines = cpostgres_has_pipeline() == 1

    /// Holds `sql` back, to be sent in front of the next statement this connection waits on
    /// (any call that runs one), in the same round trip: a `BEGIN`, a setting, a write whose
    /// answer nothing needs. Statements run in the order given, the held-back ones first; the
    /// call that sends them throws the first error among them, and after a server error none
    /// of the statements after it in that round trip runs. With a libpq older than 14 (no
    /// pipeline mode), each goes in a round trip of its own, still before that statement.
    public func enqueue(_ sql: String, _ parameters: [String?] = []) {
        queue.append(Queued(sql: sql, parameters: parameters))
    }

    /// How many statements are held back (`enqueue(_:_:)`) and not sent yet.
    public var queuedCount: Int { queue.count }

    /// How many times held-back statements were sent or forgotten: a number that changes when
    /// they leave the queue, so a caller can tell whether those it queued are still there.
    public private(set) var queueGeneration = 0

    /// Forgets the statements held back, or all but the first `kept` of them: the server never
    /// sees them.
    public func discardQueued(keepingFirst kept: Int = 0) {
        if kept < queue.count { queue.removeLast(queue.count - kept) }
        if kept == 0 { queueGeneration += 1 }
    }

    /// How many statements were sent without waiting (`commitWithoutWaiting()`) whose answers
    /// are not read yet: the connection stays in pipeline mode, and the next call reads them
    /// first (within its own round trip when it is a pipeline, else in one of their own).
    private var owed = 0

    /// Ends the open transaction, a read, without waiting for the answer: the held-back
    /// statements and `COMMIT` are sent with a Flush rather than a Sync, which the server runs
    /// at once (a `COMMIT` takes effect when it is executed, and the snapshot and locks go with
    /// it), and the answers are read by the next call, which then costs no more round trips.
    /// Only for a transaction that wrote nothing: a failed commit is not reported. Without
    /// pipeline mode (libpq older than 14), it is `commit(after: [])`.
    public func commitWithoutWaiting() throws {
        guard Self.pipelines else { return try commit(after: []) }
        enqueue("COMMIT")
        let statements = queue
        queue = []
        queueGeneration += 1
        if owed == 0 {
            guard PQenterPipelineMode(handle) == 1 else {
                throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: "COMMIT")
            }
        }
        let sent = sendEach(statements)
        owed += sent
        if sent < statements.count {
            throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: statements[sent].sql)
        }
        guard PQsendFlushRequest(handle) == 1, PQflush(handle) == 0 else {
            throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: "COMMIT")
        }
    }

    /// Reads the answers owed (`owed`), passing over what they say, and leaves pipeline mode:
    /// before a call that does not run as a pipeline. One round trip, when any are owed.
    private func settleOwed() {
        guard owed > 0 else { return }
        let synced = PQpipelineSync(handle) == 1
        readOwed()
        if synced, let sync = PQgetResult(handle) { PQclear(sync) }
        _ = PQexitPipelineMode(handle)
    }

    /// Reads and drops the answers of the statements sent without waiting.
    private func readOwed() {
        for _ in 0..<owed {
            while let result = PQgetResult(handle) { PQclear(result) }
        }
        owed = 0
    }

    /// Sends the held-back statements now, each in a round trip of its own (what a libpq without
    /// pipeline mode does, and what precedes a script or a `COPY`, which a pipeline cannot hold).
    private func sendQueued() throws {
        guard !queue.isEmpty else { return settleOwed() }
        queueGeneration += 1
        if Self.pipelines {
            let statements = queue
            queue = []
            return try runPipeline(statements)
        }
        // After a failure, what follows it is not sent, as in a pipeline.
        defer { queue.removeAll() }
        while !queue.isEmpty {
            // Statements without parameters in a row go as one script, in one round trip.
            let plain = queue.prefix { $0.parameters.isEmpty }.map(\.sql)
            if plain.count > 1 {
                queue.removeFirst(plain.count)
                let script = plain.joined(separator: ";\n")
                _ = try check(PQexec(handle, script), context: script)
                continue
            }
            let next = queue.removeFirst()
            let result: OpaquePointer? = withParameterPointers(next.parameters) { values in
                PQexecParams(handle, next.sql, Int32(next.parameters.count), nil, values, nil, nil, 0)
            }
            _ = try check(result, context: next.sql)
        }
    }

    /// Sends `statements` in pipeline mode, unprepared, until libpq refuses one; how many it sent.
    private func sendEach(_ statements: [Queued]) -> Int {
        for (index, statement) in statements.enumerated() {
            let ok = withParameterPointers(statement.parameters) { values in
                PQsendQueryParams(handle, statement.sql, Int32(statement.parameters.count), nil, values, nil, nil, 0)
            }
            guard ok == 1 else { return index }
        }
        return statements.count
    }

    /// Runs `statements` and then, when `last` names one, the statement `send` sends, whose
    /// answers `read` takes row by row, in libpq's pipeline mode: everything is sent, then one
    /// Sync, then each answer is read in order (first those owed). Throws the first failure.
    private func runPipeline(
        _ statements: [Queued], last context: String? = nil, send: () -> Int32 = { 0 }, read: (OpaquePointer) throws -> Void = { _ in }
    ) throws {
        guard owed > 0 || PQenterPipelineMode(handle) == 1 else {
            throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: statements.first?.sql ?? "")
        }
        let sent = sendEach(statements)
        let lastSent = sent == statements.count && context != nil && send() == 1
        let synced = PQpipelineSync(handle) == 1
        var failure: (any Error)?
        // First the answers of what went without waiting (a read's COMMIT): passed over.
        if synced { readOwed() }
        if sent < statements.count || (context != nil && !lastSent) || !synced {
            failure = PostgresError(
                sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)),
                context: sent < statements.count ? statements[sent].sql : context ?? "")
        }
        // Every answer must be read, even after a failure, to leave the connection ready.
        for statement in statements.prefix(sent) {
            while let result = PQgetResult(handle) {
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                // Their rows are not read: only whether they failed.
                case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_SINGLE_TUPLE, PGRES_EMPTY_QUERY, PGRES_PIPELINE_ABORTED: break
                default:
                    if failure == nil { failure = Self.error(from: result, handle: handle, context: statement.sql) }
                }
            }
        }
        if let context, lastSent {
            PQsetSingleRowMode(handle)
            while let result = PQgetResult(handle) {
                defer { PQclear(result) }
                switch PQresultStatus(result) {
                case PGRES_PIPELINE_ABORTED: break
                case PGRES_SINGLE_TUPLE, PGRES_TUPLES_OK, PGRES_COMMAND_OK, PGRES_EMPTY_QUERY:
                    guard failure == nil else { continue }
                    do { try read(result) } catch { failure = error }
                default:
                    if failure == nil { failure = Self.error(from: result, handle: handle, context: context) }
                }
            }
        }
        if synced, let sync = PQgetResult(handle) { PQclear(sync) }
        if PQexitPipelineMode(handle) != 1 && failure == nil {
            failure = PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: context ?? "")
        }
        if let failure { throw failure }
    }

    /// Runs the statement `sql` (with `$1`, `$2`, … for `parameters`) and hands each result row
    /// to `body` as it arrives (libpq's single-row mode: a large result is never held whole)
    /// until `body` returns `false`. The first two times, the statement is sent unnamed, parsed
    /// and run in one round trip; from its third time on this connection, it is prepared once
    /// and reused, so a short-lived process pays no round trip to prepare what it runs once or
    /// twice, and a long-lived one parses each statement at most three times.
    /// - Returns: how many rows the statement changed, for INSERT, UPDATE and DELETE.
    @discardableResult
    public func forEachRow(prepared sql: String, _ parameters: [String?], _ body: (PostgresRow) throws -> Bool) throws -> Int {
        var name: String?
        if prepared[sql] != nil || unpreparedRuns[sql, default: 0] >= Self.unpreparedRunsBeforePreparing {
            // Preparing is a round trip of its own, before the held-back statements go.
            name = try preparedName(for: sql)
        } else {
            unpreparedRuns[sql, default: 0] += 1
        }
        func send() -> Int32 {
            withParameterPointers(parameters) { values in
                if let name { return PQsendQueryPrepared(handle, name, Int32(parameters.count), values, nil, nil, 0) }
                return PQsendQueryParams(handle, sql, Int32(parameters.count), nil, values, nil, nil, 0)
            }
        }
        if (!queue.isEmpty || owed > 0) && Self.pipelines {
            queueGeneration += 1
            var changed = 0
            var wanted = true
            let statements = queue
            queue = []
            try runPipeline(statements, last: sql, send: send) { result in
                if PQresultStatus(result) == PGRES_SINGLE_TUPLE {
                    if wanted { wanted = try body(PostgresRow(result: result)) }
                } else {
                    changed = Int(String(cString: PQcmdTuples(result))) ?? 0
                }
            }
            return changed
        }
        try sendQueued()
        let sent = send()
        guard sent == 1 else {
            throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: sql)
        }
        PQsetSingleRowMode(handle)
        var failure: (any Error)?
        var changed = 0
        var wanted = true
        // Every result must be read, even after `body` stops or fails, to leave the connection ready.
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_SINGLE_TUPLE:
                guard wanted, failure == nil else { continue }
                do {
                    wanted = try body(PostgresRow(result: result))
                } catch {
                    failure = error
                }
            case PGRES_TUPLES_OK, PGRES_COMMAND_OK:
                changed = Int(String(cString: PQcmdTuples(result))) ?? 0
            default:
                if failure == nil { failure = Self.error(from: result, handle: handle, context: sql) }
            }
        }
        if let failure { throw failure }
        return changed
    }

    /// The statements prepared on this connection, by SQL.
    private var prepared: [String: String] = [:]
    /// How many times each statement not prepared yet ran on this connection.
    private var unpreparedRuns: [String: Int] = [:]
    /// How many times a statement runs unprepared before it is prepared.
    static let unpreparedRunsBeforePreparing = 2

    private func preparedName(for sql: String) throws -> String {
        if let name = prepared[sql] { return name }
        settleOwed()
        let name = "s\(prepared.count + 1)"
        guard let result = PQprepare(handle, name, sql, 0, nil) else {
            throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: sql)
        }
        defer { PQclear(result) }
        guard PQresultStatus(result) == PGRES_COMMAND_OK else {
            throw Self.error(from: result, handle: handle, context: sql)
        }
        prepared[sql] = name
        return name
    }

    /// Sends rows to `COPY … FROM STDIN` (text format): `sql` starts the copy, `rows` are
    /// written in order, each a line of tab-separated fields (see `copyField`).
    /// - Returns: how many rows the server stored.
    @discardableResult
    public func copy(_ sql: String, lines: some Sequence<String>) throws -> Int {
        try sendQueued()
        guard let start = PQexec(handle, sql) else {
            throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: sql)
        }
        let status = PQresultStatus(start)
        guard status == PGRES_COPY_IN else {
            defer { PQclear(start) }
            throw Self.error(from: start, handle: handle, context: sql)
        }
        PQclear(start)
        var buffer: [UInt8] = []
        buffer.reserveCapacity(1 << 16)
        func flush() -> Bool {
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer.withUnsafeBufferPointer { bytes in
                bytes.withMemoryRebound(to: CChar.self) { PQputCopyData(handle, $0.baseAddress, Int32($0.count)) == 1 }
            }
        }
        var ok = true
        for line in lines {
            buffer.append(contentsOf: line.utf8)
            buffer.append(UInt8(ascii: "\n"))
            if buffer.count >= 1 << 16 { ok = flush() }
            if !ok { break }
        }
        if ok && !buffer.isEmpty { ok = flush() }
        _ = PQputCopyEnd(handle, ok ? nil : "the client stopped sending")
        var failure: PostgresError?
        var stored = 0
        while let result = PQgetResult(handle) {
            defer { PQclear(result) }
            if PQresultStatus(result) == PGRES_COMMAND_OK {
                stored = Int(String(cString: PQcmdTuples(result))) ?? 0
            } else if failure == nil {
                failure = Self.error(from: result, handle: handle, context: sql)
            }
        }
        if let failure { throw failure }
        if !ok { throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: sql) }
        return stored
    }

    /// `value` as one field of a `COPY … FROM STDIN` text line: `\N` for NULL, backslash,
    /// tab, newline and carriage return escaped.
    public static func copyField(_ value: String?) -> String {
        guard let value else { return "\\N" }
        guard value.utf8.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else { return value }
        var text = ""
        text.reserveCapacity(value.utf8.count + 8)
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\\": text += "\\\\"
            case "\t": text += "\\t"
            case "\n": text += "\\n"
            case "\r": text += "\\r"
            default: text.unicodeScalars.append(scalar)
            }
        }
        return text
    }

    /// Whether no transaction is open on the connection, nor a statement held back to open one
    /// (a read committed without waiting counts as ended).
    public var isIdle: Bool { queue.isEmpty && (owed > 0 || PQtransactionStatus(handle) == PQTRANS_IDLE) }

    /// Runs several statements without parameters (a migration script), in one round trip.
    /// - Returns: the last statement's rows.
    /// - Throws: `PostgresError`; for a `COMMIT` of an open transaction during which the
    ///   connection is lost, with stage `.commitInDoubt`: it may have committed or not.
    @discardableResult
    public func execute(script sql: String) throws -> PostgresResult {
        try sendQueued()
        let committing = Self.isCommit(sql) && PQstatus(handle) == CONNECTION_OK && PQtransactionStatus(handle) == PQTRANS_INTRANS
        let result = PQexec(handle, sql)
        do {
            return try check(result, context: sql)
        } catch var error as PostgresError where committing && PQstatus(handle) == CONNECTION_BAD {
            error.stage = .commitInDoubt
            throw error
        }
    }

    /// Runs the held-back statements (`enqueue(_:_:)`), then `statements` (each one statement
    /// of literal SQL, no parameters), then `COMMIT` of the open transaction, in one round trip:
    /// what a write records about itself goes in with the commit at no extra cost.
    /// - Throws: `PostgresError`; with stage `.commitInDoubt` when the connection is lost on the
    ///   way: the transaction may have committed or not.
    public func commit(after statements: [String]) throws {
        let inTransaction =
            PQstatus(handle) == CONNECTION_OK && (PQtransactionStatus(handle) == PQTRANS_INTRANS || !queue.isEmpty)
        do {
            if Self.pipelines {
                for statement in statements + ["COMMIT"] { enqueue(statement) }
                try sendQueued()
            } else {
                try sendQueued()
                _ = try check(PQexec(handle, (statements + ["COMMIT"]).joined(separator: ";\n")), context: "COMMIT")
            }
        } catch var error as PostgresError where inTransaction && PQstatus(handle) == CONNECTION_BAD {
            error.stage = .commitInDoubt
            throw error
        }
    }

    /// Whether `sql` is one statement that commits the open transaction.
    private static func isCommit(_ sql: String) -> Bool {
        let words = sql.uppercased().split { $0 == " " || $0 == "\n" || $0 == "\t" || $0 == ";" }
        return words == ["COMMIT"] || words == ["END"] || words == ["COMMIT", "WORK"] || words == ["COMMIT", "TRANSACTION"]
    }

    /// Runs `body` in a transaction: commits when it returns, rolls back when it throws.
    @discardableResult
    public func inTransaction<T>(_ isolation: String = "READ COMMITTED", _ body: () throws -> T) throws -> T {
        try execute(script: "BEGIN ISOLATION LEVEL \(isolation)")
        do {
            let value = try body()
            try execute(script: "COMMIT")
            return value
        } catch {
            if PQtransactionStatus(handle) != PQTRANS_IDLE { _ = try? execute(script: "ROLLBACK") }
            throw error
        }
    }

    /// Waits up to `timeout` seconds for notifications on the channels this connection
    /// `LISTEN`s to, and returns those that arrived (channel and payload), oldest first.
    public func notifications(waitingUpTo timeout: Double) throws -> [(channel: String, payload: String)] {
        settleOwed()
        var found = drainNotifications()
        guard found.isEmpty else { return found }
        let socket = PQsocket(handle)
        guard socket >= 0 else { throw PostgresError(sqlState: nil, message: "the connection has no socket", context: "waiting for notifications") }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(timeout * 1000))
        guard ready > 0 else { return [] }
        guard PQconsumeInput(handle) == 1 else {
            throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: "waiting for notifications")
        }
        found = drainNotifications()
        return found
    }

    private func drainNotifications() -> [(channel: String, payload: String)] {
        var found: [(channel: String, payload: String)] = []
        while let notification = PQnotifies(handle) {
            found.append((String(cString: notification.pointee.relname), String(cString: notification.pointee.extra)))
            PQfreemem(notification)
        }
        return found
    }

    private func check(_ result: OpaquePointer?, context: String) throws -> PostgresResult {
        guard let result else {
            throw PostgresError(sqlState: nil, message: Self.oneLine(PQerrorMessage(handle)), context: context)
        }
        switch PQresultStatus(result) {
        case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
            return PostgresResult(result)
        default:
            defer { PQclear(result) }
            throw Self.error(from: result, handle: handle, context: context)
        }
    }

    /// The error a failed result reports: its SQLSTATE and message (the connection's message
    /// when the result has none).
    private static func error(from result: OpaquePointer, handle: OpaquePointer, context: String) -> PostgresError {
        let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
        var message = oneLine(PQresultErrorMessage(result))
        if message == "unknown error" || message.isEmpty { message = oneLine(PQerrorMessage(handle)) }
        return PostgresError(sqlState: state, message: message, context: context)
    }

    private static func oneLine(_ text: UnsafePointer<CChar>?) -> String {
        guard let text else { return "unknown error" }
        return oneLine(String(cString: text))
    }

    private static func oneLine(_ text: String) -> String {
        text.split(whereSeparator: \.isNewline).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }.joined(separator: " ")
    }
}

/// Calls `body` with C strings for `parameters` (NULL for `nil`), valid for the call.
private func withParameterPointers<R>(_ parameters: [String?], _ body: ([UnsafePointer<CChar>?]) -> R) -> R {
    let copies = parameters.map { $0.map { strdup($0) } }
    defer { for copy in copies { free(copy ?? nil) } }
    return body(copies.map { $0.map { UnsafePointer($0!) } ?? nil })
}

/// One row of a result being read, valid only inside the call that hands it over.
public struct PostgresRow {
    let result: OpaquePointer

    /// Whether the column is NULL.
    public func isNull(_ column: Int32) -> Bool { PQgetisnull(result, 0, column) != 0 }

    /// The column's text (`""` for NULL).
    public func string(_ column: Int32) -> String {
        guard let value = PQgetvalue(result, 0, column) else { return "" }
        return String(cString: value)
    }

    /// The column as an integer: its digits, or 1 and 0 for a boolean's `t` and `f`; 0 for NULL.
    public func int64(_ column: Int32) -> Int64 {
        guard let value = PQgetvalue(result, 0, column) else { return 0 }
        switch value.pointee {
        case CChar(UInt8(ascii: "t")): return 1
        case CChar(UInt8(ascii: "f")): return 0
        default: return strtoll(value, nil, 10)
        }
    }

    /// A `bytea` column's bytes (none for NULL), decoded from the text the server sent
    /// (`Bytea.decode(_:)`); another column's text as UTF-8.
    public func bytes(_ column: Int32) -> [UInt8] {
        Bytea.decode(string(column)) ?? Array(string(column).utf8)
    }
}

/// A `bytea` value as text, the form in which arguments and results travel: the hex format
/// (`\x` and two hex digits a byte), which the server reads whatever its settings, and the older
/// escape format, which it writes when `bytea_output` is `escape`.
public enum Bytea {
    /// The hex format of `bytes`: what an argument bound to a `bytea` sends.
    public static func encode(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = [UInt8(ascii: "\\"), UInt8(ascii: "x")]
        text.reserveCapacity(2 + bytes.count * 2)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// The bytes `text` holds in the hex or escape format; `nil` when it is neither.
    public static func decode(_ text: String) -> [UInt8]? {
        let utf8 = Array(text.utf8)
        if utf8.starts(with: [UInt8(ascii: "\\"), UInt8(ascii: "x")]) {
            let digits = utf8.dropFirst(2)
            guard digits.count % 2 == 0 else { return nil }
            var bytes: [UInt8] = []
            bytes.reserveCapacity(digits.count / 2)
            var index = digits.startIndex
            while index < digits.endIndex {
                guard let high = hexValue(digits[index]), let low = hexValue(digits[index + 1]) else { return nil }
                bytes.append(high << 4 | low)
                index += 2
            }
            return bytes
        }
        // Escape format: `\\` is a backslash, `\ooo` an octal byte, anything else itself.
        var bytes: [UInt8] = []
        var index = 0
        while index < utf8.count {
            guard utf8[index] == UInt8(ascii: "\\") else {
                bytes.append(utf8[index])
                index += 1
                continue
            }
            if index + 1 < utf8.count, utf8[index + 1] == UInt8(ascii: "\\") {
                bytes.append(UInt8(ascii: "\\"))
                index += 2
                continue
            }
            guard index + 3 < utf8.count else { return nil }
            let octal = utf8[(index + 1)...(index + 3)].map { Int($0) - Int(UInt8(ascii: "0")) }
            guard octal.allSatisfy({ (0...7).contains($0) }), octal[0] <= 3 else { return nil }
            bytes.append(UInt8(octal[0] * 64 + octal[1] * 8 + octal[2]))
            index += 4
        }
        return bytes
    }

    private static func hexValue(_ digit: UInt8) -> UInt8? {
        switch digit {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return digit - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}

/// The rows a statement returned, as text, read by row and column.
public final class PostgresResult {
    private let result: OpaquePointer

    init(_ result: OpaquePointer) {
        self.result = result
    }

    deinit {
        PQclear(result)
    }

    /// The number of rows.
    public var rowCount: Int { Int(PQntuples(result)) }
    /// How many rows the command changed (for INSERT, UPDATE, DELETE).
    public var changedRows: Int { Int(String(cString: PQcmdTuples(result))) ?? 0 }

    /// The value at `row`, `column` as text; `nil` for NULL.
    public func string(_ row: Int, _ column: Int) -> String? {
        guard PQgetisnull(result, Int32(row), Int32(column)) == 0 else { return nil }
        return String(cString: PQgetvalue(result, Int32(row), Int32(column)))
    }

    /// The value at `row`, `column` as an integer; `nil` for NULL or not a number.
    public func int64(_ row: Int, _ column: Int) -> Int64? {
        string(row, column).flatMap { Int64($0) }
    }
}
