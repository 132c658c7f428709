import CommandLineSupport
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The terminal in full-screen mode: raw input (no echo, no line editing, Ctrl-C as a key), the
/// alternate screen, no cursor, no automatic wrap. Plain ANSI sequences over termios: every
/// terminal emulator in use understands these few, and they need no library beyond libc.
///
/// `restore()` puts everything back as it was; it runs on quit, on any error (the caller's
/// `defer`), and — from a signal handler, with only async-signal-safe calls — when the process
/// crashes. SIGINT, SIGTERM, SIGHUP and SIGQUIT ask the input loop to stop (`stopRequested`);
/// SIGWINCH asks it to redraw (`resized`).
final class Terminal {
    /// The screen's size in character cells.
    struct Size: Hashable, Sendable {
        var rows: Int
        var columns: Int
    }

    private let input: Int32
    private let output: Int32
    private var original = termios()
    private var isActive = false
    /// What signal handlers tell the input loop: lock-free atomics, safe to set in a handler.
    private static let stop = Atomic<Bool>(false)
    private static let resize = Atomic<Bool>(false)
    private static let stopSignals = [SIGINT, SIGTERM, SIGHUP, SIGQUIT]

    /// Takes over the terminal on `input` and `output`, which must both be terminals.
    init(input: Int32 = 0, output: Int32 = 1) throws {
        self.input = input
        self.output = output
        guard tcgetattr(input, &original) == 0 else {
            throw CLIError("cannot read the terminal's settings: \(String(cString: strerror(errno)))")
        }
    }

    deinit {
        restore()
    }

    /// Raw mode, the alternate screen, hidden cursor; signal handling for stop, resize and crash.
    func enter() throws {
        var raw = original
        raw.c_iflag &= ~tcflag_t(BRKINT | ICRNL | INPCK | ISTRIP | IXON)
        raw.c_oflag &= ~tcflag_t(OPOST)
        raw.c_cflag |= tcflag_t(CS8)
        raw.c_lflag &= ~tcflag_t(ECHO | ICANON | IEXTEN | ISIG)
        withUnsafeMutableBytes(of: &raw.c_cc) { cc in
            cc[Int(VMIN)] = 0
            cc[Int(VTIME)] = 0
        }
        CrashRestore.install(original, descriptor: input, output: output)
        // Plain handlers that set a flag (a signal also cuts the input loop's wait short).
        Self.stop.store(false, ordering: .relaxed)
        for number in Self.stopSignals {
            signal(number) { _ in Terminal.stop.store(true, ordering: .relaxed) }
        }
        signal(SIGWINCH) { _ in Terminal.resize.store(true, ordering: .relaxed) }
        // A parent may have left them blocked; this program wants them.
        var handled = sigset_t()
        sigemptyset(&handled)
        for number in Self.stopSignals + [SIGWINCH] { sigaddset(&handled, number) }
        pthread_sigmask(SIG_UNBLOCK, &handled, nil)
        guard tcsetattr(input, TCSAFLUSH, &raw) == 0 else {
            CrashRestore.uninstall()
            throw CLIError("cannot put the terminal in raw mode: \(String(cString: strerror(errno)))")
        }
        isActive = true
        write(ANSI.enterAlternateScreen + ANSI.hideCursor + ANSI.noWrap + ANSI.clearScreen)
    }

    /// Leaves the alternate screen and restores the terminal's settings; safe to call twice.
    func restore() {
        guard isActive else { return }
        isActive = false
        write(ANSI.resetAttributes + ANSI.wrap + ANSI.showCursor + ANSI.leaveAlternateScreen)
        var settings = original
        tcsetattr(input, TCSAFLUSH, &settings)
        CrashRestore.uninstall()
        for number in Self.stopSignals + [SIGWINCH] { signal(number, SIG_DFL) }
    }

    /// Whether a signal asked the program to end.
    var stopRequested: Bool { Self.stop.load(ordering: .relaxed) }

    /// Whether the window was resized since the last call.
    func takeResized() -> Bool { Self.resize.exchange(false, ordering: .relaxed) }

    /// The window's size (80×24 if the terminal does not say).
    var size: Size {
        var window = winsize()
        guard ioctl(output, UInt(TIOCGWINSZ), &window) == 0, window.ws_row > 0, window.ws_col > 0 else {
            return Size(rows: 24, columns: 80)
        }
        return Size(rows: Int(window.ws_row), columns: Int(window.ws_col))
    }

    /// Waits up to `milliseconds` for input and returns what arrived (empty if nothing did).
    func read(timeout milliseconds: Int32) -> [UInt8] {
        var descriptor = pollfd(fd: input, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        guard ready > 0 else { return [] }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = buffer.withUnsafeMutableBytes { systemRead(input, $0.baseAddress, $0.count) }
        return count > 0 ? Array(buffer[..<count]) : []
    }

    /// Writes all of `text`, retrying after interruptions.
    func write(_ text: String) {
        var text = text
        text.withUTF8 { bytes in
            var offset = 0
            while offset < bytes.count {
                let written = systemWrite(output, bytes.baseAddress! + offset, bytes.count - offset)
                if written < 0 {
                    if errno == EINTR || errno == EAGAIN { continue }
                    return
                }
                offset += written
            }
        }
    }
}

/// The few control sequences the full-screen mode writes (ECMA-48 / xterm).
enum ANSI {
    static let escape = "\u{1B}["
    static let enterAlternateScreen = "\u{1B}[?1049h"
    static let leaveAlternateScreen = "\u{1B}[?1049l"
    static let hideCursor = "\u{1B}[?25l"
    static let showCursor = "\u{1B}[?25h"
    static let noWrap = "\u{1B}[?7l"
    static let wrap = "\u{1B}[?7h"
    static let clearScreen = "\u{1B}[2J"
    static let clearToEndOfLine = "\u{1B}[K"
    static let resetAttributes = "\u{1B}[0m"

    /// Moves the cursor to a 0-based row, column 0.
    static func moveTo(row: Int) -> String { "\u{1B}[\(row + 1);1H" }
}

/// Puts the terminal back if the process dies of a signal while in full-screen mode (a crash),
/// then lets the signal do what it does by default. Only async-signal-safe calls run in the
/// handler: `tcsetattr`, `write` of a static string, `signal`, `raise`.
private enum CrashRestore {
    nonisolated(unsafe) static var settings = termios()
    nonisolated(unsafe) static var input: Int32 = -1
    nonisolated(unsafe) static var output: Int32 = -1
    static let fatalSignals = [SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGABRT, SIGFPE]
    static let leave: StaticString = "\u{1B}[0m\u{1B}[?7h\u{1B}[?25h\u{1B}[?1049l"

    static func install(_ original: termios, descriptor: Int32, output: Int32) {
        settings = original
        input = descriptor
        Self.output = output
        for number in fatalSignals {
            signal(number) { number in
                if CrashRestore.input >= 0 {
                    _ = systemWrite(CrashRestore.output, CrashRestore.leave.utf8Start, CrashRestore.leave.utf8CodeUnitCount)
                    tcsetattr(CrashRestore.input, TCSANOW, &CrashRestore.settings)
                }
                signal(number, SIG_DFL)
                raise(number)
            }
        }
    }

    static func uninstall() {
        input = -1
        for number in fatalSignals { signal(number, SIG_DFL) }
    }
}
