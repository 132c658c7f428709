// The JSON tokenizer's whole-buffer front against a strict reference parser written for this
// harness: both must accept and refuse the same inputs, and for accepted ones agree on the
// top-level kind, the text of every number and the decoded text of every string, in document
// order (as the reader's walk over the nodes gives them). The streaming front, handed the input
// in pieces of 1 to 7 bytes, must give the whole-buffer front's nodes and error exactly.
import Foundation

@testable import Repository
@testable import Transfer

/// RFC 8259 over UTF-8, with the product's own rules: a leading byte order mark is skipped,
/// nesting stops at `JSONReader.maximumDepth`, escapes of lone surrogates are refused.
/// Recursive and plain, written for clarity rather than speed.
private struct Reference {
    enum Failure: Error { case invalid }

    let bytes: [UInt8]
    var index = 0
    var numbers: [String] = []
    /// Every string (member names included) with its byte range and decoded text.
    var strings: [(range: Range<Int>, text: [Unicode.Scalar])] = []

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func document() throws(Failure) -> UInt8 {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }
        whitespace()
        guard let first = current else { throw .invalid }
        try value(depth: 0)
        whitespace()
        guard index == bytes.count else { throw .invalid }
        return first
    }

    mutating func whitespace() {
        while let byte = current, byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D { index += 1 }
    }

    mutating func value(depth: Int) throws(Failure) {
        whitespace()
        guard let byte = current else { throw .invalid }
        switch byte {
        case UInt8(ascii: "{"):
            guard depth < JSONReader.maximumDepth else { throw .invalid }
            index += 1
            whitespace()
            if current == UInt8(ascii: "}") {
                index += 1
                return
            }
            while true {
                whitespace()
                guard current == UInt8(ascii: "\"") else { throw .invalid }
                try string()
                whitespace()
                guard current == UInt8(ascii: ":") else { throw .invalid }
                index += 1
                try value(depth: depth + 1)
                whitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard current == UInt8(ascii: "}") else { throw .invalid }
                index += 1
                return
            }
        case UInt8(ascii: "["):
            guard depth < JSONReader.maximumDepth else { throw .invalid }
            index += 1
            whitespace()
            if current == UInt8(ascii: "]") {
                index += 1
                return
            }
            while true {
                try value(depth: depth + 1)
                whitespace()
                if current == UInt8(ascii: ",") {
                    index += 1
                    continue
                }
                guard current == UInt8(ascii: "]") else { throw .invalid }
                index += 1
                return
            }
        case UInt8(ascii: "\""): try string()
        case UInt8(ascii: "t"): try literal("true")
        case UInt8(ascii: "f"): try literal("false")
        case UInt8(ascii: "n"): try literal("null")
        default: try number()
        }
    }

    mutating func literal(_ text: String) throws(Failure) {
        let expected = Array(text.utf8)
        guard bytes.count - index >= expected.count, Array(bytes[index..<index + expected.count]) == expected else { throw .invalid }
        index += expected.count
    }

    static func isDigit(_ byte: UInt8?) -> Bool { byte.map { $0 >= 0x30 && $0 <= 0x39 } ?? false }

    mutating func number() throws(Failure) {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard Self.isDigit(current) else { throw .invalid }
        if current == UInt8(ascii: "0") {
            index += 1
        } else {
            while Self.isDigit(current) { index += 1 }
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard Self.isDigit(current) else { throw .invalid }
            while Self.isDigit(current) { index += 1 }
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard Self.isDigit(current) else { throw .invalid }
            while Self.isDigit(current) { index += 1 }
        }
        numbers.append(String(decoding: bytes[start..<index], as: UTF8.self))
    }

    mutating func hex4() throws(Failure) -> UInt32 {
        guard bytes.count - index >= 4 else { throw .invalid }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt32
            switch byte {
            case 0x30...0x39: digit = UInt32(byte - 0x30)
            case 0x41...0x46: digit = UInt32(byte - 0x41 + 10)
            case 0x61...0x66: digit = UInt32(byte - 0x61 + 10)
            default: throw .invalid
            }
            value = value << 4 | digit
            index += 1
        }
        return value
    }

    mutating func string() throws(Failure) {
        let start = index
        index += 1
        var text: [Unicode.Scalar] = []
        while true {
            guard let byte = current else { throw .invalid }
            if byte == UInt8(ascii: "\"") {
                index += 1
                strings.append((start..<index, text))
                return
            }
            if byte < 0x20 { throw .invalid }
            if byte == UInt8(ascii: "\\") {
                index += 1
                guard let escaped = current else { throw .invalid }
                index += 1
                switch escaped {
                case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): text.append(Unicode.Scalar(escaped))
                case UInt8(ascii: "b"): text.append("\u{8}")
                case UInt8(ascii: "f"): text.append("\u{C}")
                case UInt8(ascii: "n"): text.append("\n")
                case UInt8(ascii: "r"): text.append("\r")
                case UInt8(ascii: "t"): text.append("\t")
                case UInt8(ascii: "u"):
                    let unit = try hex4()
                    if (0xD800...0xDBFF).contains(unit) {
                        guard current == UInt8(ascii: "\\") else { throw .invalid }
                        index += 1
                        guard current == UInt8(ascii: "u") else { throw .invalid }
                        index += 1
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw .invalid }
                        text.append(Unicode.Scalar(0x10000 + ((unit - 0xD800) << 10) + (low - 0xDC00))!)
                    } else {
                        guard let scalar = Unicode.Scalar(unit) else { throw .invalid }  // a lone low surrogate
                        text.append(scalar)
                    }
                default: throw .invalid
                }
                continue
            }
            // One UTF-8 sequence, decoded by the standard library's own validating decoder.
            let length = byte < 0x80 ? 1 : byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : 2
            guard bytes.count - index >= length,
                let decoded = String(validating: bytes[index..<index + length], as: UTF8.self),
                decoded.unicodeScalars.count == 1
            else { throw .invalid }
            text.append(decoded.unicodeScalars.first!)
            index += length
        }
    }
}

