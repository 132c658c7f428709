import Foundation
import HTTPServer
import PostgresCluster
import Repository
import RepositoryPostgres
import SyncService
import Synchronization
import Transfer

extension Benchmark {
    /// Scenario 20: replicas syncing through the sync service (docs/replicas.md,
    /// docs/sync-protocol.md). The server is a store served in this process by `SyncService` over
    /// `HTTPServer` on a free loopback port, as `sectionctl serve` serves it: a SQLite file (the
    /// default store of `serve`), and for the parts that need no large list also a database on a
    /// throwaway PostgreSQL cluster. Measured: a sync's cost against the list's size and a large
    /// clone's time and memory; a sync of 1,000 offline edits (its requests, its time against the
    /// same intents applied in-process, and behind 20 ms of latency each way); a local move on a
    /// replica against a plain file; a pull's cost per change; many replicas pushing at once to
    /// one list; and how fast a change reaches an event stream, and what an open stream costs.
    func replicaRows() throws -> [ResultRow] {
        var cluster: ThrowawayCluster?
        if ThrowawayCluster.isAvailable {
            Log.progress("  starting a throwaway cluster: fsync=on, synchronous_commit=on, Unix socket only…")
            cluster = try ThrowawayCluster(durable: true)
            RunningCluster.set(cluster)
        } else {
            Log.progress("  PostgreSQL's server programs are not installed: the SQLite store alone is served")
        }
        defer { RunningCluster.set(nil) }
        return try withScratch("replica") { scratch in
            var rows: [ResultRow] = []
            var parts: [(name: String, body: () throws -> [ResultRow])] = [
                ("sync vs size", { try self.replicaSyncScaleRows(scratch: scratch) }),
                ("1,000 offline edits", { try self.replicaBatchRows(.sqlite, scratch: scratch) }),
                ("local move", { try self.replicaLocalMoveRows(scratch: scratch) }),
                ("pull of K changes", { try self.replicaPullRows(scratch: scratch) }),
                ("replicas at once", { try self.replicaConcurrentRows(.sqlite, scratch: scratch) }),
                ("event stream", { try self.replicaEventStreamRows(scratch: scratch) }),
            ]
            if let cluster {
                parts.insert(("1,000 offline edits, PostgreSQL", { try self.replicaBatchRows(.postgres(cluster), scratch: scratch) }), at: 2)
                parts.insert(("replicas at once, PostgreSQL", { try self.replicaConcurrentRows(.postgres(cluster), scratch: scratch) }), at: 6)
            } else {
                rows.append(.skipped("20. replica: the PostgreSQL store", reason: "PostgreSQL's server programs are not installed"))
            }
            for part in parts {
                Log.progress("  \(part.name)…")
                do {
                    rows += try part.body()
                } catch {
                    rows.append(ResultRow(scenario: "20. replica: \(part.name)", measured: "error: \(error)", ratio: "", target: "", verdict: .fail))
                }
            }
            return rows
        }
    }

    /// A list `default` of one section of `rows` rows in a new store of `kind`, named `name`.
    private func replicaServerStore(_ kind: ReplicaServerKind, rows: Int, name: String, scratch: Scratch) throws -> SectionStore {
        let store: SectionStore
        switch kind {
        case .sqlite:
            store = try SectionStore(path: scratch.file(name + "-server.db"), create: true)
        case .postgres(let cluster):
            store = try SectionStore(location: .server(connectionString: try cluster.newDatabase()), server: .postgres, create: true)
        }
        if rows > 0 {
            Log.progress("    \(name): importing \(Format.count(rows)) rows on the \(kind.label) server…")
            try store.importJSON(Data(NativeDocument(sections: 1, rowsPerSection: rows).json.utf8))
        }
        return store
    }

