import SQLite

/// An edit session: the "reorder mode" of a table view, as data.
///
/// Beginning one takes no lock; others keep reading and writing. Edits apply to an in-memory
/// draft, never to the database. `save()` writes them all in one transaction — refused with
/// `RepositoryError.conflict` if the list changed since the session began — and returns one
/// changeset from the state at the start to the saved state. `cancel()`, or dropping the
/// session, writes nothing.
///
/// A session is a reference type used by one thread at a time.
public final class EditSession {
    /// The store the session saves to.
    public let store: SectionStore
    /// The stored id of the list, so that a list deleted and made anew under the same name is
    /// not mistaken for this one.
    let listID: Int64
    /// The list as it was when the session began.
    public let base: ListSnapshot
    /// The list with the session's edits applied: an editing view (empty sections show footers).
    /// Rows and sections created in the session have negative ids until it is saved.
    public private(set) var draft: ListSnapshot
    /// Whether the session can still take edits (it has not been saved or cancelled).
    public private(set) var isOpen = true

    private var steps: [ReplayStep] = []
    private var nextDraftID: Int64 = -1

    init(store: SectionStore, listID: Int64, base: ListSnapshot) {
        self.store = store
        self.listID = listID
        self.base = base
        var draft = base
        draft.isEditing = true
        self.draft = draft
    }

    /// The number of edits applied so far.
    public var editCount: Int { steps.count }

    /// What saving now would change: the changeset from `base` to `draft`.
    public var pendingChanges: Changeset { Changeset(from: base, to: draft) }

    /// Applies an edit to the draft. Failing edits change nothing and leave the session open.
    /// - Returns: what the edit changed in the draft, and the (draft) id of what it created.
    @discardableResult
    public func apply(_ edit: Edit) throws -> (changeset: Changeset, createdID: Int64?) {
        guard isOpen else { throw RepositoryError.sessionClosed }
        // In place: applyDraft checks everything before it changes anything.
        let (outcome, step) = try draft.applyDraft(edit, nextID: &nextDraftID)
        steps.append(step)
        return (outcome.changeset, outcome.createdID)
    }

    /// Writes every edit in one transaction and closes the session.
    ///
    /// - Returns: the list's new version (one step, however many edits) and the changeset from
    ///   `base` to the saved state. A session whose edits add up to no change writes nothing and
    ///   leaves the version as it was.
    /// - Throws: `RepositoryError.conflict` when the list changed since the session began;
    ///   nothing is written and the session stays open, so the caller can cancel it.
    @discardableResult
    public func save() throws -> Change {
        guard isOpen else { throw RepositoryError.sessionClosed }
        let steps = self.steps
        let base = self.base
        let listID = self.listID
        let changeset = pendingChanges
        // Edits that add up to nothing (a move there and back) have nothing to write.
        guard !changeset.isEmpty else {
            isOpen = false
            return Change(list: base.name, version: base.version)
        }
        let change = try store.write { db in
            let list = try db.queryFirst("SELECT id, name, version FROM lists WHERE id = ?", listID) {
                ListRecord(id: $0.int64(0), name: $0.string(1), version: $0.int64(2))
            }
            guard let list, list.version == base.version else {
                throw RepositoryError.conflict(list: base.name, sessionVersion: base.version, currentVersion: list?.version)
            }
            var replay = Replay(list: list, db: db)
            do {
                for step in steps {
                    try replay.write(step)
                }
            } catch Replay.Mismatch.mismatch {
                // What the session saw is gone: changed by SQL that did not bump the version.
                throw RepositoryError.conflict(list: base.name, sessionVersion: base.version, currentVersion: list.version)
            }
            store.countPositionWrites(replay.positionWrites)
            return Change(list: list.name, version: try store.bumpVersion(of: list, recording: changeset, db: db), changeset: changeset)
        }
        isOpen = false
        return change
    }

    /// Discards the draft and closes the session. Nothing is written.
    public func cancel() {
        isOpen = false
    }
}

extension SectionStore {
    /// Begins an edit session on a list. Takes no lock.
    public func beginEditing(_ list: String = SectionStore.defaultList) throws -> EditSession {
        let (id, base) = try read { db in
            let record = try db.listRecord(named: list)
            return (record.id, try db.snapshot(of: record, editing: false))
        }
        return EditSession(store: self, listID: id, base: base)
    }
}

