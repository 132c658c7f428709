import Foundation
import TestSupport
import Testing

@testable import CommandLineSupport
@testable import SectionCLI

/// Hostile text never reaches a terminal raw; wide text lines up; colour only where it belongs.
@Suite struct OutputSafetyTests {
    static let hostile = "\u{1B}]0;pwned\u{7}\u{1B}[2J\u{1B}[31mred\u{9B}1m\u{202E}txt"

    @Test func escapeSequencesInTitlesNeverReachStdoutRaw() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", Self.hostile])
        try cli.ok(["row", "add", "0", Self.hostile])
        try cli.ok(["row", "add", "0", Self.hostile, "--value", Self.hostile])
        try cli.ok(["list", "add", Self.hostile])
        for arguments in [["show"], ["show", "--editing"], ["list", "ls"], ["section", "rename", "0", Self.hostile + "!"]] {
            let output = try cli.ok(arguments)
            #expect(!output.unicodeScalars.contains { TextEscaping.needsEscape($0) && $0 != "\n" }, "\(arguments)")
        }
        let listing = try cli.ok(["show"])
        #expect(listing.contains(#"\e]0;pwned\u{7}\e[2J\e[31mred\u{9B}1m\u{202E}txt"#))
        // In an edit session too.
        let session = try cli.run(["edit"], input: "show\ncancel\n")
        #expect(!session.stdout.unicodeScalars.contains { TextEscaping.needsEscape($0) && $0 != "\n" })
        // JSON keeps the text exact, in JSON's own escapes.
        let json = try cli.ok(["--json", "show"])
        #expect(json.contains(#"\u001b]0;pwned\u0007\u001b[2J"#))
        #expect(try (cli.snapshot()["sections"] as? [[String: Any]])?[0]["title"] as? String == Self.hostile + "!")
    }

    @Test func escapeSequencesNeverReachStderrRaw() throws {
        let cli = try Sectionctl()
        try cli.seed()
        for arguments in [
            ["section", "delete", Self.hostile], ["--list", Self.hostile, "show"], [Self.hostile],
            ["row", "move", Self.hostile, "0:0"], ["row", "add", "0", "x", "--kind", Self.hostile],
        ] {
            let result = try cli.run(arguments)
            #expect(result.status != 0)
            #expect(result.stderr.contains("\\e"), "\(arguments)")
            #expect(!result.stderr.unicodeScalars.contains { TextEscaping.needsEscape($0) && $0 != "\n" }, "\(arguments)")
        }
        let session = try cli.run(["edit"], input: "section delete '\(Self.hostile)'\n")
        #expect(session.stderr.hasPrefix("sectionctl: error: line 1: no section titled \"\\e]0;pwned"))
        #expect(!session.stderr.unicodeScalars.contains { TextEscaping.needsEscape($0) && $0 != "\n" })
    }

    /// Marks, zero-width and tag characters: printed raw, they hide text or reorder the line.
    static let invisible = "a\u{200E}b\u{200F}c\u{61C}d\u{200B}e\u{AD}f\u{E0041}\u{E0042}g\u{2060}h\u{FEFF}i\u{202E}j\u{3164}"
    static let invisibleEscaped = #"a\u{200E}b\u{200F}c\u{61C}d\u{200B}e\u{AD}f\u{E0041}\u{E0042}g\u{2060}h\u{FEFF}i\u{202E}j\u{3164}"#
    /// A title with an emoji sequence (a joiner) and a selector: printed as written.
    static let emoji = "\u{1F469}\u{200D}\u{1F4BB} and \u{2764}\u{FE0F}"

    /// Whether `output` holds a Bidi_Control or Default_Ignorable_Code_Point code point other
    /// than those of `emoji`.
    static func hasRawInvisible(_ output: String) -> Bool {
        output.unicodeScalars.contains { scalar in
            (scalar.properties.isBidiControl || scalar.properties.isDefaultIgnorableCodePoint) && scalar != "\u{200D}" && scalar != "\u{FE0F}"
        }
    }

    @Test func invisibleCharactersAreEscapedWhereverUserTextIsPrinted() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", Self.invisible])
        try cli.ok(["row", "add", "0", Self.invisible])
        try cli.ok(["row", "add", "0", Self.invisible, "--kind", "field", "--value", Self.invisible])
        try cli.ok(["row", "add", "0", Self.emoji])
        try cli.ok(["list", "add", Self.invisible])
        for arguments in [
            ["show"], ["show", "--editing"], ["show", "--from", "0:1", "--limit", "1"], ["row", "get", "0:0"], ["row", "get", "0:1"],
            ["list", "ls"], ["--list", Self.invisible, "section", "add", Self.invisible],
            ["--list", Self.invisible, "changes", "--since", "0"],
        ] {
            let output = try cli.ok(arguments)
            #expect(!Self.hasRawInvisible(output), "\(arguments): \(output.debugDescription)")
            #expect(output.contains(Self.invisibleEscaped), "\(arguments): \(output)")
        }
        try cli.ok(["section", "rename", "0", Self.invisible + "!"])
        let listing = try cli.ok(["show"])
        #expect(listing.contains(Self.emoji), "an emoji sequence displays as itself: \(listing)")
        // Errors quoting titles, lists and what was typed.
        for arguments in [
            ["section", "delete", Self.invisible], ["--list", Self.invisible + "?", "show"], ["row", "move", Self.invisible, "0:0"],
            ["section", "rename", Self.invisible, "x"],
        ] {
            let result = try cli.run(arguments)
            #expect(result.status != 0)
            #expect(!Self.hasRawInvisible(result.stderr), "\(arguments): \(result.stderr.debugDescription)")
            #expect(result.stderr.contains(Self.invisibleEscaped), "\(arguments): \(result.stderr)")
        }
        // In an edit session.
        let session = try cli.run(["edit"], input: "show\nsection delete '\(Self.invisible)?'\ncancel\n")
        #expect(!Self.hasRawInvisible(session.stdout + session.stderr))
        #expect(session.stdout.contains(Self.invisibleEscaped) && session.stderr.contains(Self.invisibleEscaped))
        // Completion offers no title that would print escaped, and does offer the emoji one.
        let offered = try cli.ok(["__complete", "sections"])
        #expect(!Self.hasRawInvisible(offered), "\(offered.debugDescription)")
        // JSON keeps the text exact: valid JSON, the same scalars.
        let json = try cli.snapshot()
        let sections = try #require(json["sections"] as? [[String: Any]])
        #expect(sections.first?["title"] as? String == Self.invisible + "!")
        #expect((sections.first?["rows"] as? [[String: Any]])?.compactMap { $0["value"] as? String } == [Self.invisible])
    }

    @Test func watchEscapesTheListsName() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["list", "add", Self.invisible])
        let watch = try cli.launch(["--list", Self.invisible, "watch"])
        #expect(try waitUntil { try WatchTests.outputLines(watch).count == 1 || !watch.process.isRunning })
        try cli.ok(["--list", Self.invisible, "section", "add", Self.invisible])
        try cli.ok(["list", "delete", Self.invisible, "--force"])
        let result = try watch.finish()
        #expect(result.status == 0)
        #expect(result.lines.count == 3 && result.lines.allSatisfy { $0.contains(Self.invisibleEscaped) }, "\(result.lines)")
        #expect(!Self.hasRawInvisible(result.stdout), "\(result.stdout.debugDescription)")
    }

    @Test func wideLabelsAlignByDisplayCells() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "プロフィール"])
        let fields = [("名前", "山田 太郎"), ("ID", "42"), ("メールアドレス", "taro@example.com"), ("Cafe\u{301}", "oui"), ("年齢", nil)]
        for (label, value) in fields {
            try cli.ok(["row", "add", "0", label, "--kind", "field"] + (value.map { ["--value", $0] } ?? []))
        }
        let lines = try cli.ok(["show"]).split(separator: "\n").map(String.init)
        var columns: [Int] = []
        for (label, value) in fields {
            let line = try #require(lines.first { $0.contains(label) })
            let prefix = try #require(line.range(of: "  " + (value ?? "-") + "  #")).lowerBound
            columns.append(cells(String(line[..<prefix])))
        }
        // Every value starts in the same terminal column.
        #expect(Set(columns).count == 1, "\(columns)\n\(lines.joined(separator: "\n"))")
        #expect(lines.contains("  0:0  名前            山田 太郎  #1"))
    }

    /// Display cells, counted independently of the code under test: CJK and kana 2, combining
    /// marks 0, the rest 1.
    func cells(_ text: String) -> Int {
        text.unicodeScalars.reduce(0) { total, scalar in
            switch scalar.value {
            case 0x0300...0x036F: return total
            case 0x3000...0x30FF, 0x4E00...0x9FFF, 0xFF00...0xFF60: return total + 2
            default: return total + 1
            }
        }
    }

    @Test func jsonWritesUnicodeAsIs() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let output = try cli.ok(["--json", "section", "add", "名前 😀"])
        #expect(output.contains("\"id\":1"))
        let show = try cli.ok(["--json", "show"])
        #expect(show.contains("\"title\":\"名前 😀\""))
        #expect(!show.contains("\\u"))
    }

    @Test func colourAtATerminalOnlyWithoutNoColorAndNotDumb() throws {
        let cli = try Sectionctl()
        try cli.seed()
        func show(_ environment: [String: String]) throws -> String {
            let terminal = try PseudoTerminal(["--db", cli.databasePath, "show"], environment: Sectionctl.environment(environment))
            #expect(terminal.finish() == 0)
            return terminal.transcript
        }
        let coloured = try show(["TERM": "xterm-256color"])
        #expect(coloured.contains("\u{1B}[1mTo do\u{1B}[0m"))
        for environment in [["TERM": "xterm-256color", "NO_COLOR": "1"], ["TERM": "xterm-256color", "NO_COLOR": ""], ["TERM": "dumb"]] {
            let plain = try show(environment)
            #expect(plain.contains("[0] To do  #1"), "\(environment)")
            #expect(!plain.contains("\u{1B}"), "\(environment)")
        }
        // Not a terminal: no colour whatever TERM says.
        #expect(!(try cli.run(["show"], environment: ["TERM": "xterm-256color"]).stdout.contains("\u{1B}")))
    }

    @Test func colourAtATerminalStillEscapesUserText() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", Self.hostile])
        let terminal = try PseudoTerminal(["--db", cli.databasePath, "show"], environment: Sectionctl.environment(["TERM": "xterm"]))
        #expect(terminal.finish() == 0)
        // Only the listing's own SGR sequences: ESC [ digits/semicolons m.
        let transcript = terminal.transcript
        let sequences = transcript.components(separatedBy: "\u{1B}").dropFirst()
        #expect(!sequences.isEmpty)
        for sequence in sequences {
            let code = sequence.prefix { $0 != "m" }
            #expect(code.hasPrefix("[") && code.dropFirst().allSatisfy { $0.isNumber || $0 == ";" }, "\(sequence.prefix(10))")
        }
        #expect(!transcript.contains("\u{7}"))
        #expect(transcript.contains(#"\e]0;pwned"#))
    }
}
