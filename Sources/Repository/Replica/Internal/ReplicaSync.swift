import Foundation
import Synchronization

extension SectionStore {
    /// How many times one sync pulls and pushes at once before it sends its intents for the
    /// server to resolve one by one: each try fails only when the server's list moved on between
    /// the pull and the push.
    package static let pushAtOnceAttempts = 3

    /// Syncs this replica with its server, in a fixed few round trips whatever the number of
    /// pending intents.
    ///
    /// 1. **Pull**: the items the server's changes since the version this file pulled (its
    ///    journal) and this replica's pending intents touched are brought to where the server has
    ///    them, and the pending intents are replayed on top by `Intent`'s rules: one local change
    ///    that observers see like any other.
    /// 2. **Push**: where each item those intents touched now stands (its section, the item before
    ///    it, its content, or that it is gone), which the server writes in one transaction only if
    ///    its list is still at the version pulled, recording the last intent's sequence beside it.
    ///    A push whose answer is lost is seen as done by the next pull, and applied once.
    ///
    /// When the server's list moved on between the two, the sync pulls again; after
    /// `pushAtOnceAttempts` tries it sends the intents themselves, which the server resolves one
    /// by one against its current state. Online work: three statements (the list's version and
    /// journal, the items' facts, the push) on a connection the store keeps for its syncs.
    /// - Throws: `.replica(.notAReplica)`; `.replica(.listGoneOnServer)`, `.replica(.serverBehind)`,
    ///   `.replica(.identityClash)` (nothing pushed, nothing pending lost); `.unavailable` and the
    ///   other errors of a server that cannot be reached, after which a sync is simply run again.
    @discardableResult
    public func sync() throws -> SyncReport {
        let server = try read { db in
            guard let record = try db.replicaRecord() else { throw RepositoryError.replica(.notAReplica(path: path)) }
            return record.server
        }
        let (remote, kept) = try serverForSync(server)
        do {
            return try sync(with: remote)
        } catch {
            syncServer.withLock { $0 = nil }
            guard kept, case RepositoryError.unavailable = error else { throw error }
        }
        // The connection kept from an earlier sync was lost since (the server restarted, the
        // network changed): once more, on a new one. A sync run twice applies its intents once.
        do {
            return try sync(with: try serverForSync(server).store)
        } catch {
            syncServer.withLock { $0 = nil }
            throw error
        }
    }

    private func sync(with remote: SectionStore) throws -> SyncReport {
        let before = try read { db in try db.replicaRecord()?.serverVersion } ?? 0
        var report: SyncReport?
        attempts: for _ in 0..<Self.pushAtOnceAttempts {
            switch try syncAtOnce(with: remote) {
            case .done(let done):
                report = done
                break attempts
            case .again: continue
            case .intentByIntent: break attempts
            }
        }
        var result = try report ?? syncIntentByIntent(with: remote)
        result.previousServerVersion = before  // a try that found the list moved on pulled from there
        return result
    }

    /// The server store this replica's syncs use, opened once and kept; `kept` when an earlier
    /// sync opened it.
    private func serverForSync(_ connectionString: String) throws -> (store: SectionStore, kept: Bool) {
        if let kept = syncServer.withLock({ $0 }), kept.connectionString == connectionString { return (kept.store, true) }
        let store = try SectionStore(location: .server(connectionString: connectionString), server: server, readsBesideWrites: false)
        syncServer.withLock { $0 = (connectionString, store) }
        return (store, false)
    }

    /// What the file holds when a sync starts.
    private func syncStart() throws -> (record: ReplicaRecord, touched: Touched, drifted: Bool, wantRows: Int, wantSections: Int) {
        try read { db in
            guard let record = try db.replicaRecord() else { throw RepositoryError.replica(.notAReplica(path: path)) }
            var touched = Touched()
            for intent in try db.pendingIntents(after: record.acknowledged) { intent.touches(&touched) }
            let block = Self.replicaIDBlock
            return (
                record, touched, try db.replicaListDrifted(record),
                try db.allottedIDsLeft(kind: "row") < block / 2 ? block : 0, try db.allottedIDsLeft(kind: "section") < block / 2 ? block : 0
            )
        }
    }

