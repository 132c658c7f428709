import CommandLineSupport
import Repository

/// What the full-screen mode shows and does, without a terminal: the list (or, in reorder mode,
/// an edit session's draft) seen through a screen of `pageHeight` lines, a cursor on a row, a
/// row being carried, and what each key does to them. `UICommand` feeds it keys and list updates
/// and draws its `frame`; tests drive it the same way.
///
/// It reads only what is on screen: the outline (the sections' row counts, which place every
/// line; see `ScreenLayout`), one window of the rows on screen, and single rows by path or id.
/// It never reads the whole list. A list of more than `wholeOutlineLimit` sections is browsed
/// through a window of its outline: the sections around the cursor, read through the sections'
/// rank structure and read again as the cursor nears its edge, so that opening the list and every
/// key cost the same at a million sections as at ten.
final class ListBrowser {
    /// A row picked up in reorder mode, and the slot it would land in.
    struct Held: Equatable {
        /// The row's id.
        var id: RowID
        /// The row, as it was picked up.
        var row: Row
        /// Where it is in the draft.
        var origin: RowPath
        /// Where it would land: a section and its index there once dropped, among the section's
        /// other rows (`0...count`, one less than the count in its own section).
        var slot: RowPath
        /// The slot as a move's destination, named by the rows around it (or the section, when it
        /// has no other rows); `nil` while the slot is the row's own place. Read when the slot
        /// is set, so that a drop (and a reload after the list changed) needs no read of the
        /// draft.
        var destination: RowDestination? = nil
    }

    /// A question the screen waits for an answer to.
    enum Prompt: Equatable {
        /// The list changed since the session began (another process's change was reported, or a
        /// key or a save met it): the draft cannot be read or saved until it is reloaded.
        case conflict(currentVersion: ListVersion?)
    }

    /// What the caller does after a key.
    enum Outcome: Equatable {
        case keepGoing
        case quit
        /// Ctrl-C.
        case interrupted
    }

    /// The list browsed.
    let list: ListHandle
    var listName: String { list.name }
    /// The reorder mode's edit session, or nil while browsing.
    private(set) var session: EditSession?
    /// The session's edits as applied (none while browsing).
    var sessionEdits: [Edit] { session?.edits ?? [] }
    /// The sections read: the whole outline, or a window of it around the cursor.
    private(set) var outline: OutlineWindow
    private(set) var layout = ScreenLayout(rowCounts: [], isEditing: false)
    /// Up to how many sections a list's outline is read whole while browsing; a list of more is
    /// read a window at a time.
    let wholeOutlineLimit: Int
    /// Whether the outline was small enough to read whole when last read (a window is read
    /// first otherwise, since the list may hold millions of sections).
    private var readsWhole = false
    /// The row under the cursor, or nil when the list has no rows.
    private(set) var cursor: RowPath?
    /// The id of the row under the cursor.
    private(set) var cursorID: RowID?
    /// The first line of the list on screen.
    private(set) var top = 0
    private(set) var held: Held?
    private(set) var prompt: Prompt?
    /// A message for the status line, until the next key.
    private(set) var message: String?
    private(set) var showingHelp = false
    /// The list's lines as last drawn: what stays on screen under a conflict prompt, when the
    /// session's draft can no longer be read.
    private var drawnListLines: [ScreenText] = []
    /// How many lines of the list fit on screen.
    var pageHeight: Int {
        didSet {
            // A taller screen may reach past the window: read one around the cursor for it. A
            // failed read leaves the window as it was until the next key.
            try? keepWindowAroundCursor()
            ensureCursorVisible()
        }
    }

    /// The default `wholeOutlineLimit`: an outline this size reads in well under a millisecond.
    static let defaultWholeOutlineLimit = 2_000

