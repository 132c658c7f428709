/// Composing changesets: one changeset for several consecutive ones, found from the changesets
/// alone, without the snapshots they were made from.
extension Changeset {
    /// The changeset of several consecutive changes: given changesets from S0 to S1, S1 to S2,
    /// …, S(k-1) to Sk, the one changeset from S0 to Sk.
    ///
    /// Footers: a section's footer that changed an odd number of times is listed; one that
    /// appeared and disappeared again is not, unless the section's empty text changed too.
    ///
    /// The result obeys every rule a changeset does: rows inside inserted and deleted sections
    /// are not listed, a row moved out of a section that was deleted becomes an insertion and a
    /// row moved into a section that was inserted becomes a deletion, and updates are listed at
    /// final paths (a row updated and then deleted is only deleted; one inserted and then
    /// updated is only inserted). A section or row inserted and then deleted does not appear, and
    /// an item moved away and back again is not listed as moved. The moves listed are not always
    /// the fewest that `init(from:to:)` would find.
    ///
    /// Ids go with their items: each entry names the id of the section or row it is about, as the
    /// changesets named it. If any of the changesets has no ids (`hasIDs` false), neither has
    /// the result.
    ///
    /// The changesets must be consecutive: each one's old state is the previous one's new state.
    ///
    /// - Complexity: O(t · (c + log t)) for k changesets, where c is the number of entries of a
    ///   changeset and t the number of sections and rows touched so far; independent of the
    ///   size of the list.
    public init<Changesets: Sequence>(composing changesets: Changesets) where Changesets.Element == Changeset {
        var composer = ChangesetComposer()
        for changeset in changesets {
            composer.append(changeset)
        }
        self = composer.changeset
    }

    /// This changeset followed by `next`, which starts from the state this one ends in.
    /// - Complexity: O(t · (c + log t)), t and c the entries of both changesets.
    public func followed(by next: Changeset) -> Changeset {
        Changeset(composing: [self, next])
    }
}

/// Builds a composed changeset one changeset at a time.
///
/// It follows only what the changesets touch. Items no changeset touched keep their relative
/// order through every change, so an untouched item's index maps from one state to the next by
/// counting the touched items before it. Each container (the list's sections; each section's
/// rows) has a `Track`: the indexes, in the latest state, of touched items, each with where it
/// came from (a place in the first state, or nowhere: inserted), and the indexes in the first
/// state of items that are no longer in their untouched place (deleted, moved or updated).
struct ChangesetComposer {
    /// Latest indexes of sections whose footer changed at some step, with how many times. A
    /// footer that appeared and disappeared again (an even count) is back as it was, unless its
    /// text changed too, which shows as an update of the section.
    private var footers: [Int: Int] = [:]
    /// The ids of the sections in `footers`, by the same latest indexes.
    private var footerIDs: [Int: SectionID] = [:]

    /// Whether every changeset appended so far had its ids; if one did not, the composed one has
    /// none.
    private var hasIDs = true
    /// Ids of the sections of the first state that some changeset touched, by first-state index.
    private var sectionIDs: [Int: SectionID] = [:]
    /// Ids of the rows of the first state that some changeset touched, by first-state path.
    private var rowIDs: [RowPath: RowID] = [:]

    /// Where a section of the latest state came from, and its id.
    enum SectionLabel {
        /// Inserted; `key` names its rows' track.
        case inserted(key: Int, id: SectionID)
        /// The section at this index in the first state, and whether its title or empty text
        /// changed.
        case old(Int, updated: Bool, id: SectionID)

        var key: Int {
            switch self {
            case .inserted(let key, _): return key
            case .old(let index, _, _): return index
            }
        }
    }

    /// Where a row of the latest state came from, and its id.
    enum RowLabel {
        /// Inserted (in this section, or in any section that did not exist in the first state).
        case inserted(id: RowID)
        /// The row at this path in the first state, and whether its content changed.
        case old(RowPath, updated: Bool, id: RowID)
    }