    /// Reads the server's facts for a sync: outside a transaction first (two statements), in a
    /// read transaction when those could not agree.
    private func pullFacts(
        from remote: SectionStore, record: ReplicaRecord, touched: Touched, drifted: Bool
    ) throws -> (facts: PullFacts, recorded: ServerAcknowledgement?) {
        func ask(_ db: any Database, consistent: Bool) throws -> (facts: PullFacts, recorded: ServerAcknowledgement?)? {
            try PullFacts.readForSync(
                listID: record.serverListID, listName: record.serverList, server: remote.path, since: record.serverVersion,
                replicaID: record.replicaID, touched: touched, wholeList: drifted, consistent: consistent, db: db)
        }
        if let quick = try remote.withConnection({ db in try ask(db, consistent: false) }) { return quick }
        return try remote.read { db in
            guard let facts = try ask(db, consistent: true) else { throw RepositoryError.inconsistent("a read transaction saw two states") }
            return facts
        }
    }

    /// How a pull and push at once ended.
    private enum AtOnce {
        case done(SyncReport)
        /// The server's list moved on since the pull: nothing pushed; the pull stands, and the
        /// next try starts from it.
        case again
        /// The server found its list other than the replica said (nothing pushed): the intents go
        /// one by one.
        case intentByIntent
    }

    /// One pull and one push at once.
    private func syncAtOnce(with remote: SectionStore) throws -> AtOnce {
        let (record, firstTouched, drifted, wantRows, wantSections) = try syncStart()
        var touched = firstTouched
        let faults = syncFaults.withLock { $0 }
        while true {
            let (facts, recorded) = try pullFacts(from: remote, record: record, touched: touched, drifted: drifted)
            try faults?(.afterPull)
            let pulled = try applyPull(
                facts, record: record, acknowledged: record.acknowledged, recorded: recorded, touched: &touched,
                push: (wantRows: wantRows, wantSections: wantSections), faults: faults)
            guard let pulled else { continue }
            var pushed = pulled.pushed
            guard let push = pulled.push else {
                return .done(
                    SyncReport(
                        pushed: pushed, serverVersion: facts.version, previousServerVersion: record.serverVersion, change: pulled.change,
                        stillPending: pulled.stillPending))
            }
            try faults?(.beforePush)
            let answer = try remote.receivePushAtOnce(push.json, faults: faults)
            try faults?(.afterPush)
            guard answer.applied else {
                guard answer.version != nil else {
                    throw RepositoryError.replica(.listGoneOnServer(list: record.serverList, server: remote.path))
                }
                return answer.differs == nil ? .again : .intentByIntent
            }
            let version = answer.version ?? facts.version
            let stillPending = try write { db in
                // Another sync of this file since the pull: the next sync learns from the server what this push did.
                guard let now = try db.replicaRecord(), now.serverVersion == facts.version, now.acknowledged == pulled.acknowledged else {
                    throw RepositoryError.busy
                }
                let acknowledged = push.last?.sequence ?? pulled.acknowledged
                try db.dropPendingIntents(through: acknowledged)
                try db.addAllottedIDs(answer.rowIDs ?? [], kind: "row")
                try db.addAllottedIDs(answer.sectionIDs ?? [], kind: "section")
                try db.setReplicaProgress(serverVersion: version, acknowledged: acknowledged, localVersion: pulled.localVersion)
                return try db.pendingIntentCount()
            }
            pushed += pulled.replayed.map { SyncReport.Pushed(sequence: $0.sequence, intent: $0.intent, outcome: pulled.outcomes[$0.sequence]) }
            return .done(
                SyncReport(
                    pushed: pushed, serverVersion: version, previousServerVersion: pulled.previousServerVersion, change: pulled.change,
                    stillPending: stillPending))
        }
    }

    /// A sync that sends its intents for the server to resolve one by one, against whatever state
    /// its list has (`receivePush`), then pulls: for a list other writers keep changing between a
    /// pull and a push.
    private func syncIntentByIntent(with remote: SectionStore) throws -> SyncReport {
        let (record, firstTouched, drifted, wantRows, wantSections) = try syncStart()
        var touched = firstTouched
        let pending = try read { db in try db.pendingIntents(after: record.acknowledged) }
        let request = PushRequest(
            replicaID: record.replicaID, serverListID: record.serverListID, serverList: record.serverList,
            knownVersion: record.serverVersion, intents: pending, wantRowIDs: wantRows, wantSectionIDs: wantSections)
        let faults = syncFaults.withLock { $0 }
        var answer: PushAnswer?
        if !request.intents.isEmpty || request.wantRowIDs > 0 || request.wantSectionIDs > 0 {
            try faults?(.beforePush)
            answer = try remote.receivePush(request, faults: faults)
            try faults?(.afterPush)
        }
        let acknowledged = answer?.acknowledged ?? record.acknowledged
        let outcomes = Dictionary(answer?.outcomes.map { ($0.sequence, $0.outcome) } ?? [], uniquingKeysWith: { first, _ in first })
        while true {
            let (facts, _) = try pullFacts(from: remote, record: record, touched: touched, drifted: drifted)
            try faults?(.afterPull)
            guard
                let pulled = try applyPull(
                    facts, record: record, acknowledged: acknowledged, recorded: nil, touched: &touched,
                    newIDs: (answer?.rowIDs ?? [], answer?.sectionIDs ?? []), faults: faults)
            else { continue }
            let pushed = pending.filter { $0.sequence <= acknowledged }.map {
                SyncReport.Pushed(sequence: $0.sequence, intent: $0.intent, outcome: outcomes[$0.sequence])
            }
            return SyncReport(
                pushed: pushed, serverVersion: facts.version, previousServerVersion: record.serverVersion, change: pulled.change,
                stillPending: pulled.stillPending)
        }
    }

