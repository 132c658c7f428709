import Foundation
import Glibc

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

    /// Reads until the transcript contains `text` `count` times, or `seconds` pass. Returns
    /// whether it did.
    @discardableResult
    func waitFor(_ text: String, count: Int = 1, seconds: Double = 10) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while occurrences(of: text) < count {
            guard Date() < deadline, readSome(timeout: deadline.timeIntervalSinceNow) else { return false }
        }
        return true
    }

    /// Waits for the program to end, reading all it writes. Returns its exit status.
    func finish(seconds: Double = 10) -> Int32 {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline && readSome(timeout: deadline.timeIntervalSinceNow) {}
        if process.isRunning { process.terminate() }
        process.waitUntilExit()
        return process.terminationStatus
    }

    private func occurrences(of text: String) -> Int {
        transcript.components(separatedBy: text).count - 1
    }

    /// Reads what is there within `timeout`; false at the end of output or on timeout.
    private func readSome(timeout: Double) -> Bool {
        var descriptor = pollfd(fd: master, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, Int32(max(0, min(timeout, 60)) * 1000))
        guard ready > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = read(master, &buffer, buffer.count)
        guard count > 0 else { return false }  // EIO once the program has closed the terminal
        bytes += buffer[0..<count]
        transcript = String(decoding: bytes, as: UTF8.self)
        return true
    }
}
