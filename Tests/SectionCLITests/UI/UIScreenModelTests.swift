import Foundation
import Repository
import Testing

@testable import CommandLineSupport
@testable import SectionCLI

/// The full-screen mode without a terminal: what `ListBrowser` draws for a list, a cursor and a
/// held row, where a carried row lands (against a plain model of §13's slots), the line layout,
/// the key decoder and the cutting of lines to the screen's width.
@Suite struct UIScreenModelTests {
    /// A store in a temporary directory, removed with the value.
    final class Fixture {
        let directory: URL
        let store: SectionStore
        /// The list the browser shows, `default`.
        var list: ListHandle { store.list(SectionStore.defaultList) }

        init() throws {
            directory = FileManager.default.temporaryDirectory.appendingPathComponent("sectionctl-ui-\(UUID().uuidString)")
            try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
            store = try SectionStore(path: directory.appendingPathComponent("test.db").path, create: true)
        }

        deinit { try? FileManager.default.removeItem(at: directory) }

        /// Sections with these row counts; rows titled "r<section>.<row>".
        func make(_ counts: [Int]) throws {
            for (section, count) in counts.enumerated() {
                try store.list("default").apply(.addSection(title: "S\(section)"))
                for row in 0..<count {
                    try store.list("default").apply(.addRow(.text("r\(section).\(row)"), to: .init(section: .index(section), index: .end)))
                }
            }
        }

        /// Each section's row titles.
        func titles() throws -> [[String]] {
            try store.list("default").snapshot().sections.map { $0.rows.map(\.title) }
        }
    }

    /// SplitMix64, so a failing seed can be run again.
    struct Generator: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    func plainLines(_ browser: ListBrowser) throws -> [String] {
        try browser.frame().map(\.plain)
    }

    @Test func browsingShowsHeadersWithCountsAndTheCursorOnTheFirstRow() throws {
        let fixture = try Fixture()
        try fixture.make([3, 0])
        let browser = try ListBrowser(list: fixture.list, pageHeight: 10)
        let lines = try plainLines(browser)
        #expect(lines.count == 12, "title, ten lines of list, status")
        #expect(lines[1] == "[0] S0  (3 rows)  #1")
        #expect(lines[2] == "> 0:0  r0.0  #1")
        #expect(lines[3] == "  0:1  r0.1  #2")
        #expect(lines[5] == "")
        #expect(lines[6] == "[1] S1  (0 rows)  #2")
        #expect(!lines.contains { $0.contains("No Data") }, "no footer while browsing")
    }

    @Test func reorderModeShowsTheHeldRowAndTheSlotItWouldLandIn() throws {
        let fixture = try Fixture()
        try fixture.make([3, 0])
        let browser = try ListBrowser(list: fixture.list, pageHeight: 10)
        _ = try browser.handle(.character("e"))
        var lines = try plainLines(browser)
        #expect(lines[7] == "       (No Data)", "the empty section's footer: \(lines)")
        _ = try browser.handle(.space)
        lines = try plainLines(browser)
        #expect(lines[2] == "> 0:0  r0.0  #1  [held: ↑↓ carry, space drops]")
        for _ in 0..<3 { _ = try browser.handle(.down) }
        lines = try plainLines(browser)
        #expect(lines[2] == "  0:0  r0.0  #1  [moving]")
        #expect(lines[6] == "[1] S1  (0 rows)  #2")
        #expect(lines[7] == "> 1:0  r0.0  #1  [drop here]")
        #expect(lines[8] == "       (No Data)", "the footer stays until the row lands")
        _ = try browser.handle(.space)
        lines = try plainLines(browser)
        #expect(lines[5] == "[1] S1  (1 row)  #2" && lines[6] == "> 1:0  r0.0  #1", "\(lines)")
        #expect(!lines.contains { $0.contains("No Data") })
        // Nothing is written until s.
        #expect(try fixture.titles() == [["r0.0", "r0.1", "r0.2"], []])
        _ = try browser.handle(.character("s"))
        #expect(try fixture.titles() == [["r0.1", "r0.2"], ["r0.0"]])
        #expect(!browser.isReordering)
    }

