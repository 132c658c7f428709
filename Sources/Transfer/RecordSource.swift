import Foundation
import Repository

/// One record's JSON text, checked by `JSONReader`.
struct RecordText {
    var json: String
    /// 1 for the first record of the import, 2 for the next, …
    var number: Int
}

/// A problem with a record's content rather than its syntax; the source adds where it is.
struct RecordProblem: Error {
    var message: String
}

/// Where records import reads its records: a JSON array held in memory, or lines read from a
/// file a piece at a time.
enum RecordSource {
    case array(Data)
    case lines(LineReader)

    /// A source for the records in `data`, checked whole first, so that a bad document is
    /// refused before anything is locked or written.
    static func checkedArray(_ data: Data) throws -> RecordSource {
        try data.withUnsafeBytes { raw in
            try Self.forEachElement(of: raw.bindMemory(to: UInt8.self), collecting: false) { _ in }
        }
        return .array(data)
    }

    /// Calls `body` with each record in order.
    /// - Throws: `RepositoryError.invalidData` placed at the record (line, column, byte offset).
    func forEachRecord(_ body: (RecordText) throws -> Void) throws {
        switch self {
        case .array(let data):
            try data.withUnsafeBytes { raw in
                try Self.forEachElement(of: raw.bindMemory(to: UInt8.self), collecting: true, body)
            }
        case .lines(let reader):
            try reader.forEachRecord(body)
        }
    }

    /// Checks that `bytes` hold one JSON array of objects and calls `body` with each object's
    /// text when `collecting`.
    private static func forEachElement(
        of bytes: UnsafeBufferPointer<UInt8>, collecting: Bool, _ body: (RecordText) throws -> Void
    ) throws {
        var reader = JSONReader(bytes)
        func place(_ offset: Int) -> TextLocation { TextLocation(of: offset, in: bytes) }
        do {
            reader.skipByteOrderMark()
            reader.skipWhitespace()
            guard let first = reader.peek() else {
                throw reader.error("the input is empty; expected a JSON array of objects")
            }
            guard first == UInt8(ascii: "[") else {
                guard let kind = JSONValueKind(firstByte: first) else { throw reader.unexpected("expected a JSON array of objects") }
                throw RepositoryError.invalidData(
                    "invalid records at \(place(reader.index)): the input is \(kind.rawValue); records are a JSON array of objects"
                        + " (or, read as lines, one object per line)")
            }
            reader.index += 1
            reader.skipWhitespace()
            if reader.peek() == UInt8(ascii: "]") {
                reader.index += 1
            } else {
                var number = 0
                while true {
                    reader.skipWhitespace()
                    let start = reader.index
                    number += 1
                    let kind = try reader.scanValue()
                    guard kind == .object else {
                        throw RepositoryError.invalidData(
                            "invalid records at \(place(start)): record \(number) is \(kind.rawValue); each record must be an object")
                    }
                    if collecting {
                        let record = RecordText(json: reader.text(start..<reader.index), number: number)
                        do {
                            try body(record)
                        } catch let problem as RecordProblem {
                            throw RepositoryError.invalidData("invalid record \(number) at \(place(start)): \(problem.message)")
                        }
                    }
                    reader.skipWhitespace()
                    if reader.peek() == UInt8(ascii: ",") {
                        reader.index += 1
                    } else if reader.peek() == UInt8(ascii: "]") {
                        reader.index += 1
                        break
                    } else if reader.isAtEnd {
                        throw reader.error("unexpected end of input; expected ',' or ']' after record \(number)")
                    } else {
                        throw reader.unexpected("expected ',' or ']' after record \(number)")
                    }
                }
            }
            reader.skipWhitespace()
            guard reader.isAtEnd else { throw reader.unexpected("expected the end of the input after the array") }
        } catch let error as JSONSyntaxError {
            throw error.invalidData(in: bytes)
        }
    }
}

/// Reads newline-delimited records from a file handle a piece at a time: only the line being
/// read is held in memory, whatever the length of the input, and a line longer than
/// `maximumLineLength` is refused as soon as that much of it has been read.
final class LineReader {
    static let chunkSize = 1 << 16

