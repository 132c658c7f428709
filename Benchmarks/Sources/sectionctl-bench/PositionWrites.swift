import Repository

extension Benchmark {
    /// Scenario 2: position writes per move (`SectionStore.positionWrites`), amortized over
    /// random moves (≤ 1.5) and under the adversarial pattern "always at index 1" (≤ 32).
    func positionWriteRows() throws -> [ResultRow] {
        let plan = self.plan
        var rows: [ResultRow] = []
        let how = options.commitEach ? "each committed alone" : "in sessions of \(Format.count(plan.sessionBatch))"

        var generator = SeededGenerator(seed: 2)
        let random = try countWrites("random", rows: plan.randomSectionRows, operations: plan.randomMoves) { _, count in
            let from = Int.random(in: 0..<count, using: &generator)
            // A destination other than the row's own place: 0…count-1 without `from`.
            var to = Int.random(in: 0..<(count - 1), using: &generator)
            if to >= from { to += 1 }
            return .moveRow(.at(0, from), to: .at(0, to))
        }
        rows.append(
            .atMost(
                "2. position writes per random move", measured: random.describe("moves", plan.randomSectionRows, how),
                ratio: random.perOperation, limit: 1.5))

        let inserts = try countWrites("insert", rows: plan.adversarialSectionRows, operations: plan.adversarialOperations) {
            index, _ in .addRow(.text("Inserted \(index)"), to: .at(0, 1))
        }
        rows.append(
            .atMost(
                "2. position writes per insert at S:1 (adversarial)",
                measured: inserts.describe("inserts", plan.adversarialSectionRows, how), ratio: inserts.perOperation, limit: 32))

        let moves = try countWrites("move", rows: plan.adversarialSectionRows, operations: plan.adversarialOperations) { _, _ in
            .moveRow(.path(.index(0), .end), to: .at(0, 1))
        }
        rows.append(
            .atMost(
                "2. position writes per move S:end->S:1 (adversarial)",
                measured: moves.describe("moves", plan.adversarialSectionRows, how), ratio: moves.perOperation, limit: 32))
        return rows
    }

    /// Applies `operations` edits to a fresh section of `rows` rows and counts position writes.
    /// `edit` gets the operation's number and the section's current row count.
    private func countWrites(
        _ name: String, rows: Int, operations: Int, edit: (Int, Int) -> Edit
    ) throws -> WriteCount {
        let plan = self.plan
        let commitEach = options.commitEach
        return try withScratch("writes-\(name)") { scratch in
            let fixture = try SectionFixture.create(at: scratch.file("\(name).db"), rows: rows)
            let store = try fixture.open()
            var count = rows
            func next(_ index: Int) -> Edit {
                let made = edit(index, count)
                if case .addRow = made { count += 1 }
                return made
            }
            let before = store.positionWrites
            Log.progress("  \(Format.count(operations)) \(name) operations…")
            let elapsed = try Measurement.time {
                if commitEach {
                    for index in 0..<operations {
                        guard try !store.list("default").apply(next(index)).changeset.isEmpty else { throw BenchmarkError("an edit changed nothing") }
                    }
                } else {
                    var done = 0
                    while done < operations {
                        let session = try store.list("default").beginEditing()
                        let end = min(done + plan.sessionBatch, operations)
                        for index in done..<end { try session.apply(next(index)) }
                        try session.save()
                        done = end
                    }
                }
            }
            let stored = try store.list("default").snapshot().rowCount
            guard stored == count else { throw BenchmarkError("the section holds \(stored) rows, not \(count)") }
            return WriteCount(writes: store.positionWrites - before, operations: operations, seconds: elapsed)
        }
    }
}

/// Position writes counted over a run of operations.
struct WriteCount {
    let writes: Int
    let operations: Int
    let seconds: Double

    var perOperation: Double { Double(writes) / Double(operations) }

    /// "100,012 writes for 100,000 moves, 10K-row section, in sessions of 1,000, 12.3 s".
    func describe(_ noun: String, _ sectionRows: Int, _ how: String) -> String {
        "\(Format.count(writes)) writes for \(Format.count(operations)) \(noun), \(Format.shortCount(sectionRows))-row section, "
            + "\(how), \(Format.duration(seconds))"
    }
}
