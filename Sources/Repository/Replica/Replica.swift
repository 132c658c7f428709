import Foundation

/// Where a replica stands (`SectionStore.replicaStatus()`): what it mirrors, how far it has
/// synced, and what it holds that the server has not seen.
public struct ReplicaStatus: Hashable, Sendable {
    /// The list's address on its sync service (`https://HOST[:PORT]/lists/NAME`).
    public var server: String
    /// Where the replica's token is kept: beside the file, readable by its owner alone.
    public var tokenFile: String
    /// The mirrored list's name on the server.
    public var serverList: String
    /// The mirrored list's name in this file.
    public var list: String
    /// This replica's name on the server (32 hex digits), which the server chose.
    public var replicaID: String
    /// The server's version of the list that this file last pulled.
    public var serverVersion: ListVersion
    /// The intents recorded here and not yet acknowledged by the server.
    public var pendingIntents: Int
    /// The ids the server allotted for rows and sections added here, not yet used.
    public var rowIDsLeft: Int
    public var sectionIDsLeft: Int
    /// The server version at which the list here last had the same contents as the server's
    /// (their digests compared after a sync); `nil` before the first comparison.
    public var verifiedVersion: ListVersion?
    /// The last server version at which the list here was found to differ from the server's (and
    /// was then read whole); `nil` when it never did.
    public var divergedVersion: ListVersion?
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
    public var serverVersion: ListVersion
    /// The server version the replica had pulled before.
    public var previousServerVersion: ListVersion
    /// The change the sync made to the replica's list (others' changes, with the pending intents
    /// replayed over them by the rebase rules); `committed` is false when it changed nothing.
    public var change: Change
    /// Intents recorded meanwhile (while the sync ran), still pending: the next sync pushes them.
    public var stillPending: Int
    /// Whether the list here was found to differ from the server's after the pull (their
    /// digests differed), so the sync read the whole list and wrote what differed.
    public var diverged = false
}

extension SectionStore {
    /// How many ids a replica asks the server for at a time, for rows and for sections; it asks
    /// again when fewer than half are left.
    public static let replicaIDBlock = 1_024

    /// Makes a new file at `path` that mirrors a list on a sync service (`sectionctl serve`):
    /// its sections and rows, with their ids, and the ids the service gives this replica for
    /// rows and sections added offline. The file is an ordinary sectionctl file (every command
    /// works on it, offline), whose mirrored list is its default one; what is done to the list
    /// there is recorded as intents, which `sync()` pushes.
    ///
    /// The token is kept beside the file, never in it: in `path + ".token"`, readable by its
    /// owner alone, with the address it is for (`ReplicaStatus.tokenFile`). The file is written
    /// under a temporary name and takes `path` only when complete, so an interrupted clone leaves
    /// nothing in the way of the next.
    /// - Parameters:
    ///   - address: the list's address, `https://HOST[:PORT]/lists/NAME` (plain `http://` on a
    ///     loopback host, or anywhere with `allowPlainHTTP`).
    ///   - token: a token of the list (`sectionctl token create`); a read token makes a replica
    ///     that pulls only.
    ///   - path: the replica file to make; it must not exist.
    ///   - allowPlainHTTP: take an `http://` address of another machine (the token then crosses
    ///     the network in the clear), as the user asked by name.
    ///   - timeout: how long a silent service is waited for, per request.
    /// - Throws: `RepositoryError.replica(.badServerAddress)`, `.replica(.fileExists)` when
    ///   `path` exists, or a file other than a token file is where its token goes (a token file
    ///   without its replica, which an interrupted clone leaves, is replaced), `.replica(.tokenRefused)`, `.replica(.notAllowed)`,
    ///   `.replica(.listGoneOnServer)` when the service has no such list, `.unavailable` when it
    ///   cannot be reached. Nothing is left at `path` when it throws.
    @discardableResult
    public static func clone(
        from address: String, token: String, to path: String, allowPlainHTTP: Bool = false, timeout: Duration = syncTimeout
    ) throws -> ReplicaStatus {
        let endpoint = try SyncEndpoint(address, token: token, allowPlainHTTP: allowPlainHTTP)
        let tokenFile = ReplicaCredentials.path(beside: path)
        if FileManager.default.fileExists(atPath: path) { throw RepositoryError.replica(.fileExists(path: path)) }
        try ReplicaCredentials.removeLeftover(at: tokenFile)
        let client = HTTPSyncClient(endpoint: endpoint, timeout: timeout)
        let registration = try client.register()
        let directory = (path as NSString).deletingLastPathComponent
        let partial = (directory.isEmpty ? "." : directory) + "/." + (path as NSString).lastPathComponent + ".clone-" + registration.replica.prefix(8)
        func removePartial() {
            for suffix in ["", "-wal", "-shm", "-journal"] { try? FileManager.default.removeItem(atPath: partial + suffix) }
        }
        removePartial()
        do {
            try fillClone(at: partial, endpoint: endpoint, registration: registration, client: client)
            try ReplicaCredentials.write(server: endpoint.description, token: token, to: tokenFile)
            do {
                try ReplicaCredentials.moveIntoPlace(partial, to: path)
            } catch {
                try? FileManager.default.removeItem(atPath: tokenFile)
                throw error
            }
        } catch {
            removePartial()
            throw error
        }
        return try SectionStore(path: path).replicaStatus()
    }

