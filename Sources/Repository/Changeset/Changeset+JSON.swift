import Foundation

/// The one JSON form of a changeset: what the journal stores (on SQLite and on a server, where
/// `sectionctl.commit_change` reads it too; a bulk change in its compact form,
/// `Changeset+Runs.swift`), what `sectionctl --json` prints under `"changes"`, and what programs
/// reading either parse.
///
/// ```json
/// {"sections":{"deleted":[2],"inserted":[],"moved":[{"from":0,"to":1}],"updated":[],"footers":[1]},
///  "rows":{"deleted":[[0,2]],"inserted":[],"moved":[{"from":[0,1],"to":[1,0]}],"updated":[]}}
/// ```
///
/// (on one line), then, last, the ids (`Changeset`'s id fields):
///
/// ```json
/// "ids":{"sections":{"deleted":[7],"inserted":[],"moved":[4],"updated":[],"footers":[5]},
///        "rows":{"deleted":[12],"inserted":[],"moved":[9],"updated":[]}}
/// ```
///
/// Section entries are indexes and moves `{"from": i, "to": j}`; row entries are
/// `[section, row]` pairs and moves `{"from": [s, r], "to": [s, r]}`; `"footers"` is
/// `changedFooters`. Each array under `"ids"` is parallel to the entries of the same name:
/// `ids.rows.moved[i]` is the id of the row that `rows.moved[i]` moves, and
/// `ids.sections.footers[i]` the id of the section whose footer `sections.footers[i]` names. The keys come in that
/// order and nothing else is written, with no spaces. A changeset without ids (`hasIDs` false)
/// is written without `"ids"`, as all changesets were before they had ids.
///
/// `json` is the writer and `init(json:)` the reader. `Codable` uses the same shape — the same
/// keys, nesting and pairs — so a changeset inside a larger `Codable` value (a whole
/// `sectionctl --json` reply, say) encodes and decodes with it; but `JSONEncoder` does not
/// promise an order of keys, so where the exact text matters use `json`.
extension Changeset: Codable {
    /// The top-level keys (and those of `"ids"`, which has no `ids` of its own); `runs` is the
    /// journal's compact form (`Changeset+Runs.swift`), the only key where it is there.
    private enum PartKey: String, CodingKey {
        case sections, rows, ids, runs
    }

    /// The keys of each part of `"ids"` (rows have no `footers`).
    private enum IDKey: String, CodingKey {
        case deleted, inserted, moved, updated, footers
    }

    /// The keys of each part, in the order they are written; rows have no `footers`.
    private enum EntryKey: String, CodingKey {
        case deleted, inserted, moved, updated, footers
    }

    /// The keys of a move.
    private enum MoveKey: String, CodingKey {
        case from, to
    }

    // MARK: - The writer

