import Foundation
import PostgresCluster
import Repository
import Synchronization
import Transfer

#if canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#elseif canImport(Darwin)
import Darwin
#endif

extension Benchmark {
    /// Scenario 20: replicas (docs/replicas.md). A sync's cost against the list's size (one move
    /// pushed and pulled, 1M rows vs 1K); the round trips a sync of 1,000 offline moves takes,
    /// counted by a relay between replica and server; and a local move on a replica against the
    /// same move on an ordinary file with the same rows.
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
        let server = try SectionStore(location: .server(connectionString: uri), create: true)
        Log.progress("  \(name): importing \(Format.count(rows)) rows on the server…")
        try server.importJSON(Data(NativeDocument(sections: 1, rowsPerSection: rows).json.utf8))
        var location = StoreLocation.server(connectionString: uri)
        if let host, let database = uri.split(separator: "?").first?.split(separator: "/").last {
            location = .server(connectionString: "postgresql:///\(database)?host=\(host)&user=postgres")
        }
        let path = scratch.path + "/\(name).db"
        Log.progress("  \(name): cloning…")
        let seconds = try Measurement.time { try SectionStore.clone(list: "default", from: location, to: path) }
        return (server, try SectionStore(path: path), seconds)
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
                let from = Int.random(in: 0..<size, using: &generator)
                var to = Int.random(in: 0..<(size - 1), using: &generator)
                if to >= from { to += 1 }
                try replica.list("default").apply(.moveRow(.at(0, from), to: .at(0, to)))
                var report: SyncReport?
                let seconds = try Measurement.time { report = try replica.sync() }
                guard report?.pushed.count == 1 else { throw BenchmarkError("a sync pushed \(report?.pushed.count ?? 0) intents, not 1") }
                if round > 0 { samples.append(seconds) }
            }
            guard try replica.list("default").snapshot().sections[0].rows.map(\.id) == server.list("default").snapshot().sections[0].rows.map(\.id) else {
                throw BenchmarkError("after the syncs, the replica of \(size) rows differs from the server")
            }
            medians[size] = Measurement.median(samples)
        }
        let small = medians[plan.smallSection]!
        let large = medians[plan.hugeSection]!
        return [
            .atMost(
                "20. replica: sync of one move, \(Format.shortCount(plan.hugeSection)) vs \(Format.shortCount(plan.smallSection)) rows",
                measured: "\(Format.duration(large)) vs \(Format.duration(small)) (push and pull, connecting included); "
                    + "clone took \(Format.duration(clones[plan.hugeSection]!)) at \(Format.shortCount(plan.hugeSection))",
                ratio: large / small, limit: 1.5, suffix: "x"),
        ]
    }

    /// 1,000 random moves made offline on a replica of 10K rows, then one `sync()` through a relay
    /// that counts the round trips the replica's connections wait for (each simple query and each
    /// Sync of the extended protocol); target: ≤ 4.
    private func replicaRoundTripRows(_ cluster: ThrowawayCluster, scratch: Scratch) throws -> [ResultRow] {
        let relay = try CountingRelay(serverDirectory: cluster.directory.url.path)
        defer { relay.stop() }
        let size = 10_000
        let (server, replica, _) = try serverListAndReplica(cluster, rows: size, scratch: scratch, name: "trips", through: relay.directory)
        var generator = SeededGenerator(seed: 21)
        var counts: [Int: Int] = [:]
        for edits in [1, 1_000] {
            for _ in 0..<edits {
                let from = Int.random(in: 0..<size, using: &generator)
                var to = Int.random(in: 0..<(size - 1), using: &generator)
                if to >= from { to += 1 }
                try replica.list("default").apply(.moveRow(.at(0, from), to: .at(0, to)))
            }
            relay.reset()
            let report = try replica.sync()
            guard report.pushed.count == edits else { throw BenchmarkError("a sync pushed \(report.pushed.count) intents, not \(edits)") }
            counts[edits] = relay.roundTrips
        }
        guard try replica.list("default").snapshot().sections[0].rows.map(\.id) == server.list("default").snapshot().sections[0].rows.map(\.id) else {
            throw BenchmarkError("after the syncs, the replica differs from the server")
        }
        let thousand = counts[1_000]!
        return [
            .atMost(
                "20. replica: round trips of a sync of 1,000 offline moves",
                measured: "\(Format.count(thousand)) round trips (\(counts[1]!) for a sync of one move), counted by a relay; "
                    + "each intent is resolved and written with an edit's own statements",
                ratio: Double(thousand), limit: 4),
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
            let from = Int.random(in: 0..<size, using: &generator)
            var to = Int.random(in: 0..<(size - 1), using: &generator)
            if to >= from { to += 1 }
            return .moveRow(.at(0, from), to: .at(0, to))
        }
        let medians = try Rounds.medianPerMove(
            [(RepositoryMover(store: replica, cycling: edits), plan.movesPerRound), (RepositoryMover(store: plain, cycling: edits), plan.movesPerRound)],
            rounds: plan.rounds)
        let pending = try replica.replicaStatus().pendingIntents
        return [
            .atMost(
                "20. replica: a local move on a replica vs on a plain file, \(Format.shortCount(size)) rows",
                measured: "replica \(Format.duration(medians[0])), file \(Format.duration(medians[1])) (\(Format.count(pending)) intents recorded)",
                ratio: medians[0] / medians[1], limit: 1.5, suffix: "x"),
        ]
    }
}

