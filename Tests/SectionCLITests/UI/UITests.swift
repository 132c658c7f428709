import Foundation
import TestSupport
import Testing

@testable import CommandLineSupport
@testable import SectionCLI

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `sectionctl ui` end to end, in a real terminal: the built binary runs inside tmux, the tests
/// press keys with `send-keys` and read the screen with `capture-pane`. Each waits for the screen
/// it expects (polling), never for a fixed time. Without tmux they are skipped, saying so.
@Suite(.needs(.tmux))
struct UITests {
    /// A database with seed 003's list: "section1" with Cell000, Cell001, Cell002, and an empty
    /// "section2"; and a tmux window to run `ui` in.
    struct Screen {
        let cli: Sectionctl
        let tmux: Tmux

        init(_ backend: Backend = .sqlite, columns: Int = 100, environment: [String: String] = [:], seed: Bool = true) throws {
            cli = try Sectionctl(backend)
            try cli.initialize()
            if seed {
                try cli.ok(["section", "add", "section1"])
                try cli.ok(["section", "add", "section2"])
                for index in 0..<3 { try cli.ok(["row", "add", "0", "Cell00\(index)"]) }
            }
            tmux = try Tmux(columns: columns, environment: environment)
        }

        /// Starts `sectionctl ui` and waits for its first screen.
        func open(_ extra: [String] = [], sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
            let words = [Sectionctl.binary.path, "--db", cli.databasePath] + extra + ["ui"]
            try tmux.start(words.map(ShellWords.quote).joined(separator: " "))
            // The title comes first and the key line last: with both, the first frame is whole.
            return try #require(
                tmux.waitFor { $0.contains("BROWSE") && $0.contains("↑↓ move") }, "ui did not show its screen: \(tmux.shown)",
                sourceLocation: sourceLocation)
        }

        /// Presses keys, then waits for the screen to satisfy `predicate`.
        @discardableResult
        func press(_ keys: String..., until predicate: (String) -> Bool, _ comment: Comment, sourceLocation: SourceLocation = #_sourceLocation)
            throws -> String
        {
            for key in keys { try tmux.press(key) }
            let screen = tmux.waitFor(predicate)
            return try #require(screen, "\(comment); the screen: \(tmux.shown)", sourceLocation: sourceLocation)
        }

        /// Quits (`q`) and waits for the shell to report the exit status.
        func quit(expecting status: Int = 0, sourceLocation: SourceLocation = #_sourceLocation) throws {
            try tmux.press("q")
            #expect(tmux.waitFor("ui exited \(status)") != nil, "ui did not exit \(status): \(tmux.shown)", sourceLocation: sourceLocation)
        }
    }

    /// A process under `parent` (at any depth) whose command name is `name`, from /proc.
    static func descendant(of parent: Int32, named name: String) -> Int32? {
        let children = (try? String(contentsOfFile: "/proc/\(parent)/task/\(parent)/children", encoding: .utf8)) ?? ""
        for child in children.split(separator: " ").compactMap({ Int32($0) }) {
            let command = (try? String(contentsOfFile: "/proc/\(child)/comm", encoding: .utf8)) ?? ""
            if command.trimmingCharacters(in: .whitespacesAndNewlines) == name { return child }
            if let found = descendant(of: child, named: name) { return found }
        }
        return nil
    }

    /// The lines of the screen.
    static func lines(_ screen: String) -> [String] {
        screen.split(separator: "\n", omittingEmptySubsequences: false).map(String.init)
    }

    /// The index of the first line containing `text`.
    static func line(_ screen: String, containing text: String) -> Int? {
        lines(screen).firstIndex { $0.contains(text) }
    }

