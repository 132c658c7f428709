import Foundation
import Postgres
import PostgresCluster
import TestSupport
import Testing

@testable import Repository

/// One ordering per engine, proven equal: a file places items and keeps its rank structures in
/// Swift (`OrderedTable`, `RankTree`), a server in its own functions
/// (`Migrations/postgres/0012_ordering_on_the_server.sql`). Random neighbours and random
/// workloads go through both, and the positions and rank nodes they leave are compared.
@Suite("One ordering on both engines", .needs(.postgreSQL))
struct OrderingTests {
    /// Neighbours that reach every branch: both ends missing, the range's ends, gaps of 0, 1, 2
    /// and a step, and random ones.
    static func neighbours(count: Int, using generator: inout SeededGenerator) -> [(before: Int64?, after: Int64?)] {
        let upper = OrderedTable.upperBound
        let step = OrderedTable.step
        let edges: [Int64] = [1, 2, 3, step - 1, step, step + 1, step + 2, upper - step - 1, upper - step, upper - step + 1, upper - 2, upper - 1]
        var pairs: [(Int64?, Int64?)] = [(nil, nil)]
        for edge in edges { pairs += [(edge, nil), (nil, edge)] }
        for edge in edges where edge + 2 < upper { pairs += [(edge, edge + 1), (edge, edge + 2), (edge, edge + 3)] }
        while pairs.count < count {
            let low = Int64.random(in: 1..<(upper - 1), using: &generator)
            let gap: Int64 =
                Bool.random(using: &generator)
                ? Int64.random(in: 1...8, using: &generator) : Int64.random(in: 1...(upper - 1 - low), using: &generator)
            let high = min(low + gap, upper - 1)
            switch Int.random(in: 0..<4, using: &generator) {
            case 0: pairs.append((low, nil))
            case 1: pairs.append((nil, high))
            default: pairs.append((low, high))
            }
        }
        return pairs
    }