    init(list: ListHandle, pageHeight: Int, wholeOutlineLimit: Int = ListBrowser.defaultWholeOutlineLimit) throws {
        self.list = list
        self.pageHeight = max(1, pageHeight)
        self.wholeOutlineLimit = wholeOutlineLimit
        outline = OutlineWindow(listID: ListID(rawValue: 0), name: list.name, version: 0, sectionCount: 0)
        try loadOutline(around: 0)
        try moveCursor(to: reachedPath(0))
    }

    var isReordering: Bool { session != nil }

    // MARK: - Reading the list or the draft

    /// How many sections the window reaches on each side of the cursor's: the screen's worth
    /// and more, so that the lines on screen are always inside it.
    private var windowReach: Int { 2 * pageHeight + 8 }

    /// A window of the outline of the session's draft, or else of the list.
    private func readOutline(from first: Int, limit: Int) throws -> OutlineWindow {
        if let session { return try session.outline(from: first, limit: limit) }
        return try list.outline(from: first, limit: limit)
    }

    /// Reads the outline (of the session's draft in reorder mode) again: whole when it has no
    /// more than `wholeOutlineLimit` sections, else the sections in `wanted` (moved back to end
    /// at the last section when there are fewer now). Keeps the line at the top of the
    /// screen where it was, when its section is still in the window.
    private func loadOutline(_ wanted: Range<Int>) throws {
        // The top line as a section and a line in it; nil when it is below every line read.
        let topSection = top < layout.lineCount ? layout.section(ofLine: top) : nil
        let anchor = topSection.map { (section: $0, offset: top - layout.firstLine(of: $0)) }
        let below = layout.lineCount > 0 && top >= layout.lineCount
        func readWhole() throws -> OutlineWindow {
            try session.map { OutlineWindow(try $0.outline) } ?? OutlineWindow(try list.outline())
        }
        if readsWhole {
            // Small when last read: read whole at once (it goes back to windows once it is not).
            outline = try readWhole()
        } else {
            do {
                outline = try readOutline(from: wanted.lowerBound, limit: wanted.count)
            } catch RepositoryError.sectionIndexOutOfRange(_, let valid?, _) {
                outline = try readOutline(from: max(0, valid.upperBound - wanted.count), limit: wanted.count)
            }
            if !outline.isWhole && outline.sectionCount <= wholeOutlineLimit { outline = try readWhole() }
        }
        readsWhole = outline.isWhole && outline.sectionCount <= wholeOutlineLimit
        rebuildLayout()
        if let anchor, layout.sections.contains(anchor.section) {
            top = layout.firstLine(of: anchor.section) + anchor.offset
        } else if below || anchor.map({ $0.section >= layout.sections.upperBound }) == true {
            // Below every line read: the cursor's line is above it, as it was.
            top = layout.lineCount + pageHeight
        } else {
            top = 0
        }
    }

    /// Reads the outline around `section`: `windowReach` sections on each side.
    private func loadOutline(around section: Int) throws {
        try loadOutline(max(0, section - windowReach)..<(max(0, section) + windowReach + 1))
    }

    /// Widens the window until the row at flat index `index` (counted in the window as it is)
    /// is inside it, or the window meets the list's end on that side; returns that index counted
    /// in the window it leaves. Past the list's rows the index is left outside them (the layout
    /// clamps it).
    private func reach(_ index: Int) throws -> Int {
        var index = index
        var grow = windowReach
        while true {
            if index < 0 && outline.first > 0 {
                let oldFirst = outline.first
                try loadOutline(max(0, oldFirst - grow)..<outline.end)
                guard layout.sections.contains(oldFirst) else { return index }
                index += layout.flatIndex(of: RowPath(section: oldFirst, row: 0))
            } else if index >= layout.rowCount && outline.end < outline.sectionCount {
                try loadOutline(outline.first..<(outline.end + grow))
            } else {
                return index
            }
            grow *= 2
        }
    }

