import Foundation
import Repository
import SQLite
import Synchronization
import TestSupport
import Testing
import Transfer

@testable import SectionCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The progress line of a long import: at a terminal on standard error, redrawn and cleared at
/// the end; nothing when standard error is a file or with `--quiet`; one line a second with
/// `--progress`. The import reads a FIFO that is fed records until the test has seen what it
/// waits for, so that the work lasts as long as needed without any timing in the test.
@Suite struct ProgressTests {
    /// A FIFO fed records from another thread until `stop()` (or `limit` records), then closed.
    ///
    /// With a `pause`, the records come in batches of `batch` (each larger than a pipe holds, so
    /// that writing one returns only once the import has been reading it), with `pause` seconds
    /// between them: an import that reads it lasts past any such pause after it began reading,
    /// and reports its progress after it, however fast or slow the machine.
    final class Feeder: Sendable {
        let path: String
        private let stopped = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)

        init(in directory: URL, limit: Int = 5_000_000, batch: Int = 1_000, pause: Double = 0) throws {
            path = directory.appendingPathComponent("records-\(UUID().uuidString).jsonl").path
            guard mkfifo(path, 0o600) == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
            let path = path
            DispatchQueue.global().async { [self] in
                defer { done.signal() }
                let descriptor = open(path, O_WRONLY)  // waits for the reader
                guard descriptor >= 0 else { return }
                defer { close(descriptor) }
                var written = 0
                while !stopped.load(ordering: .relaxed) && written < limit {
                    if pause > 0 && written > 0 { Thread.sleep(forTimeInterval: pause) }
                    let count = min(batch, limit - written)
                    var text = ""
                    for index in written..<(written + count) { text += "{\"name\":\"r\(index)\",\"a\":\(index),\"b\":\"text\"}\n" }
                    written += count
                    let ok = text.withUTF8 { bytes in
                        var offset = 0
                        while offset < bytes.count {
                            let count = write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
                            if count <= 0 { return false }
                            offset += count
                        }
                        return true
                    }
                    if !ok { return }
                }
            }
        }

        /// Ends the input after the batch being written.
        func stop() {
            stopped.store(true, ordering: .relaxed)
            done.wait()
        }
    }

    /// Records in batches of 4,000 (about 150 KB, more than a pipe holds) with a third of a
    /// second between them: longer than the fifth of a second before a line is first drawn.
    static let pacedRecords = (limit: 12_000, batch: 4_000, pause: 1.0 / 3)

    private func pacedFeeder(_ cli: Sectionctl) throws -> Feeder {
        try Feeder(in: cli.directory, limit: Self.pacedRecords.limit, batch: Self.pacedRecords.batch, pause: Self.pacedRecords.pause)
    }

    private func startAtTerminal(_ cli: Sectionctl, _ arguments: [String]) throws -> PseudoTerminal {
        try PseudoTerminal(["--db", cli.databasePath] + arguments, environment: Sectionctl.environment(["TERM": "dumb"]))
    }

    @Test func atATerminalProgressShowsWhileImportingAndIsClearedAtTheEnd() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let feeder = try Feeder(in: cli.directory)
        let terminal = try startAtTerminal(cli, ["import", "--records", "--nl", feeder.path])
        // Redrawn in place: a carriage return, the line, and an erase to its end.
        let seen = terminal.waitFor("\r" + "import: ", count: 2)
        feeder.stop()
        #expect(seen, "no progress line: \(terminal.transcript.suffix(300))")
        #expect(terminal.finish() == 0)
        #expect(terminal.transcript.contains(" rows/s, "))
        #expect(terminal.transcript.contains(" MB\u{1B}[K"))
        // The line is cleared before the result is printed.
        let cleared = try #require(terminal.transcript.range(of: "\r\u{1B}[K", options: .backwards))
        #expect(terminal.transcript[cleared.upperBound...].hasPrefix("Added "), "\(terminal.transcript.suffix(200))")
        #expect(!terminal.transcript[cleared.upperBound...].contains("import: "))
    }

    @Test func quietSilencesProgressAtATerminal() throws {
        // The same paced input without --quiet draws the line, so the quiet run is one that would.
        let shown = try Sectionctl()
        try shown.initialize()
        let shownFeeder = try pacedFeeder(shown)
        let control = try startAtTerminal(shown, ["import", "--records", "--nl", shownFeeder.path])
        #expect(control.finish() == 0)
        shownFeeder.stop()
        #expect(control.transcript.contains("\rimport: "), "no progress line without --quiet: \(control.transcript.suffix(300))")
        #expect(control.transcript.contains("Added 12000 sections"))

        let cli = try Sectionctl()
        try cli.initialize()
        let feeder = try pacedFeeder(cli)
        let terminal = try startAtTerminal(cli, ["--quiet", "import", "--records", "--nl", feeder.path])
        #expect(terminal.finish() == 0)
        feeder.stop()
        #expect(terminal.transcript.contains("Added 12000 sections"), "\(terminal.transcript.suffix(300))")
        #expect(!terminal.transcript.contains("import: "))
        #expect(!terminal.transcript.contains("\u{1B}"))
    }

    @Test func pipedStandardErrorGetsNothingUnlessProgressIsForced() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        // Input paced as for quietSilencesProgressAtATerminal, where a terminal shows the line.
        let quietFeeder = try pacedFeeder(cli)
        let piped = try cli.run(["import", "--records", "--nl", quietFeeder.path])
        quietFeeder.stop()
        #expect(piped.status == 0)
        #expect(piped.stdout.contains("Added 12000 sections"))
        #expect(piped.stderr == "")

        // Forced: plain lines, one a second, without redrawing.
        let feeder = try Feeder(in: cli.directory)
        let launched = try cli.launch(["--list", "forced", "--progress", "import", "--records", "--nl", feeder.path])
        let lineWritten = try waitUntil {
            String(decoding: try Data(contentsOf: launched.errorURL), as: UTF8.self).contains("\n") || !launched.process.isRunning
        }
        feeder.stop()
        let result = try launched.finish()
        #expect(lineWritten)
        #expect(result.status == 0)
        let lines = result.stderr.split(separator: "\n")
        #expect(!lines.isEmpty)
        #expect(lines.allSatisfy { $0.hasPrefix("import: ") && $0.contains(" rows/s") })
        #expect(!result.stderr.contains("\r") && !result.stderr.contains("\u{1B}"))
    }
}

