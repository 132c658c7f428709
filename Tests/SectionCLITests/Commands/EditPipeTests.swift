import Foundation
import Testing

/// `edit` with its input from a pipe or a file: one command per line, all or nothing.
@Suite struct EditPipeTests {
    @Test func saveWritesEveryChangeAsOneVersion() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let script = """
            # move the first row into the empty section
            row move 0:0 1:0

            section add 'Later on'
            row add "Later on" "Read a book"  # a comment after a command
            row set 2:0 --title 'Read two books'
            save
            """
        let result = try cli.run(["edit"], input: script)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr.isEmpty)
        #expect(result.stdout == "Saved 4 changes: added section 2, moved row 0:0 to 1:0; list \"default\" is at version 6.\n")
        #expect(
            try cli.orderedOutline() == [["To do", "Call Mom", "Write report"], ["Done", "Buy milk"], ["Later on", "Read two books"]])
    }

    @Test func saveWithJSONPrintsTheChangeset() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(["--json", "edit"], input: "row move 0:2 0:0\nsection move 1 0\nrow delete 1:1\nsave\n")
        #expect(result.status == 0)
        #expect(
            result.stdout
                == #"{"list":"default","version":6,"committed":true,"changes":{"sections":{"deleted":[],"inserted":[],"moved":[{"from":1,"to":0}],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[[0,0]],"inserted":[],"moved":[{"from":[0,2],"to":[1,0]}],"updated":[]},"#
                + #""ids":{"sections":{"deleted":[],"inserted":[],"moved":[2],"updated":[],"footers":[]},"#
                + #""rows":{"deleted":[1],"inserted":[],"moved":[3],"updated":[]}}}}"# + "\n")
        #expect(try cli.orderedOutline() == [["Done"], ["To do", "Write report", "Call Mom"]])
    }

    @Test func cancelWritesNothing() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(["edit"], input: "row delete 0:0\nsection add X\ncancel\n# only comments may follow\n")
        #expect(result.status == 0)
        #expect(result.stdout == "Cancelled; 2 changes dropped, nothing was written.\n")
        #expect(try cli.snapshot()["version"] as? Int == 5)
        #expect(try cli.orderedOutline() == [["To do", "Buy milk", "Call Mom", "Write report"], ["Done"]])
    }

    @Test func aCommandAfterSaveIsAMistakeReportedBeforeWriting() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(["edit"], input: "row delete 0:0\nsave\n\n# a comment\nrow delete 0:1\n")
        #expect(result.status == 2)
        #expect(
            result.stderr
                == "sectionctl: error: line 2: save must end the input, but a command follows it 3 lines later; nothing was written\n")
        #expect(try cli.snapshot()["version"] as? Int == 5)
        #expect(try cli.orderedOutline() == [["To do", "Buy milk", "Call Mom", "Write report"], ["Done"]])
    }

    @Test func inputEndingWithoutSaveWritesNothingAndFails() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(["edit"], input: "row delete 0:0\nsection add X\n")
        #expect(result.status == 1)
        #expect(result.stderr.hasPrefix("sectionctl: error: the input ended without save or cancel; nothing was written (2 changes dropped)\n"))
        #expect(try cli.snapshot()["version"] as? Int == 5)
        #expect(try cli.run(["edit"], input: "").status == 1)
    }

    @Test func theFirstFailingLineAbortsWithItsNumberAndWritesNothing() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let script = "section add Fine\n# comment\n\nrow move 0:0 7:0\nsave\n"
        let result = try cli.run(["edit"], input: script)
        #expect(result.status == 1)
        #expect(result.stderr == "sectionctl: error: line 4: section index 7 is out of range (valid: 0…2)\n")
        #expect(try cli.snapshot()["version"] as? Int == 5)
        #expect(try cli.orderedOutline().count == 2)

        let usage = try cli.run(["edit"], input: "row add 0 ok\nrow frob 0:0\nsave\n")
        #expect(usage.status == 2)
        #expect(usage.stderr.hasPrefix("sectionctl: error: line 2: unknown row command \"frob\""))
        let quote = try cli.run(["edit"], input: "row add 0 'open\nsave\n")
        #expect(quote.status == 2)
        #expect(quote.stderr.hasPrefix("sectionctl: error: line 1: a single quote"))
        let global = try cli.run(["edit"], input: "--db other.db show\nsave\n")
        #expect(global.status == 2)
        #expect(try cli.snapshot()["version"] as? Int == 5)
    }

    @Test func showAndChangesPrintTheDraft() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(["edit"], input: "row move 0:0 1:0\nshow\nchanges\ncancel\n")
        #expect(result.status == 0)
        #expect(
            result.stdout == """
                default (editing version 5, 1 change not saved)

                [0] To do  #1
                  0:0  Call Mom  #2
                  0:1  Write report  #3

                [1] Done  #2
                  1:0  Buy milk  #1
                1 change pending; saving would:
                  move rows: 0:0 → 1:0
                Cancelled; 1 change dropped, nothing was written.

                """)
        let json = try cli.run(["--json", "edit"], input: "section add New\nshow\nchanges\ncancel\n")
        let lines = json.lines
        #expect(lines.count == 3)
        #expect(lines[0].hasPrefix(#"{"list":"default","list_id":1,"version":5,"editing":true,"sections":["#))
        #expect(lines[0].contains(#"{"id":-1,"title":"New","footer":"No Data","rows":[]}"#))
        #expect(lines[1].hasPrefix(#"{"list":"default","version":5,"pending":1,"changes":{"sections":{"deleted":[],"inserted":[2]"#))
        #expect(lines[2] == #"{"list":"default","version":5,"cancelled":true,"dropped":1}"#)
    }

    @Test func idsOfNewRowsWorkInsideTheSession() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(["edit"], input: "row add 1 New\nrow move #-1 0:0\nrow set #-1 --title Newer\nrow delete #3\nsave\n")
        #expect(result.status == 0, "\(result.stderr)")
        #expect(try cli.orderedOutline() == [["To do", "Newer", "Buy milk", "Call Mom"], ["Done"]])
    }

    @Test func helpInsideTheSession() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(["edit"], input: "help\nhelp row move\nrow add --help\ncancel\n")
        #expect(result.status == 0)
        #expect(result.stdout.contains("  save "))
        #expect(result.stdout.contains("usage: row move PATH [TO] [--after #ID] [--before #ID]\n"))
        #expect(result.stdout.contains("usage: row add S TITLE [--at R]"))
        #expect(!result.stdout.contains("sectionctl row"))
    }

    @Test func aConflictOnSaveExits75AndWritesNothing() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let session = try PipedSession(cli: cli, arguments: ["edit"])
        session.send("row delete 0:0\nshow\n")
        #expect(session.waitForOutput(containing: "1 change not saved"))
        // Someone else changes the list while the session is open.
        try cli.ok(["row", "add", "1", "Meanwhile"])
        session.send("save\n")
        let result = session.finish()
        #expect(result.status == 75)
        #expect(result.stderr.contains("was changed by someone else since this edit session began (version 5, now 6); nothing was saved"))
        #expect(try cli.orderedOutline() == [["To do", "Buy milk", "Call Mom", "Write report"], ["Done", "Meanwhile"]])
    }

    @Test func aLineAfterAChangeElsewhereExits75WithItsNumber() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let session = try PipedSession(cli: cli, arguments: ["edit"])
        session.send("row delete 0:0\nshow\n")
        #expect(session.waitForOutput(containing: "1 change not saved"))
        try cli.ok(["row", "add", "1", "Meanwhile"])
        session.send("row move 0:0 1:0\nsave\n")
        let result = session.finish()
        #expect(result.status == 75)
        #expect(result.stderr.contains("line 3: list \"default\" was changed by someone else since this edit session began (version 5, now 6)"))
        #expect(try cli.orderedOutline() == [["To do", "Buy milk", "Call Mom", "Write report"], ["Done", "Meanwhile"]])
    }
}

/// A `sectionctl` process fed through a pipe a little at a time.
final class PipedSession {
    private let process = Process()
    private let input = Pipe()
    private let output = Pipe()
    private let errorURL: URL
    private var received = Data()

    init(cli: Sectionctl, arguments: [String]) throws {
        errorURL = cli.directory.appendingPathComponent("\(UUID().uuidString).err")
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        process.executableURL = Sectionctl.binary
        process.arguments = ["--db", cli.databasePath] + arguments
        process.environment = Sectionctl.environment()
        process.standardInput = input
        process.standardOutput = output
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
    }

    func send(_ text: String) {
        input.fileHandleForWriting.write(Data(text.utf8))
    }

    /// Reads standard output until it contains `text` (false if the output ends first).
    func waitForOutput(containing text: String) -> Bool {
        while !String(decoding: received, as: UTF8.self).contains(text) {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { return false }
            received += chunk
        }
        return true
    }

    func finish() -> RunResult {
        try? input.fileHandleForWriting.close()
        received += output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        let errors = (try? Data(contentsOf: errorURL)) ?? Data()
        return RunResult(
            status: process.terminationStatus, stdout: String(decoding: received, as: UTF8.self),
            stderr: String(decoding: errors, as: UTF8.self))
    }
}