    /// The row at flat index `index` of the window as it is (clamped to the list's rows), the
    /// window widened to reach it first. (The layout is read after `reach`, which replaces it.)
    private func reachedPath(_ index: Int) throws -> RowPath? {
        let reached = try reach(index)
        return layout.path(atFlatIndex: reached)
    }

    /// Reads a window around the cursor afresh when the cursor nears the window's edge (or the
    /// window grew large), keeping the screen as it is.
    private func keepWindowAroundCursor() throws {
        guard !outline.isWhole, let section = held?.slot.section ?? cursor?.section else { return }
        let margin = pageHeight + 2
        let nearStart = outline.first > 0 && section - outline.first < margin
        let nearEnd = outline.end < outline.sectionCount && outline.end - 1 - section < margin
        if nearStart || nearEnd || outline.sections.count > 4 * windowReach || !layout.sections.contains(section) {
            try loadOutline(around: section)
        }
    }

    private func row(at path: RowPath) throws -> Row {
        if let session { return try session.row(at: path).row }
        return try list.row(at: path).row
    }

    private func path(ofRow id: RowID) -> RowPath? {
        if let session { return try? session.path(ofRow: id) }
        return try? list.path(ofRow: id)
    }

    private func window(from start: RowPath, limit: Int) throws -> ListWindow {
        if let session { return try session.window(from: start, limit: limit) }
        return try list.window(from: start, limit: limit)
    }

    // MARK: - Lines and the cursor

    /// The slot line's place in the layout: before the row it would push down.
    private var slotPlace: RowPath? {
        guard let held, held.slot != held.origin else { return nil }
        let inOwnSection = held.slot.section == held.origin.section
        return RowPath(section: held.slot.section, row: inOwnSection && held.slot.row >= held.origin.row ? held.slot.row + 1 : held.slot.row)
    }

    /// Lays the outline out afresh (O(sections read)): after it was read again.
    private func rebuildLayout() {
        layout = ScreenLayout(
            rowCounts: outline.sections.map(\.rowCount), firstSection: outline.first, isEditing: outline.isEditing, slot: slotPlace)
    }

    /// Puts the slot line where the held row would land, keeping the layout (O(1)).
    private func placeSlot() {
        layout = layout.with(slot: slotPlace)
    }

    /// The widest `S:R` the rows of these sections have (the width of "0:0" at least): the
    /// column every row's path on screen is padded to.
    private func pathWidth(of sections: Set<Int>) -> Int {
        sections.reduce(3) { width, section in
            let count = outline[section]?.rowCount ?? 0
            return count == 0 ? width : max(width, "\(section):\(count - 1)".count)
        }
    }

    /// The line the cursor is on: the slot line while a row is carried away from its place.
    var cursorLine: Int? {
        if let line = layout.slotLine { return line }
        if let held { return layout.line(of: held.origin) }
        return cursor.map(layout.line(of:))
    }

    private func moveCursor(to path: RowPath?) throws {
        cursor = path
        cursorID = try path.map { try row(at: $0).id }
        try keepWindowAroundCursor()
        ensureCursorVisible()
    }

    /// Scrolls so that the cursor's line is on screen (with its section's header when it is the
    /// first row), and the screen is not left half empty at the end of the list.
    private func ensureCursorVisible() {
        if outline.end == outline.sectionCount { top = min(top, max(0, layout.lineCount - pageHeight)) }
        guard let line = cursorLine else {
            top = 0
            return
        }
        if line < top {
            top = line
            if line > 0, case .header = layout.line(line - 1) { top = line - 1 }
        } else if line >= top + pageHeight {
            top = line - pageHeight + 1
        }
        top = max(0, top)
    }

