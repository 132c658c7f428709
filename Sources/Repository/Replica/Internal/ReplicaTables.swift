import Foundation

/// The replica's own tables in a file (`Migrations/0010_replica.sql`).
struct ReplicaRecord: Sendable {
    var server: String
    var listID: Int64
    var serverList: String
    var replicaID: String
    var serverVersion: ListVersion
    /// The list's version in this file after the last pull.
    var localVersion: ListVersion = 0
    var nextSequence: Int64
    var acknowledged: Int64

    static let columns = "server, list_id, server_list, replica_id, server_version, next_sequence, acknowledged, local_version"

    init(server: String, listID: Int64, serverList: String, replicaID: String, serverVersion: ListVersion) {
        self.server = server
        self.listID = listID
        self.serverList = serverList
        self.replicaID = replicaID
        self.serverVersion = serverVersion
        self.nextSequence = 1
        self.acknowledged = 0
    }

    init(_ row: any ResultRow) {
        server = row.string(0)
        listID = row.int64(1)
        serverList = row.string(2)
        replicaID = row.string(3)
        serverVersion = row.listVersion(4)
        nextSequence = row.int64(5)
        acknowledged = row.int64(6)
        localVersion = row.listVersion(7)
    }
}

/// An intent recorded on a replica and not yet acknowledged by the server.
struct PendingIntent: Sendable {
    var sequence: Int64
    var intent: Intent
    /// The id an added row or section took.
    var newID: Int64?
    /// The intent's JSON form, as stored and pushed.
    var json: String
}

extension Database {
    /// The replica record of this file; `nil` when it mirrors nothing (and on a server, which
    /// has no such table).
    func replicaRecord() throws -> ReplicaRecord? {
        guard try holdsReplicaTables() else { return nil }
        return try queryFirst("SELECT \(ReplicaRecord.columns) FROM replica") { ReplicaRecord($0) }
    }

    func insertReplicaRecord(_ record: ReplicaRecord) throws {
        try run(
            "INSERT INTO replica (only_row, \(ReplicaRecord.columns)) VALUES (1, ?, ?, ?, ?, ?, ?, ?, ?)",
            record.server, record.listID, record.serverList, record.replicaID, record.serverVersion.rawValue,
            record.nextSequence, record.acknowledged, record.localVersion.rawValue)
    }

    func setReplicaProgress(serverVersion: ListVersion, acknowledged: Int64, localVersion: ListVersion) throws {
        try run(
            "UPDATE replica SET server_version = ?, acknowledged = max(acknowledged, ?), local_version = ?", serverVersion.rawValue,
            acknowledged, localVersion.rawValue)
    }

    /// Records that the list's digest matched the server's at server version `version`
    /// (`verified_version`), or that it did not (`diverged_version`, when `diverged`).
    func recordReplicaCheck(diverged: Bool, at version: ListVersion) throws {
        try run(diverged ? "UPDATE replica SET diverged_version = ?" : "UPDATE replica SET verified_version = ?", version.rawValue)
    }

    /// The last server version at which the list's digest matched the server's, or (when
    /// `diverged`) did not; `nil` before any such check.
    func replicaCheckedVersion(diverged: Bool) throws -> ListVersion? {
        try queryFirst(diverged ? "SELECT diverged_version FROM replica" : "SELECT verified_version FROM replica") {
            $0.optionalListVersion(0)
        } ?? nil
    }

    /// Whether plain SQL changed the mirrored list here since the last pull (it is not journaled
    /// now, or a reload was journaled since `record.localVersion`, or the journal no longer
    /// reaches back to it): what such SQL did was not recorded as intents, so the next pull puts
    /// the server's state back by reading the whole list.
    func replicaListDrifted(_ record: ReplicaRecord) throws -> Bool {
        guard let list = try listRecordIfAny(id: record.listID) else { return false }
        guard try isJournaled(listID: list.id) else { return true }
        guard list.version > record.localVersion else { return false }
        let entries = try journalEntries(list: list.id, after: record.localVersion)
        return entries.count != Int(record.localVersion.distance(to: list.version)) || entries.contains { $0.changes == Journal.reloadJSON }
    }

