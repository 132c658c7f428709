import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// How many terminal cells text takes: 2 for wide characters (CJK ideographs, kana, Hangul,
/// fullwidth forms, most emoji), 0 for combining marks and other zero-width characters, 1 for
/// the rest.
///
/// Uses glibc's `wcwidth` when the `LC_CTYPE` locale is UTF-8 (call `useEnvironmentLocale()`
/// once at start-up), and a built-in table otherwise. Widths are summed per grapheme cluster and
/// a cluster takes at most 2 cells, so `e` + U+0301 is 1 cell and an emoji sequence joined with
/// U+200D is 2. Measure text as it is printed, escaped (`TextEscaping.escaped(_:)`): what that
/// escapes is measured as its escape, and what it keeps (joiners and selectors in emoji and in
/// scripts that need them) adds no cell of its own.
package enum DisplayWidth {
    /// The cells `text` takes. Control characters count as 0: escape them first
    /// (`TextEscaping.escaped(_:)`).
    package static func of(_ text: String) -> Int {
        var total = 0
        for character in text {
            total += width(of: character)
        }
        return total
    }

    /// The cells one grapheme cluster takes: 0, 1 or 2.
    package static func width(of character: Character) -> Int {
        let scalars = character.unicodeScalars
        if scalars.count == 1 { return width(of: scalars.first!) }
        var sum = 0
        let isEmoji = scalars.first!.properties.isEmoji
        for scalar in scalars {
            sum += width(of: scalar)
            // The emoji presentation selector makes an emoji wide; after other text it is
            // escaped (`TextEscaping`) or selects a glyph of the same width.
            if scalar.value == 0xFE0F && isEmoji { sum = max(sum, 2) }
        }
        return min(sum, 2)
    }

    /// The cells one scalar takes on its own: 0, 1 or 2.
    package static func width(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value >= 0x20 && value < 0x7F { return 1 }
        if let wcwidth = SystemWidth.function {
            let cells = wcwidth(wchar_t(bitPattern: value))
            if cells >= 0 { return Int(cells) }
        }
        return fallbackWidth(of: scalar)
    }

    /// The built-in answer, used when `wcwidth` is not available or does not know a character.
    package static func fallbackWidth(of scalar: Unicode.Scalar) -> Int {
        let value = scalar.value
        if value < 0x20 || (value >= 0x7F && value < 0xA0) { return 0 }
        switch scalar.properties.generalCategory {
        case .nonspacingMark, .enclosingMark, .format, .surrogate:
            return value == 0x00AD ? 1 : 0
        default:
            break
        }
        if (0x1160...0x11FF).contains(value) { return 0 }  // Hangul medial vowels and final consonants
        for range in wideRanges where range.contains(value) { return 2 }
        return 1
    }

    /// East Asian Wide and Fullwidth blocks, and the emoji blocks terminals draw two cells wide.
    static let wideRanges: [ClosedRange<UInt32>] = [
        0x1100...0x115F, 0x231A...0x231B, 0x2329...0x232A, 0x23E9...0x23EC, 0x23F0...0x23F0,
        0x23F3...0x23F3, 0x25FD...0x25FE, 0x2614...0x2615, 0x2648...0x2653, 0x267F...0x267F,
        0x2693...0x2693, 0x26A1...0x26A1, 0x26AA...0x26AB, 0x26BD...0x26BE, 0x26C4...0x26C5,
        0x26CE...0x26CE, 0x26D4...0x26D4, 0x26EA...0x26EA, 0x26F2...0x26F3, 0x26F5...0x26F5,
        0x26FA...0x26FA, 0x26FD...0x26FD, 0x2705...0x2705, 0x270A...0x270B, 0x2728...0x2728,
        0x274C...0x274C, 0x274E...0x274E, 0x2753...0x2755, 0x2757...0x2757, 0x2795...0x2797,
        0x27B0...0x27B0, 0x27BF...0x27BF, 0x2B1B...0x2B1C, 0x2B50...0x2B50, 0x2B55...0x2B55,
        0x2E80...0x303E, 0x3041...0x33FF, 0x3400...0x4DBF, 0x4E00...0x9FFF, 0xA000...0xA4CF,
        0xA960...0xA97F, 0xAC00...0xD7A3, 0xF900...0xFAFF, 0xFE10...0xFE19, 0xFE30...0xFE6F,
        0xFF00...0xFF60, 0xFFE0...0xFFE6, 0x16FE0...0x16FE4, 0x17000...0x18CFF, 0x1B000...0x1B2FF,
        0x1F004...0x1F004, 0x1F0CF...0x1F0CF, 0x1F18E...0x1F18E, 0x1F191...0x1F19A, 0x1F200...0x1F202,
        0x1F210...0x1F23B, 0x1F240...0x1F248, 0x1F250...0x1F251, 0x1F260...0x1F265, 0x1F300...0x1F64F,
        0x1F680...0x1F6FF, 0x1F7E0...0x1F7EB, 0x1F90C...0x1F9FF, 0x1FA70...0x1FAFF, 0x20000...0x2FFFD,
        0x30000...0x3FFFD,
    ]

    /// Sets `LC_CTYPE` from the environment, falling back to `C.UTF-8` when the environment's
    /// locale is not UTF-8, so that `wcwidth` knows wide characters. Returns whether the
    /// resulting locale is UTF-8 (if not, the built-in table is used).
    @discardableResult
    package static func useEnvironmentLocale() -> Bool {
        defer { SystemWidth.forgetLocale() }
        if setlocale(LC_CTYPE, "") != nil && SystemWidth.readLocaleIsUTF8() { return true }
        if setlocale(LC_CTYPE, "C.UTF-8") != nil && SystemWidth.readLocaleIsUTF8() { return true }
        _ = setlocale(LC_CTYPE, "C")
        return false
    }

    /// `text` padded with spaces on the right to `cells` cells (unchanged when already wider).
    package static func padded(_ text: String, to cells: Int) -> String {
        let missing = cells - of(text)
        return missing > 0 ? text + String(repeating: " ", count: missing) : text
    }
}

/// glibc's `wcwidth`, found at run time: the Glibc module does not export it.
private enum SystemWidth {
    typealias Function = @convention(c) (wchar_t) -> Int32

    static let symbol: Function? = {
        guard let address = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "wcwidth") else { return nil }
        return unsafeBitCast(address, to: Function.self)
    }()

    /// `wcwidth`, when the current `LC_CTYPE` is UTF-8 (otherwise it knows only ASCII).
    static var function: Function? {
        localeIsUTF8 ? symbol : nil
    }

    /// 0: not read yet, 1: UTF-8, 2: something else.
    private static let cachedLocale = Atomic<Int>(0)

    /// Whether `LC_CTYPE` is UTF-8, read once and remembered until `forgetLocale()`.
    static var localeIsUTF8: Bool {
        switch cachedLocale.load(ordering: .relaxed) {
        case 1: return true
        case 2: return false
        default:
            let isUTF8 = readLocaleIsUTF8()
            cachedLocale.store(isUTF8 ? 1 : 2, ordering: .relaxed)
            return isUTF8
        }
    }

    static func forgetLocale() {
        cachedLocale.store(0, ordering: .relaxed)
    }

    static func readLocaleIsUTF8() -> Bool {
        guard let codeset = nl_langinfo(Int32(CODESET)) else { return false }
        let name = String(cString: codeset).uppercased()
        return name == "UTF-8" || name == "UTF8"
    }
}
