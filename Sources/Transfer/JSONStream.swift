import Repository
import Foundation

/// Reads one JSON document (RFC 8259, UTF-8) from a stream of bytes a piece at a time and
/// hands each value to a callback as a `JSONTreeNode`, in the order `json_tree` would visit
/// them: parents before children, members in the document's order, numbers with their text as
/// written, strings decoded.
///
/// Memory stays flat in the size of the document: only the value being read is held, and a
/// single string or number longer than `maximumTokenLength` bytes is refused as soon as it gets
/// there, so endless input (`/dev/zero`, a stream that never closes a string) fails instead of
/// growing. Nesting is an explicit stack, refused past `JSONScanner.maximumDepth`. Errors say
/// where they are (line, column, byte offset), as `JSONScanner`'s do.
struct JSONStream {
    /// The longest string or number accepted, in bytes as written: 8 MiB, room for the longest
    /// text a row holds (`SectionStore.maximumTextLength` bytes) even when every character is
    /// written as a `\uXXXX` escape.
    static let maximumTokenLength = 8 * 1024 * 1024
    static let chunkSize = 64 * 1024

    private let read: () throws -> Data?
    private var buffer: [UInt8] = []
    /// The next byte to read, in `buffer`.
    private var index = 0
    /// The offset in the whole input of `buffer[0]`.
    private var bufferOffset = 0
    /// Where the value being read starts in `buffer`: bytes from here on are kept on a refill.
    private var keepFrom: Int?
    private var atEnd = false
    // The place of `index`, for errors.
    private var line = 1
    /// The offset in the whole input where the current line starts.
    private var lineStart = 0
    /// Characters of the current line in bytes already dropped from `buffer`.
    private var droppedColumns = 0
    private var nextID: Int64 = 0

    /// A stream reading with `read`, which returns the next piece of input, or `nil` or empty
    /// data at its end.
    init(read: @escaping () throws -> Data?) {
        self.read = read
    }

    /// A stream over bytes already in memory.
    init(data: Data) {
        var pending: Data? = data
        self.init(read: {
            defer { pending = nil }
            return pending
        })
    }

    /// A stream reading a file handle `chunkSize` bytes at a time, telling `meter` of each.
    init(handle: FileHandle, meter: ProgressMeter? = nil) {
        guard let meter else {
            self.init(read: { try handle.read(upToCount: JSONStream.chunkSize) })
            return
        }
        self.init(read: {
            let chunk = try handle.read(upToCount: JSONStream.chunkSize)
            meter.add(bytes: chunk?.count ?? 0)
            return chunk
        })
    }

    // MARK: - Reading the document

    /// Reads the whole document and calls `body` with each value.
    /// - Throws: `RepositoryError.invalidData` for malformed JSON or invalid UTF-8, placed in the
    ///   input; what `body` throws.
    mutating func forEachNode(_ body: (JSONTreeNode) throws -> Void) throws {
        do {
            try parse(body)
        } catch let error as JSONSyntaxError {
            throw RepositoryError.invalidData("invalid JSON at \(location(of: error.offset)): \(error.message)")
        }
    }

