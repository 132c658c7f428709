import Foundation
import Repository

// A stand-in for the part of AppKit's table view that a data source without sections uses, with
// the same names, so that the AppKit recipe compiles and runs here as written. It holds its
// calls to AppKit's rules: inside `beginUpdates()`…`endUpdates()` each call names places as the
// view holds them after the calls before it; a removal or move names a row the view has, an
// insertion a place the run has once the rows are in. Rows it inserts or reloads it draws from
// its data source at `endUpdates()`; every other row keeps what it showed, so a row whose text
// changed and that was not reloaded is a stale row, as on a Mac.

/// A column of a table view (the stand-in has one).
@MainActor package final class NSTableColumn {
    package init() {}
}

/// The questions a table view without sections asks its data source.
@MainActor package protocol NSTableViewDataSource: AnyObject {
    func numberOfRows(in tableView: NSTableView) -> Int
    func tableView(_ tableView: NSTableView, objectValueFor tableColumn: NSTableColumn?, row: Int) -> Any?
}

/// A table view without sections that shows what it asked its data source, and changes it only
/// as AppKit would.
@MainActor package final class NSTableView {
    /// How rows come and go (the stand-in does not animate).
    package struct AnimationOptions: OptionSet, Sendable {
        package let rawValue: UInt
        package init(rawValue: UInt) { self.rawValue = rawValue }
        package static let effectFade = AnimationOptions(rawValue: 1)
    }

    package weak var dataSource: (any NSTableViewDataSource)?
    /// What each row shows (`nil`: drawn at the end of the block of updates).
    package private(set) var shown: [String?] = []
    /// Every call AppKit would have raised on, and every block after which the view's count is
    /// not its data source's.
    package private(set) var refusals: [String] = []
    /// How many times `reloadData()` was called.
    package private(set) var reloads = 0
    /// Blocks of updates that left the view showing exactly what it showed before.
    package private(set) var noOpAnimations: [String] = []
    /// Blocks of updates done.
    package private(set) var blocks = 0
    /// The calls of the open block, for messages.
    private var calls: [String] = []
    private var depth = 0
    private var before: [String?] = []

    package init() {}

    package var numberOfColumns: Int { 1 }

    /// What the data source says row `row` shows.
    private func ask(_ row: Int) -> String? {
        dataSource?.tableView(self, objectValueFor: nil, row: row) as? String
    }

    /// Everything the data source says now.
    package func askDataSource() -> [String?] {
        guard let dataSource else { return [] }
        return (0..<dataSource.numberOfRows(in: self)).map(ask)
    }

    package func reloadData() {
        reloads += 1
        shown = askDataSource()
    }

    /// Where what the view shows differs from what its data source says now: a stale row, or a
    /// count the view did not follow.
    package func mismatches() -> [String] {
        let source = askDataSource()
        guard shown.count == source.count else { return ["the view shows \(shown.count) rows; the data source has \(source.count)"] }
        return zip(shown, source).enumerated().compactMap { index, pair in
            pair.0 == pair.1 ? nil : "row \(index) shows \(pair.0 ?? "-"); the data source has \(pair.1 ?? "-")"
        }
    }

    package func beginUpdates() {
        if depth == 0 {
            before = shown
            calls = []
        }
        depth += 1
    }

    package func endUpdates() {
        guard depth > 0 else {
            refusals.append("endUpdates without beginUpdates")
            return
        }
        depth -= 1
        guard depth == 0 else { return }
        blocks += 1
        drawPending()
        if shown == before { noOpAnimations.append("updates \(calls) change nothing on screen") }
    }

    /// Draws the rows inserted or reloaded, from the data source, once the block is done; checks
    /// that the view's count is the data source's.
    private func drawPending() {
        let count = dataSource?.numberOfRows(in: self) ?? 0
        guard count == shown.count else {
            refusals.append("after \(calls), the view has \(shown.count) rows; its data source has \(count)")
            shown = askDataSource()
            return
        }
        for index in shown.indices where shown[index] == nil { shown[index] = ask(index) }
    }

    /// Runs one change: at once outside a block, or as part of the open one.
    private func change(_ name: String, _ body: () -> Bool) {
        calls.append(name)
        if depth == 0 { before = shown }
        guard body() else {
            refusals.append("\(name) on \(shown.count) rows")
            return
        }
        if depth == 0 { drawPending() }
    }

    package func removeRows(at indexes: IndexSet, withAnimation options: AnimationOptions) {
        change("remove \(Array(indexes))") {
            guard indexes.allSatisfy({ $0 < shown.count }) else { return false }
            for index in indexes.reversed() { shown.remove(at: index) }
            return true
        }
    }

    package func insertRows(at indexes: IndexSet, withAnimation options: AnimationOptions) {
        change("insert \(Array(indexes))") {
            guard indexes.allSatisfy({ $0 < shown.count + indexes.count }) else { return false }
            for index in indexes { shown.insert(nil, at: index) }
            return true
        }
    }

    package func moveRow(at oldIndex: Int, to newIndex: Int) {
        change("move \(oldIndex)→\(newIndex)") {
            guard shown.indices.contains(oldIndex), shown.indices.contains(newIndex) else { return false }
            shown.insert(shown.remove(at: oldIndex), at: newIndex)
            return true
        }
    }

    package func reloadData(forRowIndexes rowIndexes: IndexSet, columnIndexes: IndexSet) {
        change("reload \(Array(rowIndexes))") {
            guard rowIndexes.allSatisfy({ $0 < shown.count }), columnIndexes.allSatisfy({ $0 < numberOfColumns }) else { return false }
            for index in rowIndexes { shown[index] = nil }
            return true
        }
    }
}

/// The stand-in table view driven by a `ListViewAdapter`, as `NSTableView+ListTableView.swift`
/// makes AppKit's: each call forwarded to the table view's own.
extension NSTableView: FlatListTableView {
    package func removeRows(_ rows: [Int]) { removeRows(at: IndexSet(rows), withAnimation: .effectFade) }
    package func insertRows(_ rows: [Int]) { insertRows(at: IndexSet(rows), withAnimation: .effectFade) }
    package func reloadRows(_ rows: [Int]) { reloadData(forRowIndexes: IndexSet(rows), columnIndexes: IndexSet(integersIn: 0..<numberOfColumns)) }
}
