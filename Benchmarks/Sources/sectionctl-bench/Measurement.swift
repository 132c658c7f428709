import Foundation

/// Timing and statistics: wall-clock durations in seconds, medians, and readable figures.
enum Measurement {
    /// Runs `work` once and returns how long it took, in seconds.
    static func time(_ work: () throws -> Void) rethrows -> Double {
        seconds(try ContinuousClock().measure(work))
    }

    /// The CPU time the calling thread has used, in seconds (user and system).
    static func threadCPU() -> Double {
        var now = timespec()
        clock_gettime(CLOCK_THREAD_CPUTIME_ID, &now)
        return Double(now.tv_sec) + Double(now.tv_nsec) * 1e-9
    }

    static func seconds(_ duration: Duration) -> Double {
        let (whole, fraction) = duration.components
        return Double(whole) + Double(fraction) * 1e-18
    }

    /// The median of `values` (the mean of the two middle ones for an even count); 0 when empty.
    static func median(_ values: [Double]) -> Double {
        guard !values.isEmpty else { return 0 }
        let sorted = values.sorted()
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }
}

/// Readable figures for the report.
enum Format {
    /// A duration in seconds as µs, ms or s with three significant digits.
    static func duration(_ seconds: Double) -> String {
        if seconds < 1e-3 { return "\(significant(seconds * 1e6)) µs" }
        if seconds < 1 { return "\(significant(seconds * 1e3)) ms" }
        return "\(significant(seconds)) s"
    }

    /// A ratio such as `1.04` or `153`.
    static func ratio(_ value: Double) -> String { significant(value) }

    /// A count with thousands separators: `1,000,000`.
    static func count(_ value: Int) -> String {
        let digits = String(value.magnitude)
        var result = ""
        for (offset, digit) in digits.enumerated() {
            if offset > 0 && (digits.count - offset) % 3 == 0 { result.append(",") }
            result.append(digit)
        }
        return value < 0 ? "-" + result : result
    }

    /// A short count: `1K`, `300K`, `1M`.
    static func shortCount(_ value: Int) -> String {
        if value >= 1_000_000 && value % 1_000_000 == 0 { return "\(value / 1_000_000)M" }
        if value >= 1_000 && value % 1_000 == 0 { return "\(value / 1_000)K" }
        return count(value)
    }

    /// A rate per second, such as `412K/s`.
    static func rate(_ perSecond: Double) -> String {
        if perSecond >= 1e6 { return "\(significant(perSecond / 1e6))M/s" }
        if perSecond >= 1e3 { return "\(significant(perSecond / 1e3))K/s" }
        return "\(significant(perSecond))/s"
    }

    /// A size in bytes as MiB.
    static func mebibytes(_ bytes: Int) -> String { "\(significant(Double(bytes) / 1_048_576)) MiB" }

    /// `value` with three significant digits (no exponent), e.g. 0.00123, 1.23, 12.3, 123, 1234.
    static func significant(_ value: Double) -> String {
        guard value.isFinite else { return value.isNaN ? "n/a" : "∞" }
        let magnitude = abs(value)
        let decimals: Int
        switch magnitude {
        case 100...: decimals = 0
        case 10..<100: decimals = 1
        case 1..<10: decimals = 2
        case 0.1..<1: decimals = 3
        case 0.01..<0.1: decimals = 4
        default: decimals = 5
        }
        return fixed(value, decimals: decimals)
    }

    /// `value` rounded to `decimals` places.
    static func fixed(_ value: Double, decimals: Int) -> String {
        var scale = 1.0
        for _ in 0..<decimals { scale *= 10 }
        let scaled = (abs(value) * scale).rounded()
        let whole = Int(scaled / scale)
        var text = String(whole)
        if decimals > 0 {
            let fraction = Int(scaled - Double(whole) * scale)
            let digits = String(fraction)
            text += "." + String(repeating: "0", count: decimals - digits.count) + digits
        }
        return value < 0 && scaled != 0 ? "-" + text : text
    }
}

/// A small, fast, seedable generator (SplitMix64), so every run makes the same moves.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
