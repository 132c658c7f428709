/// What a pull reads from the server: where the items a sync must look at stand there now.
///
/// A pull does not replay the server's changesets one by one; it brings the items they touched
/// (and the items the replica's own pending intents touched) to where the server has them, in one
/// local transaction. Items neither side touched since the last pull stand alike on both (the
/// replica equalled the server then), so they are never read.
struct PullFacts: Sendable {
    struct SectionFact: Sendable, Equatable {
        /// Its position on the server: the sections' order.
        var order: Int64
        /// Its index (0-based); set in whole facts only (`fill` uses it).
        var index: Int
        var title: String
        var emptyText: String?
        /// The section before it on the server; `nil` for the first.
        var predecessor: SectionID?
    }

    struct RowFact: Sendable, Equatable {
        var section: SectionID
        /// Its section's position and its own on the server: the order to apply them in.
        var sectionOrder: Int64
        var order: Int64
        /// Its index in its section; set in whole facts only (`fill` uses it).
        var index: Int
        var content: RowContent
        /// The row before it in its section on the server; `nil` for the first.
        var predecessor: RowID?
    }

    /// The server's version of the list these facts are of.
    var version: ListVersion
    /// Whether the facts cover the whole list (the journal could not say what changed).
    var whole: Bool
    /// The sections looked at: where each stands, or `nil` for one the server no longer has.
    var sections: [SectionID: SectionFact?] = [:]
    /// The rows looked at, likewise.
    var rows: [RowID: RowFact?] = [:]
}

extension PullFacts {
    /// Reads the facts of `list` (on the server, `db`, in the sync's transaction) that a replica
    /// which pulled version `since` needs: the items the journal's entries after `since` name,
    /// every row of the sections they say were added, and the items `touched` names (every row of
    /// `touched.whole`: sections the replica deleted, rows and all); the whole list when the
    /// journal cannot say, or when `wholeList` (a new replica, or one whose copy plain SQL changed).
    ///
    /// Two statements: the journal's entries, then the facts by id (each id list one parameter,
    /// `Database.oneOf`), each item's place read as its position and its predecessor's id by the
    /// `(parent, position)` index, never by index.
    static func readForSync(list: ListRecord, since: ListVersion, touched: Touched, wholeList: Bool, db: any Database) throws -> PullFacts {
        var journaled = false
        var entries: [(version: ListVersion, changes: String)] = []
        try db.forEachRow(
            """
            SELECT l.journaled, j.version, j.changes FROM lists AS l
            LEFT JOIN journal AS j ON j.list_id = l.id AND j.version > ?
            WHERE l.id = ? ORDER BY j.version
            """, arguments: [since.rawValue, list.id]
        ) { row in
            journaled = row.int64(0) == 1
            if let version = row.optionalListVersion(1) { entries.append((version, row.string(2))) }
            return true
        }
        guard !wholeList, let named = named(byJournal: entries, since: since, listVersion: list.version, journaled: journaled) else {
            return try whole(list: list, db: db)
        }
        let wholeSections = named.added.union(touched.whole)
        let rows = named.rows.union(touched.rows)
        let sections = named.sections.union(touched.sections).union(touched.whole)
        guard !rows.isEmpty || !sections.isEmpty else { return PullFacts(version: list.version, whole: false) }
        var facts = try readItems(listID: list.id, rows: rows, sections: sections, wholeSections: wholeSections, db: db)
        facts.version = list.version
        return facts
    }

    /// What the journal's entries after version `since` name: the rows and sections they
    /// changed, and the sections they added (whose rows no entry names); `nil` when they cannot
    /// say: plain SQL changed the list (`journaled` false), an entry is gone (pruned), or one
    /// names no ids.
    static func named(byJournal entries: [(version: ListVersion, changes: String)], since: ListVersion, listVersion: ListVersion, journaled: Bool)
        -> (rows: Set<RowID>, sections: Set<SectionID>, added: Set<SectionID>)?
    {
        var named = (rows: Set<RowID>(), sections: Set<SectionID>(), added: Set<SectionID>())
        guard journaled && since >= 0 else { return nil }
        guard since < listVersion else { return named }
        guard entries.count == Int(since.distance(to: listVersion)), entries.first?.version == since.next else { return nil }
        for entry in entries {
            guard let changeset = try? Changeset(json: entry.changes), changeset.isEmpty || changeset.hasIDs else { return nil }
            named.rows.formUnion(changeset.insertedRowIDs + changeset.movedRowIDs + changeset.updatedRowIDs + changeset.deletedRowIDs)
            named.sections.formUnion(
                changeset.insertedSectionIDs + changeset.movedSectionIDs + changeset.updatedSectionIDs + changeset.deletedSectionIDs)
            named.added.formUnion(changeset.insertedSectionIDs)
        }
        return named
    }

