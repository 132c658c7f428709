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
struct KeyDecoder {
    private var pending: [UInt8] = []

    /// Whether bytes are waiting to see if a sequence completes.
    var hasPending: Bool { !pending.isEmpty }

    /// The keys the bytes complete, in order.
    mutating func feed(_ bytes: [UInt8]) -> [Key] {
        pending += bytes
        var keys: [Key] = []
        var index = 0
        while index < pending.count {
            guard let (key, length) = Self.decode(pending[index...]) else { break }
            if let key { keys.append(key) }
            index += length
        }
        pending.removeFirst(index)
        return keys
    }

    /// The keys of what is still pending, taking an unfinished sequence as Escape and what follows.
    mutating func flush() -> [Key] {
        guard !pending.isEmpty else { return [] }
        var keys: [Key] = [.escape]
        let rest = Array(pending.dropFirst())
        pending = []
        keys += feed(rest)
        if !pending.isEmpty {
            // Bytes of an incomplete UTF-8 character: nothing anyone typed; drop them.
            pending = []
        }
        return keys
    }

    /// The key at the start of `bytes` (nil for a sequence that names no key we use) and how
    /// many bytes it takes, or nil when more bytes are needed to tell.
    private static func decode(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let first = bytes[bytes.startIndex]
        switch first {
        case 0x1B:
            return decodeEscape(bytes)
        case 0x03: return (.interrupt, 1)
        case 0x0C: return (.redraw, 1)
        case 0x0D, 0x0A: return (.enter, 1)
        case 0x20: return (.space, 1)
        case 0x00...0x1F, 0x7F: return (nil, 1)
        case 0x20...0x7E: return (.character(Character(Unicode.Scalar(first))), 1)
        default:
            // A UTF-8 character: its length from its first byte.
            let length = first >= 0xF0 ? 4 : first >= 0xE0 ? 3 : first >= 0xC0 ? 2 : 1
            guard bytes.count >= length else { return nil }
            let character = String(validating: bytes.prefix(length), as: UTF8.self).flatMap(\.first)
            return (character.map(Key.character), length)
        }
    }

    private static func decodeEscape(_ bytes: ArraySlice<UInt8>) -> (Key?, Int)? {
        let start = bytes.startIndex
        guard bytes.count >= 2 else { return nil }
        let introducer = bytes[start + 1]
        if introducer == UInt8(ascii: "O") {
            guard bytes.count >= 3 else { return nil }
            return (finalKey(bytes[start + 2], parameter: nil), 3)
        }
        guard introducer == UInt8(ascii: "[") else {
            // ESC then another key: Escape, and the next key on its own.
            return (.escape, 1)
        }
        // CSI: parameter bytes, then one final byte in 0x40...0x7E.
        var index = start + 2
        var parameter = 0
        var sawParameter = false
        while index < bytes.endIndex {
            let byte = bytes[index]
            if (0x40...0x7E).contains(byte) {
                return (finalKey(byte, parameter: sawParameter ? parameter : nil), index - start + 1)
            }
            if (0x30...0x39).contains(byte) && !sawParameterEnded(bytes[(start + 2)..<index]) {
                parameter = parameter * 10 + Int(byte - 0x30)
                sawParameter = true
            }
            index += 1
        }
        return nil
    }

    /// Whether a `;` came before: only the first parameter names a key.
    private static func sawParameterEnded(_ bytes: ArraySlice<UInt8>) -> Bool {
        bytes.contains(UInt8(ascii: ";"))
    }

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
