import Foundation
import TestSupport
import Testing

@testable import CommandLineSupport
@testable import SectionCLI

/// The catalog, the help pages, docs/cli.md, the completion scripts and the manual page agree:
/// every command and option of the catalog appears in each, and nothing appears in them that the
/// parser does not accept.
@Suite struct ConsistencyTests {
    /// A visible command and the words that lead to it.
    struct Entry {
        var path: [String]
        var spec: CommandSpec
        var isLeaf: Bool { spec.visibleSubcommands.isEmpty }
    }

    static let entries: [Entry] = {
        var entries: [Entry] = []
        func visit(_ spec: CommandSpec, _ path: [String]) {
            if !path.isEmpty { entries.append(Entry(path: path, spec: spec)) }
            for sub in spec.visibleSubcommands { visit(sub, path + [sub.name]) }
        }
        visit(Catalog.parser.root, [])
        return entries
    }()

    /// Every option name the parser accepts somewhere (global or a command's), with its dashes.
    static let knownOptions: Set<String> = {
        var names = Set(Catalog.parser.globalOptions.flatMap(CompletionTests.spellings))
        func visit(_ spec: CommandSpec) {
            names.formUnion(spec.options.flatMap(CompletionTests.spellings))
            spec.subcommands.forEach(visit)
        }
        visit(Catalog.parser.root)
        return names
    }()

    static let packageDirectory = packageRoot

    static func cliDocument() throws -> String {
        try String(contentsOf: packageDirectory.appendingPathComponent("docs/cli.md"), encoding: .utf8)
    }

    /// `--name` tokens in a text.
    static func optionTokens(in text: String) -> Set<String> {
        Set(text.matches(of: /(?:^|[^\w-])(--[a-z][a-z-]*)/).map { String($0.output.1) })
    }

    /// The words after `sectionctl` in a documented command line, up to the first shell operator.
    static func commandWords(_ line: Substring) throws -> [String] {
        let words = try ShellWords.split(String(line))
        let operators: Set<String> = ["|", ">", "<", ";", "&&", "2>", ">>"]
        return Array(words.prefix { !operators.contains($0) })
    }

    // MARK: - Help

