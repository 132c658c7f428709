import Testing

@testable import SectionCLI

/// The full-screen mode's key decoder on bytes no terminal sends for a key: it never traps,
/// holds at most one short sequence, and the keys after a malformed one survive.
@Suite struct KeyDecoderTests {
    /// Feeds `bytes` and flushes, as the input loop does when the input pauses.
    func keys(_ bytes: [UInt8]) -> [Key] {
        var decoder = KeyDecoder()
        let keys = decoder.feed(bytes)
        #expect(decoder.pendingCount <= KeyDecoder.sequenceLimit)
        return keys + decoder.flush()
    }

    func keys(_ text: String) -> [Key] { keys(Array(text.utf8)) }

    @Test func aParameterOfManyDigitsSaturatesInsteadOfOverflowing() {
        // 19 digits and more overflowed an Int when multiplied out.
        for count in [18, 19, 20, 25, 29] {
            #expect(keys("\u{1B}[" + String(repeating: "9", count: count) + "~j") == [.character("j")], "\(count) digits")
            #expect(keys("\u{1B}[" + String(repeating: "1", count: count) + "A") == [.up], "\(count) digits, then an arrow's final byte")
        }
        #expect(keys("\u{1B}[0005~") == [.pageUp], "leading zeros")
        #expect(keys("\u{1B}[99999~q") == [.character("q")], "a number past every key's")
    }

    @Test func aSequencePastTheLimitIsOneUnknownKeyAndWhatFollowsSurvives() {
        let long = "\u{1B}[" + String(repeating: "1", count: 10_000)
        #expect(keys(long + "~q") == [.character("q")])
        #expect(keys(long + ";2;3" + "\u{1B}[B") == [.down], "an ESC ends the skipped sequence and starts a new one")
        // However the bytes arrive, nothing piles up.
        var decoder = KeyDecoder()
        var decoded: [Key] = []
        decoded += decoder.feed(Array("\u{1B}[".utf8))
        for _ in 0..<1_000 {
            decoded += decoder.feed(Array(String(repeating: "7", count: 97).utf8))
            #expect(decoder.pendingCount <= KeyDecoder.sequenceLimit)
        }
        decoded += decoder.feed(Array("~j".utf8))
        #expect(decoded == [.character("j")])
        // Silence ends the skipping: the next key is read afresh.
        decoded = decoder.feed(Array("\u{1B}[".utf8) + Array(repeating: UInt8(ascii: "3"), count: 100))
        decoded += decoder.flush()
        decoded += decoder.feed(Array("k".utf8))
        #expect(decoded == [.character("k")])
    }

    @Test func aSequenceCutShortByAnotherByteLetThatByteBeRead() {
        #expect(keys("\u{1B}[12\u{1B}[B") == [.down])
        #expect(keys("\u{1B}[5\u{3}") == [.interrupt], "Ctrl-C inside a sequence still interrupts")
        #expect(keys("\u{1B}[5é~") == [.character("é"), .character("~")])
        #expect(keys("\u{1B}O\u{1B}[A") == [.escape, .character("O"), .up], "ESC O then no final byte: Escape and the rest")
        #expect(keys("\u{1B}[?25h\u{1B}[1 q\u{1B}[>0;1cj") == [.character("j")], "private and intermediate bytes")
    }

    @Test func malformedUTF8IsDroppedAByteAtATime() {
        #expect(keys([0xFF, UInt8(ascii: "q"), 0xC3, UInt8(ascii: "j")]) == [.character("q"), .character("j")])
        #expect(keys([0xE5, 0x90, UInt8(ascii: "k")]) == [.character("k")], "a character cut short keeps the key after it")
        #expect(keys([0xE0, 0x80, 0xAF, 0xED, 0xA0, 0x80, UInt8(ascii: "g")]) == [.character("g")], "overlong, surrogate")
        #expect(keys([0x80, 0xBF, 0xF8, 0x88, 0x80, 0x80, 0x80]) == [])
        // The start of a character, then silence: nothing, and no Escape.
        var decoder = KeyDecoder()
        #expect(decoder.feed([0xF0, 0x9F]) == [])
        #expect(decoder.hasPending)
        #expect(decoder.flush() == [])
        #expect(!decoder.hasPending)
        #expect(decoder.feed([0xF0, 0x9F]) + decoder.feed([0x98, 0x80]) == [.character("😀")])
    }

    @Test func howTheBytesAreSplitChangesNoKey() {
        let text = "jk\u{1B}[A\u{1B}[5~\u{1B}OB名\u{1B}[" + String(repeating: "4", count: 50) + "~é\u{1B}[1;5A\u{3}\u{1B}[12\u{1B}[Bq"
        let bytes = Array(text.utf8)
        let whole = keys(bytes)
        #expect(
            whole == [
                .character("j"), .character("k"), .up, .pageUp, .down, .character("名"), .character("é"), .up, .interrupt, .down, .character("q"),
            ])
        for size in 1...9 {
            var decoder = KeyDecoder()
            var decoded: [Key] = []
            for start in stride(from: 0, to: bytes.count, by: size) {
                decoded += decoder.feed(Array(bytes[start..<min(bytes.count, start + size)]))
            }
            decoded += decoder.flush()
            #expect(decoded == whole, "pieces of \(size)")
        }
    }
}