    /// The touched items of one container.
    ///
    /// Both lists are `ShiftedBlocks`, so that a change of a few entries costs O(b + p) steps
    /// for b blocks of at most p entries, not O(t): a session's edits each change one or two,
    /// while t grows with every edit. A change of many entries at once is rebuilt in one pass,
    /// O(t + c).
    struct Track<Label> {
        /// Indexes in the latest state of touched items, ascending, each with what it holds.
        private(set) var touched = ShiftedBlocks<Label>()
        /// Indexes in the first state of items no longer untouched, ascending (only for a
        /// container that existed in the first state).
        private(set) var removedOrigins = ShiftedBlocks<Void>()

        /// Indexes in the latest state of touched items, ascending.
        var slots: [Int] { touched.values }
        /// What each slot holds (parallel to `slots`).
        var labels: [Label] { touched.payloads }
        /// Indexes in the first state of items no longer untouched, ascending.
        var removed: [Int] { removedOrigins.values }

        /// The touched slot at `index`, if it is one.
        func slot(at index: Int) -> ShiftedBlocks<Label>.Place? {
            let place = touched.lowerBound(index)
            return touched.value(at: place) == index ? place : nil
        }

        /// What the touched slot at `place` holds.
        func label(at place: ShiftedBlocks<Label>.Place) -> Label { touched.payload(at: place) }

        mutating func setLabel(_ label: Label, at place: ShiftedBlocks<Label>.Place) { touched.setPayload(label, at: place) }

        /// The index in the first state of the untouched item at `index` in the latest state.
        func origin(ofUntouched index: Int) -> Int {
            let rank = index - touched.lowerBound(index).rank
            return removedOrigins.select(rank)
        }

        /// The index in the latest state of the untouched item at `origin` in the first state.
        func current(ofUntouched origin: Int) -> Int {
            let rank = origin - removedOrigins.lowerBound(origin).rank
            return touched.select(rank)
        }

        /// Marks the origin `index` as no longer untouched.
        mutating func markRemoved(_ index: Int) {
            let place = removedOrigins.lowerBound(index)
            if removedOrigins.value(at: place) != index { removedOrigins.insert(index, payload: (), at: place) }
        }

        /// The number of entries a change may have and still be made entry by entry.
        private static var fewEntries: Int { 8 }

        /// Takes out the items at `indexes` (latest state; ascending, distinct). Untouched items
        /// must have been marked removed by the caller; touched slots are dropped, and the others
        /// move down.
        mutating func takeOut(_ indexes: [Int]) {
            guard !indexes.isEmpty else { return }
            guard indexes.count <= Self.fewEntries else { return takeOutAll(indexes) }
            // From the last: a slot above an index moves down once for each index below it.
            for index in indexes.reversed() {
                let place = touched.lowerBound(index)
                if touched.value(at: place) == index { touched.remove(at: place) }
                touched.add(-1, from: touched.lowerBound(index))
            }
        }

        private mutating func takeOutAll(_ indexes: [Int]) {
            var keptSlots: [Int] = []
            var keptLabels: [Label] = []
            keptSlots.reserveCapacity(touched.count)
            var passed = 0
            for (slot, label) in zip(slots, labels) {
                while passed < indexes.count && indexes[passed] < slot { passed += 1 }
                if passed < indexes.count && indexes[passed] == slot { continue }
                keptSlots.append(slot - passed)
                keptLabels.append(label)
            }
            touched = ShiftedBlocks(values: keptSlots, payloads: keptLabels)
        }

        /// Puts `arrivals` (indexes in the new state, ascending, distinct) in place; every other
        /// slot moves up past the arrivals before it.
        mutating func bringIn(_ arrivals: [(index: Int, label: Label)]) {
            guard !arrivals.isEmpty else { return }
            guard arrivals.count <= Self.fewEntries else { return bringInAll(arrivals) }
            // From the first: each arrival takes its index, and every slot from there moves up.
            for arrival in arrivals {
                let place = touched.lowerBound(arrival.index)
                touched.add(1, from: place)
                touched.insert(arrival.index, payload: arrival.label, at: place)
            }
        }

