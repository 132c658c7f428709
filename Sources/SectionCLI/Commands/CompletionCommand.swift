import Foundation
import Repository

/// `completion bash|zsh|fish`: prints a completion script generated from the catalog.
enum CompletionCommand {
    static let command = Command<Context>(
        CommandSpec(
            name: "completion", summary: "print a shell completion script (bash, zsh or fish)",
            arguments: [shell],
            examples: [
                "completion bash > ~/.local/share/bash-completion/completions/sectionctl",
                "completion zsh > ~/.zfunc/_sectionctl",
                "completion fish > ~/.config/fish/completions/sectionctl.fish",
            ],
            discussion: """
                The script completes commands, options, --kind values and file names, and asks
                sectionctl for list names (--list) and section titles (S) as you type; it does
                nothing when the database is missing.
                """),
        reading: CompletionArguments.self
    ) { arguments, context in
        context.console.write(arguments.script)
    }

    static let shell = ArgumentSpec("SHELL", help: "bash, zsh or fish", completion: .choices(CompletionScripts.shells))

    static let scripts = CompletionScripts(parser: Catalog.parser, listing: ValuesCommand.name)
}

/// The hidden `__complete lists|sections`: list names, or the section titles of `--list`, one a
/// line, for completion scripts. Quick (no rows are read) and silent: a missing database or list
/// prints nothing and exits 0, and nothing is ever created or written. Titles that completion
/// could not offer as typed — an all-digit title, which reads as an index, or one that is
/// printed escaped (`TextEscaping`) — are left out.
enum ValuesCommand {
    static let name = "__complete"
    static let what = ArgumentSpec("WHAT", help: "lists or sections", completion: .choices(ValuesArguments.What.allCases.map(\.rawValue)))

    static let command = Command<Context>(
        CommandSpec(
            name: name, summary: "list names or section titles for completion scripts",
            arguments: [what],
            isHidden: true),
        reading: ValuesArguments.self
    ) { arguments, context in
        let names: [String]
        do {
            // A file only: completing must never wait on a network.
            guard case .file(let path) = try? context.databaseLocation(), FileManager.default.fileExists(atPath: path) else { return }
            let store = try SectionStore(path: path, readOnly: true)
            switch arguments.what {
            case .lists: names = try store.lists().map(\.name)
            case .sections: names = try store.outline(of: context.listName).sections.map(\.title)
            case nil: return
            }
        } catch {
            return
        }
        for name in names where !name.isEmpty && !name.allSatisfy(\.isASCIIDigit) && TextEscaping.escaped(name) == name {
            context.console.writeLine(name)
        }
    }
}

/// `completion SHELL`.
struct CompletionArguments: CommandArguments {
    /// The script for the shell named.
    var script: String

    init(from line: ParsedLine) throws(CLIError) {
        let shell = try line.word(CompletionCommand.shell)
        guard let script = CompletionCommand.scripts.script(for: shell) else {
            throw line.usage(
                "no completion for \"\(TextEscaping.escaped(shell))\" (shells: \(CompletionScripts.shells.joined(separator: ", ")))")
        }
        self.script = script
    }
}

/// `__complete WHAT`.
struct ValuesArguments: CommandArguments {
    /// What to list.
    enum What: String, CaseIterable, Sendable {
        case lists, sections
    }

    /// `nil` for a word that names neither: completion prints nothing rather than fail.
    var what: What?

    init(from line: ParsedLine) throws(CLIError) {
        what = What(rawValue: try line.word(ValuesCommand.what))
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