    @Test(arguments: Backend.all) func seed003MovesCarryARowIntoTheEmptySectionAndIntoTheNextSection(backend: Backend) throws {
        let screen = try Screen(backend)
        let first = try screen.open()
        #expect(first.contains("[0] section1  (3 rows)") && first.contains("[1] section2  (0 rows)"), "headers show their row counts")
        #expect(first.contains("> 0:0  Cell000"), "the cursor starts on the first row")
        #expect(!first.contains("No Data"), "browsing shows no footer")

        try screen.press("e", until: { $0.contains("REORDER") && $0.contains("(No Data)") }, "reorder mode shows the empty section's footer")
        try screen.press("Space", until: { $0.contains("[held") }, "space picks the row up")
        // From 0:0 of a three-row section, three Downs reach the empty section's one slot.
        let carried = try screen.press("Down", "Down", "Down", until: { $0.contains("> 1:0  Cell000") }, "the slot reached section2")
        let header = try #require(Self.line(carried, containing: "[1] section2"))
        let slot = try #require(Self.line(carried, containing: "[drop here]"))
        #expect(slot == header + 1, "the landing slot is shown under section2's header: \(carried)")
        #expect(carried.contains("0:0  Cell000  #1  [moving]"), "the held row is marked where it is")
        try screen.press("Space", until: { $0.contains("(1 row)") && !$0.contains("No Data") }, "dropped into section2")

        // Cell002 (now 0:1): one Down is its own section's last slot, the next crosses into
        // section2's first slot (before Cell000), the next after Cell000.
        try screen.press("Up", until: { $0.contains("> 0:1  Cell002") }, "the cursor moves to Cell002")
        try screen.press("Space", until: { $0.contains("[held") }, "picked up Cell002")
        try screen.press("Down", until: { $0.contains("> 1:0  Cell002") }, "into section2's first slot")
        try screen.press("Down", until: { $0.contains("> 1:1  Cell002") }, "after Cell000")
        try screen.press("Space", "s", until: { $0.contains("Saved 2 changes") && $0.contains("BROWSE") }, "saved")
        #expect(try screen.cli.orderedOutline() == [["section1", "Cell001"], ["section2", "Cell000", "Cell002"]])
        try screen.quit()
    }

    @Test func upCarriesARowIntoThePreviousSectionsLastSlot() throws {
        let screen = try Screen()
        try screen.cli.ok(["row", "move", "0:2", "1:0"])
        _ = try screen.open()
        try screen.press("e", until: { $0.contains("REORDER") }, "reorder mode")
        try screen.press("G", "Space", until: { $0.contains("[held") }, "picked up the last row")
        try screen.press("Up", until: { $0.contains("> 0:2  Cell002") }, "Up crosses into section1's last slot, after Cell001")
        try screen.press("Up", until: { $0.contains("> 0:1  Cell002") }, "and on up, one slot at a time")
        try screen.press("s", until: { $0.contains("Saved 1 change") }, "s drops the held row and saves")
        #expect(try screen.cli.orderedOutline() == [["section1", "Cell000", "Cell002", "Cell001"], ["section2"]])
        try screen.quit()
    }

    @Test func escapeCancelsAndTheListIsAsItWas() throws {
        let screen = try Screen()
        _ = try screen.open()
        try screen.press("e", "Space", "Down", "Down", "Down", "Space", until: { $0.contains("(1 row)") }, "moved into section2")
        try screen.press(
            "d", until: { $0.contains("Deleted") && $0.contains("section1  (2 rows)") && $0.contains("(0 rows)") }, "deleted in the session")
        try screen.press("q", until: { $0.contains("s saves, Esc cancels") }, "q asks for s or Esc first")
        let back = try screen.press("Escape", until: { $0.contains("Cancelled: 2 edits dropped") }, "Esc cancels")
        #expect(back.contains("BROWSE") && back.contains("[0] section1  (3 rows)") && back.contains("(0 rows)") && !back.contains("No Data"))
        #expect(try screen.cli.orderedOutline() == [["section1", "Cell000", "Cell001", "Cell002"], ["section2"]], "nothing was written")
        try screen.quit()
    }

    @Test func undoInReorderModeTakesBackTheSessionsLastEdit() throws {
        let screen = try Screen()
        _ = try screen.open()
        try screen.press("e", "Space", "Down", "Space", until: { $0.contains("> 0:1  Cell000") && $0.contains("1 edit") }, "moved down one")
        try screen.press("u", until: { $0.contains("> 0:0  Cell000") && $0.contains("0 edits") }, "u took the move back")
        try screen.press("s", until: { $0.contains("BROWSE") }, "saved nothing")
        #expect(try screen.cli.orderedOutline() == [["section1", "Cell000", "Cell001", "Cell002"], ["section2"]])
        try screen.quit()
    }