/// What the progress line says, from a report.
@Suite struct ProgressLineTests {
    @Test func aFileOfKnownSizeGivesAPercentageAndTimeLeft() {
        let text = ProgressLine.describe(
            TransferProgress(rows: 1_234_567, bytes: 11_000_000), label: "import", totalBytes: 27_500_000, elapsed: 2)
        #expect(text == "import: 1,234,567 rows, 617,283 rows/s, 40% of 27.5 MB, 3 s left")
    }

    /// docs/cli.md's example line is what the line says seven seconds into an import of a
    /// 27.5 MB file, 11,275,000 bytes and 412,300 rows in.
    @Test func theManualsExampleIsWhatTheLineSays() throws {
        let manual = try String(contentsOf: packageRoot.appending(path: "docs/cli.md"), encoding: .utf8)
        let progress = try #require(manual.components(separatedBy: "**Progress.**").dropFirst().first, "docs/cli.md has no **Progress.** paragraph")
        let shown = try #require(progress.components(separatedBy: "\n").first { $0.hasPrefix("import: ") }, "no import line under **Progress.**")
        #expect(
            ProgressLine.describe(TransferProgress(rows: 412_300, bytes: 11_275_000), label: "import", totalBytes: 27_500_000, elapsed: 7)
                == shown)
    }

    @Test func knownRowsGiveAPercentageAndAPipeOnlyWhatWasRead() {
        #expect(
            ProgressLine.describe(TransferProgress(rows: 250, bytes: 0, totalRows: 1_000), label: "export", totalBytes: nil, elapsed: 1)
                == "export: 250 rows, 250 rows/s, 25% of 1,000 rows, 3 s left")
        #expect(
            ProgressLine.describe(TransferProgress(rows: 10, bytes: 2_345_678), label: "import", totalBytes: nil, elapsed: 0.5)
                == "import: 10 rows, 20 rows/s, 2.3 MB")
    }
}

/// A migration that builds data for a large database says so at a terminal, and only there.
@Suite struct MigrationProgressTests {
    /// A database as 0.1.0 left it (schema version 1) with `rows` rows in one section: the rank
    /// structure's migration has work to do.
    func oldDatabase(_ cli: Sectionctl, rows: Int) throws {
        let script = try String(contentsOf: packageRoot.appendingPathComponent("Migrations/0001_initial.sql"), encoding: .utf8)
        let db = try Connection(path: cli.databasePath, mode: .readWriteCreate)
        try db.execute(script: script)
        try db.execute(
            script: """
                CREATE TABLE sectionctl_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,
                    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) STRICT;
                INSERT INTO sectionctl_migrations (version, name) VALUES (1, 'initial');
                PRAGMA user_version = 1;
                INSERT INTO sections (list_id, position, title) VALUES (1, 1, 'A');
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < \(rows))
                INSERT INTO rows (section_id, position, title) SELECT 1, i, 'r' || i FROM n;
                """)
    }

