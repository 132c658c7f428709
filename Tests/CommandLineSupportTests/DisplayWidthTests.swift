import Testing

@testable import CommandLineSupport

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

/// Invisible characters: every Bidi_Control and Default_Ignorable_Code_Point code point is
/// escaped, except the joiners, variation selectors and tags that shape the visible character
/// next to them.
@Suite struct InvisibleCharacterTests {
    /// Every scalar with either property (surrogates are no scalars).
    static let invisible: [Unicode.Scalar] = (0...0x10FFFF).compactMap { value in
        guard let scalar = Unicode.Scalar(value) else { return nil }
        let properties = scalar.properties
        return properties.isBidiControl || properties.isDefaultIgnorableCodePoint ? scalar : nil
    }

    @Test func eachInvisibleCharacterNextToPlainTextIsEscaped() {
        #expect(Self.invisible.count > 4_000, "the properties cover the tag and variation selector blocks")
        for scalar in Self.invisible {
            let hex = String(scalar.value, radix: 16, uppercase: true)
            // Between ASCII letters, at either end, and alone: never raw.
            for text in ["a\(scalar)b", "\(scalar)a", "a\(scalar)", "\(scalar)"] {
                let escaped = TextEscaping.escaped(text)
                #expect(!escaped.unicodeScalars.contains(scalar), "U+\(hex) in \(text.debugDescription)")
                #expect(escaped.contains("\\u{\(hex)}"), "U+\(hex)")
            }
        }
    }

