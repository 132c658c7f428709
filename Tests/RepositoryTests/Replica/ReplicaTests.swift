import Foundation
import PostgresCluster
import RepositoryPostgres
import SQLite
import SyncService
import Synchronization
import TestSupport
import Testing

@testable import Repository

/// Replicas (`SectionStore.clone(from:token:to:)`, `sync()`): files that mirror a list of a sync
/// service, edited offline, synced through the service, which applies their intents itself.
@Suite("Replicas", .serialized)
struct ReplicaTests {
    /// A store served by the sync service on loopback, an edit token of its list "default", and
    /// the directory replicas of it are cloned into.
    struct Fixture {
        let server: StoreFixture
        let served: ServedStore
        let token: String
        let directory: TemporaryDirectory

        init(_ backend: Backend = .sqlite) throws {
            server = try StoreFixture(backend)
            served = try ServedStore(server.store)
            token = try served.token(for: SectionStore.defaultList)
            directory = try TemporaryDirectory()
        }

        /// A replica of list "default" in `name`, cloned through `port` (a proxy's) or the service's own.
        func clone(_ name: String, port: UInt16? = nil) throws -> SectionStore {
            try SectionStore.clone(from: served.address(of: SectionStore.defaultList, port: port), token: token, to: directory.path(name))
            return try SectionStore(path: directory.path(name))
        }
    }

    /// The list as titles: one array per section, its title first.
    static func shape(_ store: SectionStore, list: String = SectionStore.defaultList) throws -> [[String]] {
        let snapshot = try store.list(list).snapshot()
        return snapshot.sections.map { [$0.title] + $0.rows.map { "\($0.id):\($0.content.title)" } }
    }

    @Test(arguments: Backend.all) func aCloneHoldsTheServersListWithItsIDs(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let server = fixture.server.store
        try server.list("default").apply(.addSection(title: "A"))
        try server.list("default").apply(.addRow(.text("one"), to: .at(0, 0)))
        try server.list("default").apply(.addRow(.text("two"), to: .at(0, 1)))
        try server.list("default").apply(.addSection(title: "B"))
        let replica = try fixture.clone("r.db")
        #expect(try Self.shape(replica) == Self.shape(server))
        let status = try replica.replicaStatus()
        #expect(status.pendingIntents == 0)
        #expect(status.serverVersion == 4)
        #expect(status.rowIDsLeft == SectionStore.replicaIDBlock)
        #expect(try replica.check().isEmpty)
    }

    @Test(arguments: Backend.all) func offlineEditsOfTwoReplicasMeetOnTheServer(backend: Backend) throws {
        let fixture = try Fixture(backend)
        let server = fixture.server.store
        try server.list("default").apply(.addSection(title: "A"))
        for title in ["a1", "a2", "a3"] { try server.list("default").apply(.addRow(.text(title), to: .init(section: .index(0), index: .end))) }
        try server.list("default").apply(.addSection(title: "B"))
        let first = try fixture.clone("1.db")
        let second = try fixture.clone("2.db")
        let a3 = try first.list(SectionStore.defaultList).row(at: RowPath(section: 0, row: 2)).row.id
        try first.list("default").apply(.moveRow(.id(a3), to: .at(1, 0)))
        try first.list("default").apply(.addRow(.text("new on 1"), to: .at(0, 0)))
        try second.list("default").apply(.addRow(.text("new on 2"), to: .at(1, 0)))
        try second.list("default").apply(.renameSection(.index(0), title: "A2"))
        #expect(try first.replicaStatus().pendingIntents == 2)
        try first.sync()
        try second.sync()
        try first.sync()
        #expect(try Self.shape(first) == Self.shape(server))
        #expect(try Self.shape(second) == Self.shape(server))
        #expect(try first.replicaStatus().pendingIntents == 0)
        #expect(try first.check().isEmpty)
        #expect(try second.check().isEmpty)
    }
}

extension ReplicaTests {
    struct LostAnswer: Error {}

    /// Expects `body` to fail as a request the service refused with `status`.
    static func expectRefused(_ status: Int, sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void) {
        do {
            try body()
            Issue.record("not refused", sourceLocation: sourceLocation)
        } catch RepositoryError.replica(.refusedByServer(_, let refused, let reason)) {
            #expect(refused == status, "\(reason)", sourceLocation: sourceLocation)
        } catch {
            Issue.record("failed otherwise: \(error)", sourceLocation: sourceLocation)
        }
    }

    /// A served list seeded as `seeded(_:)` does and a replica of it.
    static func seededReplica(_ backend: Backend = .sqlite) throws -> (fixture: Fixture, replica: SectionStore)? {
        let fixture = try Fixture(backend)
        try seeded(fixture)
        return (fixture, try fixture.clone("r.db"))
    }

    /// A server list "A" with rows a1…a4, and "B" empty.
    static func seeded(_ fixture: Fixture) throws {
        let server = fixture.server.store
        try server.list("default").apply(.addSection(title: "A"))
        for title in ["a1", "a2", "a3", "a4"] { try server.list("default").apply(.addRow(.text(title), to: .init(section: .index(0), index: .end))) }
        try server.list("default").apply(.addSection(title: "B"))
    }