    /// One random move made on the replica, then `sync()` timed (one request: the push and the
    /// pull), medians of `plan.rounds`, at 1K and at `plan.hugeSection` rows (≤ 1.5×). Also each
    /// list's clone: in this process (timed), and as a `sectionctl clone` process, whose peak
    /// memory is the client's, while this process's peak above its resident size (VmHWM, reset
    /// through /proc/self/clear_refs) is the server's; and an `export` and an `import` processes
    /// of the same list, the clone's yardstick (≤ 2×).
    private func replicaSyncScaleRows(scratch: Scratch) throws -> [ResultRow] {
        var medians: [Int: Double] = [:]
        var clones: [Int: Double] = [:]
        var clientPeaks: [Int: Int] = [:]
        var serverRises: [Int: Int] = [:]
        var processClones: [Int: Double] = [:]
        var exportImport: (export: Double, import: Double)?
        for size in [plan.smallSection, plan.hugeSection] {
            let name = "size-\(size)"
            let server = try replicaServerStore(.sqlite, rows: size, name: name, scratch: scratch)
            let served = try ServedList(server)
            Log.progress("    \(name): cloning…")
            let replicaPath = scratch.file(name + ".db")
            clones[size] = try Measurement.time { try SectionStore.clone(from: served.address(), token: served.token, to: replicaPath) }
            let replica = try SectionStore(path: replicaPath)

            Log.progress("    \(name): cloning in a sectionctl process…")
            let tokenFile = scratch.file(name + ".token-input")
            try Data((served.token + "\n").utf8).write(to: URL(fileURLWithPath: tokenFile))
            let resident = ProcessMemory.resetPeak() ? ProcessMemory.field("VmRSS") : nil
            let outcome = try ChildProcess.run(
                sectionctlPath, ["clone", served.address(), scratch.file(name + "-process.db"), "--token-file", tokenFile],
                errorFile: scratch.file(name + "-clone.err"))
            guard outcome.status == 0 else { throw BenchmarkError("sectionctl clone failed (exit \(outcome.status)): \(outcome.firstErrorLine)") }
            if let resident, let peak = ProcessMemory.field("VmHWM") { serverRises[size] = peak - resident }
            clientPeaks[size] = outcome.peakMemory
            processClones[size] = outcome.seconds
            scratch.removeDatabase(scratch.file(name + "-process.db"))

            if size == plan.hugeSection {
                Log.progress("    \(name): export and import processes…")
                let document = scratch.file(name + ".json")
                let exported = try ChildProcess.timed(
                    sectionctlPath, ["--db", scratch.file(name + "-server.db"), "export"], output: document, errorFile: scratch.file("export.err"))
                let target = scratch.file(name + "-imported.db")
                _ = try ChildProcess.timed(sectionctlPath, ["--db", target, "init"], errorFile: scratch.file("init.err"))
                let imported = try ChildProcess.timed(
                    sectionctlPath, ["--db", target, "import", document], errorFile: scratch.file("import.err"))
                guard exported.status == 0, imported.status == 0 else {
                    throw BenchmarkError("export (exit \(exported.status)) or import (exit \(imported.status)) failed")
                }
                exportImport = (exported.seconds, imported.seconds)
                try? FileManager.default.removeItem(atPath: document)
                scratch.removeDatabase(target)
            }

            Log.progress("    \(name): syncs of one move…")
            var generator = SeededGenerator(seed: 20)
            var samples: [Double] = []
            for round in 0...plan.rounds {
                let (from, to) = randomMove(in: size, using: &generator)
                try replica.list("default").apply(.moveRow(.at(0, from), to: .at(0, to)))
                var report: SyncReport?
                let seconds = try Measurement.time { report = try replica.sync() }
                guard report?.pushed.count == 1 else { throw BenchmarkError("a sync pushed \(report?.pushed.count ?? 0) intents, not 1") }
                if round > 0 { samples.append(seconds) }
            }
            guard try sameRows(replica, server) else { throw BenchmarkError("after the syncs, the replica of \(size) rows differs from the server") }
            medians[size] = Measurement.median(samples)
        }
        let (small, huge) = (plan.smallSection, plan.hugeSection)
        let hugeLabel = Format.shortCount(huge)
        func rise(_ size: Int) -> String { serverRises[size].map { Format.mebibytes($0) } ?? "n/a" }
        var rows: [ResultRow] = [
            .atMost(
                "20. replica: sync of one move, \(hugeLabel) vs \(Format.shortCount(small)) rows",
                measured: "\(Format.duration(medians[huge]!)) vs \(Format.duration(medians[small]!)) (one request: push and pull)",
                ratio: medians[huge]! / medians[small]!, limit: 1.5, suffix: "x"),
            .atMost(
                "20. replica: peak memory of a \(hugeLabel)-row clone, the sectionctl clone process",
                measured: "\(Format.mebibytes(clientPeaks[huge]!)) (\(Format.mebibytes(clientPeaks[small]!)) at \(Format.shortCount(small))); "
                    + "the serving process rose \(rise(huge)) above its resident size meanwhile (\(rise(small)) at \(Format.shortCount(small)))",
                ratio: Double(clientPeaks[huge]!) / 1_048_576, limit: 64, suffix: " MiB"),
        ]
        if let exportImport {
            let yardstick = exportImport.export + exportImport.import
            rows.append(
                .atMost(
                    "20. replica: a \(hugeLabel)-row clone vs an export and an import of it",
                    measured: "clone process \(Format.duration(processClones[huge]!)) (in this process \(Format.duration(clones[huge]!))) vs "
                        + "export \(Format.duration(exportImport.export)) + import \(Format.duration(exportImport.import)) processes",
                    ratio: processClones[huge]! / yardstick, limit: 2, suffix: "x"))
        }
        return rows
    }

