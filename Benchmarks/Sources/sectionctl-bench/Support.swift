import Foundation

/// A failure that stops a scenario, with a message for people.
struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Progress messages, on stderr so that stdout carries only the report.
enum Log {
    static func progress(_ message: String) {
        FileHandle.standardError.write(Data((message + "\n").utf8))
    }
}

/// A directory for the run's databases, removed by `remove()`.
final class TemporaryDirectory {
    let path: String

    /// Creates a new directory inside `parent` (the system's temporary directory when nil).
    init(inside parent: String?) throws {
        let base = parent ?? FileManager.default.temporaryDirectory.path
        path = base + "/sectionctl-bench-\(ProcessInfo.processInfo.processIdentifier)-\(UInt32.random(in: 0...UInt32.max))"
        try FileManager.default.createDirectory(atPath: path, withIntermediateDirectories: true)
    }

    /// The path of `name` inside the directory.
    func file(_ name: String) -> String { path + "/" + name }

    func remove() {
        try? FileManager.default.removeItem(atPath: path)
    }
}

/// The size of a file in bytes (0 when it does not exist).
func fileSize(_ path: String) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: path))?[.size] as? NSNumber)?.intValue ?? 0
}
