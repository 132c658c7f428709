import Repository

/// A place in some input text, for error messages: 1-based line and column (counted in
/// characters, as an editor shows them), and the 0-based byte offset.
struct TextLocation: Hashable, Sendable, CustomStringConvertible {
    var line: Int
    var column: Int
    var offset: Int

    /// The location of byte `offset` of `bytes`, whose first byte is at line `line` and byte
    /// offset `baseOffset` of the whole input.
    init(of offset: Int, in bytes: UnsafeBufferPointer<UInt8>, line: Int = 1, baseOffset: Int = 0) {
        var line = line
        var lineStart = 0
        let end = min(offset, bytes.count)
        for index in 0..<end where bytes[index] == UInt8(ascii: "\n") {
            line += 1
            lineStart = index + 1
        }
        // Characters, not bytes: count every byte that does not continue a UTF-8 sequence.
        var column = 1
        for index in lineStart..<end where bytes[index] & 0xC0 != 0x80 {
            column += 1
        }
        self.line = line
        self.column = column
        self.offset = baseOffset + offset
    }

    var description: String { "line \(line), column \(column) (byte offset \(offset))" }
}

/// The first problem found in some JSON text: where (a byte offset into the scanned bytes) and
/// what was expected.
struct JSONSyntaxError: Error {
    var offset: Int
    var message: String
}

/// The kind of a JSON value, told from its first byte.
enum JSONValueKind: String {
    case object = "an object"
    case array = "an array"
    case string = "a string"
    case number = "a number"
    case boolean = "a boolean"
    case null = "null"

    init?(firstByte: UInt8) {
        switch firstByte {
        case UInt8(ascii: "{"): self = .object
        case UInt8(ascii: "["): self = .array
        case UInt8(ascii: "\""): self = .string
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): self = .number
        case UInt8(ascii: "t"), UInt8(ascii: "f"): self = .boolean
        case UInt8(ascii: "n"): self = .null
        default: return nil
        }
    }
}

/// Checks JSON text (RFC 8259, UTF-8) and finds where it goes wrong: `scanValue` builds
/// nothing, `forEachNode` (below) also hands over each value as a node. It never recurses:
/// nesting is an explicit stack, refused past `maximumDepth`.
struct JSONScanner {
    /// The deepest nesting accepted.
    static let maximumDepth = 1_000

    let bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var index: Int

    init(_ bytes: UnsafeBufferPointer<UInt8>, from index: Int = 0) {
        self.bytes = bytes
        self.index = index
    }

    var isAtEnd: Bool { index >= bytes.count }

    /// The next byte, or `nil` at the end.
    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipByteOrderMark() {
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF && index == 0 {
            index = 3
        }
    }