    /// 1,000 random moves made offline on a replica of 10K rows, then one `sync()`: the requests
    /// the service answered for it (target ≤ 2) and its time against the same 1,000 intents (the
    /// sync's report gives them) applied in this process on the server's store with
    /// `ListHandle.apply(_:)`, each in its own transaction as an app's would be (≤ 1.5×), medians
    /// of a few rounds; then the same sync by a replica cloned through a proxy that adds 20 ms
    /// each way, and through the proxy without a delay.
    private func replicaBatchRows(_ kind: ReplicaServerKind, scratch: Scratch) throws -> [ResultRow] {
        let size = 10_000
        let edits = 1_000
        let name = "batch-\(kind.label)"
        let server = try replicaServerStore(kind, rows: size, name: name, scratch: scratch)
        let served = try ServedList(server)
        let replica = try served.clone(to: scratch.file(name + ".db"))
        var generator = SeededGenerator(seed: 21)
        func editOffline(_ replica: SectionStore) throws {
            for _ in 0..<edits {
                let (from, to) = randomMove(in: size, using: &generator)
                try replica.list("default").apply(.moveRow(.at(0, from), to: .at(0, to)))
            }
        }
        func timedSync(_ replica: SectionStore) throws -> (seconds: Double, requests: Int, intents: [Intent]) {
            served.resetRequests()
            var report: SyncReport?
            let seconds = try Measurement.time { report = try replica.sync() }
            guard let report, report.pushed.count == edits else {
                throw BenchmarkError("a sync pushed \(report?.pushed.count ?? 0) intents, not \(edits)")
            }
            return (seconds, served.requests, report.pushed.map(\.intent))
        }
        try replica.sync()
        let rounds = plan.rounds >= 15 ? 5 : 3
        var syncs: [Double] = []
        var applies: [Double] = []
        var requests: [Int] = []
        for round in 1...rounds {
            Log.progress("    \(name): round \(round) of \(rounds)…")
            try editOffline(replica)
            let sync = try timedSync(replica)
            syncs.append(sync.seconds)
            requests.append(sync.requests)
            let list = server.list("default")
            applies.append(try Measurement.time { for intent in sync.intents { try list.apply(intent) } })
            try replica.sync()
        }
        guard try sameRows(replica, server) else { throw BenchmarkError("after the syncs, the replica differs from the server") }

        Log.progress("    \(name): through a proxy, 20 ms each way and none…")
        let proxy = try SocketProxy(forwardingTCPPort: served.port)
        let far = try served.clone(to: scratch.file(name + "-far.db"), port: proxy.tcpPort)
        try far.sync()
        proxy.delay = .milliseconds(20)
        try editOffline(far)
        let delayed = try timedSync(far)
        proxy.delay = .zero
        try editOffline(far)
        let near = try timedSync(far)
        guard try sameRows(far, server) else { throw BenchmarkError("after the syncs, the replica behind the proxy differs from the server") }

        let sync = Measurement.median(syncs)
        let apply = Measurement.median(applies)
        let label = kind == .sqlite ? "" : " (PostgreSQL store)"
        return [
            .atMost(
                "20. replica: requests of a sync of 1,000 offline moves\(label)",
                measured: "\(requests.max()!) (counted by the service's handler, in each of \(rounds) rounds); behind 20 ms each way the sync "
                    + "took \(Format.duration(delayed.seconds)) (\(delayed.requests) requests), \(Format.duration(near.seconds)) through the proxy without",
                ratio: Double(requests.max()!), limit: 2),
            .atMost(
                "20. replica: a sync of 1,000 offline moves vs the same intents applied in-process\(label), 10K rows",
                measured: "\(Format.duration(sync)) vs \(Format.duration(apply)) (1,000 `apply(_:)`, a transaction each; the service's is one), "
                    + "medians of \(rounds)",
                ratio: sync / apply, limit: 1.5, suffix: "x"),
        ]
    }

