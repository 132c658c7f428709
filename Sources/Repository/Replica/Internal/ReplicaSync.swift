import Foundation
import Synchronization

extension SectionStore {
    /// How long a sync waits on a silent server before it gives up (`RepositoryError.unavailable`):
    /// the deadline of each request, between bytes.
    public static let syncTimeout: Duration = .seconds(30)

    /// Syncs this replica with its sync service, in one round trip whatever the number of
    /// pending intents (docs/sync-protocol.md).
    ///
    /// 1. **Push and pull**: the intents the server has not acknowledged go to the service, which
    ///    applies them itself, by `Intent`'s rules, against its list as it is then, exactly once
    ///    (a push whose answer was lost is recognised by its sequence numbers), and answers with
    ///    where the items the server's changes since this file's last pull and these intents
    ///    touched now stand, with the ids this replica holds.
    /// 2. **Apply**: in one local transaction, those items are brought to where the server has
    ///    them, and the intents recorded meanwhile (while the request was out) are replayed on
    ///    top: one local change that observers see like any other.
    ///
    /// - Parameter timeout: how long a silent server is waited for, per request.
    /// - Throws: `.replica(.notAReplica)`; `.replica(.tokenMissing)`, `.replica(.tokenRefused)`,
    ///   `.replica(.notAllowed)`, `.replica(.listGoneOnServer)`, `.replica(.refusedByServer)`
    ///   (nothing pushed, nothing pending lost); `.unavailable` for a server out of reach or
    ///   silent past `timeout`, after which a sync is simply run again.
    @discardableResult
    public func sync(timeout: Duration = syncTimeout) throws -> SyncReport {
        // More intents than one push carries go in turns, each turn a round trip, for as long as
        // each turn has some acknowledged; a list found to differ from the server's (by their
        // digests) is read whole at once.
        var report = try syncOnce(timeout: timeout)
        var readWhole = false
        var acknowledgedLastTurn = !report.pushed.isEmpty
        while (report.stillPending > 0 && acknowledgedLastTurn) || (report.diverged && !readWhole) {
            let whole = report.diverged && !readWhole
            let next = try syncOnce(timeout: timeout, whole: whole)
            readWhole = readWhole || whole
            acknowledgedLastTurn = !next.pushed.isEmpty
            report.pushed += next.pushed
            report.serverVersion = next.serverVersion
            report.stillPending = next.stillPending
            if next.change.committed { report.change = next.change }
        }
        return report
    }

    /// How many intents one push carries at most. The service takes up to 10,000
    /// (docs/sync-protocol.md); a push of 1,000 keeps each request's work well inside the
    /// client's deadline on a busy server, and a sync of 1,000 offline edits one round trip.
    package static let intentsPerPush = 1_000

    /// The longest request body a push is let grow to: half the service's default bound
    /// (`HTTPLimits.maxBodyBytes`, 1 MiB), so that intents with long titles go in more turns
    /// rather than being refused (413).
    package static let pushBytes = 512 << 10

    /// One round trip: the first `intentsPerPush` pending intents pushed, the answer applied.
    private func syncOnce(timeout: Duration, whole: Bool = false) throws -> SyncReport {
        let (record, firstTouched, startDrifted, items) = try syncStart()
        let drifted = startDrifted || whole
        let verify = items <= ListDigest.everySyncUpTo || Int64.random(in: 0..<ListDigest.bigListInterval) == 0
        let client = HTTPSyncClient(endpoint: try ReplicaCredentials.endpoint(of: self, record: record), timeout: timeout)
        var touched = firstTouched
        var pending = Array(try read { db in try db.pendingIntents(after: record.acknowledged) }.prefix(Self.intentsPerPush))
        func push(_ pending: [PendingIntent]) -> SyncMessages.SyncRequest {
            SyncMessages.SyncRequest(
                replica: record.replicaID, knownVersion: record.serverVersion,
                intents: pending.map { SyncMessages.PushedIntent(sequence: $0.sequence, intent: $0.intent, newID: $0.newID) },
                read: touched.readSet, whole: drifted, verify: verify)
        }
        var request = push(pending)
        // Long titles make long intents: the push is halved until its body fits.
        while pending.count > 1, SyncMessages.encode(request).count > Self.pushBytes {
            pending.removeLast(pending.count / 2)
            request = push(pending)
        }
        let faults = syncFaults.withLock { $0 }
        try faults?(.beforePush)
        var answer = try client.sync(request)
        try faults?(.afterPush)
        let outcomes = Dictionary(answer.outcomes.map { ($0.sequence, $0.outcome) }, uniquingKeysWith: { first, _ in first })
        while true {
            try faults?(.afterPull)
            if let pulled = try applyPull(answer, record: record, touched: &touched, faults: faults) {
                let pushed = pending.filter { $0.sequence <= pulled.acknowledged }.map {
                    SyncReport.Pushed(sequence: $0.sequence, intent: $0.intent, outcome: outcomes[$0.sequence])
                }
                var report = SyncReport(
                    pushed: pushed, serverVersion: answer.version, previousServerVersion: record.serverVersion, change: pulled.change,
                    stillPending: pulled.stillPending)
                report.diverged = pulled.diverged
                return report
            }
            // Intents recorded meanwhile touch items the answer does not cover: read those too
            // (a pull alone; the push is acknowledged already).
            let acknowledged = answer.acknowledged
            answer = try client.sync(
                SyncMessages.SyncRequest(
                    replica: record.replicaID, knownVersion: record.serverVersion, intents: [], read: touched.readSet, whole: drifted,
                    verify: verify))
            answer.acknowledged = max(answer.acknowledged, acknowledged)
        }
    }