    @Test func anEmptySectionShowsItsOwnEmptyTextInReorderMode() throws {
        let fixture = try Fixture()
        try fixture.make([1, 0])
        try fixture.list.apply(.setEmptyText(.index(1), "Nothing done yet"))
        let browser = try ListBrowser(list: fixture.list, pageHeight: 8)
        #expect(try !plainLines(browser).contains { $0.contains("Nothing done yet") })
        _ = try browser.handle(.character("e"))
        #expect(try plainLines(browser).contains("       (Nothing done yet)"))
    }

    /// §13's slots as a plain list: every section has its other rows' count plus one slots, in
    /// order; Down and Up step along that list.
    func modelSlots(_ counts: [Int], origin: RowPath) -> [RowPath] {
        counts.enumerated().flatMap { section, count in
            (0...(count - (section == origin.section ? 1 : 0))).map { RowPath(section: section, row: $0) }
        }
    }

    @Test("carrying a row lands it where §13's slots say", arguments: [71, 72, 73, 74] as [UInt64])
    func carryingMatchesTheModel(seed: UInt64) throws {
        var generator = Generator(state: seed)
        for round in 0..<12 {
            let fixture = try Fixture()
            let counts = (0..<Int.random(in: 1...4, using: &generator)).map { _ in Int.random(in: 0...4, using: &generator) }
            guard counts.reduce(0, +) > 0 else { continue }
            try fixture.make(counts)
            var model = try fixture.titles()
            let browser = try ListBrowser(list: fixture.list, pageHeight: Int.random(in: 3...12, using: &generator))
            _ = try browser.handle(.character("e"))
            for _ in 0..<Int.random(in: 0..<6, using: &generator) { _ = try browser.handle(.down) }
            let origin = try #require(browser.cursor)
            _ = try browser.handle(.space)
            let slots = modelSlots(counts, origin: origin)
            var slot = try #require(slots.firstIndex(of: origin))
            for _ in 0..<Int.random(in: 0..<10, using: &generator) {
                let down = Bool.random(using: &generator)
                _ = try browser.handle(down ? .down : .up)
                slot = min(max(slot + (down ? 1 : -1), 0), slots.count - 1)
                #expect(browser.held?.slot == slots[slot], "seed \(seed), round \(round): counts \(counts)")
                // The cursor's line is on screen.
                let line = try #require(browser.cursorLine)
                #expect(line >= browser.top && line < browser.top + browser.pageHeight, "seed \(seed), round \(round)")
            }
            _ = try browser.handle(.space)
            let moved = model[origin.section].remove(at: origin.row)
            model[slots[slot].section].insert(moved, at: slots[slot].row)
            _ = try browser.handle(.character("s"))
            #expect(try fixture.titles() == model, "seed \(seed), round \(round): counts \(counts), from \(origin) to \(slots[slot])")
        }
    }

    @Test(
        "a list browsed through a window of its outline draws what the whole outline draws",
        arguments: [91, 92, 93, 98, 105, 106, 108, 133] as [UInt64])
    func aWindowedOutlineDrawsWhatTheWholeOneDraws(seed: UInt64) throws {
        var generator = Generator(state: seed)
        let keys: [Key] = [
            .down, .down, .down, .up, .up, .pageDown, .pageDown, .pageUp, .character("g"), .character("G"), .character("d"),
            .character("u"), .character("e"), .space, .character("s"), .escape,
        ]
        for round in 0..<3 {
            // Runs of empty sections among short ones: the cursor crosses many sections a key.
            let counts = (0..<Int.random(in: 40...120, using: &generator)).map { _ in
                Bool.random(using: &generator) ? 0 : Int.random(in: 1...3, using: &generator)
            }
            let whole = try Fixture()
            let windowed = try Fixture()
            try whole.make(counts)
            try windowed.make(counts)
            let pageHeight = Int.random(in: 3...8, using: &generator)
            let reference = try ListBrowser(list: whole.list, pageHeight: pageHeight)
            let browser = try ListBrowser(list: windowed.list, pageHeight: pageHeight, wholeOutlineLimit: 0)
            var pressed: [String] = []
            for _ in 0..<60 {
                // Now and then the terminal is resized instead of a key being pressed.
                if Int.random(in: 0..<12, using: &generator) == 0 {
                    let height = Int.random(in: 2...30, using: &generator)
                    pressed.append("resize to \(height)")
                    reference.pageHeight = height
                    browser.pageHeight = height
                } else {
                    let key = keys.randomElement(using: &generator)!
                    pressed.append("\(key)")
                    _ = try reference.handle(key)
                    _ = try browser.handle(key)
                }
                let context: Comment = "seed \(seed), round \(round), counts \(counts), page \(pageHeight), keys \(pressed)"
                // The title counts the rows only from the whole outline; every other line is the same.
                #expect(try plainLines(browser).dropFirst() == plainLines(reference).dropFirst(), context)
                #expect(browser.cursor == reference.cursor && browser.cursorID == reference.cursorID, context)
                // A window, browsing or reordering: never more than a few screens' worth of
                // sections, unless those happen to be the whole list.
                #expect(browser.outline.isWhole || browser.outline.sections.count <= 4 * (2 * browser.pageHeight + 8), context)
                #expect(browser.held == reference.held, context)
            }
        }
    }

