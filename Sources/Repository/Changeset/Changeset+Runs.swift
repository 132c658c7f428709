/// The journal's compact form of a bulk change: a changeset that only deletes and inserts
/// sections (an import, a list emptied, the undo of either), written as runs of consecutive
/// indexes and ids instead of one number each.
///
/// ```json
/// {"runs":{"sections":{"deleted":[],"inserted":[[0,999999]]},"ids":{"deleted":[],"inserted":[[1,1000000]]}}}
/// ```
///
/// Each run `[first, last]` stands for every integer from `first` to `last`, in order. The
/// indexes' runs are ascending and do not touch (each starts past the one before, by two at
/// least); the ids' runs, read in order, give the ids parallel to the indexes, as `"ids"` does in
/// the full form. A changeset of a million inserted sections is then a hundred bytes in the
/// journal rather than 13 MiB, so that pruning its entry reads no overflow chain, and composing
/// or observing it reads no more than it must.
///
/// Only the journal keeps this form (`journalJSON`). `init(json:)` reads it (as does decoding
/// through `Codable`) into the same changeset as the full form, so every reader of the journal —
/// `changes(since:)`, observers and their adapters, the event stream, replicas, undo and `check`
/// — gets the changeset whole; what `sectionctl --json` prints and the event stream sends is
/// always the full form (`json`).
extension Changeset {
    /// The fewest deleted and inserted sections for which the journal writes the compact form: a
    /// smaller changeset is short in the full form already.
    static let runsMinimumEntries = 64

    /// The most indexes (or ids) a compact entry may stand for: a run past it is not one sectionctl
    /// wrote, and reading it is refused rather than tried.
    static let runsMaximumEntries = Int(Int32.max)

    /// The text the journal stores for the changeset: the compact form above when the changeset
    /// only deletes and inserts sections, has its ids, and has at least `runsMinimumEntries` of
    /// them in at most a quarter as many runs; `json` otherwise.
    /// - Complexity: O(entries).
    package var journalJSON: String {
        let entries = deletedSections.count + insertedSections.count
        guard entries >= Self.runsMinimumEntries, hasIDs, movedSections.isEmpty, updatedSections.isEmpty, changedFooters.isEmpty,
            deletedRows.isEmpty, insertedRows.isEmpty, movedRows.isEmpty, updatedRows.isEmpty,
            let deleted = Self.runs(of: deletedSections.map(Int64.init), ascending: true),
            let inserted = Self.runs(of: insertedSections.map(Int64.init), ascending: true),
            let deletedIDs = Self.runs(of: deletedSectionIDs.map(\.rawValue), ascending: false),
            let insertedIDs = Self.runs(of: insertedSectionIDs.map(\.rawValue), ascending: false),
            4 * (deleted.count + inserted.count + deletedIDs.count + insertedIDs.count) <= entries
        else { return json }
        func write(_ runs: [ClosedRange<Int64>]) -> String {
            "[" + runs.map { "[\($0.lowerBound),\($0.upperBound)]" }.joined(separator: ",") + "]"
        }
        return #"{"runs":{"sections":{"deleted":"# + write(deleted) + #","inserted":"# + write(inserted) + #"},"ids":{"deleted":"#
            + write(deletedIDs) + #","inserted":"# + write(insertedIDs) + "}}}"
    }

    /// `values` as runs of consecutive integers; `nil` when `ascending` asks for ascending runs
    /// that do not touch and `values` is not strictly ascending.
    static func runs(of values: [Int64], ascending: Bool) -> [ClosedRange<Int64>]? {
        var runs: [ClosedRange<Int64>] = []
        for value in values {
            if let last = runs.last {
                if value == last.upperBound &+ 1 && last.upperBound < Int64.max {
                    runs[runs.count - 1] = last.lowerBound...value
                    continue
                }
                if ascending && value <= last.upperBound { return nil }
            }
            runs.append(value...value)
        }
        return runs
    }

    /// The keys of the compact form, under `"runs"`.
    enum RunKey: String, CodingKey {
        case sections, ids
    }

    /// The keys of each part of the compact form.
    enum RunEntryKey: String, CodingKey {
        case deleted, inserted
    }

    /// Reads the compact form's `"runs"` object (see above): every key must be there, each run a
    /// pair of integers `[first, last]` with `first <= last`, indexes from 0 in ascending runs that
    /// do not touch, ids from 1, as many ids as indexes; anything else throws a `DecodingError`
    /// saying where and what was wrong.
    init(runs container: KeyedDecodingContainer<RunKey>) throws {
        self.init()
        let sections = try container.nestedContainer(keyedBy: RunEntryKey.self, forKey: .sections)
        let ids = try container.nestedContainer(keyedBy: RunEntryKey.self, forKey: .ids)
        func read(_ key: RunEntryKey, of part: KeyedDecodingContainer<RunEntryKey>, indexes: Bool) throws -> [ClosedRange<Int64>] {
            func corrupt(_ reason: String) -> DecodingError { .dataCorruptedError(forKey: key, in: part, debugDescription: reason) }
            var runs: [ClosedRange<Int64>] = []
            var total = 0
            for pair in try part.decode([[Int64]].self, forKey: key) {
                guard pair.count == 2 else { throw corrupt("a run is a [first, last] pair of two integers, not \(pair.count)") }
                let (first, last) = (pair[0], pair[1])
                guard first <= last else { throw corrupt("the run [\(first), \(last)] ends before it starts") }
                guard first >= (indexes ? 0 : 1) else {
                    throw corrupt(indexes ? "the run [\(first), \(last)] holds a negative index" : "the run [\(first), \(last)] holds an id below 1")
                }
                if indexes, let previous = runs.last, first - 1 <= previous.upperBound {
                    throw corrupt("the run [\(first), \(last)] does not start past the run before it, which ends at \(previous.upperBound)")
                }
                let (length, overflow) = last.subtractingReportingOverflow(first)
                guard !overflow, length < Int64(Self.runsMaximumEntries - total) else {
                    throw corrupt("the runs stand for more than \(Self.runsMaximumEntries) entries")
                }
                total += Int(length) + 1
                runs.append(first...last)
            }
            return runs
        }
        func count(_ runs: [ClosedRange<Int64>]) -> Int { runs.reduce(0) { $0 + Int($1.upperBound - $1.lowerBound) + 1 } }
        func expand(_ runs: [ClosedRange<Int64>]) -> [Int64] {
            var values: [Int64] = []
            values.reserveCapacity(count(runs))
            for run in runs { values.append(contentsOf: run) }
            return values
        }
        let deleted = try read(.deleted, of: sections, indexes: true)
        let inserted = try read(.inserted, of: sections, indexes: true)
        let deletedIDs = try read(.deleted, of: ids, indexes: false)
        let insertedIDs = try read(.inserted, of: ids, indexes: false)
        for (key, indexes, idRuns) in [(RunEntryKey.deleted, deleted, deletedIDs), (.inserted, inserted, insertedIDs)]
        where count(indexes) != count(idRuns) {
            throw DecodingError.dataCorruptedError(
                forKey: key, in: ids, debugDescription: "\(count(idRuns)) ids for \(count(indexes)) entries; each entry has one id")
        }
        deletedSections = expand(deleted).map { Int($0) }
        insertedSections = expand(inserted).map { Int($0) }
        deletedSectionIDs = expand(deletedIDs).map { SectionID($0) }
        insertedSectionIDs = expand(insertedIDs).map { SectionID($0) }
    }
}