    /// The facts of `sections` and `rows` of list `listID` (`nil` for each the list does not
    /// have), with every row of `wholeSections`, and the list's version (0 when the list is
    /// gone), read in one statement whatever the count.
    static func readItems(
        listID: Int64, rows: Set<RowID>, sections: Set<SectionID>, wholeSections: Set<SectionID>, db: any Database
    ) throws -> PullFacts {
        var facts = PullFacts(version: 0, whole: false)
        for id in sections { facts.sections[id] = .some(nil) }
        for id in rows { facts.rows[id] = .some(nil) }
        let sectionIDs = db.oneOf("s.id", sections.map(\.rawValue))
        let rowIDs = db.oneOf("r.id", rows.map(\.rawValue))
        let rowSections = db.oneOf("r.section_id", wholeSections.map(\.rawValue))
        // The list is checked on each item read, not asked of the index: a condition on
        // `list_id` would tempt a planner into reading every item of the list.
        let rowColumns = """
            SELECT 1, r.id, r.section_id, s.position, r.position, r.title, r.value, r.kind,
                (SELECT p.id FROM rows AS p WHERE p.section_id = r.section_id AND p.position < r.position ORDER BY p.position DESC LIMIT 1),
                s.list_id
            FROM rows AS r JOIN sections AS s ON s.id = r.section_id WHERE
            """
        try db.forEachRow(
            """
            SELECT 2, l.version, CAST(NULL AS bigint), CAST(NULL AS bigint), CAST(NULL AS bigint), CAST(NULL AS text),
                CAST(NULL AS text), CAST(NULL AS text), CAST(NULL AS bigint), l.id
            FROM lists AS l WHERE l.id = ?
            UNION ALL
            SELECT 0, s.id, NULL, s.position, NULL, s.title, s.empty_text, NULL,
                (SELECT p.id FROM sections AS p WHERE p.list_id = s.list_id AND p.position < s.position ORDER BY p.position DESC LIMIT 1),
                s.list_id
            FROM sections AS s WHERE \(sectionIDs.sql)
            UNION ALL
            \(rowColumns) \(rowIDs.sql)
            UNION ALL
            \(rowColumns) \(rowSections.sql)
            """, arguments: [listID, sectionIDs.argument, rowIDs.argument, rowSections.argument]
        ) { row in
            guard row.int64(9) == listID else { return true }
            switch row.int64(0) {
            case 2:
                facts.version = row.listVersion(1)
            case 0:
                facts.sections[SectionID(row.int64(1))] = SectionFact(
                    order: row.int64(3), index: 0, title: row.string(5), emptyText: row.optionalString(6),
                    predecessor: row.optionalInt64(8).map(SectionID.init))
            default:
                let content = RowContent(kind: RowKind(rawValue: row.string(7)) ?? .text, title: row.string(5), value: row.optionalString(6))
                facts.rows[RowID(row.int64(1))] = RowFact(
                    section: SectionID(row.int64(2)), sectionOrder: row.int64(3), order: row.int64(4), index: 0, content: content,
                    predecessor: row.optionalInt64(8).map(RowID.init))
            }
            return true
        }
        return facts
    }