    @Test func runsAddedAtOneSpotOnTwoReplicasStayTogetherAndInOrder() throws {
        let fixture = try Fixture()
        try Self.seeded(fixture)
        let first = try fixture.clone("1.db")
        let second = try fixture.clone("2.db")
        for (replica, name) in [(first, "x"), (second, "y")] {
            for index in 0..<4 { try replica.list("default").apply(.addRow(.text("\(name)\(index)"), to: .at(0, 2 + index))) }
        }
        try first.sync()
        try second.sync()
        try first.sync()
        let titles = try fixture.server.store.list("default").snapshot().sections[0].rows.map(\.content.title)
        // The second run was made after a2 too: it goes right after a2, before the first run.
        #expect(titles == ["a1", "a2", "y0", "y1", "y2", "y3", "x0", "x1", "x2", "x3", "a3", "a4"])
        #expect(try Self.shape(first) == Self.shape(fixture.server.store))
    }

    @Test func aRowMovedAfterANeighbourEndsAfterItWhereverItWent() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        let server = fixture.server.store
        let ids = try server.list("default").snapshot().sections[0].rows.map(\.id)
        // Offline: a4 after a1. Meanwhile on the server, a1 moves to the end of B's neighbour A… and
        // a2 is deleted.
        try replica.list("default").apply(.moveRow(.id(ids[3]), to: .after(ids[0])))
        try server.list("default").apply(.moveRow(.id(ids[0]), to: .at(0, 2)))
        try server.list("default").apply(.deleteRow(.id(ids[1])))
        let report = try replica.sync()
        #expect(report.pushed.map(\.outcome) == [.applied])
        #expect(try server.list("default").snapshot().sections[0].rows.map(\.content.title) == ["a3", "a1", "a4"])
        #expect(try Self.shape(replica) == Self.shape(server))
    }

    @Test func aPushWhoseAnswerIsLostIsAppliedOnceWhenSyncedAgain() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        try replica.list("default").apply(.addRow(.text("new"), to: .at(1, 0)))
        try replica.list("default").apply(.moveRow(.at(0, 0), to: .at(1, 1)))
        replica.syncFaults.withLock { $0 = { stage in if stage == .afterPush { throw LostAnswer() } } }
        #expect(throws: LostAnswer.self) { try replica.sync() }
        replica.syncFaults.withLock { $0 = nil }
        #expect(try replica.replicaStatus().pendingIntents == 2, "unacknowledged, so still pending")
        let version = try fixture.server.store.list("default").snapshot().version
        let report = try replica.sync()
        #expect(report.pushed.map(\.outcome) == [nil, nil], "applied by the push whose answer was lost")
        #expect(try fixture.server.store.list("default").snapshot().version == version, "nothing applied twice")
        #expect(try fixture.server.store.list("default").snapshot().sections[1].rows.map(\.content.title) == ["new", "a1"], "each once")
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
        #expect(try replica.replicaStatus().pendingIntents == 0)
    }

    @Test func aCopiedReplicaFileIsRefusedAndKeepsItsWork() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        try replica.list("default").apply(.addRow(.text("mine"), to: .at(1, 0)))
        for suffix in ["", ".token"] {
            try FileManager.default.copyItem(atPath: fixture.directory.path("r.db" + suffix), toPath: fixture.directory.path("copy.db" + suffix))
        }
        let copy = try SectionStore(path: fixture.directory.path("copy.db"))
        try copy.list("default").apply(.renameSection(.index(1), title: "copied"))
        try replica.sync()
        Self.expectRefused(409) { try copy.sync() }
        #expect(try copy.replicaStatus().pendingIntents == 2)
        #expect(try fixture.server.store.list("default").snapshot().sections[1].title == "B")
    }

    @Test func aServerBehindTheReplicaIsRefusedBeforeAnythingIsPushed() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        try replica.list("default").apply(.renameSection(.index(0), title: "offline"))
        // As if the server were restored from a backup older than what the replica pulled.
        try Connection(path: fixture.directory.path("r.db"), mode: .readWrite).execute(script: "UPDATE replica SET server_version = 99")
        Self.expectRefused(409) { try replica.sync() }
        #expect(try fixture.server.store.list("default").snapshot().sections[0].title == "A")
        let pending = try replica.replicaStatus().pendingIntents
        #expect(pending == 2, "a rename is kept as the title and the empty text it leaves: \(pending)")
    }

    @Test func aPlacementReadByPositionIsTheOneReadByIndex() throws {
        let fixture = try StoreFixture(.sqlite)
        let store = fixture.store
        var rng = SeededGenerator(seed: 7)
        for section in 0..<6 {
            try store.list("default").apply(.addSection(title: "S\(section)"))
            for row in 0..<Int.random(in: 0..<12, using: &rng) {
                try store.list("default").apply(
                    .addRow(.text("r\(row)"), to: .init(section: .index(section), index: .index(Int.random(in: 0...row, using: &rng)))))
            }
        }
        try store.list("default").apply(.moveSection(.index(5), to: 1))
        try store.read { db in
            let list = StoredList(db: db, list: try db.listRecord(named: SectionStore.defaultList), store: store)
            let count = try list.sectionCount()
            for index in 0..<count {
                let section = try list.section(.index(index))
                #expect(
                    try ReplicaLog.sectionPlacement(of: section, in: list)
                        == IntentRules.sectionPlacement(slot: index, moving: index, count: count, in: list))
                for row in 0..<section.rowCount {
                    let located = try list.row(.path(.index(index), .index(row)))
                    #expect(
                        try ReplicaLog.rowPlacement(of: located, in: list)
                            == IntentRules.rowPlacement(slot: row, in: section, moving: row, list: list))
                }
            }
        }
    }

    @Test func checkFindsWhatPlainSQLBrokeInAReplicasTablesAndRepairMendsWhatItCan() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        try replica.list("default").apply(.renameSection(.index(1), title: "B2"))
        let path = fixture.directory.path("r.db")
        #expect(try replica.check().isEmpty)
        // Ids handed out again by hand, and the sequence set back.
        try tamper(path: path, "INSERT INTO replica_ids (kind, first, last) VALUES ('row', 1, 2); UPDATE replica SET next_sequence = 1")
        let found = try replica.check()
        #expect(found.map(\.kind) == [.replica, .replica], "\(found)")
        #expect(found.allSatisfy { $0.isRepairable })
        let report = try replica.repair()
        #expect(report.actions.map(\.kind) == [.replica, .replica])
        #expect(try replica.check().isEmpty)
        try replica.list("default").apply(.addRow(.text("after the repair"), to: .at(0, 0)))
        try replica.sync()
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
        // A pending intent that is not one: found, not repairable, and a sync says so.
        try tamper(
            path: path, "INSERT INTO replica_intents (sequence, intent) VALUES (99, '{\"op\":\"fly\"}'); UPDATE replica SET next_sequence = 100")
        #expect(try replica.check().map(\.isRepairable) == [false])
        #expect(throws: RepositoryError.self) { try replica.sync() }
    }

    @Test func aPullTheJournalCannotAnswerReadsTheWholeListAndWritesOnlyWhatDiffers() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        let server = fixture.server.store
        let ids = try server.list("default").snapshot().sections[0].rows.map(\.id)
        // Plain SQL on the server: a title changed, and a1 put after a3 by its position.
        try fixture.server.plainSQL(
            """
            UPDATE rows SET title = 'renamed' WHERE id = \(ids[1]);
            UPDATE rows SET position = (SELECT position FROM rows WHERE id = \(ids[2])) + 1 WHERE id = \(ids[0]);
            """)
        #expect(try server.list(SectionStore.defaultList).changes(since: server.list("default").snapshot().version.previous).isReload)
        let report = try replica.sync()
        #expect(try Self.shape(replica) == Self.shape(server))
        #expect(try Self.shape(replica)[0] == ["A", "\(ids[1]):renamed", "\(ids[2]):a3", "\(ids[0]):a1", "\(ids[3]):a4"])
        let changeset = report.change.changeset
        #expect(Set(changeset.updatedRowIDs) == [ids[1]])
        #expect(changeset.movedRowIDs.count == 1)
        #expect(changeset.insertedRowIDs.isEmpty && changeset.deletedRowIDs.isEmpty)
        #expect(try replica.check().isEmpty)
    }

    @Test func plainSQLOnAReplicaIsNotPushedAndTheNextSyncPutsTheServersStateBack() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        try replica.list("default").apply(.renameSection(.index(1), title: "B offline"))
        try tamper(path: fixture.directory.path("r.db"), "UPDATE rows SET title = 'by sqlite3' WHERE id = (SELECT min(id) FROM rows)")
        let report = try replica.sync()
        #expect(report.pushed.count == 2, "the rename's intents, and nothing of the plain SQL")
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
        #expect(try fixture.server.store.list("default").snapshot().sections[1].title == "B offline")
        #expect(try !Self.shape(replica).joined().contains { $0.hasSuffix("by sqlite3") })
        #expect(try replica.check().isEmpty)
        // Once put back, the next sync reads only what changed.
        let again = try replica.sync()
        #expect(!again.change.committed)
    }

    @Test func aTokenFileLeftByAnInterruptedCloneIsReplacedAndAnyOtherFileThereRefused() throws {
        let fixture = try Fixture()
        try Self.seeded(fixture)
        _ = try fixture.clone("r.db")
        // As a clone killed after writing the token, before its file took its name, leaves it.
        for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: fixture.directory.path("r.db" + suffix)) }
        let replica = try fixture.clone("r.db")
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
        try replica.list("default").apply(.renameSection(.index(1), title: "again"))
        try replica.sync()
        // Something else where the token goes is not the clone's to replace.
        try Data("notes\n".utf8).write(to: URL(fileURLWithPath: fixture.directory.path("x.db.token")))
        #expect(throws: RepositoryError.replica(.fileExists(path: fixture.directory.path("x.db.token")))) { try fixture.clone("x.db") }
        #expect(try String(contentsOfFile: fixture.directory.path("x.db.token"), encoding: .utf8) == "notes\n")
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path("x.db")))
    }

    @Test func aListThatDiffersWithoutAnyJournalSayingSoIsFoundByItsDigestAndReadWhole() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        // A change no journal or mark records: as sectionctl's own writes are marked, by hand.
        try tamper(
            path: fixture.directory.path("r.db"),
            "UPDATE journal_writer SET active = 1; UPDATE rows SET title = 'silently' WHERE id = (SELECT min(id) FROM rows); UPDATE journal_writer SET active = 0"
        )
        let report = try replica.sync()
        #expect(report.diverged)
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
        let status = try replica.replicaStatus()
        #expect(status.divergedVersion == status.serverVersion)
        #expect(status.verifiedVersion == status.serverVersion, "the whole read made them the same")
        let again = try replica.sync()
        #expect(!again.diverged)
        #expect(try replica.check().isEmpty)
    }

    @Test func aReplicaOutOfIdsRefusesToAddUntilASyncBringsMore() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        try tamper(path: fixture.directory.path("r.db"), "DELETE FROM replica_ids WHERE kind = 'row'")
        let before = try replica.list("default").snapshot()
        #expect(throws: RepositoryError.replica(.noIDsLeft(kind: "row"))) {
            try replica.list("default").apply(.addRow(.text("one too many"), to: .at(0, 0)))
        }
        #expect(try replica.list("default").snapshot() == before, "nothing written")
        #expect(try replica.replicaStatus().pendingIntents == 0)
        try replica.sync()
        #expect(try replica.replicaStatus().rowIDsLeft == SectionStore.replicaIDBlock)
        try replica.list("default").apply(.addRow(.text("after the sync"), to: .at(0, 0)))
        try replica.sync()
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
    }

    @Test func importsAndDeletingTheMirroredListAreRefusedOnAReplica() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        #expect(throws: RepositoryError.replica(.cannotRecord(what: "deleting the list a replica mirrors"))) {
            try replica.deleteList(SectionStore.defaultList, force: true)
        }
        #expect(throws: RepositoryError.replica(.notAReplica(path: fixture.server.store.path))) { try fixture.server.store.sync() }
        #expect {
            try SectionStore.clone(from: fixture.directory.path("r.db"), token: fixture.token, to: fixture.directory.path("x.db"))
        } throws: { error in
            guard case RepositoryError.replica(.badServerAddress) = error else { return false }
            return true
        }
        #expect(!FileManager.default.fileExists(atPath: fixture.directory.path("x.db")))
    }
}