    /// K random moves made on the server, then one `sync()` of the replica, which pulls them, on
    /// a 100K-row list: the time per change at K = 800 against K = 80 (≤ 1.5×: a pull costs what
    /// changed, O(K)), medians of 5 pulls of each, alternated. The replica synced before (a
    /// first, empty sync).
    private func replicaPullRows(scratch: Scratch) throws -> [ResultRow] {
        let size = 100_000
        let server = try replicaServerStore(.sqlite, rows: size, name: "pull", scratch: scratch)
        let served = try ServedList(server)
        let replica = try served.clone(to: scratch.file("pull.db"))
        try replica.sync()
        var generator = SeededGenerator(seed: 23)
        var pulls: [Int: [Double]] = [:]
        let list = server.list("default")
        Log.progress("    pull: 80 and 800 moves on the server, 5 times each…")
        for _ in 0..<5 {
            for changes in [80, 800] {
                for _ in 0..<changes {
                    let (from, to) = randomMove(in: size, using: &generator)
                    try list.apply(.moveRow(.at(0, from), to: .at(0, to)))
                }
                var report: SyncReport?
                pulls[changes, default: []].append(try Measurement.time { report = try replica.sync() })
                guard report?.change.committed == true, report?.pushed.isEmpty == true else {
                    throw BenchmarkError("a pull of \(changes) changes changed nothing")
                }
            }
        }
        guard try sameRows(replica, server) else { throw BenchmarkError("after the pulls, the replica differs from the server") }
        let seconds = pulls.mapValues { Measurement.median($0) }
        let (few, many) = (seconds[80]! / 80, seconds[800]! / 800)
        return [
            .atMost(
                "20. replica: a pull of 800 server changes vs 80, per change, 100K rows",
                measured: "\(Format.duration(many)) vs \(Format.duration(few)) a change (the whole pull \(Format.duration(seconds[800]!)) vs "
                    + "\(Format.duration(seconds[80]!)), medians of 5)",
                ratio: many / few, limit: 1.5, suffix: "x")
        ]
    }

    /// Random moves in a section of 10K rows on a replica (each also recorded as an intent) and
    /// on an ordinary file of the same rows, blocks alternated round by round (≤ 1.5×).
    private func replicaLocalMoveRows(scratch: Scratch) throws -> [ResultRow] {
        let size = 10_000
        let server = try replicaServerStore(.sqlite, rows: size, name: "local", scratch: scratch)
        let served = try ServedList(server)
        let replica = try served.clone(to: scratch.file("local.db"))
        let plain = try SectionStore(path: scratch.file("plain.db"), create: true)
        try plain.importJSON(Data(NativeDocument(sections: 1, rowsPerSection: size).json.utf8))
        var generator = SeededGenerator(seed: 22)
        let edits: [Edit] = (0..<1_000).map { _ in
            let (from, to) = randomMove(in: size, using: &generator)
            return .moveRow(.at(0, from), to: .at(0, to))
        }
        let medians = try Rounds.medianPerMove(
            [
                (RepositoryMover(store: replica, cycling: edits), plan.movesPerRound),
                (RepositoryMover(store: plain, cycling: edits), plan.movesPerRound),
            ],
            rounds: plan.rounds)
        let pending = try replica.replicaStatus().pendingIntents
        return [
            .atMost(
                "20. replica: a local move on a replica vs on a plain file, 10K rows",
                measured: "replica \(Format.duration(medians[0])), file \(Format.duration(medians[1])) (\(Format.count(pending)) intents recorded)",
                ratio: medians[0] / medians[1], limit: 1.5, suffix: "x")
        ]
    }