    @Test(arguments: Backend.all) func deleteThenUndoBringsTheRowBack(backend: Backend) throws {
        let screen = try Screen(backend)
        _ = try screen.open()
        try screen.press("j", until: { $0.contains("> 0:1  Cell001") }, "j moves down")
        try screen.press(
            "d", until: { !$0.contains("0:1  Cell001") && $0.contains("> 0:1  Cell002") }, "d deleted the row; the cursor is on the next")
        #expect(try screen.cli.orderedOutline() == [["section1", "Cell000", "Cell002"], ["section2"]], "the delete is committed")
        try screen.press("u", until: { $0.contains("> 0:1  Cell001") }, "u brings it back, with the cursor on it")
        #expect(try screen.cli.orderedOutline() == [["section1", "Cell000", "Cell001", "Cell002"], ["section2"]])
        try screen.quit()
    }

    @Test(arguments: Backend.all) func anotherProcessesChangeAppearsAndTheCursorKeepsItsRow(backend: Backend) throws {
        let screen = try Screen(backend)
        _ = try screen.open()
        try screen.press("Down", until: { $0.contains("> 0:1  Cell001") }, "on Cell001")
        try screen.cli.ok(["row", "add", "0", "From elsewhere", "--at", "0"])
        let after = try #require(screen.tmux.waitFor("0:0  From elsewhere"), "the other process's row did not appear: \(screen.tmux.shown)")
        #expect(after.contains("> 0:2  Cell001"), "the cursor stayed on Cell001: \(after)")
        try screen.quit()
    }

    @Test(arguments: Backend.all) func aSaveRefusedByAConflictSaysSoAndReloadsTheEdits(backend: Backend) throws {
        let screen = try Screen(backend)
        _ = try screen.open()
        try screen.press("e", "Space", "Down", "Space", until: { $0.contains("> 0:1  Cell000") }, "moved Cell000 down one")
        try screen.cli.ok(["row", "add", "1", "Late"])
        try screen.press("s", until: { $0.contains("Not saved: the list changed") }, "the conflict is reported")
        #expect(try screen.cli.orderedOutline() == [["section1", "Cell000", "Cell001", "Cell002"], ["section2", "Late"]], "nothing written")
        try screen.press("r", until: { $0.contains("Reloaded version") && $0.contains("Late") }, "r reloads with the edits applied again")
        try screen.press("s", until: { $0.contains("Saved 1 change") }, "saved on the fresh list")
        #expect(try screen.cli.orderedOutline() == [["section1", "Cell001", "Cell000", "Cell002"], ["section2", "Late"]])
        try screen.quit()
    }

    /// At 80 columns, a terminal's least, and at 100 nothing a user needs is cut at the edge:
    /// the key line keeps `q quit`, and the conflict prompt both its lines, `Esc` included.
    @Test(arguments: [80, 100]) func theKeyLineAndTheConflictPromptFitTheWidth(columns: Int) throws {
        let screen = try Screen(columns: columns)
        let first = try screen.open()
        #expect(Self.lines(first).contains { $0.hasPrefix("↑↓ move") && $0.hasSuffix("? help · q quit") }, "\(first)")
        try screen.press("e", "Space", "Down", "Space", until: { $0.contains("> 0:1  Cell000") }, "moved Cell000 down one")
        try screen.cli.ok(["row", "add", "1", "Late"])
        let asked = try screen.press("s", until: { $0.contains("Esc: cancel them") }, "the conflict prompt is whole")
        #expect(Self.lines(asked).contains { $0.hasPrefix("Not saved: the list changed since you began (now version ") && $0.hasSuffix(").") })
        #expect(Self.lines(asked).contains("r: reload and apply your edits again · Esc: cancel them"), "\(asked)")
        try screen.press("Escape", until: { $0.contains("BROWSE") && $0.contains("Cancelled: 1 edit dropped") }, "Esc cancels the edits")
        try screen.quit()
    }

    @Test func ctrlCRestoresTheTerminal() throws {
        let screen = try Screen()
        _ = try screen.open()
        #expect(try screen.tmux.isAlternateScreen())
        try screen.tmux.press("C-c")
        let shell = try #require(screen.tmux.waitFor("ui exited 0"), "Ctrl-C did not end ui: \(screen.tmux.shown)")
        #expect(shell.contains("ready$"), "the shell's prompt is back")
        #expect(try !screen.tmux.isAlternateScreen(), "the alternate screen is left")
        // The terminal is back in cooked mode: the shell echoes what is typed.
        try screen.tmux.type("echo typed-$((6*7))")
        try screen.tmux.press("Enter")
        #expect(screen.tmux.waitFor("typed-42") != nil)
    }