    @Test func theTitleCountsTheRowsOnlyWhenTheWholeOutlineIsRead() throws {
        let fixture = try Fixture()
        try fixture.make([2, 0, 1] + Array(repeating: 1, count: 30))
        let whole = try ListBrowser(list: fixture.list, pageHeight: 2)
        #expect(try plainLines(whole)[0].contains("· 33 sections, 33 rows · BROWSE"))
        let windowed = try ListBrowser(list: fixture.list, pageHeight: 2, wholeOutlineLimit: 32)
        #expect(try plainLines(windowed)[0].contains("· 33 sections · BROWSE"), "more sections than the limit: a window")
        #expect(windowed.outline.sections.count < 33)
        _ = try windowed.handle(.character("e"))
        #expect(try plainLines(windowed)[0].contains("· 33 sections · REORDER"), "a session's draft is read a window at a time too")
        let atTheLimit = try ListBrowser(list: fixture.list, pageHeight: 2, wholeOutlineLimit: 33)
        #expect(try plainLines(atTheLimit)[0].contains("· 33 sections, 33 rows · BROWSE"))
        // Grown past the limit meanwhile: read whole once more, then a window at a time.
        for title in ["x", "y"] { try fixture.list.apply(.addSection(title: title)) }
        let now = try fixture.store.list(SectionStore.defaultList).outline()
        try atTheLimit.listChanged([ListUpdate(listID: now.listID, list: now.name, version: now.version, changeset: nil)])
        #expect(try plainLines(atTheLimit)[0].contains("· 35 sections, 33 rows · BROWSE"))
        _ = try atTheLimit.handle(.character("G"))
        #expect(!atTheLimit.outline.isWhole && atTheLimit.outline.sectionCount == 35)
        #expect(try plainLines(atTheLimit)[0].contains("· 35 sections · BROWSE"))
    }

    @Test func escapeCancelsUndoTakesBackAndDeleteKeepsTheCursorInPlace() throws {
        let fixture = try Fixture()
        try fixture.make([3, 1])
        let browser = try ListBrowser(list: fixture.list, pageHeight: 10)
        _ = try browser.handle(.character("j"))
        _ = try browser.handle(.character("d"))
        #expect(try fixture.titles() == [["r0.0", "r0.2"], ["r1.0"]])
        #expect(browser.cursor == RowPath(section: 0, row: 1) && browser.cursorID == 3, "the cursor is on the row after")
        _ = try browser.handle(.character("u"))
        #expect(try fixture.titles() == [["r0.0", "r0.1", "r0.2"], ["r1.0"]])
        #expect(browser.cursorID == 2, "the cursor is on the row that came back")
        #expect(try plainLines(browser).last == "Undid the change that deleted row 0:1.", "named by what it took back")

        _ = try browser.handle(.character("e"))
        _ = try browser.handle(.character("d"))
        _ = try browser.handle(.space)
        _ = try browser.handle(.down)
        _ = try browser.handle(.down)
        _ = try browser.handle(.space)
        #expect(browser.sessionEdits.count == 2)
        _ = try browser.handle(.character("u"))
        #expect(browser.sessionEdits.count == 1, "u takes back the session's last edit")
        let undone = try plainLines(browser).last ?? ""
        #expect(undone.hasPrefix("Undid the change that moved row 0:"), "\(undone)")
        #expect(try browser.handle(.character("q")) == .keepGoing, "q asks for s or Esc first")
        _ = try browser.handle(.escape)
        #expect(!browser.isReordering)
        #expect(try fixture.titles() == [["r0.0", "r0.1", "r0.2"], ["r1.0"]], "cancel wrote nothing")
        #expect(try browser.handle(.character("q")) == .quit)
    }