/// Writes a session's steps inside the save's transaction.
private struct Replay {
    /// A step found the database other than the session left it: a row or section is gone.
    enum Mismatch: Error { case mismatch }

    let list: ListRecord
    let db: Connection
    /// Draft ids (negative) of what the session created → their stored ids.
    var storedIDs: [Int64: Int64] = [:]
    var positionWrites = 0

    init(list: ListRecord, db: Connection) {
        self.list = list
        self.db = db
    }

    func stored(_ id: Int64) -> Int64 { storedIDs[id] ?? id }

    /// Requires that a statement changed exactly one row: otherwise what the session saw is gone.
    private func requireOne(_ changed: Int) throws {
        guard changed == 1 else { throw Mismatch.mismatch }
    }

    /// The stored id of a section of this list.
    private func storedSection(_ id: Int64) throws -> Int64 {
        let stored = stored(id)
        guard try db.scalarInt("SELECT count(*) FROM sections WHERE id = ? AND list_id = ?", stored, list.id) == 1 else {
            throw Mismatch.mismatch
        }
        return stored
    }

    mutating func write(_ step: ReplayStep) throws {
        switch step {
        case .nothing:
            break
        case .insertSection(let draftID, let title, let emptyText, let neighbours):
            let position = try place(in: .sections, parentID: list.id, neighbours: neighbours, movingID: nil)
            storedIDs[draftID] = try db.queryFirst(
                "INSERT INTO sections (list_id, position, title, empty_text) VALUES (?, ?, ?, ?) RETURNING id",
                list.id, position, title, emptyText
            ) { $0.int64(0) }
        case .setSection(let id, let title, let emptyText):
            try requireOne(
                db.run("UPDATE sections SET title = ?, empty_text = ? WHERE id = ? AND list_id = ?", title, emptyText, stored(id), list.id))
        case .moveSection(let id, let neighbours):
            let moving = try storedSection(id)
            let position = try place(in: .sections, parentID: list.id, neighbours: neighbours, movingID: moving)
            try requireOne(db.run("UPDATE sections SET position = ? WHERE id = ?", position, moving))
        case .deleteSection(let id):
            try requireOne(db.run("DELETE FROM sections WHERE id = ? AND list_id = ?", stored(id), list.id))
        case .insertRow(let draftID, let content, let sectionID, let neighbours):
            let section = try storedSection(sectionID)
            let position = try place(in: .rows, parentID: section, neighbours: neighbours, movingID: nil)
            storedIDs[draftID] = try db.queryFirst(
                "INSERT INTO rows (section_id, position, kind, title, value) VALUES (?, ?, ?, ?, ?) RETURNING id",
                section, position, content.kind.rawValue, content.title, content.value
            ) { $0.int64(0) }
        case .setRow(let id, let content):
            try requireOne(
                db.run(
                    "UPDATE rows SET title = ?, value = ? WHERE id = ? AND section_id IN (SELECT id FROM sections WHERE list_id = ?)",
                    content.title, content.value, stored(id), list.id))
        case .moveRow(let id, let sectionID, let neighbours):
            let section = try storedSection(sectionID)
            let position = try place(in: .rows, parentID: section, neighbours: neighbours, movingID: stored(id))
            try requireOne(
                db.run(
                    "UPDATE rows SET section_id = ?, position = ? WHERE id = ? AND section_id IN (SELECT id FROM sections WHERE list_id = ?)",
                    section, position, stored(id), list.id))
        case .deleteRow(let id):
            try requireOne(
                db.run("DELETE FROM rows WHERE id = ? AND section_id IN (SELECT id FROM sections WHERE list_id = ?)", stored(id), list.id))
        }
    }

    /// A position between the stored neighbours, looked up by id.
    private mutating func place(in table: OrderedTable, parentID: Int64, neighbours: Neighbours, movingID: Int64?) throws -> Int64 {
        func position(_ id: Int64?) throws -> Int64? {
            guard let id else { return nil }
            let sql = "SELECT position FROM \(table.table) WHERE id = ? AND \(table.parent) = ?"
            guard let position = try db.scalarInt(sql, stored(id), parentID) else { throw Mismatch.mismatch }
            return position
        }
        let place = try table.position(
            between: try position(neighbours.before), and: try position(neighbours.after), of: parentID, movingID: movingID, in: db)
        positionWrites += place.rewritten + 1
        return place.position
    }
}
