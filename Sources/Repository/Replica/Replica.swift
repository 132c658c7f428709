import Foundation

/// Where a replica stands (`SectionStore.replicaStatus()`): what it mirrors, how far it has
/// synced, and what it holds that the server has not seen.
public struct ReplicaStatus: Hashable, Sendable {
    /// The server's connection string (it never holds a password).
    public var server: String
    /// The mirrored list's name on the server.
    public var serverList: String
    /// The mirrored list's name in this file.
    public var list: String
    /// This replica's name on the server: 32 hex digits.
    public var replicaID: String
    /// The server's version of the list that this file last pulled.
    public var serverVersion: Int64
    /// The intents recorded here and not yet acknowledged by the server.
    public var pendingIntents: Int
    /// The ids the server allotted for rows and sections added here, not yet used.
    public var rowIDsLeft: Int
    public var sectionIDsLeft: Int
}

/// What one sync did (`SectionStore.sync()`).
public struct SyncReport: Sendable {
    /// One pushed intent and what became of it on the server.
    public struct Pushed: Sendable {
        /// Its number among this replica's intents.
        public var sequence: Int64
        public var intent: Intent
        /// What became of it; `nil` when an earlier push had applied it already (its answer was
        /// lost on the way back).
        public var outcome: IntentOutcome?
    }

    /// The intents pushed, in order.
    public var pushed: [Pushed]
    /// The server's version of the list after the sync.
    public var serverVersion: Int64
    /// The server version the replica had pulled before.
    public var previousServerVersion: Int64
    /// The change the sync made to the replica's list (others' changes, with the pending intents
    /// replayed over them by the rebase rules); `committed` is false when it changed nothing.
    public var change: Change
    /// Intents recorded meanwhile (while the sync ran), still pending: the next sync pushes them.
    public var stillPending: Int
}

extension SectionStore {
    /// How many ids a replica asks the server for at a time, for rows and for sections; it asks
    /// again when fewer than half are left.
    public static let replicaIDBlock = 1_024

    /// Makes a new file at `path` that mirrors the list `list` of the server at `server`: its
    /// sections and rows, with their ids, and a first block of ids for rows and sections added
    /// offline. The file is an ordinary sectionctl file (every command works on it, offline); what
    /// is done to the list there is recorded as intents, which `sync()` pushes.
    /// - Throws: `RepositoryError.replica(.cloneFromFile)` for a file location,
    ///   `.replica(.fileExists)` when `path` exists,
    ///   `.replica(.passwordInConnectionString)` for a connection string with a password (the
    ///   file would keep it in the clear), `.listNotFound` when the server has no such list, and
    ///   what opening either database throws. Nothing is left at `path` when it throws.
    ///   `support` opens the server (`.postgres`, from `RepositoryPostgres`), and the replica
    ///   file is opened with it, to sync.
    @discardableResult
    public static func clone(
        list: String, from server: StoreLocation, to path: String, server support: ServerSupport? = nil
    ) throws -> ReplicaStatus {
        guard case .server(let connectionString) = server else {
            throw RepositoryError.replica(.cloneFromFile(path: server.description))
        }
        if support.describe(server).contains("***") { throw RepositoryError.replica(.passwordInConnectionString) }
        if FileManager.default.fileExists(atPath: path) { throw RepositoryError.replica(.fileExists(path: path)) }
        let remote = try SectionStore(location: server, server: support, readsBesideWrites: false)
        let serverList = try remote.read { db in try db.listRecord(named: list) }
        let replicaID = (0..<4).map { _ in String(format: "%08x", UInt32.random(in: .min ... .max)) }.joined()
        let request = PushRequest(
            replicaID: replicaID, serverListID: serverList.id, serverList: list, knownVersion: 0, intents: [],
            wantRowIDs: replicaIDBlock, wantSectionIDs: replicaIDBlock)
        let answer = try remote.receivePush(request)
        let facts = try remote.read { db in
            try PullFacts.whole(list: try db.listRecordIfAny(id: serverList.id) ?? db.listRecord(named: list), db: db)
        }
        do {
            let local = try SectionStore(path: path, server: support, create: true)
            try local.write { db in
                let record = try db.listRecordIfAny(named: list) ?? db.createListRecord(named: list)
                try db.insertReplicaRecord(
                    ReplicaRecord(
                        server: connectionString, listID: record.id, serverListID: serverList.id, serverList: list, replicaID: replicaID,
                        serverVersion: facts.version))
                try db.addAllottedIDs(answer.rowIDs, kind: "row")
                try db.addAllottedIDs(answer.sectionIDs, kind: "section")
                let changeset = try facts.fill(record, db: db)
                if !changeset.isEmpty {
                    let version = try db.commitChange(changeset.json, to: record, history: .change)
                    try db.setReplicaProgress(serverVersion: facts.version, acknowledged: 0, localVersion: version)
                }
            }
            return try local.replicaStatus()
        } catch {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: path + suffix) }
            throw error
        }
    }

    /// Where this replica stands: its server and list, the server version it last pulled, how many
    /// intents wait to be pushed, how many ids are left.
    /// - Throws: `RepositoryError.replica(.notAReplica)` for a file that mirrors nothing.
    public func replicaStatus() throws -> ReplicaStatus {
        try read { db in
            guard let record = try db.replicaRecord() else { throw RepositoryError.replica(.notAReplica(path: path)) }
            return ReplicaStatus(
                server: server.describe(.server(connectionString: record.server)), serverList: record.serverList,
                list: try db.listRecordIfAny(id: record.listID)?.name ?? "", replicaID: record.replicaID, serverVersion: record.serverVersion,
                pendingIntents: try db.pendingIntentCount(), rowIDsLeft: try db.allottedIDsLeft(kind: "row"),
                sectionIDsLeft: try db.allottedIDsLeft(kind: "section"))
        }
    }
}