    /// What `applyPull` did.
    private struct AppliedPull: Sendable {
        var change: Change
        /// The file's version of the list whose state the push carries: the server's, once the
        /// push is written.
        var localVersion: Int64
        var previousServerVersion: Int64
        /// The highest sequence the server has applied, as this file now records it.
        var acknowledged: Int64
        /// Intents the server had applied already (a push whose answer was lost), acknowledged now.
        var pushed: [SyncReport.Pushed]
        /// The intents replayed over the server's state, and what became of each.
        var replayed: [PendingIntent]
        var outcomes: [Int64: IntentOutcome]
        var stillPending: Int
        /// The push that carries the replayed intents' result to the server, if there is anything
        /// to push or ids to ask for.
        var push: PushAtOnce?
    }

    /// Brings the file to the server's facts in one local transaction, and replays the intents
    /// the server has not applied on top: the items the facts name go where the server has them
    /// (whole facts narrowed to what differs first), intents through `acknowledged` (or through
    /// `recorded`, a push whose answer was lost, when it is this file's own) are dropped, the
    /// others replayed. With `push`, also reads where the items the replayed intents touched
    /// stand now: what the push sends. `nil` when intents recorded meanwhile touch items the
    /// facts do not cover (`touched` grows; read again).
    private func applyPull(
        _ facts: PullFacts, record: ReplicaRecord, acknowledged: Int64, recorded: ServerAcknowledgement?, touched: inout Touched,
        newIDs: (rows: [Int64], sections: [Int64]) = ([], []), push: (wantRows: Int, wantSections: Int)? = nil,
        faults: (@Sendable (SyncStage) throws -> Void)?
    ) throws -> AppliedPull? {
        let before = touched
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
            // The server has applied more than this file knows: a push whose answer was lost, whose
            // last intent must be this file's own under that sequence (else two files push under
            // one replica's name: a copied file).
            var acknowledged = acknowledged
            if let recorded, recorded.sequence > acknowledged {
                guard pending.contains(where: { $0.sequence == recorded.sequence && $0.json == recorded.intent }) else {
                    throw RepositoryError.replica(.identityClash(replicaID: record.replicaID, sequence: recorded.sequence))
                }
                acknowledged = recorded.sequence
            }
            guard let list = try db.listRecordIfAny(id: record.listID) else {
                throw RepositoryError.replica(.listGoneHere(path: path))
            }
            let replayed = pending.filter { $0.sequence > acknowledged }
            var mine = Touched()
            for intent in replayed { intent.touches(&mine) }
            func readMine() throws -> PullFacts {
                try PullFacts.readItems(listID: list.id, rows: mine.rows, sections: mine.sections.union(mine.whole), wholeSections: [], db: db)
            }
            func pullAndReplay() throws -> (pulled: [Changeset], replayed: [Changeset], outcomes: [Int64: IntentOutcome]) {
                // Facts of the whole list (the journal could not say what changed): only what differs is written.
                let narrowed = facts.whole ? facts.narrowed(against: try db.snapshot(of: list, editing: false)) : facts
                let pulled = try narrowed.apply(to: list, db: db, store: self)
                var stored = StoredList(db: db, list: list, store: self)
                var steps: [Changeset] = []
                var outcomes: [Int64: IntentOutcome] = [:]
                for intent in replayed {
                    let (applied, outcome) = try ReplicaRules.apply(intent, to: &stored)
                    steps += applied
                    outcomes[intent.sequence] = outcome
                }
                return (pulled, steps, outcomes)
            }
            func pushAtOnce(items: @autoclosure () throws -> PullFacts, changes: [Changeset]) throws -> PushAtOnce? {
                guard let push, !replayed.isEmpty || push.wantRows > 0 || push.wantSections > 0 else { return nil }
                return try PushAtOnce(
                    record: record, version: facts.version, acknowledgedOnServer: recorded?.sequence ?? 0, last: replayed.last,
                    changes: Changeset(composing: changes), items: items(), wantRows: push.wantRows, wantSections: push.wantSections)
            }
            let work: (pulled: [Changeset], replayed: [Changeset], outcomes: [Int64: IntentOutcome])
            if push != nil, !facts.whole, facts.version == record.serverVersion, acknowledged == record.acknowledged {
                // Nothing new on the server since the last pull: the file is likely its list with
                // the intents replayed already (a sync whose push failed, or intents made since).
                // Replayed in a savepoint, and taken back when every item they touch stands as it
                // did, so that a sync run again writes nothing here (a delete and re-add of a row
                // added offline would otherwise be a change).
                let before = try readMine()
                do {
                    work = try db.inSavepoint {
                        let work = try pullAndReplay()
                        if try readMine().samePlaces(as: before) { throw ReplayChangedNothing(replayed: work.replayed, outcomes: work.outcomes) }
                        return work
                    }
                } catch let unchanged as ReplayChangedNothing {
                    return (
                        AppliedPull(
                            change: Change(list: list.name, version: list.version, committed: false), localVersion: list.version,
                            previousServerVersion: record.serverVersion,
                            acknowledged: acknowledged, pushed: [], replayed: replayed, outcomes: unchanged.outcomes, stillPending: replayed.count,
                            push: try pushAtOnce(items: before, changes: unchanged.replayed)),
                        more
                    )
                }
            } else {
                work = try pullAndReplay()
            }
            try db.dropPendingIntents(through: acknowledged)
            try db.addAllottedIDs(newIDs.rows, kind: "row")
            try db.addAllottedIDs(newIDs.sections, kind: "section")
            try faults?(.insideLocalWrite)
            let changeset = Changeset(composing: work.pulled + work.replayed)
            var change = Change(list: list.name, version: list.version, committed: false)
            // A list plain SQL changed here gets its reload journaled by this commit, even when
            // the pull wrote nothing, so that the drift is behind the version recorded.
            if try !changeset.isEmpty || !db.isJournaled(listID: list.id) {
                change = Change(list: list.name, version: try db.commitChange(changeset.json, to: list, history: .change), changeset: changeset)
            }
            try db.setReplicaProgress(serverVersion: facts.version, acknowledged: acknowledged, localVersion: change.version)
            let pushAtOnce = try pushAtOnce(items: try readMine(), changes: work.replayed)
            let outcomes = work.outcomes
            let pushed = pending.filter { $0.sequence <= acknowledged }.map {
                SyncReport.Pushed(sequence: $0.sequence, intent: $0.intent, outcome: nil)
            }
            return (
                AppliedPull(
                    change: change, localVersion: change.version, previousServerVersion: record.serverVersion, acknowledged: acknowledged,
                    pushed: pushed,
                    replayed: replayed, outcomes: outcomes, stillPending: replayed.count, push: pushAtOnce),
                more
            )
        }
        touched = applied.1
        return applied.0
    }
}

