import Foundation
import RepositoryPostgres

// sectionctl-bench: the performance targets of the product (docs/benchmarks.md), measured as
// ratios against a C baseline in the same run.

let arguments = Array(CommandLine.arguments.dropFirst())
if arguments.first == ChildProcess.peakMemoryOption {
    exit(ChildProcess.runAsIntermediary(Array(arguments.dropFirst())))
}
if arguments.first == ChildImport.option {
    guard arguments.count == 3 else {
        Log.progress("usage: sectionctl-bench \(ChildImport.option) DATABASE FILE")
        exit(2)
    }
    exit(ChildImport.run(database: arguments[1], input: arguments[2]))
}
if arguments.first == ChildSession.option {
    guard arguments.count == 3, let from = Int(arguments[2]) else {
        Log.progress("usage: sectionctl-bench \(ChildSession.option) DATABASE FROM")
        exit(2)
    }
    exit(ChildSession.run(database: arguments[1], from: from))
}

if arguments.first == ChildWriter.option {
    exit(ChildWriter.run(Array(arguments.dropFirst())))
}
if arguments.first == ChildServerMover.option {
    exit(ChildServerMover.run(Array(arguments.dropFirst())))
}

let options: Options
do {
    options = try Options.parse(arguments)
} catch {
    if let message = error.message {
        Log.progress("sectionctl-bench: error: \(message) (see --help)")
        exit(2)
    }
    print(Options.usage)
    exit(0)
}

let benchmark: Benchmark
do {
    benchmark = try Benchmark(options: options)
} catch {
    Log.progress("sectionctl-bench: error: \(error)")
    exit(1)
}

/// The load average over the last minute, which says whether something else was running.
func loadAverage() -> String {
    ((try? String(contentsOfFile: "/proc/loadavg", encoding: .utf8)) ?? "?").split(separator: " ").first.map(String.init) ?? "?"
}

// An interrupted run still removes its temporary files, and stops the PostgreSQL server it started.
// The run's end waits for that: stopping the server makes the scenario fail fast, and the program
// must not end before the server's directory is gone.
let temporaryPath = benchmark.directory.path
let ending = NSLock()
let interruptions = [SIGINT, SIGTERM].map { number in
    signal(number, SIG_IGN)
    let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
    source.setEventHandler {
        ending.lock()
        try? FileManager.default.removeItem(atPath: temporaryPath)
        RunningCluster.stop()
        Log.progress("sectionctl-bench: interrupted; removed \(temporaryPath)")
        exit(130)
    }
    source.resume()
    return source
}

let started = ContinuousClock.now
let loadBefore = loadAverage()
let mode = options.quick ? "quick run (--quick: small sizes)" : "full run"
Log.progress(
    "sectionctl-bench: \(mode), SQLite \(Baseline.sqliteVersion), \(ProcessInfo.processInfo.activeProcessorCount) cores,"
        + " files in \(benchmark.directory.path)")
let report = benchmark.run()
ending.lock()
benchmark.cleanUp()
for interruption in interruptions { interruption.cancel() }
let elapsed = Measurement.seconds(ContinuousClock.now - started)

print(
    "sectionctl-bench: \(mode); SQLite \(Baseline.sqliteVersion); WAL, synchronous=FULL;"
        + " \(ProcessInfo.processInfo.activeProcessorCount) cores; load average \(loadBefore) before, \(loadAverage()) after")
print("Times are medians over \(benchmark.plan.rounds) rounds (after a warm-up round) of the mean per operation in a round.")
if options.quick {
    print("Quick sizes are smaller than the targets are set for: the verdicts are a smoke test only.")
}
print("")
print(report.rendered(markdown: options.markdown))
print("")
let checked = report.rows.count { $0.verdict == .pass || $0.verdict == .fail }
print(
    "\(checked - report.failures) of \(checked) targets met; \(report.rows.count { $0.verdict == .skipped }) skipped; \(Format.duration(elapsed)) in all."
)