        private mutating func bringInAll(_ arrivals: [(index: Int, label: Label)]) {
            var newSlots: [Int] = []
            var newLabels: [Label] = []
            newSlots.reserveCapacity(touched.count + arrivals.count)
            var passed = 0
            var next = 0
            for (slot, label) in zip(slots, labels) {
                // The slot-th index not taken by an arrival.
                var index = slot + passed
                while passed < arrivals.count && arrivals[passed].index <= index {
                    passed += 1
                    index = slot + passed
                }
                while next < arrivals.count && arrivals[next].index < index {
                    newSlots.append(arrivals[next].index)
                    newLabels.append(arrivals[next].label)
                    next += 1
                }
                newSlots.append(index)
                newLabels.append(label)
            }
            for arrival in arrivals[next...] {
                newSlots.append(arrival.index)
                newLabels.append(arrival.label)
            }
            touched = ShiftedBlocks(values: newSlots, payloads: newLabels)
        }

        /// Makes the untouched item at `index` (latest state) a touched one with `label`.
        mutating func touch(at index: Int, origin: Int, label: Label) {
            markRemoved(origin)
            touched.insert(index, payload: label, at: touched.lowerBound(index))
        }
    }

    private var sections = Track<SectionLabel>()
    /// Row tracks by section key: a section's index in the first state, or a negative key for a
    /// section inserted since.
    private var rows: [Int: Track<RowLabel>] = [:]
    private var nextKey = -1

    /// The key of the section at `index` in the latest state.
    private func sectionKey(at index: Int) -> Int {
        if let slot = sections.slot(at: index) { return sections.label(at: slot).key }
        return sections.origin(ofUntouched: index)
    }

    /// Resolves the rows at `indexes` (latest state) of the section `key`, whose ids are `ids`,
    /// marking untouched ones removed, and returns what each was.
    private mutating func resolveRows(_ indexes: [Int], ids: [RowID], key: Int) -> [RowLabel] {
        // Taken out of the dictionary while it changes, so that it is changed in place.
        var track = rows.removeValue(forKey: key) ?? Track()
        var labels: [RowLabel] = []
        var origins: [Int] = []
        for (index, id) in zip(indexes, ids) {
            if let slot = track.slot(at: index) {
                labels.append(track.label(at: slot))
            } else if key >= 0 {
                let origin = track.origin(ofUntouched: index)
                origins.append(origin)
                rowIDs[RowPath(section: key, row: origin)] = id
                labels.append(.old(RowPath(section: key, row: origin), updated: false, id: id))
            } else {
                labels.append(.inserted(id: id))  // a row that came with an inserted section
            }
        }
        // Marked once all are resolved: every index above names the state before this change.
        for origin in origins { track.markRemoved(origin) }
        rows[key] = track
        return labels
    }

