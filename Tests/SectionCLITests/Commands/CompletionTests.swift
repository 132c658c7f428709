import Foundation
import TestSupport
import Testing

@testable import CommandLineSupport
@testable import SectionCLI

/// `sectionctl completion bash|zsh|fish`: each script sourced in its own shell, asked to complete
/// partial command lines, and the candidates checked: commands, verbs, options, `--kind` values,
/// files, list names and section titles from the database, and nothing (and no file made) when
/// the database is missing.
@Suite struct CompletionTests {
    /// A partial command line (its last word is being typed) and what each shell offers.
    struct Probe {
        var words: [String]
        var expected: [String]
        /// What bash inserts differs for words that need quoting (`To\ do`).
        var bash: [String]?
        /// zsh's completion is run with `compadd` and `_files` standing in; `_files` says `<files>`.
        var zsh: [String]?

        init(_ words: [String], _ expected: [String], bash: [String]? = nil, zsh: [String]? = nil) {
            self.words = ["sectionctl"] + words
            self.expected = expected.sorted()
            self.bash = bash?.sorted()
            self.zsh = zsh?.sorted()
        }

        func expected(in shell: String) -> [String] {
            switch shell {
            case "bash": bash ?? expected
            case "zsh": zsh ?? expected
            default: expected
            }
        }
    }

    /// A database with two lists; the default list has sections "To do", "Done" and "2024" (an
    /// all-digit title, which reads as an index, so completion offers its id, #3).
    private func fixture() throws -> Sectionctl {
        let cli = try Sectionctl()
        try cli.initialize()
        for title in ["To do", "Done", "2024"] { try cli.ok(["section", "add", title]) }
        try cli.ok(["list", "add", "work"])
        try cli.ok(["--list", "work", "section", "add", "Inbox"])
        _ = FileManager.default.createFile(atPath: cli.directory.appendingPathComponent("backup.json").path, contents: Data("{}".utf8))
        return cli
    }

    private func probes(database: String) -> [Probe] {
        let commands = Catalog.parser.root.visibleSubcommands.map(\.name)
        return [
            Probe([""], commands),
            Probe(["ro"], ["row"]),
            Probe(["row", "m"], ["move"]),
            Probe(["row", "add", "--k"], ["--kind"]),
            Probe(["row", "add", "--kind", ""], ["text", "topic", "field"]),
            Probe(["--db", database, "--list", ""], ["default", "work"]),
            Probe(["--db", database, "row", "add", ""], ["To do", "Done", "#3"], bash: ["To\\ do", "Done", "\\#3"]),
            Probe(["--db", database, "--list", "work", "section", "rename", "I"], ["Inbox"]),
            Probe(["--db", "missing.db", "row", "add", ""], []),
            Probe(["--db", "missing.db", "--list", ""], []),
            Probe(["completion", ""], ["bash", "zsh", "fish"]),
            Probe(["help", "row", "d"], ["delete"]),
            Probe(["export", "-o", "back"], ["backup.json"], zsh: ["<files>"]),
        ]
    }

    /// Every command's options and every group's verbs, from the catalog: completion offers
    /// exactly what the parser accepts.
    static func catalogProbes() -> [Probe] {
        var probes: [Probe] = []
        let globals = Catalog.parser.globalOptions.flatMap(spellings)
        func visit(_ spec: CommandSpec, _ path: [String]) {
            if !spec.visibleSubcommands.isEmpty {
                probes.append(Probe(path + [""], spec.visibleSubcommands.map(\.name)))
            } else {
                let arguments = spec.arguments.first.map { _ in [String]() } ?? []
                probes.append(Probe(path + arguments + ["-"], spec.options.flatMap(spellings) + globals))
            }
            for sub in spec.visibleSubcommands { visit(sub, path + [sub.name]) }
        }
        visit(Catalog.parser.root, [])
        return probes
    }

    static func spellings(_ option: OptionSpec) -> [String] {
        [option.name] + (option.shortName.map { ["-\($0)"] } ?? [])
    }

    private func quoted(_ word: String, for shell: String) -> String {
        guard shell == "fish" else { return ShellWords.quote(word) }
        return "'" + word.replacing("\\", with: "\\\\").replacing("'", with: "\\'") + "'"
    }

