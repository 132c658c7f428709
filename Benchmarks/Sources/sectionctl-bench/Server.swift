import Foundation
import Postgres
import PostgresCluster
import Repository
import RepositoryPostgres
import Synchronization
import Transfer

/// A native document of the list `default`: `sections` sections ("Section 1", …) of
/// `rowsPerSection` field rows each ("Label r" = "Value s.r").
struct NativeDocument {
    let sections: Int
    let rowsPerSection: Int

    var rows: Int { sections * rowsPerSection }

    func sectionTitle(_ section: Int) -> String { "Section \(section + 1)" }

    func row(_ section: Int, _ row: Int) -> (title: String, value: String) {
        ("Label \(row + 1)", "Value \(section + 1).\(row + 1)")
    }

    /// The document as `export` writes it.
    var json: String {
        var text = "{\n  \"format\": \"sectionctl\",\n  \"version\": 1,\n  \"lists\": [\n    {\n      \"name\": \"default\",\n      \"sections\": [\n"
        text.reserveCapacity(rows * 64)
        for section in 0..<sections {
            text += "        {\n          \"title\": \"\(sectionTitle(section))\",\n          \"empty_text\": null,\n          \"rows\": [\n"
            for index in 0..<rowsPerSection {
                let (title, value) = row(section, index)
                text += "            {\"kind\": \"field\", \"title\": \"\(title)\", \"value\": \"\(value)\"}"
                text += index < rowsPerSection - 1 ? ",\n" : "\n"
            }
            text += "          ]\n        }" + (section < sections - 1 ? ",\n" : "\n")
        }
        text += "      ]\n    }\n  ]\n}\n"
        return text
    }

    /// The position the n-th section or row appended to an empty parent gets: the first in the
    /// middle of the range, each next one a step further (what an import writes).
    static func position(_ index: Int) -> Int64 { (1 << 61) + Int64(index) << 32 }
}

/// The cluster the `postgres` scenario runs, so that an interrupted run stops it too.
enum RunningCluster {
    private static let current = Mutex<ThrowawayCluster?>(nil)

    static func set(_ cluster: ThrowawayCluster?) {
        current.withLock { $0 = cluster }
    }

    /// Stops the server and removes its directory (an interrupted run).
    static func stop() {
        guard let cluster = current.withLock({ $0 }) else { return }
        cluster.stop()
        try? FileManager.default.removeItem(at: cluster.directory.url)
    }
}

extension Benchmark {
    /// Scenario 14: the Repository on a PostgreSQL server, each figure against raw libpq on the
    /// same server in the same run: a single move, a bulk import, 16 clients moving rows of one
    /// list (checked against a serial replay of the journal), and an observer in another process.
    /// The server is a throwaway cluster started for the scenario, durable like a real server
    /// (`fsync=on`, `synchronous_commit=on`), reached over a Unix socket on this machine; each
    /// measurement uses a database of its own.
    func serverRows() throws -> [ResultRow] {
        guard ThrowawayCluster.isAvailable else {
            Log.progress(
                "  skipped: PostgreSQL's server programs (initdb, pg_ctl under /usr/lib/postgresql) are not installed"
                    + (getuid() == 0 ? ", or /usr/bin/setpriv is missing to run them as nobody" : ""))
            return [.skipped("14. postgres", reason: "PostgreSQL's server programs are not installed")]
        }
        Log.progress("  starting a throwaway cluster: fsync=on, synchronous_commit=on, Unix socket only…")
        let cluster = try ThrowawayCluster(durable: true)
        RunningCluster.set(cluster)
        defer { RunningCluster.set(nil) }
        let server = try cluster.connect().execute("SHOW server_version").string(0, 0) ?? "?"
        Log.progress("  PostgreSQL \(server) in \(cluster.directory.url.path)")

        return try withScratch("postgres") { scratch in
            var rows: [ResultRow] = []
            let parts: [(name: String, body: () throws -> [ResultRow])] = [
                ("one move", { try self.serverMoveRows(cluster, server: server) }),
                ("bulk import", { try self.serverImportRows(cluster, scratch: scratch) }),
                ("16 clients", { try self.serverClientRows(cluster) }),
                ("observer", { try self.serverObserveRows(cluster) }),
                ("a command's round trips", { try self.serverCommandRows(cluster) }),
            ]
            for part in parts {
                do {
                    rows += try part.body()
                } catch {
                    rows.append(ResultRow(scenario: "14. postgres: \(part.name)", measured: "error: \(error)", ratio: "", target: "", verdict: .fail))
                }
            }
            return rows
        }
    }

    /// A new database on the cluster, with the sectionctl schema and the list `default`, and a
    /// store open on it.
    private func newServerStore(_ cluster: ThrowawayCluster) throws -> (uri: String, store: SectionStore) {
        let uri = try cluster.newDatabase()
        return (uri, try SectionStore(location: .server(connectionString: uri), server: .postgres, create: true))
    }

    // MARK: - One move

