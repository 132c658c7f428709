import Foundation

/// Why the sync service refuses a request: the HTTP status it answers with and a one-line
/// message (docs/sync-protocol.md). Nothing was written.
package struct SyncRefusal: Error, Sendable, Equatable, CustomStringConvertible {
    package var status: Int
    package var message: String

    package init(status: Int, _ message: String) {
        self.status = status
        self.message = message
    }

    package var description: String { message }

    /// 400: the request is malformed, or names what it may not.
    package static func badRequest(_ message: String) -> SyncRefusal { SyncRefusal(status: 400, message) }
    /// 403: the token's role does not allow it.
    package static func forbidden(_ message: String) -> SyncRefusal { SyncRefusal(status: 403, message) }
    /// 404: no such list.
    package static func notFound(_ message: String) -> SyncRefusal { SyncRefusal(status: 404, message) }
    /// 409: a version ahead of the server, or a replica of another token or list.
    package static func conflict(_ message: String) -> SyncRefusal { SyncRefusal(status: 409, message) }
    /// 413: more than a bound allows.
    package static func tooLarge(_ message: String) -> SyncRefusal { SyncRefusal(status: 413, message) }
}

/// The bounds a sync request is held to, beyond the body's size (which the HTTP layer bounds).
package struct SyncLimits: Sendable {
    /// Intents in one push; a replica with more pushes them in turns.
    package var intentsPerPush = 10_000
    /// Ids in a push's read set.
    package var readItems = 100_000

    package init() {}
}

