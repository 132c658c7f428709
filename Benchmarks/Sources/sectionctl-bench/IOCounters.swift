import Foundation

/// A process's I/O counters from Linux's `/proc/PID/io`: what the benchmark reports as pages
/// read and written beside time.
///
/// `rchar` and `wchar` count the bytes passed to `read`/`pread` and `write`/`pwrite` calls,
/// whether the page cache served them or the disk did; `read_bytes` stays 0 when the page cache
/// serves a read, so a warm file's reads show only in `rchar`. SQLite reads and writes the
/// database and its `-wal` file one page per call (its `-shm` index is mapped, so it shows in
/// neither), which is why `rchar / 4096` is the pages a command read. A process's counters
/// include those of the children it has reaped, so a scenario's delta in this process covers the
/// whole processes it ran too.
struct IOCounters: Sendable {
    /// Bytes passed to read calls (`rchar`).
    var readCharacters = 0
    /// Bytes passed to write calls (`wchar`).
    var writtenCharacters = 0
    /// Read and write calls (`syscr`, `syscw`).
    var readCalls = 0
    var writeCalls = 0
    /// Bytes the block layer fetched and was sent (`read_bytes`, `write_bytes`): the disk's share.
    var storageRead = 0
    var storageWritten = 0

    /// SQLite's page size in the benchmark's files (the default).
    static let pageSize = 4_096

    /// Pages read: `rchar / 4096`.
    var pagesRead: Double { Double(readCharacters) / Double(Self.pageSize) }
    /// Pages written: `wchar / 4096`.
    var pagesWritten: Double { Double(writtenCharacters) / Double(Self.pageSize) }

    /// This process's counters now (its reaped children included).
    static func current() -> IOCounters { (try? read("/proc/self/io")) ?? IOCounters() }

    /// The counters of process `pid`, which must not have been reaped yet.
    static func of(pid: pid_t) throws -> IOCounters { try read("/proc/\(pid)/io") }

    /// Whether the kernel gives I/O counters here (Linux with task I/O accounting).
    static let available: Bool = (try? read("/proc/self/io")) != nil

    private static func read(_ path: String) throws -> IOCounters {
        let text = try String(contentsOfFile: path, encoding: .utf8)
        var counters = IOCounters()
        for line in text.split(separator: "\n") {
            let parts = line.split(separator: ":")
            guard parts.count == 2, let value = Int(parts[1].trimmingCharacters(in: .whitespaces)) else { continue }
            switch parts[0] {
            case "rchar": counters.readCharacters = value
            case "wchar": counters.writtenCharacters = value
            case "syscr": counters.readCalls = value
            case "syscw": counters.writeCalls = value
            case "read_bytes": counters.storageRead = value
            case "write_bytes": counters.storageWritten = value
            default: break
            }
        }
        return counters
    }

    /// The difference `self - earlier`, field by field.
    func since(_ earlier: IOCounters) -> IOCounters {
        IOCounters(
            readCharacters: readCharacters - earlier.readCharacters, writtenCharacters: writtenCharacters - earlier.writtenCharacters,
            readCalls: readCalls - earlier.readCalls, writeCalls: writeCalls - earlier.writeCalls,
            storageRead: storageRead - earlier.storageRead, storageWritten: storageWritten - earlier.storageWritten)
    }

    /// The sum of two sets of counters.
    static func + (left: IOCounters, right: IOCounters) -> IOCounters {
        IOCounters(
            readCharacters: left.readCharacters + right.readCharacters,
            writtenCharacters: left.writtenCharacters + right.writtenCharacters, readCalls: left.readCalls + right.readCalls,
            writeCalls: left.writeCalls + right.writeCalls, storageRead: left.storageRead + right.storageRead,
            storageWritten: left.storageWritten + right.storageWritten)
    }

    /// The counters divided by `count` operations, for a figure per operation.
    func per(_ count: Int) -> IOCounters {
        guard count > 0 else { return self }
        return IOCounters(
            readCharacters: readCharacters / count, writtenCharacters: writtenCharacters / count, readCalls: readCalls / count,
            writeCalls: writeCalls / count, storageRead: storageRead / count, storageWritten: storageWritten / count)
    }

    /// This process's counters while `work` runs.
    static func measure(_ work: () throws -> Void) rethrows -> IOCounters {
        let before = current()
        try work()
        return current().since(before)
    }

    /// The report's I/O cell: pages read and written (`rchar`, `wchar` / 4096), and the read and
    /// write calls.
    var cell: String {
        "\(Format.pages(pagesRead)) r / \(Format.pages(pagesWritten)) w pages (\(Format.count(readCalls)) / \(Format.count(writeCalls)) calls)"
    }
}

extension Format {
    /// A page count with up to three significant digits: `12.5`, `6,797`, `1.2M`.
    static func pages(_ value: Double) -> String {
        if value >= 1e6 { return "\(significant(value / 1e6))M" }
        if value >= 1e4 { return "\(significant(value / 1e3))K" }
        if value >= 100 { return count(Int(value.rounded())) }
        return significant(value)
    }
}