/// Each node, or the error at its place: what a native import reads of `input` through the
/// whole-buffer front.
private func wholeDocument(_ bytes: UnsafeBufferPointer<UInt8>) -> [String] {
    var reader = JSONReader(bytes)
    var nodes: [String] = []
    do {
        reader.skipByteOrderMark()
        try reader.forEachNode(arrays: .elements) { nodes.append(described($0)) }
        reader.skipWhitespace()
        guard reader.isAtEnd else { throw reader.unexpected("expected the end of the document") }
    } catch let error as JSONSyntaxError {
        nodes.append("\(error.invalidData(in: bytes))")
    } catch {
        fail("the walk threw \(error)")
    }
    return nodes
}

/// The same through the streaming front, the input handed over in pieces of 1 to 7 bytes.
private func streamedDocument(_ input: [UInt8]) -> [String] {
    var offset = 0
    var stream = JSONStream(read: {
        guard offset < input.count else { return nil }
        let size = 1 + (offset &* 31 &+ Int(input[offset])) % 7
        defer { offset += size }
        return Data(input[offset..<min(input.count, offset + size)])
    })
    var nodes: [String] = []
    do {
        try stream.forEachNode { nodes.append(described($0)) }
    } catch {
        nodes.append("\(error)")
    }
    return nodes
}

private func described(_ node: JSONTreeNode) -> String {
    "\(node.id)<\(node.parent.map(String.init) ?? "-") \(node.key.map(jsonQuoted) ?? "-") \(node.kind) \(node.text.map(jsonQuoted) ?? "-")"
}

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzJSON(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let input = Array(UnsafeBufferPointer(start: data, count: size))
    var reference = Reference(input)
    let expected = Result { () throws(Reference.Failure) in try reference.document() }
    input.withUnsafeBufferPointer { bytes in
        require(streamedDocument(input) == wholeDocument(bytes), "the streaming and whole-buffer fronts differ")
        let scanned = Result { () throws(JSONSyntaxError) in try JSONReader.scanDocument(bytes) }
        switch (scanned, expected) {
        case (.success(let document), .success(let first)):
            require(document.kind == JSONValueKind(firstByte: first), "the top-level kind differs")
            // Each string decodes to the reference's scalars, byte for byte.
            for string in reference.strings {
                let decoded = JSONReader.decodeString(UnsafeBufferPointer(rebasing: bytes[string.range]))
                require(Array(decoded.unicodeScalars) == string.text, "a string decodes differently")
            }
            // The walk over the nodes gives the same numbers and strings (member names included).
            var walker = JSONReader(bytes)
            walker.skipByteOrderMark()
            var numbers: [String] = []
            var strings: [[Unicode.Scalar]] = []
            do {
                try walker.forEachNode(arrays: .elements) { node in
                    if let key = node.key { strings.append(Array(key.unicodeScalars)) }
                    if node.kind == .string { strings.append(Array((node.text ?? "").unicodeScalars)) }
                    if node.kind == .number { numbers.append(node.text ?? "") }
                }
            } catch {
                fail("the walk refuses what the scanner accepts: \(error)")
            }
            require(numbers == reference.numbers, "the numbers differ")
            require(strings == reference.strings.map(\.text), "the strings differ")
        case (.failure(let error), .failure):
            // The place is inside the input, and the message can be built.
            require(error.offset >= 0 && error.offset <= bytes.count, "the error's offset is outside the input")
            _ = error.invalidData(in: bytes).description
        case (.success, .failure):
            fail("the scanner accepted what the reference refuses")
        case (.failure(let error), .success):
            fail("the scanner refused what the reference accepts: \(error.message)")
        }
    }
    return 0
}