    private let handle: FileHandle
    private let maximumLineLength: Int
    /// Told of the bytes read.
    private let meter: ProgressMeter?

    init(handle: FileHandle, maximumLineLength: Int = SectionStore.maximumLineLength, meter: ProgressMeter? = nil) {
        self.handle = handle
        self.maximumLineLength = maximumLineLength
        self.meter = meter
    }

    private func lineTooLong(_ lineNumber: Int) -> RepositoryError {
        .invalidData(
            "invalid records at line \(lineNumber): the line is longer than \(maximumLineLength) bytes, the most a record's line may have")
    }

    /// Calls `body` with each record: one JSON object per line; blank lines are skipped.
    /// - Throws: `RepositoryError.invalidData` naming the line (with column and byte offset).
    func forEachRecord(_ body: (RecordText) throws -> Void) throws {
        var number = 0
        try forEachLine { line, lineNumber, lineOffset in
            var reader = JSONReader(line)
            if lineNumber == 1 { reader.skipByteOrderMark() }
            reader.skipWhitespace()
            if reader.isAtEnd { return }
            let start = reader.index
            number += 1
            do {
                let kind = try reader.scanValue()
                guard kind == .object else {
                    let place = TextLocation(of: start, in: line, line: lineNumber, baseOffset: lineOffset)
                    throw RepositoryError.invalidData(
                        "invalid records at \(place): the line holds \(kind.rawValue); each line must hold one JSON object")
                }
                reader.skipWhitespace()
                guard reader.isAtEnd else {
                    throw reader.unexpected("expected the end of the line; each line holds one JSON object")
                }
            } catch let error as JSONSyntaxError {
                throw error.invalidData(in: line, line: lineNumber, baseOffset: lineOffset)
            }
            let record = RecordText(json: reader.text(start..<reader.index), number: number)
            do {
                try body(record)
            } catch let problem as RecordProblem {
                let place = TextLocation(of: start, in: line, line: lineNumber, baseOffset: lineOffset)
                throw RepositoryError.invalidData("invalid record \(number) at \(place): \(problem.message)")
            }
        }
    }

    /// Calls `body` with each line (without its line feed), its 1-based number and the byte
    /// offset where it starts. A last line without a line feed counts.
    private func forEachLine(_ body: (UnsafeBufferPointer<UInt8>, Int, Int) throws -> Void) throws {
        var buffer: [UInt8] = []
        var lineStart = 0  // in buffer
        var searched = 0  // bytes of buffer known to hold no line feed after lineStart
        var lineNumber = 0
        var offset = 0  // of buffer[lineStart] in the input
        var atEnd = false
        while true {
            let newline: Int? = buffer.withUnsafeBufferPointer { pointer in
                guard searched < pointer.count, let base = pointer.baseAddress,
                    let found = memchr(base + searched, Int32(UInt8(ascii: "\n")), pointer.count - searched)
                else { return nil }
                return UnsafeRawPointer(found) - UnsafeRawPointer(base)
            }
            if let newline {
                lineNumber += 1
                guard newline - lineStart <= maximumLineLength else { throw lineTooLong(lineNumber) }
                try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart..<newline]), lineNumber, offset) }
                offset += newline + 1 - lineStart
                lineStart = newline + 1
                searched = lineStart
                continue
            }
            guard buffer.count - lineStart <= maximumLineLength else { throw lineTooLong(lineNumber + 1) }
            if atEnd {
                if lineStart < buffer.count {
                    lineNumber += 1
                    try buffer.withUnsafeBufferPointer { try body(UnsafeBufferPointer(rebasing: $0[lineStart...]), lineNumber, offset) }
                }
                return
            }
            // Keep only the unfinished line, then read more.
            buffer.removeSubrange(0..<lineStart)
            lineStart = 0
            searched = buffer.count
            if let chunk = try handle.read(upToCount: Self.chunkSize), !chunk.isEmpty {
                buffer.append(contentsOf: chunk)
                meter?.add(bytes: chunk.count)
            } else {
                atEnd = true
            }
        }
    }
}