    /// Adds the next changeset, which starts from the state the previous one ended in.
    /// - Complexity: O(t · (c + log t)), t the number of touched items, c the changeset's entries.
    mutating func append(_ change: Changeset) {
        // Footers are followed apart: each one noted is carried to its section's latest index,
        // and dropped with the section.
        let sectionMap = SectionIndexMap(change)
        var carried: [Int: Int] = [:]
        var carriedIDs: [Int: SectionID] = [:]
        for (index, count) in footers {
            guard let new = sectionMap.newIndex(ofOld: index) else { continue }
            carried[new] = count
            carriedIDs[new] = footerIDs[index]
        }
        for (position, index) in change.changedFooters.enumerated() {
            carried[index, default: 0] += 1
            if position < change.changedFooterIDs.count { carriedIDs[index] = change.changedFooterIDs[position] }
        }
        footers = carried
        footerIDs = carriedIDs

        // The ids of the change's entries (0 where it has none: the result will have none).
        if !change.hasIDs { hasIDs = false }
        func ids<ID: StoredID>(_ ids: [ID], _ count: Int) -> [ID] { ids.count == count ? ids : Array(repeating: ID(0), count: count) }
        let deletedSectionIDs = ids(change.deletedSectionIDs, change.deletedSections.count)
        let insertedSectionIDs = ids(change.insertedSectionIDs, change.insertedSections.count)
        let movedSectionIDs = ids(change.movedSectionIDs, change.movedSections.count)
        let updatedSectionIDs = ids(change.updatedSectionIDs, change.updatedSections.count)
        let deletedRowIDs = ids(change.deletedRowIDs, change.deletedRows.count)
        let insertedRowIDs = ids(change.insertedRowIDs, change.insertedRows.count)
        let movedRowIDs = ids(change.movedRowIDs, change.movedRows.count)
        let updatedRowIDs = ids(change.updatedRowIDs, change.updatedRows.count)

        // 1. Everything that leaves, named by its place in the old state.
        var rowsLeaving: [Int: [(row: Int, id: RowID)]] = [:]  // section key → row indexes and ids
        for (path, id) in zip(change.deletedRows + change.movedRows.map(\.from), deletedRowIDs + movedRowIDs) {
            rowsLeaving[sectionKey(at: path.section), default: []].append((path.row, id))
        }
        var rowLabels: [Int: [Int: RowLabel]] = [:]  // section key → row index → label
        for (key, leaving) in rowsLeaving {
            let sorted = leaving.sorted { $0.row < $1.row }
            let indexes = sorted.map(\.row)
            let labels = resolveRows(indexes, ids: sorted.map(\.id), key: key)
            rowLabels[key] = Dictionary(uniqueKeysWithValues: zip(indexes, labels))
            rows[key]!.takeOut(indexes)
        }
        var movedRowLabels: [RowPath: RowLabel] = [:]  // by new path
        for move in change.movedRows {
            movedRowLabels[move.to] = rowLabels[sectionKey(at: move.from.section)]![move.from.row]!
        }

        let leaving = zip(change.deletedSections + change.movedSections.map(\.from), deletedSectionIDs + movedSectionIDs)
            .sorted { $0.0 < $1.0 }
        let sectionsLeaving = leaving.map(\.0)
        var sectionLabels: [Int: SectionLabel] = [:]
        for (index, id) in leaving {
            if let slot = sections.slot(at: index) {
                sectionLabels[index] = sections.label(at: slot)
            } else {
                let origin = sections.origin(ofUntouched: index)
                sectionIDs[origin] = id
                sectionLabels[index] = .old(origin, updated: false, id: id)
            }
        }
        for index in sectionsLeaving where sections.slot(at: index) == nil {
            if case .old(let origin, _, _) = sectionLabels[index]! { sections.markRemoved(origin) }
        }
        for index in change.deletedSections {
            rows[sectionLabels[index]!.key] = nil
        }
        sections.takeOut(sectionsLeaving)

        // 2. Everything that arrives, at its place in the new state.
        var sectionArrivals: [(index: Int, label: SectionLabel)] = change.movedSections.map { ($0.to, sectionLabels[$0.from]!) }
        for (index, id) in zip(change.insertedSections, insertedSectionIDs) {
            sectionArrivals.append((index, .inserted(key: nextKey, id: id)))
            nextKey -= 1
        }
        sectionArrivals.sort { $0.index < $1.index }
        sections.bringIn(sectionArrivals)

        var rowArrivals: [Int: [(index: Int, label: RowLabel)]] = [:]
        for (path, id) in zip(change.insertedRows, insertedRowIDs) {
            rowArrivals[sectionKey(at: path.section), default: []].append((path.row, .inserted(id: id)))
        }
        for (path, label) in movedRowLabels {
            rowArrivals[sectionKey(at: path.section), default: []].append((path.row, label))
        }
        for (key, arrivals) in rowArrivals {
            rows[key, default: Track()].bringIn(arrivals.sorted { $0.index < $1.index })
        }

        // 3. Updates, at new places.
        for (index, id) in zip(change.updatedSections, updatedSectionIDs) {
            if let slot = sections.slot(at: index) {
                if case .old(let origin, _, let id) = sections.label(at: slot) { sections.setLabel(.old(origin, updated: true, id: id), at: slot) }
            } else {
                let origin = sections.origin(ofUntouched: index)
                sectionIDs[origin] = id
                sections.touch(at: index, origin: origin, label: .old(origin, updated: true, id: id))
            }
        }
        for (path, id) in zip(change.updatedRows, updatedRowIDs) {
            let key = sectionKey(at: path.section)
            var track = rows.removeValue(forKey: key) ?? Track()
            if let slot = track.slot(at: path.row) {
                if case .old(let origin, _, let id) = track.label(at: slot) { track.setLabel(.old(origin, updated: true, id: id), at: slot) }
            } else if key >= 0 {
                let origin = track.origin(ofUntouched: path.row)
                rowIDs[RowPath(section: key, row: origin)] = id
                track.touch(at: path.row, origin: origin, label: .old(RowPath(section: key, row: origin), updated: true, id: id))
            }
            rows[key] = track
        }
    }

