import Foundation

/// Whether a figure meets its target.
enum Verdict: String {
    case pass = "PASS"
    case fail = "FAIL"
    /// Reported for context; no target.
    case info = "info"
    /// Not measured (what it needs does not exist, or it failed to run).
    case skipped = "skipped"
}

/// One line of the result table.
struct ResultRow {
    var scenario: String
    var measured: String
    var ratio: String
    var target: String
    var verdict: Verdict
    /// Pages read and written (`IOCounters.cell`), where the row measures them; empty otherwise.
    var io: String = ""

    /// A figure checked against an upper bound (`ratio ≤ limit`).
    static func atMost(_ scenario: String, measured: String, ratio: Double, limit: Double, suffix: String = "")
        -> ResultRow
    {
        ResultRow(
            scenario: scenario, measured: measured, ratio: Format.ratio(ratio) + suffix,
            target: "≤ \(Format.ratio(limit))\(suffix)", verdict: ratio <= limit ? .pass : .fail)
    }

    /// A figure checked against a lower bound (`ratio ≥ limit`).
    static func atLeast(_ scenario: String, measured: String, ratio: Double, limit: Double, suffix: String = "")
        -> ResultRow
    {
        ResultRow(
            scenario: scenario, measured: measured, ratio: Format.ratio(ratio) + suffix,
            target: "≥ \(Format.ratio(limit))\(suffix)", verdict: ratio >= limit ? .pass : .fail)
    }

    /// A figure without a target.
    static func info(_ scenario: String, measured: String, ratio: String = "", target: String = "—", io: String = "") -> ResultRow {
        ResultRow(scenario: scenario, measured: measured, ratio: ratio, target: target, verdict: .info, io: io)
    }

    /// The row with its I/O cell set.
    func with(io cell: String) -> ResultRow {
        var row = self
        row.io = cell
        return row
    }

    /// A scenario that was not measured, and why.
    static func skipped(_ scenario: String, reason: String, target: String = "—") -> ResultRow {
        ResultRow(scenario: scenario, measured: reason, ratio: "", target: target, verdict: .skipped)
    }
}

/// The result table, printed as aligned text or as Markdown.
struct Report {
    private(set) var rows: [ResultRow] = []

    mutating func add(_ row: ResultRow) {
        rows.append(row)
        Log.progress("  → \(row.scenario): \(row.measured) | \(row.io) | \(row.ratio) | \(row.target) | \(row.verdict.rawValue)")
    }

    mutating func add(contentsOf more: [ResultRow]) {
        for row in more { add(row) }
    }

    static let headers = ["Scenario", "Measured", "I/O (rchar, wchar / 4096)", "Ratio", "Target", "Result"]

    private static func cells(_ row: ResultRow) -> [String] {
        [row.scenario, row.measured, row.io, row.ratio, row.target, row.verdict.rawValue]
    }

    func rendered(markdown: Bool) -> String {
        let table = [Self.headers] + rows.map(Self.cells)
        if markdown {
            var lines = ["| " + Self.headers.joined(separator: " | ") + " |"]
            lines.append("|" + Self.headers.map { _ in "---" }.joined(separator: "|") + "|")
            for cells in table.dropFirst() {
                lines.append("| " + cells.map { $0.replacingOccurrences(of: "|", with: "\\|") }.joined(separator: " | ") + " |")
            }
            return lines.joined(separator: "\n")
        }
        var widths = Array(repeating: 0, count: Self.headers.count)
        for cells in table {
            for (column, cell) in cells.enumerated() { widths[column] = max(widths[column], cell.count) }
        }
        func line(_ cells: [String]) -> String {
            cells.enumerated().map { column, cell in cell.padding(widths[column]) }.joined(separator: "  ")
                .trimmingTrailingSpaces()
        }
        var lines = [line(Self.headers), widths.map { String(repeating: "-", count: $0) }.joined(separator: "  ")]
        lines += table.dropFirst().map(line)
        return lines.joined(separator: "\n")
    }

    /// How many rows failed their target.
    var failures: Int { rows.count { $0.verdict == .fail } }
}

extension String {
    func trimmingTrailingSpaces() -> String {
        var text = self
        while text.last == " " { text.removeLast() }
        return text
    }
}
