import Foundation
import PostgresCluster
import Repository
import RepositoryPostgres
import Transfer

extension Benchmark {
    /// Scenario 20: replicas (docs/replicas.md). A sync's cost against the list's size (one move
    /// pushed and pulled, 1M rows vs 1K); the round trips a sync of 1,000 offline moves takes,
    /// counted by a proxy between replica and server; a local move on a replica against the
    /// same move on an ordinary file with the same rows; and a pull's cost per change, 800 changes
    /// against 80.
    func replicaRows() throws -> [ResultRow] {
        guard ThrowawayCluster.isAvailable else {
            return [.skipped("20. replica", reason: "PostgreSQL's server programs are not installed")]
        }
        Log.progress("  starting a throwaway cluster: fsync=on, synchronous_commit=on, Unix socket only…")
        let cluster = try ThrowawayCluster(durable: true)
        RunningCluster.set(cluster)
        defer { RunningCluster.set(nil) }
        return try withScratch("replica") { scratch in
            var rows: [ResultRow] = []
            let parts: [(name: String, body: () throws -> [ResultRow])] = [
                ("sync vs size", { try self.replicaSyncScaleRows(cluster, scratch: scratch) }),
                ("round trips", { try self.replicaRoundTripRows(cluster, scratch: scratch) }),
                ("local move", { try self.replicaLocalMoveRows(cluster, scratch: scratch) }),
                ("pull of K changes", { try self.replicaPullRows(cluster, scratch: scratch) }),
            ]
            for part in parts {
                do {
                    rows += try part.body()
                } catch {
                    rows.append(ResultRow(scenario: "20. replica: \(part.name)", measured: "error: \(error)", ratio: "", target: "", verdict: .fail))
                }
            }
            return rows
        }
    }

    /// A server list of one section of `rows` rows, and a replica of it cloned into `scratch`.
    private func serverListAndReplica(_ cluster: ThrowawayCluster, rows: Int, scratch: Scratch, name: String, through host: String? = nil)
        throws -> (server: SectionStore, replica: SectionStore, cloneSeconds: Double)
    {
        let uri = try cluster.newDatabase()
        let server = try SectionStore(location: .server(connectionString: uri), server: .postgres, create: true)
        Log.progress("  \(name): importing \(Format.count(rows)) rows on the server…")
        try server.importJSON(Data(NativeDocument(sections: 1, rowsPerSection: rows).json.utf8))
        var location = StoreLocation.server(connectionString: uri)
        if let host, let database = uri.split(separator: "?").first?.split(separator: "/").last {
            location = .server(connectionString: "postgresql:///\(database)?host=\(host)&user=postgres")
        }
        let path = scratch.path + "/\(name).db"
        Log.progress("  \(name): cloning…")
        let seconds = try Measurement.time { try SectionStore.clone(list: "default", from: location, to: path, server: .postgres) }
        return (server, try SectionStore(path: path, server: .postgres), seconds)
    }

    /// One random move made on the replica, then `sync()` timed (push and pull, connecting
    /// included), medians of `plan.rounds`, at 1K and at `plan.hugeSection` rows (≤ 1.5×).
    private func replicaSyncScaleRows(_ cluster: ThrowawayCluster, scratch: Scratch) throws -> [ResultRow] {
        var medians: [Int: Double] = [:]
        var clones: [Int: Double] = [:]
        for size in [plan.smallSection, plan.hugeSection] {
            let (server, replica, cloneSeconds) = try serverListAndReplica(cluster, rows: size, scratch: scratch, name: "sync-\(size)")
            clones[size] = cloneSeconds
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
            guard try replica.list("default").snapshot().sections[0].rows.map(\.id) == server.list("default").snapshot().sections[0].rows.map(\.id)
            else {
                throw BenchmarkError("after the syncs, the replica of \(size) rows differs from the server")
            }
            medians[size] = Measurement.median(samples)
        }
        let small = medians[plan.smallSection]!
        let large = medians[plan.hugeSection]!
        return [
            .atMost(
                "20. replica: sync of one move, \(Format.shortCount(plan.hugeSection)) vs \(Format.shortCount(plan.smallSection)) rows",
                measured: "\(Format.duration(large)) vs \(Format.duration(small)) (pull and push, on the connection the first sync opened); "
                    + "clone took \(Format.duration(clones[plan.hugeSection]!)) at \(Format.shortCount(plan.hugeSection))",
                ratio: large / small, limit: 1.5, suffix: "x")
        ]
    }

