#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A line that says how long work is going, written as the work goes: at a terminal redrawn in
/// place at most 10 times a second and cleared at the end; elsewhere (a log) a new line once a
/// second, never redrawn. Nothing is drawn in the first fifth of a second (the first second, for
/// a log), so quick work stays quiet. What the line says is the caller's.
package final class StatusLine {
    package enum Mode {
        /// Redrawn in place with a carriage return, cleared at the end.
        case redraw
        /// One line a second, for a log.
        case lines
    }

    private let mode: Mode
    private let write: (String) -> Void
    /// The terminal's width: a redrawn line is cut to fit, so that it never wraps (a wrapped
    /// line cannot be redrawn in place).
    private let width: Int?
    private let start: UInt64
    private var nextDraw: UInt64
    private var hasDrawn = false

    /// Nanoseconds between drawings.
    private var interval: UInt64 { mode == .redraw ? 100_000_000 : 1_000_000_000 }

    /// A line drawn through `write`, cut to `width` columns when redrawn.
    package init(mode: Mode, width: Int? = nil, write: @escaping (String) -> Void) {
        self.mode = mode
        self.width = width.flatMap { $0 > 1 ? $0 - 1 : nil }
        self.write = write
        start = Self.now()
        nextDraw = start + (mode == .redraw ? 200_000_000 : 1_000_000_000)
    }

    /// Draws `text(elapsed)` (`elapsed`: seconds since the line began) when the last drawing is
    /// old enough; otherwise costs a clock read, and `text` is not called.
    package func update(_ text: (_ elapsed: Double) -> String) {
        let now = Self.now()
        guard now >= nextDraw else { return }
        nextDraw = now + interval
        let text = text(Double(now - start) / 1e9)
        switch mode {
        case .redraw: write("\r" + (width.map { String(text.prefix($0)) } ?? text) + "\u{1B}[K")
        case .lines: write(text + "\n")
        }
        hasDrawn = true
    }

    /// Clears a redrawn line, so that what follows starts on a clean line.
    package func finish() {
        if mode == .redraw && hasDrawn { write("\r\u{1B}[K") }
        hasDrawn = false
    }

    private static func now() -> UInt64 {
        var time = timespec()
        clock_gettime(CLOCK_MONOTONIC, &time)
        return UInt64(time.tv_sec) * 1_000_000_000 + UInt64(time.tv_nsec)
    }
}