    /// `plan`-sized crowd of replicas (20 quick, 100 otherwise) of one 1K-row list, each with 100
    /// intents made offline (50 adds of rows titled after the replica, 50 moves), all syncing at
    /// once, each from a thread of its own released together: no row lost, none doubled, and
    /// every replica the same as the server after one more sync each. The throughput (intents a
    /// second, from the release to the last sync's end) against the same intents applied in
    /// this process on the server's store, one `apply(_:)` each (target ≥ 50 %). The replicas run
    /// in this process, on the same cores as the service, and each pulls the others' changes
    /// (the last to be served, 99 pushes' worth), so that wall-clock figure is mostly theirs; the
    /// service's own cost is its handlers' CPU time for those syncs, set against the CPU time of
    /// the in-process applies.
    private func replicaConcurrentRows(_ kind: ReplicaServerKind, scratch: Scratch) throws -> [ResultRow] {
        let size = 1_000
        let count = plan.rounds >= 15 ? 100 : 20
        let intentsEach = 100
        let name = "crowd-\(kind.label)"
        let server = try replicaServerStore(kind, rows: size, name: name, scratch: scratch)
        let served = try ServedList(server)
        Log.progress("    \(name): cloning \(count) replicas and editing them offline…")
        var replicas: [SectionStore] = []
        var generator = SeededGenerator(seed: 24)
        for index in 0..<count {
            let replica = try served.clone(to: scratch.file("\(name)-\(index).db"))
            let list = replica.list("default")
            for step in 0..<intentsEach {
                let rows = size + step / 2
                if step % 2 == 0 {
                    try list.apply(.addRow(.text("r\(index).\(step)"), to: .at(0, Int.random(in: 0...rows, using: &generator))))
                } else {
                    let (from, to) = randomMove(in: rows, using: &generator)
                    try list.apply(.moveRow(.at(0, from), to: .at(0, to)))
                }
            }
            replicas.append(replica)
        }
        Log.progress("    \(name): \(count) syncs at once…")
        let outcomes = ConcurrentSyncs(count: count)
        let start = DispatchSemaphore(value: 0)
        let finished = DispatchGroup()
        for (index, replica) in replicas.enumerated() {
            finished.enter()
            let thread = Thread {
                start.wait()
                outcomes.record(index, Self.syncRetryingWhileBusy(replica))
                finished.leave()
            }
            thread.stackSize = 1 << 20
            thread.start()
        }
        served.resetRequests()
        let started = ContinuousClock.now
        for _ in 0..<count { start.signal() }
        finished.wait()
        let wall = Measurement.seconds(ContinuousClock.now - started)
        let serviceCPU = served.requestCPU
        let results = outcomes.all()
        var intents: [Intent] = []
        var retries = 0
        for (index, result) in results.enumerated() {
            switch result {
            case .success(let (report, tries)):
                guard report.pushed.count == intentsEach else { throw BenchmarkError("replica \(index) pushed \(report.pushed.count) intents") }
                intents += report.pushed.map(\.intent)
                retries += tries
            case .failure(let error): throw BenchmarkError("replica \(index)'s sync failed: \(error)")
            case nil: throw BenchmarkError("replica \(index) did not sync")
            }
        }

        Log.progress("    \(name): checking…")
        let titles = try server.list("default").snapshot().sections[0].rows.map(\.content.title)
        var seen: [String: Int] = [:]
        for title in titles where title.hasPrefix("r") { seen[title, default: 0] += 1 }
        let expected = Set((0..<count).flatMap { index in stride(from: 0, to: intentsEach, by: 2).map { "r\(index).\($0)" } })
        let lost = expected.filter { seen[$0] == nil }.count
        let doubled = seen.values.reduce(0) { $0 + max(0, $1 - 1) }
        let unknown = Set(seen.keys).subtracting(expected).count
        var diverged = 0
        for replica in replicas {
            try replica.sync()
            if try !sameRows(replica, server) { diverged += 1 }
        }

        Log.progress("    \(name): the same \(intents.count) intents applied in-process…")
        let list = server.list("default")
        let appliedCPU = Measurement.threadCPU()
        let applied = try Measurement.time { for intent in intents { try list.apply(intent) } }
        let appliedCPUTime = Measurement.threadCPU() - appliedCPU
        let throughput = Double(intents.count) / wall
        let baseline = Double(intents.count) / applied
        let label = kind == .sqlite ? "" : " (PostgreSQL store)"
        let correct = lost == 0 && doubled == 0 && unknown == 0 && diverged == 0
        return [
            ResultRow(
                scenario: "20. replica: \(count) replicas × \(intentsEach) intents synced at once\(label): lost, doubled, diverged",
                measured: "\(lost) lost, \(doubled) doubled, \(unknown) unknown of \(expected.count) added rows; \(diverged) of \(count) replicas "
                    + "differ from the server after one more sync each; \(retries) syncs retried after a 503",
                ratio: "\(lost + doubled + unknown + diverged)", target: "0", verdict: correct ? .pass : .fail),
            .atLeast(
                "20. replica: throughput of those syncs vs the same intents applied in-process\(label)",
                measured:
                    "\(Format.rate(throughput)) intents (\(Format.count(intents.count)) in \(Format.duration(wall))) vs \(Format.rate(baseline)) "
                    + "(a transaction each, \(Format.duration(applied)))",
                ratio: throughput / baseline * 100, limit: 50, suffix: "%"),
            .atLeast(
                "20. replica: the same intents per second of the service's own CPU vs of in-process apply's\(label)",
                measured:
                    "the service's handlers \(Format.duration(serviceCPU)) of CPU for the \(Format.count(intents.count)) intents and every "
                    + "replica's pull (the replicas, in this process too, pulling each other's changes, took the rest of the cores) vs "
                    + "\(Format.duration(appliedCPUTime)) applying them here",
                ratio: appliedCPUTime / serviceCPU * 100, limit: 50, suffix: "%"),
        ]
    }

