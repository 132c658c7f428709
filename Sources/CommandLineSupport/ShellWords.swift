import Foundation

/// Splits a line into words the way a POSIX shell does, without expanding anything. The line is
/// read as Unicode scalars, never as grapheme clusters.
///
/// - Unquoted blanks (spaces, tabs) separate words; several in a row count as one.
/// - `'…'` keeps everything inside as is, backslashes included.
/// - `"…"` keeps everything inside, except that a backslash before `"`, `\`, `$` or `` ` ``
///   stands for that character.
/// - Outside quotes, a backslash makes the next character literal (`\ ` is a space in a word).
/// - `#` at the start of a word begins a comment that runs to the end of the line — unless a
///   digit or `-` follows it, so that `#12` and `#-1` (ids) need no quotes.
/// - `''` and `""` make an empty word.
///
/// ```swift
/// try ShellWords.split(#"row add 0 "Buy milk" # errand"#)  // ["row", "add", "0", "Buy milk"]
/// ```
package enum ShellWords {
    /// A line that cannot be split: a quote left open, or a backslash at the very end.
    package struct SplitError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What was wrong.
        package var message: String
        package var description: String { message }
    }

    /// The words of `line`.
    ///
    /// The line is read as Unicode scalars, as a shell reads bytes: a combining mark after a
    /// quote, blank, backslash or `#` does not change what that character does.
    /// - Complexity: O(n) in the line's length in bytes.
    package static func split(_ line: String) throws(SplitError) -> [String] {
        // Every character with a meaning here is ASCII, and in UTF-8 no byte of a longer scalar
        // is ASCII: splitting the bytes splits the scalars, and what is kept stays valid UTF-8.
        let bytes = Array(line.utf8)
        let space = UInt8(ascii: " ")
        let tab = UInt8(ascii: "\t")
        let lineFeed = UInt8(ascii: "\n")
        let carriageReturn = UInt8(ascii: "\r")
        let hash = UInt8(ascii: "#")
        let backslash = UInt8(ascii: "\\")
        let singleQuote = UInt8(ascii: "'")
        let doubleQuote = UInt8(ascii: "\"")
        let minus = UInt8(ascii: "-")
        var words: [String] = []
        var word: [UInt8] = []
        var inWord = false
        var index = 0

        func finishWord() {
            if inWord { words.append(String(decoding: word, as: UTF8.self)) }
            word.removeAll(keepingCapacity: true)
            inWord = false
        }
        /// The byte at `index`, moving past it; `nil` at the end.
        func next() -> UInt8? {
            guard index < bytes.count else { return nil }
            defer { index += 1 }
            return bytes[index]
        }

        while let byte = next() {
            switch byte {
            case space, tab, lineFeed, carriageReturn:
                finishWord()
            case hash where !inWord:
                let following = index < bytes.count ? bytes[index] : nil
                if let following, (0x30...0x39).contains(following) || following == minus {
                    word.append(byte)
                    inWord = true
                } else {
                    return words
                }
            case backslash:
                guard let escaped = next() else {
                    throw SplitError(message: "the line ends with a lone backslash")
                }
                // A backslash before a line break continues the line, as in a shell.
                if escaped == carriageReturn && index < bytes.count && bytes[index] == lineFeed {
                    index += 1
                } else if escaped != lineFeed {
                    word.append(escaped)
                    inWord = true
                }
            case singleQuote:
                inWord = true
                while true {
                    guard let quoted = next() else { throw SplitError(message: "a single quote (') is not closed") }
                    if quoted == singleQuote { break }
                    word.append(quoted)
                }
            case doubleQuote:
                inWord = true
                while true {
                    guard let quoted = next() else { throw SplitError(message: "a double quote (\") is not closed") }
                    if quoted == doubleQuote { break }
                    if quoted == backslash, let escaped = next() {
                        if escaped == doubleQuote || escaped == backslash || escaped == UInt8(ascii: "$") || escaped == UInt8(ascii: "`") {
                            word.append(escaped)
                        } else if escaped != lineFeed {
                            word.append(backslash)
                            word.append(escaped)
                        }
                    } else {
                        word.append(quoted)
                    }
                }
            default:
                word.append(byte)
                inWord = true
            }
        }
        finishWord()
        return words
    }

    /// `word` quoted so that `split` (and a POSIX shell) reads it back as one word. Words made
    /// only of safe characters, and not starting with `#`, are returned as they are.
    package static func quote(_ word: String) -> String {
        let safe = word.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                || "-_./:@%+=,#".unicodeScalars.contains(scalar)
        }
        if safe && !word.isEmpty && word.utf8.first != UInt8(ascii: "#") { return word }

        // Scalar by scalar: a mark after a quote must not hide it.
        var quoted = String.UnicodeScalarView()
        quoted.append("'")
        for scalar in word.unicodeScalars {
            if scalar == "'" { quoted.append(contentsOf: #"'\''"#.unicodeScalars) } else { quoted.append(scalar) }
        }
        quoted.append("'")
        return String(quoted)
    }
}
