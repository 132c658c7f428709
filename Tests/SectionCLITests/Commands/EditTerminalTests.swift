import Foundation
import Testing

/// `edit` at a terminal, through a pseudo-terminal: prompt, editing view, errors that keep the
/// session, Ctrl-D, save, and a conflict on save or on an edit.
@Suite struct EditTerminalTests {
    func start(_ cli: Sectionctl, _ extra: [String: String] = [:]) throws -> PseudoTerminal {
        try PseudoTerminal(
            ["--db", cli.databasePath, "edit"], environment: Sectionctl.environment(["TERM": "dumb"].merging(extra) { $1 }))
    }

    @Test func promptsShowsTheEditingViewAndSaves() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let terminal = try start(cli)
        #expect(terminal.waitFor("edit default> "))
        #expect(terminal.transcript.contains("[1] Done  #2\r\n       (No Data)\r\n"))
        terminal.type("row move 0:1 1:0\n")
        #expect(terminal.waitFor("edit default*> "))
        // The editing view after the change: the row is in the once-empty section.
        #expect(terminal.transcript.contains("(editing version 5, 1 change not saved)"))
        #expect(terminal.transcript.contains("[1] Done  #2\r\n  1:0  Call Mom  #2\r\n"))
        terminal.type("changes\n")
        #expect(terminal.waitFor("move rows: 0:1 → 1:0"))
        terminal.type("save\n")
        #expect(terminal.finish() == 0)
        #expect(terminal.transcript.contains("Saved 1 change: moved row 0:1 to 1:0; list \"default\" is at version 6."))
        #expect(try cli.orderedOutline() == [["To do", "Buy milk", "Write report"], ["Done", "Call Mom"]])
    }

    @Test func errorsKeepTheSession() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let terminal = try start(cli)
        #expect(terminal.waitFor("edit default> "))
        terminal.type("row move 0:9 1:0\n")
        #expect(terminal.waitFor("error: row index 9 is out of range for section 0 (valid: 0…2)"))
        terminal.type("row frob\n")
        #expect(terminal.waitFor("error: unknown row command \"frob\""))
        #expect(terminal.waitFor("hint: type row --help"))
        terminal.type("section add 'Unclosed\n")
        #expect(terminal.waitFor("error: a single quote"))
        terminal.type("section add Kept\n")
        #expect(terminal.waitFor("[2] Kept  #-1"))
        terminal.type("help\n")
        #expect(terminal.waitFor("cancel  "))
        terminal.type("save\n")
        #expect(terminal.finish() == 0)
        #expect(try cli.orderedOutline().map(\.first) == ["To do", "Done", "Kept"])
    }

    @Test func errorsAtTheTerminalEscapeUserText() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let terminal = try start(cli)
        #expect(terminal.waitFor("edit default> "))
        terminal.type("section delete '\u{1B}]0;pwned\u{7}\u{1B}[2J'\n")
        #expect(terminal.waitFor("error: no section titled \"\\e]0;pwned\\u{7}\\e[2J\""))
        terminal.type("cancel\n")
        #expect(terminal.finish() == 0)
        // TERM=dumb: no colour, so no escape character at all (the terminal echoes ESC as ^[).
        #expect(!terminal.transcript.contains("\u{1B}"))
        #expect(!terminal.transcript.contains("\u{7}"))
    }

    @Test func controlDDropsTheChangesAndSaysHowMany() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let terminal = try start(cli)
        #expect(terminal.waitFor("edit default> "))
        terminal.type("row delete 0:0\n")
        #expect(terminal.waitFor("edit default*> "))
        terminal.type("section add Gone\n")
        #expect(terminal.waitFor("edit default*> ", count: 2))
        terminal.type("\u{4}")
        #expect(terminal.finish() == 0)
        #expect(terminal.transcript.contains("Cancelled; 2 changes dropped, nothing was written."))
        #expect(try cli.snapshot()["version"] as? Int == 5)
    }

    @Test func cancelDropsTheChanges() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let terminal = try start(cli)
        #expect(terminal.waitFor("edit default> "))
        terminal.type("row delete 0:0\n")
        #expect(terminal.waitFor("edit default*> "))
        terminal.type("cancel\n")
        #expect(terminal.finish() == 0)
        #expect(terminal.transcript.contains("Cancelled; 1 change dropped, nothing was written."))
        #expect(try cli.snapshot()["version"] as? Int == 5)
    }

    @Test func aConflictOnSaveEndsTheSessionWith75() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let terminal = try start(cli)
        #expect(terminal.waitFor("edit default> "))
        terminal.type("row delete 0:0\n")
        #expect(terminal.waitFor("edit default*> "))
        try cli.ok(["section", "add", "Meanwhile"])
        terminal.type("save\n")
        #expect(terminal.finish() == 75)
        #expect(terminal.transcript.contains("was changed by someone else since this edit session began"))
        #expect(try cli.orderedOutline() == [["To do", "Buy milk", "Call Mom", "Write report"], ["Done"], ["Meanwhile"]])
    }

    @Test func anEditAfterAChangeElsewhereEndsTheSessionWith75() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let terminal = try start(cli)
        #expect(terminal.waitFor("edit default> "))
        terminal.type("row delete 0:0\n")
        #expect(terminal.waitFor("edit default*> "))
        try cli.ok(["section", "add", "Meanwhile"])
        // The draft's rows are the list's at version 5, which it no longer is: no edit can go on.
        terminal.type("row move 0:0 1:0\n")
        #expect(terminal.finish() == 75)
        #expect(terminal.transcript.contains("was changed by someone else since this edit session began (version 5, now 6)"))
        #expect(try cli.orderedOutline() == [["To do", "Buy milk", "Call Mom", "Write report"], ["Done"], ["Meanwhile"]])
    }

    @Test func aChangeShowsTheRowsAroundItAndShowShowsAll() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let script = (0..<30).map { "row add 0 'row \($0)'" }.joined(separator: "\n") + "\nsave\n"
        #expect(try cli.run(["edit"], input: script).status == 0)
        let terminal = try start(cli)
        #expect(terminal.waitFor("edit default> "))
        // At the start: the top of the list, and how much is left out.
        #expect(terminal.transcript.contains("  0:19  row 16  #20\r\n  …\r\n"))
        #expect(terminal.transcript.contains("(20 of 33 rows shown; type show for the whole list)"))
        #expect(!terminal.transcript.contains("row 17"))
        var mark = terminal.transcript.endIndex
        terminal.type("row move 0:25 1:0\n")
        #expect(terminal.waitFor("edit default*> "))
        let afterMove = String(terminal.transcript[mark...])
        // Around the old place, two rows on either side, then the row in its new section.
        #expect(afterMove.contains("[0] To do  #1\r\n  …\r\n  0:23  row 20  #24\r\n  0:24  row 21  #25\r\n  0:25  row 23  #27\r\n"))
        #expect(afterMove.contains("[1] Done  #2\r\n  1:0   row 22  #26\r\n"))
        #expect(!afterMove.contains("row 5 "))
        mark = terminal.transcript.endIndex
        terminal.type("row delete 1:0\n")
        #expect(terminal.waitFor("edit default*> ", count: 2))
        // The emptied section shows its footer.
        #expect(String(terminal.transcript[mark...]).contains("[1] Done  #2\r\n       (No Data)\r\n"))
        mark = terminal.transcript.endIndex
        terminal.type("show\n")
        #expect(terminal.waitFor("edit default*> ", count: 3))
        let shown = String(terminal.transcript[mark...])
        #expect(shown.contains("  0:5   row 2  #6\r\n") && shown.contains("  0:31  row 29  #33\r\n"))
        terminal.type("cancel\n")
        #expect(terminal.finish() == 0)
    }
}
