import Repository

extension Benchmark {
    /// Scenario 4: an edit session of 1,000 moves is saved as one transaction and one version
    /// step. Before each session the log is checkpointed and truncated by the C baseline's
    /// connection (not during it: the session's open read transaction keeps its state in the
    /// log), so the commit frames found in it afterwards are the save's transactions.
    func sessionRows() throws -> [ResultRow] {
        let plan = self.plan
        let repetitions = min(plan.rounds, 3)
        return try withScratch("session") { scratch in
            let fixture = try SectionFixture.create(at: scratch.file("session.db"), rows: plan.sessionSectionRows)
            let store = try fixture.open()
            let baseline = try Baseline(path: fixture.path)
            var generator = SeededGenerator(seed: 4)
            var draftTimes: [Double] = []
            var saveTimes: [Double] = []
            var baselineTimes: [Double] = []
            var oneTransactionEach = true
            var findings: Set<String> = []
            var movedEntries: [Int] = []
            for _ in 0..<repetitions {
                try baseline.checkpoint()
                let session = try store.list("default").beginEditing()
                let count = plan.sessionSectionRows
                draftTimes.append(
                    try Measurement.time {
                        for _ in 0..<plan.sessionMoves {
                            let from = Int.random(in: 0..<count, using: &generator)
                            var to = Int.random(in: 0..<(count - 1), using: &generator)
                            if to >= from { to += 1 }
                            try session.apply(.moveRow(.at(0, from), to: .at(0, to)))
                        }
                    })
                var change: Change?
                saveTimes.append(try Measurement.time { change = try session.save() })
                let log = try WriteAheadLog.read(fixture.path + "-wal")
                let versionStep = session.baseVersion.distance(to: change!.version)
                findings.insert("\(log.commits) commit, version +\(versionStep)")
                if log.commits != 1 || versionStep != 1 { oneTransactionEach = false }
                movedEntries.append(change!.changeset.movedRows.count)

                // The C baseline's counterpart: as many single-row UPDATEs in one transaction.
                let last = try baseline.endRow(of: fixture.sectionID, last: true)
                let rowIDs = try (0..<plan.sessionMoves).map { _ in
                    try baseline.queryInt(
                        "SELECT id FROM rows WHERE section_id = \(fixture.sectionID) LIMIT 1 OFFSET \(Int.random(in: 0..<count, using: &generator))")
                }
                let uniqueIDs = Array(Set(rowIDs))
                let positions = uniqueIDs.indices.map { last.position + Int64($0 + 1) * Layout.step }
                baselineTimes.append(try Measurement.time { try baseline.updatePositions(ofRows: uniqueIDs, to: positions) })
            }
            let save = Measurement.median(saveTimes)
            let draft = Measurement.median(draftTimes)
            let cBatch = Measurement.median(baselineTimes)
            let measured =
                "save \(Format.duration(save)) (\(Format.duration(save / Double(plan.sessionMoves))) per move), draft \(Format.duration(draft)); "
                + "\(findings.sorted().joined(separator: "; ")) in each of \(repetitions) saves, "
                + "~\(Format.count(Int(Measurement.median(movedEntries.map(Double.init))))) moved rows in the changeset; "
                + "\(Format.shortCount(plan.sessionSectionRows))-row section"
            return [
                ResultRow(
                    scenario: "4. session of \(Format.count(plan.sessionMoves)) moves saved", measured: measured,
                    ratio: "\(Format.ratio(save / cBatch))x C batch (\(Format.duration(cBatch)))",
                    target: "1 transaction", verdict: oneTransactionEach ? .pass : .fail)
            ]
        }
    }
}
