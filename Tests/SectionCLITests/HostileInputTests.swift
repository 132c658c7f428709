import Foundation
import Repository
import TestSupport
import Testing

/// The binary against input meant to break it: endless lines, huge numbers, heaps of words,
/// bytes that are not text after `save`, invisible characters, NUL in names.
@Suite struct HostileCLIInputTests {
    /// Runs the binary with standard input from `inputPath`, its address space capped (a run that
    /// kept everything it read would fail on allocation instead of exhausting the machine) and
    /// stopped if it has not ended after a generous while (a run that never ends fails).
    private func run(_ cli: Sectionctl, _ arguments: [String], inputPath: String) throws -> RunResult {
        let id = UUID().uuidString
        let outputURL = cli.directory.appendingPathComponent("\(id).out")
        let errorURL = cli.directory.appendingPathComponent("\(id).err")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        _ = FileManager.default.createFile(atPath: errorURL.path, contents: nil)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", #"ulimit -v 2000000; exec "$@""#, "sh", Sectionctl.binary.path, "--db", cli.databasePath] + arguments
        process.environment = Sectionctl.environment()
        process.standardInput = try FileHandle(forReadingFrom: URL(fileURLWithPath: inputPath))
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: errorURL)
        try process.run()
        if !waitUntil({ !process.isRunning }) {
            process.terminate()
            Issue.record("sectionctl \(arguments.joined(separator: " ")) had not ended after \(Int(hangGuardSeconds)) s")
        }
        return try Launched(process: process, outputURL: outputURL, errorURL: errorURL).finish()
    }

    /// Every list with its version and content: what "nothing was written" compares.
    private func state(_ cli: Sectionctl) throws -> String {
        try cli.ok(["--json", "list", "ls"]) + cli.ok(["export", "--all"])
    }

    private func file(_ cli: Sectionctl, _ bytes: [UInt8]) throws -> String {
        let url = cli.directory.appendingPathComponent(UUID().uuidString)
        try Data(bytes).write(to: url)
        return url.path
    }

    // MARK: Endless input

    @Test func anEditSessionOnEndlessInputEndsWithTheLineNumber() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let before = try state(cli)
        let result = try run(cli, ["edit"], inputPath: "/dev/zero")
        #expect(result.status == 65, "\(result.stderr)")
        #expect(
            result.stderr
                == "sectionctl: error: line 1: the line is longer than 8000000 bytes, the most a line may have\n")
        #expect(try state(cli) == before)
    }

    @Test func aLongLineLaterInASessionIsNamed() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let before = try state(cli)
        let long =
            Array("section add x\n\n".utf8) + [UInt8](repeating: UInt8(ascii: "a"), count: 8_000_000 + 1)
            + Array("\nsave\n".utf8)
        let result = try run(cli, ["edit"], inputPath: try file(cli, long))
        #expect(result.status == 65)
        #expect(result.stderr.hasPrefix("sectionctl: error: line 3: the line is longer than"))
        #expect(try state(cli) == before)
    }

    @Test func anNLRecordsImportOfEndlessInputEndsWithTheLineNumber() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let before = try state(cli)
        let result = try run(cli, ["import", "--records", "--nl", "-"], inputPath: "/dev/zero")
        #expect(result.status == 65, "\(result.stderr)")
        #expect(
            result.stderr
                == "sectionctl: error: invalid records at line 1: the line is longer than 8000000 bytes, the most a record's line may have\n"
        )
        #expect(try state(cli) == before)
    }

    @Test func aRecordsArrayImportOfEndlessInputStopsAtTheDocumentLimit() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let before = try state(cli)
        let result = try run(cli, ["import", "--records", "-"], inputPath: "/dev/zero")
        #expect(result.status == 65, "\(result.stderr)")
        #expect(
            result.stderr
                == "sectionctl: error: the input file is longer than 268435456 bytes, the most a document read whole may have; give records one per line with --nl, which streams\n"
        )
        #expect(try state(cli) == before)
    }

    // MARK: Small errors

    @Test func invalidUTF8AfterSaveNamesItsOwnLine() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let before = try state(cli)
        let input = Array("section add x\nsave\n# fine\n".utf8) + [0x66, 0xFF, 0x0A]
        let result = try run(cli, ["edit"], inputPath: try file(cli, input))
        #expect(result.status == 65)
        #expect(result.stderr == "sectionctl: error: line 4: the line is not valid UTF-8 text\n")
        #expect(try state(cli) == before)
    }

    @Test func aHugeIndexIsReportedAsWritten() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let huge = "99999999999999999999999"
        let add = try cli.run(["row", "add", huge, "x"])
        #expect(add.status == 1)
        #expect(add.stderr == "sectionctl: error: section index \(huge) is out of range (valid: 0…1)\n")
        let move = try cli.run(["row", "move", "0:0", "1:\(huge)"])
        #expect(move.stderr == "sectionctl: error: row index \(huge) is out of range for section 1 (valid: 0)\n")
        let negative = try cli.run(["section", "move", "0", "--", "-\(huge)"])
        #expect(negative.stderr == "sectionctl: error: section index -\(huge) is out of range (valid: 0…1)\n")
        let both = try cli.run(["row", "move", "0:1", "\(huge)1:\(huge)2"])
        #expect(both.stderr == "sectionctl: error: section index \(huge)1 is out of range (valid: 0…1)\n")
        let rowOnly = try cli.run(["row", "move", "0:\(huge)3", "1:0"])
        #expect(rowOnly.stderr == "sectionctl: error: row index \(huge)3 is out of range for section 0 (valid: 0…2)\n")
        let session = try cli.run(["edit"], input: "row add \(huge) x\nsave\n")
        #expect(session.stderr == "sectionctl: error: line 1: section index \(huge) is out of range (valid: 0…1)\n")
        // A number that fits is reported as the store has it.
        let fits = try cli.run(["row", "add", "7", "x"])
        #expect(fits.stderr == "sectionctl: error: section index 7 is out of range (valid: 0…1)\n")
    }

    @Test func aByteOrderMarkInsideTextIsShownEscaped() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "\u{FEFF}Title"])
        let shown = try cli.ok(["show"])
        #expect(shown.contains("\\u{FEFF}Title"))
        #expect(!shown.contains("\u{FEFF}"))
    }

    @Test func errorsEchoAShortPartOfHugeInput() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let extra = try cli.run(["section", "delete", "0"] + Array(repeating: "word", count: 2_000))
        #expect(extra.status == 2)
        #expect(extra.stderr.hasPrefix("sectionctl: error: unexpected 2000 arguments \"word\" \"word\""))
        #expect(extra.stderr.contains("…"))
        #expect(extra.stderr.utf8.count < 600, "\(extra.stderr.utf8.count) bytes")

        let line = "section delete 0 " + String(repeating: "w ", count: 200_000) + "\nsave\n"
        let session = try cli.run(["edit"], input: line)
        #expect(session.status == 2)
        #expect(session.stderr.hasPrefix("sectionctl: error: line 1: unexpected 200000 arguments \"w\""))
        #expect(session.stderr.utf8.count < 600)

        let word = String(repeating: "é", count: 30_000)
        let unknown = try cli.run(["edit"], input: "\(word)\nsave\n")
        #expect(unknown.stderr.hasPrefix("sectionctl: error: line 1: unknown command \"ééé"))
        #expect(unknown.stderr.utf8.count < 600)
        let address = try cli.run(["row", "delete", word])
        #expect(address.status == 2)
        #expect(address.stderr.utf8.count < 600)
    }

    /// An error that lists the sections or lists there are names the first few and counts the
    /// rest: 20,000 titles made a message of megabytes.
    @Test func anErrorListsAFewNamesAndCountsTheRest() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let long = String(repeating: "t", count: 5_000)
        let sections = (0..<20_000).map { index in
            let title = index == 1 ? long : "Title \(index)"
            return #"{"title": "\#(title)", "rows": []}"#
        }
        let same = (0..<20_000).map { _ in #"{"title": "Same", "rows": []}"# }
        let document =
            #"{"format": "sectionctl", "version": 1, "lists": [{"name": "many", "sections": [\#(sections.joined(separator: ","))]},"#
            + #" {"name": "same", "sections": [\#(same.joined(separator: ","))]}]}"#
        let path = cli.directory.appendingPathComponent("many.json")
        try Data(document.utf8).write(to: path)
        try cli.ok(["import", path.path])
        for (arguments, start) in [
            (["--list", "many", "section", "rename", "Nope", "x"], #"no section titled "Nope" in list "many" (sections: "Title 0", "ttttt"#),
            (["--list", "many", "section", "delete", "#99999"], #"no section #99999 in list "many" (sections: "Title 0", "ttttt"#),
            (["--list", "same", "section", "delete", "Same"], "20000 sections are titled \"Same\" (#"),
        ] {
            let result = try cli.run(arguments)
            #expect(result.status == 1, "\(arguments)")
            let message = try #require(result.stderr.split(separator: "\n").first.map(String.init))
            #expect(result.stderr == message + "\n", "one line: \(arguments)")
            #expect(message.hasPrefix("sectionctl: error: " + start), "\(message)")
            #expect(message.contains(" and 19990 more"), "\(message)")
            #expect(message.utf8.count < 600, "\(message.utf8.count) bytes: \(message)")
        }
        let titles = try cli.run(["--list", "many", "section", "rename", "Nope", "x"]).stderr
        #expect(titles.contains(#""Title 9" and 19990 more)"#), "the first ten, in order: \(titles)")
        #expect(titles.contains(#""tttttttttttttttttttttttttttttttttttttttt…""#), "a long title is cut: \(titles)")
        let lists = try cli.run(["--list", "nope", "show"])
        #expect(lists.stderr == #"sectionctl: error: no list named "nope" (lists: "default", "many", "same")"# + "\n")
    }

    // MARK: Names

    @Test func importRefusesNulInAListNameWithItsPath() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let before = try state(cli)
        let document = #"{"format": "sectionctl", "version": 1, "lists": [{"name": "a\u0000b", "sections": []}]}"#
        let path = try file(cli, Array(document.utf8))
        let result = try cli.run(["import", path])
        #expect(result.status == 65)
        #expect(result.stderr == #"sectionctl: error: $.lists[0].name cannot contain the character NUL (\u0000)"# + "\n")
        #expect(try state(cli) == before)
        #expect(try cli.ok(["list", "ls"]).contains("default"))
    }

    @Test func listsNamedInTwoSpellingsAreTwoLists() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["list", "add", "\u{E9}"])
        let second = try cli.run(["list", "add", "e\u{301}"])
        #expect(second.status == 0, "\(second.stderr)")
        let renamed = try cli.ok(["list", "rename", "\u{E9}", "e\u{301}\u{301}"])
        #expect(renamed.hasPrefix("Renamed list"))
        let again = try cli.ok(["list", "rename", "e\u{301}", "\u{E9}"])
        #expect(again.hasPrefix("Renamed list"), "\(again)")
        let names = try cli.ok(["--json", "list", "ls"])
        #expect(names.contains("\"\u{E9}\"") && names.contains("\"e\u{301}\u{301}\""))
    }

    @Test func sessionWordsSplitOnScalars() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let result = try cli.run(["edit"], input: "row add 0 'a\u{600}' --at 0\nrow add 0 '\u{301}x' --at 0\nsave\n")
        #expect(result.status == 0, "\(result.stderr)")
        let rows = try cli.orderedOutline()[0]
        #expect(Array(rows[1].utf8) == Array("\u{301}x".utf8))
        #expect(Array(rows[2].utf8) == Array("a\u{600}".utf8))
    }
}