    /// The changeset from the first state to the latest.
    /// - Complexity: O(t log t + t · r), t the touched items, r those that turn out to be in
    ///   place again.
    var changeset: Changeset {
        var result = Changeset()

        // Sections.
        let sectionSlots = sections.slots
        let sectionLabels = sections.labels
        let sectionsRemoved = sections.removed
        var arrivedSections: Set<Int> = []
        for label in sectionLabels {
            if case .old(let origin, _, _) = label { arrivedSections.insert(origin) }
        }
        result.deletedSections = sectionsRemoved.filter { !arrivedSections.contains($0) }
        result.deletedSectionIDs = result.deletedSections.map { sectionIDs[$0] ?? 0 }
        let deletedSections = Set(result.deletedSections)
        var sectionsInPlace = InPlace(removed: sectionsRemoved)
        var sectionIndex: [Int: Int] = [:]  // first-state index → latest index, for touched sections
        for (position, (index, label)) in zip(sectionSlots, sectionLabels).enumerated() {
            switch label {
            case .inserted(_, let id):
                result.insertedSections.append(index)
                result.insertedSectionIDs.append(id)
            case .old(let origin, let updated, let id):
                sectionIndex[origin] = index
                if !sectionsInPlace.keeps(origin: origin, at: index, touchedBefore: position) {
                    result.movedSections.append(.init(from: origin, to: index))
                    result.movedSectionIDs.append(id)
                }
                if updated {
                    result.updatedSections.append(index)
                    result.updatedSectionIDs.append(id)
                }
            }
        }

        // Rows that reached a surviving section of the first state.
        var arrivedRows: Set<RowPath> = []
        for (key, track) in rows where key >= 0 {
            for label in track.labels {
                if case .old(let path, _, _) = label { arrivedRows.insert(path) }
            }
        }
        for (key, track) in rows.sorted(by: { $0.key < $1.key }) where key >= 0 && !deletedSections.contains(key) {
            let section = sectionIndex[key] ?? sections.current(ofUntouched: key)
            let removed = track.removed
            for row in removed where !arrivedRows.contains(RowPath(section: key, row: row)) {
                let origin = RowPath(section: key, row: row)
                result.deletedRows.append(origin)
                result.deletedRowIDs.append(rowIDs[origin] ?? 0)
            }
            var rowsInPlace = InPlace(removed: removed)
            for (position, (index, label)) in zip(track.slots, track.labels).enumerated() {
                let path = RowPath(section: section, row: index)
                switch label {
                case .inserted(let id):
                    result.insertedRows.append(path)
                    result.insertedRowIDs.append(id)
                case .old(let origin, let updated, let id):
                    if deletedSections.contains(origin.section) {
                        result.insertedRows.append(path)  // out of a deleted section
                        result.insertedRowIDs.append(id)
                        continue
                    }
                    if !(origin.section == key && rowsInPlace.keeps(origin: origin.row, at: index, touchedBefore: position)) {
                        result.movedRows.append(.init(from: origin, to: path))
                        result.movedRowIDs.append(id)
                    }
                    if updated {
                        result.updatedRows.append(path)
                        result.updatedRowIDs.append(id)
                    }
                }
            }
        }

        if !hasIDs { result.clearIDs() }
        result.sortEntries()
        let inserted = Set(result.insertedSections)
        let updated = Set(result.updatedSections)
        result.changedFooters = footers.filter { index, count in
            !inserted.contains(index) && (count % 2 == 1 || updated.contains(index))
        }.map(\.key).sorted()
        if hasIDs { result.changedFooterIDs = result.changedFooters.map { footerIDs[$0] ?? 0 } }
        return result
    }
}