/// A count a sync's fault hook keeps (the hook is `@Sendable`).
final class Tally: Sendable {
    private let value: Mutex<Int>
    init(_ start: Int = 0) { value = Mutex(start) }
    var count: Int { value.withLock { $0 } }
    func add() { value.withLock { $0 += 1 } }
    /// Takes one when any is left; whether it did.
    func take() -> Bool {
        value.withLock { left in
            left > 0
                ? {
                    left -= 1
                    return true
                }() : false
        }
    }
}

/// A sync in one round trip, whatever the count of intents, with a deadline on a silent peer.
extension ReplicaTests {
    /// A row out of place here, before many rows a pull names, is the only row the pull moves:
    /// the others, already in the server's order, stay (before, each was moved in front of it in
    /// turn, halving the gap each time).
    @Test func aPullMovesOnlyTheRowsOutOfTheServersOrder() throws {
        let fixture = try Fixture()
        let server = fixture.server.store.list("default")
        try server.apply(.addSection(title: "A"))
        for index in 0..<100 { try server.apply(.addRow(.text("r\(index)"), to: .init(section: .index(0), index: .end))) }
        let replica = try fixture.clone("r.db")
        let ids = try server.snapshot().sections[0].rows.map(\.id)
        // On the server: 50 rows renamed (named by the journal, in place), and the first row moved to the end.
        for index in 1...50 { try server.apply(.updateRow(.id(ids[index]), title: "renamed \(index)", value: .keep)) }
        try server.apply(.moveRow(.id(ids[0]), to: .init(section: .index(0), index: .end)))
        let writes = replica.positionWrites
        let report = try replica.sync()
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
        #expect(replica.positionWrites - writes == 1)
        #expect(report.change.changeset.movedRowIDs == [ids[0]])
        #expect(Set(report.change.changeset.updatedRowIDs) == Set(ids[1...50]))
        #expect(try replica.check().isEmpty)
    }