    @Test func theNamedOnesAreEscaped() {
        let cases: [(String, String)] = [
            ("a\u{200E}b", #"a\u{200E}b"#), ("a\u{200F}b", #"a\u{200F}b"#), ("a\u{61C}b", #"a\u{61C}b"#),
            ("a\u{200B}b", #"a\u{200B}b"#), ("soft\u{AD}hyphen", #"soft\u{AD}hyphen"#), ("a\u{2060}b", #"a\u{2060}b"#),
            ("x\u{E0041}\u{E0042}", #"x\u{E0041}\u{E0042}"#), ("\u{3164}", #"\u{3164}"#), ("\u{FEFF}x", #"\u{FEFF}x"#),
            ("名\u{2066}前\u{2069}", #"名\u{2066}前\u{2069}"#), ("名\u{200E}前", #"名\u{200E}前"#),
            ("a\u{FE0F}", #"a\u{FE0F}"#), ("a\u{200D}b", #"a\u{200D}b"#), ("名\u{200D}", #"名\u{200D}"#),
        ]
        for (text, expected) in cases {
            #expect(TextEscaping.escaped(text) == expected, "\(text.debugDescription)")
        }
    }

    /// What stays: a title with emoji, Persian or Devanagari displays as written.
    @Test func joinersAndSelectorsStayWhereTheyShapeACharacter() {
        let kept = [
            "\u{1F469}\u{200D}\u{1F4BB} Dev",  // woman technologist
            "\u{1F3F3}\u{FE0F}\u{200D}\u{1F308}",  // rainbow flag
            "\u{1F468}\u{200D}\u{1F469}\u{200D}\u{1F467}\u{200D}\u{1F466} family",
            "\u{1F44D}\u{1F3FD}",  // a skin tone
            "\u{2764}\u{FE0F} love", "1\u{FE0F}\u{20E3} first",  // emoji presentation, a keycap
            "\u{1F3F4}\u{200D}\u{2620}\u{FE0F}",  // pirate flag
            "\u{1F3F4}\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F} England",  // a flag tag sequence
            "\u{645}\u{6CC}\u{200C}\u{62E}\u{648}\u{627}\u{647}\u{645}",  // Persian: a non-joiner between letters
            "\u{915}\u{94D}\u{200D}\u{937}",  // Devanagari: a joiner after the virama
            "\u{845B}\u{E0100}\u{98FE}",  // an ideographic variation sequence
        ]
        for title in kept {
            #expect(TextEscaping.escaped(title) == title, "\(title.debugDescription)")
        }
    }

    @Test func shapingCharactersOutOfPlaceAreEscaped() {
        let cases: [(String, String)] = [
            ("\u{1F469}\u{200D}\u{200D}\u{1F4BB}", "\u{1F469}" + #"\u{200D}\u{200D}"# + "\u{1F4BB}"),  // a joiner joins no joiner
            ("\u{2764}\u{FE0F}\u{FE0F}", "\u{2764}\u{FE0F}" + #"\u{FE0F}"#),  // one selector per character
            ("\u{1F600}\u{E0100}\u{E0101}\u{E0102}", "\u{1F600}\u{E0100}" + #"\u{E0101}\u{E0102}"#),  // no text hidden in selectors
            ("🏴\u{E0067}\u{E0062}", #"🏴\u{E0067}\u{E0062}"#),  // a tag sequence without its end
            ("🏴" + String(repeating: "\u{E0061}", count: 7) + "\u{E007F}", "🏴" + String(repeating: #"\u{E0061}"#, count: 7) + #"\u{E007F}"#),
            (" \u{200D}名", #" \u{200D}名"#), ("名\u{200C} ", #"名\u{200C} "#),
        ]
        for (text, expected) in cases {
            #expect(TextEscaping.escaped(text) == expected, "\(text.debugDescription) → \(TextEscaping.escaped(text).debugDescription)")
        }
    }

    /// Random text from the characters that matter: escaping leaves nothing unsafe, and escaping
    /// again changes nothing.
    @Test func escapingIsSafeAndIdempotent() {
        let alphabet: [Unicode.Scalar] = [
            "a", "1", "#", " ", "\\", "{", "}", "u", "名", "ی", "क", "्", "😀", "👩", "🏴", "❤", "\u{1F3FD}", "\u{301}",
            "\u{200B}", "\u{200C}", "\u{200D}", "\u{200E}", "\u{202E}", "\u{2066}", "\u{AD}", "\u{FE0F}", "\u{FE0E}",
            "\u{E0100}", "\u{E0067}", "\u{E0062}", "\u{E007F}", "\u{E0041}", "\u{1B}", "\u{9B}", "\u{2028}", "\u{FEFF}",
            "\u{3164}", "\u{115F}", "\u{180B}",
        ]
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<20_000 {
            var text = String.UnicodeScalarView()
            for _ in 0..<Int.random(in: 0...8, using: &generator) { text.append(alphabet.randomElement(using: &generator)!) }
            let once = TextEscaping.escaped(String(text))
            #expect(!once.unicodeScalars.contains(where: TextEscaping.needsEscape), "\(String(text).debugDescription)")
            #expect(TextEscaping.escaped(once) == once, "\(String(text).debugDescription)")
        }
    }

    /// What is printed is what is measured: kept joiners and selectors add no cell, escapes are
    /// ASCII, one cell a character.
    @Test func displayWidthAgreesWithTheEscapedForm() {
        #expect(DisplayWidth.of(TextEscaping.escaped("a\u{200B}b")) == "a\\u{200B}b".count)
        #expect(DisplayWidth.of(TextEscaping.escaped("a\u{FE0F}")) == "a\\u{FE0F}".count)
        #expect(DisplayWidth.of(TextEscaping.escaped("\u{1F469}\u{200D}\u{1F4BB}")) == 2)
        #expect(DisplayWidth.of(TextEscaping.escaped("\u{2764}\u{FE0F}")) == 2)
        let persian = "\u{645}\u{6CC}\u{200C}\u{62E}\u{648}"
        #expect(
            DisplayWidth.of(TextEscaping.escaped(persian))
                == DisplayWidth.of(String(String.UnicodeScalarView(persian.unicodeScalars.filter { $0 != "\u{200C}" }))))
        #expect(DisplayWidth.of("é\u{FE0F}") == 1, "a selector after a letter does not make it wide")
        #expect(DisplayWidth.of(TextEscaping.escaped("🏴\u{E0067}\u{E0062}\u{E0065}\u{E006E}\u{E0067}\u{E007F}")) == 2)
    }
}