/// Thrown out of the savepoint of a replay that left every item it touched where it stood.
private struct ReplayChangedNothing: Error {
    var replayed: [Changeset]
    var outcomes: [Int64: IntentOutcome]
}

extension PullFacts {
    /// Whether every section and row these facts name stands as in `other`: present or gone alike,
    /// after the same item, with the same content (positions aside, which a replay may change
    /// without changing the order).
    func samePlaces(as other: PullFacts) -> Bool {
        sections.count == other.sections.count && rows.count == other.rows.count
            && sections.allSatisfy { id, fact in
                guard let theirs = other.sections[id] else { return false }
                return fact?.predecessor == theirs?.predecessor && fact?.title == theirs?.title && fact?.emptyText == theirs?.emptyText
            }
            && rows.allSatisfy { id, fact in
                guard let theirs = other.rows[id] else { return false }
                return fact?.section == theirs?.section && fact?.predecessor == theirs?.predecessor && fact?.content == theirs?.content
            }
    }
}

/// A push at once (`Migrations/postgres/0009_replica_push_at_once.sql`): where every item the
/// replayed intents touched stands in the file, over the server's state as pulled.
struct PushAtOnce: Sendable {
    /// The JSON `sectionctl.replica_push` takes.
    var json: String
    /// The last intent it carries; `nil` when it only asks for ids.
    var last: PendingIntent?

