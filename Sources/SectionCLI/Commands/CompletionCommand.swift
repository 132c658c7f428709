import Foundation
import Repository

/// `completion bash|zsh|fish`: prints a completion script generated from the catalog.
enum CompletionCommand {
    static let command = Command<Context>(
        CommandSpec(
            name: "completion", summary: "print a shell completion script (bash, zsh or fish)",
            arguments: [ArgumentSpec("SHELL", help: "bash, zsh or fish", completion: .choices(CompletionScripts.shells))],
            examples: [
                "completion bash > ~/.local/share/bash-completion/completions/sectionctl",
                "completion zsh > ~/.zfunc/_sectionctl",
                "completion fish > ~/.config/fish/completions/sectionctl.fish",
            ],
            discussion: """
                The script completes commands, options, --kind values and file names, and asks
                sectionctl for list names (--list) and section titles (S) as you type; it does
                nothing when the database is missing.
                """)
    ) { parsed, context in
        let shell = parsed.arguments[0]
        guard let script = scripts.script(for: shell) else {
            throw CLIError.usage(
                "no completion for \"\(TextEscaping.escaped(shell))\" (shells: \(CompletionScripts.shells.joined(separator: ", ")))",
                command: parsed.commandPath)
        }
        context.console.write(script)
    }

    static let scripts = CompletionScripts(parser: Catalog.parser, listing: ValuesCommand.name)
}

/// The hidden `__complete lists|sections`: list names, or the section titles of `--list`, one a
/// line, for completion scripts. Quick (no rows are read) and silent: a missing database or list
/// prints nothing and exits 0, and nothing is ever created or written. Titles that completion
/// could not offer as typed — an all-digit title, which reads as an index, or one with a control
/// character — are left out.
enum ValuesCommand {
    static let name = "__complete"

    static let command = Command<Context>(
        CommandSpec(
            name: name, summary: "list names or section titles for completion scripts",
            arguments: [ArgumentSpec("WHAT", help: "lists or sections", completion: .choices(["lists", "sections"]))],
            isHidden: true)
    ) { parsed, context in
        let names: [String]
        do {
            // A file only: completing must never wait on a network.
            guard case .file(let path) = try? context.databaseLocation(), FileManager.default.fileExists(atPath: path) else { return }
            let store = try SectionStore(path: path, readOnly: true)
            switch parsed.arguments[0] {
            case "lists": names = try store.lists().map(\.name)
            case "sections": names = try store.outline(of: context.listName).sections.map(\.title)
            default: return
            }
        } catch {
            return
        }
        for name in names where !name.isEmpty && !name.allSatisfy(\.isASCIIDigit) && !name.unicodeScalars.contains(where: isControl) {
            context.console.writeLine(name)
        }
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.properties.generalCategory == .control || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}

extension Character {
    fileprivate var isASCIIDigit: Bool { isASCII && isNumber }
}