    /// `PullFacts.longestInOrder` against a model: for random orders of a section here and on the
    /// server (the rows no fact places in the same order on both), moving every placed row it
    /// does not keep after its predecessor, in the server's order, gives the server's order; and
    /// it keeps as many placed rows as the longest such run found by brute force.
    @Test func theRowsAPullKeepsInPlaceAreTheMostThatLeaveTheServersOrder() throws {
        for seed in UInt64(1)...300 {
            var generator = SeededGenerator(seed: seed)
            let count = Int.random(in: 1...40, using: &generator)
            let rows = (1...count).map { RowID(Int64($0)) }
            let serverOrder = rows.shuffled(using: &generator)
            let placed = Set(rows.filter { _ in Bool.random(using: &generator) })
            // Here: the unplaced rows in the server's relative order, the placed ones anywhere,
            // and some placed rows new (not here yet).
            var here = serverOrder.filter { !placed.contains($0) }
            for id in placed.shuffled(using: &generator) where Int.random(in: 0..<5, using: &generator) > 0 {
                here.insert(id, at: Int.random(in: 0...here.count, using: &generator))
            }
            let facts = serverOrder.filter { placed.contains($0) }
            var predecessors: [RowID: RowID?] = [:]
            for (index, id) in serverOrder.enumerated() where placed.contains(id) { predecessors[id] = index == 0 ? nil : serverOrder[index - 1] }
            let kept = try #require(
                PullFacts.longestInOrder(facts: facts, predecessors: predecessors, here: here, placed: placed), "seed \(seed)")
            var model = here
            for id in facts where !kept.contains(id) {
                model.removeAll { $0 == id }
                let slot = (predecessors[id] ?? nil).map { predecessor in model.firstIndex(of: predecessor)! + 1 } ?? 0
                model.insert(id, at: slot)
            }
            #expect(model == serverOrder, "seed \(seed)")
            // The most placed rows here that stand in the server's order with every unplaced row.
            let rank = Dictionary(uniqueKeysWithValues: serverOrder.enumerated().map { ($1, $0) })
            let sequence = here.map { (rank: rank[$0]!, weight: placed.contains($0) ? 1 : count + 1) }
            var best = [Int](repeating: 0, count: sequence.count)
            for index in sequence.indices {
                best[index] = sequence[index].weight
                for earlier in 0..<index where sequence[earlier].rank < sequence[index].rank {
                    best[index] = max(best[index], best[earlier] + sequence[index].weight)
                }
            }
            let unplacedWeight = (count + 1) * (count - placed.count)
            #expect(kept.count == (best.max() ?? 0) - unplacedWeight, "seed \(seed)")
        }
    }

    @Test func aSyncOfManyIntentsIsOneRequest() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        for index in 0..<60 { try replica.list("default").apply(.addRow(.text("run \(index)"), to: .at(0, 1 + index))) }
        // Twice 600 moves: together more than the file's journal keeps (1,000 versions).
        for round in 0..<2 {
            for index in 0..<600 { try replica.list("default").apply(.moveRow(.at(0, index % 30), to: .at(0, (index * 7 + round) % 60))) }
            let pending = try replica.replicaStatus().pendingIntents
            _ = fixture.served.takeRequests()
            let report = try replica.sync()
            #expect(report.pushed.count == pending && pending > 500, "\(report.pushed.count) of \(pending)")
            #expect(fixture.served.takeRequests() == ["POST /lists/default/sync 200"], "round \(round)")
            #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
            #expect(try fixture.server.store.check().isEmpty)
        }
    }

    @Test func aSyncOfMoreThanOnePushCarriesGoesInTurnsAndAllArrive() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        // More intents than one push carries, by count: two turns.
        for index in 0..<(SectionStore.intentsPerPush + 10) {
            try replica.list("default").apply(.moveRow(.at(0, index % 4), to: .at(0, (index + 1) % 4)))
        }
        _ = fixture.served.takeRequests()
        var report = try replica.sync()
        #expect(report.pushed.count == SectionStore.intentsPerPush + 10)
        #expect(fixture.served.takeRequests() == ["POST /lists/default/sync 200", "POST /lists/default/sync 200"])
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))

        // Fewer, but longer than the service's body bound together (1 MiB): halved until each
        // push fits, never refused.
        let long = String(repeating: "long title ", count: 3_000)
        for index in 0..<40 { try replica.list("default").apply(.addRow(.text("\(index) \(long)"), to: .at(1, index))) }
        report = try replica.sync()
        #expect(report.pushed.count == 40)
        #expect(try replica.replicaStatus().pendingIntents == 0)
        let requests = fixture.served.takeRequests()
        #expect(requests.count > 2 && requests.allSatisfy { $0 == "POST /lists/default/sync 200" }, "\(requests)")
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
        #expect(try fixture.server.store.check().isEmpty)
    }

    @Test func aSilentServerFailsTheSyncAtItsDeadlineAndTheNextSyncLosesNothing() throws {
        let fixture = try Fixture()
        try Self.seeded(fixture)
        let proxy = try SocketProxy(forwardingTCPPort: fixture.served.port)
        let replica = try fixture.clone("p.db", port: proxy.tcpPort)
        try replica.list("default").apply(.renameSection(.index(1), title: "offline"))
        proxy.isSilent = true
        #expect {
            try replica.sync(timeout: .seconds(1))
        } throws: { error in
            guard case RepositoryError.unavailable = error else { return false }
            return true
        }
        #expect(try replica.replicaStatus().pendingIntents == 2)
        proxy.isSilent = false
        try replica.sync(timeout: .seconds(30))
        #expect(try fixture.server.store.list("default").snapshot().sections[1].title == "offline")
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
    }

    @Test func anAnswerLostOnTheNetworkIsAppliedOnceWhenSyncedAgain() throws {
        let fixture = try Fixture()
        try Self.seeded(fixture)
        let proxy = try SocketProxy(forwardingTCPPort: fixture.served.port)
        let replica = try fixture.clone("p.db", port: proxy.tcpPort)
        try replica.list("default").apply(.addRow(.text("once"), to: .at(1, 0)))
        proxy.losesAnswers = true
        #expect(throws: RepositoryError.self) { try replica.sync() }
        proxy.losesAnswers = false
        #expect(try fixture.server.store.list("default").snapshot().sections[1].rows.map(\.content.title) == ["once"], "applied")
        let report = try replica.sync()
        #expect(report.pushed.map(\.outcome) == [nil], "applied by the request whose answer was lost")
        #expect(try fixture.server.store.list("default").snapshot().sections[1].rows.map(\.content.title) == ["once"], "once")
        #expect(try Self.shape(replica) == Self.shape(fixture.server.store))
    }

    @Test func largePushesSplitAndMergeTheServersRankNodesAndSpreadItsPositions() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        let server = fixture.server.store
        let tries = Tally()
        replica.syncFaults.withLock { $0 = { stage in if stage == .beforePush { tries.add() } } }
        func syncAndCompare(_ what: String) throws {
            let before = tries.count
            try replica.sync()
            #expect(tries.count == before + 1, "\(what): pushed at once, on the first try")
            #expect(try Self.shape(replica) == Self.shape(server), "\(what)")
            #expect(try server.check().isEmpty, "\(what)")
        }
        // A run of 300 rows after a1: each halves the gap before a2 until a block is spread out;
        // the section's rank nodes split. And 100 sections: the list's section rank nodes split.
        for index in 0..<300 { try replica.list("default").apply(.addRow(.text("r\(index)"), to: .at(0, 1 + index))) }
        for index in 0..<100 { try replica.list("default").apply(.addSection(title: "S\(index)", at: 1 + index)) }
        try syncAndCompare("a run of adds")
        // Most of it deleted: nodes merge.
        for _ in 0..<280 { try replica.list("default").apply(.deleteRow(.at(0, 1))) }
        for _ in 0..<95 { try replica.list("default").apply(.deleteSection(.index(1), force: true)) }
        try syncAndCompare("deletes")
        // Rows moved across sections, in both directions.
        for index in 0..<20 { try replica.list("default").apply(.moveRow(.at(0, 0), to: .at(1 + index % 5, 0))) }
        for index in 0..<10 { try replica.list("default").apply(.moveRow(.at(1 + index % 5, 0), to: .init(section: .index(0), index: .end))) }
        try syncAndCompare("moves across sections")
    }

    @Test func aSyncWhosePushFailsWritesNothingHereWhenRunAgain() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        struct Refused: Error {}
        try replica.list("default").apply(.moveRow(.at(0, 0), to: .at(1, 0)))
        try replica.list("default").apply(.addRow(.text("added offline"), to: .at(0, 1)))
        let shape = try Self.shape(replica)
        let version = try replica.list("default").snapshot().version
        // A push that fails every time (a server that refuses it): each sync pulls and replays,
        // and leaves the file as it was — no new version, which `sync --watch` would take for a
        // change to sync again.
        replica.syncFaults.withLock { $0 = { stage in if stage == .beforePush { throw Refused() } } }
        for _ in 0..<3 {
            #expect(throws: Refused.self) { try replica.sync() }
            #expect(try replica.list("default").snapshot().version == version)
            #expect(try Self.shape(replica) == shape)
            #expect(try replica.replicaStatus().pendingIntents == 2)
        }
        replica.syncFaults.withLock { $0 = nil }
        try replica.sync()
        #expect(try replica.list("default").snapshot().version == version, "the push wrote where the file has its items")
        #expect(try Self.shape(fixture.server.store) == shape)
        #expect(try fixture.server.store.check().isEmpty)
    }

    @Test func aPushIsAppliedToTheListAsTheServerHasItThenInTheSameRequest() throws {
        guard let (fixture, replica) = try Self.seededReplica() else { return }
        let server = fixture.server.store
        try replica.list("default").apply(.addRow(.text("offline"), to: .at(1, 0)))
        replica.syncFaults.withLock {
            $0 = { stage in
                // Just before the request, another writer changes the list.
                if stage == .beforePush { try server.list("default").apply(.addRow(.text("meanwhile"), to: .init(section: .index(1), index: .end))) }
            }
        }
        _ = fixture.served.takeRequests()
        let report = try replica.sync()
        replica.syncFaults.withLock { $0 = nil }
        #expect(fixture.served.takeRequests().count == 1)
        #expect(report.pushed.map(\.outcome) == [.applied])
        #expect(try server.list("default").snapshot().sections[1].rows.map(\.content.title) == ["offline", "meanwhile"])
        #expect(try Self.shape(replica) == Self.shape(server))
        #expect(try server.check().isEmpty)
        #expect(try replica.replicaStatus().pendingIntents == 0)
    }
}

