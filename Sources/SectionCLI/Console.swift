import Glibc

/// Where a command's output goes and where an edit session reads its lines: the process's
/// standard streams, or (in tests) strings in memory.
///
/// Output to standard output is buffered and written on `flush()`, which the CLI calls before
/// reading input and before exiting; standard error is written at once.
public final class Console {
    /// Whether standard input is a terminal (an edit session then prompts).
    public let inputIsTerminal: Bool
    /// Whether standard output is a terminal (the listing may then use colour).
    public let outputIsTerminal: Bool
    /// Whether standard error is a terminal.
    public let errorIsTerminal: Bool

    private let writeOutput: (String) -> Void
    private let writeError: (String) -> Void
    private let readInputLine: () -> String?
    private var buffer = ""

    /// A console on the process's standard streams.
    public static func standard() -> Console {
        Console(
            inputIsTerminal: isatty(0) == 1, outputIsTerminal: isatty(1) == 1, errorIsTerminal: isatty(2) == 1,
            writeOutput: { writeAll($0, to: 1) }, writeError: { writeAll($0, to: 2) },
            readLine: { Swift.readLine(strippingNewline: true) })
    }

    /// A console on the given functions.
    public init(
        inputIsTerminal: Bool = false, outputIsTerminal: Bool = false, errorIsTerminal: Bool = false,
        writeOutput: @escaping (String) -> Void, writeError: @escaping (String) -> Void,
        readLine: @escaping () -> String? = { nil }
    ) {
        self.inputIsTerminal = inputIsTerminal
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.readInputLine = readLine
    }

    /// A console that reads `lines` as its (non-terminal) input and writes where this one does.
    func reading(_ lines: [String]) -> Console {
        var remaining = lines[...]
        return Console(
            inputIsTerminal: false, outputIsTerminal: outputIsTerminal, errorIsTerminal: errorIsTerminal,
            writeOutput: { [self] in write($0) }, writeError: { [self] in flush(); writeError($0) },
            readLine: { remaining.popFirst() })
    }

    /// Adds text to standard output.
    public func write(_ text: String) {
        buffer += text
        if buffer.utf8.count >= 64 * 1024 { flush() }
    }

    /// Adds a line to standard output.
    public func writeLine(_ line: String = "") {
        write(line + "\n")
    }

    /// Writes a line to standard error, after flushing standard output so that the two stay
    /// in order at a terminal.
    public func writeErrorLine(_ line: String) {
        flush()
        writeError(line + "\n")
    }

    /// Writes what standard output has buffered.
    public func flush() {
        guard !buffer.isEmpty else { return }
        writeOutput(buffer)
        buffer = ""
    }

    /// The next line of standard input without its line break, or `nil` at its end.
    public func readLine() -> String? {
        flush()
        return readInputLine()
    }
}

/// Writes all of `text` to a file descriptor, retrying after interruptions. Gives up quietly
/// when the reader has gone away.
private func writeAll(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = Glibc.write(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}