    /// The facts of every section and row of `list`, in two queries.
    static func whole(list: ListRecord, db: any Database) throws -> PullFacts {
        var facts = PullFacts(version: list.version, whole: true)
        var previousSection: SectionID?
        var sectionCount = 0
        try db.forEachRow(
            "SELECT id, position, title, empty_text FROM sections WHERE list_id = ? ORDER BY position", arguments: [list.id]
        ) { row in
            let id = SectionID(row.int64(0))
            facts.sections[id] = SectionFact(
                order: row.int64(1), index: sectionCount, title: row.string(2), emptyText: row.optionalString(3), predecessor: previousSection)
            sectionCount += 1
            previousSection = id
            return true
        }
        var previousRow: (section: Int64, id: RowID)?
        var index = 0
        try db.forEachRow(
            """
            SELECT r.id, r.section_id, s.position, r.position, r.kind, r.title, r.value FROM rows AS r JOIN sections AS s ON s.id = r.section_id
            WHERE s.list_id = ? ORDER BY s.position, r.position
            """, arguments: [list.id]
        ) { row in
            let section = row.int64(1)
            let predecessor = previousRow?.section == section ? previousRow?.id : nil
            index = predecessor == nil ? 0 : index + 1
            let content = RowContent(kind: RowKind(rawValue: row.string(4)) ?? .text, title: row.string(5), value: row.optionalString(6))
            let id = RowID(row.int64(0))
            facts.rows[id] = RowFact(
                section: SectionID(section), sectionOrder: row.int64(2), order: row.int64(3), index: index, content: content,
                predecessor: predecessor)
            previousRow = (section, id)
            return true
        }
        return facts
    }
}

extension PullFacts {
    /// Whole facts narrowed to what differs from `local` (the replica's list as it is): the
    /// sections and rows the changeset from `local` to the server's list names (inserted, moved,
    /// changed, deleted), the rows of a section either side lacks, and nothing else. Items
    /// outside it stand in the same order on both sides (the changeset keeps the longest run of
    /// unmoved items), which is what `apply` needs; so a pull the journal could not answer reads
    /// the whole list but writes only what differs.
    func narrowed(against local: ListSnapshot) -> PullFacts {
        precondition(whole)
        var rowsBySection: [SectionID: [(id: RowID, fact: RowFact)]] = [:]
        for (id, fact) in rows { if let fact { rowsBySection[fact.section, default: []].append((id, fact)) } }
        let ordered = sections.compactMap { entry in entry.value.map { (id: entry.key, fact: $0) } }.sorted { $0.fact.order < $1.fact.order }
        let server = ListSnapshot(
            name: local.name, version: version,
            sections: ordered.map { section in
                Section(
                    id: section.id, title: section.fact.title, emptyText: section.fact.emptyText,
                    rows: (rowsBySection[section.id] ?? []).sorted { $0.fact.order < $1.fact.order }.map { Row(id: $0.id, content: $0.fact.content) })
            })
        let diff = Changeset(from: local, to: server)
        var narrowed = PullFacts(version: version, whole: false)
        for id in diff.insertedSectionIDs + diff.movedSectionIDs + diff.updatedSectionIDs { narrowed.sections[id] = sections[id] ?? .some(nil) }
        for id in diff.deletedSectionIDs { narrowed.sections[id] = .some(nil) }
        for id in diff.insertedRowIDs + diff.movedRowIDs + diff.updatedRowIDs { narrowed.rows[id] = rows[id] ?? .some(nil) }
        for id in diff.deletedRowIDs { narrowed.rows[id] = .some(nil) }
        // A changeset leaves out the rows of sections it inserts or deletes.
        for id in diff.insertedSectionIDs {
            for row in rowsBySection[id] ?? [] { narrowed.rows[row.id] = row.fact }
        }
        let deleted = Set(diff.deletedSectionIDs)
        for section in local.sections where deleted.contains(section.id) {
            for row in section.rows { narrowed.rows[row.id] = rows[row.id] ?? .some(nil) }
        }
        return narrowed
    }