    /// The library reports each migration as it starts; the line shows the report once a fifth
    /// of a second has passed (never before), and is cleared at the end. The report handler
    /// holds the first migration until the line has been drawn, so the migration lasts as long
    /// as that takes on any machine.
    @Test func theLineShowsAMigrationUnderWayAfterAFifthOfASecondAndIsCleared() throws {
        let cli = try Sectionctl()
        try oldDatabase(cli, rows: 1_000)
        let written = Mutex<[String]>([])
        let reports = Mutex<[MigrationProgress]>([])
        let started = ContinuousClock.now  // before the line starts its own clock
        let line = MigrationLine(redraws: true) { text in written.withLock { $0.append(text) } }
        let drawnAfter = Mutex<Duration?>(nil)
        let store = try SectionStore(path: cli.databasePath) { progress in
            let first = reports.withLock { reports in
                reports.append(progress)
                return reports.count == 1
            }
            line.update(progress)
            guard first else { return }
            let drawn = waitUntil {
                line.update(progress)
                return written.withLock { !$0.isEmpty }
            }
            if drawn { drawnAfter.withLock { $0 = ContinuousClock.now - started } }
        }
        line.finish()
        #expect(try store.check() == [])
        #expect(try store.list("default").row(at: RowPath(section: 0, row: 500)).row.title == "r501")
        let steps = reports.withLock { $0 }
        let latest = SectionStore.schemaVersion
        #expect(steps.first.map { [$0.name, "\($0.number) of \($0.count)"] } == ["0002_rank", "2 of \(latest)"], "\(steps)")
        #expect(Array(Set(steps.map(\.number))).sorted() == Array(2...latest), "each migration after the first is reported: \(steps)")
        #expect(steps.allSatisfy { $0.count == latest })
        #expect(steps.map(\.number) == steps.map(\.number).sorted(), "in order")
        let texts = written.withLock { $0 }
        let after = try #require(drawnAfter.withLock { $0 }, "the line was never drawn: \(texts)")
        #expect(after >= .milliseconds(200), "drawn after \(after), before a fifth of a second had passed")
        let firstLine = try #require(texts.first)
        #expect(firstLine.hasPrefix("\rmigrating the database: 0002_rank (2 of \(latest)), ") && firstLine.hasSuffix(" s\u{1B}[K"), "\(firstLine)")
        #expect(texts.dropLast().allSatisfy { $0.hasPrefix("\rmigrating the database: 00") }, "\(texts)")
        #expect(texts.last == "\r\u{1B}[K", "cleared at the end: \(texts)")
    }

    /// The command at a terminal: its output follows on a clean line. A migration that lasts
    /// past a fifth of a second shows its line first, which only a large database makes sure
    /// of on a fast machine: 1,000,000 rows with `SECTIONCLI_TEST_LARGE=1`, when the line is
    /// required; 20,000 by default, when it is cleared if it was drawn.
    @Test func aMigrationAtATerminalClearsItsLineBeforeTheOutput() throws {
        let rows = largeTestsEnabled ? 1_000_000 : 20_000
        let cli = try Sectionctl()
        try oldDatabase(cli, rows: rows)
        let terminal = try PseudoTerminal(
            ["--db", cli.databasePath, "row", "get", "0:\(rows / 2)"], environment: Sectionctl.environment(["TERM": "dumb", "NO_COLOR": "1"]))
        if largeTestsEnabled {
            #expect(terminal.waitFor("migrating the database: 0002_rank (2 of 4)"), "\(terminal.transcript.suffix(300))")
        }
        #expect(terminal.finish() == 0)
        let output = "[0] A  #1  (\(rows) rows)\r\n  0:\(rows / 2)  r\(rows / 2 + 1)  #\(rows / 2 + 1)\r\n"
        if terminal.transcript.contains("migrating the database: ") {
            // The line is cleared before the command's own output, which follows on a clean line.
            #expect(terminal.transcript.hasSuffix("\r\u{1B}[K" + output), "\(terminal.transcript.suffix(300))")
        } else {
            #expect(terminal.transcript == output)
        }
    }

    @Test func aMigrationFromAPipeWritesNothingToStandardError() throws {
        let cli = try Sectionctl()
        try oldDatabase(cli, rows: largeTestsEnabled ? 1_000_000 : 20_000)
        let result = try cli.run(["row", "get", "0:0"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
    }
}
