import Foundation
import Repository
import RepositoryPostgres

/// The child mode `sectionctl-bench --child-writer DB COUNT MILLISECONDS`: adds COUNT sections to
/// the default list of DB (a file, or a `postgresql://` URI), one committed change every
/// MILLISECONDS (give or take a random third), each titled with the wall-clock time just before
/// its commit, in nanoseconds.
enum ChildWriter {
    static let option = "--child-writer"

    static func run(_ arguments: [String]) -> Int32 {
        guard arguments.count == 3, let count = Int(arguments[1]), let interval = Double(arguments[2]) else {
            Log.progress("usage: sectionctl-bench \(option) DATABASE COUNT MILLISECONDS")
            return 2
        }
        do {
            let store = try SectionStore(location: StoreLocation(arguments[0]), server: .postgres)
            for _ in 0..<count {
                Thread.sleep(forTimeInterval: interval / 1000 * Double.random(in: 0.67...1.33))
                try store.list("default").apply(.addSection(title: String(wallClockNanoseconds())))
            }
            return 0
        } catch {
            Log.progress("sectionctl-bench: error: \(error)")
            return 1
        }
    }
}

func wallClockNanoseconds() -> UInt64 {
    var now = timespec()
    clock_gettime(CLOCK_REALTIME, &now)
    return UInt64(now.tv_sec) * 1_000_000_000 + UInt64(now.tv_nsec)
}

/// The process's own CPU time (user + system), in seconds.
func processCPUSeconds() -> Double {
    var usage = rusage()
    getrusage(__rusage_who_t(RUSAGE_SELF.rawValue), &usage)
    func seconds(_ time: timeval) -> Double { Double(time.tv_sec) + Double(time.tv_usec) / 1_000_000 }
    return seconds(usage.ru_utime) + seconds(usage.ru_stime)
}

extension Benchmark {
    /// Scenario 8: an observer sees a change committed by another process within 250 ms (median
    /// ≤ 100 ms), and an idle observer uses < 1 % of a core (§9, change delivery).
    func observeRows() throws -> [ResultRow] {
        let plan = self.plan
        return try withScratch("observe") { scratch in
            let path = scratch.file("observe.db")
            let store = try SectionStore(path: path, create: true)

            // Idle: the library's feed (its own thread and connection) on a list nobody changes,
            // iterated by a task that waits for an update, for a few seconds.
            let idleSeconds = plan.idleObserverSeconds
            let idleFeed = store.list("default").updates()
            let idleTask = Task { for try await _ in idleFeed {} }
            let cpuBefore = processCPUSeconds()
            let wallBefore = ContinuousClock.now
            Thread.sleep(forTimeInterval: Double(idleSeconds))
            let idleShare = (processCPUSeconds() - cpuBefore) / Measurement.seconds(ContinuousClock.now - wallBefore)
            idleTask.cancel()

            // Latency: another process commits; this one notices through SectionStore.updates.
            let count = plan.observedChanges
            let writer = Process()
            writer.executableURL = URL(fileURLWithPath: ChildProcess.ownPath)
            writer.arguments = [ChildWriter.option, path, String(count), "60"]
            let box = LatencyBox()
            let stream = store.list("default").updates()
            let observer = Task {
                var latencies: [Double] = []
                for try await update in stream {
                    let arrived = wallClockNanoseconds()
                    guard let changeset = update.changeset, let index = changeset.insertedSections.first else { continue }
                    let title = try await store.list("default").async.outline().sections[index].title
                    if let committed = UInt64(title) { latencies.append(Double(arrived &- committed) / 1e9) }
                    if latencies.count == count { break }
                }
                box.set(latencies)
            }
            try writer.run()
            writer.waitUntilExit()
            let deadline = ContinuousClock.now + .seconds(10)
            while box.get() == nil && ContinuousClock.now < deadline { Thread.sleep(forTimeInterval: 0.05) }
            observer.cancel()
            guard writer.terminationStatus == 0, let latencies = box.get(), latencies.count == count else {
                throw BenchmarkError("the observer saw \(box.get()?.count ?? 0) of \(count) changes (writer exit \(writer.terminationStatus))")
            }
            let sorted = latencies.sorted()
            let median = Measurement.median(sorted)
            let worst = sorted.last!
            return [
                .atMost(
                    "8. observer latency, another process's commit (median)",
                    measured:
                        "\(count) changes: median \(Format.duration(median)), 95th \(Format.duration(sorted[sorted.count * 95 / 100])), worst \(Format.duration(worst))",
                    ratio: median * 1000, limit: 100, suffix: " ms"),
                .atMost(
                    "8. observer latency, worst of \(count)", measured: "polling PRAGMA data_version every 25 ms",
                    ratio: worst * 1000, limit: 250, suffix: " ms"),
                .atMost(
                    "8. idle observer CPU (the feed, ListHandle.updates())",
                    measured: "\(idleSeconds) s idle: \(Format.fixed(idleShare * 100, decimals: 3)) % of a core",
                    ratio: idleShare * 100, limit: 1, suffix: " %"),
            ]
        }
    }
}

/// The latencies the observer task hands back.
final class LatencyBox: @unchecked Sendable {
    private let lock = NSLock()
    private var value: [Double]?
    func set(_ latencies: [Double]) { lock.withLock { value = latencies } }
    func get() -> [Double]? { lock.withLock { value } }
}