    /// Appends intents to the pending ones, numbered from `sequence` (the record's next one).
    func appendPendingIntents(_ intents: [(Intent, Int64?)], from first: Int64) throws {
        guard !intents.isEmpty else { return }
        var sequence = first
        for (intent, newID) in intents {
            try run("INSERT INTO replica_intents (sequence, intent, new_id) VALUES (?, ?, ?)", sequence, intent.json, newID)
            sequence += 1
        }
        try run("UPDATE replica SET next_sequence = ?", sequence)
    }

    /// The pending intents after sequence `after`, in order.
    func pendingIntents(after: Int64 = 0) throws -> [PendingIntent] {
        try query("SELECT sequence, intent, new_id FROM replica_intents WHERE sequence > ? ORDER BY sequence", after) { row in
            let json = row.string(1)
            return PendingIntent(sequence: row.int64(0), intent: try Intent(json: json), newID: row.optionalInt64(2), json: json)
        }
    }

    func pendingIntentCount() throws -> Int {
        Int(try scalarInt("SELECT count(*) FROM replica_intents") ?? 0)
    }

    /// Forgets the pending intents the server acknowledged: those through `sequence`.
    func dropPendingIntents(through sequence: Int64) throws {
        try run("DELETE FROM replica_intents WHERE sequence <= ?", sequence)
    }

    /// Makes the ids this replica holds the server's account of them (`rows`, `sections`: the
    /// runs it gave and has not seen used), less the ids `intents` took here since.
    func replaceAllottedIDs(rows: [SyncMessages.IDRun], sections: [SyncMessages.IDRun], lessThoseTakenBy intents: [PendingIntent]) throws {
        try run("DELETE FROM replica_ids")
        for (kind, runs) in [("row", rows), ("section", sections)] {
            for run in runs {
                try self.run("INSERT INTO replica_ids (kind, first, last) VALUES (?, ?, ?)", kind, run.first, run.last)
            }
        }
        for intent in intents {
            guard let id = intent.newID else { continue }
            switch intent.intent {
            case .addRow: try removeAllottedID(id, kind: "row")
            case .addSection: try removeAllottedID(id, kind: "section")
            default: break
            }
        }
    }

    /// Removes `id` from the run of `kind` that holds it, if any.
    private func removeAllottedID(_ id: Int64, kind: String) throws {
        guard
            let (first, last) = try queryFirst(
                "SELECT first, last FROM replica_ids WHERE kind = ? AND first <= ? AND last >= ?", kind, id, id,
                row: { ($0.int64(0), $0.int64(1)) })
        else { return }
        try run("DELETE FROM replica_ids WHERE kind = ? AND first = ?", kind, first)
        if first < id { try run("INSERT INTO replica_ids (kind, first, last) VALUES (?, ?, ?)", kind, first, id - 1) }
        if id < last { try run("INSERT INTO replica_ids (kind, first, last) VALUES (?, ?, ?)", kind, id + 1, last) }
    }

    /// How many allotted ids of `kind` are left.
    func allottedIDsLeft(kind: String) throws -> Int {
        Int(try scalarInt("SELECT coalesce(sum(last - first + 1), 0) FROM replica_ids WHERE kind = ?", kind) ?? 0)
    }

    /// Takes the lowest allotted id of `kind`; throws `ReplicaProblem.noIDsLeft` when none is left.
    func takeAllottedID(kind: String) throws -> Int64 {
        guard
            let (first, last) = try queryFirst(
                "SELECT first, last FROM replica_ids WHERE kind = ? ORDER BY first LIMIT 1", kind, row: { ($0.int64(0), $0.int64(1)) })
        else {
            throw RepositoryError.replica(.noIDsLeft(kind: kind))
        }
        if first == last {
            try run("DELETE FROM replica_ids WHERE kind = ? AND first = ?", kind, first)
        } else {
            try run("UPDATE replica_ids SET first = ? WHERE kind = ? AND first = ?", first + 1, kind, first)
        }
        return first
    }

    /// Refuses `what` (a bulk import) on a replica file, whose rows must take ids the server
    /// allotted and whose changes must be kept as intents: `ReplicaProblem.cannotRecord`.
    package func refuseOnReplica(_ what: String) throws {
        if try replicaRecord() != nil { throw RepositoryError.replica(.cannotRecord(what: what)) }
    }

    /// On a replica file, the next id of `kind` the server allotted it (throwing when none is
    /// left); elsewhere `nil`, for the database to pick one.
    func allottedIDIfReplica(kind: String) throws -> Int64? {
        guard try replicaRecord() != nil else { return nil }
        return try takeAllottedID(kind: kind)
    }
}
