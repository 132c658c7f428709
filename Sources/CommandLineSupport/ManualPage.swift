/// A program's manual page (section 1), in roff with the `man` macros, generated from the command
/// tree: synopsis, description, global options, every command with its arguments, options,
/// notes and examples, then the program's exit statuses, environment, files, examples and
/// related pages.
///
/// Text is escaped for roff (backslashes, a leading dot or quote, dashes of options) and every
/// character outside ASCII is written as a named or numbered glyph, so that `groff -man -ww`
/// reads it without a warning whatever its input encoding. Only words of plain prose may
/// hyphenate: options, commands, names, paths and addresses stay whole at the end of a line.
package struct ManualPage {
    let parser: CommandLineParser
    let version: String
    /// Each exit status and what it means (EXIT STATUS).
    let exitStatuses: [(status: Int32, meaning: String)]
    /// Each environment variable read, and what for (ENVIRONMENT).
    let environment: [(name: String, meaning: String)]
    /// Each file used and what it is (FILES), as roff source: written as they are.
    let files: [(path: String, meaning: String)]
    /// Related pages (SEE ALSO): each name with its section.
    let seeAlso: [(name: String, section: Int)]
    /// Command names that appear in prose besides the tree's (those of a prompt's own commands):
    /// they are kept whole at the end of a line, as the tree's are.
    let otherCommandNames: [String]

    /// The page of `parser`'s program at `version`.
    package init(
        parser: CommandLineParser, version: String, exitStatuses: [(status: Int32, meaning: String)],
        environment: [(name: String, meaning: String)], files: [(path: String, meaning: String)],
        seeAlso: [(name: String, section: Int)], otherCommandNames: [String]
    ) {
        self.parser = parser
        self.version = version
        self.exitStatuses = exitStatuses
        self.environment = environment
        self.files = files
        self.seeAlso = seeAlso
        self.otherCommandNames = otherCommandNames
    }

    /// The page, in roff.
    package func roff() -> String {
        let program = parser.program
        var lines = [
            ".TH \(program.uppercased()) 1 \"\" \"\(program) \(version)\" \"User Commands\"",
            ".SH NAME",
            "\(program) \\- \(Self.escaped(parser.root.summary.prefix(while: { $0 != "." })))",
            ".SH SYNOPSIS",
            synopsis([]),
            ".SH DESCRIPTION",
            Self.escaped(parser.root.summary),
            ".PP",
            "Each command's help: \\fB\(program) help\\fR \\fICOMMAND\\fR or \\fB\(program)\\fR \\fICOMMAND\\fR \\fB\\-\\-help\\fR.",
        ]
        if let discussion = parser.root.discussion {
            lines += [".PP"] + Self.paragraph(discussion)
        }
        lines += [".SH GLOBAL OPTIONS", "These are accepted anywhere on the line."]
        lines += parser.globalOptions.flatMap(optionItem)
        lines.append(".SH COMMANDS")
        func visit(_ spec: CommandSpec, _ path: [String]) {
            if !path.isEmpty && (spec.visibleSubcommands.isEmpty || spec.isRunnable) {
                lines += commandSection(spec, path)
            }
            for sub in spec.visibleSubcommands { visit(sub, path + [sub.name]) }
        }
        visit(parser.root, [])
        if !exitStatuses.isEmpty {
            lines.append(".SH EXIT STATUS")
            for (status, meaning) in exitStatuses {
                lines += [".TP", ".B \(status)", Self.escaped(meaning)]
            }
        }
        if !environment.isEmpty {
            lines.append(".SH ENVIRONMENT")
            for (name, meaning) in environment {
                lines += [".TP", ".B \(name)", Self.escaped(meaning)]
            }
        }
        if !files.isEmpty {
            lines.append(".SH FILES")
            for (path, meaning) in files {
                lines += [".TP", ".I \(path)", meaning]
            }
        }
        lines.append(".SH EXAMPLES")
        lines += examples(parser.root.examples)
        if !seeAlso.isEmpty {
            lines += [".SH SEE ALSO"] + seeAlso.map { ".BR \($0.name) (\($0.section))" }
        }
        let commandWords = Set([program] + Self.commandNames(parser.root) + otherCommandNames)
        return lines.map { Self.keepingWordsWhole($0, commandWords: commandWords) }.joined(separator: "\n") + "\n"
    }

    /// Every command's name, at any depth.
    package static func commandNames(_ spec: CommandSpec) -> [String] {
        spec.subcommands.flatMap { [$0.name] + commandNames($0) }
    }

    /// `line` with `\%` before every word that is not plain prose, so that roff never hyphenates
    /// an option, a command, an argument's or variable's name, a path or an address at the end
    /// of a line (`--ver‐sion`). Plain prose is a word of letters only, not in capitals and not a
    /// command's name. Headings and requests without text are left as they are.
    static func keepingWordsWhole(_ line: String, commandWords: Set<String>) -> String {
        let textRequests = [".B ", ".I ", ".BR "]
        let request = textRequests.first { line.hasPrefix($0) }
        guard request != nil || !line.hasPrefix(".") else { return line }
        let text = line.dropFirst(request?.count ?? 0)
        let words = text.split(separator: " ", omittingEmptySubsequences: false).map { word -> String in
            guard !word.isEmpty, !word.hasPrefix("\\%"), !isProse(visible(word), commandWords: commandWords) else { return String(word) }
            return "\\%" + word
        }
        return (request ?? "") + words.joined(separator: " ")
    }

    /// Whether a word, as printed, may hyphenate.
    private static func isProse(_ word: String, commandWords: Set<String>) -> Bool {
        let punctuation = Set("()[]{},.;:!?\"'…—–")
        let core = String(word.drop { punctuation.contains($0) }.reversed().drop { punctuation.contains($0) }.reversed())
        guard core.count > 1 else { return true }
        return core.allSatisfy(\.isLetter) && core.contains(where: \.isLowercase) && !commandWords.contains(core)
    }

    /// A word of roff source as it prints: font changes, `\&` and `\%` dropped, `\-` a dash,
    /// `\e` a backslash, named glyphs a dash, numbered ones their character.
    private static func visible<S: StringProtocol>(_ word: S) -> String {
        var result = ""
        var rest = Substring(word)
        while let first = rest.first {
            rest = rest.dropFirst()
            guard first == "\\", let escape = rest.first else {
                result.append(first)
                continue
            }
            rest = rest.dropFirst()
            switch escape {
            case "f":
                if rest.first == "[" { rest = rest.drop { $0 != "]" }.dropFirst() } else { rest = rest.dropFirst() }
            case "-": result.append("-")
            case "e": result.append("\\")
            case "(":
                rest = rest.dropFirst(2)
                result.append("—")
            case "[":
                let name = rest.prefix { $0 != "]" }
                rest = rest.dropFirst(name.count + 1)
                if name.hasPrefix("u"), let value = UInt32(name.dropFirst(), radix: 16), let scalar = Unicode.Scalar(value) {
                    result.unicodeScalars.append(scalar)
                } else {
                    result.append("—")
                }
            default: break  // \& and \%: nothing printed
            }
        }
        return result
    }

    /// The synopsis of the command at `path`: its words in bold, arguments in italics.
    private func synopsis(_ path: [String]) -> String {
        guard let command = parser.command(at: path) else { return "" }
        var parts = ["\\fB\(parser.program)\\fR"] + path.map { "\\fB\(Self.escaped($0))\\fR" }
        if path.isEmpty {
            parts += parser.globalOptions.filter { !$0.isHelp }.map { "[\(Self.usage($0))]" }
            parts.append("\\fICOMMAND\\fR [\\fIARGS\\fR]")
        }
        for argument in command.arguments {
            let name = "\\fI\(argument.name)\\fR" + (argument.isVariadic ? "\\&..." : "")
            parts.append(argument.isOptional ? "[\(name)]" : name)
        }
        parts += command.options.filter { !$0.isHelp }.map { "[\(Self.usage($0))]" }
        return parts.joined(separator: " ")
    }

    private func commandSection(_ spec: CommandSpec, _ path: [String]) -> [String] {
        var lines = [".SS \"\(Self.escaped(path.joined(separator: " ")))\"", synopsis(path), ".br", Self.escaped(spec.summary)]
        let arguments = spec.arguments.filter { !$0.help.isEmpty }
        for argument in arguments {
            lines += [".TP", "\\fI\(Self.escaped(argument.name))\\fR", Self.escaped(argument.help)]
        }
        lines += spec.options.flatMap(optionItem)
        if let discussion = spec.discussion {
            lines += [".PP"] + Self.paragraph(discussion)
        }
        if !spec.examples.isEmpty {
            lines += [".PP", spec.examples.count == 1 ? "Example:" : "Examples:"] + examples(spec.examples)
        }
        return lines
    }

    private func optionItem(_ option: OptionSpec) -> [String] {
        let value = option.valueName.map { " \\fI\(Self.escaped($0))\\fR" } ?? ""
        let names = (option.shortName.map { "\\fB\\-\($0)\\fR, " } ?? "") + "\\fB\(Self.escaped(option.name))\\fR" + value
        return [".TP", names, Self.escaped(option.help)]
    }

    private func examples(_ examples: [String]) -> [String] {
        [".PP", ".RS", ".nf"] + examples.map { Self.escaped("\(parser.program) \($0)") } + [".fi", ".RE"]
    }

    private static func usage(_ option: OptionSpec) -> String {
        let spelled = option.shortName.map { "\\fB\\-\($0)\\fR" } ?? "\\fB\(escaped(option.name))\\fR"
        return option.valueName.map { "\(spelled) \\fI\(escaped($0))\\fR" } ?? spelled
    }

    /// A block of text as roff lines, filled into a paragraph, except for indented lines (a
    /// command to type), which keep their lines.
    private static func paragraph(_ text: String) -> [String] {
        var lines: [String] = []
        var verbatim = false
        for line in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let isIndented = line.hasPrefix(" ")
            if isIndented != verbatim {
                lines += isIndented ? [".PP", ".RS", ".nf"] : [".fi", ".RE", ".PP"]
                verbatim = isIndented
            }
            lines.append(escaped(String(line).trimmingLeadingSpaces))
        }
        if verbatim { lines += [".fi", ".RE"] }
        return lines
    }

    /// Text for roff: backslashes escaped, dashes as minus signs, a leading dot or quote
    /// guarded, and every character outside ASCII as a glyph escape.
    static func escaped<S: StringProtocol>(_ text: S) -> String {
        var result = ""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\\": result += "\\e"
            case "-": result += "\\-"
            case "\u{2014}": result += "\\(em"
            case "\u{2013}": result += "\\(en"
            case "\u{2026}": result += "\\&..."
            case "\u{2192}": result += "\\(->"
            case "\u{2018}", "\u{2019}": result += "'"
            case "\u{201C}", "\u{201D}": result += "\\(dq"
            default:
                if scalar.isASCII {
                    result.unicodeScalars.append(scalar)
                } else {
                    result += "\\[u" + String(scalar.value, radix: 16, uppercase: true).leftPadded(to: 4) + "]"
                }
            }
        }
        if let first = result.first, first == "." || first == "'" { result = "\\&" + result }
        return result
    }
}

extension String {
    fileprivate var trimmingLeadingSpaces: String { String(drop { $0 == " " }) }

    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? self : String(repeating: "0", count: width - count) + self
    }
}