    mutating func skipWhitespace() {
        while index < bytes.count {
            switch bytes[index] {
            case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): index += 1
            default: return
            }
        }
    }

    /// Scans one complete value, leading whitespace included, and returns its kind. `depth` is how
    /// deeply the value is already nested, for `maximumDepth`.
    @discardableResult
    mutating func scanValue(depth: Int = 0) throws(JSONSyntaxError) -> JSONValueKind {
        skipWhitespace()
        let kind = current.flatMap(JSONValueKind.init(firstByte:))
        var open: [UInt8] = []  // the closing bracket each open container is waiting for
        while true {
            // A value is expected here.
            skipWhitespace()
            guard let byte = current else { throw error("unexpected end of input; expected a value") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth + open.count < Self.maximumDepth else {
                    throw error("the document is nested deeper than \(Self.maximumDepth) levels")
                }
                index += 1
                skipWhitespace()
                if byte == UInt8(ascii: "{") {
                    open.append(UInt8(ascii: "}"))
                    if current == UInt8(ascii: "}") {
                        index += 1
                    } else {
                        try scanMemberName()
                        continue
                    }
                } else {
                    open.append(UInt8(ascii: "]"))
                    if current == UInt8(ascii: "]") {
                        index += 1
                    } else {
                        continue
                    }
                }
                open.removeLast()
            case UInt8(ascii: "\""):
                try scanString()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                try scanNumber()
            case UInt8(ascii: "t"):
                try scanLiteral("true")
            case UInt8(ascii: "f"):
                try scanLiteral("false")
            case UInt8(ascii: "n"):
                try scanLiteral("null")
            default:
                throw unexpected("expected a value")
            }
            // A value ended: close containers, or go on to the next element or member.
            while let closing = open.last {
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    if closing == UInt8(ascii: "}") {
                        skipWhitespace()
                        try scanMemberName()
                    }
                    break
                } else if current == closing {
                    index += 1
                    open.removeLast()
                } else if current == nil {
                    throw error("unexpected end of input; expected ',' or '\(Character(Unicode.Scalar(closing)))'")
                } else {
                    let expected = closing == UInt8(ascii: "}") ? "after an object member" : "after an array element"
                    throw unexpected("expected ',' or '\(Character(Unicode.Scalar(closing)))' \(expected)")
                }
            }
            if open.isEmpty { return kind ?? .null }
        }
    }

    /// Scans `"name" :`, the start of an object member, and returns the name's literal (quotes
    /// included) and whether it holds escapes.
    @discardableResult
    private mutating func scanMemberName() throws(JSONSyntaxError) -> (literal: Range<Int>, escaped: Bool) {
        guard current == UInt8(ascii: "\"") else {
            throw current == nil
                ? error("unexpected end of input; expected a member name in double quotes")
                : unexpected("expected a member name in double quotes")
        }
        let start = index
        let escaped = try scanString()
        let literal = start..<index
        skipWhitespace()
        guard current == UInt8(ascii: ":") else {
            throw current == nil ? error("unexpected end of input; expected ':'") : unexpected("expected ':' after a member name")
        }
        index += 1
        return (literal, escaped)
    }

    /// Scans a string literal and returns whether it holds escapes.
    @discardableResult
    private mutating func scanString() throws(JSONSyntaxError) -> Bool {
        let start = index
        index += 1
        var escaped = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\"") {
                index += 1
                return escaped
            } else if byte == UInt8(ascii: "\\") {
                escaped = true
                try scanEscape()
            } else if byte < 0x20 {
                throw error("a control character (\(Self.scalarName(UInt32(byte)))) inside a string must be escaped")
            } else if byte < 0x80 {
                index += 1
            } else {
                guard let length = Self.validUTF8SequenceLength(bytes, at: index) else {
                    throw error("invalid UTF-8")
                }
                index += length
            }
        }
        index = start
        throw error("unterminated string")
    }

    private mutating func scanEscape() throws(JSONSyntaxError) {
        let start = index
        index += 1
        guard let byte = current else { throw error("unterminated string") }
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            index += 1
            let unit = try hexUnit(escapeStart: start)
            if (0xDC00...0xDFFF).contains(unit) {
                index = start
                throw error("\\u\(Self.hex(unit)) is a lone low surrogate; it must follow a high one")
            }
            if (0xD800...0xDBFF).contains(unit) {
                let low = index
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    index = start
                    throw error("\\u\(Self.hex(unit)) is a lone high surrogate; a \\uDC00-\\uDFFF escape must follow it")
                }
                index += 2
                let second = try hexUnit(escapeStart: low)
                guard (0xDC00...0xDFFF).contains(second) else {
                    index = start
                    throw error("\\u\(Self.hex(unit)) is a lone high surrogate; a \\uDC00-\\uDFFF escape must follow it")
                }
            }
        default:
            throw unexpected("invalid escape in a string; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
        }
    }

    private mutating func hexUnit(escapeStart: Int) throws(JSONSyntaxError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexValue(byte) else {
                throw current == nil ? error("unterminated string") : unexpected("expected four hexadecimal digits after \\u")
            }
            unit = unit << 4 | digit
            index += 1
        }
        return unit
    }

    private mutating func scanNumber() throws(JSONSyntaxError) {
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, Self.isDigit(first) else {
            throw current == nil ? error("unexpected end of input in a number") : unexpected("expected a digit in a number")
        }
        index += 1
        if first == UInt8(ascii: "0"), let next = current, Self.isDigit(next) {
            throw error("a number cannot have a leading zero")
        }
        while let byte = current, Self.isDigit(byte) { index += 1 }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let byte = current, Self.isDigit(byte) else { throw unexpectedOrEnd("expected a digit after '.' in a number") }
            while let byte = current, Self.isDigit(byte) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let byte = current, Self.isDigit(byte) else { throw unexpectedOrEnd("expected a digit in a number's exponent") }
            while let byte = current, Self.isDigit(byte) { index += 1 }
        }
    }

    private mutating func scanLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        let matches = literal.withUTF8Buffer { text in
            index + count <= bytes.count && (0..<count).allSatisfy { bytes[index + $0] == text[$0] }
        }
        guard matches else { throw unexpected("expected a value") }
        index += count
    }

    // MARK: - Errors

    func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: index, message: message)
    }

    private func unexpectedOrEnd(_ expected: String) -> JSONSyntaxError {
        current == nil ? error("unexpected end of input; \(expected)") : unexpected(expected)
    }

    /// "unexpected character 'x'; expected …", or "invalid UTF-8" when the bytes there do not
    /// form a character.
    func unexpected(_ expected: String) -> JSONSyntaxError {
        guard let byte = current else { return error("unexpected end of input; \(expected)") }
        if byte < 0x80 {
            let shown = byte < 0x20 || byte == 0x7F ? Self.scalarName(UInt32(byte)) : "'\(Character(Unicode.Scalar(byte)))'"
            return error("unexpected character \(shown); \(expected)")
        }
        guard let length = Self.validUTF8SequenceLength(bytes, at: index) else { return error("invalid UTF-8") }
        let scalar = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), as: UTF8.self)
        return error("unexpected character '\(scalar)'; \(expected)")
    }

    // MARK: - Bytes

    static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    static func hexValue(_ byte: UInt8) -> UInt32? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(byte - UInt8(ascii: "0"))
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return UInt32(byte - UInt8(ascii: "a") + 10)
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return UInt32(byte - UInt8(ascii: "A") + 10)
        default: return nil
        }
    }

    static func hex(_ value: UInt32) -> String {
        let digits = String(value, radix: 16, uppercase: true)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    static func scalarName(_ value: UInt32) -> String { "U+" + hex(value) }

    /// The length of the well-formed UTF-8 sequence starting at `index` (Unicode table 3-7: no
    /// overlong forms, no surrogates, nothing past U+10FFFF), or `nil` when there is none.
    static func validUTF8SequenceLength(_ bytes: UnsafeBufferPointer<UInt8>, at index: Int) -> Int? {
        let lead = bytes[index]
        let length: Int
        var low: UInt8 = 0x80
        var high: UInt8 = 0xBF
        switch lead {
        case 0x00...0x7F: return 1
        case 0xC2...0xDF: length = 2
        case 0xE0: length = 3; low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED: length = 3; high = 0x9F
        case 0xF0: length = 4; low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4: length = 4; high = 0x8F
        default: return nil
        }
        guard index + length <= bytes.count else { return nil }
        let second = bytes[index + 1]
        guard second >= low && second <= high else { return nil }
        for offset in 2..<max(2, length) where bytes[index + offset] & 0xC0 != 0x80 {
            return nil
        }
        return length
    }
}