    /// Reads the outline again and puts the cursor back on the row with `id` (or, when it is
    /// gone, at `fallback`'s place), on the same line of the screen if it can.
    private func refresh(keeping id: RowID?, fallback: RowPath? = nil) throws {
        let offset = cursorLine.map { $0 - top }
        if let held, let origin = path(ofRow: held.id) {
            self.held?.origin = origin
        } else {
            held = nil
        }
        let found = id.flatMap(path(ofRow:))
        try loadOutline(around: (found ?? fallback ?? cursor)?.section ?? 0)
        let target = try found ?? clamped(fallback ?? cursor)
        cursor = target
        cursorID = try target.map { try row(at: $0).id }
        if let offset, let line = cursorLine { top = max(0, line - offset) }
        try keepWindowAroundCursor()
        ensureCursorVisible()
    }

    /// The row at `path`, or the nearest one after it (before it at the end), read around
    /// `path`'s section.
    private func clamped(_ path: RowPath?) throws -> RowPath? {
        guard let path else { return nil }
        guard path.section < outline.sectionCount else {
            try loadOutline(around: outline.sectionCount - 1)
            return try reachedPath(layout.rowCount - 1)
        }
        if !layout.sections.contains(path.section) { try loadOutline(around: path.section) }
        // The list had fewer sections when read again: its last row.
        guard layout.sections.contains(path.section) else { return try reachedPath(layout.rowCount - 1) }
        let start = layout.flatIndex(of: RowPath(section: path.section, row: 0))
        return try reachedPath(start + min(path.row, max(layout.rowCount(of: path.section) - 1, 0)))
    }

    // MARK: - Keys

    /// Does what `key` does.
    /// - Throws: what the list cannot recover from (the database gone); a refused change is
    ///   reported in `message` instead.
    func handle(_ key: Key) throws -> Outcome {
        if key == .interrupt { return .interrupted }
        if showingHelp {
            showingHelp = false
            return .keepGoing
        }
        message = nil
        do {
            if prompt != nil { return try answerPrompt(key) }
            switch key {
            case .character("?"): showingHelp = true
            case .character("q"):
                guard isReordering else { return .quit }
                message = "Reordering: s saves, Esc cancels; then q quits."
            case .down, .character("j"): try held != nil ? carry(by: 1) : step(by: 1)
            case .up, .character("k"): try held != nil ? carry(by: -1) : step(by: -1)
            case .pageDown, .character("f"): try held != nil ? carry(by: pageHeight - 1) : page(by: 1)
            case .pageUp, .character("b"): try held != nil ? carry(by: -(pageHeight - 1)) : page(by: -1)
            case .home, .character("g"): try held != nil ? carryToEnd(last: false) : toEnd(last: false)
            case .end, .character("G"): try held != nil ? carryToEnd(last: true) : toEnd(last: true)
            case .character("e"): try beginReorder()
            case .space, .enter: try pickUpOrDrop()
            case .character("s"): try save()
            case .escape: try cancelReorder()
            case .character("d"): try deleteRow()
            case .character("u"): try undo()
            default: break
            }
        } catch RepositoryError.conflict(_, _, let current) where session != nil {
            // The list changed under the session: reload or cancel.
            prompt = .conflict(currentVersion: current)
        } catch let error as RepositoryError {
            // Refused (busy, a row another process deleted meanwhile…): said, and the screen stays.
            message = "Refused: " + error.description
        }
        return .keepGoing
    }

    private func step(by rows: Int) throws {
        guard let cursor else { return }
        try moveCursor(to: reachedPath(layout.flatIndex(of: cursor) + rows))
    }

    private func page(by pages: Int) throws {
        guard let cursor else { return }
        let distance = max(1, pageHeight - 1) * pages
        let target = try reach(layout.flatIndex(of: cursor) + distance)
        top = max(0, top + distance)
        try moveCursor(to: layout.path(atFlatIndex: target))
    }

    /// Puts the cursor on the list's first row, or its last.
    private func toEnd(last: Bool) throws {
        try loadOutline(around: last ? outline.sectionCount - 1 : 0)
        try moveCursor(to: reachedPath(last ? layout.rowCount - 1 : 0))
    }

