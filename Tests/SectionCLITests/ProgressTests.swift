import Foundation
import Glibc
import Repository
import SQLite
import Synchronization
import Testing
import Transfer

@testable import SectionCLI

/// The progress line of a long import: at a terminal on standard error, redrawn and cleared at
/// the end; nothing when standard error is a file or with `--quiet`; one line a second with
/// `--progress`. The import reads a FIFO that is fed records until the test has seen what it
/// waits for, so that the work lasts as long as needed without any timing in the test.
@Suite struct ProgressTests {
    /// A FIFO fed records from another thread until `stop()` (or `limit` records), then closed.
    final class Feeder: Sendable {
        let path: String
        private let stopped = Atomic<Bool>(false)
        private let done = DispatchSemaphore(value: 0)

        init(in directory: URL, limit: Int = 5_000_000) throws {
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
                    var batch = ""
                    for index in written..<(written + 1_000) { batch += "{\"name\":\"r\(index)\",\"a\":\(index),\"b\":\"text\"}\n" }
                    written += 1_000
                    let ok = batch.withUTF8 { bytes in
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

    private func startAtTerminal(_ cli: Sectionctl, _ arguments: [String]) throws -> PseudoTerminal {
        try PseudoTerminal(["--db", cli.databasePath] + arguments, environment: Sectionctl.environment(["TERM": "dumb"]))
    }

    @Test func atATerminalProgressShowsWhileImportingAndIsClearedAtTheEnd() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let feeder = try Feeder(in: cli.directory)
        let terminal = try startAtTerminal(cli, ["import", "--records", "--nl", feeder.path])
        // Redrawn in place: a carriage return, the line, and an erase to its end.
        let seen = terminal.waitFor("\r" + "import: ", count: 2, seconds: 60)
        feeder.stop()
        #expect(seen, "no progress line: \(terminal.transcript.suffix(300))")
        #expect(terminal.finish(seconds: 60) == 0)
        #expect(terminal.transcript.contains(" rows/s, "))
        #expect(terminal.transcript.contains(" MB\u{1B}[K"))
        // The line is cleared before the result is printed.
        let cleared = try #require(terminal.transcript.range(of: "\r\u{1B}[K", options: .backwards))
        #expect(terminal.transcript[cleared.upperBound...].hasPrefix("Added "), "\(terminal.transcript.suffix(200))")
        #expect(!terminal.transcript[cleared.upperBound...].contains("import: "))
    }

    @Test func quietSilencesProgressAtATerminal() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let feeder = try Feeder(in: cli.directory, limit: 100_000)
        let terminal = try startAtTerminal(cli, ["--quiet", "import", "--records", "--nl", feeder.path])
        #expect(terminal.finish(seconds: 120) == 0)
        feeder.stop()
        #expect(terminal.transcript.contains("Added 100000 sections"))
        #expect(!terminal.transcript.contains("import: "))
        #expect(!terminal.transcript.contains("\u{1B}"))
    }

    @Test func pipedStandardErrorGetsNothingUnlessProgressIsForced() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let quietFeeder = try Feeder(in: cli.directory, limit: 100_000)
        let piped = try cli.run(["import", "--records", "--nl", quietFeeder.path])
        quietFeeder.stop()
        #expect(piped.status == 0)
        #expect(piped.stdout.contains("Added 100000 sections"))
        #expect(piped.stderr == "")

        // Forced: plain lines, one a second, without redrawing.
        let feeder = try Feeder(in: cli.directory)
        let launched = try cli.launch(["--list", "forced", "--progress", "import", "--records", "--nl", feeder.path])
        var stderr = ""
        for _ in 0..<600 where !stderr.contains("\n") {
            Thread.sleep(forTimeInterval: 0.1)
            stderr = String(decoding: try Data(contentsOf: launched.errorURL), as: UTF8.self)
        }
        feeder.stop()
        let result = try launched.finish()
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
    /// A database as 0.1.0 left it (schema version 1) with a million rows in one section: the
    /// rank structure's migration has work to do.
    func oldDatabase(_ cli: Sectionctl) throws {
        let script = try String(contentsOf: URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Migrations/0001_initial.sql"), encoding: .utf8)
        let db = try Connection(path: cli.databasePath, mode: .readWriteCreate)
        try db.execute(script: script)
        try db.execute(
            script: """
                CREATE TABLE sectionctl_migrations (version INTEGER PRIMARY KEY, name TEXT NOT NULL,
                    applied_at TEXT NOT NULL DEFAULT (strftime('%Y-%m-%dT%H:%M:%fZ', 'now'))) STRICT;
                INSERT INTO sectionctl_migrations (version, name) VALUES (1, 'initial');
                PRAGMA user_version = 1;
                INSERT INTO sections (list_id, position, title) VALUES (1, 1, 'A');
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
                INSERT INTO rows (section_id, position, title) SELECT 1, i, 'r' || i FROM n;
                """)
    }

    @Test func aLongMigrationShowsItsLineAtATerminalAndClearsIt() throws {
        let cli = try Sectionctl()
        try oldDatabase(cli)
        let terminal = try PseudoTerminal(
            ["--db", cli.databasePath, "row", "get", "0:500000"], environment: Sectionctl.environment(["TERM": "dumb", "NO_COLOR": "1"]))
        #expect(terminal.waitFor("migrating the database: 0002_rank (2 of \(SectionStore.schemaVersion))"))
        #expect(terminal.finish() == 0)
        // The line is cleared before the command's own output, which follows on a clean line.
        #expect(terminal.transcript.contains("\r\u{1B}[K[0] A  #1  (1000000 rows)"), "\(terminal.transcript.suffix(300))")
    }

    @Test func aMigrationFromAPipeWritesNothingToStandardError() throws {
        let cli = try Sectionctl()
        try oldDatabase(cli)
        let result = try cli.run(["row", "get", "0:0"])
        #expect(result.status == 0)
        #expect(result.stderr == "")
    }
}