    @Test func aConflictOffersReloadWhichAppliesTheEditsAgain() throws {
        let fixture = try Fixture()
        try fixture.make([3, 0])
        let browser = try ListBrowser(list: fixture.list, pageHeight: 10)
        _ = try browser.handle(.character("e"))
        _ = try browser.handle(.space)
        _ = try browser.handle(.down)
        _ = try browser.handle(.space)
        try fixture.list.apply(.addRow(.text("other"), to: .init(section: .index(1), index: .end)))
        _ = try browser.handle(.character("s"))
        #expect(browser.prompt != nil)
        let asked = try plainLines(browser)
        #expect(asked.dropLast().last?.contains("Not saved") == true && asked.last?.contains("Esc: cancel them") == true, "\(asked)")
        _ = try browser.handle(.character("r"))
        #expect(browser.prompt == nil && browser.isReordering && browser.sessionEdits.count == 1)
        _ = try browser.handle(.character("s"))
        #expect(try fixture.titles() == [["r0.1", "r0.0", "r0.2"], ["other"]])
    }

    @Test func aChangeElsewhereWhileCarryingKeepsTheScreenAndReloadDropsTheRowWhereItWasCarried() throws {
        let fixture = try Fixture()
        try fixture.make([4, 0])
        let browser = try ListBrowser(list: fixture.list, pageHeight: 10)
        _ = try browser.handle(.character("e"))
        _ = try browser.handle(.space)  // r0.0, carried below r0.1
        _ = try browser.handle(.down)
        let shown = try plainLines(browser)
        // The list changes: the draft can no longer be read, and the next key that reads it finds out.
        try fixture.list.apply(.addRow(.text("x"), to: .at(0, 0)))
        _ = try browser.handle(.down)
        #expect(browser.prompt != nil && browser.held != nil)
        let asked = try plainLines(browser)
        #expect(asked.count == shown.count, "the prompt's two lines take the list's last line")
        #expect(asked.dropFirst().dropLast(2) == shown.dropFirst().dropLast(2), "the list as it was shown stays on screen")
        #expect(asked.dropLast().last == "Not saved: the list changed since you began (now version 7).", "\(asked)")
        #expect(asked.last == "r: reload and apply your edits again · Esc: cancel them", "\(asked)")
        _ = try browser.handle(.down)
        #expect(browser.prompt != nil, "only r and Esc answer")
        _ = try browser.handle(.character("r"))
        #expect(browser.prompt == nil && browser.held == nil && browser.sessionEdits.count == 1)
        _ = try browser.handle(.character("s"))
        #expect(try fixture.titles() == [["x", "r0.1", "r0.0", "r0.2", "r0.3"], []], "r0.0 lands after r0.1, where it was carried")
    }

