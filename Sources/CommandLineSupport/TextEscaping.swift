/// Makes user text safe to print to a terminal: nothing in a title can move the cursor, change
/// colours, set the window title, ring the bell, reorder the line or hide in it.
///
/// Escaped, so that they show up as text instead of acting or vanishing:
/// - C0 controls and DEL: `\t`, `\n`, `\r`, `\e` (escape), and `\u{7}` style for the rest;
/// - C1 controls (U+0080…U+009F, among them the one-character CSI U+009B);
/// - the line and paragraph separators U+2028 and U+2029;
/// - every Bidi_Control code point (the marks LRM, RLM and ALM, the embeddings, overrides and
///   isolates) and every Default_Ignorable_Code_Point (the zero-width space, the soft hyphen,
///   the word joiner, the byte order mark, Hangul fillers, tag characters, and the code points
///   Unicode keeps for more of them), read from the scalar's Unicode properties.
///
/// Three kinds of default-ignorable code point shape the visible character next to them, and
/// stay where they do that, so emoji sequences and the scripts that need joiners display:
/// - the zero-width joiner and non-joiner (U+200D, U+200C) between two visible non-ASCII
///   characters (👩‍💻, Persian and Indic text);
/// - one variation selector right after a visible character that is not ASCII or is an emoji
///   (❤️, ideographic variants);
/// - tag characters in an emoji tag sequence: U+1F3F4, one to six tag letters or digits, the
///   cancel tag U+E007F (the flags of England, Scotland and Wales).
/// Anywhere else they are escaped: none can add invisible text to a plain word.
///
/// Everything else, backslashes included, is left as it is. Escaping escaped text changes
/// nothing.
package enum TextEscaping {
    /// `text` with every unsafe character written as an escape.
    /// - Complexity: O(n) in the text's scalars.
    package static func escaped(_ text: String) -> String {
        guard text.unicodeScalars.contains(where: { needsEscape($0) || isShaping($0) }) else { return text }
        let scalars = Array(text.unicodeScalars)
        var result = ""
        result.reserveCapacity(text.utf8.count + 8)
        /// Whether the scalar before the one at hand was kept as it is.
        var previousKept = false
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if isShaping(scalar), let length = shapingRun(at: index, in: scalars, afterKept: previousKept) {
                for kept in scalars[index..<(index + length)] { result.unicodeScalars.append(kept) }
                index += length
                previousKept = true
                continue
            }
            if needsEscape(scalar) || isShaping(scalar) {
                result += escape(scalar)
                previousKept = false
            } else {
                result.unicodeScalars.append(scalar)
                previousKept = true
            }
            index += 1
        }
        return result
    }

    /// Whether the scalar must not reach a terminal as it is, wherever it stands (the joiners,
    /// variation selectors and tags that `escaped(_:)` keeps next to what they shape are not
    /// among these).
    package static func needsEscape(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x20..<0x7F: return false
        case 0x00...0x1F, 0x7F...0x9F, 0x2028, 0x2029: return true
        default:
            let properties = scalar.properties
            return properties.isBidiControl || (properties.isDefaultIgnorableCodePoint && !isShaping(scalar))
        }
    }

    /// The default-ignorable code points that shape a neighbour: the joiners, the variation
    /// selectors, the tag characters.
    static func isShaping(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case ..<0x180B: return false  // the first variation selector: Mongolian FVS1
        case 0x200C, 0x200D, 0xE0020...0xE007F: return true
        default: return scalar.properties.isVariationSelector
        }
    }

    /// How many scalars from `index` (a shaping one) stay as they are, or nil when the one at
    /// `index` is escaped. `afterKept`: whether the scalar before it was kept.
    private static func shapingRun(at index: Int, in scalars: [Unicode.Scalar], afterKept: Bool) -> Int? {
        guard afterKept, index > 0 else { return nil }
        let previous = scalars[index - 1]
        let scalar = scalars[index]
        switch scalar.value {
        case 0x200C, 0x200D:
            // After a visible non-ASCII character or the variation selector kept after one.
            guard index + 1 < scalars.count, isVisibleNonASCII(previous) || previous.properties.isVariationSelector else { return nil }
            return isVisibleNonASCII(scalars[index + 1]) ? 1 : nil
        case 0xE0020...0xE007F:
            // U+1F3F4, then [0-9a-z] tags, then the cancel tag.
            guard previous.value == 0x1F3F4 else { return nil }
            var end = index
            while end < scalars.count, end - index < 6,
                (0xE0030...0xE0039).contains(scalars[end].value) || (0xE0061...0xE007A).contains(scalars[end].value)
            {
                end += 1
            }
            guard end > index, end < scalars.count, scalars[end].value == 0xE007F else { return nil }
            return end - index + 1
        default:
            // A variation selector: one, right after the character it selects.
            guard !isShaping(previous), previous.properties.isEmoji || isVisibleNonASCII(previous) else { return nil }
            return 1
        }
    }

    /// Neither ASCII, nor white space, nor anything escaped or shaping.
    private static func isVisibleNonASCII(_ scalar: Unicode.Scalar) -> Bool {
        !scalar.isASCII && !scalar.properties.isWhitespace && !needsEscape(scalar) && !isShaping(scalar)
    }

    private static func escape(_ scalar: Unicode.Scalar) -> String {
        switch scalar.value {
        case 0x09: return "\\t"
        case 0x0A: return "\\n"
        case 0x0D: return "\\r"
        case 0x1B: return "\\e"
        default: return "\\u{" + String(scalar.value, radix: 16, uppercase: true) + "}"
        }
    }
}

extension TextEscaping {
    /// The most UTF-8 bytes of what someone typed that an error message repeats.
    package static let echoLimit = 200

    /// `text` cut to at most `limit` UTF-8 bytes, between two Unicode scalars, with "…" after
    /// it when it was cut: an error about a huge word or list of words stays one short line.
    /// (The library's messages cut names the same way, with a function of its own: this module
    /// depends on nothing of the library.)
    package static func excerpt(_ text: String, limit: Int = echoLimit) -> String {
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
