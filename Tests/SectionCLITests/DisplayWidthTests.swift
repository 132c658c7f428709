import Testing

@testable import SectionCLI

@Suite struct DisplayWidthTests {
    @Test func asciiIsOneCellEach() {
        #expect(DisplayWidth.of("Buy milk") == 8)
        #expect(DisplayWidth.of("") == 0)
    }

    @Test func wideCharactersTakeTwoCells() {
        #expect(DisplayWidth.of("名前") == 4)
        #expect(DisplayWidth.of("メールアドレス") == 14)
        #expect(DisplayWidth.of("한국어") == 6)
        #expect(DisplayWidth.of("ＡＢ") == 4)  // fullwidth Latin
        #expect(DisplayWidth.of("山田 太郎") == 9)
    }

    @Test func combiningMarksTakeNoCells() {
        #expect(DisplayWidth.of("e\u{301}") == 1)
        #expect(DisplayWidth.of("Cafe\u{301}") == 4)
        #expect(DisplayWidth.of("\u{200B}") == 0)  // zero-width space
    }

    @Test func emojiTakeTwoCells() {
        #expect(DisplayWidth.of("😀") == 2)
        #expect(DisplayWidth.of("👩‍💻") == 2)  // a ZWJ sequence is one cluster
    }

    @Test func theFallbackTableAgreesOnCommonCharacters() {
        for (scalar, width) in [("名", 2), ("a", 1), ("\u{301}", 0), ("ア", 2), ("ｱ", 1), ("한", 2), ("😀", 2), ("é", 1)] {
            #expect(DisplayWidth.fallbackWidth(of: Unicode.Scalar(scalar)!) == width, "\(scalar)")
        }
    }

    @Test func paddingCountsCells() {
        #expect(DisplayWidth.padded("名前", to: 6) == "名前  ")
        #expect(DisplayWidth.padded("ab", to: 4) == "ab  ")
        #expect(DisplayWidth.padded("toolong", to: 3) == "toolong")
    }
}

@Suite struct TextEscapingTests {
    @Test func plainTextIsUnchanged() {
        #expect(TextEscaping.escaped("Buy milk — 名前 \\ ok") == "Buy milk — 名前 \\ ok")
    }

    @Test func controlCharactersAreEscaped() {
        #expect(TextEscaping.escaped("\u{1B}[31mred\u{1B}[0m") == "\\e[31mred\\e[0m")
        #expect(TextEscaping.escaped("bell\u{7}") == "bell\\u{7}")
        #expect(TextEscaping.escaped("a\tb\nc\rd") == "a\\tb\\nc\\rd")
        #expect(TextEscaping.escaped("\u{0}\u{7F}") == "\\u{0}\\u{7F}")
    }

    @Test func c1ControlsAndBidiOverridesAreEscaped() {
        #expect(TextEscaping.escaped("\u{9B}2J") == "\\u{9B}2J")
        #expect(TextEscaping.escaped("abc\u{202E}def") == "abc\\u{202E}def")
        #expect(TextEscaping.escaped("x\u{2028}y") == "x\\u{2028}y")
    }

    @Test func escapedTextHasNothingATerminalWouldAct() {
        let nasty = (0..<0xA0).compactMap(Unicode.Scalar.init).map(String.init).joined() + "\u{202E}\u{2066}"
        let escaped = TextEscaping.escaped(nasty)
        #expect(!escaped.unicodeScalars.contains(where: TextEscaping.needsEscape))
    }
}