/// The convergence property: replicas and the server edit at random, offline, and sync through
/// the sync service, behind a proxy, in random orders while connections are cut, answers lost on
/// the network and faults made at random stages; after a final sync of all, every replica equals
/// the server. On a SQLite file and on a PostgreSQL server.
@Suite("Replica convergence", .serialized)
struct ReplicaConvergenceTests {
    struct Fault: Error, CustomStringConvertible {
        var stage: SyncStage
        var description: String { "a fault at \(stage)" }
    }

    /// What the test knows of every row: made, deleted, and the sections it has been in.
    struct Ledger {
        var made: Set<RowID> = []
        var deleted: Set<RowID> = []
        var deletedSections: Set<SectionID> = []
        var sectionsOf: [RowID: Set<SectionID>] = [:]

        /// Rows that may be gone by the rules: deleted, or ever in a section someone deleted.
        func mayBeGone(_ id: RowID) -> Bool {
            deleted.contains(id) || !(sectionsOf[id] ?? []).isDisjoint(with: deletedSections)
        }

        mutating func note(_ change: Change, on store: SectionStore) throws {
            let changeset = change.changeset
            made.formUnion(changeset.insertedRowIDs)
            deleted.formUnion(changeset.deletedRowIDs)
            deletedSections.formUnion(changeset.deletedSectionIDs)
            let list = store.list(SectionStore.defaultList)
            for id in changeset.insertedRowIDs + changeset.movedRowIDs {
                if let path = try? list.path(ofRow: id) {
                    sectionsOf[id, default: []].insert(try list.section(.index(path.section)).id)
                }
            }
            for sectionID in changeset.insertedSectionIDs {
                guard let section = try? list.section(.id(sectionID)), section.rowCount > 0 else { continue }
                for index in 0..<section.rowCount {
                    let id = try list.row(at: RowPath(section: section.index, row: index)).row.id
                    made.insert(id)
                    sectionsOf[id, default: []].insert(sectionID)
                }
            }
        }
    }