    @Test func ctrlCInReorderModeSaysTheEditsWereNotSaved() throws {
        let screen = try Screen()
        _ = try screen.open()
        try screen.press("e", "d", until: { $0.contains("1 edit") }, "one edit")
        try screen.tmux.press("C-c")
        let shell = try #require(screen.tmux.waitFor("ui exited 1"), "\(screen.tmux.shown)")
        #expect(shell.contains("unsaved edit was not saved"))
        #expect(try screen.cli.orderedOutline() == [["section1", "Cell000", "Cell001", "Cell002"], ["section2"]])
    }

    @Test func sigtermRestoresTheTerminal() throws {
        let screen = try Screen()
        _ = try screen.open()
        let shell = try screen.tmux.run(["display-message", "-p", "-t", "ui", "#{pane_pid}"]).trimmingCharacters(in: .whitespacesAndNewlines)
        let shellID = try #require(Int32(shell))
        let ui = try #require(Self.descendant(of: shellID, named: "sectionctl"), "ui's process not found")
        #expect(kill(ui, SIGTERM) == 0)
        #expect(screen.tmux.waitFor("ui exited 0") != nil, "\(screen.tmux.shown)")
        #expect(try !screen.tmux.isAlternateScreen())
    }

    @Test func aResizeRedrawsForTheNewSize() throws {
        let screen = try Screen()
        let before = try screen.open()
        #expect(Self.lines(before).firstIndex { $0.contains("q quit") } == 23, "the status line is the last of 24")
        try screen.tmux.run(["resize-window", "-t", "ui", "-x", "60", "-y", "10"])
        // Wait for the whole redraw, not just its first lines: a capture can land mid-drawing.
        #expect(
            screen.tmux.waitFor { Self.lines($0).firstIndex { $0.contains("↑↓ move") } == 9 && $0.contains("> 0:0  Cell000") } != nil,
            "no redraw at 10 rows: \(screen.tmux.shown)")
        try screen.quit()
    }

    @Test func noColorIsHonoured() throws {
        let coloured = try Screen()
        _ = try coloured.open()
        #expect(try coloured.tmux.screenWithAttributes().contains("\u{1B}["), "at a terminal the screen has colour")
        try coloured.quit()

        let plain = try Screen(environment: ["NO_COLOR": "1"])
        _ = try plain.open()
        let screen = try plain.tmux.screenWithAttributes()
        #expect(!screen.contains("\u{1B}["), "NO_COLOR: no colour or attribute at all: \(screen)")
        #expect(screen.contains("> 0:0  Cell000"), "the cursor is still marked")
        try plain.quit()
    }

    @Test func cjkTextIsAligned() throws {
        let screen = try Screen(seed: false)
        try screen.cli.ok(["section", "add", "プロフィール"])
        try screen.cli.ok(["row", "add", "0", "名前", "--kind", "field", "--value", "山田 太郎"])
        try screen.cli.ok(["row", "add", "0", "Age", "--kind", "field", "--value", "42"])
        try screen.cli.ok(["row", "add", "0", "メールアドレス", "--kind", "field", "--value", "taro@example.jp"])
        let shown = try screen.open()
        func valueColumn(_ value: String) throws -> Int {
            let line = try #require(Self.lines(shown).first { $0.contains(value) }, "\(value) not shown: \(shown)")
            let range = try #require(line.range(of: value))
            return DisplayWidth.of(String(line[..<range.lowerBound]))
        }
        let columns = try ["山田 太郎", "42", "taro@example.jp"].map(valueColumn)
        #expect(Set(columns).count == 1, "values start in one column: \(columns)\n\(shown)")
        try screen.quit()
    }

    @Test func controlCharactersAreEscaped() throws {
        let screen = try Screen(environment: ["NO_COLOR": "1"], seed: false)
        try screen.cli.ok(["section", "add", "Tricky\u{7}"])
        try screen.cli.ok(["row", "add", "0", "red\u{1B}[31mtext\u{1B}[2Jgone"])
        let shown = try screen.open()
        #expect(shown.contains("Tricky\\u{7}"), "\(shown)")
        #expect(shown.contains("red\\e[31mtext\\e[2Jgone"), "\(shown)")
        #expect(!(try screen.tmux.screenWithAttributes()).contains("\u{1B}[31m"), "no raw escape reached the terminal")
        try screen.quit()
    }

    @Test func invisibleCharactersAreEscaped() throws {
        let screen = try Screen(environment: ["NO_COLOR": "1"], seed: false)
        try screen.cli.ok(["section", "add", "Hidden\u{200B}space"])
        try screen.cli.ok(["row", "add", "0", "left\u{200E}mark\u{202E}txt\u{E0041}"])
        try screen.cli.ok(["row", "add", "0", "\u{1F469}\u{200D}\u{1F4BB} Dev"])
        let shown = try screen.open()
        #expect(shown.contains("Hidden\\u{200B}space"), "\(shown)")
        #expect(shown.contains("left\\u{200E}mark\\u{202E}txt\\u{E0041}"), "\(shown)")
        #expect(shown.contains("\u{1F469}\u{200D}\u{1F4BB} Dev"), "an emoji sequence displays as itself: \(shown)")
        try screen.quit()
    }

    /// `ESC [` and 19 digits or more overflowed the parameter's arithmetic, a trap; a sequence of
    /// thousands of bytes, or one cut short by malformed UTF-8, must not stop the keys after it.
    @Test func hostileEscapeSequencesAreIgnoredAndTheKeysAfterThemWork() throws {
        let screen = try Screen()
        _ = try screen.open()
        try screen.tmux.send(bytes: Array(("\u{1B}[" + String(repeating: "9", count: 19) + "~").utf8))
        try screen.tmux.send(bytes: Array(("\u{1B}[" + String(repeating: "1", count: 40) + ";" + String(repeating: "7", count: 4_000) + "A").utf8))
        try screen.tmux.send(bytes: [0x1B, 0x5B, 0x35, 0xFF, 0xC3, 0x1B, 0x5B, 0x3F, 0xF0, 0x9F])
        try screen.press("j", until: { $0.contains("> 0:1  Cell001") }, "j still moves the cursor")
        #expect(screen.tmux.shown.contains("BROWSE"))
        try screen.quit()
    }

    @Test func helpKeyShowsTheKeys() throws {
        let screen = try Screen()
        _ = try screen.open()
        try screen.press("?", until: { $0.contains("Keys") && $0.contains("pick up the row under the cursor") }, "? shows the help")
        try screen.press("x", until: { $0.contains("> 0:0  Cell000") }, "any key goes back")
        try screen.quit()
    }

    @Test func aLongListPagesAndJumps() throws {
        let screen = try Screen(seed: false)
        try screen.cli.ok(["section", "add", "Many"])
        for index in 0..<60 { try screen.cli.ok(["row", "add", "0", "Item \(index)"]) }
        _ = try screen.open()
        try screen.press("NPage", until: { !$0.contains("Item 0 ") && $0.contains("> 0:21") }, "PageDown pages")
        try screen.press("G", until: { $0.contains("> 0:59  Item 59") }, "G: the last row")
        try screen.press("g", until: { $0.contains("> 0:0   Item 0 ") && $0.contains("[0] Many  (60 rows)") }, "g: the first row, with its header")
        try screen.press("PPage", until: { $0.contains("> 0:0 ") }, "PageUp at the top stays")
        try screen.quit()
    }

}

/// What `sectionctl ui` does without a terminal, and its help: no tmux needed.
@Suite struct UIWithoutATerminalTests {
    @Test func fromAPipeUIExitsTwo() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let result = try cli.run(["ui"])
        #expect(result.status == 2)
        #expect(result.stderr.contains("ui needs a terminal"), "\(result.stderr)")
        #expect(result.stdout.isEmpty)
    }

    @Test func helpUIDescribesTheKeys() throws {
        let cli = try Sectionctl()
        let result = try cli.run(["help", "ui"], database: false)
        #expect(result.status == 0)
        #expect(result.stdout.contains("reorder mode") && result.stdout.contains("Esc"), "\(result.stdout)")
    }
}
