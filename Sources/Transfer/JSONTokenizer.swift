import Repository

/// A place in some input text, for error messages: 1-based line and column (counted in
/// characters, as an editor shows them), and the 0-based byte offset.
struct TextLocation: Hashable, Sendable, CustomStringConvertible {
    var line: Int
    var column: Int
    var offset: Int

    /// A place given directly.
    init(line: Int, column: Int, offset: Int) {
        self.line = line
        self.column = column
        self.offset = offset
    }

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

/// The first problem found in some JSON text: where (a byte offset into the input) and what was
/// expected.
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

/// What `JSONTokenizer.forEachNode` makes of an array.
enum JSONArrayNodes {
    /// Its elements are nodes too, after the array's own (whose text is `nil`).
    case elements
    /// It is one node, whose text is its JSON text written compactly (strings and numbers
    /// exactly as in the document, no whitespace between tokens); nothing inside it is a node.
    case text
}

/// Where a `JSONTokenizer` gets its bytes: all at once (`JSONBuffer`, the whole-buffer front,
/// `JSONReader`) or a piece at a time (`JSONChunks`, under `JSONStream`).
protocol JSONInput {
    /// The bytes at hand. Valid until the next `refill`.
    var bytes: UnsafeBufferPointer<UInt8> { get }
    /// The offset in the whole input of `bytes[0]`, for errors.
    var baseOffset: Int { get }
    /// The longest string or number accepted, in bytes as written; `Int.max` for none.
    static var maximumTokenLength: Int { get }
    /// Reads more input. On success, first drops the bytes before `keeping` (nothing from there on
    /// is dropped) and returns how many were dropped, so that the tokenizer moves its places down
    /// by that much; returns `nil`, dropping nothing, at the end of the input. An input that
    /// cannot be read ends there; its front reports why.
    mutating func refill(keeping: Int) -> Int?
}

/// The one place that knows JSON's grammar (RFC 8259 over UTF-8): strings, their escapes and
/// their UTF-8, numbers, literals, nesting, the limits (`maximumDepth`, the input's
/// `maximumTokenLength`) and the one-line errors with their byte offsets. `scanValue` checks a
/// value and builds nothing; `forEachNode` also hands over each value as a node.
///
/// It never recurses: nesting is an explicit stack, refused past `maximumDepth`. Over an input
/// that refills (a stream), only the token being read (or, for an array read as text, the
/// array) is kept across a refill: places held across one are the marks `tokenStart` and
/// `valueStart`, which move with the bytes.
struct JSONTokenizer<Input: JSONInput> {
    private(set) var input: Input
    /// `input.bytes`, as of the last refill.
    private(set) var bytes: UnsafeBufferPointer<UInt8>
    /// The next byte to read.
    var index: Int
    /// Where the string or number being read starts, kept across refills.
    private var tokenStart: Int?
    /// Where the value being read whole (an array read as text) starts, kept across refills.
    private var valueStart: Int?

    init(input: Input, from index: Int = 0) {
        self.input = input
        self.bytes = input.bytes
        self.index = index
    }

    /// The deepest nesting accepted.
    static var maximumDepth: Int { 1_000 }

    // MARK: - The input

    /// The next byte, or `nil` at the end of the input.
    @inline(__always)
    mutating func peek() -> UInt8? {
        if index < bytes.count || refill() { return bytes[index] }
        return nil
    }

    /// Makes `count` bytes from `index` available, or as many as the input still has.
    @inline(__always)
    mutating func ensure(_ count: Int) {
        while bytes.count - index < count, refill() {}
    }

    /// Reads more of the input, keeping the bytes from the first of `index` and the marks.
    /// - Returns: `false` at the end of the input.
    @inline(__always)
    private mutating func refill() -> Bool {
        var keeping = index
        if let tokenStart { keeping = min(keeping, tokenStart) }
        if let valueStart { keeping = min(keeping, valueStart) }
        guard let dropped = input.refill(keeping: keeping) else { return false }
        bytes = input.bytes
        index -= dropped
        if let start = tokenStart { tokenStart = start - dropped }
        if let start = valueStart { valueStart = start - dropped }
        return true
    }

    mutating func skipByteOrderMark() {
        guard index == 0 else { return }
        ensure(3)
        if bytes.count >= 3 && bytes[0] == 0xEF && bytes[1] == 0xBB && bytes[2] == 0xBF { index = 3 }
    }

    @inline(__always)
    mutating func skipWhitespace() {
        repeat {
            var next = index  // a local, which the optimiser keeps in a register
            while next < bytes.count {
                switch bytes[next] {
                case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"): next += 1
                default:
                    index = next
                    return
                }
            }
            index = next
        } while refill()
    }

