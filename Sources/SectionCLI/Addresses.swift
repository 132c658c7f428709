import Repository

/// Reading the ways people name sections and rows on the command line.
///
/// - A section: an index (`2`: any all-digit word is an index), an id (`#7`), or an exact
///   title (`Done`). A section titled "2" is reached by its id.
/// - A row: `S:R` with a 0-based row index, `S:end` for the last row, or `#ID`. `S` is any
///   section form; the text after the *last* colon is the row part, so titles may contain colons.
/// - A destination: `S:R` (the row's index after the change) or `S:end` (append).
///
/// Ids may be negative (`#-1`) inside an edit session, for sections and rows it created.
enum Address {
    /// The section a word names.
    static func section(_ word: String) -> SectionRef {
        if let index = allDigits(word) { return .index(index) }
        if let id = id(word) { return .id(id) }
        return .title(word)
    }

    /// The row a word names: `S:R`, `S:end`, or `#ID`.
    static func row(_ word: String) throws(CLIError) -> RowRef {
        if let id = id(word) { return .id(id) }
        let (section, index) = try sectionAndIndex(word, role: "row")
        return .path(section, index)
    }

    /// The place a word names: `S:R` or `S:end`.
    static func destination(_ word: String) throws(CLIError) -> RowDestination {
        if id(word) != nil {
            throw CLIError(
                "a destination is S:R or S:end, not a row id (\(TextEscaping.escaped(TextEscaping.excerpt(word))))", exitCode: .usage)
        }
        let (section, index) = try sectionAndIndex(word, role: "destination")
        return RowDestination(section: section, index: index)
    }

    /// A row index: a number (negative ones are left for the store to refuse) or `end`.
    static func rowIndex(_ word: String) throws(CLIError) -> RowIndex {
        if word == "end" { return .end }
        guard let index = integer(word) else {
            throw CLIError("a row index is a number or 'end', not \"\(TextEscaping.escaped(TextEscaping.excerpt(word)))\"", exitCode: .usage)
        }
        return .index(index)
    }

    /// A section index (for `--at I` and `section move S I`).
    static func sectionIndex(_ word: String) throws(CLIError) -> Int {
        guard let index = integer(word) else {
            throw CLIError("a section index is a number, not \"\(TextEscaping.escaped(TextEscaping.excerpt(word)))\"", exitCode: .usage)
        }
        return index
    }

    private static func sectionAndIndex(_ word: String, role: String) throws(CLIError) -> (SectionRef, RowIndex) {
        guard let colon = word.lastIndex(of: ":"), colon != word.startIndex else {
            throw CLIError(
                "\"\(TextEscaping.escaped(TextEscaping.excerpt(word)))\" is not a \(role) address (use S:R, S:end\(role == "row" ? " or #ID" : ""))",
                exitCode: .usage)
        }
        let section = String(word[..<colon])
        let index = try rowIndex(String(word[word.index(after: colon)...]))
        return (self.section(section), index)
    }

    /// The value of a word made only of ASCII digits. Too large a number counts as an index far
    /// out of range rather than as a title.
    private static func allDigits(_ word: String) -> Int? {
        guard !word.isEmpty, word.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(word) ?? Int.max
    }

    /// `#123` or `#-4`.
    private static func id(_ word: String) -> Int64? {
        guard word.hasPrefix("#") else { return nil }
        let body = word.dropFirst()
        let digits = body.hasPrefix("-") ? body.dropFirst() : body
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int64(body)
    }

    /// An integer, possibly negative.
    private static func integer(_ word: String) -> Int? {
        let digits = word.hasPrefix("-") ? word.dropFirst() : Substring(word)
        guard !digits.isEmpty, digits.utf8.allSatisfy({ $0 >= 0x30 && $0 <= 0x39 }) else { return nil }
        return Int(word) ?? (word.hasPrefix("-") ? Int.min : Int.max)
    }
}