    /// A random row moved to a random place in a section of 10,000 rows through the Repository,
    /// against raw libpq's single-row UPDATE of a row's position in its own transaction on the
    /// same database (≤ 3×), blocks alternated round by round; and the same move as a whole
    /// `sectionctl --db URI row move` process.
    private func serverMoveRows(_ cluster: ThrowawayCluster, server: String) throws -> [ResultRow] {
        let count = plan.serverMoveSectionRows
        let (uri, store) = try newServerStore(cluster)
        Log.progress("  one move: importing a section of \(Format.count(count)) rows…")
        try store.importJSON(Data(NativeDocument(sections: 1, rowsPerSection: count).json.utf8))

        var generator = SeededGenerator(seed: 14)
        let edits: [Edit] = (0..<1_000).map { _ in
            let from = Int.random(in: 0..<count, using: &generator)
            var to = Int.random(in: 0..<(count - 1), using: &generator)
            if to >= from { to += 1 }
            return .moveRow(.at(0, from), to: .at(0, to))
        }
        let repository = RepositoryMover(store: store, cycling: edits)
        let sectionID = try store.list("default").outline().sections[0].id.rawValue
        let baseline = try ServerUpdateMover(connectionString: uri, sectionID: sectionID, seed: 15)
        try ServerUpdateMover.makePlainRows(connectionString: uri)
        let plain = try ServerUpdateMover(connectionString: uri, sectionID: sectionID, seed: 16, table: "public.plain_rows")

        Log.progress("  one move: \(plan.rounds) rounds of \(plan.movesPerRound) moves, Repository and libpq alternately…")
        var samples: (repository: [Double], baseline: [Double], plain: [Double]) = ([], [], [])
        for round in 0...plan.rounds {
            let moves = plan.movesPerRound
            let repositoryTime = try Measurement.time { for _ in 0..<moves { try repository.move() } }
            try baseline.planMoves(moves)
            let baselineTime = try Measurement.time { for _ in 0..<moves { try baseline.move() } }
            try plain.planMoves(moves)
            let plainTime = try Measurement.time { for _ in 0..<moves { try plain.move() } }
            if round > 0 {
                samples.repository.append(repositoryTime / Double(moves))
                samples.baseline.append(baselineTime / Double(moves))
                samples.plain.append(plainTime / Double(moves))
            }
        }
        let repositoryMove = Measurement.median(samples.repository)
        let baselineMove = Measurement.median(samples.baseline)
        let plainMove = Measurement.median(samples.plain)
        if let problems = try? store.check(), !problems.isEmpty {
            throw BenchmarkError("after the moves, check() reports: \(problems.prefix(3).map(\.description).joined(separator: "; "))")
        }
        var rows: [ResultRow] = [
            .atMost(
                "14. postgres: one move vs libpq one-row UPDATE txn, \(Format.shortCount(count)) rows",
                measured: "Repository \(Format.duration(repositoryMove)), libpq UPDATE \(Format.duration(baselineMove));"
                    + " random row to random place; PostgreSQL \(server)",
                ratio: repositoryMove / baselineMove, limit: 3, suffix: "x"),
            .atMost(
                "14. postgres: one move vs libpq one-row UPDATE txn on a plain table, \(Format.shortCount(count)) rows",
                measured: "Repository \(Format.duration(repositoryMove)), libpq UPDATE of public.plain_rows \(Format.duration(plainMove))"
                    + " (same columns and unique index, no triggers)",
                ratio: repositoryMove / plainMove, limit: 3, suffix: "x"),
        ]

        let sectionctl = sectionctlPath
        let scenario = "14. postgres: sectionctl --db URI row move, a whole process"
        guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
            rows.append(.skipped(scenario, reason: "no sectionctl binary at \(sectionctl)"))
            return rows
        }
        var processTimes: [Double] = []
        for round in 0...plan.rounds {
            let from = Int.random(in: 0..<count, using: &generator)
            var to = Int.random(in: 0..<(count - 1), using: &generator)
            if to >= from { to += 1 }
            let errors = FileManager.default.temporaryDirectory.appendingPathComponent("sectionctl-bench-move-\(getpid()).err").path
            defer { try? FileManager.default.removeItem(atPath: errors) }
            let outcome = try ChildProcess.timed(sectionctl, ["--db", uri, "row", "move", "0:\(from)", "0:\(to)"], errorFile: errors)
            guard outcome.status == 0 else {
                throw BenchmarkError("sectionctl --db URI row move 0:\(from) 0:\(to) exited \(outcome.status)")
            }
            if round > 0 { processTimes.append(outcome.seconds) }
        }
        let processMove = Measurement.median(processTimes)
        rows.append(
            .info(
                scenario, measured: "median of \(processTimes.count): \(Format.duration(processMove)) (start, connect, move, exit)",
                ratio: "\(Format.ratio(processMove / repositoryMove))x library move"))
        return rows
    }

    // MARK: - A command's round trips

    /// `sectionctl --db URI row get` and `row move` as whole processes, reaching the server
    /// through a relay (`SocketProxy`) that counts the round trips: the times a client waited on
    /// the server, connection included (target: a read ≤ 4, a move ≤ 6). Then the same move
    /// behind 20 ms of latency (10 ms each way in the relay), against `psql` (C, libpq) running
    /// one UPDATE of a row of the plain table in a transaction through the same relay (≤ 2×);
    /// medians, the two alternated round by round.
    private func serverCommandRows(_ cluster: ThrowawayCluster) throws -> [ResultRow] {
        let scenario = "14. postgres: a command's round trips"
        let sectionctl = sectionctlPath
        guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
            return [.skipped(scenario, reason: "no sectionctl binary at \(sectionctl)")]
        }
        let programs = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/bin"]
        guard let psql = programs.map({ $0 + "/psql" }).first(where: { FileManager.default.isExecutableFile(atPath: $0) }) else {
            return [.skipped(scenario, reason: "psql not found (apt-get install postgresql-client)")]
        }
        let count = 1_000
        let (uri, store) = try newServerStore(cluster)
        try store.importJSON(Data(NativeDocument(sections: 1, rowsPerSection: count).json.utf8))
        try ServerUpdateMover.makePlainRows(connectionString: uri)
        let proxy = try SocketProxy(serverDirectory: cluster.directory.url.path)
        let relayed = uri.replacingOccurrences(of: "host=\(cluster.directory.url.path)", with: "host=\(proxy.directory)")
        guard relayed != uri else { throw BenchmarkError("the cluster's URI names no socket directory: \(uri)") }
        let errors = FileManager.default.temporaryDirectory.appendingPathComponent("sectionctl-bench-trips-\(getpid()).err").path
        defer { try? FileManager.default.removeItem(atPath: errors) }

        /// Runs a process through the relay; its round trips and seconds.
        func run(_ executable: String, _ arguments: [String]) throws -> (trips: Int, seconds: Double) {
            proxy.resetRoundTrips()
            let outcome = try ChildProcess.timed(executable, arguments, errorFile: errors)
            guard outcome.status == 0 else {
                let said = (try? String(contentsOfFile: errors, encoding: .utf8)) ?? ""
                throw BenchmarkError("\(arguments.prefix(4).joined(separator: " ")) exited \(outcome.status): \(said)")
            }
            return (proxy.roundTrips, outcome.seconds)
        }
        var generator = SeededGenerator(seed: 41)
        func move() -> [String] {
            let from = Int.random(in: 0..<count, using: &generator)
            var to = Int.random(in: 0..<(count - 1), using: &generator)
            if to >= from { to += 1 }
            return ["--db", relayed, "row", "move", "0:\(from)", "0:\(to)"]
        }
        let update = "BEGIN; UPDATE public.plain_rows SET position = position WHERE id = (SELECT min(id) FROM public.plain_rows); COMMIT;"
        let psqlArguments = ["-X", "-q", "-d", relayed, "-c", update]

        Log.progress("  a command's round trips: row get, row move and psql through a relay…")
        let get = try run(sectionctl, ["--db", relayed, "row", "get", "0:\(count / 2)"])
        let moved = try run(sectionctl, move())
        let plain = try run(psql, psqlArguments)
        var rows: [ResultRow] = [
            .atMost(
                "14. postgres: round trips of sectionctl --db URI row get, a whole process",
                measured: "\(get.trips) (counted by a relay, connection included; psql's one UPDATE: \(plain.trips))",
                ratio: Double(get.trips), limit: 4, suffix: ""),
            .atMost(
                "14. postgres: round trips of sectionctl --db URI row move, a whole process",
                measured: "\(moved.trips) (counted by a relay, connection included)", ratio: Double(moved.trips), limit: 6, suffix: ""),
        ]

        proxy.delay = .milliseconds(10)
        let rounds = max(3, plan.rounds / 3)
        Log.progress("  a command's round trips: \(rounds) rounds behind 20 ms, row move and psql alternately…")
        var times: (move: [Double], psql: [Double]) = ([], [])
        for round in 0...rounds {
            let moveTime = try run(sectionctl, move()).seconds
            let psqlTime = try run(psql, psqlArguments).seconds
            if round > 0 {
                times.move.append(moveTime)
                times.psql.append(psqlTime)
            }
        }
        proxy.delay = .zero
        let (moveTime, psqlTime) = (Measurement.median(times.move), Measurement.median(times.psql))
        rows.append(
            .atMost(
                "14. postgres: sectionctl --db URI row move behind 20 ms vs psql's one-row UPDATE",
                measured: "\(Format.duration(moveTime)) vs \(Format.duration(psqlTime)) (10 ms each way in a relay; whole processes)",
                ratio: moveTime / psqlTime, limit: 2, suffix: "x"))
        if let problems = try? store.check(), !problems.isEmpty {
            throw BenchmarkError("after the moves, check() reports: \(problems.prefix(3).map(\.description).joined(separator: "; "))")
        }
        return rows
    }

    // MARK: - Bulk import

    /// A native document of 100,000 rows in 4 sections imported into an empty list
    /// (`importJSON`, reading the file included), against raw libpq: the sections inserted, then
    /// the rows by one `COPY`, in one transaction marked as sectionctl's own
    /// (`sectionctl.writer_begin()`) so that the schema's triggers do the same work (≥ 50 %).
    /// Repetitions interleaved in alternating order, each into a new database, medians. For
    /// context: the same import with a fifth of the rows in each section (time per row, which
    /// stays flat when the import is linear), and the raw COPY with the schema's row triggers
    /// disabled.
    private func serverImportRows(_ cluster: ThrowawayCluster, scratch: Scratch) throws -> [ResultRow] {
        let sections = plan.serverImportSections
        let document = NativeDocument(sections: sections, rowsPerSection: plan.serverImportRows / sections)
        let small = NativeDocument(sections: sections, rowsPerSection: document.rowsPerSection / 5)
        let file = scratch.file("server-import.json")
        try Data(document.json.utf8).write(to: URL(fileURLWithPath: file))
        func label(_ document: NativeDocument) -> String {
            "\(Format.shortCount(document.rows)) rows in \(document.sections) sections"
        }

        var baselineTimes: [Double] = []
        var importTimes: [Double] = []
        for repetition in 0..<plan.serverImportRepetitions {
            // Which goes first alternates, so that a slow spell of the machine falls on both.
            for importFirst in repetition % 2 == 0 ? [false, true] : [true, false] {
                if importFirst {
                    let (uri, store) = try newServerStore(cluster)
                    Log.progress("  bulk import: importJSON of \(label(document))…")
                    importTimes.append(try Measurement.time { try store.importJSON(Data(contentsOf: URL(fileURLWithPath: file))) })
                    Log.progress("  bulk import: \(Format.duration(importTimes.last!))")
                    if let mismatch = try Self.mismatch(in: uri, expecting: document) { throw BenchmarkError("importJSON: \(mismatch)") }
                    if repetition == 0 {
                        let problems = try store.check()
                        guard problems.isEmpty else {
                            throw BenchmarkError(
                                "after importJSON, check() reports: \(problems.prefix(3).map(\.description).joined(separator: "; "))")
                        }
                    }
                } else {
                    let uri = try newServerStore(cluster).uri
                    Log.progress("  bulk import: libpq COPY of \(label(document))…")
                    baselineTimes.append(try Self.copyRows(of: document, into: uri))
                    Log.progress("  bulk import: \(Format.duration(baselineTimes.last!))")
                    if let mismatch = try Self.mismatch(in: uri, expecting: document) { throw BenchmarkError("libpq COPY: \(mismatch)") }
                }
            }
        }
        let baseline = Measurement.median(baselineTimes)
        let imported = Measurement.median(importTimes)
        let rows = Double(document.rows)

        Log.progress("  bulk import: importJSON of \(label(small))…")
        let (smallURI, smallStore) = try newServerStore(cluster)
        let smallImport = try Measurement.time { try smallStore.importJSON(Data(small.json.utf8)) }
        if let mismatch = try Self.mismatch(in: smallURI, expecting: small) { throw BenchmarkError("importJSON: \(mismatch)") }
        Log.progress("  bulk import: libpq COPY of \(label(document)) with the row triggers disabled…")
        let bareURI = try newServerStore(cluster).uri
        try PostgresConnection(connectionString: bareURI).execute(script: "ALTER TABLE sectionctl.rows DISABLE TRIGGER USER")
        let bare = try Self.copyRows(of: document, into: bareURI)
        let perRow = (large: imported / rows, small: smallImport / Double(small.rows))
        return [
            .atLeast(
                "14. postgres: native import vs libpq COPY, \(label(document))",
                measured: "importJSON \(Format.duration(imported)) (\(Format.rate(rows / imported)) rows),"
                    + " COPY \(Format.duration(baseline)) (\(Format.rate(rows / baseline)) rows); median of \(importTimes.count)",
                ratio: baseline / imported * 100, limit: 50, suffix: "%"),
            .atLeast(
                "14. postgres: native import vs libpq COPY without the row triggers, \(label(document))",
                measured: "importJSON \(Format.rate(rows / imported)) rows, COPY into sectionctl.rows with its triggers disabled"
                    + " (the columns, keys and indexes alone) \(Format.duration(bare)) (\(Format.rate(rows / bare)) rows)",
                ratio: bare / imported * 100, limit: 50, suffix: "%"),
            .info(
                "14. postgres: native import, time per row, \(Format.shortCount(document.rowsPerSection)) vs"
                    + " \(Format.shortCount(small.rowsPerSection)) rows a section",
                measured: "\(label(small)): \(Format.duration(smallImport)) (\(Format.rate(Double(small.rows) / smallImport)) rows);"
                    + " \(label(document)): \(Format.rate(rows / imported)) rows; libpq COPY of \(Format.shortCount(document.rows))"
                    + " rows without the row triggers: \(Format.duration(bare)) (\(Format.rate(rows / bare)) rows)",
                ratio: "\(Format.ratio(perRow.large / perRow.small))x per row"),
        ]
    }

    /// Raw libpq's bulk insert: in one transaction marked as sectionctl's own, the sections by a
    /// prepared INSERT, then every row by one `COPY … FROM STDIN`, at the positions an import
    /// gives them. Returns the time from BEGIN to COMMIT, in seconds.
    private static func copyRows(of document: NativeDocument, into uri: String) throws -> Double {
        let connection = try PostgresConnection(connectionString: uri)
        guard let listID = try connection.execute("SELECT id FROM sectionctl.lists WHERE name = 'default'").int64(0, 0) else {
            throw BenchmarkError("the new database has no list 'default'")
        }
        return try Measurement.time {
            try connection.execute(script: "BEGIN")
            try connection.execute("SELECT sectionctl.writer_begin()")
            var sectionIDs: [Int64] = []
            for section in 0..<document.sections {
                try connection.forEachRow(
                    prepared: "INSERT INTO sectionctl.sections (list_id, position, title) VALUES ($1, $2, $3) RETURNING id",
                    [String(listID), String(NativeDocument.position(section)), document.sectionTitle(section)]
                ) { row in
                    sectionIDs.append(row.int64(0))
                    return true
                }
            }
            let field = PostgresConnection.copyField
            let ids = sectionIDs
            let lines = (0..<document.rows).lazy.map { index -> String in
                let (section, row) = index.quotientAndRemainder(dividingBy: document.rowsPerSection)
                let (title, value) = document.row(section, row)
                return "\(ids[section])\t\(NativeDocument.position(row))\tfield\t\(field(title))\t\(field(value))"
            }
            let stored = try connection.copy("COPY sectionctl.rows (section_id, position, kind, title, value) FROM STDIN", lines: lines)
            try connection.execute(script: "COMMIT")
            guard stored == document.rows else { throw BenchmarkError("COPY stored \(stored) rows, not \(document.rows)") }
        }
    }

    /// Why the database at `uri` does not hold exactly the document's sections and rows (with
    /// every section's row count kept), or nil.
    private static func mismatch(in uri: String, expecting document: NativeDocument) throws -> String? {
        let connection = try PostgresConnection(connectionString: uri)
        let counts = try connection.execute(
            "SELECT (SELECT count(*) FROM sectionctl.sections), (SELECT coalesce(sum(row_count), 0) FROM sectionctl.sections),"
                + " (SELECT count(*) FROM sectionctl.rows)")
        let (sections, counted, rows) = (counts.int64(0, 0) ?? -1, counts.int64(0, 1) ?? -1, counts.int64(0, 2) ?? -1)
        guard sections == Int64(document.sections), rows == Int64(document.rows), counted == rows else {
            return "the database holds \(sections) sections and \(rows) rows (row counts say \(counted)),"
                + " not \(document.sections) and \(document.rows)"
        }
        return nil
    }

    // MARK: - Clients

    /// 16 client processes, each with its own store on the server, making 500 random row moves
    /// on one list of 2,000 rows in 4 sections at once; then the same number of moves by one
    /// client. After each run: every row is still there exactly once, the counts and the rank
    /// structure agree (`check()`), and the final order is what replaying the journal entries
    /// in version order on the first snapshot gives. Throughput of 16 clients vs 1, for context.
    private func serverClientRows(_ cluster: ThrowawayCluster) throws -> [ResultRow] {
        let clients = plan.serverClients
        let moves = plan.serverClientMoves
        let document = NativeDocument(sections: plan.serverClientSections, rowsPerSection: plan.serverClientListRows / plan.serverClientSections)
        let many = try runClients(clients, movesEach: moves, document: document, cluster: cluster)
        let one = try runClients(1, movesEach: clients * moves, document: document, cluster: cluster)
        let verified = many.problem == nil && one.problem == nil
        let rows = Format.count(document.rows)
        return [
            ResultRow(
                scenario: "14. postgres: \(clients) clients x \(Format.count(moves)) random moves, one \(rows)-row list",
                measured: "\(clients) clients: \(many.summary); 1 client: \(one.summary)",
                ratio: "", target: "0 lost, replay = final", verdict: verified ? .pass : .fail),
            .info(
                "14. postgres: throughput, \(clients) clients vs 1",
                measured:
                    "\(clients) clients: \(Format.rate(many.throughput)) moves (\(Format.count(many.moves)) in \(Format.duration(many.seconds)));"
                    + " 1 client: \(Format.rate(one.throughput)) moves (\(Format.count(one.moves)) in \(Format.duration(one.seconds)))",
                ratio: "\(Format.ratio(many.throughput / one.throughput))x"),
        ]
    }

    /// What one run of client processes did.
    struct ClientRun {
        /// Moves made (failed ones not included).
        var moves: Int
        var failures: Int
        /// From the first client's first move to the last client's last.
        var seconds: Double
        /// Journal entries replayed.
        var versions: Int
        /// Why the run does not pass its checks, or nil.
        var problem: String?

        var throughput: Double { Double(moves) / seconds }

        var summary: String {
            let checks =
                problem.map { "FAILED: \($0)" } ?? "every row once, check() clean, replay of \(Format.count(versions)) journal entries = final order"
            return "\(Format.count(moves)) moves, \(failures) failed; \(checks)"
        }
    }

    /// Fills a new database with `document`, starts `clients` processes that each make
    /// `movesEach` moves once all are ready, copies the journal as it grows (it keeps only the
    /// last 1,000 versions), and checks the outcome.
    private func runClients(_ clients: Int, movesEach: Int, document: NativeDocument, cluster: ThrowawayCluster) throws -> ClientRun {
        let (uri, store) = try newServerStore(cluster)
        try store.importJSON(Data(document.json.utf8))
        let first = try store.list("default").snapshot()
        let journal = try JournalCopy(connectionString: uri, listID: first.listID.rawValue, after: first.version.rawValue)
        Log.progress("  \(clients) client\(clients == 1 ? "" : "s") x \(Format.count(movesEach)) moves on \(Format.count(document.rows)) rows…")

        var processes: [(process: Process, input: Pipe, output: Pipe)] = []
        defer {
            for entry in processes {
                try? entry.input.fileHandleForWriting.close()
                if entry.process.isRunning { entry.process.waitUntilExit() }
            }
        }
        for client in 0..<clients {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: ChildProcess.ownPath)
            process.arguments = [ChildServerMover.option, uri, String(movesEach), String(1_000 + client)]
            let input = Pipe()
            let output = Pipe()
            process.standardInput = input
            process.standardOutput = output
            try process.run()
            processes.append((process, input, output))
        }
        for (client, entry) in processes.enumerated() {
            guard Self.readLine(entry.output.fileHandleForReading) == "ready" else {
                throw BenchmarkError(
                    "client \(client) did not get ready (exit \(entry.process.isRunning ? "-" : String(entry.process.terminationStatus)))")
            }
        }
        for entry in processes {
            try entry.input.fileHandleForWriting.write(contentsOf: Data("go\n".utf8))
        }
        while processes.contains(where: { $0.process.isRunning }) {
            try journal.read()
            Thread.sleep(forTimeInterval: 0.1)
        }
        try journal.read()

        var run = ClientRun(moves: 0, failures: 0, seconds: 0, versions: journal.entries.count)
        var started = UInt64.max
        var ended = UInt64.min
        for (client, entry) in processes.enumerated() {
            let text = String(decoding: entry.output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            let fields = text.split(whereSeparator: \.isWhitespace).compactMap { UInt64($0) }
            guard entry.process.terminationStatus == 0, fields.count == 4 else {
                throw BenchmarkError("client \(client) exited \(entry.process.terminationStatus) without its figures")
            }
            run.moves += Int(fields[0]) - Int(fields[1])
            run.failures += Int(fields[1])
            started = min(started, fields[2])
            ended = max(ended, fields[3])
        }
        run.seconds = Double(ended - started) / 1e9
        run.problem = try Self.verify(store: store, first: first, journal: journal)
        return run
    }

    /// Why the list's final state is wrong, or nil: each row of `first` must be there exactly
    /// once, the stored counts and rank structure must agree, and applying the journal's moves
    /// in version order to `first` must give the final order.
    private static func verify(store: SectionStore, first: ListSnapshot, journal: JournalCopy) throws -> String? {
        let final = try store.list("default").snapshot()
        let before = first.sections.flatMap { $0.rows.map(\.id) }
        let after = final.sections.flatMap { $0.rows.map(\.id) }
        if after.count != before.count || Set(after).count != after.count || Set(after) != Set(before) {
            let lost = Set(before).subtracting(after).count
            return "\(after.count) rows for \(before.count) (\(lost) lost, \(after.count - Set(after).count) duplicated)"
        }
        let problems = try store.check()
        if !problems.isEmpty { return "check(): \(problems.prefix(3).map(\.description).joined(separator: "; "))" }
        if let gap = journal.gap { return gap }
        guard final.version == first.version.advanced(by: Int64(journal.entries.count)) else {
            return "the list is at version \(final.version), but the journal holds \(first.version)+\(journal.entries.count)"
        }
        var order = first.sections.map { $0.rows.map(\.id) }
        for entry in journal.entries {
            guard let move = Self.singleMove(entry.changes) else {
                return "version \(entry.version) is not one row moved: \(entry.changes.prefix(200))"
            }
            guard order.indices.contains(move.from.section), order[move.from.section].indices.contains(move.from.row) else {
                return "version \(entry.version) moves from \(move.from), which does not exist"
            }
            let id = order[move.from.section].remove(at: move.from.row)
            guard order.indices.contains(move.to.section), (0...order[move.to.section].count).contains(move.to.row) else {
                return "version \(entry.version) moves to \(move.to), which does not exist"
            }
            order[move.to.section].insert(id, at: move.to.row)
        }
        guard order == final.sections.map({ $0.rows.map(\.id) }) else {
            return "replaying the journal does not give the final order"
        }
        return nil
    }

    /// The one moved row of a journal entry (`Changeset.json`); nil when the entry holds
    /// anything else (footers aside: a move may empty or fill a section).
    private static func singleMove(_ changes: String) -> (from: RowPath, to: RowPath)? {
        guard var changeset = try? Changeset(json: changes), changeset.movedRows.count == 1 else { return nil }
        let move = changeset.movedRows[0]
        changeset.movedRows = []
        changeset.changedFooters = []
        return changeset.isEmpty ? (move.from, move.to) : nil
    }

    /// One line from `handle`, without its line break; nil at the end of the input.
    private static func readLine(_ handle: FileHandle) -> String? {
        var data = Data()
        while !data.contains(UInt8(ascii: "\n")) {
            let chunk = handle.availableData
            if chunk.isEmpty { return data.isEmpty ? nil : String(decoding: data, as: UTF8.self) }
            data.append(chunk)
        }
        return String(decoding: data.prefix { $0 != UInt8(ascii: "\n") }, as: UTF8.self)
    }

    // MARK: - Observer

    /// A writer process adds sections, one every 60 ms or so, each titled with the wall-clock
    /// time just before its commit; a `ListWatcher` in this process, waiting on the server's
    /// notifications (`poll(waitingUpTo:)`), receives them. Latency = arrival − that time:
    /// median ≤ 100 ms; the worst is shown.
    private func serverObserveRows(_ cluster: ThrowawayCluster) throws -> [ResultRow] {
        let count = plan.serverObservedChanges
        let (uri, store) = try newServerStore(cluster)
        let watcher = try ListWatcher(location: .server(connectionString: uri), server: .postgres, list: SectionStore.defaultList)
        _ = try watcher.poll()
        Log.progress("  observer: \(count) changes by another process, one every 60 ms or so…")
        let writer = Process()
        writer.executableURL = URL(fileURLWithPath: ChildProcess.ownPath)
        writer.arguments = [ChildWriter.option, uri, String(count), "60"]
        try writer.run()
        defer { if writer.isRunning { writer.terminate() } }

        var arrivals: [(section: Int, at: UInt64)] = []
        var quietSince = ContinuousClock.now
        while arrivals.count < count {
            let updates = try watcher.poll(waitingUpTo: 0.5)
            let arrived = wallClockNanoseconds()
            for update in updates {
                if let index = update.changeset?.insertedSections.first { arrivals.append((index, arrived)) }
            }
            if !updates.isEmpty || writer.isRunning { quietSince = ContinuousClock.now }
            if ContinuousClock.now - quietSince > .seconds(5) { break }
        }
        writer.waitUntilExit()
        guard writer.terminationStatus == 0, arrivals.count == count else {
            throw BenchmarkError("the observer saw \(arrivals.count) of \(count) changes (writer exit \(writer.terminationStatus))")
        }
        let sections = try store.list("default").outline().sections
        let latencies = try arrivals.map { arrival -> Double in
            guard let committed = UInt64(sections[arrival.section].title) else {
                throw BenchmarkError("section \(arrival.section) is not titled with a time")
            }
            return Double(arrival.at &- committed) / 1e9
        }.sorted()
        let median = Measurement.median(latencies)
        return [
            .atMost(
                "14. postgres: observer latency, another process's commit (median)",
                measured: "\(count) changes, ListWatcher.poll(waitingUpTo:) on LISTEN/NOTIFY: median \(Format.duration(median)),"
                    + " 95th \(Format.duration(latencies[latencies.count * 95 / 100])), worst \(Format.duration(latencies.last!))",
                ratio: median * 1000, limit: 100, suffix: " ms"),
            .info(
                "14. postgres: observer latency, worst of \(count)", measured: "the time before the commit to the update's arrival",
                ratio: "\(Format.ratio(latencies.last! * 1000)) ms"),
        ]
    }
}