    /// A script that sources the completion and prints, for each probe, `@` and its candidates,
    /// sorted and joined by tabs.
    private func script(_ shell: String, probes: [Probe]) -> String {
        var lines: [String]
        switch shell {
        case "bash":
            lines = [
                "source <(sectionctl completion bash) || exit 1",
                // As bash sets them: the words as typed, the line, the cursor at its end.
                #"probe() { COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1)); COMP_LINE="${COMP_WORDS[*]}"; COMP_POINT=${#COMP_LINE}; COMPREPLY=(); _sectionctl; printf '@%s\n' "$(printf '%s\n' "${COMPREPLY[@]}" | LC_ALL=C sort | paste -sd '\t' -)"; }"#,
            ]
        case "zsh":
            lines = [
                "autoload -Uz compinit && compinit -u -D",
                "source <(sectionctl completion zsh) || exit 1",
                #"[[ $_comps[sectionctl] == _sectionctl ]] || { print 'not registered with compdef'; exit 1 }"#,
                #"compadd() { local name c; while (( $# )); do [[ $1 == -a ]] && name=$2; shift; done; for c in "${(@P)name}"; do [[ $c == "$PREFIX"* ]] && print -r -- "$c"; done }"#,
                #"_files() { print -r -- '<files>' }"#,
                #"probe() { local words CURRENT PREFIX; words=("$@"); CURRENT=$#words; PREFIX=$words[CURRENT]; print -r -- "@$(_sectionctl | LC_ALL=C sort | paste -sd '\t' -)" }"#,
            ]
        default:
            lines = [
                "sectionctl completion fish | source",
                #"function probe; set -l c (complete -C $argv[1] | string split -f1 \t | LC_ALL=C sort); set -l joined (string join \t -- $c); echo "@$joined"; end"#,
            ]
        }
        for probe in probes {
            let typed = probe.words.dropLast().map { quoted($0, for: shell) } + [probe.words.last!]
            if shell == "fish" {
                lines.append("probe " + quoted(typed.joined(separator: " "), for: "fish"))
            } else {
                // The words before the last as typed (quoted), as bash and zsh give them.
                lines.append("probe " + typed.map { quoted($0, for: shell) }.joined(separator: " "))
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private func check(_ shell: String, _ probes: [Probe], in cli: Sectionctl, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let result = try Shell.run(shell, script(shell, probes: probes), in: cli.directory, sourceLocation: sourceLocation)
        #expect(result.status == 0, "\(shell): \(result.stderr)", sourceLocation: sourceLocation)
        #expect(result.stderr == "", "\(shell): \(result.stderr)", sourceLocation: sourceLocation)
        let answers = result.stdout.split(separator: "\n", omittingEmptySubsequences: false).filter { $0.hasPrefix("@") }
        #expect(answers.count == probes.count, "\(shell): \(result.stdout)", sourceLocation: sourceLocation)
        for (probe, answer) in zip(probes, answers) {
            let candidates = answer.dropFirst().split(separator: "\t").map(String.init).sorted()
            #expect(candidates == probe.expected(in: shell), "\(shell): \(probe.words.joined(separator: " "))", sourceLocation: sourceLocation)
        }
    }

    @Test(arguments: CompletionScripts.shells)
    func completesPartialCommandLines(shell: String) throws {
        let cli = try fixture()
        try check(shell, probes(database: cli.databasePath), in: cli)
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("missing.db").path))
    }

    @Test(arguments: CompletionScripts.shells)
    func offersExactlyTheCatalogsCommandsAndOptions(shell: String) throws {
        let cli = try Sectionctl()
        try check(shell, Self.catalogProbes(), in: cli)
    }

    @Test func anUnknownShellIsAUsageError() throws {
        let result = try Sectionctl().run(["completion", "tcsh"], database: false)
        #expect(result.status == 2)
        #expect(result.stderr.hasPrefix("sectionctl: error: no completion for \"tcsh\" (shells: bash, zsh, fish)\n"))
    }

    @Test func theListingIsHiddenAndQuietWithoutADatabase() throws {
        let cli = try Sectionctl()
        let result = try cli.run(["__complete", "sections"])
        #expect(result.status == 0 && result.stdout == "" && result.stderr == "")
        #expect(!FileManager.default.fileExists(atPath: cli.databasePath))
        #expect(!(try cli.run(["--help"], database: false)).stdout.contains("__complete"))
    }
}