    /// 1,000 random moves made offline on a replica of 10K rows, then one `sync()` through a proxy
    /// that counts the round trips the replica's connections wait for (`SocketProxy.roundTrips`:
    /// each simple query and each Sync of the extended protocol); target: ≤ 4. A first sync of
    /// one move connects; the next ones use the connection it keeps. Then the same sync of 1,000
    /// moves timed with the proxy adding 20 ms each way, and without: what the latency costs.
    private func replicaRoundTripRows(_ cluster: ThrowawayCluster, scratch: Scratch) throws -> [ResultRow] {
        let relay = try SocketProxy(serverDirectory: cluster.directory.url.path)
        let size = 10_000
        let (server, replica, _) = try serverListAndReplica(cluster, rows: size, scratch: scratch, name: "trips", through: relay.directory)
        var generator = SeededGenerator(seed: 21)
        func syncAfterMoves(_ edits: Int) throws -> (trips: Int, seconds: Double) {
            for _ in 0..<edits {
                let (from, to) = randomMove(in: size, using: &generator)
                try replica.list("default").apply(.moveRow(.at(0, from), to: .at(0, to)))
            }
            relay.resetRoundTrips()
            var report: SyncReport?
            let seconds = try Measurement.time { report = try replica.sync() }
            guard report?.pushed.count == edits else { throw BenchmarkError("a sync pushed \(report?.pushed.count ?? 0) intents, not \(edits)") }
            return (relay.roundTrips, seconds)
        }
        let first = try syncAfterMoves(1)
        let thousand = try syncAfterMoves(1_000)
        relay.delay = .milliseconds(20)
        let far = try syncAfterMoves(1_000)
        relay.delay = .zero
        let near = try syncAfterMoves(1_000)
        guard try replica.list("default").snapshot().sections[0].rows.map(\.id) == server.list("default").snapshot().sections[0].rows.map(\.id) else {
            throw BenchmarkError("after the syncs, the replica differs from the server")
        }
        return [
            .atMost(
                "20. replica: round trips of a sync of 1,000 offline moves",
                measured: "\(Format.count(thousand.trips)) round trips, counted by a proxy, on the connection a first sync opened "
                    + "(\(first.trips) for that one, of one move); behind 20 ms each way the sync took \(Format.duration(far.seconds)), "
                    + "\(Format.duration(near.seconds)) without (\(far.trips) and \(near.trips) round trips)",
                ratio: Double(thousand.trips), limit: 4)
        ]
    }

    /// K random moves made on the server, then one `sync()` of the replica, which pulls them, on
    /// a 100K-row list: the time per change at K = 800 against K = 80 (≤ 1.5×: a pull costs what
    /// changed, O(K)). The replica connected before (a first, empty sync).
    private func replicaPullRows(_ cluster: ThrowawayCluster, scratch: Scratch) throws -> [ResultRow] {
        let size = 100_000
        let (server, replica, _) = try serverListAndReplica(cluster, rows: size, scratch: scratch, name: "pull")
        try replica.sync()
        var generator = SeededGenerator(seed: 23)
        var seconds: [Int: Double] = [:]
        let list = server.list("default")
        for changes in [80, 800] {
            Log.progress("  pull: \(changes) moves on the server…")
            for _ in 0..<changes {
                let (from, to) = randomMove(in: size, using: &generator)
                try list.apply(.moveRow(.at(0, from), to: .at(0, to)))
            }
            var report: SyncReport?
            seconds[changes] = try Measurement.time { report = try replica.sync() }
            guard report?.change.committed == true, report?.pushed.isEmpty == true else {
                throw BenchmarkError("a pull of \(changes) changes changed nothing")
            }
        }
        guard try replica.list("default").snapshot().sections[0].rows.map(\.id) == list.snapshot().sections[0].rows.map(\.id) else {
            throw BenchmarkError("after the pulls, the replica differs from the server")
        }
        let (few, many) = (seconds[80]! / 80, seconds[800]! / 800)
        return [
            .atMost(
                "20. replica: a pull of 800 server changes vs 80, per change, 100K rows",
                measured: "\(Format.duration(many)) vs \(Format.duration(few)) a change (the whole pull \(Format.duration(seconds[800]!)) vs "
                    + "\(Format.duration(seconds[80]!)))",
                ratio: many / few, limit: 1.5, suffix: "x")
        ]
    }

    /// Random moves in a section of 10K rows on a replica (each also recorded as an intent) and
    /// on an ordinary file of the same rows, blocks alternated round by round (≤ 1.5×).
    private func replicaLocalMoveRows(_ cluster: ThrowawayCluster, scratch: Scratch) throws -> [ResultRow] {
        let size = 10_000
        let (_, replica, _) = try serverListAndReplica(cluster, rows: size, scratch: scratch, name: "local", through: nil)
        let plain = try SectionStore(path: scratch.path + "/plain.db", create: true)
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
                "20. replica: a local move on a replica vs on a plain file, \(Format.shortCount(size)) rows",
                measured: "replica \(Format.duration(medians[0])), file \(Format.duration(medians[1])) (\(Format.count(pending)) intents recorded)",
                ratio: medians[0] / medians[1], limit: 1.5, suffix: "x")
        ]
    }
}

/// A random row index of a section of `size` rows and a different index to move it to.
private func randomMove(in size: Int, using generator: inout SeededGenerator) -> (from: Int, to: Int) {
    let from = Int.random(in: 0..<size, using: &generator)
    var to = Int.random(in: 0..<(size - 1), using: &generator)
    if to >= from { to += 1 }
    return (from, to)
}