/// Raw libpq's counterpart of a move: a random row gets a position in a random gap between two
/// neighbours, by a prepared single-row UPDATE in a transaction of its own. The moves of a block
/// are chosen before it from the section's positions (distinct rows, distinct gaps), so the
/// timed part only writes.
final class ServerUpdateMover: Mover {
    private let connection: PostgresConnection
    private let sectionID: Int64
    private var generator: SeededGenerator
    private var planned: [(id: Int64, position: Int64)] = []
    private var next = 0

    /// `table`: sectionctl's own rows (every trigger firing), or a plain copy of them.
    private let table: String

    init(connectionString: String, sectionID: Int64, seed: UInt64, table: String = "sectionctl.rows") throws {
        connection = try PostgresConnection(connectionString: connectionString)
        self.sectionID = sectionID
        self.table = table
        generator = SeededGenerator(seed: seed)
    }

    /// Makes `public.plain_rows`: a copy of sectionctl's rows with the same columns, primary key
    /// and unique index, and no triggers, foreign keys or rank structure (the plain-table baseline).
    static func makePlainRows(connectionString: String) throws {
        try PostgresConnection(connectionString: connectionString).execute(
            script: """
                CREATE TABLE public.plain_rows AS SELECT id, section_id, position, kind, title, value FROM sectionctl.rows;
                ALTER TABLE public.plain_rows ADD PRIMARY KEY (id);
                ALTER TABLE public.plain_rows ADD UNIQUE (section_id, position);
                ANALYZE public.plain_rows;
                """)
    }