    // MARK: - Reorder mode

    private func beginReorder() throws {
        guard !isReordering else {
            message = "Already reordering: space picks up a row, s saves, Esc cancels."
            return
        }
        session = try list.beginEditing()
        try refresh(keeping: cursorID)
        message = "Reordering: space picks up or drops a row, ↑↓ carry it; s saves, Esc cancels."
    }

    /// How many slots section `section` has for the held row: one more than its other rows.
    private func slots(in section: Int, for held: Held) -> Int {
        (outline[section]?.rowCount ?? 0) - (section == held.origin.section ? 1 : 0) + 1
    }

    /// Moves the slot `steps` slots down (up when negative), from a section's last slot into the
    /// next section's first (an empty section has one slot), stopping at the ends of the list.
    private func carry(by steps: Int) throws {
        guard var held else { return }
        var slot = held.slot
        for _ in 0..<abs(steps) {
            if steps > 0 {
                if slot.row + 1 < slots(in: slot.section, for: held) {
                    slot.row += 1
                } else if slot.section + 1 < outline.sectionCount {
                    slot = RowPath(section: slot.section + 1, row: 0)
                } else {
                    break
                }
            } else {
                if slot.row > 0 {
                    slot.row -= 1
                } else if slot.section > 0 {
                    slot = RowPath(section: slot.section - 1, row: slots(in: slot.section - 1, for: held) - 1)
                } else {
                    break
                }
            }
        }
        held.slot = slot
        held.destination = try destination(of: held)
        self.held = held
        placeSlot()
        try keepWindowAroundCursor()
        ensureCursorVisible()
    }

    private func carryToEnd(last: Bool) throws {
        guard var held, outline.sectionCount > 0 else { return }
        let section = last ? outline.sectionCount - 1 : 0
        try loadOutline(around: section)
        held.slot = RowPath(section: section, row: last ? slots(in: section, for: held) - 1 : 0)
        held.destination = try destination(of: held)
        self.held = held
        placeSlot()
        try keepWindowAroundCursor()
        ensureCursorVisible()
    }

    private func pickUpOrDrop() throws {
        guard isReordering else {
            message = "Press e to reorder; then space picks up a row."
            return
        }
        if held != nil { return try drop() }
        guard let cursor, let cursorID else { return }
        held = Held(id: cursorID, row: try row(at: cursor), origin: cursor, slot: cursor)
        placeSlot()
        message = "Carrying: ↑↓ move it one place, space drops it, u puts it back."
    }

    /// The held row's slot as a move's destination: after the row before the slot, or else
    /// before the row after it, or the section when it has no other rows; `nil` for the row's
    /// own place.
    private func destination(of held: Held) throws -> RowDestination? {
        let slot = held.slot
        guard slot != held.origin else { return nil }
        let others = slots(in: slot.section, for: held) - 1
        // The index in the draft of the row that is `other`-th among the section's other rows.
        func draftIndex(_ other: Int) -> Int {
            slot.section == held.origin.section && other >= held.origin.row ? other + 1 : other
        }
        if others == 0 {
            guard let section = outline[slot.section] else { return nil }
            return RowDestination(section: .id(section.id), index: .index(0))
        } else if slot.row > 0 {
            return .after(try row(at: RowPath(section: slot.section, row: draftIndex(slot.row - 1))).id)
        } else {
            return .before(try row(at: RowPath(section: slot.section, row: draftIndex(0))).id)
        }
    }

    /// Drops the held row in its slot: one move in the session, to its `destination`. Refused
    /// (the list changed meanwhile), the row stays held, and a reload drops it there.
    private func drop() throws {
        guard let held, let session else { return }
        guard let destination = held.destination else {
            self.held = nil
            placeSlot()
            return
        }
        try session.apply(.moveRow(.id(held.id), to: destination))
        self.held = nil
        try refresh(keeping: held.id)
        message = "Moved \"\(TextEscaping.escaped(held.row.title))\" to \(held.slot); s saves, u takes it back."
    }