    /// Brings `list` (the replica's copy, `db` in a write transaction) to these facts: each
    /// section and row looked at goes where the server has it, with its content, or away when the
    /// server has none. Applied in the order the server has them, each placed after its
    /// predecessor there, so that the touched items end up in the server's order among the
    /// untouched ones; rows already in that order stay where they are (`rowsInPlace`). Whole
    /// facts are narrowed first (`narrowed(against:)`).
    /// - Returns: the changesets of the writes, in order.
    func apply(to list: ListRecord, db: any Database, store: SectionStore) throws -> [Changeset] {
        var stored = StoredList(db: db, list: list, store: store)
        var changesets: [Changeset] = []
        func perform(_ edit: Edit, newID: Int64? = nil) throws {
            stored.newID = newID
            let outcome = try EditRules.apply(edit, to: &stored)
            stored.newID = nil
            if !outcome.changeset.isEmpty { changesets.append(outcome.changeset) }
        }
        precondition(!whole, "whole facts are narrowed first")
        let goneSections = Set(sections.compactMap { $0.value == nil ? $0.key : nil })
        let goneRows = Set(rows.compactMap { $0.value == nil ? $0.key : nil })
        // Sections, in the server's order.
        let placedSections = sections.compactMap { entry in entry.value.map { (entry.key, $0) } }.sorted { $0.1.order < $1.1.order }
        for (id, fact) in placedSections {
            let here = try IntentRules.sectionIfPresent(id, in: stored)
            var index = 0
            if let predecessor = fact.predecessor {
                let before = try stored.section(.id(predecessor)).index
                index = here.map { $0.index < before } == true ? before : before + 1
            }
            if let here {
                try perform(.moveSection(.id(id), to: index))
                if here.title != fact.title { try perform(.renameSection(.id(id), title: fact.title)) }
                if here.emptyText != fact.emptyText { try perform(.setEmptyText(.id(id), fact.emptyText)) }
            } else {
                try perform(.addSection(title: fact.title, emptyText: fact.emptyText, at: index), newID: id.rawValue)
            }
        }
        // Rows, in the server's order.
        let placedRows = rows.compactMap { entry in entry.value.map { (entry.key, $0) } }
            .sorted { ($0.1.sectionOrder, $0.1.order) < ($1.1.sectionOrder, $1.1.order) }
        let inPlace = try rowsInPlace(placedRows, db: db)
        for (id, fact) in placedRows {
            let destination = fact.predecessor.map { RowDestination.after($0) } ?? RowDestination(section: .id(fact.section), index: .index(0))
            if let here = try IntentRules.rowIfPresent(id, in: stored) {
                if !(inPlace.contains(id) && here.section.id == fact.section) { try perform(.moveRow(.id(id), to: destination)) }
                if here.row.content != fact.content {
                    let value: ValueUpdate = fact.content.kind == .field ? (fact.content.value.map { .set($0) } ?? .remove) : .keep
                    try perform(.updateRow(.id(id), title: fact.content.title, value: value))
                }
            } else {
                try perform(.addRow(fact.content, to: destination), newID: id.rawValue)
            }
        }
        for id in goneRows where try IntentRules.rowIfPresent(id, in: stored) != nil {
            try perform(.deleteRow(.id(id)))
        }
        for id in goneSections where try IntentRules.sectionIfPresent(id, in: stored) != nil {
            try perform(.deleteSection(.id(id), force: true))
        }
        return changesets
    }

    /// A pull of many rows into a section reads the section's order here once when the facts
    /// name at least this many of its rows, and at least a 64th of them.
    static let inPlaceMinimumRows = 16

