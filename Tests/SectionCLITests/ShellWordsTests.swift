import Testing

@testable import SectionCLI

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
}