    private mutating func parse(_ body: (JSONTreeNode) throws -> Void) throws {
        try fill(atLeast: 3)
        if buffer.count >= 3 && buffer[0] == 0xEF && buffer[1] == 0xBB && buffer[2] == 0xBF { index = 3 }
        var stack: [(id: Int64, closing: UInt8)] = []
        var key: String?
        while true {
            // A value is expected here.
            try skipWhitespace()
            guard let byte = try current() else { throw error("unexpected end of input; expected a value") }
            let id = nextID
            nextID += 1
            var node = JSONTreeNode(id: id, parent: stack.last?.id, kind: .null, key: key, text: nil)
            key = nil
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard stack.count < JSONScanner.maximumDepth else {
                    throw error("the document is nested deeper than \(JSONScanner.maximumDepth) levels")
                }
                let isObject = byte == UInt8(ascii: "{")
                node.kind = isObject ? .object : .array
                try body(node)
                index += 1
                try skipWhitespace()
                let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if try current() == closing {
                    index += 1
                } else {
                    stack.append((id, closing))
                    if isObject { key = try memberName() }
                    continue
                }
            case UInt8(ascii: "\""):
                node.kind = .string
                node.text = try string()
                try body(node)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                node.kind = .number
                node.text = try number()
                try body(node)
            case UInt8(ascii: "t"):
                try literal("true")
                node.kind = .boolean
                node.text = "true"
                try body(node)
            case UInt8(ascii: "f"):
                try literal("false")
                node.kind = .boolean
                node.text = "false"
                try body(node)
            case UInt8(ascii: "n"):
                try literal("null")
                try body(node)
            default:
                throw try unexpected("expected a value")
            }
            // A value ended: close containers, or go on to the next element or member.
            while let closing = stack.last?.closing {
                try skipWhitespace()
                let next = try current()
                if next == UInt8(ascii: ",") {
                    index += 1
                    if closing == UInt8(ascii: "}") {
                        try skipWhitespace()
                        key = try memberName()
                    }
                    break
                } else if next == closing {
                    index += 1
                    stack.removeLast()
                } else if next == nil {
                    throw error("unexpected end of input; expected ',' or '\(Character(Unicode.Scalar(closing)))'")
                } else {
                    let expected = closing == UInt8(ascii: "}") ? "after an object member" : "after an array element"
                    throw try unexpected("expected ',' or '\(Character(Unicode.Scalar(closing)))' \(expected)")
                }
            }
            if stack.isEmpty { break }
        }
        try skipWhitespace()
        guard try current() == nil else { throw try unexpected("expected the end of the document") }
    }

    /// Reads `"name" :`, the start of an object member, and returns the name.
    private mutating func memberName() throws -> String {
        guard try current() == UInt8(ascii: "\"") else {
            throw try current() == nil
                ? error("unexpected end of input; expected a member name in double quotes")
                : unexpected("expected a member name in double quotes")
        }
        let name = try string()
        try skipWhitespace()
        guard try current() == UInt8(ascii: ":") else {
            throw try current() == nil ? error("unexpected end of input; expected ':'") : unexpected("expected ':' after a member name")
        }
        index += 1
        return name
    }

    // MARK: - Tokens

    private mutating func skipWhitespace() throws {
        while true {
            while index < buffer.count {
                switch buffer[index] {
                case UInt8(ascii: "\n"):
                    index += 1
                    line += 1
                    lineStart = bufferOffset + index
                    droppedColumns = 0
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\r"): index += 1
                default: return
                }
            }
            guard try refill() else { return }
        }
    }

    /// A string literal, decoded; `index` is at its opening quote.
    private mutating func string() throws -> String {
        let start = index
        keepFrom = start
        defer { keepFrom = nil }
        index += 1
        var escaped = false
        while true {
            if index >= buffer.count {
                let offset = index - (keepFrom ?? index)
                guard try refill() else {
                    index = keepFrom ?? index
                    throw error("unterminated string")
                }
                index = (keepFrom ?? 0) + offset
                continue
            }
            let tokenStart = keepFrom ?? 0
            guard index - tokenStart <= Self.maximumTokenLength else {
                index = tokenStart
                throw error(
                    "a string longer than \(Self.maximumTokenLength) bytes; a title or value holds at most \(SectionStore.maximumTextLength) bytes")
            }
            let byte = buffer[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                let literal = tokenStart..<index
                return buffer.withUnsafeBufferPointer { bytes in
                    let body = UnsafeBufferPointer(rebasing: bytes[literal])
                    return escaped
                        ? JSONScanner.decodeString(body)
                        : String(decoding: UnsafeBufferPointer(rebasing: body.dropFirst().dropLast()), as: UTF8.self)
                }
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
                try escape()
            } else if byte < 0x20 {
                throw error("a control character (\(JSONScanner.scalarName(UInt32(byte)))) inside a string must be escaped")
            } else if byte < 0x80 {
                index += 1
            } else {
                try ensure(4)
                guard let length = buffer.withUnsafeBufferPointer({ JSONScanner.validUTF8SequenceLength($0, at: index) }) else {
                    throw error("invalid UTF-8")
                }
                index += length
            }
        }
    }

    /// An escape inside a string, checked; `index` is at its backslash.
    private mutating func escape() throws {
        try ensure(12)
        let start = index
        index += 1
        guard index < buffer.count else { throw error("unterminated string") }
        switch buffer[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            index += 1
            let unit = try hexUnit()
            if (0xDC00...0xDFFF).contains(unit) {
                index = start
                throw error("\\u\(JSONScanner.hex(unit)) is a lone low surrogate; it must follow a high one")
            }
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < buffer.count, buffer[index] == UInt8(ascii: "\\"), buffer[index + 1] == UInt8(ascii: "u") else {
                    index = start
                    throw error("\\u\(JSONScanner.hex(unit)) is a lone high surrogate; a \\uDC00-\\uDFFF escape must follow it")
                }
                index += 2
                let second = try hexUnit()
                guard (0xDC00...0xDFFF).contains(second) else {
                    index = start
                    throw error("\\u\(JSONScanner.hex(unit)) is a lone high surrogate; a \\uDC00-\\uDFFF escape must follow it")
                }
            }
        default:
            throw try unexpected("invalid escape in a string; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
        }
    }

    private mutating func hexUnit() throws -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard index < buffer.count, let digit = JSONScanner.hexValue(buffer[index]) else {
                throw index >= buffer.count ? error("unterminated string") : try unexpected("expected four hexadecimal digits after \\u")
            }
            unit = unit << 4 | digit
            index += 1
        }
        return unit
    }

    /// A number's text as written; `index` is at its first byte.
    private mutating func number() throws -> String {
        keepFrom = index
        defer { keepFrom = nil }
        func digits() throws -> Int {
            var count = 0
            while let byte = try current(), JSONScanner.isDigit(byte) {
                index += 1
                count += 1
                if index - (keepFrom ?? 0) > Self.maximumTokenLength {
                    index = keepFrom ?? 0
                    throw error("a number longer than \(Self.maximumTokenLength) bytes")
                }
            }
            return count
        }
        if try current() == UInt8(ascii: "-") { index += 1 }
        guard let first = try current(), JSONScanner.isDigit(first) else {
            throw try current() == nil ? error("unexpected end of input in a number") : unexpected("expected a digit in a number")
        }
        index += 1
        if first == UInt8(ascii: "0"), let next = try current(), JSONScanner.isDigit(next) {
            throw error("a number cannot have a leading zero")
        }
        _ = try digits()
        if try current() == UInt8(ascii: ".") {
            index += 1
            guard try digits() > 0 else { throw try unexpectedOrEnd("expected a digit after '.' in a number") }
        }
        if try current() == UInt8(ascii: "e") || current() == UInt8(ascii: "E") {
            index += 1
            if try current() == UInt8(ascii: "+") || current() == UInt8(ascii: "-") { index += 1 }
            guard try digits() > 0 else { throw try unexpectedOrEnd("expected a digit in a number's exponent") }
        }
        let start = keepFrom ?? 0
        return String(decoding: buffer[start..<index], as: UTF8.self)
    }

    private mutating func literal(_ literal: StaticString) throws {
        let count = literal.utf8CodeUnitCount
        try ensure(count)
        let matches = literal.withUTF8Buffer { text in
            index + count <= buffer.count && (0..<count).allSatisfy { buffer[index + $0] == text[$0] }
        }
        guard matches else { throw try unexpected("expected a value") }
        index += count
    }

    // MARK: - The buffer

    /// The next byte, or `nil` at the end of the input.
    private mutating func current() throws -> UInt8? {
        if index >= buffer.count {
            guard try refill() else { return nil }
        }
        return buffer[index]
    }

    /// Makes `count` bytes from `index` available, or as many as the input still has.
    private mutating func ensure(_ count: Int) throws {
        while buffer.count - index < count {
            let kept = keepFrom
            let offset = index - (kept ?? index)
            if kept == nil { keepFrom = index }
            defer { if kept == nil { keepFrom = nil } }
            guard try refill() else { return }
            index = (keepFrom ?? 0) + offset
        }
    }

    private mutating func fill(atLeast count: Int) throws {
        while buffer.count - index < count, try refill() {}
    }

    /// Drops what is no longer needed (everything before `index`, or before `keepFrom`), then
    /// reads the next piece of input. Moves `keepFrom` (and `index`) with the bytes.
    /// - Returns: `false` at the end of the input.
    private mutating func refill() throws -> Bool {
        if atEnd { return false }
        let drop = min(keepFrom ?? index, index)
        if drop > 0 {
            // Count the current line's characters in what is dropped, for columns in errors.
            let from = max(0, lineStart - bufferOffset)
            if from < drop {
                for position in from..<drop where buffer[position] & 0xC0 != 0x80 { droppedColumns += 1 }
            }
            buffer.removeSubrange(0..<drop)
            bufferOffset += drop
            index -= drop
            if let kept = keepFrom { keepFrom = kept - drop }
        }
        guard let chunk = try read(), !chunk.isEmpty else {
            atEnd = true
            return false
        }
        buffer.append(contentsOf: chunk)
        return true
    }

    // MARK: - Errors

    private func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: bufferOffset + index, message: message)
    }

    private mutating func unexpectedOrEnd(_ expected: String) throws -> JSONSyntaxError {
        try current() == nil ? error("unexpected end of input; \(expected)") : unexpected(expected)
    }

    /// "unexpected character 'x'; expected …", or "invalid UTF-8" when the bytes there do not
    /// form a character.
    private mutating func unexpected(_ expected: String) throws -> JSONSyntaxError {
        guard let byte = try current() else { return error("unexpected end of input; \(expected)") }
        if byte < 0x80 {
            let shown = byte < 0x20 || byte == 0x7F ? JSONScanner.scalarName(UInt32(byte)) : "'\(Character(Unicode.Scalar(byte)))'"
            return error("unexpected character \(shown); \(expected)")
        }
        try ensure(4)
        let place = index
        return buffer.withUnsafeBufferPointer { bytes in
            guard let length = JSONScanner.validUTF8SequenceLength(bytes, at: place) else { return error("invalid UTF-8") }
            let scalar = String(decoding: UnsafeBufferPointer(rebasing: bytes[place..<place + length]), as: UTF8.self)
            return error("unexpected character '\(scalar)'; \(expected)")
        }
    }

    /// Line, column (in characters) and byte offset of `offset`, which is at or after the start
    /// of the current line and inside the buffer.
    private func location(of offset: Int) -> TextLocation {
        let from = max(0, lineStart - bufferOffset)
        let end = min(max(from, offset - bufferOffset), buffer.count)
        var column = droppedColumns + 1
        for position in from..<end where buffer[position] & 0xC0 != 0x80 { column += 1 }
        return TextLocation(line: line, column: column, offset: offset)
    }
}

extension TextLocation {
    /// A place given directly.
    init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }
}
