import Foundation

/// Splits a line into words the way a POSIX shell does, without expanding anything.
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
public enum ShellWords {
    /// A line that cannot be split: a quote left open, or a backslash at the very end.
    public struct SplitError: Error, Hashable, Sendable, CustomStringConvertible {
        /// What was wrong.
        public var message: String
        public var description: String { message }
    }

    /// The words of `line`.
    public static func split(_ line: String) throws(SplitError) -> [String] {
        let characters = Array(line)
        var words: [String] = []
        var word = ""
        var inWord = false
        var index = 0

        func finishWord() {
            if inWord { words.append(word) }
            word = ""
            inWord = false
        }
        /// The character at `index`, moving past it; `nil` at the end.
        func next() -> Character? {
            guard index < characters.count else { return nil }
            defer { index += 1 }
            return characters[index]
        }

        while let character = next() {
            switch character {
            case " ", "\t", "\n", "\r", "\r\n":
                finishWord()
            case "#" where !inWord:
                let following = index < characters.count ? characters[index] : nil
                if let following, following.isASCII && (following.isNumber || following == "-") {
                    word.append(character)
                    inWord = true
                } else {
                    return words
                }
            case "\\":
                guard let escaped = next() else {
                    throw SplitError(message: "the line ends with a lone backslash")
                }
                // A backslash before a line break continues the line, as in a shell.
                if escaped != "\n" && escaped != "\r\n" {
                    word.append(escaped)
                    inWord = true
                }
            case "'":
                inWord = true
                while true {
                    guard let quoted = next() else { throw SplitError(message: "a single quote (') is not closed") }
                    if quoted == "'" { break }
                    word.append(quoted)
                }
            case "\"":
                inWord = true
                while true {
                    guard let quoted = next() else { throw SplitError(message: "a double quote (\") is not closed") }
                    if quoted == "\"" { break }
                    if quoted == "\\", let escaped = next() {
                        if ["\"", "\\", "$", "`"].contains(escaped) {
                            word.append(escaped)
                        } else if escaped != "\n" {
                            word.append("\\")
                            word.append(escaped)
                        }
                    } else {
                        word.append(quoted)
                    }
                }
            default:
                word.append(character)
                inWord = true
            }
        }
        finishWord()
        return words
    }

    /// `word` quoted so that `split` (and a POSIX shell) reads it back as one word. Words made
    /// only of safe characters, and not starting with `#`, are returned as they are.
    public static func quote(_ word: String) -> String {
        let safe = word.unicodeScalars.allSatisfy { scalar in
            scalar.properties.isAlphabetic || scalar.properties.numericType != nil
                || "-_./:@%+=,#".unicodeScalars.contains(scalar)
        }
        if safe && !word.isEmpty && !word.hasPrefix("#") { return word }

        return "'" + word.replacingOccurrences(of: "'", with: #"'\''"#) + "'"
    }
}
