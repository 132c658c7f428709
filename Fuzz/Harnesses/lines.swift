// The two line readers against a plain split of the input at line feeds, with a line limit of
// 64 bytes so that long lines are common: the `--nl` records reader (records numbered, blank
// lines skipped, the first bad or long line refused naming its number) and the edit session's
// reader (CRLF, invalid UTF-8 and long lines reported one line at a time, reading going on).
import Foundation

@testable import Repository
@testable import SectionCLI
@testable import Transfer

private let limit = 64

private enum Outcome: Equatable {
    case line([UInt8])
    case record(number: Int, json: [UInt8])
    case failure(String)
}

/// The input's lines: split at every line feed; a last line without one counts unless empty.
private func split(_ input: [UInt8]) -> [ArraySlice<UInt8>] {
    var lines = input.split(separator: 0x0A, omittingEmptySubsequences: false)
    if lines.last?.isEmpty == true { lines.removeLast() }
    return lines
}

private func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }

/// What the records reader should report.
private func expectedRecords(_ input: [UInt8]) -> [Outcome] {
    var outcomes: [Outcome] = []
    var number = 0
    for (offset, line) in split(input).enumerated() {
        let lineNumber = offset + 1
        guard line.count <= limit else {
            return outcomes + [
                .failure("invalid records at line \(lineNumber): the line is longer than \(limit) bytes, the most a record's line may have")
            ]
        }
        var body = line
        if lineNumber == 1 && body.starts(with: [0xEF, 0xBB, 0xBF]) { body = body.dropFirst(3) }
        let trimmed = body.drop(while: isBlank)
        if trimmed.isEmpty { continue }
        // The record's text runs from its first byte to the end of the line, trailing blanks
        // included (SQLite skips them).
        let value = Array(trimmed)
        // A byte order mark counts only at the very start of the input; `scanDocument` would
        // skip one anywhere it starts.
        let valid =
            !value.starts(with: [0xEF, 0xBB, 0xBF])
            && value.withUnsafeBufferPointer { bytes -> Bool in
                guard let document = try? JSONReader.scanDocument(bytes) else { return false }
                return document.kind == .object
            }
        guard valid else { return outcomes + [.failure("line \(lineNumber)")] }
        number += 1
        outcomes.append(.record(number: number, json: value))
    }
    return outcomes
}

/// What the edit session's reader should report.
private func expectedLines(_ input: [UInt8]) -> [Outcome] {
    split(input).map { line in
        guard line.count <= limit else { return .failure("the line is longer than \(limit) bytes, the most a line may have") }
        let text = line.last == 0x0D ? line.dropLast() : line
        guard String(validating: text, as: UTF8.self) != nil else { return .failure("the line is not valid UTF-8 text") }
        return .line(Array(text))
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzLines(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    let url = URL(fileURLWithPath: NSTemporaryDirectory()).appendingPathComponent("fuzz-lines-\(getpid())")
    try! Data(input).write(to: url)

    // The records reader.
    var records: [Outcome] = []
    let handle = try! FileHandle(forReadingFrom: url)
    do {
        try Transfer.LineReader(handle: handle, maximumLineLength: limit).forEachRecord { record in
            records.append(.record(number: record.number, json: Array(record.json.utf8)))
        }
    } catch RepositoryError.invalidData(let message) {
        records.append(.failure(message))
    } catch {
        fail("a refusal that is not invalidData: \(error)")
    }
    try? handle.close()
    let expected = expectedRecords(input)
    require(records.count == expected.count, "the records reader read \(records.count) outcomes, expected \(expected.count)")
    for (got, want) in zip(records, expected) {
        if case .failure(let place) = want, case .failure(let message) = got {
            require(message.hasPrefix("invalid") && message.contains(place), "the error \(message) does not name \(place)")
        } else {
            require(got == want, "the records reader gave \(got), expected \(want)")
        }
    }

    // The edit session's reader.
    let descriptor = open(url.path, O_RDONLY)
    require(descriptor >= 0)
    defer { close(descriptor) }
    let reader = SessionLineReader(descriptor: descriptor, maximumLineLength: limit)
    var lines: [Outcome] = []
    while lines.count <= input.count + 1 {
        do {
            guard let line = try reader.readLine() else { break }
            lines.append(.line(Array(line.utf8)))
        } catch {
            // As the command line reports it: bad data, exit 65.
            let reported = CLIError.from(error)
            require(reported.exitCode == .dataError)
            lines.append(.failure(reported.message))
        }
    }
    require(lines == expectedLines(input), "the session reader gave \(lines), expected \(expectedLines(input))")
    return 0
}
