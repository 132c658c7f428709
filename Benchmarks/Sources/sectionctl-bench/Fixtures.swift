import Foundation
import Repository

/// A database file whose default list holds one section of `rows` text rows ("Row 0", "Row 1",
/// …), built fast: the schema and the section through the Repository, the rows by the C
/// baseline with one prepared INSERT in one transaction (`sections.row_count` is kept by the
/// schema's triggers). No connection is left open, so the file can be copied.
struct SectionFixture {
    let path: String
    let sectionID: Int64
    let rows: Int

    static func create(at path: String, rows: Int) throws -> SectionFixture {
        let sectionID = try createSection(at: path)
        let baseline = try Baseline(path: path)
        try baseline.fillSection(sectionID, rows: rows)
        let stored = try baseline.queryInt("SELECT row_count FROM sections WHERE id = \(sectionID)")
        guard stored == Int64(rows) else {
            throw BenchmarkError("\(path): the section holds \(stored) rows after filling, not \(rows)")
        }
        try baseline.checkpoint()
        return SectionFixture(path: path, sectionID: sectionID, rows: rows)
    }

    /// The plain-table counterpart: a file made by `Baseline.createPlain(at:)` (sectionctl's
    /// columns and unique indexes, none of its triggers or rank tables) whose default list holds
    /// one section of `rows` text rows at the same positions, filled the same way.
    static func createPlain(at path: String, rows: Int) throws -> SectionFixture {
        let listID = try Baseline.createPlain(at: path)
        let baseline = try Baseline(path: path)
        try baseline.execute("INSERT INTO sections (list_id, position, title) VALUES (\(listID), \(Layout.firstPosition), 'Bench')")
        let sectionID = try baseline.queryInt("SELECT id FROM sections WHERE list_id = \(listID)")
        try baseline.fillSection(sectionID, rows: rows)
        let stored = try baseline.queryInt("SELECT count(*) FROM rows WHERE section_id = \(sectionID)")
        guard stored == Int64(rows) else {
            throw BenchmarkError("\(path): the plain section holds \(stored) rows after filling, not \(rows)")
        }
        try baseline.checkpoint()
        return SectionFixture(path: path, sectionID: sectionID, rows: rows)
    }

    /// Creates the database and its one section; the store is closed on return.
    private static func createSection(at path: String) throws -> Int64 {
        let store = try SectionStore(path: path, create: true)
        guard let id = try store.list("default").apply(.addSection(title: "Bench")).createdID?.sectionID else {
            throw BenchmarkError("\(path): adding a section created nothing")
        }
        return id.rawValue
    }

    /// A byte-for-byte copy of the file (no connection has it open, and its log is checkpointed).
    func copy(to other: String) throws -> SectionFixture {
        try FileManager.default.copyItem(atPath: path, toPath: other)
        return SectionFixture(path: other, sectionID: sectionID, rows: rows)
    }

    /// Opens the file through the Repository.
    func open() throws -> SectionStore { try SectionStore(path: path) }
}

/// Something that moves a row once per call, cycling through a fixed set of moves so that
/// every call does the same amount of work.
protocol Mover: AnyObject {
    func move() throws
}

/// Moves through the Repository: `SectionStore.apply`, one transaction per move, changeset
/// included. Each move must report exactly one moved row.
final class RepositoryMover: Mover {
    let store: SectionStore
    private let edits: [Edit]
    private var next = 0

    init(store: SectionStore, cycling edits: [Edit]) {
        self.store = store
        self.edits = edits
    }

    /// `S:0 → S:end`, then `S:end → S:0`, in the list's first section.
    convenience init(endsOf store: SectionStore) {
        self.init(
            store: store,
            cycling: [
                .moveRow(.at(0, 0), to: RowDestination(section: .index(0), index: .end)),
                .moveRow(.path(.index(0), .end), to: .at(0, 0)),
            ])
    }

    /// `S:index → S:0`, then `S:0 → S:index`: every move addresses a row deep in the section.
    convenience init(store: SectionStore, deepAt index: Int) {
        self.init(store: store, cycling: [.moveRow(.at(0, index), to: .at(0, 0)), .moveRow(.at(0, 0), to: .at(0, index))])
    }

    func move() throws {
        let change = try store.list("default").apply(edits[next])
        guard change.changeset.movedRows.count == 1 else {
            throw BenchmarkError("\(edits[next]) reported \(change.changeset.movedRows.count) moved rows, not 1")
        }
        next = (next + 1) % edits.count
    }
}

/// The C baseline's counterpart: the section's first row gets, alternately, a position past the
/// last row and its own position back, each by one single-row UPDATE in its own transaction.
final class BaselineMover: Mover {
    private let baseline: Baseline
    private let rowID: Int64
    private let positions: [Int64]
    private var next = 0

    init(fixture: SectionFixture) throws {
        baseline = try Baseline(path: fixture.path)
        let first = try baseline.endRow(of: fixture.sectionID, last: false)
        let last = try baseline.endRow(of: fixture.sectionID, last: true)
        rowID = first.id
        positions = [last.position + Layout.step, first.position]
    }

    func move() throws {
        try baseline.updatePosition(ofRow: rowID, to: positions[next])
        next = (next + 1) % positions.count
    }
}

/// Times movers in interleaved rounds: in each round every mover makes its moves in one
/// block, so that a slow spell of the machine (another process, a checkpoint, the disk) falls
/// on all of them alike, while each block runs as one program would.
///
/// Blocks rather than alternating move by move: on ext4, alternating commits between
/// database files makes every fsync carry the other file's metadata, which adds the same few
/// milliseconds to every move of every mover and so hides their real costs and ratios.
enum Rounds {
    /// Runs one warm-up round, then `rounds` rounds in which each mover makes its number of
    /// moves. Returns, for each mover, the median over the rounds of its mean time per move in
    /// a round, in seconds.
    static func medianPerMove(_ movers: [(mover: any Mover, moves: Int)], rounds: Int) throws -> [Double] {
        try measuredPerMove(movers, rounds: rounds).map(\.seconds)
    }

    /// `medianPerMove`, with each mover's I/O per move over the timed rounds (`/proc/self/io`
    /// around each block).
    static func measuredPerMove(_ movers: [(mover: any Mover, moves: Int)], rounds: Int) throws -> [(seconds: Double, io: IOCounters)] {
        var samples = Array(repeating: [Double](), count: movers.count)
        var io = Array(repeating: IOCounters(), count: movers.count)
        for round in 0...rounds {
            for (index, entry) in movers.enumerated() {
                var elapsed = 0.0
                let used = try IOCounters.measure {
                    elapsed = try Measurement.time { for _ in 0..<entry.moves { try entry.mover.move() } }
                }
                if round > 0 {
                    samples[index].append(elapsed / Double(entry.moves))
                    io[index] = io[index] + used
                }
            }
        }
        return movers.indices.map { (Measurement.median(samples[$0]), io[$0].per(rounds * movers[$0].moves)) }
    }
}