    /// One random edit (or session, or undo) on `store`; `nil` when it was refused.
    static func randomChange(_ store: SectionStore, titles: inout Int, rng: inout SeededGenerator) throws -> [Change] {
        let list = store.list(SectionStore.defaultList)
        let outline = try list.outline().sections
        func title() -> String {
            titles += 1
            return "t\(titles)"
        }
        func randomRowPath() -> RowPath? {
            let filled = outline.enumerated().filter { $0.element.rowCount > 0 }
            guard let section = filled.randomElement(using: &rng) else { return nil }
            return RowPath(section: section.offset, row: Int.random(in: 0..<section.element.rowCount, using: &rng))
        }
        func randomEdit() -> Edit? {
            let roll = Int.random(in: 0..<100, using: &rng)
            switch roll {
            case 0..<30:
                guard let from = randomRowPath() else { return nil }
                let to = Int.random(in: 0..<outline.count, using: &rng)
                let count = outline[to].rowCount - (to == from.section ? 1 : 0)
                return .moveRow(.path(.index(from.section), .index(from.row)), to: .at(to, Int.random(in: 0...count, using: &rng)))
            case 30..<45:
                guard !outline.isEmpty else { return .addSection(title: title()) }
                let section = Int.random(in: 0..<outline.count, using: &rng)
                return .addRow(.text(title()), to: .at(section, Int.random(in: 0...outline[section].rowCount, using: &rng)))
            case 45..<55:
                guard let path = randomRowPath() else { return nil }
                return .deleteRow(.path(.index(path.section), .index(path.row)))
            case 55..<65:
                guard let path = randomRowPath() else { return nil }
                return .updateRow(.path(.index(path.section), .index(path.row)), title: title())
            case 65..<75:
                return .addSection(title: title(), at: Int.random(in: 0...outline.count, using: &rng))
            case 75..<85:
                guard outline.count > 1 else { return nil }
                return .moveSection(.index(Int.random(in: 0..<outline.count, using: &rng)), to: Int.random(in: 0..<outline.count, using: &rng))
            case 85..<90:
                guard outline.count > 2 else { return nil }
                return .deleteSection(.index(Int.random(in: 0..<outline.count, using: &rng)), force: true)
            default:
                guard !outline.isEmpty else { return nil }
                return .renameSection(.index(Int.random(in: 0..<outline.count, using: &rng)), title: title())
            }
        }
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<10:
            // A run of rows added one after another at one spot.
            guard !outline.isEmpty else { return [] }
            let section = Int.random(in: 0..<outline.count, using: &rng)
            let start = Int.random(in: 0...outline[section].rowCount, using: &rng)
            return try (0..<Int.random(in: 2...4, using: &rng)).map { offset in
                try list.apply(.addRow(.text(title()), to: .at(section, start + offset)))
            }
        case 10..<18:
            // A session of a few edits, saved as one change.
            let session = try list.beginEditing()
            for _ in 0..<Int.random(in: 1...4, using: &rng) {
                guard let edit = randomEdit() else { continue }
                _ = try? session.apply(edit)
            }
            return [try session.save()]
        case 18..<24:
            do {
                return [try list.undo()]
            } catch RepositoryError.nothingToUndo, RepositoryError.cannotUndo {
                return []
            }
        default:
            guard let edit = randomEdit() else { return [] }
            do {
                return [try list.apply(edit)]
            } catch let error as RepositoryError {
                switch error {
                case .rowIndexOutOfRange, .sectionIndexOutOfRange: return []
                default: throw error
                }
            }
        }
    }

    static let cases: [(Backend, UInt64)] = Backend.all.flatMap { backend in propertySeeds([1, 2, 3, 4, 5, 6]).map { (backend, $0) } }

    @Test(arguments: cases)
    func replicasAndTheServerConverge(backend: Backend, seed: UInt64) throws {
        var rng = SeededGenerator(seed: seed)
        let context = "\(backend), seed \(seed) (SECTIONCTL_TEST_SEED=\(seed) repeats it)"
        let server = try StoreFixture(backend)
        let served = try ServedStore(server.store)
        let token = try served.token(for: SectionStore.defaultList)
        // On a server, two services share the database, as stateless `serve` processes behind one
        // address would: the replicas take turns between them.
        let services = backend == .postgres ? [served, try ServedStore(try server.reopen())] : [served]
        let proxies = try services.map { try SocketProxy(forwardingTCPPort: $0.port) }
        var titles = 0
        var ledger = Ledger()
        try server.store.list("default").apply(.addSection(title: "A"))
        try server.store.list("default").apply(.addSection(title: "B"))
        try server.store.list("default").apply(.addSection(title: "C"))
        for section in 0..<2 {
            for _ in 0..<4 {
                titles += 1
                try ledger.note(
                    try server.store.list("default").apply(.addRow(.text("t\(titles)"), to: .init(section: .index(section), index: .end))),
                    on: server.store)
            }
        }
        let directory = try TemporaryDirectory()
        var replicas: [SectionStore] = []
        for index in 0..<3 {
            try SectionStore.clone(
                from: services[index % services.count].address(of: SectionStore.defaultList, port: proxies[index % proxies.count].tcpPort),
                token: token, to: directory.path("r\(index).db"))
            replicas.append(try SectionStore(path: directory.path("r\(index).db")))
        }
        var faultsMade = 0
        for step in 0..<60 {
            let actor = Int.random(in: 0...replicas.count, using: &rng)
            if actor < replicas.count && Bool.random(using: &rng) {
                // A sync, perhaps with a fault at a random stage.
                let replica = replicas[actor]
                let proxy = proxies[actor % proxies.count]
                let faultAt: SyncStage? = Int.random(in: 0..<3, using: &rng) == 0 ? SyncStage.allCases.randomElement(using: &rng) : nil
                // Or the answer is lost on the network, after the server applied the push.
                let losesAnswer = faultAt == nil && Int.random(in: 0..<6, using: &rng) == 0
                // Or, without a fault, the server's list moves on just before the push.
                let movesOn = faultAt == nil && Int.random(in: 0..<4, using: &rng) == 0
                let serverStore = server.store
                replica.syncFaults.withLock {
                    $0 = { @Sendable (now: SyncStage) throws in
                        if now == .beforePush && movesOn {
                            _ = try? serverStore.list("default").apply(.renameSection(.index(0), title: "moved on"))
                        }
                        if now == faultAt { throw Fault(stage: now) }
                    }
                }
                proxy.losesAnswers = losesAnswer
                do {
                    try replica.sync()
                } catch {
                    #expect(faultAt != nil || losesAnswer, "step \(step): a sync without a fault failed: \(error). \(context)")
                    faultsMade += 1
                }
                proxy.losesAnswers = false
                replica.syncFaults.withLock { $0 = nil }
                continue
            }
            if actor == replicas.count && Int.random(in: 0..<12, using: &rng) == 0 {
                // Plain SQL on the server: its journal cannot say what changed until the next
                // pull, which then reads the whole list.
                try server.plainSQL("UPDATE rows SET title = title || '!' WHERE id = (SELECT min(id) FROM rows)")
                continue
            }
            let store = actor < replicas.count ? replicas[actor] : server.store
            do {
                for change in try Self.randomChange(store, titles: &titles, rng: &rng) { try ledger.note(change, on: store) }
            } catch {
                Issue.record("step \(step): an edit on \(actor < replicas.count ? "replica \(actor)" : "the server") failed: \(error). \(context)")
            }
        }
        // A final sync of all, twice round: each pushes, then each pulls what the others pushed.
        for _ in 0..<2 {
            for replica in replicas { try replica.sync() }
        }
        let expected = try ReplicaTests.shape(server.store)
        #expect(try server.store.check().isEmpty, "\(context)")
        let onServer = try server.store.list("default").snapshot().sections.flatMap(\.rows)
        let titlesOnServer = onServer.map(\.content.title)
        #expect(Set(titlesOnServer).count == titlesOnServer.count, "a row made twice. \(context)")
        let idsOnServer = Set(onServer.map(\.id))
        let lost = ledger.made.filter { !ledger.mayBeGone($0) && !idsOnServer.contains($0) }
        #expect(lost.isEmpty, "rows nobody deleted are gone: \(lost.sorted()). \(context)")
        for (index, replica) in replicas.enumerated() {
            #expect(try ReplicaTests.shape(replica) == expected, "replica \(index) differs from the server. \(context)")
            #expect(try replica.check().isEmpty, "replica \(index). \(context)")
            let status = try replica.replicaStatus()
            #expect(status.pendingIntents == 0, "replica \(index) still has intents pending. \(context)")
            let pushed = try server.plainInt("SELECT coalesce(max(last_sequence), 0) FROM sync_replicas WHERE replica = '\(status.replicaID)'")
            let recorded = try Connection(path: directory.path("r\(index).db"), mode: .readOnly).scalarInt("SELECT next_sequence - 1 FROM replica")
            #expect(pushed == recorded, "replica \(index): the server applied through \(pushed ?? -1) of \(recorded ?? -1). \(context)")
        }
        print("convergence seed \(seed): \(titles) titles, \(faultsMade) faults, \(onServer.count) rows on the server")
    }
}
