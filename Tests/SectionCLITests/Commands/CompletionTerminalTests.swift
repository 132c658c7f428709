import Foundation
import Repository
import TestSupport
import Testing

@testable import CommandLineSupport
@testable import SectionCLI

/// Completion as a person meets it: bash, zsh and fish run interactively in a real terminal
/// (tmux), the completion script loaded, Tab pressed, and the command line the shell is left
/// with run. Each waits for an event (a file the line creates, a marker on the screen), never for
/// a time to pass.
@Suite(.needs(.tmux))
struct CompletionTerminalTests {
    /// A shell in a tmux window, working in `directory` (also its home), with the completion
    /// script loaded and Tab going through the candidates one at a time.
    final class InteractiveShell {
        let shell: String
        let directory: URL
        let tmux: Tmux
        private var markers = 0

        init(_ shell: String, in directory: URL, variables: [(String, String)] = [], sourceLocation: SourceLocation = #_sourceLocation) throws {
            let path = try RequiredTool.shell(shell).path(sourceLocation: sourceLocation)
            self.shell = shell
            self.directory = directory
            let binaries = Sectionctl.binary.deletingLastPathComponent().path
            tmux = try Tmux(
                columns: 200, rows: 50,
                environment: [
                    "PATH": binaries + ":/usr/bin:/bin", "HOME": directory.path,
                    "XDG_CONFIG_HOME": directory.appendingPathComponent(".config").path,
                    "XDG_DATA_HOME": directory.appendingPathComponent(".data").path,
                ])
            let (start, setup): (String, [String])
            let quote = { (word: String) in ShellWords.quote(word) }
            switch shell {
            case "bash":
                start = "\(path) --norc --noprofile -i"
                setup = ["source <(sectionctl completion bash)", "bind 'TAB: menu-complete'"] + variables.map { "\($0.0)=\(quote($0.1))" }
            case "zsh":
                start = "\(path) -f -i"
                setup =
                    [
                        "autoload -Uz compinit", "compinit -u -D", "source <(sectionctl completion zsh)", "setopt menu_complete", "LISTMAX=100000",
                    ] + variables.map { "\($0.0)=\(quote($0.1))" }
            default:
                start = "\(path) --no-config -i"
                setup = ["sectionctl completion fish | source"] + variables.map { "set \($0.0) \(quote($0.1))" }
            }
            try tmux.type("cd \(quote(directory.path)) && exec \(start)")
            try tmux.press("Enter")
            let running = waitUntil {
                ((try? tmux.run(["display-message", "-p", "#{pane_current_command}"])) ?? "").hasPrefix(shell)
            }
            guard running else { throw TmuxError("\(shell) did not start: \(tmux.shown)") }
            try run((["cd \(quote(directory.path))"] + setup).joined(separator: "; "))
        }

        /// Types `line`, presses Enter, and waits until it has run.
        func run(_ line: String, sourceLocation: SourceLocation = #_sourceLocation) throws {
            markers += 1
            let marker = "ran-\(markers)"
            try tmux.type(line + "; touch \(marker)")
            try tmux.press("Enter")
            let done = waitUntil { FileManager.default.fileExists(atPath: directory.appendingPathComponent(marker).path) }
            #expect(done, "\(shell) did not run \(line): \(tmux.shown)", sourceLocation: sourceLocation)
        }

        /// How many presses of Tab insert candidate number `k` (from 1): fish's first press opens
        /// its menu, the others' inserts the first candidate.
        func taps(for k: Int) -> Int { shell == "fish" ? k + 1 : k }

        /// Types `text`, presses Tab `taps` times, then types `rest`.
        func complete(_ text: String, taps: Int, then rest: String) throws {
            try tmux.type(text)
            try tmux.run(["send-keys", "-N", String(taps), "Tab"])
            try tmux.type(rest)
        }

        /// Types `text`, presses Tab once, and returns the command line as the shell then shows
        /// it, and clears it: a marker typed after the Tab says when the shell has dealt with it.
        func lineAfterTab(_ text: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> String? {
            markers += 1
            let marker = "#sync-\(markers)"
            try complete(text, taps: 1, then: " " + marker)
            let screen = tmux.waitFor(marker)
            #expect(screen != nil, "\(shell): \(text) never showed the marker: \(tmux.shown)", sourceLocation: sourceLocation)
            try tmux.press("C-e", "C-u")
            return screen?.split(separator: "\n").last { $0.contains(marker) }.map(String.init)
        }
    }

