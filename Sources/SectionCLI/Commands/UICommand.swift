import CommandLineSupport
import Repository

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `ui`: the list full screen at a terminal (product §13). Refuses anything but a terminal on
/// both standard input and standard output (exit 2). The loop waits up to 100 ms for a key, then
/// asks a `ListWatcher` whether another process committed a change, so changes appear within a
/// fraction of a second and an idle screen costs one pragma per tick.
enum UICommand {
    static let command = Command<Context>(
        CommandSpec(
            name: "ui", summary: "the list full screen at a terminal: browse, reorder, delete, undo",
            examples: ["ui", "--list work ui"],
            discussion: """
                Keys: arrows or j/k move, PgUp/PgDn page, g/G first/last row, q quits, ? shows them all.
                e enters reorder mode (an edit session; empty sections show their footer): space picks
                up the row under the cursor and drops it, Down/Up carry it one place (from a section's
                last place into the next section's first; an empty section has one place), s saves, Esc
                cancels. d deletes the row under the cursor; u undoes (in reorder mode the last edit,
                otherwise the list's last change). Other processes' changes appear as they happen; in
                reorder mode a change to the list offers to reload, applying the edits again (r), or
                to cancel them (Esc).
                Needs a terminal on standard input and output (exit 2 otherwise).
                """)
    ) { context in try run(context: context) }

    static func run(context: Context) throws {
        guard context.console.inputIsTerminal && context.console.outputIsTerminal else {
            let which = context.console.inputIsTerminal ? "standard output" : "standard input"
            throw CLIError(
                "ui needs a terminal, and \(which) is not one", hint: "for scripts use 'show', 'edit' or 'watch'",
                exitCode: .usage)
        }
        if context.json {
            throw CLIError.usage("ui takes no --json: it is a screen, not output for scripts", command: ["ui"])
        }
        let list = try context.openList()
        let terminal = try Terminal()
        var size = terminal.size
        let browser = try ListBrowser(list: list, pageHeight: size.rows - 2)
        let watcher = try ListWatcher(location: list.store.location, server: list.store.server, list: list.name, from: browser.outline.version)
        let style = Style.forStream(isTerminal: true, environment: context.environment)
        try terminal.enter()
        var interrupted = false
        do {
            defer { terminal.restore() }
            interrupted = try loop(browser: browser, terminal: terminal, watcher: watcher, style: style, size: &size)
        } catch {
            let dropped = browser.abandon()
            if dropped > 0 {
                context.console.writeErrorLine("sectionctl: the reorder's \(dropped) unsaved edits were not saved")
            }
            throw error
        }
        let dropped = browser.abandon()
        if interrupted && dropped > 0 {
            throw CLIError("interrupted: the reorder's \(dropped == 1 ? "unsaved edit was" : "\(dropped) unsaved edits were") not saved")
        }
    }

    /// Draws, reads keys and follows the list until `q`, Ctrl-C or a stop signal. Returns whether
    /// it ended by interruption.
    private static func loop(
        browser: ListBrowser, terminal: Terminal, watcher: ListWatcher, style: Style, size: inout Terminal.Size
    ) throws -> Bool {
        var decoder = KeyDecoder()
        var shown: [String] = []
        // Drawn again only after a key, a change to the list or a resize: an idle screen reads
        // nothing but the watcher's pragma.
        var needsDrawing = true
        while true {
            if terminal.stopRequested { return true }
            if terminal.takeResized() {
                size = terminal.size
                browser.pageHeight = max(1, size.rows - 2)
                shown = []
                terminal.write(ANSI.clearScreen)
                needsDrawing = true
            }
            if needsDrawing {
                shown = draw(try browser.frame(), over: shown, width: size.columns, rows: size.rows, terminal: terminal, style: style)
                needsDrawing = false
            }
            let bytes = terminal.read(timeout: decoder.hasPending ? 30 : 100)
            let keys = bytes.isEmpty ? decoder.flush() : decoder.feed(bytes)
            for key in keys {
                needsDrawing = true
                if key == .redraw {
                    shown = []
                    terminal.write(ANSI.clearScreen)
                }
                switch try browser.handle(key) {
                case .keepGoing: continue
                case .quit: return false
                case .interrupted: return true
                }
            }
            let updates = try watcher.poll()
            if !updates.isEmpty {
                try browser.listChanged(updates)
                needsDrawing = true
            }
        }
    }

    /// Writes the lines that differ from what is on screen; returns what is on screen now.
    private static func draw(_ frame: [ScreenText], over shown: [String], width: Int, rows: Int, terminal: Terminal, style: Style)
        -> [String]
    {
        let lines = frame.prefix(rows).map { $0.rendered(width: width, style: style) }
        var output = ""
        for (index, line) in lines.enumerated() where index >= shown.count || shown[index] != line {
            output += ANSI.moveTo(row: index) + line + ANSI.clearToEndOfLine
        }
        if !output.isEmpty { terminal.write(output) }
        return Array(lines)
    }
}