    private func save() throws {
        guard let session else {
            message = "Nothing to save: press e to reorder."
            return
        }
        if held != nil { try drop() }
        let edits = session.editCount
        do {
            let change = try session.save()
            self.session = nil
            try refresh(keeping: cursorID)
            message = ChangeReport.savedSentence(for: change, editCount: edits)
        } catch RepositoryError.conflict(_, _, let current) {
            prompt = .conflict(currentVersion: current)
        }
    }

    private func cancelReorder() throws {
        guard let session else { return }
        held = nil
        let edits = session.editCount
        session.cancel()
        self.session = nil
        try refresh(keeping: cursorID)
        message = edits == 0 ? "Left reorder mode." : "Cancelled: \(edits == 1 ? "1 edit" : "\(edits) edits") dropped; the list is as it was."
    }

    private func answerPrompt(_ key: Key) throws -> Outcome {
        switch key {
        case .character("r"): try reloadSession()
        case .escape:
            prompt = nil
            try cancelReorder()
        default: break
        }
        return .keepGoing
    }

    /// After a conflict: the session moved onto the list as it is now, its edits applied again
    /// by id (`EditSession.rebase`), and a row still carried dropped where it was carried (by
    /// the rows around its slot); edits whose rows are gone are counted and reported, never
    /// dropped unsaid.
    private func reloadSession() throws {
        guard let session else { return }
        let report = try session.rebase()
        prompt = nil
        var kept = report.kept.count
        var lost = report.dropped.count
        if let carried = held {
            if let destination = carried.destination {
                do {
                    try session.apply(.moveRow(.id(carried.id), to: destination))
                    kept += 1
                } catch let error as RepositoryError {
                    // Changed again meanwhile: the prompt comes back, the row still held.
                    if case .conflict = error { throw error }
                    lost += 1
                }
            }
            held = nil
        }
        try refresh(keeping: cursorID)
        message =
            "Reloaded version \(report.version) with \(kept == 1 ? "1 edit" : "\(kept) edits") applied again"
            + (lost > 0 ? "; \(lost) no longer applied (their rows are gone)" : "") + "; s saves, Esc cancels."
    }

    // MARK: - Delete and undo

    private func deleteRow() throws {
        guard held == nil else {
            message = "Drop the row first (space)."
            return
        }
        guard let cursor, let cursorID else { return }
        let title = try row(at: cursor).title
        let edit = Edit.deleteRow(.id(cursorID))
        if let session {
            try session.apply(edit)
        } else {
            try list.apply(edit)
        }
        try refresh(keeping: nil, fallback: cursor)
        message = "Deleted \"\(TextEscaping.escaped(title))\"; u brings it back."
    }

    private func undo() throws {
        if let held {
            self.held = nil
            placeSlot()
            try keepWindowAroundCursor()
            ensureCursorVisible()
            message = "Put \"\(TextEscaping.escaped(held.row.title))\" back."
            return
        }
        let change: Change
        if let session {
            do {
                change = try session.undoLastEdit()
            } catch RepositoryError.nothingToUndo {
                message = "Nothing to undo in this reorder."
                return
            }
        } else {
            do {
                change = try list.undo()
            } catch RepositoryError.nothingToUndo {
                message = "Nothing to undo."
                return
            }
        }
        try refresh(keeping: cursorID)
        // The cursor goes to what came back or moved back.
        if let back = change.changeset.insertedRows.first ?? change.changeset.movedRows.first?.to {
            try moveCursor(to: back)
        }
        message = ChangeReport.undoPhrase(for: change, redo: false) + "."
    }

    // MARK: - Other processes