    /// What the file holds when a sync starts: its record, what its pending intents touched,
    /// and whether plain SQL changed its copy of the list (then the whole list is read).
    private func syncStart() throws -> (record: ReplicaRecord, touched: Touched, drifted: Bool, items: Int) {
        try read { db in
            guard let record = try db.replicaRecord() else { throw RepositoryError.replica(.notAReplica(path: path)) }
            var touched = Touched()
            for intent in try db.pendingIntents(after: record.acknowledged) { intent.touches(&touched) }
            let items = try db.listRecordIfAny(id: record.listID).map { try ListDigest.itemCount($0, db: db) } ?? 0
            return (record, touched, try db.replicaListDrifted(record), items)
        }
    }

    /// What `applyPull` did.
    private struct AppliedPull: Sendable {
        var change: Change
        /// The highest sequence the server has applied, as this file now records it.
        var acknowledged: Int64
        var stillPending: Int
        /// Whether the list's digest differs from the server's, the pull applied.
        var diverged = false
    }

    /// Brings the file to the answer's facts in one local transaction, and replays the intents
    /// the server has not applied on top: the items the facts name go where the server has them
    /// (whole facts narrowed to what differs first), intents through `answer.acknowledged` are
    /// dropped, the others (recorded while the request was out) replayed. The ids the replica
    /// holds become the server's account of them less those the replayed intents took. `nil`
    /// when intents recorded meanwhile touch items the facts do not cover (`touched` grows; read
    /// again).
    private func applyPull(
        _ answer: SyncMessages.SyncAnswer, record: ReplicaRecord, touched: inout Touched, faults: (@Sendable (SyncStage) throws -> Void)?
    ) throws -> AppliedPull? {
        let before = touched
        let facts = answer.facts
        let applied: (AppliedPull?, Touched) = try write { db in
            guard let now = try db.replicaRecord(), now.serverVersion == record.serverVersion, now.listID == record.listID,
                now.acknowledged == record.acknowledged
            else {
                throw RepositoryError.busy  // another sync of this file ran meanwhile
            }
            let pending = try db.pendingIntents(after: record.acknowledged)
            var more = before
            for intent in pending { intent.touches(&more) }
            if more != before { return (nil, more) }
            guard let list = try db.listRecordIfAny(id: record.listID) else {
                throw RepositoryError.replica(.listGoneHere(path: path))
            }
            let acknowledged = max(answer.acknowledged, record.acknowledged)
            let replayed = pending.filter { $0.sequence > acknowledged }
            // Facts of the whole list (the journal could not say what changed): only what differs is written.
            let narrowed = facts.whole ? facts.narrowed(against: try db.snapshot(of: list, editing: false)) : facts
            var changesets = try narrowed.apply(to: list, db: db, store: self)
            var stored = StoredList(db: db, list: list, store: self)
            for intent in replayed { changesets += try ReplicaRules.apply(intent, to: &stored).changesets }
            try db.dropPendingIntents(through: acknowledged)
            try db.replaceAllottedIDs(rows: answer.rowIDs, sections: answer.sectionIDs, lessThoseTakenBy: replayed)
            try faults?(.insideLocalWrite)
            let changeset = Changeset(composing: changesets)
            var change = Change(list: list.name, version: list.version, committed: false)
            // A list plain SQL changed here gets its reload journaled by this commit, even when
            // the pull wrote nothing, so that the drift is behind the version recorded.
            if try !changeset.isEmpty || !db.isJournaled(listID: list.id) {
                change = Change(list: list.name, version: try db.commitChange(changeset.json, to: list, history: .received), changeset: changeset)
            }
            try db.setReplicaProgress(serverVersion: facts.version, acknowledged: acknowledged, localVersion: change.version)
            var applied = AppliedPull(change: change, acknowledged: acknowledged, stillPending: replayed.count)
            // With nothing replayed over it, the list is the server's: its digest says whether it is.
            if let digest = answer.digest, replayed.isEmpty {
                applied.diverged = try ListDigest.of(list, db: db) != digest
                try db.recordReplicaCheck(diverged: applied.diverged, at: facts.version)
            }
            return (applied, more)
        }
        touched = applied.1
        return applied.0
    }
}

extension Touched {
    /// The touched items as a sync request's read set.
    var readSet: SyncMessages.ReadSet {
        SyncMessages.ReadSet(
            rows: rows.map(\.rawValue).sorted(), sections: sections.map(\.rawValue).sorted(), wholeSections: whole.map(\.rawValue).sorted())
    }
}
