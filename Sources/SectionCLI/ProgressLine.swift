import CommandLineSupport
import Foundation
import Repository
import Transfer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Progress of long work (import, export, a whole `show`) on standard error: rows done and their
/// rate, and, when the size of the work is known (an input that is a file, or a list's rows), a
/// percentage and the time left. The text is this type's; the drawing is a `StatusLine`'s.
///
/// At a terminal the line is redrawn in place at most 10 times a second and cleared at the end;
/// forced on elsewhere (`--progress`), a new line is written once a second, never redrawn.
/// Nothing is drawn in the first fifth of a second, so quick work stays quiet.
final class ProgressLine {
    typealias Mode = StatusLine.Mode

    private let line: StatusLine
    private let label: String
    private let totalBytes: Int?

    /// A progress line for `label` (`import`), whose input has `totalBytes` bytes when known.
    init(mode: Mode, label: String, totalBytes: Int?, width: Int? = nil, write: @escaping (String) -> Void) {
        line = StatusLine(mode: mode, width: width, write: write)
        self.label = label
        self.totalBytes = totalBytes.flatMap { $0 > 0 ? $0 : nil }
    }

    /// Takes a report; draws when the last drawing is old enough. Costs a clock read otherwise.
    func update(_ progress: TransferProgress) {
        line.update { elapsed in Self.describe(progress, label: label, totalBytes: totalBytes, elapsed: elapsed) }
    }

    /// Clears a redrawn line, so that what follows starts on a clean line.
    func finish() {
        line.finish()
    }

    /// `import: 120,000 rows, 61,000 rows/s, 45% of 27.0 MB, 3 s left`.
    static func describe(_ progress: TransferProgress, label: String, totalBytes: Int?, elapsed: Double) -> String {
        var parts = ["\(label): \(grouped(progress.rows)) rows"]
        if elapsed > 0 { parts.append("\(grouped(Int(Double(progress.rows) / elapsed))) rows/s") }
        var fraction: Double?
        if let totalBytes {
            fraction = min(1, Double(progress.bytes) / Double(totalBytes))
            parts.append("\(Int(fraction! * 100))% of \(megabytes(totalBytes))")
        } else if let totalRows = progress.totalRows, totalRows > 0 {
            fraction = min(1, Double(progress.rows) / Double(totalRows))
            parts.append("\(Int(fraction! * 100))% of \(grouped(totalRows)) rows")
        } else if progress.bytes > 0 {
            parts.append(megabytes(progress.bytes))
        }
        if let fraction, fraction > 0 {
            parts.append("\(Int((elapsed * (1 - fraction) / fraction).rounded())) s left")
        }
        return parts.joined(separator: ", ")
    }

    /// `1,234,567`.
    static func grouped(_ number: Int) -> String {
        let digits = String(number.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { result += "," }
            result.append(digit)
        }
        return (number < 0 ? "-" : "") + result
    }

    private static func megabytes(_ bytes: Int) -> String {
        let tenths = (bytes + 50_000) / 100_000
        return "\(tenths / 10).\(tenths % 10) MB"
    }

}

extension Context {
    /// A progress line for long work, or `nil` when none should be drawn: with `--quiet`; when
    /// standard error is not a terminal (unless `--progress`); and when the work writes its
    /// result to a standard output that is the terminal too (`streamsToTerminal`), where the
    /// output itself shows progress (unless `--progress`).
    func progressLine(_ label: String, totalBytes: Int? = nil, writesToOutput: Bool = false) -> ProgressLine? {
        if options.quiet { return nil }
        let console = console
        let write: (String) -> Void = { console.writeErrorText($0) }
        if options.progress && !console.errorIsTerminal {
            return ProgressLine(mode: .lines, label: label, totalBytes: totalBytes, write: write)
        }
        guard console.errorIsTerminal, options.progress || !(writesToOutput && console.outputIsTerminal) else { return nil }
        return ProgressLine(mode: .redraw, label: label, totalBytes: totalBytes, width: Self.errorColumns(), write: write)
    }

    /// The width of the terminal on standard error, if it says.
    private static func errorColumns() -> Int? {
        var size = winsize()
        guard ioctl(2, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0 else { return nil }
        return Int(size.ws_col)
    }

    /// Runs `body` with a progress handler for `line` (none for `nil`), finishing the line after it,
    /// whatever happens.
    func withProgress<T>(_ line: ProgressLine?, _ body: (ProgressHandler?) throws -> T) rethrows -> T {
        guard let line else { return try body(nil) }
        defer { line.finish() }
        return try body { line.update($0) }
    }
}

/// What `openStore` shows while a migration brings an older database up to date: at a terminal
/// on standard error (unless `--quiet`), redrawn in place after the first fifth of a second and
/// cleared before the command's own output; with `--progress` elsewhere, a line a second. A
/// migration that builds data for a large database (the rank structure, say) can take a while.
final class MigrationLine: @unchecked Sendable {
    private let redraws: Bool
    private let write: (String) -> Void
    private let lock = NSLock()
    private let start = DispatchTime.now().uptimeNanoseconds
    private var nextDraw: UInt64
    private var hasDrawn = false

    init(redraws: Bool, write: @escaping (String) -> Void) {
        self.redraws = redraws
        self.write = write
        nextDraw = start + (redraws ? 200_000_000 : 1_000_000_000)
    }

    /// `migrating the database: 0002_rank (2 of 4), 3 s`.
    static func describe(_ progress: MigrationProgress, seconds: Int) -> String {
        "migrating the database: \(progress.name) (\(progress.number) of \(progress.count)), \(seconds) s"
    }

    func update(_ progress: MigrationProgress) {
        lock.withLock {
            let now = DispatchTime.now().uptimeNanoseconds
            guard now >= nextDraw else { return }
            nextDraw = now + (redraws ? 100_000_000 : 1_000_000_000)
            let text = Self.describe(progress, seconds: Int((now - start) / 1_000_000_000))
            write(redraws ? "\r" + text + "\u{1B}[K" : text + "\n")
            hasDrawn = true
        }
    }

    func finish() {
        lock.withLock {
            if redraws && hasDrawn { write("\r\u{1B}[K") }
            hasDrawn = false
        }
    }
}

extension Context {
    /// The line for a migration under way, or `nil` where progress is not shown.
    func migrationLine() -> MigrationLine? {
        if options.quiet { return nil }
        let console = console
        if console.errorIsTerminal { return MigrationLine(redraws: true) { console.writeErrorText($0) } }
        return options.progress ? MigrationLine(redraws: false) { console.writeErrorText($0) } : nil
    }
}