    /// The changeset as compact JSON text, in the shape above, keys in that order: the exact text
    /// the journal stores and `sectionctl --json` prints.
    /// - Complexity: O(entries).
    public var json: String {
        var text = ""
        text.reserveCapacity(
            160 + 8 * (deletedSections.count + insertedSections.count + updatedSections.count + changedFooters.count)
                + 16 * (movedSections.count + deletedRows.count + insertedRows.count + updatedRows.count) + 32 * movedRows.count
                + (hasIDs
                    ? 160 + 8
                        * (deletedSections.count + insertedSections.count + movedSections.count + updatedSections.count
                            + deletedRows.count + insertedRows.count + movedRows.count + updatedRows.count) : 0))
        func key(_ key: some CodingKey) {
            text += "\""
            text += key.stringValue
            text += "\":"
        }
        func index(_ value: Int) { text += String(value) }
        func path(_ value: RowPath) {
            text += "["
            text += String(value.section)
            text += ","
            text += String(value.row)
            text += "]"
        }
        func array<Element>(_ values: [Element], _ write: (Element) -> Void) {
            text += "["
            for (offset, value) in values.enumerated() {
                if offset > 0 { text += "," }
                write(value)
            }
            text += "]"
        }
        func move<Place>(_ value: Move<Place>, _ write: (Place) -> Void) {
            text += "{"
            key(MoveKey.from)
            write(value.from)
            text += ","
            key(MoveKey.to)
            write(value.to)
            text += "}"
        }
        text += "{"
        key(PartKey.sections)
        text += "{"
        key(EntryKey.deleted)
        array(deletedSections, index)
        text += ","
        key(EntryKey.inserted)
        array(insertedSections, index)
        text += ","
        key(EntryKey.moved)
        array(movedSections) { move($0, index) }
        text += ","
        key(EntryKey.updated)
        array(updatedSections, index)
        text += ","
        key(EntryKey.footers)
        array(changedFooters, index)
        text += "},"
        key(PartKey.rows)
        text += "{"
        key(EntryKey.deleted)
        array(deletedRows, path)
        text += ","
        key(EntryKey.inserted)
        array(insertedRows, path)
        text += ","
        key(EntryKey.moved)
        array(movedRows) { move($0, path) }
        text += ","
        key(EntryKey.updated)
        array(updatedRows, path)
        text += "}"
        if hasIDs {
            func id(_ value: Int64) { text += String(value) }
            func ids<ID: StoredID>(_ deleted: [ID], _ inserted: [ID], _ moved: [ID], _ updated: [ID], footers: [ID]? = nil) {
                text += "{"
                key(IDKey.deleted)
                array(deleted) { id($0.rawValue) }
                text += ","
                key(IDKey.inserted)
                array(inserted) { id($0.rawValue) }
                text += ","
                key(IDKey.moved)
                array(moved) { id($0.rawValue) }
                text += ","
                key(IDKey.updated)
                array(updated) { id($0.rawValue) }
                if let footers {
                    text += ","
                    key(IDKey.footers)
                    array(footers) { id($0.rawValue) }
                }
                text += "}"
            }
            text += ","
            key(PartKey.ids)
            text += "{"
            key(PartKey.sections)
            ids(deletedSectionIDs, insertedSectionIDs, movedSectionIDs, updatedSectionIDs, footers: changedFooterIDs)
            text += ","
            key(PartKey.rows)
            ids(deletedRowIDs, insertedRowIDs, movedRowIDs, updatedRowIDs)
            text += "}"
        }
        text += "}"
        return text
    }

    /// Encodes the changeset in the shape of `json`: the same keys, nesting and pairs (the order
    /// of keys is the encoder's).
    public func encode(to encoder: any Encoder) throws {
        var parts = encoder.container(keyedBy: PartKey.self)
        var sections = parts.nestedContainer(keyedBy: EntryKey.self, forKey: .sections)
        try sections.encode(deletedSections, forKey: .deleted)
        try sections.encode(insertedSections, forKey: .inserted)
        var sectionMoves = sections.nestedUnkeyedContainer(forKey: .moved)
        for move in movedSections {
            var entry = sectionMoves.nestedContainer(keyedBy: MoveKey.self)
            try entry.encode(move.from, forKey: .from)
            try entry.encode(move.to, forKey: .to)
        }
        try sections.encode(updatedSections, forKey: .updated)
        try sections.encode(changedFooters, forKey: .footers)

        func encode(_ paths: [RowPath], in container: inout KeyedEncodingContainer<EntryKey>, forKey key: EntryKey) throws {
            var list = container.nestedUnkeyedContainer(forKey: key)
            for path in paths { try Self.encode(path, in: &list) }
        }
        var rows = parts.nestedContainer(keyedBy: EntryKey.self, forKey: .rows)
        try encode(deletedRows, in: &rows, forKey: .deleted)
        try encode(insertedRows, in: &rows, forKey: .inserted)
        var rowMoves = rows.nestedUnkeyedContainer(forKey: .moved)
        for move in movedRows {
            var entry = rowMoves.nestedContainer(keyedBy: MoveKey.self)
            var from = entry.nestedUnkeyedContainer(forKey: .from)
            try from.encode(move.from.section)
            try from.encode(move.from.row)
            var to = entry.nestedUnkeyedContainer(forKey: .to)
            try to.encode(move.to.section)
            try to.encode(move.to.row)
        }
        try encode(updatedRows, in: &rows, forKey: .updated)

        guard hasIDs else { return }
        var ids = parts.nestedContainer(keyedBy: PartKey.self, forKey: .ids)
        var sectionIDs = ids.nestedContainer(keyedBy: IDKey.self, forKey: .sections)
        try sectionIDs.encode(deletedSectionIDs, forKey: .deleted)
        try sectionIDs.encode(insertedSectionIDs, forKey: .inserted)
        try sectionIDs.encode(movedSectionIDs, forKey: .moved)
        try sectionIDs.encode(updatedSectionIDs, forKey: .updated)
        try sectionIDs.encode(changedFooterIDs, forKey: .footers)
        var rowIDs = ids.nestedContainer(keyedBy: IDKey.self, forKey: .rows)
        try rowIDs.encode(deletedRowIDs, forKey: .deleted)
        try rowIDs.encode(insertedRowIDs, forKey: .inserted)
        try rowIDs.encode(movedRowIDs, forKey: .moved)
        try rowIDs.encode(updatedRowIDs, forKey: .updated)
    }

