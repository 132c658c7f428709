/// A key as the full-screen mode understands it.
enum Key: Hashable, Sendable {
    case up, down, left, right, pageUp, pageDown, home, end
    case enter, escape, space
    /// Ctrl-C: raw mode turns it into a byte instead of a signal.
    case interrupt
    /// Ctrl-L: draw the whole screen again.
    case redraw
    case character(Character)
}

/// Turns the bytes a terminal sends into keys: plain characters (UTF-8), control bytes and the
/// escape sequences of arrows and paging keys (both `ESC [` and `ESC O` forms). A lone `ESC` is
/// the Escape key only once no more bytes follow it: `feed` keeps an unfinished sequence, and
/// `flush` (called when the input stays quiet for a moment) gives it up as keys.
///
/// Whatever the bytes, decoding neither traps nor holds more than a few dozen of them: a
/// parameter's number saturates (`parameterLimit`), a control sequence longer than
/// `sequenceLimit` is an unknown key whose remaining parameter bytes are skipped, and malformed
/// UTF-8 is dropped a byte at a time, so the keys after it survive.
struct KeyDecoder {
    private var pending: [UInt8] = []
    /// Skipping the rest of a control sequence that ran past `sequenceLimit`.
    private var skippingSequence = false

    /// The most bytes a control sequence may have (`ESC [`, parameters, the final byte); the
    /// keys this mode knows take at most 8.
    static let sequenceLimit = 32
    /// Where a parameter's number stops growing: above every number that names a key.
    static let parameterLimit = 9_999

    /// Whether bytes are waiting to see if a sequence completes.
    var hasPending: Bool { !pending.isEmpty }

    /// How many bytes are waiting: never more than `sequenceLimit`.
    var pendingCount: Int { pending.count }

