import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Runs `sectionctl` with its standard input, output and error on a pseudo-terminal, as a person
/// at a terminal would, and lets a test type lines and read the screen.
final class PseudoTerminal {
    private let process = Process()
    private let master: Int32
    private var slave: Int32
    /// Everything the program wrote, and the terminal echoed, so far.
    private(set) var transcript = ""
    private var bytes: [UInt8] = []

    /// Starts `sectionctl <arguments>` on a new pseudo-terminal.
    init(_ arguments: [String], environment: [String: String]) throws {
        var master: Int32 = -1
        var slave: Int32 = -1
        var size = winsize(ws_row: 50, ws_col: 120, ws_xpixel: 0, ws_ypixel: 0)
        guard openpty(&master, &slave, nil, nil, &size) == 0 else {
            throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO)
        }
        self.master = master
        self.slave = slave
        let terminal = FileHandle(fileDescriptor: slave, closeOnDealloc: false)
        process.executableURL = Sectionctl.binary
        process.arguments = arguments
        process.environment = environment
        process.standardInput = terminal
        process.standardOutput = terminal
        process.standardError = terminal
        try process.run()
        close(slave)
        self.slave = -1
    }

    deinit {
        if process.isRunning { process.terminate() }
        close(master)
    }

    /// Types text (a line needs its "\n"; Ctrl-D is "\u{4}").
    func type(_ text: String) {
        var text = text
        text.withUTF8 { buffer in
            var offset = 0
            while offset < buffer.count {
                let written = write(master, buffer.baseAddress! + offset, buffer.count - offset)
                if written <= 0 { break }
                offset += written
            }
        }
    }

    /// Reads until the transcript contains `text` `count` times. Returns whether it did: false
    /// when the program's output ends first, or (against a hang) after `seconds`.
    @discardableResult
    func waitFor(_ text: String, count: Int = 1, seconds: Double = hangGuardSeconds) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while occurrences(of: text) < count {
            guard readSome(until: deadline) == .read else { return false }
        }
        return true
    }

    /// Waits for the program to end, reading all it writes, however long it stays silent.
    /// Returns its exit status. A program still running after `seconds` (a hang) fails the
    /// test and is stopped.
    func finish(seconds: Double = hangGuardSeconds, sourceLocation: SourceLocation = #_sourceLocation) -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        var outcome = ReadOutcome.read
        while outcome == .read { outcome = readSome(until: deadline) }
        if outcome == .timedOut {
            Issue.record("sectionctl had not ended after \(Int(seconds)) s: \(transcript.suffix(300))", sourceLocation: sourceLocation)
            process.terminate()
        }
        process.waitUntilExit()
        return process.terminationStatus
    }

    private func occurrences(of text: String) -> Int {
        transcript.components(separatedBy: text).count - 1
    }

    private enum ReadOutcome {
        /// Some output was read.
        case read
        /// The program closed the terminal (it ended, or closed its standard streams).
        case ended
        /// `deadline` passed first.
        case timedOut
    }

    /// Reads what the program writes next, waiting for it as long as it takes (up to `deadline`).
    /// A quiet spell is not the end of the output: only the terminal's end is (EIO, or zero bytes,
    /// once no process holds the terminal open).
    private func readSome(until deadline: Date) -> ReadOutcome {
        while true {
            let left = deadline.timeIntervalSinceNow
            guard left > 0 else { return .timedOut }
            var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
            // Wakes at least once a second, only to look at the deadline.
            let ready = poll(&descriptor, 1, Int32(min(left, 1) * 1000) + 1)
            if ready < 0 && errno == EINTR { continue }
            if ready == 0 { continue }
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = read(master, &buffer, buffer.count)
            if count < 0 && (errno == EINTR || errno == EAGAIN) { continue }
            guard count > 0 else { return .ended }
            bytes += buffer[0..<count]
            transcript = String(decoding: bytes, as: UTF8.self)
            return .read
        }
    }
}