    /// Appends `[section, row]` to `container`.
    private static func encode(_ path: RowPath, in container: inout any UnkeyedEncodingContainer) throws {
        var pair = container.nestedUnkeyedContainer()
        try pair.encode(path.section)
        try pair.encode(path.row)
    }

    // MARK: - The reader

    /// Reads a changeset from JSON text in the shape of `json`.
    ///
    /// Every key of the shape must be there, holding integers, `[section, row]` pairs of two
    /// integers and `{"from", "to"}` moves as described; keys it does not know are ignored,
    /// `"footers"` may be missing (it reads as none), and so may `"ids"` (a changeset journaled
    /// before changesets had ids: it reads as one without ids, `hasIDs` false). Where `"ids"` is
    /// there, each of its eight arrays must be there and as long as its entries, and so must
    /// `sections.footers` unless it is missing (journaled before footers had ids: it reads as
    /// none, and `hasIDs` is false where a footer changed). The journal's compact form of a bulk
    /// change (`{"runs": …}`, `journalJSON`) reads as the changeset it stands for. Anything else
    /// — a journal's reload entry (`{"reload":true}`), text that is not JSON, a missing key, a
    /// pair of three — throws a `DecodingError` whose coding path and description say where and
    /// what was wrong.
    public init(json text: String) throws {
        self = try JSONDecoder().decode(Changeset.self, from: Data(text.utf8))
    }