    /// Takes in what a `ListWatcher` reported. While browsing the screen follows the list; in
    /// reorder mode the session's draft cannot be read on a changed list (the session holds no
    /// snapshot of it), so the screen keeps what it showed and asks to reload or cancel.
    func listChanged(_ updates: [ListUpdate]) throws {
        guard let last = updates.last else { return }
        if last.isDeleted {
            throw CLIError("the list \"\(TextEscaping.escaped(listName))\" was deleted")
        }
        if let session {
            if last.version > session.baseVersion { prompt = .conflict(currentVersion: last.version) }
            return
        }
        try refresh(keeping: cursorID)
    }

    // MARK: - Drawing

    /// Closes the session without saving (when the program ends); returns how many edits it held.
    func abandon() -> Int {
        guard let session else { return 0 }
        let edits = session.editCount
        session.cancel()
        self.session = nil
        return edits
    }

    /// The screen as lines of styled text: a title line, `pageHeight` lines of the list, and a
    /// status line (two while the conflict prompt is up, its last list line giving way).
    func frame() throws -> [ScreenText] {
        var lines = [titleLine()]
        if showingHelp {
            lines += ScreenText.help.prefix(pageHeight)
            lines += Array(repeating: ScreenText(), count: max(0, pageHeight - ScreenText.help.count))
        } else {
            if case .conflict = prompt {
                lines += (drawnListLines + Array(repeating: ScreenText(), count: pageHeight)).prefix(max(0, pageHeight - 1))
            } else {
                drawnListLines = try listLines()
                lines += drawnListLines
            }
        }
        lines += statusLines()
        return lines
    }

    private func titleLine() -> ScreenText {
        let mode: String
        if isReordering {
            let edits = session?.editCount ?? 0
            mode = "REORDER · \(edits == 1 ? "1 edit" : "\(edits) edits")"
        } else {
            mode = "BROWSE"
        }
        // The rows are counted when the whole outline is read; a window of it cannot count them.
        let counts =
            Self.count(outline.sectionCount, "section") + (outline.isWhole ? ", " + Self.count(layout.rowCount, "row") : "")
        let text =
            " sectionctl ui · \(TextEscaping.escaped(outline.name)) · version \(outline.version) · \(counts) · \(mode) · ? help"
        return ScreenText([.init(text, .inverse)], fill: .inverse)
    }

    /// The last line of the screen: a message, or the keys that matter now. Each fits 80
    /// columns (a terminal's least), so no key's meaning is cut off; the rest are under `?`.
    /// The conflict prompt takes two lines, its choices on the last.
    private func statusLines() -> [ScreenText] {
        if case .conflict(let current) = prompt {
            let now = current.map { "version \($0)" } ?? "gone"
            return [
                ScreenText([.init("Not saved: the list changed since you began (now \(now)).", .bold)]),
                ScreenText([.init("r: reload and apply your edits again · Esc: cancel them", .bold)]),
            ]
        }
        if let message { return [ScreenText([.init(message, .bold)])] }
        let hints: String
        if held != nil {
            hints = "↑↓ carry · space drop · u put back · s save · Esc cancel"
        } else if isReordering {
            hints = "↑↓ move · space pick up · d delete · u undo · s save · Esc cancel"
        } else {
            hints = "↑↓ move · PgUp/PgDn page · e reorder · d delete · u undo · ? help · q quit"
        }
        return [ScreenText([.init(hints, .dim)])]
    }

    /// "3 rows", "1,000,000 rows", "1 row".
    static func count(_ count: Int, _ noun: String) -> String {
        var digits = String(count)
        var grouped = ""
        while digits.count > 3 {
            grouped = "," + digits.suffix(3) + grouped
            digits.removeLast(3)
        }
        return digits + grouped + " " + noun + (count == 1 ? "" : "s")
    }

