/// The stages of a replica's `sync()`, where a test makes it fail (`SectionStore.syncFaults`).
package enum SyncStage: Sendable, CaseIterable {
    /// Before the push is sent.
    case beforePush
    /// In the server's transaction, the intents applied, before it commits.
    case insidePush
    /// The push committed, before its answer is used (a failure here is an answer lost).
    case afterPush
    /// The server's facts read, before the replica is written.
    case afterPull
    /// In the replica's transaction, before it commits.
    case insideLocalWrite
}

/// What a replica sends the server in a push: its pending intents and how many new ids it wants.
struct PushRequest: Sendable {
    var replicaID: String
    var serverListID: Int64
    var serverList: String
    /// The server version the replica last pulled: a server behind it was restored from a backup.
    var knownVersion: Int64
    var intents: [PendingIntent]
    var wantRowIDs: Int
    var wantSectionIDs: Int
}

/// The server's answer to a push.
struct PushAnswer: Sendable {
    /// What became of each intent applied now, by sequence.
    var outcomes: [(sequence: Int64, outcome: IntentOutcome)]
    /// The highest sequence the server has applied for the replica (this push's, or an earlier
    /// one's when the answer to that was lost).
    var acknowledged: Int64
    var rowIDs: [Int64]
    var sectionIDs: [Int64]
    /// The list's version after the push.
    var version: Int64
}

extension SectionStore {
    /// Applies a replica's push to the server's list, in one transaction (this store is the
    /// server): the intents after the highest sequence recorded for the replica, in order, by
    /// `Intent`'s rules, as one version; the new highest sequence recorded beside them; the ids
    /// asked for drawn from the server's sequences.
    func receivePush(_ request: PushRequest, faults: (@Sendable (SyncStage) throws -> Void)? = nil) throws -> PushAnswer {
        try write { db in
            guard let list = try db.listRecordIfAny(id: request.serverListID) else {
                throw RepositoryError.replica(.listGoneOnServer(list: request.serverList, server: path))
            }
            guard list.version >= request.knownVersion else {
                throw RepositoryError.replica(.serverBehind(server: path, serverVersion: list.version, replicaVersion: request.knownVersion))
            }
            let recorded = try db.queryFirst(
                "SELECT last_sequence, last_intent FROM replica_pushes WHERE replica = ?", request.replicaID
            ) { (sequence: $0.int64(0), intent: $0.string(1)) }
            var acknowledged = recorded?.sequence ?? 0
            if let recorded, let last = request.intents.last {
                // The intent recorded must be this replica's own under that sequence.
                let mine = request.intents.first { $0.sequence == recorded.sequence }
                if recorded.sequence > last.sequence || (mine != nil && mine?.json != recorded.intent) {
                    throw RepositoryError.replica(.identityClash(replicaID: request.replicaID, sequence: recorded.sequence))
                }
            }
            var outcomes: [(Int64, IntentOutcome)] = []
            var changesets: [Changeset] = []
            var stored = StoredList(db: db, list: list, store: self)
            for pending in request.intents where pending.sequence > acknowledged {
                let (applied, outcome) = try ReplicaRules.apply(pending, to: &stored)
                changesets += applied
                outcomes.append((pending.sequence, outcome))
                acknowledged = pending.sequence
            }
            var version = list.version
            if !changesets.isEmpty {
                version = try bumpVersion(of: list, recording: Changeset(composing: changesets), db: db)
            }
            if let last = request.intents.last, last.sequence > (recorded?.sequence ?? 0) {
                try db.run(
                    """
                    INSERT INTO replica_pushes (replica, list_id, last_sequence, last_intent) VALUES (?, ?, ?, ?)
                    ON CONFLICT (replica) DO UPDATE SET last_sequence = excluded.last_sequence, last_intent = excluded.last_intent
                    """, request.replicaID, list.id, last.sequence, last.json)
            }
            try faults?(.insidePush)
            let rowIDs = request.wantRowIDs > 0 ? try db.allotIDs(table: "rows", count: request.wantRowIDs) ?? [] : []
            let sectionIDs = request.wantSectionIDs > 0 ? try db.allotIDs(table: "sections", count: request.wantSectionIDs) ?? [] : []
            return PushAnswer(
                outcomes: outcomes, acknowledged: acknowledged, rowIDs: rowIDs, sectionIDs: sectionIDs, version: version)
        }
    }
}

/// `Intent`'s rules as a replica's intents need them: an added row or section carries the id it
/// took on the replica, and keeps it.
enum ReplicaRules {
    /// Carries out a replica's intent on `list` now, in the caller's transaction: the edits
    /// `resolve` gives, each insert with its id. Returns their changesets (the empty ones left out)
    /// and what became of the intent.
    static func apply(_ pending: PendingIntent, to list: inout StoredList) throws -> (changesets: [Changeset], outcome: IntentOutcome) {
        let (steps, outcome) = try resolve(pending.intent, newID: pending.newID, in: list)
        var changesets: [Changeset] = []
        for (edit, newID) in steps {
            list.newID = newID
            defer { list.newID = nil }
            let result = try EditRules.apply(edit, to: &list)
            if !result.changeset.isEmpty { changesets.append(result.changeset) }
        }
        return (changesets, outcome)
    }

    /// The edits that carry out `intent` on `list` now, each with the id its insert takes, and
    /// what became of the intent. An add whose id the list has already (an add retried, or undone
    /// and redone) moves that item to the placement and sets its content instead.
    static func resolve<List: EditableList>(_ intent: Intent, newID: Int64?, in list: List) throws
        -> (steps: [(Edit, Int64?)], outcome: IntentOutcome)
    {
        switch intent {
        case .addRow(let content, let placement):
            if let newID, try IntentRules.rowIfPresent(RowID(newID), in: list) != nil {
                let (edit, outcome) = try IntentRules.resolve(.moveRow(RowID(newID), to: placement), in: list)
                let value: ValueUpdate = content.kind == .field ? (content.value.map { .set($0) } ?? .remove) : .keep
                return ([edit, .updateRow(.id(RowID(newID)), title: content.title, value: value)].compactMap { $0 }.map { ($0, nil) }, outcome)
            }
        case .addSection(let title, let emptyText, let placement):
            if let newID, try IntentRules.sectionIfPresent(SectionID(newID), in: list) != nil {
                let id = SectionID(newID)
                let (edit, outcome) = try IntentRules.resolve(.moveSection(id, to: placement), in: list)
                let steps: [Edit?] = [edit, .renameSection(.id(id), title: title), .setEmptyText(.id(id), emptyText)]
                return (steps.compactMap { $0 }.map { ($0, nil) }, outcome)
            }
        default:
            break
        }
        let (edit, outcome) = try IntentRules.resolve(intent, in: list)
        return (edit.map { [($0, newID)] } ?? [], outcome)
    }
}