    /// The request's JSON form, as the server function reads it.
    private struct Request: Encodable {
        struct Section: Encodable {
            var id: Int64
            var after: Int64?
            var title: String
            var emptyText: String?
            enum CodingKeys: String, CodingKey {
                case id, after, title
                case emptyText = "empty_text"
            }
        }
        struct Row: Encodable {
            var id: Int64
            var section: Int64
            var after: Int64?
            var kind: String
            var title: String
            var value: String?
        }
        var list: Int64
        var version: Int64
        var replica: String
        var acknowledged: Int64
        var sequence: Int64
        var intent: String
        var changes: String?
        var sections: [Section]
        var rows: [Row]
        var goneSections: [Int64]
        var goneRows: [Int64]
        var wantRows: Int
        var wantSections: Int
        enum CodingKeys: String, CodingKey {
            case list, version, replica, acknowledged, sequence, intent, changes, sections, rows
            case goneSections = "gone_sections"
            case goneRows = "gone_rows"
            case wantRows = "want_rows"
            case wantSections = "want_sections"
        }
    }

    init(
        record: ReplicaRecord, version: Int64, acknowledgedOnServer: Int64, last: PendingIntent?, changes: Changeset, items: PullFacts,
        wantRows: Int, wantSections: Int
    ) throws {
        let sections = items.sections.compactMap { entry in entry.value.map { (id: entry.key, fact: $0) } }.sorted { $0.fact.order < $1.fact.order }
        let rows = items.rows.compactMap { entry in entry.value.map { (id: entry.key, fact: $0) } }
            .sorted { ($0.fact.sectionOrder, $0.fact.order) < ($1.fact.sectionOrder, $1.fact.order) }
        let request = Request(
            list: record.serverListID, version: version, replica: record.replicaID, acknowledged: acknowledgedOnServer,
            sequence: last?.sequence ?? 0, intent: last?.json ?? "", changes: changes.isEmpty ? nil : changes.json,
            sections: sections.map {
                Request.Section(id: $0.id.rawValue, after: $0.fact.predecessor?.rawValue, title: $0.fact.title, emptyText: $0.fact.emptyText)
            },
            rows: rows.map {
                Request.Row(
                    id: $0.id.rawValue, section: $0.fact.section.rawValue, after: $0.fact.predecessor?.rawValue, kind: $0.fact.content.kind.rawValue,
                    title: $0.fact.content.title, value: $0.fact.content.value)
            },
            goneSections: items.sections.compactMap { $0.value == nil ? $0.key.rawValue : nil },
            goneRows: items.rows.compactMap { $0.value == nil ? $0.key.rawValue : nil }, wantRows: wantRows, wantSections: wantSections)
        json = String(decoding: try JSONEncoder().encode(request), as: UTF8.self)
        self.last = last
    }
}

/// The server's answer to a push at once.
struct PushAtOnceAnswer: Sendable, Decodable {
    /// Whether it wrote the push; when not, nothing was written.
    var applied: Bool
    /// The list's version after it (or as it found it); `nil` when the list is gone.
    var version: Int64?
    var rowIDs: [Int64]?
    var sectionIDs: [Int64]?
    /// Why the server found its list other than the push said, when it did.
    var differs: String?

    enum CodingKeys: String, CodingKey {
        case applied, version
        case rowIDs = "row_ids"
        case sectionIDs = "section_ids"
        case differs
    }
}

extension SectionStore {
    /// Writes a push at once on this store's server, in one statement that is its own
    /// transaction; with `faults` (a test), in a transaction of its own so that `.insidePush`
    /// fails it before it commits.
    func receivePushAtOnce(_ json: String, faults: (@Sendable (SyncStage) throws -> Void)?) throws -> PushAtOnceAnswer {
        let answer: String? = try withConnection { db in
            guard let faults else { return try db.pushReplicaAtOnce(json) }
            return try db.inTransaction(.write) {
                let answer = try db.pushReplicaAtOnce(json)
                try faults(.insidePush)
                return answer
            }
        }
        // A store without the function (a file) pushes its intents one by one instead.
        guard let answer else { return PushAtOnceAnswer(applied: false, version: 0, differs: "no push at once here") }
        do {
            return try JSONDecoder().decode(PushAtOnceAnswer.self, from: Data(answer.utf8))
        } catch {
            throw RepositoryError.inconsistent("the server answered a push with \(answer)")
        }
    }
}