/// Decides which touched items of a container are back in their untouched place, taking them
/// in ascending latest index: an item is in place when as many untouched items come before it
/// in the first state as in the latest. Each item found in place counts as untouched for the
/// items after it.
private struct InPlace {
    let removed: [Int]
    /// First-state indexes of items found in place so far, ascending.
    var restored: [Int] = []

    init(removed: [Int]) {
        self.removed = removed
    }

    /// Whether the item from `origin`, now at `index` with `touchedBefore` touched items before
    /// it, is in place; if so it counts as untouched from now on.
    mutating func keeps(origin: Int, at index: Int, touchedBefore: Int) -> Bool {
        let restoredBeforeOrigin = lowerBound(restored, origin)
        let untouchedBeforeOrigin = origin - lowerBound(removed, origin) + restoredBeforeOrigin
        // Every item restored so far has a smaller latest index.
        let untouchedBeforeIndex = index - touchedBefore + restored.count
        guard untouchedBeforeOrigin == untouchedBeforeIndex else { return false }
        restored.insert(origin, at: restoredBeforeOrigin)
        return true
    }
}

/// The number of elements of ascending `values` below `value`.
private func lowerBound(_ values: [Int], _ value: Int) -> Int {
    var low = 0
    var high = values.count
    while low < high {
        let middle = (low + high) / 2
        if values[middle] < value { low = middle + 1 } else { high = middle }
    }
    return low
}

/// The `rank`-th (0-based) non-negative integer not in ascending `taken`.
private func select(_ rank: Int, skipping taken: [Int]) -> Int {
    // The answer is rank + (how many taken values are ≤ it): search for the smallest i with
    // taken[i] - i > rank; then the answer is rank + i.
    var low = 0
    var high = taken.count
    while low < high {
        let middle = (low + high) / 2
        if taken[middle] - middle <= rank { low = middle + 1 } else { high = middle }
    }
    return rank + low
}

/// Ascending integers, each with a payload, in blocks of at most `maximum`; each block keeps its
/// values less a shift of its own, so that adding to every value from a place on changes the
/// values of one block and the shifts of the blocks after it. The blocks' shifts, sizes and
/// last values are kept in arrays of their own, so that the steps over the blocks read
/// contiguous integers. Finding a value, inserting or removing one and adding from a place each
/// cost O(b + maximum) steps for b blocks.
struct ShiftedBlocks<Payload> {
    struct Block {
        var values: [Int]
        var payloads: [Payload]
    }

    /// A place among the values: a block and an index in it, with the number of values before it
    /// (`rank`); the end is one past the last block.
    struct Place {
        var block: Int
        var index: Int
        var rank: Int
    }

    static var maximum: Int { 128 }

    private var blocks: [Block] = []
    /// What each block's values are stored less.
    private var shifts: [Int] = []
    /// The number of values in each block.
    private var sizes: [Int] = []
    /// The last value of each block, its shift added.
    private var lasts: [Int] = []
    private(set) var count = 0

    init() {}

    /// The values (ascending) with their payloads.
    init(values: [Int], payloads: [Payload]) {
        count = values.count
        let size = Self.maximum / 2
        for start in stride(from: 0, to: values.count, by: size) {
            let end = min(start + size, values.count)
            blocks.append(Block(values: Array(values[start..<end]), payloads: Array(payloads[start..<end])))
            shifts.append(0)
            sizes.append(end - start)
            lasts.append(values[end - 1])
        }
    }

    /// Every value, ascending.
    var values: [Int] {
        var result: [Int] = []
        result.reserveCapacity(count)
        for (number, block) in blocks.enumerated() {
            let shift = shifts[number]
            result += block.values.lazy.map { $0 + shift }
        }
        return result
    }

    /// Every payload, in the order of the values.
    var payloads: [Payload] {
        var result: [Payload] = []
        result.reserveCapacity(count)
        for block in blocks { result += block.payloads }
        return result
    }

    /// The place of the first value not below `value` (the end when none).
    func lowerBound(_ value: Int) -> Place {
        var rank = 0
        for number in lasts.indices {
            if lasts[number] >= value {
                let target = value - shifts[number]
                var low = 0
                var high = sizes[number]
                while low < high {
                    let middle = (low + high) / 2
                    if blocks[number].values[middle] < target { low = middle + 1 } else { high = middle }
                }
                return Place(block: number, index: low, rank: rank + low)
            }
            rank += sizes[number]
        }
        return Place(block: blocks.count, index: 0, rank: rank)
    }