extension JSONSyntaxError {
    /// The error as `RepositoryError.invalidData`, placed in the input.
    func invalidData(in bytes: UnsafeBufferPointer<UInt8>, line: Int = 1, baseOffset: Int = 0, prefix: String = "invalid JSON")
        -> RepositoryError
    {
        .invalidData("\(prefix) at \(TextLocation(of: offset, in: bytes, line: line, baseOffset: baseOffset)): \(message)")
    }
}

extension JSONScanner {
    /// A whole document checked: one value and nothing after it but whitespace (a UTF-8 byte
    /// order mark before it is skipped).
    struct Document {
        /// The kind of the top-level value.
        var kind: JSONValueKind
        /// The value's text.
        var json: String
    }

    static func scanDocument(_ bytes: UnsafeBufferPointer<UInt8>) throws(JSONSyntaxError) -> Document {
        var scanner = JSONScanner(bytes)
        scanner.skipByteOrderMark()
        scanner.skipWhitespace()
        let start = scanner.index
        let kind = try scanner.scanValue()
        let end = scanner.index
        scanner.skipWhitespace()
        guard scanner.isAtEnd else { throw scanner.unexpected("expected the end of the document") }
        return Document(kind: kind, json: scanner.text(start..<end))
    }

    /// The bytes in `range` as a string (already checked to be UTF-8).
    func text(_ range: Range<Int>) -> String {
        String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    /// The text of a JSON string literal (quotes included) that the scanner found valid.
    static func decodeString(_ literal: UnsafeBufferPointer<UInt8>) -> String {
        var scalars = String.UnicodeScalarView()
        var utf8: [UInt8] = []
        func flush() {
            if !utf8.isEmpty {
                scalars.append(contentsOf: String(decoding: utf8, as: UTF8.self).unicodeScalars)
                utf8.removeAll(keepingCapacity: true)
            }
        }
        func unit(at index: Int) -> UInt32 {
            (0..<4).reduce(0) { $0 << 4 | (hexValue(literal[index + $1]) ?? 0) }
        }
        var index = 1
        while index < literal.count - 1 {
            let byte = literal[index]
            guard byte == UInt8(ascii: "\\") else {
                utf8.append(byte)
                index += 1
                continue
            }
            let escaped = literal[index + 1]
            index += 2
            switch escaped {
            case UInt8(ascii: "b"): utf8.append(0x08)
            case UInt8(ascii: "f"): utf8.append(0x0C)
            case UInt8(ascii: "n"): utf8.append(0x0A)
            case UInt8(ascii: "r"): utf8.append(0x0D)
            case UInt8(ascii: "t"): utf8.append(0x09)
            case UInt8(ascii: "u"):
                var value = unit(at: index)
                index += 4
                if (0xD800...0xDBFF).contains(value) {
                    value = 0x10000 + (value - 0xD800) << 10 + (unit(at: index + 2) - 0xDC00)
                    index += 6
                }
                flush()
                scalars.append(Unicode.Scalar(value) ?? "\u{FFFD}")
            default: utf8.append(escaped)  // " \ /
            }
        }
        flush()
        return String(scalars)
    }
}

// MARK: - Nodes

extension JSONScanner {
    /// What `forEachNode` makes of an array.
    enum ArrayNodes {
        /// Its elements are nodes too, after the array's own (whose text is `nil`).
        case elements
        /// It is one node, whose text is its JSON text written compactly (strings and numbers
        /// exactly as in the document, no whitespace between tokens); nothing inside it is a node.
        case text
    }

