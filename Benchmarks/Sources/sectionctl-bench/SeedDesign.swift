import Foundation
import Repository

/// The seed-001 design, done honestly: the whole list lives in memory as `Codable` values and
/// every save encodes all of it with `JSONEncoder` and rewrites the one file, then `fsync`s it
/// (the durability `synchronous=FULL` gives the Repository).
final class SeedFileStore {
    struct Document: Codable {
        var name: String
        var sections: [SeedSection]
    }

    struct SeedSection: Codable {
        var id: Int64
        var title: String
        var emptyText: String?
        var rows: [SeedRow]
    }

    struct SeedRow: Codable {
        var id: Int64
        var kind: String
        var title: String
        var value: String?
    }

    private(set) var document: Document
    let path: String
    private(set) var lastFileSize = 0

    init(snapshot: ListSnapshot, path: String) {
        self.path = path
        document = Document(
            name: snapshot.name,
            sections: snapshot.sections.map { section in
                SeedSection(
                    id: section.id.rawValue, title: section.title, emptyText: section.emptyText,
                    rows: section.rows.map { SeedRow(id: $0.id.rawValue, kind: $0.kind.rawValue, title: $0.title, value: $0.value) })
            })
    }

    /// `move(from:to:)` of the seed's store: remove, insert.
    func move(section: Int, from source: Int, to destination: Int) {
        let row = document.sections[section].rows.remove(at: source)
        document.sections[section].rows.insert(row, at: destination)
    }

    /// `save()` of the seed's store: encode the whole list, write the file, and sync it.
    func save() throws {
        let data = try JSONEncoder().encode(document)
        lastFileSize = data.count
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        guard descriptor >= 0 else { throw BenchmarkError("cannot open \(path): errno \(errno)") }
        defer { close(descriptor) }
        try data.withUnsafeBytes { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
                guard written > 0 else { throw BenchmarkError("cannot write \(path): errno \(errno)") }
                offset += written
            }
        }
        guard fsync(descriptor) == 0 else { throw BenchmarkError("cannot sync \(path): errno \(errno)") }
    }
}

/// The seed design's counterpart of `RepositoryMover`: the same cycle of moves, each saved.
final class SeedMover: Mover {
    private let store: SeedFileStore
    private let moves: [(from: Int, to: Int)]
    private var next = 0

    init(store: SeedFileStore, cycling moves: [(from: Int, to: Int)]) {
        self.store = store
        self.moves = moves
    }

    func move() throws {
        store.move(section: 0, from: moves[next].from, to: moves[next].to)
        try store.save()
        next = (next + 1) % moves.count
    }
}

extension Benchmark {
    /// Scenario 5: a move in a 100,000-row list through the Repository is ≥ 100× faster than
    /// the seed-001 design, which rewrites the whole list as one JSON file on every save.
    func seedDesignRows() throws -> [ResultRow] {
        let plan = self.plan
        return try withScratch("seed") { scratch in
            let rows = plan.seedListRows
            let fixture = try SectionFixture.create(at: scratch.file("seed.db"), rows: rows)
            let store = try fixture.open()
            let seed = SeedFileStore(snapshot: try store.list("default").snapshot(), path: scratch.file("data.json"))
            try seed.save()
            let deep = rows / 2
            let seedMoves = 2
            Log.progress("  timing \(plan.rounds) rounds: Repository and JSON-file moves, ends and S:\(deep)…")
            let medians = try Rounds.medianPerMove(
                [
                    (RepositoryMover(endsOf: store), plan.movesPerRound),
                    (SeedMover(store: seed, cycling: [(0, rows - 1), (rows - 1, 0)]), seedMoves),
                    (RepositoryMover(store: store, deepAt: deep), plan.deepMovesPerRound),
                ], rounds: plan.rounds)
            let (repository, json, repositoryDeep) = (medians[0], medians[1], medians[2])
            let size = Format.shortCount(rows)
            return [
                .atLeast(
                    "5. move S:0<->S:end, \(size) rows, vs seed-001 JSON",
                    measured: "Repository \(Format.duration(repository)), JSON rewrite+fsync \(Format.duration(json))"
                        + " (\(Format.mebibytes(seed.lastFileSize)) file)",
                    ratio: json / repository, limit: 100, suffix: "x"),
                .info(
                    "5. move S:\(deep)<->S:0 (deep), \(size) rows, vs seed-001",
                    measured: "Repository \(Format.duration(repositoryDeep)), JSON rewrite+fsync \(Format.duration(json))",
                    ratio: "\(Format.ratio(json / repositoryDeep))x"),
            ]
        }
    }
}
