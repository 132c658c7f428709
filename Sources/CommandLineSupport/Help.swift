/// Help pages and usage lines for the commands of an `CommandLineParser`.
extension CommandLineParser {
    /// The usage line of the command at `path`: `tool row add S TITLE [--at R] [options]`.
    package func usage(of path: [String]) -> String {
        guard let command = command(at: path) else { return program }
        var parts = [program] + path
        if path.isEmpty {
            // The top: the global options, then the command.
            parts += globalOptions.filter { !$0.isHelp }.map { "[\($0.usage)]" }
            parts.append("COMMAND [ARGS]")
        } else if !command.subcommands.isEmpty {
            parts.append(command.isRunnable ? "[COMMAND]" : "COMMAND")
        }
        for argument in command.arguments {
            let name = argument.isVariadic ? "\(argument.name)…" : argument.name
            parts.append(argument.isOptional ? "[\(name)]" : name)
        }
        for option in command.options where !option.isHelp {
            parts.append("[\(option.usage)]")
        }
        return parts.filter { !$0.isEmpty }.joined(separator: " ")
    }

    /// The help page of the command at `path`: usage, summary, subcommands, arguments,
    /// options, global options, discussion and examples (each after the program's name).
    package func help(for path: [String]) -> String {
        guard let command = command(at: path) else { return usage(of: []) }
        var lines = ["usage: \(usage(of: path))"]
        if !command.summary.isEmpty {
            lines += ["", command.summary]
        }
        if !command.visibleSubcommands.isEmpty {
            lines += ["", "commands:"]
            lines += Self.table(
                command.visibleSubcommands.map { sub in
                    let names = sub.name
                    let arguments = sub.arguments.map { $0.isOptional ? "[\($0.name)]" : $0.name }
                    let more = sub.visibleSubcommands.isEmpty ? "" : " " + sub.visibleSubcommands.map(\.name).joined(separator: "|")
                    return ((([names] + arguments).joined(separator: " ")) + more, sub.summary)
                })
        }
        let describedArguments = command.arguments.filter { !$0.help.isEmpty }
        if !describedArguments.isEmpty {
            lines += ["", "arguments:"]
            lines += Self.table(describedArguments.map { ($0.name, $0.help) })
        }
        if !command.options.isEmpty {
            lines += ["", "options:"]
            lines += Self.table(command.options.map { (Self.spelling(of: $0), $0.help) })
        }
        if listsGlobalOptions && !globalOptions.isEmpty {
            lines += ["", "global options (anywhere on the line):"]
            lines += Self.table(globalOptions.map { (Self.spelling(of: $0), $0.help) })
        }
        if let discussion = command.discussion {
            lines += ["", discussion]
        }
        if !command.examples.isEmpty {
            lines += ["", command.examples.count == 1 ? "example:" : "examples:"]
            lines += command.examples.map { "  " + (program.isEmpty ? $0 : "\(program) \($0)") }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    private static func spelling(of option: OptionSpec) -> String {
        let long = option.valueName.map { "\(option.name) \($0)" } ?? option.name
        return option.shortName.map { "-\($0), \(long)" } ?? long
    }

    /// Two columns, the first padded to its widest entry.
    private static func table(_ rows: [(String, String)]) -> [String] {
        let width = rows.map { $0.0.count }.max() ?? 0
        return rows.map { left, right in
            right.isEmpty ? "  \(left)" : "  " + left + String(repeating: " ", count: width - left.count + 2) + right
        }
    }
}