    /// Syncs `replica`, again after a second while the service answers 503 (busy), up to a
    /// minute: the report and how many tries were refused.
    private static func syncRetryingWhileBusy(_ replica: SectionStore) -> Result<(SyncReport, Int), any Error> {
        var refused = 0
        while true {
            do {
                return .success((try replica.sync(), refused))
            } catch RepositoryError.unavailable where refused < 60 {
                // The service answers 503 past the syncs it takes at a time: try again, as `sync --watch` does.
                refused += 1
                Thread.sleep(forTimeInterval: 1)
            } catch {
                return .failure(error)
            }
        }
    }

    /// A watcher on the list's event stream (`GET /lists/default/events`, raw HTTP on a socket)
    /// and 50 moves made in this process on the served store, one at a time:
    /// the time from the start of each `apply` to the stream's `id:` line of its version (median
    /// and worst of 50; target: median ≤ 100 ms). Then 100 and 1,000 streams open at once, each
    /// having had its answer's head and a first event (the service sends the head with the first
    /// event): this process's resident memory for each (the service's and the sockets'
    /// user-space cost; the client side keeps nothing but the socket).
    private func replicaEventStreamRows(scratch: Scratch) throws -> [ResultRow] {
        let server = try replicaServerStore(.sqlite, rows: plan.smallSection, name: "events", scratch: scratch)
        // One token opens the 1,000 streams: its request allowance is lifted.
        let served = try ServedList(server, maxConnections: 1_200, requestBurst: .greatestFiniteMagnitude)
        var generator = SeededGenerator(seed: 25)
        let list = server.list("default")
        // The service sends a stream's head with its first event: a stream that resumes from the
        // version before the last has one at once.
        let (first, second) = randomMove(in: plan.smallSection, using: &generator)
        let now = try list.apply(.moveRow(.at(0, first), to: .at(0, second))).version
        let path = "/lists/default/events?since=\(now.previous)"
        func open() throws -> EventStreamClient {
            let stream = try EventStreamClient(port: served.port, path: path, token: served.token)
            try stream.readHead()
            try stream.waitForEvent(atLeast: now)
            return stream
        }
        let watcher = try open()
        var latencies: [Double] = []
        for _ in 0..<50 {
            let (from, to) = randomMove(in: plan.smallSection, using: &generator)
            let started = ContinuousClock.now
            let version = try list.apply(.moveRow(.at(0, from), to: .at(0, to))).version
            try watcher.waitForEvent(atLeast: version)
            latencies.append(Measurement.seconds(ContinuousClock.now - started))
        }
        watcher.close()

        Log.progress("    events: 1,000 streams open…")
        var streams: [EventStreamClient] = []
        defer { for stream in streams { stream.close() } }
        var resident: [Int: Int] = [:]
        resident[0] = ProcessMemory.field("VmRSS") ?? 0
        for count in [100, 1_000] {
            while streams.count < count {
                streams.append(try open())
            }
            resident[count] = ProcessMemory.field("VmRSS") ?? 0
        }
        let perStream = Double(resident[1_000]! - resident[0]!) / 1_000
        let perStreamFirst = Double(resident[100]! - resident[0]!) / 100
        let perStreamNext = Double(resident[1_000]! - resident[100]!) / 900
        let median = Measurement.median(latencies)
        return [
            .atMost(
                "20. replica: a change reaching an event stream (median of 50)",
                measured: "\(Format.duration(median)) median, \(Format.duration(latencies.max()!)) worst, from the start of an in-process `apply` "
                    + "(its commit included) to the stream's id line",
                ratio: median * 1_000, limit: 100, suffix: " ms"),
            .info(
                "20. replica: memory of an open event stream, 1,000 open",
                measured: "\(Format.significant(perStream / 1_024)) KiB a stream (\(Format.mebibytes(resident[1_000]! - resident[0]!)) for 1,000; "
                    + "the first 100 \(Format.significant(perStreamFirst / 1_024)) KiB each, the next 900 \(Format.significant(perStreamNext / 1_024)) KiB)",
                ratio: "\(Format.significant(perStream / 1_024)) KiB"),
        ]
    }
}