/// The items a replica's intents touched: what a pull must read besides the server's changes.
struct Touched: Equatable, Sendable {
    var rows: Set<RowID> = []
    var sections: Set<SectionID> = []
    var whole: Set<SectionID> = []
}

extension PendingIntent {
    /// Adds the ids of the rows and sections this intent touches.
    /// A section this replica deleted also goes in `whole`: it stands for its rows, which
    /// `PullFacts.read` reads when the server still has it.
    func touches(_ touched: inout Touched) {
        switch intent {
        case .addRow(_, let placement):
            if let newID { touched.rows.insert(RowID(newID)) }
            touched.sections.insert(placement.section)
        case .moveRow(let id, let placement):
            touched.rows.insert(id)
            touched.sections.insert(placement.section)
        case .updateRow(let id, _, _), .deleteRow(let id):
            touched.rows.insert(id)
        case .addSection:
            if let newID { touched.sections.insert(SectionID(newID)) }
        case .renameSection(let id, _), .setEmptyText(let id, _), .moveSection(let id, _):
            touched.sections.insert(id)
        case .deleteSection(let id, _):
            touched.sections.insert(id)
            touched.whole.insert(id)
        }
    }
}

extension SectionStore {
    /// Syncs this replica now, and again whenever its list changes here or the mirrored list
    /// changes on the server (the server's notifications, the file's commits), until the calling
    /// task is cancelled. `report` gets each sync's report, or the error it failed with (a server
    /// out of reach: the next change, or the server's return, brings the next try).
    /// - Throws: `.replica(.notAReplica)` before anything else; `CancellationError` never (a
    ///   cancelled task simply returns).
    public func syncContinuously(_ report: @escaping @Sendable (Result<SyncReport, any Error>) -> Void) async throws {
        let record = try read { db in
            guard let record = try db.replicaRecord() else { throw RepositoryError.replica(.notAReplica(path: path)) }
            return record
        }
        let localList = try read { db in try db.listRecordIfAny(id: record.listID)?.name } ?? record.serverList
        let (pokes, poke) = AsyncStream<Void>.makeStream(bufferingPolicy: .bufferingNewest(1))
        poke.yield()
        let local = Task.detached { [self] in
            for try await _ in list(localList).updates() { poke.yield() }
        }
        let support = server
        let remote = Task.detached {
            // The server may be out of reach: try again every few seconds until it answers.
            while !Task.isCancelled {
                do {
                    let server = try SectionStore(location: .server(connectionString: record.server), server: support)
                    for try await _ in server.list(record.serverList).updates() { poke.yield() }
                } catch {}
                try? await Task.sleep(for: .seconds(3))
                poke.yield()
            }
        }
        defer {
            local.cancel()
            remote.cancel()
            poke.finish()
        }
        for await _ in pokes {
            if Task.isCancelled { return }
            report(Result { try sync() })
        }
    }
}