    /// For every candidate Tab offers after `section delete`, in turn, the line is run on a
    /// copy of the database of its own: each deletes exactly one section, and between them every
    /// section once. A word read as another section's id, as an option or as something the shell
    /// expands would delete the wrong section, none, or one twice.
    @Test(arguments: CompletionScripts.shells)
    func everyCandidateTabOffersDeletesTheSectionItStandsFor(shell: String) throws {
        let cli = try HostileNames.database()
        let sections = try HostileNames.sections(in: cli.databasePath)
        for k in 1...sections.count { _ = try CompleteListingTests.copy(cli, to: "copy-\(k).db") }
        let terminal = try InteractiveShell(shell, in: cli.directory)
        var deleted: [SectionID: [String]] = [:]
        for k in 1...sections.count {
            try terminal.complete("sectionctl --db copy-\(k).db section delete ", taps: terminal.taps(for: k), then: " --force 2>err-\(k)")
            try terminal.run("")
            let gone = try CompleteListingTests.deleted(from: sections, at: cli.directory.appendingPathComponent("copy-\(k).db").path)
            let error = (try? String(contentsOf: cli.directory.appendingPathComponent("err-\(k)"), encoding: .utf8)) ?? ""
            #expect(gone.count == 1, "\(shell): candidate \(k) deleted \(gone): \(error)")
            for id in gone { deleted[id, default: []].append("candidate \(k)") }
        }
        let missed = sections.filter { deleted[$0.id] == nil }.map(\.title.debugDescription)
        #expect(missed.isEmpty, "\(shell): no candidate deleted \(missed)")
        #expect(deleted.values.allSatisfy { $0.count == 1 }, "\(shell): one section deleted by two candidates: \(deleted)")
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("pwned").path), "\(shell) ran a title")
    }

    /// A title partly typed, in quotes or with backslashes, and completed with one Tab: the line
    /// names that section (run on a copy of its own, it deletes that section and no other).
    @Test(arguments: CompletionScripts.shells)
    func aPartlyTypedTitleIsCompletedToTheSameSection(shell: String) throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let titles = ["a\"bc", "it's", "x$y", "b\\s", "a:b c", "To do", "wow!", "#1"]
        for title in titles { try cli.ok(["section", "add", "--", title]) }
        let sections = try HostileNames.sections(in: cli.databasePath)
        let typed: [(prefix: String, title: String)] = [
            (#""a\"b"#, "a\"bc"), ("'it", "it's"), (#"it\'"#, "it's"), (#""x"#, "x$y"), (#""b\\"#, "b\\s"), ("a:", "a:b c"),
            (#""a:"#, "a:b c"), (#"To\ d"#, "To do"), ("'To", "To do"), ("wo", "wow!"), ("\\#", "#1"),
        ]
        for (k, _) in typed.enumerated() { _ = try CompleteListingTests.copy(cli, to: "copy-\(k).db") }
        let terminal = try InteractiveShell(shell, in: cli.directory)
        for (k, entry) in typed.enumerated() {
            try terminal.complete("sectionctl --db copy-\(k).db section delete \(entry.prefix)", taps: 1, then: " 2>err-\(k)")
            try terminal.run("")
            let gone = try CompleteListingTests.deleted(from: sections, at: cli.directory.appendingPathComponent("copy-\(k).db").path)
            let expected = sections.filter { $0.title == entry.title }.map(\.id)
            let error = (try? String(contentsOf: cli.directory.appendingPathComponent("err-\(k)"), encoding: .utf8)) ?? ""
            #expect(gone == expected, "\(shell): \(entry.prefix) + Tab: \(error)")
        }
    }

    /// The same for list names after `--list`: each candidate, run, shows the list it names.
    @Test(arguments: CompletionScripts.shells)
    func everyListCandidateNamesItsList(shell: String) throws {
        let cli = try HostileNames.database()
        let names = (try SectionStore(path: cli.databasePath, readOnly: true).lists().map(\.name)).filter(CompletionWords.isSafeAsTyped)
        let terminal = try InteractiveShell(shell, in: cli.directory)
        var shown: [String] = []
        for k in 1...names.count {
            try terminal.complete("sectionctl --db test.db --json --list ", taps: terminal.taps(for: k), then: " show >out-\(k) 2>&1")
            try terminal.run("")
            let output = try Data(contentsOf: cli.directory.appendingPathComponent("out-\(k)"))
            let list = (try? JSONSerialization.jsonObject(with: output) as? [String: Any])?["list"] as? String
            #expect(list != nil, "\(shell): candidate \(k): \(String(decoding: output, as: UTF8.self))")
            shown.append(list ?? "?")
        }
        #expect(shown.sorted() == names.sorted(), "\(shell)")
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("pwned").path), "\(shell) ran a list name")
    }

    /// `--db` and `--list` typed with quotes, backslashes, `~`, `$NAME` (a variable of the shell's
    /// own, not exported) or `=`: Tab completes the section titles of the file the shell will
    /// open. A word that could only be read by running something (a command substitution) gets
    /// no completion, and nothing is run.
    @Test(arguments: CompletionScripts.shells)
    func theDatabaseIsReadAsTheShellWillReadIt(shell: String) throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["section", "add", "To do"])
        try cli.ok(["section", "add", "Done"])
        try cli.ok(["list", "add", "my list"])
        try cli.ok(["--list", "my list", "section", "add", "To do"])
        try FileManager.default.createDirectory(at: cli.directory.appendingPathComponent("sp ace"), withIntermediateDirectories: true)
        let spellings: [(typed: String, file: String)] =
            [
                (#"--db "copy 1.db""#, "copy 1.db"),
                ("--db 'copy 2.db'", "copy 2.db"),
                (#"--db copy\ 3.db"#, "copy 3.db"),
                ("--db ~/copy4.db", "copy4.db"),
                ("--db $CDB", "copy5.db"),
                (#"--db "$CDIR/copy6.db""#, "sp ace/copy6.db"),
                ("--db=copy7.db", "copy7.db"),
                (#"--db="copy 8.db""#, "copy 8.db"),
                (#"--db ~/"copy 9.db""#, "copy 9.db"),
                (#"--db "$HOME"/copy10.db"#, "copy10.db"),
            ] + (shell == "fish" ? [] : [("--db ${CDB11}", "copy11.db")])
        for spelling in spellings {
            let path = cli.directory.appendingPathComponent(spelling.file).path
            try FileManager.default.copyItem(atPath: cli.databasePath, toPath: path)
        }
        let variables = [("CDB", "copy5.db"), ("CDIR", "sp ace"), ("CDB11", "copy11.db"), ("CLIST", "my list")]
        let terminal = try InteractiveShell(shell, in: cli.directory, variables: variables)
        for spelling in spellings {
            try terminal.complete("sectionctl \(spelling.typed) section delete T", taps: 1, then: " 2>err")
            try terminal.run("")
            let left = try HostileNames.sections(in: cli.directory.appendingPathComponent(spelling.file).path).map(\.title)
            #expect(left == ["Done"], "\(shell): \(spelling.typed)")
        }
        for typed in [#"--db test.db --list "my list""#, #"--db test.db --list "$CLIST""#, #"--db test.db --list=my\ list"#] {
            #expect(try terminal.lineAfterTab("sectionctl \(typed) section delete T")?.contains(#"delete To\ do"#) == true, "\(shell): \(typed)")
        }
        let substitutions =
            shell == "fish"
            ? ["(touch pwned)", #""$(touch pwned)""#, "$(touch pwned)test.db", "test.db(touch pwned)"]
            : [#""$(touch pwned)""#, "`touch pwned`", "$(touch pwned)test.db", "test.db$(touch pwned)", #""`touch pwned`test.db""#]
        for word in substitutions + ["t*.db", "{test,x}.db", "$NOT_SET", "''"] {
            let line = try terminal.lineAfterTab("sectionctl --db \(word) section delete T")
            #expect(line?.contains("delete T #sync") == true, "\(shell): --db \(word) was completed: \(line ?? "")")
        }
        #expect(!FileManager.default.fileExists(atPath: cli.directory.appendingPathComponent("pwned").path), "\(shell) ran a --db word")
    }
}