/// The two stores the sync service serves in scenario 20.
enum ReplicaServerKind: Equatable {
    case sqlite
    case postgres(ThrowawayCluster)

    var label: String {
        switch self {
        case .sqlite: return "sqlite"
        case .postgres: return "postgres"
        }
    }

    static func == (lhs: ReplicaServerKind, rhs: ReplicaServerKind) -> Bool { lhs.label == rhs.label }
}

/// A store served by the sync service on a free loopback port, as `sectionctl serve` serves it,
/// for as long as the value lives, with an edit token of its list `default` and a count of the
/// requests the service answered.
final class ServedList: Sendable {
    let store: SectionStore
    let token: String
    private let server: HTTPServer
    private let answered: RequestCount

    /// The requests answered, counted in the handler, and the CPU time the handler's threads
    /// spent answering them (nanoseconds).
    private final class RequestCount: Sendable {
        let value = Atomic<Int>(0)
        let cpu = Atomic<Int>(0)
    }

    init(_ store: SectionStore, maxConnections: Int = HTTPLimits().maxConnections, requestBurst: Double = SyncServiceLimits().requestBurst) throws {
        self.store = store
        var limits = SyncServiceLimits()
        limits.http.maxConnections = maxConnections
        limits.requestBurst = requestBurst
        let service = SyncService(store: store, limits: limits)
        let answered = RequestCount()
        self.answered = answered
        server = try HTTPServer(host: "127.0.0.1", port: 0, limits: limits.http) { request in
            answered.value.add(1, ordering: .relaxed)
            let started = Measurement.threadCPU()
            defer { answered.cpu.add(Int((Measurement.threadCPU() - started) * 1e9), ordering: .relaxed) }
            return service.respond(to: request)
        }
        token = try Tokens(store: store).create(list: SectionStore.defaultList, role: .edit, expiresAfter: nil).token
    }

    deinit {
        server.stop()
    }

    /// The port the service listens on.
    var port: UInt16 { server.port }

    /// The address of the list `default`, on `port` (a proxy's) or the service's own.
    func address(port: UInt16? = nil) -> String { "http://127.0.0.1:\(port ?? server.port)/lists/default" }

    /// A replica of the list `default` at `path`, cloned through `port` (a proxy's) or the
    /// service's own.
    func clone(to path: String, port: UInt16? = nil) throws -> SectionStore {
        try SectionStore.clone(from: address(port: port), token: token, to: path)
        return try SectionStore(path: path)
    }

    /// The requests answered since the last `resetRequests()`.
    var requests: Int { answered.value.load(ordering: .relaxed) }

    /// The CPU time, in seconds, the service's threads spent answering those requests: its own
    /// cost, apart from the clients' in the same process (a PostgreSQL store's server processes
    /// are not counted).
    var requestCPU: Double { Double(answered.cpu.load(ordering: .relaxed)) * 1e-9 }

    func resetRequests() {
        answered.value.store(0, ordering: .relaxed)
        answered.cpu.store(0, ordering: .relaxed)
    }
}

/// What each of many concurrent syncs ended with, filled from their threads.
private final class ConcurrentSyncs: Sendable {
    private let results: Mutex<[Result<(SyncReport, Int), any Error>?]>

    init(count: Int) { results = Mutex(Array(repeating: nil, count: count)) }

    func record(_ index: Int, _ result: Result<(SyncReport, Int), any Error>) {
        results.withLock { $0[index] = result }
    }

