import CommandLineSupport

/// One line of the full-screen mode: spans of text (already escaped: no control characters),
/// each with its look. `rendered(width:style:)` cuts it to the screen's width by display width
/// (so CJK text neither overflows nor wraps) and adds escape sequences only when `style` allows
/// colour (a terminal, and no `NO_COLOR`).
struct ScreenText: Equatable {
    /// How a span looks.
    enum Look: Equatable {
        case plain, bold, dim, cyan, yellow, inverse
        /// An empty section's footer: italic and dim.
        case footer

        var code: String? {
            switch self {
            case .plain: return nil
            case .bold: return "1"
            case .dim: return "2"
            case .cyan: return "36"
            case .yellow: return "33"
            case .inverse: return "7"
            case .footer: return "2;3"
            }
        }
    }

    struct Span: Equatable {
        var text: String
        var look: Look

        init(_ text: String, _ look: Look = .plain) {
            self.text = text
            self.look = look
        }
    }

    var spans: [Span]
    /// A look laid over the whole line, to its last column (the cursor's bar).
    var fill: Look?

    init(_ spans: [Span] = [], fill: Look? = nil) {
        self.spans = spans
        self.fill = fill
    }

    /// The text without looks.
    var plain: String { spans.map(\.text).joined() }

    /// Lays `look` over the whole line.
    mutating func highlight(_ look: Look) {
        fill = look
    }

    /// The line cut to `width` cells, with escape sequences when `style` allows.
    func rendered(width: Int, style: Style) -> String {
        var result = ""
        var used = 0
        let fillCode = style.isEnabled ? fill?.code : nil
        func open(_ look: Look) {
            guard style.isEnabled else { return }
            let codes = [fillCode, look.code].compactMap { $0 }
            result += ANSI.resetAttributes
            if !codes.isEmpty { result += ANSI.escape + codes.joined(separator: ";") + "m" }
        }
        outer: for span in spans {
            open(span.look)
            // Spans hold escaped text already; escaping again changes nothing in it and keeps
            // any message that carries user text from reaching the terminal raw.
            for character in TextEscaping.escaped(span.text) {
                let cells = DisplayWidth.width(of: character)
                if used + cells > width {
                    // A wide character that does not fit: a space in its place.
                    if used < width { result += " " }
                    used = width
                    break outer
                }
                result.append(character)
                used += cells
            }
        }
        if let fillCode {
            result += ANSI.resetAttributes + ANSI.escape + fillCode + "m"
            result += String(repeating: " ", count: max(0, width - used))
        }
        if style.isEnabled { result += ANSI.resetAttributes }
        return result
    }

    /// The help screen.
    static let help: [ScreenText] = [
        ScreenText([.init("Keys", .bold)]),
        ScreenText(),
        ScreenText([.init("  ↑ ↓  j k       ", .bold), .init("move the cursor; in reorder mode, carry a held row one place")]),
        ScreenText([.init("  PgUp PgDn b f  ", .bold), .init("a page up or down")]),
        ScreenText([.init("  g G  Home End  ", .bold), .init("the first or last row")]),
        ScreenText([.init("  e              ", .bold), .init("reorder mode: an edit session; empty sections show their footer")]),
        ScreenText([.init("  space          ", .bold), .init("in reorder mode: pick up the row under the cursor, or drop it")]),
        ScreenText([.init("  s              ", .bold), .init("save the reorder (dropping a held row first)")]),
        ScreenText([.init("  Esc            ", .bold), .init("cancel the reorder: the list is as it was")]),
        ScreenText([.init("  d              ", .bold), .init("delete the row under the cursor (no confirmation)")]),
        ScreenText([.init("  u              ", .bold), .init("undo: the reorder's last edit, else the list's last change")]),
        ScreenText([.init("  ?              ", .bold), .init("this help")]),
        ScreenText([.init("  q              ", .bold), .init("quit (in reorder mode: s or Esc first); Ctrl-C quits at once")]),
        ScreenText(),
        ScreenText([.init("Carrying a row: Down moves it one place; from after a section's last row it goes", .plain)]),
        ScreenText([.init("to the next section's first place (an empty section has one place). Up is the mirror.", .plain)]),
        ScreenText([.init("Changes made by other processes appear as they happen.", .plain)]),
        ScreenText(),
        ScreenText([.init("Press any key to go back.", .dim)]),
    ]
}