    /// Writes a clone's file at `partial` as the list's clone arrives (`HTTPSyncClient.clone`),
    /// item by item, through the bulk append path (rows in batches, with their ids), in one
    /// transaction; checks the clone's end
    /// (its counts and digest against what arrived) before it commits; and closes the file. A
    /// clone cut off, or not what the protocol says, writes nothing.
    private static func fillClone(
        at partial: String, endpoint: SyncEndpoint, registration: SyncMessages.Registration, client: HTTPSyncClient
    ) throws {
        let local = try SectionStore(path: partial, create: true)
        try local.write(retrying: false) { db in
            try client.clone { lines in
                guard case .header(let name, let version) = try lines.next() else { throw lines.bad("it does not start with its header") }
                guard name == endpoint.list else { throw lines.bad("it is of list \"\(name)\", not \"\(endpoint.list)\"") }
                let record = try db.listRecordIfAny(named: endpoint.list) ?? db.createListRecord(named: endpoint.list)
                try db.insertReplicaRecord(
                    ReplicaRecord(
                        server: endpoint.description, listID: record.id, serverList: endpoint.list,
                        replicaID: registration.replica, serverVersion: version))
                try db.replaceAllottedIDs(rows: registration.rowIDs, sections: registration.sectionIDs, lessThoseTakenBy: [])
                let bulk = try db.beginBulkAppend()
                let appender = try db.makeRowAppender(keepingIDs: true)
                var digest = ListDigest.Running()
                var sectionIDs: [SectionID] = []
                var section: Int64?
                var rowIndex: Int64 = 0
                var rows: Int64 = 0
                func written<T>(_ what: String, _ write: () throws -> T) throws -> T {
                    do {
                        return try write()
                    } catch  where error.isConstraintViolation {
                        throw lines.bad("\(what) cannot be written (\(error)): is an id named twice?")
                    }
                }
                reading: while true {
                    switch try lines.next() {
                    case .section(let id, let title, let emptyText):
                        let position = OrderedTable.firstPosition + Int64(sectionIDs.count) * OrderedTable.step
                        _ = try written("section \(id)") {
                            try db.insertSection(title: title, emptyText: emptyText, position: position, in: record, id: id, askingReplica: false)
                        }
                        digest.add(section: id, title: title, emptyText: emptyText)
                        sectionIDs.append(SectionID(id))
                        section = id
                        rowIndex = 0
                    case .row(let id, let content):
                        guard let section else { throw lines.bad("row \(id) comes before any section") }
                        let position = OrderedTable.firstPosition + rowIndex * OrderedTable.step
                        try written("its rows") { try appender.append(section: section, position: position, content: content, id: id) }
                        digest.add(row: id, content: content)
                        rowIndex += 1
                        rows += 1
                    case .end(let sectionCount, let rowCount, let expected):
                        guard sectionCount == sectionIDs.count, rowCount == rows else {
                            throw lines.bad("its end counts \(sectionCount) sections and \(rowCount) rows; \(sectionIDs.count) and \(rows) came")
                        }
                        guard expected == digest.hex else {
                            throw lines.bad("its digest is \(expected), and what came has the digest \(digest.hex)")
                        }
                        break reading
                    case .header:
                        throw lines.bad("line \(lines.number) is a second header")
                    case nil:
                        throw lines.bad("it ends before its end line (cut off?)")
                    }
                }
                guard try lines.next() == nil else { throw lines.bad("line \(lines.number) comes after its end") }
                _ = try written("its rows") { try appender.finish() }
                if bulk { try db.finishBulkAppend(list: record.id, sectionsAfter: 0, rowsAfter: 0) }
                if !sectionIDs.isEmpty {
                    var changeset = Changeset()
                    changeset.insertedSections = Array(sectionIDs.indices)
                    changeset.insertedSectionIDs = sectionIDs
                    let local = try db.commitChange(changeset.json, to: record, history: .received)
                    try db.setReplicaProgress(serverVersion: version, acknowledged: 0, localVersion: local)
                }
            }
        }
    }