    /// Decodes a changeset in the shape of `json`, from any decoder; see `init(json:)` for what
    /// it accepts.
    public init(from decoder: any Decoder) throws {
        self.init()
        let parts = try decoder.container(keyedBy: PartKey.self)
        if parts.contains(.runs) {
            guard !parts.contains(.sections) && !parts.contains(.rows) && !parts.contains(.ids) else {
                throw DecodingError.dataCorruptedError(
                    forKey: .runs, in: parts, debugDescription: "a changeset in runs has no \"sections\", \"rows\" or \"ids\" beside them")
            }
            self = try Changeset(runs: try parts.nestedContainer(keyedBy: RunKey.self, forKey: .runs))
            return
        }
        let sections = try parts.nestedContainer(keyedBy: EntryKey.self, forKey: .sections)
        deletedSections = try sections.decode([Int].self, forKey: .deleted)
        insertedSections = try sections.decode([Int].self, forKey: .inserted)
        var sectionMoves = try sections.nestedUnkeyedContainer(forKey: .moved)
        while !sectionMoves.isAtEnd {
            let entry = try sectionMoves.nestedContainer(keyedBy: MoveKey.self)
            movedSections.append(Move(from: try entry.decode(Int.self, forKey: .from), to: try entry.decode(Int.self, forKey: .to)))
        }
        updatedSections = try sections.decode([Int].self, forKey: .updated)
        changedFooters = try sections.decodeIfPresent([Int].self, forKey: .footers) ?? []

        func paths(in container: KeyedDecodingContainer<EntryKey>, forKey key: EntryKey) throws -> [RowPath] {
            var list = try container.nestedUnkeyedContainer(forKey: key)
            var result: [RowPath] = []
            while !list.isAtEnd { result.append(try Self.decodePath(from: &list)) }
            return result
        }
        let rows = try parts.nestedContainer(keyedBy: EntryKey.self, forKey: .rows)
        deletedRows = try paths(in: rows, forKey: .deleted)
        insertedRows = try paths(in: rows, forKey: .inserted)
        var rowMoves = try rows.nestedUnkeyedContainer(forKey: .moved)
        while !rowMoves.isAtEnd {
            let entry = try rowMoves.nestedContainer(keyedBy: MoveKey.self)
            var from = try entry.nestedUnkeyedContainer(forKey: .from)
            var to = try entry.nestedUnkeyedContainer(forKey: .to)
            movedRows.append(Move(from: try Self.decodePair(&from), to: try Self.decodePair(&to)))
        }
        updatedRows = try paths(in: rows, forKey: .updated)

        guard parts.contains(.ids) else { return }
        let ids = try parts.nestedContainer(keyedBy: PartKey.self, forKey: .ids)
        func read<ID: StoredID>(_ key: IDKey, of part: KeyedDecodingContainer<IDKey>, entries: Int) throws -> [ID] {
            let values = try part.decode([Int64].self, forKey: key).map { ID($0) }
            guard values.count == entries else {
                throw DecodingError.dataCorruptedError(
                    forKey: key, in: part, debugDescription: "\(values.count) ids for \(entries) entries; each entry has one id")
            }
            return values
        }
        let sectionIDs = try ids.nestedContainer(keyedBy: IDKey.self, forKey: .sections)
        deletedSectionIDs = try read(.deleted, of: sectionIDs, entries: deletedSections.count)
        insertedSectionIDs = try read(.inserted, of: sectionIDs, entries: insertedSections.count)
        movedSectionIDs = try read(.moved, of: sectionIDs, entries: movedSections.count)
        updatedSectionIDs = try read(.updated, of: sectionIDs, entries: updatedSections.count)
        // Journaled before footers had ids: none (and `hasIDs` false where footers changed).
        if sectionIDs.contains(.footers) { changedFooterIDs = try read(.footers, of: sectionIDs, entries: changedFooters.count) }
        let rowIDs = try ids.nestedContainer(keyedBy: IDKey.self, forKey: .rows)
        deletedRowIDs = try read(.deleted, of: rowIDs, entries: deletedRows.count)
        insertedRowIDs = try read(.inserted, of: rowIDs, entries: insertedRows.count)
        movedRowIDs = try read(.moved, of: rowIDs, entries: movedRows.count)
        updatedRowIDs = try read(.updated, of: rowIDs, entries: updatedRows.count)
    }

    /// Reads the next element of `container` as a `[section, row]` pair.
    private static func decodePath(from container: inout any UnkeyedDecodingContainer) throws -> RowPath {
        var pair = try container.nestedUnkeyedContainer()
        return try decodePair(&pair)
    }

    /// Reads `pair`, which must hold exactly two integers, as a `[section, row]` pair.
    private static func decodePair(_ pair: inout any UnkeyedDecodingContainer) throws -> RowPath {
        func wrongCount() -> DecodingError {
            let count = pair.count.map { $0 == 1 ? "1 element" : "\($0) elements" } ?? "more than two elements"
            return .dataCorruptedError(in: pair, debugDescription: "a row path is a [section, row] pair of two integers, not \(count)")
        }
        if let count = pair.count, count != 2 { throw wrongCount() }
        let path = RowPath(section: try pair.decode(Int.self), row: try pair.decode(Int.self))
        guard pair.isAtEnd else { throw wrongCount() }
        return path
    }
}