/// A Unix-socket relay between PostgreSQL clients and a server that counts the round trips the
/// clients wait for: each simple query ('Q') and each Sync ('S') of the extended protocol, which
/// is what libpq sends once per `PQexec`/`PQexecParams` before it waits for the answer.
final class CountingRelay: Sendable {
    /// The directory to give libpq as `host`.
    let directory: String
    private let listener: Int32
    private let upstream: String
    private let count = Atomic<Int>(0)
    private let stopped = Atomic<Bool>(false)

    init(serverDirectory: String, port: Int = 5432) throws {
        let name = ".s.PGSQL.\(port)"
        directory = FileManager.default.temporaryDirectory.appending(path: "sectionctl-relay-\(UUID().uuidString.prefix(8))").path
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        upstream = serverDirectory + "/" + name
        let listening = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        var address = Self.address(directory + "/" + name)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(listening, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
        guard bound == 0, listen(listening, 16) == 0 else {
            close(listening)
            throw BenchmarkError("cannot listen at \(directory): errno \(errno)")
        }
        listener = listening
        Thread { [self] in acceptLoop() }.start()
    }

    /// Round trips counted since the last `reset()`.
    var roundTrips: Int { count.load(ordering: .relaxed) }

    func reset() { count.store(0, ordering: .relaxed) }

    func stop() {
        stopped.store(true, ordering: .relaxed)
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        try? FileManager.default.removeItem(atPath: directory)
    }

    private static func address(_ path: String) -> sockaddr_un {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { buffer in
            let bytes = Array(path.utf8.prefix(buffer.count - 1))
            buffer.copyBytes(from: bytes)
            buffer[bytes.count] = 0
        }
        return address
    }

    private func acceptLoop() {
        while !stopped.load(ordering: .relaxed) {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            let server = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
            var address = Self.address(upstream)
            let connected = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(server, $0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
            }
            guard connected == 0 else {
                close(client)
                close(server)
                continue
            }
            Thread { [self] in pump(from: client, to: server, counting: true) }.start()
            Thread { [self] in pump(from: server, to: client, counting: false) }.start()
        }
    }

    /// Copies bytes until either side closes; on the client's side, reads the frontend
    /// messages' framing (a startup message without a type byte, then type + length) to count.
    private func pump(from source: Int32, to destination: Int32, counting: Bool) {
        var buffer = [UInt8](repeating: 0, count: 65_536)
        var pending: [UInt8] = []
        var startup = true
        while true {
            let read = buffer.withUnsafeMutableBytes { recv(source, $0.baseAddress, $0.count, 0) }
            if read <= 0 { break }
            var sent = 0
            while sent < read {
                let written = buffer[sent..<read].withUnsafeBytes { send(destination, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if written <= 0 { break }
                sent += written
            }
            guard counting else { continue }
            pending.append(contentsOf: buffer[0..<read])
            while true {
                let header = startup ? 4 : 5
                guard pending.count >= header else { break }
                let lengthAt = startup ? 0 : 1
                let length = pending[lengthAt..<lengthAt + 4].reduce(0) { $0 << 8 | Int($1) }
                let total = (startup ? 0 : 1) + length
                guard length >= 4, pending.count >= total else { break }
                if !startup && (pending[0] == UInt8(ascii: "Q") || pending[0] == UInt8(ascii: "S")) {
                    count.add(1, ordering: .relaxed)
                }
                startup = false
                pending.removeFirst(total)
            }
        }
        shutdown(source, Int32(SHUT_RDWR))
        shutdown(destination, Int32(SHUT_RDWR))
        close(source)
    }
}
