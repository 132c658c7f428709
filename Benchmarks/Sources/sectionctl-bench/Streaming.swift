import Foundation
import Repository

extension Benchmark {
    /// Scenario 9: whole `show`, `show --json` and `export` of a list, each a whole `sectionctl`
    /// process as a user runs it: peak memory at 1M rows against 10K (flat: ≤ 2 × + 32 MiB);
    /// time at 1M against the C baseline's plain SELECT of the same rows (≤ 3×); and `show`
    /// against a C process that prints the same lines (`sectionctl-cpeer show`, its output
    /// checked to be byte for byte `show`'s; ≤ 2×).
    func streamRows() throws -> [ResultRow] {
        let plan = self.plan
        let sectionctl = sectionctlPath
        guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
            return [.skipped("9. show / export", reason: "no sectionctl binary at \(sectionctl)")]
        }
        return try withScratch("stream") { scratch in
            Log.progress("  fixtures: \(Format.count(plan.streamSmallRows)) and \(Format.count(plan.streamLargeRows)) rows…")
            let small = try SectionFixture.create(at: scratch.file("small.db"), rows: plan.streamSmallRows)
            let large = try SectionFixture.create(at: scratch.file("large.db"), rows: plan.streamLargeRows)
            let listID = try Baseline(path: large.path).queryInt("SELECT id FROM lists WHERE name = 'default'")

            // The C baseline: one SELECT of the same rows, every column fetched.
            let baseline = try Baseline(path: large.path)
            var selectTimes: [Double] = []
            for _ in 0..<3 {
                var rows = 0
                selectTimes.append(try Measurement.time { rows = try baseline.selectList(listID) })
                guard rows == large.rows else { throw BenchmarkError("the C SELECT read \(rows) rows, not \(large.rows)") }
            }
            let select = Measurement.median(selectTimes)

            var results: [ResultRow] = []
            let commands: [(name: String, arguments: [String])] = [
                ("show", ["show"]), ("show --json", ["--json", "show"]), ("export", ["export"]),
            ]
            for command in commands {
                var peaks: [Int] = []
                var largeTimes: [Double] = []
                for fixture in [small, large] {
                    let runs = fixture.rows == large.rows ? 3 : 1
                    var peak = 0
                    for _ in 0..<runs {
                        Log.progress("  sectionctl \(command.name), \(Format.shortCount(fixture.rows)) rows…")
                        let outcome = try ChildProcess.run(
                            sectionctl, ["--db", fixture.path] + command.arguments, errorFile: scratch.file("stream.err"))
                        guard outcome.status == 0 else {
                            throw BenchmarkError("sectionctl \(command.name) exited \(outcome.status): \(outcome.firstErrorLine)")
                        }
                        peak = max(peak, outcome.peakMemory)
                        if fixture.rows == large.rows { largeTimes.append(outcome.seconds) }
                    }
                    peaks.append(peak)
                }
                let bound = 2 * peaks[0] + 32 * 1_048_576
                results.append(
                    ResultRow(
                        scenario: "9. \(command.name) peak memory, \(Format.shortCount(small.rows)) vs \(Format.shortCount(large.rows)) rows",
                        measured: "peak RSS \(Format.mebibytes(peaks[0])) vs \(Format.mebibytes(peaks[1])) (bound \(Format.mebibytes(bound)));"
                            + " whole process",
                        ratio: "\(Format.ratio(Double(peaks[1]) / Double(peaks[0])))x", target: "≤ 2x + 32 MiB",
                        verdict: peaks[1] <= bound ? .pass : .fail))
                let seconds = Measurement.median(largeTimes)
                if command.name == "show" {
                    results.append(try printingPeerRow(large: large, sectionctl: sectionctl, seconds: seconds, scratch: scratch))
                }
                results.append(
                    .atMost(
                        "9. \(command.name) of \(Format.shortCount(large.rows)) rows vs C SELECT",
                        measured: "sectionctl \(Format.duration(seconds)) (whole process, output to /dev/null), C SELECT \(Format.duration(select))",
                        ratio: seconds / select, limit: 3, suffix: "x"))
            }
            return results
        }
    }

    /// `show` of the large fixture (`seconds`, the median of its whole processes) against the C
    /// peer printing the same lines, timed the same way (3 runs, median), after checking once that
    /// both write the same bytes.
    private func printingPeerRow(large: SectionFixture, sectionctl: String, seconds: Double, scratch: Scratch) throws -> ResultRow {
        let scenario = "9. show of \(Format.shortCount(large.rows)) rows vs a C process printing the same lines"
        guard let peer = try Self.compilePeer(into: scratch.file("sectionctl-cpeer")) else {
            return .skipped(scenario, reason: "no C compiler (cc or clang) on the PATH to build the C peer", target: "≤ 2x")
        }
        let ours = scratch.file("show.out")
        let theirs = scratch.file("peer-show.out")
        let errors = scratch.file("peer-show.err")
        for (program, arguments, output) in [(sectionctl, ["--db", large.path, "show"], ours), (peer, ["show", large.path], theirs)] {
            let outcome = try ChildProcess.timed(program, arguments, output: output, errorFile: errors)
            guard outcome.status == 0 else { throw BenchmarkError("\(program) \(arguments.joined(separator: " ")) exited \(outcome.status)") }
        }
        guard FileManager.default.contentsEqual(atPath: ours, andPath: theirs) else {
            throw BenchmarkError("the C peer's show does not print what sectionctl show prints (compare \(ours) and \(theirs))")
        }
        let bytes = (try? FileManager.default.attributesOfItem(atPath: ours)[.size] as? Int) ?? 0
        try? FileManager.default.removeItem(atPath: ours)
        try? FileManager.default.removeItem(atPath: theirs)
        var times: [Double] = []
        for _ in 0..<3 {
            Log.progress("  C peer show, \(Format.shortCount(large.rows)) rows…")
            let outcome = try ChildProcess.run(peer, ["show", large.path], errorFile: errors)
            guard outcome.status == 0 else { throw BenchmarkError("the C peer's show exited \(outcome.status): \(outcome.firstErrorLine)") }
            times.append(outcome.seconds)
        }
        let printing = Measurement.median(times)
        return .atMost(
            scenario,
            measured: "sectionctl \(Format.duration(seconds)), C \(Format.duration(printing)); the same \(Format.mebibytes(bytes)) of lines"
                + " (checked byte for byte), to /dev/null; whole processes, medians of 3",
            ratio: seconds / printing, limit: 2, suffix: "x")
    }

    /// Scenario 8: the peak memory of a native import (`sectionctl import FILE`, a whole process)
    /// of a 50 MB document against a 5 MB one (flat: ≤ 2 × + 64 MiB).
    func nativeImportRows() throws -> [ResultRow] {
        let plan = self.plan
        let sectionctl = sectionctlPath
        let scenario = "10. native import peak memory, \(Format.mebibytes(plan.nativeSmallBytes)) vs \(Format.mebibytes(plan.nativeLargeBytes)) file"
        guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
            return [.skipped(scenario, reason: "no sectionctl binary at \(sectionctl)", target: "≤ 2x + 64 MiB")]
        }
        return try withScratch("native") { scratch in
            var peaks: [Int] = []
            var seconds: [Double] = []
            var sizes: [Int] = []
            for bytes in [plan.nativeSmallBytes, plan.nativeLargeBytes] {
                let file = scratch.file("native-\(bytes).json")
                let rows = try Self.writeNativeDocument(to: file, atLeast: bytes)
                sizes.append(Int((try FileManager.default.attributesOfItem(atPath: file)[.size] as? NSNumber)?.intValue ?? 0))
                let database = scratch.file("native-\(bytes).db")
                Log.progress("  sectionctl import of \(Format.mebibytes(sizes.last!)) (\(Format.count(rows)) rows)…")
                let outcome = try importAsProcess(file, into: database, sectionctl: sectionctl, expecting: rows, of: "rows")
                peaks.append(outcome.peakMemory)
                seconds.append(outcome.seconds)
                scratch.removeDatabase(database)
            }
            let bound = 2 * peaks[0] + 64 * 1_048_576
            let scaling = try [("lists", true), ("sections", false)].map { name, asLists in
                try scalingRow(name, asLists: asLists, sectionctl: sectionctl, scratch: scratch)
            }
            return [
                ResultRow(
                    scenario: scenario,
                    measured: "\(Format.mebibytes(sizes[0])) vs \(Format.mebibytes(sizes[1])): peak RSS \(Format.mebibytes(peaks[0]))"
                        + " vs \(Format.mebibytes(peaks[1])) (bound \(Format.mebibytes(bound))), \(Format.duration(seconds[0]))"
                        + " vs \(Format.duration(seconds[1])); sectionctl binary",
                    ratio: "\(Format.ratio(Double(peaks[1]) / Double(peaks[0])))x", target: "≤ 2x + 64 MiB",
                    verdict: peaks[1] <= bound ? .pass : .fail)
            ] + scaling
        }
    }

    /// The time per list (or per section) of a native import of `nativeScalingSmall` and of ten
    /// times as many empty lists (or sections of one list), each a whole `sectionctl import`:
    /// linear when the ratio stays near 1 (target ≤ 1.5).
    private func scalingRow(_ what: String, asLists: Bool, sectionctl: String, scratch: Scratch) throws -> ResultRow {
        var perItem: [Double] = []
        let counts = [plan.nativeScalingSmall, plan.nativeScalingSmall * 10]
        for count in counts {
            let file = scratch.file("scaling-\(what)-\(count).json")
            var text = "{\"lists\": ["
            text.reserveCapacity(count * 40)
            if asLists {
                text += (0..<count).map { #"{"name": "list \#($0)", "sections": [{"title": "s"}]}"# }.joined(separator: ",\n")
            } else {
                text += #"{"name": "default", "sections": ["#
                text += (0..<count).map { #"{"title": "section \#($0)"}"# }.joined(separator: ",\n") + "]}"
            }
            text += "]}\n"
            try Data(text.utf8).write(to: URL(fileURLWithPath: file))
            let database = scratch.file("scaling-\(what)-\(count).db")
            Log.progress("  sectionctl import of \(Format.count(count)) \(what)…")
            let outcome = try importAsProcess(file, into: database, sectionctl: sectionctl, expecting: count, of: "sections")
            perItem.append(outcome.seconds / Double(count))
            scratch.removeDatabase(database)
        }
        return .atMost(
            "10. native import of \(Format.shortCount(counts[1])) vs \(Format.shortCount(counts[0])) \(what), time per item",
            measured: "\(Format.duration(perItem[0] * Double(counts[0]))) for \(Format.count(counts[0])),"
                + " \(Format.duration(perItem[1] * Double(counts[1]))) for \(Format.count(counts[1])); whole process",
            ratio: perItem[1] / perItem[0], limit: 1.5, suffix: "x")
    }

    /// Writes a native document of at least `bytes` bytes, shaped as `export` writes it: sections
    /// of five field rows. Returns the number of rows.
    static func writeNativeDocument(to path: String, atLeast bytes: Int) throws -> Int {
        guard FileManager.default.createFile(atPath: path, contents: nil), let handle = FileHandle(forWritingAtPath: path) else {
            throw BenchmarkError("cannot write \(path)")
        }
        defer { try? handle.close() }
        var written = 0
        var rows = 0
        var text = "{\n  \"format\": \"sectionctl\",\n  \"version\": 1,\n  \"lists\": [\n    {\n      \"name\": \"default\",\n      \"sections\": ["
        var section = 0
        while written + text.utf8.count < bytes {
            section += 1
            text +=
                (section == 1 ? "\n" : ",\n")
                + "        {\n          \"title\": \"Record \(section)\",\n          \"empty_text\": null,\n          \"rows\": ["
            for field in 1...5 {
                text +=
                    (field == 1 ? "\n" : ",\n")
                    + "            {\"kind\": \"field\", \"title\": \"field\(field)\", \"value\": \"value-\(section)-\(field)\"}"
                rows += 1
            }
            text += "\n          ]\n        }"
            if text.utf8.count > 1 << 20 {
                written += text.utf8.count
                try handle.write(contentsOf: Data(text.utf8))
                text = ""
            }
        }
        text += "\n      ]\n    }\n  ]\n}\n"
        try handle.write(contentsOf: Data(text.utf8))
        return rows
    }

    /// `sectionctl import FILE` into a new database, as a whole process under the peak-memory
    /// intermediary, checking that it stored `expected` items of `table`.
    private func importAsProcess(_ file: String, into database: String, sectionctl: String, expecting expected: Int, of table: String)
        throws -> ChildProcess.Outcome
    {
        _ = try Self.createDatabase(at: database)
        let outcome = try ChildProcess.run(sectionctl, ["--db", database, "import", file], errorFile: database + ".err")
        guard outcome.status == 0 else {
            throw BenchmarkError("sectionctl import of \(file) exited \(outcome.status): \(outcome.firstErrorLine)")
        }
        let stored = try Baseline(path: database).queryInt("SELECT count(*) FROM \(table)")
        guard stored == Int64(expected) else { throw BenchmarkError("the import stored \(stored) \(table), not \(expected)") }
        return outcome
    }
}