/// The server side of the sync service, run by SyncService for each authenticated request: the
/// server applies a replica's intents itself, by `Intent`'s rules, and answers with where things
/// stand. Nothing a client sends becomes a position, an id it was not given, a journal entry or
/// another list's change: intents are resolved against the list as it is, added items take ids
/// of the replica's own blocks (checked), the journal entry is the server's changeset, and the
/// replica is bound to the token and list it was registered with.
extension SectionStore {
    /// Registers a new replica of list `name` for the token `tokenID`, naming it (32 random hex
    /// digits) and, when `canWrite`, giving it a first block of ids for rows and for sections.
    /// - Throws: `SyncRefusal` 404 when there is no such list.
    package func registerReplica(list name: String, tokenID: Int64, canWrite: Bool, now: Date = Date()) throws -> SyncMessages.Registration {
        try write { db in
            guard let list = try db.listRecordIfAny(named: name) else { throw SyncRefusal.notFound("no list is named \"\(name)\"") }
            var generator = SystemRandomNumberGenerator()
            let replica = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max, using: &generator)) }.joined()
            try db.run(
                "INSERT INTO sync_replicas (replica, list_id, token_id, created_at) VALUES (?, ?, ?, ?)", replica, list.id, tokenID,
                Int64(now.timeIntervalSince1970))
            let rows = canWrite ? try allotBlock(kind: "row", to: replica, db: db) : []
            let sections = canWrite ? try allotBlock(kind: "section", to: replica, db: db) : []
            return SyncMessages.Registration(replica: replica, list: list.name, version: list.version, rowIDs: rows, sectionIDs: sections)
        }
    }

    /// Serves one sync of a replica of list `name`, in one transaction: the intents after the
    /// highest sequence recorded for the replica, applied in order by `Intent`'s rules as one
    /// version; the new highest sequence recorded; ids when the replica is owed some; then the
    /// facts of what the replica must pull since `knownVersion`.
    /// - Throws: `SyncRefusal` for a request the server will not take (nothing written).
    package func serveSync(
        _ request: SyncMessages.SyncRequest, list name: String, tokenID: Int64, canWrite: Bool, limits: SyncLimits = SyncLimits()
    ) throws -> SyncMessages.SyncAnswer {
        guard request.intents.count <= limits.intentsPerPush else {
            throw SyncRefusal.tooLarge("\(request.intents.count) intents in one push; at most \(limits.intentsPerPush) are taken at a time")
        }
        guard request.read.count <= limits.readItems else {
            throw SyncRefusal.tooLarge("\(request.read.count) items to read; at most \(limits.readItems) are read at a time")
        }
        guard request.knownVersion >= 0 else { throw SyncRefusal.badRequest("known_version must be 0 or more") }
        var previous: Int64 = 0
        for pushed in request.intents {
            guard pushed.sequence > previous else {
                throw SyncRefusal.badRequest("intent sequences must rise from 1 (\(pushed.sequence) follows \(previous))")
            }
            previous = pushed.sequence
        }
        return try write { db in
            guard let list = try db.listRecordIfAny(named: name) else { throw SyncRefusal.notFound("no list is named \"\(name)\"") }
            let bound = try db.queryFirst(
                "SELECT list_id, token_id, last_sequence, last_intent FROM sync_replicas WHERE replica = ?", request.replica
            ) { (listID: $0.int64(0), tokenID: $0.int64(1), sequence: $0.int64(2), intent: $0.optionalString(3)) }
            guard let bound, bound.listID == list.id else {
                throw SyncRefusal.conflict(
                    "replica \(request.replica) is not registered with list \"\(name)\" (was the list made anew?); clone a fresh replica")
            }
            guard bound.tokenID == tokenID else {
                throw SyncRefusal.conflict("replica \(request.replica) was registered with another token; sync it with the token it was cloned with")
            }
            guard request.knownVersion <= list.version else {
                throw SyncRefusal.conflict(
                    "the list is at version \(list.version), older than version \(request.knownVersion) the replica pulled "
                        + "(was the server restored from a backup?); nothing was written")
            }
            let fresh = request.intents.filter { $0.sequence > bound.sequence }
            if let first = fresh.first, first.sequence != bound.sequence + 1 {
                throw SyncRefusal.badRequest("intent \(first.sequence) follows \(bound.sequence), the last one applied: intents are missing")
            }
            if let recorded = request.intents.first(where: { $0.sequence == bound.sequence }), recorded.intent.json != bound.intent {
                throw SyncRefusal.conflict(
                    "the server applied another intent as number \(bound.sequence) of replica \(request.replica): a second file "
                        + "(a copy?) pushes under its name; clone a fresh replica for this file's work")
            }
            guard fresh.isEmpty || canWrite else { throw SyncRefusal.forbidden("this token may read the list, not change it") }

            var outcomes: [SyncMessages.PushOutcome] = []
            var changesets: [Changeset] = []
            var stored = StoredList(db: db, list: list, store: self)
            for pushed in fresh {
                if let dropped = try checkNewID(of: pushed, replica: request.replica, db: db) {
                    outcomes.append(SyncMessages.PushOutcome(sequence: pushed.sequence, outcome: dropped))
                    continue
                }
                let pending = PendingIntent(sequence: pushed.sequence, intent: pushed.intent, newID: pushed.newID, json: pushed.intent.json)
                let (applied, outcome): ([Changeset], IntentOutcome)
                do {
                    (applied, outcome) = try ReplicaRules.apply(pending, to: &stored)
                } catch let error as RepositoryError {
                    throw SyncRefusal.badRequest("intent \(pushed.sequence) cannot be applied: \(error.description)")
                }
                changesets += applied
                outcomes.append(SyncMessages.PushOutcome(sequence: pushed.sequence, outcome: outcome))
            }
            var version = list.version
            if !changesets.isEmpty { version = try bumpVersion(of: list, recording: Changeset(composing: changesets), db: db) }
            var acknowledged = bound.sequence
            if let last = fresh.last {
                acknowledged = last.sequence
                try db.run(
                    "UPDATE sync_replicas SET last_sequence = ?, last_intent = ? WHERE replica = ?", last.sequence, last.intent.json,
                    request.replica)
            }
            // Topped up when fewer than half a block are left, and answered whole: a replica
            // whose last answer was lost learns of the ids it holds all the same.
            var holdings: [String: [SyncMessages.IDRun]] = [:]
            for kind in ["row", "section"] {
                if canWrite, try unusedIDs(kind: kind, of: request.replica, db: db) < Self.replicaIDBlock / 2 {
                    _ = try allotBlock(kind: kind, to: request.replica, db: db)
                }
                holdings[kind] = try db.query(
                    "SELECT first, last FROM sync_unused_ids WHERE replica = ? AND kind = ? ORDER BY first", request.replica, kind
                ) { SyncMessages.IDRun(first: $0.int64(0), last: $0.int64(1)) }
            }
            var touched = Touched(
                rows: Set(request.read.rows.map(RowID.init)), sections: Set(request.read.sections.map(SectionID.init)),
                whole: Set(request.read.wholeSections.map(SectionID.init)))
            for pushed in request.intents {
                PendingIntent(sequence: pushed.sequence, intent: pushed.intent, newID: pushed.newID, json: "").touches(&touched)
            }
            let current = ListRecord(id: list.id, name: list.name, version: version)
            let facts = try PullFacts.readForSync(list: current, since: request.knownVersion, touched: touched, wholeList: request.whole, db: db)
            var answer = SyncMessages.SyncAnswer(
                facts: facts, acknowledged: acknowledged, outcomes: outcomes, rowIDs: holdings["row"] ?? [], sectionIDs: holdings["section"] ?? [])
            if request.verify == true { answer.digest = try ListDigest.of(current, db: db) }
            return answer
        }
    }

    /// Checks the id an added row or section carries, and marks a first use of one of the
    /// replica's own; any other intent carries none. Returns the outcome of an add that must be
    /// dropped: one that puts an item back under an id another item has now.
    ///
    /// An add may carry an id of the replica's own blocks (a first use, or an add retried, or
    /// undone and redone), or an id no item has now that was given out before and is not held
    /// by any replica unused (an item this replica deleted, put back by an undo). Anything else
    /// is refused: an id above what the server's sequence gave (which would break a later add on
    /// the server), or one another replica holds.
    private func checkNewID(of pushed: SyncMessages.PushedIntent, replica: String, db: any Database) throws -> IntentOutcome? {
        let kind: String
        switch pushed.intent {
        case .addRow: kind = "row"
        case .addSection: kind = "section"
        default:
            guard pushed.newID == nil else { throw SyncRefusal.badRequest("intent \(pushed.sequence) adds nothing and carries a new_id") }
            return nil
        }
        guard let id = pushed.newID else {
            throw SyncRefusal.badRequest("intent \(pushed.sequence) adds a \(kind) without the new_id it took from the replica's ids")
        }
        if let run = try db.queryFirst(
            "SELECT first, last FROM sync_unused_ids WHERE replica = ? AND kind = ? AND first <= ? AND last >= ?", replica, kind, id, id,
            row: { (first: $0.int64(0), last: $0.int64(1)) })
        {
            try db.run("DELETE FROM sync_unused_ids WHERE replica = ? AND kind = ? AND first = ?", replica, kind, run.first)
            if run.first < id {
                try db.run("INSERT INTO sync_unused_ids (replica, kind, first, last) VALUES (?, ?, ?, ?)", replica, kind, run.first, id - 1)
            }
            if id < run.last {
                try db.run("INSERT INTO sync_unused_ids (replica, kind, first, last) VALUES (?, ?, ?, ?)", replica, kind, id + 1, run.last)
            }
            return nil
        }
        let own = try db.queryFirst(
            "SELECT 1 FROM sync_blocks WHERE replica = ? AND kind = ? AND first <= ? AND last >= ?", replica, kind, id, id, row: { $0.int64(0) })
        if own != nil { return nil }
        let table = kind == "row" ? "rows" : "sections"
        guard id > 0, id <= (try db.highestIDGiven(table: table)),
            try db.queryFirst("SELECT 1 FROM sync_unused_ids WHERE kind = ? AND first <= ? AND last >= ?", kind, id, id, row: { $0.int64(0) }) == nil
        else {
            throw SyncRefusal.badRequest("intent \(pushed.sequence) adds a \(kind) with id \(id), which the server did not give this replica")
        }
        if try db.queryFirst("SELECT 1 FROM \(table) WHERE id = ?", id, row: { $0.int64(0) }) != nil { return .dropped(.idInUse(id)) }
        return nil
    }

    /// How many ids of `kind` the replica holds unused.
    private func unusedIDs(kind: String, of replica: String, db: any Database) throws -> Int {
        Int(try db.scalarInt("SELECT coalesce(sum(last - first + 1), 0) FROM sync_unused_ids WHERE replica = ? AND kind = ?", replica, kind) ?? 0)
    }

    /// Draws a block of `replicaIDBlock` ids of `kind` from the server's sequence and records it as
    /// the replica's.
    private func allotBlock(kind: String, to replica: String, db: any Database) throws -> [SyncMessages.IDRun] {
        let ids = try db.allotIDs(table: kind == "row" ? "rows" : "sections", count: Self.replicaIDBlock)
        let runs = SyncMessages.IDRun.runs(of: ids)
        for run in runs {
            try db.run("INSERT INTO sync_blocks (replica, kind, first, last) VALUES (?, ?, ?, ?)", replica, kind, run.first, run.last)
            try db.run("INSERT INTO sync_unused_ids (replica, kind, first, last) VALUES (?, ?, ?, ?)", replica, kind, run.first, run.last)
        }
        return runs
    }
}