    /// Every key line, the fixed messages and the conflict prompt fit 80 columns, the narrowest
    /// terminal a user is expected to have, so no choice is cut off at the edge: browsing ends
    /// with `q quit`, the prompt with its `Esc` choice, whatever the version's number.
    @Test func theKeyLinesMessagesAndTheConflictPromptFitEightyColumns() throws {
        let fixture = try Fixture()
        try fixture.make([3, 0])
        let browser = try ListBrowser(list: fixture.list, pageHeight: 10)
        var statuses = [try #require(try plainLines(browser).last)]
        #expect(statuses[0].hasSuffix("? help · q quit"), "\(statuses[0])")
        for key in [Key.character("e"), .down, .character("x"), .space, .down, .space, .character("e"), .down] {
            _ = try browser.handle(key)
            statuses.append(try #require(try plainLines(browser).last))
        }
        let outline = try fixture.store.list(SectionStore.defaultList).outline()
        try browser.listChanged([ListUpdate(listID: outline.listID, list: outline.name, version: 9_999_999_999, changeset: nil)])
        let prompt = Array(try plainLines(browser).suffix(2))
        #expect(
            prompt == [
                "Not saved: the list changed since you began (now version 9999999999).", "r: reload and apply your edits again · Esc: cancel them",
            ])
        for line in statuses + prompt {
            #expect(DisplayWidth.of(line) <= 80, "\(DisplayWidth.of(line)) columns: \(line)")
        }
        #expect(statuses.contains { $0.hasSuffix("s save · Esc cancel") }, "the reorder key line: \(statuses)")
        #expect(statuses.contains { $0.hasPrefix("↑↓ carry") }, "the carrying key line: \(statuses)")
    }

    @Test func aReportedChangeInReorderModeAsksAtOnceAndEscCancels() throws {
        let fixture = try Fixture()
        try fixture.make([3, 0])
        let browser = try ListBrowser(list: fixture.list, pageHeight: 10)
        _ = try browser.handle(.character("e"))
        _ = try browser.handle(.space)
        _ = try browser.handle(.down)
        _ = try browser.handle(.space)
        try fixture.list.apply(.addRow(.text("other"), to: .at(1, 0)))
        let now = try fixture.store.list(SectionStore.defaultList).outline()
        try browser.listChanged([ListUpdate(listID: now.listID, list: now.name, version: now.version, changeset: nil)])
        #expect(browser.prompt == .conflict(currentVersion: now.version))
        #expect(try plainLines(browser).dropLast().last?.contains("Not saved") == true)
        _ = try browser.handle(.escape)
        #expect(browser.prompt == nil && !browser.isReordering)
        #expect(try fixture.titles() == [["r0.0", "r0.1", "r0.2"], ["other"]], "nothing of the session was written")
        #expect(try plainLines(browser).contains { $0.contains("other") }, "the screen shows the list as it is now")
    }

    @Test func reloadPlacesACarriedRowByItsNeighbourAndCountsTheEditsLost() throws {
        let fixture = try Fixture()
        try fixture.make([4, 0])
        let ids = try fixture.list.snapshot().sections[0].rows.map(\.id)
        let browser = try ListBrowser(list: fixture.list, pageHeight: 10)
        _ = try browser.handle(.character("e"))
        _ = try browser.handle(.space)  // r0.0, carried below r0.1
        _ = try browser.handle(.down)
        _ = try browser.handle(.space)
        _ = try browser.handle(.character("G"))
        _ = try browser.handle(.character("d"))  // r0.3
        // Meanwhile: a row at the top, r0.1 moved to the end, r0.3 deleted.
        try fixture.list.apply(.addRow(.text("x"), to: .at(0, 0)))
        try fixture.list.apply(.moveRow(.id(ids[1]), to: .at(0, 3)))
        try fixture.list.apply(.deleteRow(.id(ids[3])))
        _ = try browser.handle(.character("s"))
        #expect(browser.prompt != nil)
        _ = try browser.handle(.character("r"))
        #expect(browser.sessionEdits == [.moveRow(.id(ids[0]), to: .after(ids[1]))])
        #expect(browser.message?.contains("with 1 edit applied again; 1 no longer applied") == true, "\(browser.message ?? "")")
        _ = try browser.handle(.character("s"))
        #expect(try fixture.titles() == [["x", "r0.2", "r0.1", "r0.0"], []], "r0.0 follows r0.1, not its old index")
    }

    @Test func aMillionRowListIsReadAWindowAtATime() throws {
        // Not a timing: the layout places any line from the row counts alone.
        let layout = ScreenLayout(rowCounts: [1_000_000, 0, 5], isEditing: true, slot: RowPath(section: 1, row: 0))
        #expect(
            layout.lineCount == (1 + 1_000_000) + (1 + 1 + 1 + 1) + (1 + 1 + 5), "header and rows; blank, header, slot, footer; blank, header, rows")
        #expect(layout.line(500_001) == .row(RowPath(section: 0, row: 500_000)))
        #expect(layout.line(of: RowPath(section: 0, row: 999_999)) == 1_000_000)
        #expect(layout.line(1_000_001) == .blank)
        #expect(layout.line(1_000_002) == .header(section: 1))
        #expect(layout.line(1_000_003) == .slot(section: 1))
        #expect(layout.line(1_000_004) == .footer(section: 1))
        #expect(layout.path(atFlatIndex: 1_000_000) == RowPath(section: 2, row: 0), "empty sections are skipped")
    }

