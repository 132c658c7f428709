import Foundation
import TestSupport
import Testing

@testable import CommandLineSupport

@Suite struct ShellWordsTests {
    @Test func splitsOnBlanks() throws {
        #expect(try ShellWords.split("row  move\t0:1 1:0") == ["row", "move", "0:1", "1:0"])
        #expect(try ShellWords.split("   ") == [])
        #expect(try ShellWords.split("") == [])
    }

    @Test func keepsQuotedTextTogether() throws {
        #expect(try ShellWords.split(#"row add 0 "Buy milk""#) == ["row", "add", "0", "Buy milk"])
        #expect(try ShellWords.split("row add 0 'Call \"Mom\"'") == ["row", "add", "0", "Call \"Mom\""])
        #expect(try ShellWords.split(#"a"b c"'d e'f"#) == ["ab cd ef"])
    }

    @Test func singleQuotesKeepBackslashes() throws {
        #expect(try ShellWords.split(#"'a\nb\'"#) == ["a\\nb\\"])
    }

    @Test func doubleQuotesUnescapeOnlyShellSpecials() throws {
        #expect(try ShellWords.split(#""a\"b\\c\$d\n""#) == [#"a"b\c$d\n"#])
    }

    @Test func backslashEscapesOutsideQuotes() throws {
        #expect(try ShellWords.split(##"Buy\ milk \#x a\'b"##) == ["Buy milk", "#x", "a'b"])
    }

    @Test func emptyQuotesMakeAnEmptyWord() throws {
        #expect(try ShellWords.split(#"section add "" ''"#) == ["section", "add", "", ""])
    }

    @Test func hashStartsACommentOnlyAtAWordStart() throws {
        #expect(try ShellWords.split("# all comment") == [])
        #expect(try ShellWords.split("#") == [])
        #expect(try ShellWords.split("row delete 0:0 # oops") == ["row", "delete", "0:0"])
        #expect(try ShellWords.split("row delete 0:0 #oops") == ["row", "delete", "0:0"])
        #expect(try ShellWords.split("row delete '#12'") == ["row", "delete", "#12"])
        #expect(try ShellWords.split("a#b") == ["a#b"])
    }

    @Test func idsNeedNoQuotes() throws {
        #expect(try ShellWords.split("row delete #12") == ["row", "delete", "#12"])
        #expect(try ShellWords.split("row move #-1 #3:end") == ["row", "move", "#-1", "#3:end"])
    }

    @Test func keepsUnicode() throws {
        #expect(try ShellWords.split("row add プロフィール '名前 太郎'") == ["row", "add", "プロフィール", "名前 太郎"])
    }

    @Test func refusesOpenQuotesAndATrailingBackslash() {
        #expect(throws: ShellWords.SplitError.self) { try ShellWords.split(#"row add 0 "open"#) }
        #expect(throws: ShellWords.SplitError.self) { try ShellWords.split("row add 0 'open") }
        #expect(throws: ShellWords.SplitError.self) { try ShellWords.split(#"row add 0 x\"#) }
    }

    @Test func quoteRoundTrips() throws {
        for word in ["plain", "two words", "it's", "#7", "", "a\"b", "名前", "$HOME", "a\\b"] {
            #expect(try ShellWords.split(ShellWords.quote(word)) == [word], "\(word)")
        }
        #expect(ShellWords.quote("0:1") == "0:1")
        #expect(ShellWords.quote("To do") == "'To do'")
        #expect(ShellWords.quote("#7") == "'#7'")
    }

    /// Words compared byte for byte: `==` on strings would call "é" and "e\u{301}" equal.
    private func bytes(_ words: [String]) -> [[UInt8]] { words.map { Array($0.utf8) } }

    @Test func marksDoNotGlueThemselvesToQuotesBlanksOrBackslashes() throws {
        // U+0600 is a prepended mark: as Characters, "'" + U+0600 would be one cluster.
        #expect(bytes(try ShellWords.split("row add 0 'a\u{600}' 'b\u{600}'")) == bytes(["row", "add", "0", "a\u{600}", "b\u{600}"]))
        #expect(bytes(try ShellWords.split("row add 0 '\u{301}x'")) == bytes(["row", "add", "0", "\u{301}x"]))
        #expect(bytes(try ShellWords.split("a \u{301}b")) == bytes(["a", "\u{301}b"]))
        #expect(bytes(try ShellWords.split("a\\\u{301}")) == bytes(["a\u{301}"]))
        #expect(bytes(try ShellWords.split("a #\u{301} comment")) == bytes(["a"]))
        #expect(bytes(try ShellWords.split("\"x\u{600}\"")) == bytes(["x\u{600}"]))
    }

    @Test func quoteRoundTripsMarksAfterAnything() throws {
        for word in ["x\u{600}", "\u{600}", "#\u{345}x", "\u{345}", "'\u{301}", "a b\u{301}", "e\u{301}", "\u{E9}", "\u{301}#"] {
            #expect(bytes(try ShellWords.split(ShellWords.quote(word))) == bytes([word]), "\(word.unicodeScalars.map(\.value))")
        }
    }

    @Test("quoted words split back into the same words, byte for byte", arguments: propertySeeds([1, 2, 3]))
    func quoteAndSplitRoundTrip(seed: UInt64) throws {
        var random = SeededGenerator(seed: seed)
        let alphabet: [Unicode.Scalar] = [
            "a", "Z", "0", "9", " ", "\t", "'", "\"", "\\", "#", "-", "$", "`", ":", "\r",
            "\u{301}", "\u{345}", "\u{600}", "\u{E9}", "\u{200D}", "\u{FE0F}", "\u{1F600}", "名", "\u{0}",
        ]
        for round in 0..<500 {
            let words = (0..<Int.random(in: 0..<5, using: &random)).map { _ in
                var word = String.UnicodeScalarView()
                for _ in 0..<Int.random(in: 0..<8, using: &random) { word.append(alphabet[Int.random(in: 0..<alphabet.count, using: &random)]) }
                return String(word)
            }
            let line = words.map(ShellWords.quote).joined(separator: Int.random(in: 0..<2, using: &random) == 0 ? " " : " \t ")
            #expect(
                bytes(try ShellWords.split(line)) == bytes(words), "seed \(seed), round \(round): \(words.map { $0.unicodeScalars.map(\.value) })")
        }
    }
}