    /// Chooses the next `count` moves from the section as it is now.
    func planMoves(_ count: Int) throws {
        var rows: [(id: Int64, position: Int64)] = []
        try connection.forEachRow(
            prepared: "SELECT id, position FROM \(table) WHERE section_id = $1 ORDER BY position", [String(sectionID)]
        ) { row in
            rows.append((row.int64(0), row.int64(1)))
            return true
        }
        guard rows.count > 2 * count + 2 else { throw BenchmarkError("the section has too few rows to plan \(count) moves") }
        var movedRows: Set<Int> = []
        var usedGaps: Set<Int> = []
        planned = []
        next = 0
        while planned.count < count {
            let gap = Int.random(in: 0..<(rows.count - 1), using: &generator)
            let row = Int.random(in: 0..<rows.count, using: &generator)
            let (low, high) = (rows[gap].position, rows[gap + 1].position)
            guard high - low >= 2, row != gap, row != gap + 1, !usedGaps.contains(gap), !movedRows.contains(row) else { continue }
            usedGaps.insert(gap)
            movedRows.insert(row)
            planned.append((rows[row].id, low + (high - low) / 2))
        }
    }

    func move() throws {
        guard next < planned.count else { throw BenchmarkError("no planned move left") }
        let (id, position) = planned[next]
        next += 1
        try connection.execute(script: "BEGIN")
        let changed = try connection.forEachRow(
            prepared: "UPDATE \(table) SET position = $1 WHERE id = $2", [String(position), String(id)]
        ) { _ in true }
        try connection.execute(script: "COMMIT")
        guard changed == 1 else { throw BenchmarkError("the UPDATE of row #\(id) changed \(changed) rows") }
    }
}

