/// Makes user text safe to print to a terminal: nothing in a title can move the cursor, change
/// colours, set the window title, ring the bell or reorder the line.
///
/// Escaped, so that they show up as text instead of acting:
/// - C0 controls and DEL: `\t`, `\n`, `\r`, `\e` (escape), and `\u{7}` style for the rest;
/// - C1 controls (U+0080…U+009F, among them the one-character CSI U+009B);
/// - bidirectional overrides and isolates (U+202A…U+202E, U+2066…U+2069), and the line and
///   paragraph separators U+2028 and U+2029;
/// - the byte order mark U+FEFF, which would show as nothing.
///
/// Everything else, backslashes included, is left as it is.
public enum TextEscaping {
    /// `text` with every unsafe character written as an escape.
    public static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: needsEscape) else { return text }
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        for scalar in text.unicodeScalars {
            guard needsEscape(scalar) else {
                result.unicodeScalars.append(scalar)
                continue
            }
            switch scalar.value {
            case 0x09: result += "\\t"
            case 0x0A: result += "\\n"
            case 0x0D: result += "\\r"
            case 0x1B: result += "\\e"
            default: result += "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
            }
        }
        return result
    }

    /// Whether the scalar must not reach a terminal as it is.
    public static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x00...0x1F, 0x7F...0x9F: return true
        case 0x202A...0x202E, 0x2066...0x2069, 0x2028, 0x2029: return true
        case 0xFEFF: return true  // a byte order mark, invisible where it is not the first character
        default: return false
        }
    }
}

extension TextEscaping {
    /// The most UTF-8 bytes of what someone typed that an error message repeats.
    static let echoLimit = 200

    /// `text` cut to at most `limit` UTF-8 bytes, between two Unicode scalars, with "…" after
    /// it when it was cut: an error about a huge word or list of words stays one short line.
    static func excerpt(_ text: String, limit: Int = echoLimit) -> String {
        guard text.utf8.count > limit else { return text }
        var result = String.UnicodeScalarView()
        var length = 0
        for scalar in text.unicodeScalars {
            length += UTF8.width(scalar)
            if length > limit { break }
            result.append(scalar)
        }
        return String(result) + "…"
    }
}