    // MARK: - Values

    /// Scans one complete value, leading whitespace included, and returns its kind. `depth` is how
    /// deeply the value is already nested, for `maximumDepth`.
    @discardableResult
    mutating func scanValue(depth: Int = 0) throws(JSONSyntaxError) -> JSONValueKind {
        skipWhitespace()
        let kind = peek().flatMap(JSONValueKind.init(firstByte:))
        var open: [UInt8] = []  // the closing bracket each open container is waiting for
        while true {
            // A value is expected here.
            skipWhitespace()
            guard let byte = peek() else { throw error("unexpected end of input; expected a value") }
            switch byte {
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard depth + open.count < Self.maximumDepth else { throw tooDeep() }
                index += 1
                skipWhitespace()
                let closing = byte == UInt8(ascii: "{") ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if peek() == closing {
                    index += 1
                } else {
                    open.append(closing)
                    if byte == UInt8(ascii: "{") { try scanMemberName(decoding: false) }
                    continue
                }
            case UInt8(ascii: "\""):
                tokenStart = index
                defer { tokenStart = nil }
                try scanString()
            case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
                tokenStart = index
                defer { tokenStart = nil }
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
            switch try afterValue(&open) {
            case .end: return kind ?? .null
            case .element: continue
            case .member: try scanMemberName(decoding: false)
            }
        }
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
    mutating func forEachNode(arrays: JSONArrayNodes, _ body: (JSONTreeNode) throws -> Void) throws {
        var ids: [Int64] = []  // each open container's id
        var open: [UInt8] = []  // and the bracket closing it
        var nextID: Int64 = 0
        var key: String?
        while true {
            // A value is expected here.
            skipWhitespace()
            guard let byte = peek() else { throw error("unexpected end of input; expected a value") }
            var node = JSONTreeNode(id: nextID, parent: ids.last, kind: .null, key: key, text: nil)
            nextID += 1
            key = nil
            switch byte {
            case UInt8(ascii: "[") where arrays == .text:
                valueStart = index
                defer { valueStart = nil }
                try scanValue(depth: open.count)
                node.kind = .array
                node.text = compactText(valueStart!..<index)
                try body(node)
            case UInt8(ascii: "{"), UInt8(ascii: "["):
                guard open.count < Self.maximumDepth else { throw tooDeep() }
                let isObject = byte == UInt8(ascii: "{")
                node.kind = isObject ? .object : .array
                try body(node)
                index += 1
                skipWhitespace()
                let closing = isObject ? UInt8(ascii: "}") : UInt8(ascii: "]")
                if peek() == closing {
                    index += 1
                } else {
                    ids.append(node.id)
                    open.append(closing)
                    if isObject { key = try scanMemberName(decoding: true) }
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
            let next = try afterValue(&open)
            ids.removeLast(ids.count - open.count)
            switch next {
            case .end: return
            case .element: continue
            case .member: key = try scanMemberName(decoding: true)
            }
        }
    }

    /// What comes after a value.
    private enum AfterValue {
        /// The value was the outermost.
        case end
        /// The next element of an array.
        case element
        /// The next member of an object, whose name is at `index`.
        case member
    }

    /// After a value: closes the containers it ends (popping `open`, the closing bracket each
    /// open container is waiting for), or steps over the ',' before the next element or member.
    private mutating func afterValue(_ open: inout [UInt8]) throws(JSONSyntaxError) -> AfterValue {
        while let closing = open.last {
            skipWhitespace()
            let next = peek()
            if next == UInt8(ascii: ",") {
                index += 1
                guard closing == UInt8(ascii: "}") else { return .element }
                skipWhitespace()
                return .member
            } else if next == closing {
                index += 1
                open.removeLast()
            } else if next == nil {
                throw error("unexpected end of input; expected ',' or '\(Character(Unicode.Scalar(closing)))'")
            } else {
                let expected = closing == UInt8(ascii: "}") ? "after an object member" : "after an array element"
                throw unexpected("expected ',' or '\(Character(Unicode.Scalar(closing)))' \(expected)")
            }
        }
        return .end
    }

    private func tooDeep() -> JSONSyntaxError {
        error("the document is nested deeper than \(Self.maximumDepth) levels")
    }

    // MARK: - Tokens

    /// Scans `"name" :`, the start of an object member, and returns the name, decoded when
    /// `decoding`.
    @discardableResult
    private mutating func scanMemberName(decoding: Bool) throws(JSONSyntaxError) -> String? {
        guard peek() == UInt8(ascii: "\"") else {
            throw peek() == nil
                ? error("unexpected end of input; expected a member name in double quotes")
                : unexpected("expected a member name in double quotes")
        }
        var name: String?
        if decoding {
            name = try string()
        } else {
            tokenStart = index
            defer { tokenStart = nil }
            try scanString()
        }
        skipWhitespace()
        guard peek() == UInt8(ascii: ":") else {
            throw peek() == nil ? error("unexpected end of input; expected ':'") : unexpected("expected ':' after a member name")
        }
        index += 1
        return name
    }

    /// A string literal, decoded; `index` is at its opening quote.
    private mutating func string() throws(JSONSyntaxError) -> String {
        tokenStart = index
        defer { tokenStart = nil }
        let escaped = try scanString()
        return decoded(tokenStart!..<index, escaped: escaped)
    }

    /// The text of the string literal (quotes included) at `literal`, which was scanned.
    private func decoded(_ literal: Range<Int>, escaped: Bool) -> String {
        escaped
            ? Self.decodeString(UnsafeBufferPointer(rebasing: bytes[literal]))
            : String(decoding: UnsafeBufferPointer(rebasing: bytes[literal.lowerBound + 1..<literal.upperBound - 1]), as: UTF8.self)
    }

    /// A number's text as written; `index` is at its first byte.
    private mutating func number() throws(JSONSyntaxError) -> String {
        tokenStart = index
        defer { tokenStart = nil }
        try scanNumber()
        return String(decoding: UnsafeBufferPointer(rebasing: bytes[tokenStart!..<index]), as: UTF8.self)
    }

    /// Scans a string literal whose opening quote is at `tokenStart` and `index`, and returns
    /// whether it holds escapes.
    @discardableResult
    private mutating func scanString() throws(JSONSyntaxError) -> Bool {
        index += 1
        var escaped = false
        let limited = Input.maximumTokenLength != .max
        while true {
            // Runs of plain ASCII, the common case, up to the end of the bytes at hand or the
            // length limit, whichever comes first.
            let stop = limited ? min(bytes.count, tokenStart! + Input.maximumTokenLength + 1) : bytes.count
            var next = index  // a local, which the optimiser keeps in a register
            while next < stop {
                let byte = bytes[next]
                guard byte >= 0x20 && byte < 0x80 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") else { break }
                next += 1
            }
            index = next
            guard index < bytes.count || refill() else {
                index = tokenStart!
                throw error("unterminated string")
            }
            guard !limited || index - tokenStart! <= Input.maximumTokenLength else {
                index = tokenStart!
                throw error(
                    "a string longer than \(Input.maximumTokenLength) bytes; a title or value holds at most \(SectionStore.maximumTextLength) bytes"
                )
            }
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
                ensure(4)
                guard let length = Self.validUTF8SequenceLength(bytes, at: index) else { throw error("invalid UTF-8") }
                index += length
            }
        }
    }

    /// An escape inside a string, checked; `index` is at its backslash. The longest escape (a
    /// surrogate pair, 12 bytes) is read in before it is looked at, so no place inside it moves.
    private mutating func scanEscape() throws(JSONSyntaxError) {
        ensure(12)
        let start = index
        index += 1
        guard index < bytes.count else { throw error("unterminated string") }
        switch bytes[index] {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"), UInt8(ascii: "b"), UInt8(ascii: "f"),
            UInt8(ascii: "n"), UInt8(ascii: "r"), UInt8(ascii: "t"):
            index += 1
        case UInt8(ascii: "u"):
            index += 1
            let unit = try hexUnit()
            if (0xDC00...0xDFFF).contains(unit) {
                index = start
                throw error("\\u\(Self.hex(unit)) is a lone low surrogate; it must follow a high one")
            }
            if (0xD800...0xDBFF).contains(unit) {
                guard index + 1 < bytes.count, bytes[index] == UInt8(ascii: "\\"), bytes[index + 1] == UInt8(ascii: "u") else {
                    index = start
                    throw error("\\u\(Self.hex(unit)) is a lone high surrogate; a \\uDC00-\\uDFFF escape must follow it")
                }
                index += 2
                let second = try hexUnit()
                guard (0xDC00...0xDFFF).contains(second) else {
                    index = start
                    throw error("\\u\(Self.hex(unit)) is a lone high surrogate; a \\uDC00-\\uDFFF escape must follow it")
                }
            }
        default:
            throw unexpected("invalid escape in a string; expected one of \\\" \\\\ \\/ \\b \\f \\n \\r \\t \\uXXXX")
        }
    }

    /// Four hexadecimal digits, already read in by `scanEscape`.
    private mutating func hexUnit() throws(JSONSyntaxError) -> UInt32 {
        var unit: UInt32 = 0
        for _ in 0..<4 {
            guard index < bytes.count, let digit = Self.hexValue(bytes[index]) else {
                throw index >= bytes.count ? error("unterminated string") : unexpected("expected four hexadecimal digits after \\u")
            }
            unit = unit << 4 | digit
            index += 1
        }
        return unit
    }

    /// Scans a number whose first byte is at `tokenStart` and `index`.
    private mutating func scanNumber() throws(JSONSyntaxError) {
        if peek() == UInt8(ascii: "-") { index += 1 }
        guard let first = peek(), Self.isDigit(first) else {
            throw peek() == nil ? error("unexpected end of input in a number") : unexpected("expected a digit in a number")
        }
        index += 1
        if first == UInt8(ascii: "0"), let next = peek(), Self.isDigit(next) {
            throw error("a number cannot have a leading zero")
        }
        try digits()
        if peek() == UInt8(ascii: ".") {
            index += 1
            guard try digits() > 0 else { throw unexpectedOrEnd("expected a digit after '.' in a number") }
        }
        if peek() == UInt8(ascii: "e") || peek() == UInt8(ascii: "E") {
            index += 1
            if peek() == UInt8(ascii: "+") || peek() == UInt8(ascii: "-") { index += 1 }
            guard try digits() > 0 else { throw unexpectedOrEnd("expected a digit in a number's exponent") }
        }
    }

    /// Steps over digits and returns how many.
    @discardableResult
    private mutating func digits() throws(JSONSyntaxError) -> Int {
        var count = 0
        while let byte = peek(), Self.isDigit(byte) {
            index += 1
            count += 1
            if index - tokenStart! > Input.maximumTokenLength {
                index = tokenStart!
                throw error("a number longer than \(Input.maximumTokenLength) bytes")
            }
        }
        return count
    }

    private mutating func scanLiteral(_ literal: StaticString) throws(JSONSyntaxError) {
        let count = literal.utf8CodeUnitCount
        ensure(count)
        let matches = literal.withUTF8Buffer { text in
            index + count <= bytes.count && (0..<count).allSatisfy { bytes[index + $0] == text[$0] }
        }
        guard matches else { throw unexpected("expected a value") }
        index += count
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
        return compact.map { String(decoding: $0, as: UTF8.self) }
            ?? String(decoding: UnsafeBufferPointer(rebasing: bytes[range]), as: UTF8.self)
    }

    // MARK: - Errors

    /// `message` at `index`.
    func error(_ message: String) -> JSONSyntaxError {
        JSONSyntaxError(offset: input.baseOffset + index, message: message)
    }

    private mutating func unexpectedOrEnd(_ expected: String) -> JSONSyntaxError {
        peek() == nil ? error("unexpected end of input; \(expected)") : unexpected(expected)
    }

    /// "unexpected character 'x'; expected …", or "invalid UTF-8" when the bytes there do not
    /// form a character.
    mutating func unexpected(_ expected: String) -> JSONSyntaxError {
        guard let byte = peek() else { return error("unexpected end of input; \(expected)") }
        if byte < 0x80 {
            let shown = byte < 0x20 || byte == 0x7F ? Self.scalarName(UInt32(byte)) : "'\(Character(Unicode.Scalar(byte)))'"
            return error("unexpected character \(shown); \(expected)")
        }
        ensure(4)
        guard let length = Self.validUTF8SequenceLength(bytes, at: index) else { return error("invalid UTF-8") }
        let scalar = String(decoding: UnsafeBufferPointer(rebasing: bytes[index..<index + length]), as: UTF8.self)
        return error("unexpected character '\(scalar)'; \(expected)")
    }
}

// MARK: - Bytes

extension JSONTokenizer {
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
        case 0xE0:
            length = 3
            low = 0xA0
        case 0xE1...0xEC, 0xEE...0xEF: length = 3
        case 0xED:
            length = 3
            high = 0x9F
        case 0xF0:
            length = 4
            low = 0x90
        case 0xF1...0xF3: length = 4
        case 0xF4:
            length = 4
            high = 0x8F
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

    /// The text of a JSON string literal (quotes included) that the tokenizer found valid.
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

extension JSONSyntaxError {
    /// The error as `RepositoryError.invalidData`, placed in the input.
    func invalidData(in bytes: UnsafeBufferPointer<UInt8>, line: Int = 1, baseOffset: Int = 0, prefix: String = "invalid JSON")
        -> RepositoryError
    {
        .invalidData("\(prefix) at \(TextLocation(of: offset, in: bytes, line: line, baseOffset: baseOffset)): \(message)")
    }
}
