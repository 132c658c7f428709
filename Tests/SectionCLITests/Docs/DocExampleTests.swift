import Foundation
import PostgresCluster
import TestSupport
import Testing

/// Every shell example in README.md and docs/*.md whose output is shown is run here, and its
/// output must be the one shown, so a document cannot drift from what `sectionctl` prints.
///
/// The convention, for whoever writes a document:
/// - A shell example with its output is a ```` ```console ```` block. A line starting `$ ` is a
///   command; the lines up to the next command are everything it prints, standard output and
///   standard error as a terminal shows them, in order. A command that exits with a status
///   other than 0 ends its output with the line `(exit N)`.
/// - `$ export NAME=VALUE` sets a variable for the commands after it (`$PWD` and the like are
///   expanded as the shell would).
/// - An HTML comment `<!-- setup` … `-->` before a block holds a script (bash; a here-document
///   may write a file) run before it, whose output is not shown; it must exit 0.
/// - A session at a terminal (`sectionctl edit` typed into line by line) is a ```` ```text ````
///   block after the comment `<!-- doc-test terminal: sectionctl edit -->`: what the terminal
///   shows, where the text after each prompt (`edit default> `) is what was typed. It runs on a
///   pseudo-terminal, each line typed once its prompt is shown, with `NO_COLOR` set.
/// - A block that cannot be run here (it needs a terminal, a remote server) shows no output: a
///   ```` ```sh ```` block of commands only. A `$ ` line in any block but a console block fails
///   this test, so output cannot be shown without being checked.
/// - A document whose examples need a PostgreSQL server says which URI it writes for it, in the
///   comment `<!-- doc-test server: URI -->`. Its examples then run against a new, empty
///   database on the throwaway cluster the tests start (`ThrowawayCluster`): that URI in a
///   command stands for the database's own (quoted), and the database's URI in output is shown
///   as that URI. Without PostgreSQL's server programs, such a document's examples are not run,
///   and the test says so on standard error (CI installs them).
/// - A program other than `sectionctl` that a machine may lack (`sqlite3`; `optionalTools`) stops
///   its document's examples where it is first run, with a note naming the package to install.
///
/// All the blocks of one document run in order, in one fresh temporary directory, with the built
/// `sectionctl` first on `PATH`, `HOME` and `XDG_DATA_HOME` inside the directory, and no
/// `SECTIONCTL_DB` unless the document exports it. What is normalised, because it must vary from
/// run to run: the temporary directory's path, which the documents write as `/tmp/tour`, and a
/// server's URI, as above. Nothing else: a document shows nothing that varies (no timings, no
/// dates).
@Suite("Documented examples")
struct DocExampleTests {
    /// The documents whose examples are run.
    static let documents: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appending(path: "docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }()

    /// The path the documents write for the temporary directory their examples run in.
    static let shownDirectory = "/tmp/tour"

    struct Command {
        var line: Int
        var text: String
        var output: [String]
        var status: Int32
    }

    struct Block {
        var line: Int
        var setup: [String]
        var commands: [Command]
        /// For a terminal session: the `sectionctl` command run at a terminal, and what the
        /// terminal shows (the lines typed after each prompt included); `commands` is empty.
        var terminal: (command: String, screen: [String])? = nil
    }

    /// A document's console blocks, and the lines of other blocks that look like a shown command.
    static func parse(_ text: String) -> (blocks: [Block], strays: [(line: Int, text: String)]) {
        let lines = text.components(separatedBy: "\n")
        var blocks: [Block] = []
        var strays: [(Int, String)] = []
        var pendingSetup: [String] = []
        var pendingTerminal: String?
        var index = 0
        while index < lines.count {
            let line = lines[index]
            if line.hasPrefix("<!-- setup") {
                index += 1
                while index < lines.count, !lines[index].hasPrefix("-->") {
                    pendingSetup.append(lines[index])
                    index += 1
                }
                index += 1
                continue
            }
            if let declared = line.wholeMatch(of: /<!-- doc-test terminal: (.+) -->/) {
                pendingTerminal = String(declared.1)
                index += 1
                continue
            }
            guard line.hasPrefix("```") else {
                index += 1
                continue
            }
            let isConsole = line == "```console"
            let open = index
            index += 1
            var body: [(Int, String)] = []
            while index < lines.count, !lines[index].hasPrefix("```") {
                body.append((index + 1, lines[index]))
                index += 1
            }
            index += 1
            if let command = pendingTerminal {
                blocks.append(Block(line: open + 1, setup: pendingSetup, commands: [], terminal: (command, body.map(\.1))))
                (pendingSetup, pendingTerminal) = ([], nil)
                continue
            }
            guard isConsole else {
                strays += body.filter { $0.1.hasPrefix("$ ") }
                pendingSetup = []
                continue
            }
            var commands: [Command] = []
            for (number, text) in body {
                if text.hasPrefix("$ ") {
                    commands.append(Command(line: number, text: String(text.dropFirst(2)), output: [], status: 0))
                } else if !commands.isEmpty {
                    commands[commands.count - 1].output.append(text)
                } else {
                    strays.append((number, text))
                }
            }
            for i in commands.indices {
                if let last = commands[i].output.last, last.hasPrefix("(exit "), last.hasSuffix(")"),
                    let status = Int32(last.dropFirst(6).dropLast())
                {
                    commands[i].status = status
                    commands[i].output.removeLast()
                }
            }
            blocks.append(Block(line: open + 1, setup: pendingSetup, commands: commands))
            pendingSetup = []
        }
        return (blocks, strays)
    }

    /// Programs other than `sectionctl` that examples run, which a machine may lack, with the
    /// Debian package that has each: without one, a document's examples stop there, saying so.
    static let optionalTools = ["sqlite3": "sqlite3"]

    static func isInstalled(_ program: String) -> Bool {
        ["/usr/bin/", "/bin/", "/usr/local/bin/"].contains { FileManager.default.isExecutableFile(atPath: $0 + program) }
    }

    /// Runs `command` in bash in `directory`; its status, and standard output and error together.
    ///
    /// The output goes to a file, not a pipe, as `Sectionctl.launch` does: a pipe is read until
    /// every writer has closed it, and a long-lived process another test starts meanwhile (a
    /// PostgreSQL server, a tmux server) can inherit its write end, so that the read would never
    /// end. A file is read once the command has exited.
    static func run(_ command: String, in directory: URL, environment: [String: String]) throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["--noprofile", "--norc", "-c", command]
        process.currentDirectoryURL = directory
        process.environment = environment
        // One file for both, so the lines come in the order a terminal shows them.
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("sectionctl-doc-example-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        defer { try? FileManager.default.removeItem(at: outputURL) }
        let output = try FileHandle(forWritingTo: outputURL)
        defer { try? output.close() }
        process.standardOutput = output
        process.standardError = output
        process.standardInput = FileHandle.nullDevice
        try process.run()
        // A guard against a hang (an example that waits for input or runs until interrupted):
        // past it the command is ended, and its output so far compared as any.
        let guardTimer = DispatchSource.makeTimerSource()
        guardTimer.schedule(deadline: .now() + hangGuardSeconds)
        guardTimer.setEventHandler { process.terminate() }
        guardTimer.resume()
        defer { guardTimer.cancel() }
        process.waitUntilExit()
        let data = try Data(contentsOf: outputURL)
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Runs the examples of `text` (the document `name`) and returns what differs, one message
    /// each: a command printing other than it shows, or exiting otherwise; a stray `$ ` line.
    static func failures(of text: String, name: String) throws -> [String] {
        let (blocks, strays) = parse(text)
        var failures = strays.map { "\(name):\($0.line): a shown command or output outside a ```console block, where it is not run: \($0.text)" }
        guard !blocks.isEmpty else { return failures }

        // The server the document's examples use, when they need one: (shown URI, real URI).
        var server: (shown: String, real: String)?
        if let declared = text.firstMatch(of: /<!-- doc-test server: (\S+) -->/) {
            guard let cluster = ThrowawayCluster.shared else {
                FileHandle.standardError.write(
                    Data(
                        "note: \(name)'s examples are not run: they need the tests' PostgreSQL cluster, which is not running (see the note above; apt-get install postgresql)\n"
                            .utf8))
                return failures
            }
            server = (String(declared.1), try cluster.newDatabase())
        }
        func substituted(_ command: String) -> String {
            guard let server else { return command }
            return command.replacingOccurrences(of: server.shown, with: "'\(server.real)'")
        }

        let directory = try TemporaryDirectory()
        let real = directory.url.path
        let resolved = directory.url.resolvingSymlinksInPath().path
        var environment = Sectionctl.environment([
            "PATH": Sectionctl.binary.deletingLastPathComponent().path + ":/usr/bin:/bin",
            "HOME": real, "XDG_DATA_HOME": directory.path("data"),
        ])
        func normalised(_ output: String) -> [String] {
            var output = output
            if let server {
                // sectionctl prints a server's URI in its own form (user first, the socket's
                // directory as host): any URI naming the database stands for the shown one.
                let database = server.real.firstMatch(of: /postgresql:\/\/\/([a-z0-9_]+)/).map { String($0.1) } ?? server.real
                output = output.replacing(/postgres(ql)?:\/\/[^\s,;]*/) { $0.output.0.contains(database) ? server.shown : String($0.output.0) }
            }
            var lines = output.replacingOccurrences(of: resolved, with: shownDirectory)
                .replacingOccurrences(of: real, with: shownDirectory)
                .components(separatedBy: "\n")
            if lines.last == "" { lines.removeLast() }
            return lines
        }

        for block in blocks {
            if !block.setup.isEmpty {
                let script = "set -e\n" + substituted(block.setup.joined(separator: "\n"))
                let result = try run(script, in: directory.url, environment: environment)
                if result.status != 0 {
                    // The block's commands would run on the wrong state: report this alone.
                    return failures + ["\(name):\(block.line): its setup exited \(result.status): \(result.output)"]
                }
            }
            if let terminal = block.terminal {
                failures += try runAtTerminal(terminal.command, showing: terminal.screen, environment: environment, normalised: normalised)
                    .map { "\(name):\(block.line): at a terminal, $ \(terminal.command): \($0)" }
            }
            for command in block.commands {
                let place = "\(name):\(command.line): $ \(command.text)"
                if let assignment = substituted(command.text).wholeMatch(of: /export ([A-Za-z_][A-Za-z0-9_]*)=(.*)/) {
                    let variable = String(assignment.1)
                    let value = try run(
                        "export \(variable)=\(assignment.2); printf '%s' \"$\(variable)\"", in: directory.url, environment: environment)
                    if value.status != 0 || !command.output.isEmpty { failures.append("\(place): an export shows no output and must succeed") }
                    environment[variable] = value.output
                    continue
                }
                if let tool = optionalTools.first(where: { command.text.hasPrefix($0.key + " ") }), !isInstalled(tool.key) {
                    FileHandle.standardError.write(
                        Data(
                            "note: \(name)'s examples from line \(command.line) on are not run: \(tool.key) is not installed (apt-get install \(tool.value))\n"
                                .utf8))
                    return failures
                }
                let result = try run(substituted(command.text), in: directory.url, environment: environment)
                let printed = normalised(result.output)
                if printed != command.output {
                    failures.append(
                        "\(place)\n--- shown:\n\(command.output.joined(separator: "\n"))\n--- printed:\n\(printed.joined(separator: "\n"))")
                }
                if result.status != command.status {
                    failures.append("\(place): exited \(result.status), shown as \(command.status == 0 ? "success" : "(exit \(command.status))")")
                }
            }
        }
        return failures
    }

    /// Runs `command` (`sectionctl` and its words, split at spaces) at a pseudo-terminal, typing
    /// the text after each prompt of `screen` once the program has shown that prompt, and
    /// compares what the terminal shows with `screen`. Returns what differs.
    static func runAtTerminal(
        _ command: String, showing screen: [String], environment: [String: String], normalised: (String) -> [String]
    ) throws -> [String] {
        let words = command.split(separator: " ").map(String.init)
        guard words.first == "sectionctl" else { return ["a terminal session runs sectionctl, not \(command)"] }
        // A terminal gets colour; the documents show the listing without it.
        var environment = environment
        environment["NO_COLOR"] = "1"
        let terminal = try PseudoTerminal(Array(words.dropFirst()), environment: environment)
        for (index, line) in screen.enumerated() {
            guard let typed = line.firstMatch(of: /^(edit \S+> )(.*)$/) else { continue }
            let prompt = String(typed.1)
            let shownSoFar = screen[...index].joined(separator: "\n").components(separatedBy: prompt).count - 1
            guard terminal.waitFor(prompt, count: shownSoFar) else {
                return ["the prompt of line \(index + 1) never came:\n\(terminal.transcript)"]
            }
            terminal.type(String(typed.2) + "\n")
        }
        let status = terminal.finish()
        let shown = normalised(terminal.transcript.replacingOccurrences(of: "\r\n", with: "\n"))
        var failures: [String] = []
        if shown != screen {
            failures.append("\n--- shown:\n\(screen.joined(separator: "\n"))\n--- printed:\n\(shown.joined(separator: "\n"))")
        }
        if status != 0 { failures.append("exited \(status)") }
        return failures
    }

    @Test("every example whose output is shown prints it", arguments: documents)
    func examplesPrintWhatIsShown(document: String) throws {
        let text = try String(contentsOf: packageRoot.appending(path: document), encoding: .utf8)
        for failure in try Self.failures(of: text, name: document) { Issue.record(Comment(rawValue: failure)) }
    }

    /// The parser reads the convention as the documents use it: commands, their output, the
    /// exit line, setup and exports; and a `$ ` line outside a console block is caught.
    @Test func theConventionIsReadAsDocumented() {
        let text = """
            <!-- setup
            sectionctl init
            -->
            ```console
            $ export SECTIONCTL_DB=$PWD/x.db
            $ sectionctl show
            default (version 0)
            $ sectionctl frob
            sectionctl: error: unknown command "frob"
            (exit 2)
            ```
            ```sh
            $ sectionctl show
            ```
            """
        let (blocks, strays) = Self.parse(text)
        #expect(blocks.count == 1 && blocks[0].setup == ["sectionctl init"])
        #expect(blocks[0].commands.map(\.text) == ["export SECTIONCTL_DB=$PWD/x.db", "sectionctl show", "sectionctl frob"])
        #expect(blocks[0].commands.map(\.output) == [[], ["default (version 0)"], ["sectionctl: error: unknown command \"frob\""]])
        #expect(blocks[0].commands.map(\.status) == [0, 0, 2])
        #expect(strays.map(\.line) == [13])
    }

    /// An edited output line is a failure: the README with its tour's first line of output
    /// changed (to the schema version it once showed) fails on that line and no other.
    @Test func anEditedOutputLineFails() throws {
        let readme = try String(contentsOf: packageRoot.appending(path: "README.md"), encoding: .utf8)
        let shown = try #require(readme.components(separatedBy: "\n").first { $0.hasPrefix("Database /tmp/tour/tasks.db created") })
        let edited = readme.replacingOccurrences(of: shown, with: "Database /tmp/tour/tasks.db created (schema version 9).")
        try #require(edited != readme, "the README's tour still begins with init")
        let failures = try Self.failures(of: edited, name: "README.md")
        #expect(failures.count == 1 && failures.first?.contains("schema version 9") == true, "\(failures)")
    }
}