    @Test func helpShowsEveryCommandAndOption() {
        let parser = Catalog.parser
        let top = parser.help(for: [])
        for option in parser.globalOptions { #expect(top.contains(option.name), "\(option.name)") }
        for entry in Self.entries {
            let parent = parser.help(for: Array(entry.path.dropLast()))
            #expect(parent.contains("  \(entry.path.last!)"), "help of \(entry.path.dropLast()) lacks \(entry.path.last!)")
            let page = parser.help(for: entry.path)
            #expect(page.hasPrefix("usage: sectionctl \(entry.path.joined(separator: " "))"))
            for option in entry.spec.options + parser.globalOptions {
                #expect(page.contains(option.name), "help of \(entry.path) lacks \(option.name)")
            }
        }
    }

    @Test func everyExampleInHelpIsAccepted() throws {
        for entry in [Entry(path: [], spec: Catalog.parser.root)] + Self.entries {
            for example in entry.spec.examples {
                let words = try Self.commandWords(Substring(example))
                #expect(throws: Never.self, "\(example)") { try Catalog.parser.parse(words) }
            }
        }
    }

    // MARK: - docs/cli.md

    @Test func theReferenceNamesEveryCommandAndOption() throws {
        let document = try Self.cliDocument()
        let rows = document.split(separator: "\n").filter { $0.hasPrefix("| `") }
        for option in Catalog.parser.globalOptions {
            #expect(rows.contains { $0.contains("`\(option.name)") }, "docs/cli.md's global options lack \(option.name)")
        }
        for entry in Self.entries where entry.isLeaf {
            let name = "`" + entry.path.joined(separator: " ")
            let mentions = rows.filter { $0.contains(name) }
            #expect(!mentions.isEmpty, "docs/cli.md's commands lack \(name)`")
            for option in entry.spec.options {
                #expect(mentions.contains { $0.contains(option.name) }, "docs/cli.md: \(name)` lacks \(option.name)")
            }
        }
    }

    @Test func theReferenceNamesNothingTheParserRefuses() throws {
        let document = try Self.cliDocument()
        let lines = document.split(separator: "\n", omittingEmptySubsequences: false)
        // Options in the tables of options and commands.
        for line in lines where line.hasPrefix("| `") {
            let unknown = Self.optionTokens(in: String(line)).subtracting(Self.knownOptions)
            #expect(unknown.isEmpty, "docs/cli.md names \(unknown.sorted()) in: \(line)")
        }
        // Command lines: code spans that start with sectionctl, and lines of code blocks that run
        // it, unless the document shows them failing as unknown.
        var commandLines: [Substring] = []
        for match in document.matches(of: /`sectionctl ([^`]+)`/) { commandLines.append(match.output.1) }
        var inBlock = false
        for (index, line) in lines.enumerated() {
            if line.hasPrefix("```") {
                inBlock.toggle()
                continue
            }
            guard inBlock, line.hasPrefix("$ ") || line.contains("| sectionctl ") || line.hasPrefix("sectionctl "),
                let start = line.ranges(of: "sectionctl ").last
            else { continue }
            if index + 1 < lines.count && lines[index + 1].hasPrefix("sectionctl: error: unknown") { continue }
            commandLines.append(line[start.upperBound...])
        }
        #expect(commandLines.count > 30)
        for line in commandLines where !line.contains("[") && !line.contains("<noun>") {
            let words = try Self.commandWords(line)
            #expect(throws: Never.self, "docs/cli.md: sectionctl \(line)") { try Catalog.parser.parse(words) }
        }
    }

    // MARK: - Completion scripts

    @Test(arguments: CompletionScripts.shells)
    func completionScriptsNameEveryCommandAndOption(shell: String) throws {
        let script = try #require(CompletionCommand.scripts.script(for: shell))
        for entry in Self.entries {
            #expect(script.contains("\(entry.path.dropLast().joined(separator: " "))|\(entry.path.last!)'"), "\(shell): \(entry.path)")
            for option in entry.spec.options { #expect(script.contains(option.name), "\(shell): \(entry.path) \(option.name)") }
        }
        for option in Catalog.parser.globalOptions { #expect(script.contains(option.name)) }
        // What the script offers for each command is checked in the shells themselves
        // (CompletionTests.offersExactlyTheCatalogsCommandsAndOptions); here, no option it names is unknown.
        #expect(Self.optionTokens(in: script).subtracting(Self.knownOptions).isEmpty)
        #expect(!script.contains("|" + ValuesCommand.name), "the hidden listing is not offered as a command")
    }

    // MARK: - The manual page

    @Test func theManualPageNamesEveryCommandAndOptionAndNothingElse() throws {
        let result = try Sectionctl().run(["help", "--man"], database: false)
        #expect(result.status == 0)
        let page = result.stdout
        for entry in Self.entries where entry.isLeaf {
            #expect(page.contains(".SS \"\(entry.path.joined(separator: " ").replacing("-", with: "\\-"))\""), "\(entry.path)")
        }
        let options = Set(page.matches(of: /\\-\\-[a-z]+(?:\\-[a-z]+)*/).map { String($0.output).replacing("\\-", with: "-") })
        for option in Self.knownOptions where option.hasPrefix("--") { #expect(options.contains(option), "\(option)") }
        #expect(options.subtracting(Self.knownOptions).isEmpty, "\(options.subtracting(Self.knownOptions).sorted())")
        // Each command section is a command the parser knows.
        for match in page.matches(of: /\.SS "([^"]+)"/) {
            let path = String(match.output.1).replacing("\\-", with: "-").split(separator: " ").map(String.init)
            #expect(Catalog.parser.command(at: path) != nil, "\(path)")
        }
    }

    @Test(.needs(.groff)) func theManualPageFormatsWithoutWarnings() throws {
        let cli = try Sectionctl()
        let page = cli.directory.appendingPathComponent("sectionctl.1")
        try Data(try cli.run(["help", "--man"], database: false).stdout.utf8).write(to: page)
        let result = try Shell.run("bash", "\(try RequiredTool.groff.path()) -man -Tutf8 -ww sectionctl.1", in: cli.directory)
        #expect(result.status == 0, "\(result.stderr)")
        #expect(result.stderr == "", "groff warns: \(result.stderr)")
        let text = result.stdout.replacing(/.\u{8}/, with: "")
        for heading in ["NAME", "SYNOPSIS", "DESCRIPTION", "GLOBAL OPTIONS", "COMMANDS", "EXIT STATUS", "ENVIRONMENT", "FILES", "EXAMPLES"] {
            #expect(text.contains("\n\(heading)\n"), "\(heading)")
        }
        for name in ["SECTIONCTL_DB", "NO_COLOR", "XDG_DATA_HOME"] { #expect(text.contains(name)) }
        for code in ManualPage.exitStatuses { #expect(text.contains("       \(code.0.rawValue)")) }
    }

    /// At a narrow width roff breaks words at line ends; it may hyphenate prose, never an
    /// option (`--ver‐sion`), a command, an argument's or variable's name, or a path.
    @Test(.needs(.groff, .man)) func theManualPageHyphenatesOnlyProse() throws {
        let cli = try Sectionctl()
        let page = cli.directory.appendingPathComponent("sectionctl.1")
        try Data(try cli.run(["help", "--man"], database: false).stdout.utf8).write(to: page)
        var commandWords: Set<String> = ["sectionctl"]
        func visit(_ spec: CommandSpec) {
            for sub in spec.subcommands {
                commandWords.insert(sub.name)
                visit(sub)
            }
        }
        visit(Catalog.parser.root)
        visit(Catalog.sessionParser.root)
        let (groff, man) = (try RequiredTool.groff.path(), try RequiredTool.man.path())
        let renderings =
            [30, 40, 60].map { ("groff at \($0) columns", "\(groff) -man -Tutf8 -rLL=\($0)n sectionctl.1") }
            + [("man -l at 40 columns", "MANWIDTH=40 MANPAGER=cat \(man) -l sectionctl.1")]
        for (name, command) in renderings {
            let result = try Shell.run("bash", command, in: cli.directory)
            #expect(result.status == 0, "\(name): \(result.stderr)")
            let text = result.stdout.replacing(/.\u{8}/, with: "")
            let lines = text.split(separator: "\n").map(String.init)
            var hyphenated: [String] = []
            for (line, next) in zip(lines, lines.dropFirst()) where line.hasSuffix("\u{2010}") {
                let start = line.split(separator: " ").last.map { String($0.dropLast()) } ?? ""
                hyphenated.append(start + (next.split(separator: " ").first.map(String.init) ?? ""))
            }
            #expect(!hyphenated.isEmpty, "\(name): prose hyphenates (the page was rendered narrow)")
            let punctuation = Set("()[]{},.;:!?\"'")
            for word in hyphenated {
                let core = String(word.drop { punctuation.contains($0) }.reversed().drop { punctuation.contains($0) }.reversed())
                let isProse = core.allSatisfy(\.isLetter) && core.contains(where: \.isLowercase) && !commandWords.contains(core)
                #expect(isProse, "\(name): \"\(word)\" is broken across lines")
            }
            let words = Set(text.split(whereSeparator: \.isWhitespace).map { String($0.drop { punctuation.contains($0) }) })
            for option in Self.knownOptions where option.hasPrefix("--") {
                #expect(words.contains { $0.hasPrefix(option) }, "\(name): \(option) appears whole")
            }
        }
    }

    @Test func helpManTakesNoCommand() throws {
        let result = try Sectionctl().run(["help", "row", "--man"], database: false)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("sectionctl: error: --man writes the whole manual page; give no COMMAND\n"))
    }
}