    /// The value at a place; `nil` at the end.
    func value(at place: Place) -> Int? {
        place.block < blocks.count ? blocks[place.block].values[place.index] + shifts[place.block] : nil
    }

    func payload(at place: Place) -> Payload { blocks[place.block].payloads[place.index] }

    mutating func setPayload(_ payload: Payload, at place: Place) { blocks[place.block].payloads[place.index] = payload }

    /// Sets a block's size and last value from its values.
    private mutating func refresh(_ number: Int) {
        sizes[number] = blocks[number].values.count
        lasts[number] = blocks[number].values[sizes[number] - 1] + shifts[number]
    }

    /// Inserts a value at a place, which must keep the values ascending.
    mutating func insert(_ value: Int, payload: Payload, at place: Place) {
        count += 1
        guard !blocks.isEmpty else {
            blocks = [Block(values: [value], payloads: [payload])]
            shifts = [0]
            sizes = [1]
            lasts = [value]
            return
        }
        // At the end: into the last block.
        let number = min(place.block, blocks.count - 1)
        let index = place.block < blocks.count ? place.index : sizes[number]
        blocks[number].values.insert(value - shifts[number], at: index)
        blocks[number].payloads.insert(payload, at: index)
        if blocks[number].values.count > Self.maximum {
            let half = blocks[number].values.count / 2
            let tail = Block(values: Array(blocks[number].values[half...]), payloads: Array(blocks[number].payloads[half...]))
            blocks[number].values.removeSubrange(half...)
            blocks[number].payloads.removeSubrange(half...)
            blocks.insert(tail, at: number + 1)
            shifts.insert(shifts[number], at: number + 1)
            sizes.insert(0, at: number + 1)
            lasts.insert(0, at: number + 1)
            refresh(number + 1)
        }
        refresh(number)
    }

    /// Removes the value at a place (not the end).
    mutating func remove(at place: Place) {
        count -= 1
        let number = place.block
        blocks[number].values.remove(at: place.index)
        blocks[number].payloads.remove(at: place.index)
        if blocks[number].values.isEmpty {
            blocks.remove(at: number)
            shifts.remove(at: number)
            sizes.remove(at: number)
            lasts.remove(at: number)
            return
        }
        if blocks[number].values.count < Self.maximum / 4, number + 1 < blocks.count,
            blocks[number].values.count + sizes[number + 1] <= Self.maximum
        {
            // Joined to the next block, in this one's shift.
            let next = blocks.remove(at: number + 1)
            let difference = shifts.remove(at: number + 1) - shifts[number]
            sizes.remove(at: number + 1)
            lasts.remove(at: number + 1)
            blocks[number].values += next.values.map { $0 + difference }
            blocks[number].payloads += next.payloads
        }
        refresh(number)
    }

    /// Adds `delta` to the value at `place` and every value after it.
    mutating func add(_ delta: Int, from place: Place) {
        guard place.block < blocks.count else { return }
        for index in place.index..<sizes[place.block] { blocks[place.block].values[index] += delta }
        lasts[place.block] += delta
        for number in (place.block + 1)..<blocks.count {
            shifts[number] += delta
            lasts[number] += delta
        }
    }

    /// The `rank`-th (0-based) non-negative integer not among the values.
    func select(_ rank: Int) -> Int {
        // The answer is rank + (how many values are ≤ it): the smallest i with value(i) - i >
        // rank gives rank + i (value(i) - i never decreases).
        var before = 0
        for number in sizes.indices {
            let size = sizes[number]
            if lasts[number] - (before + size - 1) > rank {
                let shift = shifts[number]
                var low = 0
                var high = size
                while low < high {
                    let middle = (low + high) / 2
                    if blocks[number].values[middle] + shift - (before + middle) <= rank { low = middle + 1 } else { high = middle }
                }
                return rank + before + low
            }
            before += size
        }
        return rank + before
    }
}