    /// The list a caller means when it names none: on a replica, the list it mirrors; elsewhere
    /// `defaultList`.
    public func defaultListName() throws -> String {
        // A server is never a replica: no transaction to open for it.
        guard !location.isServer else { return Self.defaultList }
        return try read { db in
            guard let record = try db.replicaRecord(), let list = try db.listRecordIfAny(id: record.listID) else { return Self.defaultList }
            return list.name
        }
    }

    /// Where this replica stands: its server and list, the server version it last pulled, how many
    /// intents wait to be pushed, how many ids are left.
    /// - Throws: `RepositoryError.replica(.notAReplica)` for a file that mirrors nothing.
    public func replicaStatus() throws -> ReplicaStatus {
        try read { db in
            guard let record = try db.replicaRecord() else { throw RepositoryError.replica(.notAReplica(path: path)) }
            return ReplicaStatus(
                server: record.server, tokenFile: ReplicaCredentials.path(beside: path), serverList: record.serverList,
                list: try db.listRecordIfAny(id: record.listID)?.name ?? "", replicaID: record.replicaID, serverVersion: record.serverVersion,
                pendingIntents: try db.pendingIntentCount(), rowIDsLeft: try db.allottedIDsLeft(kind: "row"),
                sectionIDsLeft: try db.allottedIDsLeft(kind: "section"),
                verifiedVersion: try db.replicaCheckedVersion(diverged: false),
                divergedVersion: try db.replicaCheckedVersion(diverged: true))
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
    /// How long `syncContinuously` waits before it tries a server out of reach again.
    public static let syncRetryInterval: Duration = .seconds(3)

    /// Syncs this replica now, and again whenever its list changes here or the mirrored list
    /// changes on the service (its event stream says when), until the calling
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
        let remote = Task.detached { [self] in
            // The server's event stream says when its list changes; when it cannot be followed
            // (the server out of reach), it is tried again every few seconds.
            while !Task.isCancelled {
                do {
                    let record = try read { db in try db.replicaRecord() }
                    guard let record else { return }
                    let client = HTTPSyncClient(endpoint: try ReplicaCredentials.endpoint(of: self, record: record), timeout: Self.syncTimeout)
                    try await client.followEvents(since: record.serverVersion) { _ in poke.yield() }
                } catch {}
                try? await Task.sleep(for: Self.syncRetryInterval)
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
            let result = Result { try sync() }
            report(result)
            // A failed sync (the service busy or out of reach) is tried again after a while, even
            // when nothing changes meanwhile.
            if case .failure = result {
                Task {
                    try? await Task.sleep(for: Self.syncRetryInterval)
                    poke.yield()
                }
            }
        }
    }
}