    @Test("every line of a layout maps back to itself", arguments: [81, 82] as [UInt64])
    func layoutLinesRoundTrip(seed: UInt64) throws {
        var generator = Generator(state: seed)
        for _ in 0..<50 {
            let counts = (0..<Int.random(in: 1...5, using: &generator)).map { _ in Int.random(in: 0...5, using: &generator) }
            let section = Int.random(in: 0..<counts.count, using: &generator)
            let localSlot =
                Bool.random(using: &generator) ? RowPath(section: section, row: Int.random(in: 0...counts[section], using: &generator)) : nil
            let first = Bool.random(using: &generator) ? 0 : Int.random(in: 1...5, using: &generator)
            let slot = localSlot.map { RowPath(section: first + $0.section, row: $0.row) }
            let layout = ScreenLayout(rowCounts: counts, firstSection: first, isEditing: Bool.random(using: &generator), slot: slot)
            // A window from a later section starts at that section's blank line.
            #expect(layout.line(0) == (first > 0 ? .blank : .header(section: 0)))
            #expect(layout.sections == first..<(first + counts.count))
            var rows = 0
            for index in 0..<layout.lineCount {
                switch layout.line(index) {
                case .row(let path):
                    #expect(layout.line(of: path) == index, "\(counts) \(String(describing: slot))")
                    #expect(layout.path(atFlatIndex: layout.flatIndex(of: path)) == path)
                    rows += 1
                case .header(let section):
                    #expect(layout.headerLine(of: section) == index)
                    #expect(layout.section(ofLine: index) == section)
                case .slot:
                    #expect(layout.slotLine == index)
                default:
                    break
                }
            }
            #expect(rows == counts.reduce(0, +))
        }
    }

    @Test func keysFromTheBytesATerminalSends() {
        var decoder = KeyDecoder()
        #expect(decoder.feed(Array("jk q".utf8)) == [.character("j"), .character("k"), .space, .character("q")])
        #expect(decoder.feed([0x1B, 0x5B, 0x41, 0x1B, 0x5B, 0x42, 0x1B, 0x4F, 0x41]) == [.up, .down, .up])
        #expect(decoder.feed(Array("\u{1B}[5~\u{1B}[6~\u{1B}[H\u{1B}[4~".utf8)) == [.pageUp, .pageDown, .home, .end])
        // A sequence split across reads waits for its end; a lone ESC is Escape once input pauses.
        #expect(decoder.feed([0x1B, 0x5B]) == [])
        #expect(decoder.feed([0x42]) == [.down])
        #expect(decoder.feed([0x1B]) == [])
        #expect(decoder.hasPending)
        #expect(decoder.flush() == [.escape])
        #expect(decoder.feed([0x1B, UInt8(ascii: "s")]) == [.escape, .character("s")])
        #expect(decoder.feed([0x03, 0x0C, 0x0D]) == [.interrupt, .redraw, .enter])
        #expect(decoder.feed(Array("é名".utf8)) == [.character("é"), .character("名")])
        #expect(decoder.feed(Array("\u{1B}[1;5A".utf8)) == [.up], "a modified arrow is the arrow")
    }

    @Test func linesAreCutToTheScreenByDisplayWidthAndColourOnlyWhenAllowed() {
        let line = ScreenText([.init("名前", .yellow), .init("  山田")])
        #expect(line.rendered(width: 5, style: .plain) == "名前 ", "a wide character that does not fit leaves a space")
        #expect(line.rendered(width: 20, style: .plain) == "名前  山田")
        #expect(!line.rendered(width: 20, style: .plain).contains("\u{1B}"))
        #expect(line.rendered(width: 20, style: Style(isEnabled: true)).contains("\u{1B}[33m"))
        var cursor = ScreenText([.init("> 0:0  a")])
        cursor.highlight(.inverse)
        #expect(cursor.rendered(width: 12, style: .plain) == "> 0:0  a", "no bar without colour")
        #expect(cursor.rendered(width: 12, style: Style(isEnabled: true)).hasSuffix("    \u{1B}[0m"), "the bar reaches the last column")
        #expect(ListBrowser.count(1_000_000, "row") == "1,000,000 rows" && ListBrowser.count(1, "row") == "1 row")
    }
}