    func all() -> [Result<(SyncReport, Int), any Error>?] { results.withLock { $0 } }
}

/// This process's memory figures, from /proc/self (Linux).
enum ProcessMemory {
    /// A field of /proc/self/status in bytes (`VmRSS`, `VmHWM`), nil when it cannot be read.
    static func field(_ name: String) -> Int? {
        guard let status = try? String(contentsOfFile: "/proc/self/status", encoding: .utf8) else { return nil }
        for line in status.split(separator: "\n") where line.hasPrefix(name + ":") {
            let number = line.dropFirst(name.count + 1).trimmingCharacters(in: .whitespaces).split(separator: " ").first
            return number.flatMap { Int($0) }.map { $0 * 1_024 }
        }
        return nil
    }

    /// Sets the peak resident size (`VmHWM`) back to the resident size now; false when the
    /// kernel does not allow it.
    static func resetPeak() -> Bool {
        let descriptor = open("/proc/self/clear_refs", O_WRONLY)
        guard descriptor >= 0 else { return false }
        defer { _ = close(descriptor) }
        return write(descriptor, "5", 1) == 1
    }
}

/// A raw HTTP/1.0 request for an event stream on a loopback port, read line by line.
final class EventStreamClient {
    private let descriptor: Int32
    private var pending: [UInt8] = []
    /// The largest `id:` read so far.
    private(set) var lastID: Int64 = 0

    init(port: UInt16, path: String, token: String) throws {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw BenchmarkError("cannot open a socket: errno \(errno)") }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else {
            let error = errno
            _ = Glibc.close(descriptor)
            throw BenchmarkError("cannot connect to port \(port): errno \(error)")
        }
        let request = Array("GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nAuthorization: Bearer \(token)\r\nAccept: text/event-stream\r\n\r\n".utf8)
        guard send(descriptor, request, request.count, Int32(MSG_NOSIGNAL)) == request.count else {
            _ = Glibc.close(descriptor)
            throw BenchmarkError("cannot send the stream's request")
        }
    }

    /// Reads the answer's head and expects status 200.
    func readHead() throws {
        let status = try line()
        guard status.contains(" 200") else { throw BenchmarkError("the event stream answered \(status)") }
        while try !line().isEmpty {}
    }

    /// Reads until an `id:` line of `version` or later.
    func waitForEvent(atLeast version: ListVersion) throws {
        while lastID < version.rawValue {
            let text = try line()
            if text.hasPrefix("id:"), let id = Int64(text.dropFirst(3).trimmingCharacters(in: .whitespaces)) { lastID = max(lastID, id) }
        }
    }

    func close() { _ = Glibc.close(descriptor) }

    /// The next line, without its line end; a silence of 10 s is an error (a guard against a hang).
    private func line() throws -> String {
        while true {
            if let end = pending.firstIndex(of: UInt8(ascii: "\n")) {
                var bytes = pending[..<end]
                if bytes.last == UInt8(ascii: "\r") { bytes = bytes.dropLast() }
                let text = String(decoding: bytes, as: UTF8.self)
                pending.removeSubrange(...end)
                return text
            }
            var poller = pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)
            guard poll(&poller, 1, 10_000) == 1 else { throw BenchmarkError("the event stream was silent for 10 s") }
            var buffer = [UInt8](repeating: 0, count: 4_096)
            let count = recv(descriptor, &buffer, buffer.count, 0)
            guard count > 0 else { throw BenchmarkError("the event stream ended") }
            pending += buffer[..<count]
        }
    }
}

/// Whether two stores' lists `default` hold the same sections and rows, in the same order.
private func sameRows(_ one: SectionStore, _ other: SectionStore) throws -> Bool {
    let (a, b) = (try one.list("default").snapshot(), try other.list("default").snapshot())
    return a.sections.map(\.id) == b.sections.map(\.id) && a.sections.map { $0.rows.map(\.id) } == b.sections.map { $0.rows.map(\.id) }
}

/// A random row index of a section of `size` rows and a different index to move it to.
private func randomMove(in size: Int, using generator: inout SeededGenerator) -> (from: Int, to: Int) {
    let from = Int.random(in: 0..<size, using: &generator)
    var to = Int.random(in: 0..<(size - 1), using: &generator)
    if to >= from { to += 1 }
    return (from, to)
}