    private func listLines() throws -> [ScreenText] {
        if outline.sectionCount == 0 {
            return [ScreenText([.init("(no sections yet; add one with: sectionctl section add TITLE)", .dim)])]
                + Array(repeating: ScreenText(), count: pageHeight - 1)
        }
        let shown = (top..<min(top + pageHeight, layout.lineCount)).map(layout.line)
        var rows: [RowPath: Row] = [:]
        let paths = shown.compactMap { line -> RowPath? in
            if case .row(let path) = line { return path }
            return nil
        }
        if let first = paths.first {
            for located in try window(from: first, limit: paths.count).located {
                rows[located.path] = located.row
            }
        }
        // Field labels line up within each section's rows on screen.
        var labelWidths: [Int: Int] = [:]
        for path in paths {
            guard let row = rows[path], row.kind == .field else { continue }
            labelWidths[path.section] = max(labelWidths[path.section] ?? 0, DisplayWidth.of(TextEscaping.escaped(row.title)))
        }
        let pathWidth = pathWidth(of: Set(shown.compactMap(\.section)))
        let cursorLine = self.cursorLine
        var lines: [ScreenText] = []
        for (offset, line) in shown.enumerated() {
            let isCursor = top + offset == cursorLine
            switch line {
            case .blank:
                lines.append(ScreenText())
            case .header(let section):
                guard let info = outline[section] else { continue }
                lines.append(
                    ScreenText([
                        .init("[\(section)] ", .cyan), .init(TextEscaping.escaped(info.title), .bold),
                        .init("  (\(Self.count(info.rowCount, "row")))", .dim), .init("  #\(info.id)", .dim),
                    ]))
            case .footer(let section):
                let footer = outline[section]?.footer(editing: true) ?? ""
                lines.append(
                    ScreenText([
                        .init("  " + String(repeating: " ", count: pathWidth) + "  "), .init("(" + TextEscaping.escaped(footer) + ")", .footer),
                    ]))
            case .row(let path):
                guard let row = rows[path] else {
                    lines.append(ScreenText())
                    continue
                }
                var text = rowText(row, path: path, pathWidth: pathWidth, labelWidth: labelWidths[path.section] ?? 0, mark: isCursor ? "> " : "  ")
                if let held, held.origin == path {
                    if isCursor {
                        text.spans.append(.init("  [held: ↑↓ carry, space drops]", .bold))
                        text.highlight(.inverse)
                    } else {
                        text.spans.append(.init("  [moving]", .dim))
                        text.highlight(.dim)
                    }
                } else if isCursor {
                    text.highlight(.inverse)
                }
                lines.append(text)
            case .slot:
                guard let held else { continue }
                var text = rowText(
                    held.row, path: held.slot, pathWidth: pathWidth, labelWidth: DisplayWidth.of(TextEscaping.escaped(held.row.title)), mark: "> ")
                text.spans.append(.init("  [drop here]", .bold))
                text.highlight(.inverse)
                lines.append(text)
            }
        }
        lines += Array(repeating: ScreenText(), count: max(0, pageHeight - lines.count))
        return lines
    }

    private func rowText(_ row: Row, path: RowPath, pathWidth: Int, labelWidth: Int, mark: String) -> ScreenText {
        var shownPath = "\(path.section):\(path.row)"
        shownPath += String(repeating: " ", count: max(0, pathWidth - shownPath.count))
        var spans: [ScreenText.Span] = [.init(mark, .bold), .init(shownPath, .dim), .init("  ")]
        switch row.kind {
        case .text:
            spans.append(.init(TextEscaping.escaped(row.title)))
        case .topic:
            spans.append(.init("# " + TextEscaping.escaped(row.title), .bold))
        case .field:
            spans.append(.init(DisplayWidth.padded(TextEscaping.escaped(row.title), to: labelWidth), .yellow))
            spans.append(.init("  "))
            spans.append(row.value.map { .init(TextEscaping.escaped($0)) } ?? .init("-", .dim))
        }
        spans.append(.init("  #\(row.id)", .dim))
        return ScreenText(spans)
    }
}