    /// The keys the bytes complete, in order.
    /// - Complexity: O(n) in the bytes given.
    mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var index = 0
        decoding: while index < pending.count {
            if skippingSequence {
                // Parameter and intermediate bytes still belong to the long sequence; its final
                // byte ends it, and anything else ends it and is read on its own.
                let byte = pending[index]
                if Self.isParameterOrIntermediate(byte) || Self.isFinal(byte) { index += 1 }
                if !Self.isParameterOrIntermediate(byte) { skippingSequence = false }
                continue
            }
            switch Self.decode(pending[index...]) {
            case .incomplete:
                break decoding
            case .key(let key, let length):
                if let key { keys.append(key) }
                index += length
            case .tooLong(let length):
                // What a terminal never sends for a key: an unknown one, the rest of it skipped.
                index += length
                skippingSequence = true
            }
        }
        pending.removeFirst(index)
        return keys
    }

    /// The keys of what is still pending, taking an unfinished sequence as Escape and what follows.
    mutating func flush() -> [Key] {
        skippingSequence = false
        guard !pending.isEmpty else { return [] }
        // An unfinished escape sequence is the Escape key and what was typed after it; the
        // start of a UTF-8 character whose rest never came is nothing anyone typed: dropped.
        var keys: [Key] = pending[0] == 0x1B ? [.escape] : []
        let rest = Array(pending.dropFirst())
        pending = []
        keys += feed(rest)
        if !pending.isEmpty { keys += flush() }
        return keys
    }

    /// What the bytes at the start of a slice make.
    private enum Decoded {
        /// A key (nil for bytes that name no key this mode uses) and how many bytes it takes.
        case key(Key?, Int)
        /// More bytes are needed to tell.
        case incomplete
        /// The first `sequenceLimit` bytes of a longer control sequence.
        case tooLong(Int)
    }

    /// The key at the start of `bytes`, which is not empty.
    private static func decode(_ bytes: ArraySlice<UInt8>) -> Decoded {
        let first = bytes[bytes.startIndex]
        switch first {
        case 0x1B: return decodeEscape(bytes)
        case 0x03: return .key(.interrupt, 1)
        case 0x0C: return .key(.redraw, 1)
        case 0x0D, 0x0A: return .key(.enter, 1)
        case 0x20: return .key(.space, 1)
        case 0x00...0x1F, 0x7F: return .key(nil, 1)
        case 0x21...0x7E: return .key(.character(Character(Unicode.Scalar(first))), 1)
        default: return decodeUTF8(bytes)
        }
    }

    /// A character of two to four UTF-8 bytes; a byte that cannot start one, or a start whose
    /// next bytes do not continue it, is one byte of nothing.
    private static func decodeUTF8(_ bytes: ArraySlice<UInt8>) -> Decoded {
        let first = bytes[bytes.startIndex]
        let length: Int
        switch first {
        case 0xC2...0xDF: length = 2
        case 0xE0...0xEF: length = 3
        case 0xF0...0xF4: length = 4
        default: return .key(nil, 1)
        }
        let available = bytes.prefix(length)
        guard available.dropFirst().allSatisfy({ $0 & 0xC0 == 0x80 }) else { return .key(nil, 1) }
        guard available.count == length else { return .incomplete }
        // Overlong forms, surrogates and values past U+10FFFF fail validation.
        guard let character = String(validating: available, as: UTF8.self)?.first else { return .key(nil, 1) }
        return .key(.character(character), length)
    }

    private static func decodeEscape(_ bytes: ArraySlice<UInt8>) -> Decoded {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return .incomplete }
        let introducer = bytes[start + 1]
        if introducer == UInt8(ascii: "O") {
            // SS3: one final byte.
            guard bytes.count >= 3 else { return .incomplete }
            guard isFinal(bytes[start + 2]) else { return .key(.escape, 1) }
            return .key(finalKey(bytes[start + 2], parameter: nil), 3)
        }
        guard introducer == UInt8(ascii: "[") else {
            // ESC then another key: Escape, and the next key on its own.
            return .key(.escape, 1)
        }
        // CSI (ECMA-48 5.4): parameter bytes 0x30…0x3F, intermediate bytes 0x20…0x2F, then one
        // final byte 0x40…0x7E. Only the first parameter names a key; its number saturates.
        var index = start + 2
        var parameter: Int?
        var inFirstParameter = true
        while index < bytes.endIndex {
            let byte = bytes[index]
            if isFinal(byte) {
                return .key(finalKey(byte, parameter: parameter), index - start + 1)
            }
            guard isParameterOrIntermediate(byte) else {
                // A control byte or a non-ASCII byte cuts the sequence short: what came so far
                // is an unknown key, and the byte is read on its own (an ESC starts afresh).
                return .key(nil, index - start)
            }
            if index - start + 1 >= sequenceLimit { return .tooLong(index - start + 1) }
            if (0x30...0x39).contains(byte) && inFirstParameter {
                parameter = min((parameter ?? 0) * 10 + Int(byte - 0x30), parameterLimit)
            } else {
                inFirstParameter = false
            }
            index += 1
        }
        return .incomplete
    }

    private static func isFinal(_ byte: UInt8) -> Bool { (0x40...0x7E).contains(byte) }

    private static func isParameterOrIntermediate(_ byte: UInt8) -> Bool { (0x20...0x3F).contains(byte) }

    private static func finalKey(_ byte: UInt8, parameter: Int?) -> Key? {
        switch byte {
        case UInt8(ascii: "A"): return .up
        case UInt8(ascii: "B"): return .down
        case UInt8(ascii: "C"): return .right
        case UInt8(ascii: "D"): return .left
        case UInt8(ascii: "H"): return .home
        case UInt8(ascii: "F"): return .end
        case UInt8(ascii: "~"):
            switch parameter {
            case 1, 7: return .home
            case 4, 8: return .end
            case 5: return .pageUp
            case 6: return .pageDown
            default: return nil
            }
        default: return nil
        }
    }
}
