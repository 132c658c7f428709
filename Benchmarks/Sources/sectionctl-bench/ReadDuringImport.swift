import Foundation
import Repository
import Synchronization
import Transfer

extension Benchmark {
    /// Scenario 15: a table view's read never waits for a write (#19). `row(at:)` on a list of
    /// 1K rows, timed one call at a time: on an idle store, then while a native import of a
    /// 1M-row section into another list runs on another thread of the same `SectionStore` (one
    /// transaction, tens of seconds). Median and worst of each; the target is the median during
    /// the import ≤ 2× idle. The worst case is reported as it is: on a 2-core machine the
    /// import's thread and the reader's share the cores with the checkpointer and the system.
    func readDuringImportRows() throws -> [ResultRow] {
        let plan = self.plan
        return try withScratch("read-during-import") { scratch in
            let database = scratch.file("read.db")
            let store = try SectionStore(path: database, create: true)
            Log.progress("  a shown list of \(Format.count(plan.smallSection)) rows, a \(Format.count(plan.hugeSection))-row document…")
            let shown = scratch.file("shown.json")
            try Self.writeOneSectionDocument(rows: plan.smallSection, list: "shown", to: shown)
            _ = try store.importJSON(from: try FileHandle(forReadingFrom: URL(fileURLWithPath: shown)))
            let middle = RowPath(section: 0, row: plan.smallSection / 2)
            let document = scratch.file("bulk.json")
            try Self.writeOneSectionDocument(rows: plan.hugeSection, list: "bulk", to: document)

            func sample(while busy: () -> Bool, atLeast: Int) throws -> [Double] {
                var times: [Double] = []
                while times.count < atLeast || busy() {
                    let started = ContinuousClock.now
                    _ = try store.list("shown").row(at: middle)
                    times.append(Measurement.seconds(ContinuousClock.now - started))
                    if times.count >= 2_000_000 { break }
                }
                return times
            }
            Log.progress("  row(at:) on the idle store…")
            let idle = try sample(while: { false }, atLeast: 20_000)

            Log.progress("  row(at:) while the import runs…")
            let importing = Atomic<Bool>(true)
            let failure = Mutex<String?>(nil)
            let started = ContinuousClock.now
            let importer = Thread {
                do {
                    let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: document))
                    _ = try store.importJSON(from: handle)
                } catch {
                    failure.withLock { $0 = "\(error)" }
                }
                importing.store(false, ordering: .releasing)
            }
            importer.start()
            let busy = try sample(while: { importing.load(ordering: .acquiring) }, atLeast: 1)
            let importTook = Measurement.seconds(ContinuousClock.now - started)
            if let problem = failure.withLock({ $0 }) { throw BenchmarkError("the import failed: \(problem)") }
            let imported = try store.list("bulk").outline().rowCount
            guard imported == plan.hugeSection else { throw BenchmarkError("the import wrote \(imported) rows, not \(plan.hugeSection)") }

            let idleMedian = Measurement.median(idle)
            let busyMedian = Measurement.median(busy)
            return [
                .atMost(
                    "15. row(at:) during a \(Format.shortCount(plan.hugeSection))-row import vs idle, median",
                    measured: "idle: \(Format.duration(idleMedian)), during: \(Format.duration(busyMedian)) "
                        + "(\(Format.count(busy.count)) reads over the import's \(Format.duration(importTook)))",
                    ratio: busyMedian / idleMedian, limit: 2),
                .info(
                    "15. row(at:) during the import vs idle, worst",
                    measured: "idle: \(Format.duration(idle.max() ?? 0)), during: \(Format.duration(busy.max() ?? 0))",
                    ratio: Format.ratio((busy.max() ?? 0) / max(idle.max() ?? 1, 1e-9))),
            ]
        }
    }

    /// Writes a native document of one list, `list`, with one section of `rows` text rows.
    static func writeOneSectionDocument(rows: Int, list: String, to path: String) throws {
        _ = FileManager.default.createFile(atPath: path, contents: nil)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: path))
        defer { try? handle.close() }
        try handle.write(contentsOf: Data("{\"lists\":[{\"name\":\"\(list)\",\"sections\":[{\"title\":\"Bulk\",\"rows\":[".utf8))
        var chunk = ""
        for index in 0..<rows {
            chunk += (index == 0 ? "" : ",") + "{\"kind\":\"text\",\"title\":\"bulk row \(index)\",\"value\":null}"
            if chunk.utf8.count > 1 << 20 {
                try handle.write(contentsOf: Data(chunk.utf8))
                chunk = ""
            }
        }
        try handle.write(contentsOf: Data((chunk + "]}]}]}").utf8))
    }
}