    /// The rows of `placed` (the placed rows' facts, in the server's order) that need not move:
    /// the most rows of each section that stand here in the server's order already, relative to
    /// one another and to the rows no fact places (which never move). Every other placed row is
    /// then placed after its predecessor, in the server's order, and the section ends in the same
    /// order as when every row is placed: each moved row lands right after its predecessor, and
    /// the rows kept are in order among themselves and the unplaced ones. Without this, a row out
    /// of place here (moved on both sides) would make every row after it move in front of it, each
    /// halving the gap left: a replica that pulled thousands of changes rewrote most of its list,
    /// spreading positions again and again, and reported every row moved.
    ///
    /// Sections of few placed rows, or of many more rows than are placed, are left to the row by
    /// row placing (the section is not read); so is a section whose facts and rows here do not
    /// fit together (a predecessor that is neither placed nor here).
    private func rowsInPlace(_ placed: [(RowID, RowFact)], db: any Database) throws -> Set<RowID> {
        var kept = Set<RowID>()
        let placedIDs = Set(placed.map(\.0))
        var bySection: [SectionID: [RowID]] = [:]
        var predecessors: [RowID: RowID?] = [:]
        for (id, fact) in placed {
            bySection[fact.section, default: []].append(id)
            predecessors[id] = fact.predecessor
        }
        for (section, facts) in bySection where facts.count >= Self.inPlaceMinimumRows {
            let limit = facts.count * 64
            let here = try db.query(
                "SELECT id FROM rows WHERE section_id = ? ORDER BY position LIMIT ?", section.rawValue, Int64(limit + 1)
            ) { RowID($0.int64(0)) }
            guard here.count <= limit else { continue }
            if let rows = Self.longestInOrder(facts: facts, predecessors: predecessors, here: here, placed: placedIDs) {
                kept.formUnion(rows)
            }
        }
        return kept
    }

    /// For one section: the placed rows (`facts`, in the server's order) that stand in the
    /// server's order among the rows `here` (the section's rows in this file's order), as many as
    /// can; `nil` when they do not fit together.
    ///
    /// The section's order to reach is each unplaced row here, in this file's order, followed by
    /// the run of placed rows whose predecessors lead back to it (the run at the section's start
    /// first). Of the rows here in that order, the heaviest subsequence rising in it is kept, an
    /// unplaced row weighing more than every placed one together, so that every unplaced row is
    /// in it (they never move).
    static func longestInOrder(facts: [RowID], predecessors: [RowID: RowID?], here: [RowID], placed: Set<RowID>) -> Set<RowID>? {
        let unplaced = here.filter { !placed.contains($0) }
        let unplacedSet = Set(unplaced)
        // The runs of placed rows, by the unplaced row they follow (nil: the section's start).
        var runs: [RowID?: [RowID]] = [:]
        var runOf: [RowID: RowID?] = [:]
        for id in facts {
            let anchor: RowID?
            switch predecessors[id] ?? nil {
            case nil:
                guard runs[nil] == nil else { return nil }
                anchor = nil
            case let predecessor? where unplacedSet.contains(predecessor):
                guard runs[predecessor] == nil else { return nil }
                anchor = predecessor
            case let predecessor?:
                guard let run = runOf[predecessor], runs[run]?.last == predecessor else { return nil }
                anchor = run
            }
            runs[anchor, default: []].append(id)
            runOf[id] = anchor
        }
        var target = runs[nil] ?? []
        for id in unplaced { target += [id] + (runs[id] ?? []) }
        // The placed rows must come in the server's order: otherwise the unplaced rows stand
        // otherwise here than there, and the row by row placing decides.
        guard target.filter({ !unplacedSet.contains($0) }) == facts else { return nil }
        let rank = Dictionary(uniqueKeysWithValues: target.enumerated().map { ($1, $0) })
        let sequence = here.compactMap { id in rank[id].map { (id: id, rank: $0, weight: unplacedSet.contains(id) ? facts.count + 1 : 1) } }
        // The heaviest rising subsequence, by a Fenwick tree of the best (weight, end) per rank.
        var tree = [(weight: Int, end: Int)](repeating: (0, -1), count: target.count + 1)
        var previous = [Int](repeating: -1, count: sequence.count)
        var best = (weight: 0, end: -1)
        for (index, item) in sequence.enumerated() {
            var before = (weight: 0, end: -1)
            var node = item.rank
            while node > 0 {
                if tree[node].weight > before.weight { before = tree[node] }
                node -= node & -node
            }
            let total = (weight: before.weight + item.weight, end: index)
            previous[index] = before.end
            if total.weight > best.weight { best = total }
            node = item.rank + 1
            while node <= target.count {
                if total.weight > tree[node].weight { tree[node] = total }
                node += node & -node
            }
        }
        var kept = Set<RowID>()
        var index = best.end
        while index >= 0 {
            kept.insert(sequence[index].id)
            index = previous[index]
        }
        guard unplacedSet.isSubset(of: kept) else { return nil }
        return kept.subtracting(unplacedSet)
    }
}
