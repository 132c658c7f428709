import CommandLineSupport
import Foundation
import Repository
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
                sectionctl for list names (--list) and sections (S) as you type. A section is
                offered by its title only where that word names it and nothing else; a title
                that reads as an index, an id or an option, holds invisible characters or is
                shared is offered as #ID. A --db or --list typed with quotes, ~ or $VAR is read
                as the shell will read it (nothing is run to read it). Nothing is offered when the
                database is missing, is not a regular file, or does not answer within a second.
                """),
        reading: CompletionArguments.self
    ) { arguments, context in
        context.console.write(arguments.script)
    }

    static let shell = ArgumentSpec("SHELL", help: "bash, zsh or fish", completion: .choices(CompletionScripts.shells))

    static let scripts = CompletionScripts(parser: Catalog.parser, listing: ValuesCommand.name)
}

/// The hidden `__complete lists|sections`: the words a completion script offers for list names,
/// or for the sections of `--list`, one a line (see `CompletionWords` for which word each gets).
///
/// Quick (no rows are read), silent and bounded: it answers nothing, with status 0, for a missing
/// database or list, a server (completing never waits on a network), a path that is not a regular
/// file (a FIFO, a device, a directory: opening one could block), and whatever is not answered
/// within `timeLimit` (a busy database, a stalled disk). Nothing is ever created or written.
enum ValuesCommand {
    static let name = "__complete"
    static let what = ArgumentSpec("WHAT", help: "lists or sections", completion: .choices(ValuesArguments.What.allCases.map(\.rawValue)))

    /// How long completion may take before it answers nothing: a person pressing Tab is waiting.
    /// One second, or the whole seconds `SECTIONCTL_COMPLETE_SECONDS` gives (1…3600), for a
    /// machine so loaded that reading a list's titles takes longer.
    static var timeLimit: DispatchTimeInterval {
        let given = ProcessInfo.processInfo.environment["SECTIONCTL_COMPLETE_SECONDS"].flatMap { Int($0) }
        return .seconds(given.map { min(max($0, 1), 3600) } ?? 1)
    }

    static let command = Command<Context>(
        CommandSpec(
            name: name, summary: "list names or section titles for completion scripts",
            arguments: [what],
            isHidden: true),
        reading: ValuesArguments.self
    ) { arguments, context in
        // A file only: completing must never wait on a network.
        guard let what = arguments.what, case .file(let path) = try? context.databaseLocation() else { return }
        let list = context.listName
        // The reading runs on a thread of its own, so that the answer can be given up on: a
        // process that cannot open or read the file in time exits without it.
        let answer = Answer()
        DispatchQueue.global().async {
            answer.give(try? candidates(what, path: path, list: list))
        }
        guard answer.ready.wait(timeout: .now() + timeLimit) == .success, let candidates = answer.taken() else { return }
        for candidate in candidates {
            context.console.writeLine(candidate.line)
        }
    }

    /// What to offer, read from the file at `path`; `nil` when there is nothing to read there.
    static func candidates(_ what: ValuesArguments.What, path: String, list: String) throws -> [CompletionWords.Candidate]? {
        guard isRegularFile(path), siblingsAreFiles(of: path) else { return nil }
        let store = try SectionStore(path: path, readOnly: true)
        switch what {
        case .lists: return CompletionWords.lists(try store.lists().map(\.name))
        case .sections: return CompletionWords.sections(try store.list(list).outline().sections)
        }
    }

    /// Whether `path` names a regular file (or a link to one). `stat` does not open it, so a
    /// FIFO cannot block here.
    static func isRegularFile(_ path: String) -> Bool {
        var status = stat()
        return stat(path, &status) == 0 && (status.st_mode & S_IFMT) == S_IFREG
    }

    /// Whether the files SQLite opens beside the database (its write-ahead log, shared memory
    /// index and rollback journal) are absent or regular files.
    private static func siblingsAreFiles(of path: String) -> Bool {
        ["-wal", "-shm", "-journal"].allSatisfy { suffix in
            var status = stat()
            return stat(path + suffix, &status) != 0 || (status.st_mode & S_IFMT) == S_IFREG
        }
    }

    /// The candidates once they are read, handed from the reading thread to the waiting one.
    private final class Answer: Sendable {
        let ready = DispatchSemaphore(value: 0)
        private let value = Mutex<[CompletionWords.Candidate]??>(nil)

        func give(_ candidates: [CompletionWords.Candidate]?) {
            value.withLock { $0 = .some(candidates) }
            ready.signal()
        }

        func taken() -> [CompletionWords.Candidate]? {
            value.withLock { $0 ?? nil }
        }
    }
}

/// Which word completion offers for each list and section: only a word that, typed on the
/// command line, names that very list or section.
///
/// A section is offered by its title when the title, as a word, is read back as that title and
/// names no other section; otherwise by its id, `#ID`, described by its title (quoted, escaped
/// and cut short as messages show it). A title is offered as `#ID` when it
/// - is empty, or reads as an index (`2`) or an id (`#1`);
/// - begins with `-` (it would be read as an option) or `~` (a shell would expand it: fish does
///   not quote a leading `~`);
/// - has a character that output escapes (`TextEscaping`): a control character, a bidirectional
///   control, an invisible one; or U+FFFD, which stands for bytes that were not UTF-8;
/// - is shared with another section of the list (two titles Swift calls equal count as one);
/// - is `@files`, which the scripts read as "complete file names".
///
/// Lists have no ids: a list name that could not be offered as typed is left out. Everything
/// else a shell would read differently (blanks, quotes, `$`, `*`, a leading `#`) the scripts
/// quote.
enum CompletionWords {
    /// One word to offer.
    struct Candidate: Hashable, Sendable {
        /// What is inserted.
        var word: String
        /// What it stands for, shown beside it by zsh and fish: `nil` when it is the word itself.
        var description: String?

        /// Its line in `__complete`'s output: the word, then a tab and the description if any.
        /// Neither holds a tab or a line break.
        var line: String { description.map { word + "\t" + $0 } ?? word }
    }

    /// A candidate for each section, in order.
    static func sections(_ sections: [SectionInfo]) -> [Candidate] {
        var uses: [String: Int] = [:]
        for section in sections { uses[section.title, default: 0] += 1 }
        return sections.map { section in
            let title = section.title
            if uses[title] == 1, readsAsTitle(title), isSafeAsTyped(title) { return Candidate(word: title) }
            return Candidate(word: "#\(section.id)", description: "\"" + TextEscaping.escaped(TextEscaping.excerpt(title)) + "\"")
        }
    }

    /// A candidate for each list that can be offered by its name.
    static func lists(_ names: [String]) -> [Candidate] {
        names.filter(isSafeAsTyped).map { Candidate(word: $0) }
    }

    /// Whether `title` as a section address is read as that title (not an index or an id).
    static func readsAsTitle(_ title: String) -> Bool {
        guard case .title(let read) = SectionAddress(title).reference else { return false }
        return read.utf8.elementsEqual(title.utf8)
    }

    /// Whether `word`, inserted (quoted as a shell needs), reaches the command as it is and is
    /// read as an argument: not empty, no option, nothing a shell expands unquoted, nothing
    /// output would escape.
    static func isSafeAsTyped(_ word: String) -> Bool {
        guard let first = word.unicodeScalars.first, first != "-", first != "~", word != CompletionScripts.filesMarker else { return false }
        return !word.unicodeScalars.contains("\u{FFFD}") && TextEscaping.escaped(word).utf8.elementsEqual(word.utf8)
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

extension ValueCompletion {
    /// The names of the database's lists, as `__complete lists` prints them.
    static let lists = ValueCompletion.listed(ValuesArguments.What.lists.rawValue)
    /// The sections of the list on the line, as `__complete sections` prints them.
    static let sections = ValueCompletion.listed(ValuesArguments.What.sections.rawValue)
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