    /// Reads one value, leading whitespace included, and calls `body` with each of its nodes in
    /// the order SQLite's `json_tree` visits them: parents before children, an object's members
    /// in the document's order (a name given twice gives two members), each member with its
    /// name as `key`. Ids count the nodes from 0 in that order. A string's text is decoded
    /// (U+0000 included); a number's is its text exactly as written; a boolean's is "true" or
    /// "false".
    ///
    /// Checks the syntax as `scanValue` does, with the same errors; `body` may already have seen
    /// the nodes before the one that is wrong. Never recurses.
    mutating func forEachNode(arrays: ArrayNodes, _ body: (JSONTreeNode) throws -> Void) throws {
        var open: [(id: Int64, closing: UInt8)] = []  // each open container and the bracket closing it
        var nextID: Int64 = 0
        var key: String?
        while true {
            // A value is expected here.
            skipWhitespace()
            guard let byte = current else { throw error("unexpected end of input; expected a value") }
            var node = JSONTreeNode(id: nextID, parent: open.last?.id, kind: .null, key: key, text: nil)
            nextID += 1
            key = nil
            switch byte {
            case UInt8(ascii: "[") where arrays == .text:
                let start = index
                try scanValue(depth: open.count)
                node.kind = .array
                node.text = compactText(start..<index)
                try body(node)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard open.count < Self.maximumDepth else {
                    throw error("the document is nested deeper than \(Self.maximumDepth) levels")
                }
                let isObject = byte == UInt8(ascii: "{")
                node.kind = isObject ? .object : .array
                try body(node)
                index += 1
                skipWhitespace()
                let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if current == closing {
                    index += 1
                } else {
                    open.append((node.id, closing))
                    if isObject { key = try memberName() }
                    continue
                }
            case UInt8(ascii: "\""):
                let start = index
                let escaped = try scanString()
                node.kind = .string
                node.text = string(start..<index, escaped: escaped)
                try body(node)
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                let start = index
                try scanNumber()
                node.kind = .number
                node.text = text(start..<index)
                try body(node)
            case UInt8(ascii: "t"):
                try scanLiteral("true")
                node.kind = .boolean
                node.text = "true"
                try body(node)
            case UInt8(ascii: "f"):
                try scanLiteral("false")
                node.kind = .boolean
                node.text = "false"
                try body(node)
            case UInt8(ascii: "n"):
                try scanLiteral("null")
                try body(node)
            default:
                throw unexpected("expected a value")
            }
            // A value ended: close containers, or go on to the next element or member.
            while let closing = open.last?.closing {
                skipWhitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    if closing == UInt8(ascii: "}") {
                        skipWhitespace()
                        key = try memberName()
                    }
                    break
                } else if current == closing {
                    index += 1
                    open.removeLast()
                } else if current == nil {
                    throw error("unexpected end of input; expected ',' or '\(Character(Unicode.Scalar(closing)))'")
                } else {
                    let expected = closing == UInt8(ascii: "}") ? "after an object member" : "after an array element"
                    throw unexpected("expected ',' or '\(Character(Unicode.Scalar(closing)))' \(expected)")
                }
            }
            if open.isEmpty { return }
        }
    }