/// A copy of one list's journal entries, read as they are committed: the journal keeps only the
/// last 1,000 versions of a list, so a long run is read while it goes (a read every 100 ms or
/// so). Versions are committed in order under the list's row lock, so each read finds the next
/// ones; `gap` says when some were pruned before they were read.
final class JournalCopy {
    private let connection: PostgresConnection
    private let listID: Int64
    private var last: Int64
    private(set) var entries: [(version: Int64, changes: String)] = []
    private(set) var gap: String?

    init(connectionString: String, listID: Int64, after version: Int64) throws {
        connection = try PostgresConnection(connectionString: connectionString)
        self.listID = listID
        last = version
    }

    func read() throws {
        try connection.forEachRow(
            prepared: "SELECT version, changes FROM sectionctl.journal WHERE list_id = $1 AND version > $2 ORDER BY version",
            [String(listID), String(last)]
        ) { row in
            let version = row.int64(0)
            if version != last + 1 && gap == nil { gap = "journal versions \(last + 1)…\(version - 1) were pruned before they were read" }
            entries.append((version, row.string(1)))
            last = version
            return true
        }
    }
}

/// The child mode `sectionctl-bench --child-server-mover URI MOVES SEED`: opens its own store on
/// the server, reads the ids of the default list's rows, prints `ready`, waits for a line on
/// stdin, then moves MOVES random rows each after another random row (ids stay valid whatever
/// the other clients do), and prints: moves, failed moves, and the wall-clock times of the first
/// move's start and the last move's end, in nanoseconds.
enum ChildServerMover {
    static let option = "--child-server-mover"

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, let count = Int(arguments[1]), let seed = UInt64(arguments[2]) else {
            Log.progress("usage: sectionctl-bench \(option) URI MOVES SEED")
            return 2
        }
        do {
            let store = try SectionStore(location: .server(connectionString: arguments[0]), server: .postgres)
            let ids = try store.list("default").snapshot().sections.flatMap { $0.rows.map(\.id) }
            guard ids.count >= 2 else { throw BenchmarkError("the list has fewer than 2 rows") }
            var generator = SeededGenerator(seed: seed)
            FileHandle.standardOutput.write(Data("ready\n".utf8))
            guard readLine() != nil else { return 1 }
            var failures = 0
            let started = wallClockNanoseconds()
            for _ in 0..<count {
                let row = ids[Int.random(in: 0..<ids.count, using: &generator)]
                var anchor = row
                while anchor == row { anchor = ids[Int.random(in: 0..<ids.count, using: &generator)] }
                do {
                    try store.list("default").apply(.moveRow(.id(row), to: .after(anchor)))
                } catch {
                    if failures == 0 { Log.progress("sectionctl-bench: client \(seed): move failed: \(error)") }
                    failures += 1
                }
            }
            let ended = wallClockNanoseconds()
            FileHandle.standardOutput.write(Data("\(count) \(failures) \(started) \(ended)\n".utf8))
            return 0
        } catch {
            Log.progress("sectionctl-bench: error: \(error)")
            return 1
        }
    }
}
