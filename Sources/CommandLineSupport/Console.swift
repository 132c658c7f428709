#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Where a command's output goes and where an edit session reads its lines: the process's
/// standard streams, or (in tests) strings in memory.
///
/// Output to standard output is buffered and written on `flush()`, which the CLI calls before
/// reading input and before exiting; standard error is written at once.
package final class Console {
    /// Whether standard input is a terminal (an edit session then prompts).
    package let inputIsTerminal: Bool
    /// Whether standard output is a terminal (the listing may then use colour).
    package let outputIsTerminal: Bool
    /// Whether standard error is a terminal.
    package let errorIsTerminal: Bool

    private let writeOutput: (String) -> Void
    private let writeError: (String) -> Void
    private let readInputLine: () throws -> String?
    private var buffer = ""

    /// A console on the process's standard streams, refusing input lines longer than
    /// `maximumLineLength` bytes.
    package static func standard(maximumLineLength: Int) -> Console {
        Console(
            inputIsTerminal: isatty(0) == 1, outputIsTerminal: isatty(1) == 1, errorIsTerminal: isatty(2) == 1,
            writeOutput: { writeAll($0, to: 1) }, writeError: { writeAll($0, to: 2) },
            readLine: LineReader(descriptor: 0, maximumLineLength: maximumLineLength).readLine)
    }

    /// A console on the given functions.
    package init(
        inputIsTerminal: Bool = false, outputIsTerminal: Bool = false, errorIsTerminal: Bool = false,
        writeOutput: @escaping (String) -> Void, writeError: @escaping (String) -> Void,
        readLine: @escaping () throws -> String? = { nil }
    ) {
        self.inputIsTerminal = inputIsTerminal
        self.outputIsTerminal = outputIsTerminal
        self.errorIsTerminal = errorIsTerminal
        self.writeOutput = writeOutput
        self.writeError = writeError
        self.readInputLine = readLine
    }

    /// A console that reads `lines` as its (non-terminal) input and writes where this one does.
    package func reading(_ lines: [String]) -> Console {
        var remaining = lines[...]
        return Console(
            inputIsTerminal: false, outputIsTerminal: outputIsTerminal, errorIsTerminal: errorIsTerminal,
            writeOutput: { [self] in write($0) },
            writeError: { [self] in
                flush()
                writeError($0)
            },
            readLine: { remaining.popFirst() })
    }

    /// Adds text to standard output.
    package func write(_ text: String) {
        buffer += text
        if buffer.utf8.count >= 64 * 1024 { flush() }
    }

    /// Adds a line to standard output.
    package func writeLine(_ line: String = "") {
        write(line + "\n")
    }

    /// Writes a line to standard error, after flushing standard output so that the two stay
    /// in order at a terminal.
    package func writeErrorLine(_ line: String) {
        flush()
        writeError(line + "\n")
    }

    /// Writes text to standard error at once, without a line break and without flushing standard
    /// output: a progress line redrawn in place.
    package func writeErrorText(_ text: String) {
        writeError(text)
    }

    /// Writes what standard output has buffered.
    package func flush() {
        guard !buffer.isEmpty else { return }
        writeOutput(buffer)
        buffer = ""
    }

    /// The next line of standard input without its line break, or `nil` at its end.
    /// - Throws: an `InputLineError` (from the standard console) when the line is not valid UTF-8
    ///   or is too long; the next call reads the line after it.
    package func readLine() throws -> String? {
        flush()
        return try readInputLine()
    }
}

/// Writes all of `text` to a file descriptor, retrying after interruptions. Gives up quietly
/// when the reader has gone away.
private func writeAll(_ text: String, to descriptor: Int32) {
    var text = text
    text.withUTF8 { bytes in
        var offset = 0
        while offset < bytes.count {
            let written = systemWrite(descriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if written < 0 {
                if errno == EINTR { continue }
                return
            }
            offset += written
        }
    }
}

/// A line of input that cannot be read as text: not UTF-8, or longer than the reader takes. The
/// command line reports it as bad data.
package struct InputLineError: Error, Sendable, Equatable {
    /// What was wrong with the line, as a message says it.
    package var message: String
}

/// Reads lines from a file descriptor, without their line break (`\n` or `\r\n`), refusing
/// bytes that are not UTF-8 rather than replacing them, and lines longer than
/// `maximumLineLength` bytes as soon as that much of one is read. Each byte is looked
/// at once (a search resumes where the last one stopped), so a long line costs linear time.
package final class LineReader {
    private let descriptor: Int32
    private let maximumLineLength: Int
    private var buffer: [UInt8] = []
    /// Where the next line starts in `buffer`.
    private var start = 0
    /// `buffer[start..<searched]` holds no line feed.
    private var searched = 0
    private var atEnd = false
    /// The rest of a line refused for its length is being skipped, up to its line feed.
    private var skippingLine = false
    private var chunk = [UInt8](repeating: 0, count: 64 * 1024)

    /// A reader of `descriptor`'s lines; the command line passes `SectionStore.maximumLineLength`.
    package init(descriptor: Int32, maximumLineLength: Int) {
        self.descriptor = descriptor
        self.maximumLineLength = maximumLineLength
    }

    /// The next line, or `nil` at the end of the input.
    /// - Throws: an `InputLineError` for a line that is not valid UTF-8 or is too long; the next
    ///   call reads the line after it.
    package func readLine() throws(InputLineError) -> String? {
        while true {
            if let newline = nextLineFeed() {
                let line = buffer[start..<newline]
                start = newline + 1
                searched = start
                if skippingLine {
                    skippingLine = false
                    continue
                }
                guard line.count <= maximumLineLength else { throw tooLong() }
                return try decode(line)
            }
            if skippingLine {
                start = buffer.count
                searched = start
            } else if buffer.count - start > maximumLineLength {
                // Refuse now, without waiting for a line feed that may never come.
                skippingLine = true
                start = buffer.count
                searched = start
                throw tooLong()
            }
            if atEnd {
                guard start < buffer.count, !skippingLine else { return nil }
                defer {
                    start = buffer.count
                    searched = start
                }
                return try decode(buffer[start...])
            }
            fill()
        }
    }

    private func tooLong() -> InputLineError {
        InputLineError(message: "the line is longer than \(maximumLineLength) bytes, the most a line may have")
    }

    /// The index of the first line feed at or after `searched`, remembering how far it looked.
    private func nextLineFeed() -> Int? {
        let from = max(start, searched)
        let found: Int? = buffer.withUnsafeBufferPointer { pointer in
            guard from < pointer.count, let base = pointer.baseAddress,
                let found = memchr(base + from, 0x0A, pointer.count - from)
            else { return nil }
            return UnsafeRawPointer(found) - UnsafeRawPointer(base)
        }
        if found == nil { searched = buffer.count }
        return found
    }

    private func fill() {
        buffer.removeFirst(start)
        searched -= start
        start = 0
        while true {
            let count = chunk.withUnsafeMutableBytes { systemRead(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 {
                atEnd = true
            } else {
                buffer.append(contentsOf: chunk[..<count])
            }
            return
        }
    }

    private func decode(_ bytes: ArraySlice<UInt8>) throws(InputLineError) -> String {
        var line = bytes
        if line.last == 0x0D { line = line.dropLast() }
        guard let text = String(validating: line, as: UTF8.self) else {
            throw InputLineError(message: "the line is not valid UTF-8 text")
        }
        return text
    }
}