    /// Reads `"name" :` and returns the name, decoded.
    private mutating func memberName() throws(JSONSyntaxError) -> String {
        let name = try scanMemberName()
        return string(name.literal, escaped: name.escaped)
    }

    /// The text of the string literal (quotes included) at `literal`, which was scanned.
    private func string(_ literal: Range<Int>, escaped: Bool) -> String {
        escaped
            ? Self.decodeString(UnsafeBufferPointer(rebasing: bytes[literal]))
            : String(decoding: UnsafeBufferPointer(rebasing: bytes[literal.lowerBound + 1..<literal.upperBound - 1]), as: UTF8.self)
    }

    /// The scanned value at `range` without the whitespace between its tokens.
    private func compactText(_ range: Range<Int>) -> String {
        var compact: [UInt8]?  // set at the first whitespace to drop
        var inString = false
        var afterBackslash = false
        for position in range {
            let byte = bytes[position]
            if inString {
                if afterBackslash {
                    afterBackslash = false
                } else if byte == UInt8(ascii: "\\") {
                    afterBackslash = true
                } else if byte == UInt8(ascii: "\"") {
                    inString = false
                }
            } else if byte == UInt8(ascii: "\"") {
                inString = true
            } else if byte == UInt8(ascii: " ") || byte == UInt8(ascii: "\t") || byte == UInt8(ascii: "\n") || byte == UInt8(ascii: "\r") {
                if compact == nil {
                    compact = Array(UnsafeBufferPointer(rebasing: bytes[range.lowerBound..<position]))
                    compact?.reserveCapacity(range.count)
                }
                continue
            }
            compact?.append(byte)
        }
        return compact.map { String(decoding: $0, as: UTF8.self) } ?? text(range)
    }
}