    @Test("a position between two neighbours is the same from the server's function", arguments: propertySeeds([1, 2, 3]))
    func positionBetween(seed: UInt64) throws {
        let fixture = try StoreFixture(.postgres)
        let server = try PostgresConnection(connectionString: try #require(fixture.location.serverConnectionString))
        var generator = SeededGenerator(seed: seed)
        let pairs = Self.neighbours(count: 2_000, using: &generator)
        func array(_ values: [Int64?]) -> String { "{" + values.map { $0.map(String.init) ?? "NULL" }.joined(separator: ",") + "}" }
        let result = try server.execute(
            """
            SELECT sectionctl.position_between(b, a) FROM unnest(CAST($1 AS bigint[]), CAST($2 AS bigint[])) WITH ORDINALITY AS t (b, a, n)
            ORDER BY n
            """, [array(pairs.map(\.before)), array(pairs.map(\.after))])
        try #require(result.rowCount == pairs.count)
        for (row, pair) in pairs.enumerated() {
            let swift = OrderedTable.position(between: pair.before, and: pair.after)
            #expect(result.int64(row, 0) == swift, "seed \(seed): between \(String(describing: pair.before)) and \(String(describing: pair.after))")
        }
    }

    /// What the ordering left in a store: each section's row positions, and each level's rank
    /// nodes of the list and of each section, in list order (ids may differ between engines).
    struct Layout: Equatable {
        var sectionPositions: [Int64] = []
        var rowPositions: [[Int64]] = []
        var sectionNodes: [String] = []
        var rowNodes: [[String]] = []
    }

    static func layout(_ store: SectionStore) throws -> Layout {
        try store.read { db in
            var layout = Layout()
            let sections = try db.query("SELECT id, position FROM sections WHERE list_id = 1 ORDER BY position") { ($0.int64(0), $0.int64(1)) }
            layout.sectionPositions = sections.map(\.1)
            layout.sectionNodes = try db.query(
                "SELECT level, first, section_count FROM section_rank_nodes WHERE list_id = 1 ORDER BY level, first"
            ) { "\($0.int64(0)):\($0.int64(1)):\($0.int64(2))" }
            for (section, _) in sections {
                layout.rowPositions.append(try db.query("SELECT position FROM rows WHERE section_id = ? ORDER BY position", section) { $0.int64(0) })
                layout.rowNodes.append(
                    try db.query("SELECT level, first, row_count FROM rank_nodes WHERE section_id = ? ORDER BY level, first", section) {
                        "\($0.int64(0)):\($0.int64(1)):\($0.int64(2))"
                    })
            }
            return layout
        }
    }

    /// One random edit, the same on every store: inserts and moves mostly at a hot index, so
    /// that gaps run out and blocks are spread, and nodes fill, split and merge.
    static func randomEdit(_ counts: inout [Int], hot: Int, using generator: inout SeededGenerator) -> Edit {
        let section = Int.random(in: 0..<counts.count, using: &generator)
        let count = counts[section]
        func index(in count: Int) -> Int { Bool.random(using: &generator) ? min(hot, count) : Int.random(in: 0...count, using: &generator) }
        switch Int.random(in: 0..<20, using: &generator) {
        case 0..<9:
            counts[section] += 1
            return .addRow(.text("r"), to: .at(section, index(in: count)))
        case 9..<12 where count > 0:
            counts[section] -= 1
            return .deleteRow(.at(section, Int.random(in: 0..<count, using: &generator)))
        case 12..<17 where count > 0:
            let target = Int.random(in: 0..<counts.count, using: &generator)
            let others = counts[target] - (target == section ? 1 : 0)
            let to = index(in: others)
            counts[section] -= 1
            counts[target] += 1
            return .moveRow(.at(section, Int.random(in: 0..<count, using: &generator)), to: .at(target, to))
        case 17:
            let at = index(in: counts.count)
            counts.insert(0, at: at)
            return .addSection(title: "s", at: at)
        case 18 where counts.count > 1:
            let from = Int.random(in: 0..<counts.count, using: &generator)
            let to = index(in: counts.count - 1)
            counts.insert(counts.remove(at: from), at: to)
            return .moveSection(.index(from), to: to)
        default:
            return .renameSection(.index(section), title: "s")
        }
    }

    @Test(
        "random workloads leave the same positions and rank nodes on a file and on a server",
        arguments: propertySeeds([11, 12, 13]))
    func randomWorkloads(seed: UInt64) throws {
        let file = try StoreFixture(.sqlite)
        let server = try StoreFixture(.postgres)
        let stores = [file.store, server.store]
        // A large section, written by plain SQL in one transaction as a script would: its nodes
        // are cut into pieces, several levels deep, by the settling before the commit.
        for store in stores {
            for title in ["A", "B", "C"] { try store.list("default").apply(.addSection(title: title)) }
            try store.write { db in
                try db.execute(
                    script: """
                        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
                        INSERT INTO rows (section_id, position, title) SELECT 2, i * 64, 'r' || i FROM n;
                        """)
            }
        }
        try #require(try Self.layout(file.store) == Self.layout(server.store), "seed \(seed): after the bulk insert")
        var generator = SeededGenerator(seed: seed)
        var counts = [0, 5_000, 0]
        for step in 0..<1_500 {
            let hot = Int.random(in: 0...3, using: &generator)
            let edit = Self.randomEdit(&counts, hot: hot, using: &generator)
            for store in stores { try store.list("default").apply(edit) }
            if step % 250 == 249 {
                let (onFile, onServer) = (try Self.layout(file.store), try Self.layout(server.store))
                try #require(onFile == onServer, "seed \(seed): after step \(step) (\(edit))")
            }
        }
        #expect(try Self.layout(file.store) == Self.layout(server.store), "seed \(seed)")
        #expect(file.store.positionWrites == server.store.positionWrites, "seed \(seed): the same items rewritten")
        #expect(try file.store.check().isEmpty && server.store.check().isEmpty, "seed \(seed)")
        let counted = try file.store.list("default").snapshot().sections.map(\.rows.count)
        #expect(counted == counts, "seed \(seed): the model's counts")
    }
}
