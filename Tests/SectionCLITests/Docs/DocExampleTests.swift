import Foundation
import PostgresCluster
import TestSupport
import Testing

@testable import CommandLineSupport

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
/// - A full-screen program's picture (`sectionctl ui`) is a ```` ```text ```` block after the
///   comment `<!-- doc-test screen: COMMAND; keys: KEY … -->`: COMMAND runs in a 100×24 tmux
///   window in the document's directory; once its first frame is whole (the bottom line drawn),
///   the keys are pressed (tmux's names: `e`, `Space`, `Down`), and the screen must come to show
///   the block: its lines with trailing spaces cut, and the blank rows above the bottom line as
///   one blank line. Without tmux, the document's examples stop there, with a note.
/// - A block that cannot be run here (it needs a terminal, a remote server) shows no output: a
///   ```` ```sh ```` block of commands only. A `$ ` line in any block but a console block fails
///   this test, so output cannot be shown without being checked.
/// - A document whose examples need a PostgreSQL server says which URI it writes for it, in the
///   comment `<!-- doc-test server: URI -->`. Its examples then run against a new, empty
///   database on the throwaway cluster the tests start (`ThrowawayCluster`): that URI in a
///   command stands for the database's own (quoted), and the database's URI in output is shown
///   as that URI. Without PostgreSQL's server programs, such a document's examples are not run,
///   and the test says so on standard error (CI installs them).
/// - A document whose examples need a sync service (`sectionctl serve`) says where, in the
///   comment `<!-- doc-test serve: DATABASE at ORIGIN -->` before the first block that needs it
///   (`<!-- doc-test serve: team.db at http://127.0.0.1:8080 -->`; `serve` listens at that
///   origin unless told otherwise). Before that block (after its setup), the test starts
///   `sectionctl --db DATABASE serve --listen 127.0.0.1:0` in the document's directory, as the
///   document shows a reader starting it in a terminal of its own, and waits for the line that
///   says where it listens; from then on ORIGIN in a command or setup script stands for the real
///   origin, and the real origin in output is shown as ORIGIN. The service is stopped (as Ctrl-C
///   does) when the document's examples end. (A setup script cannot start it with `&`: a process
///   left running in the background would hold the script's run open.)
/// - A program other than `sectionctl` that a machine may lack (`sqlite3`; `optionalTools`) stops
///   its document's examples where it is first run, with a note naming the package to install.
///
/// All the blocks of one document run in order, in one fresh temporary directory, with the built
/// `sectionctl` first on `PATH`, `HOME` and `XDG_DATA_HOME` inside the directory, and no
/// `SECTIONCTL_DB` unless the document exports it. What is normalised, because it must vary from
/// run to run: the temporary directory's path, which the documents write as `/tmp/tour`, a
/// server's URI and a sync service's origin, as above, and a token's selector (the 16 hex
/// digits after `Token #N (` or `sct_`), which they write as `3f9c2a7be01d4c58`. Nothing else: a
/// document shows nothing that varies (no timings, no dates).
@Suite("Documented examples")
struct DocExampleTests {
    /// The documents whose examples are run.
    static let documents: [String] = {
        let docs = (try? FileManager.default.contentsOfDirectory(atPath: packageRoot.appending(path: "docs").path)) ?? []
        return ["README.md"] + docs.filter { $0.hasSuffix(".md") }.sorted().map { "docs/\($0)" }
    }()

    /// The path the documents write for the temporary directory their examples run in.
    static let shownDirectory = "/tmp/tour"

    /// What the documents write for a token's selector, which is random.
    static let shownSelector = "3f9c2a7be01d4c58"

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
        /// For a full-screen picture: the command run in tmux, the keys pressed, and the
        /// screen's lines as the block shows them; `commands` is empty.
        var picture: (command: String, keys: [String], screen: [String])? = nil
        /// The sync service to start before the block: its database and the origin shown for it.
        var serve: (database: String, origin: String)? = nil
    }

    /// A document's console blocks, and the lines of other blocks that look like a shown command.
    static func parse(_ text: String) -> (blocks: [Block], strays: [(line: Int, text: String)]) {
        let lines = text.components(separatedBy: "\n")
        var blocks: [Block] = []
        var strays: [(Int, String)] = []
        var pendingSetup: [String] = []
        var pendingTerminal: String?
        var pendingPicture: (command: String, keys: [String])?
        var pendingServe: (database: String, origin: String)?
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
            if let declared = line.wholeMatch(of: /<!-- doc-test serve: (\S+) at (\S+) -->/) {
                pendingServe = (String(declared.1), String(declared.2))
                index += 1
                continue
            }
            if let declared = line.wholeMatch(of: /<!-- doc-test terminal: (.+) -->/) {
                pendingTerminal = String(declared.1)
                index += 1
                continue
            }
            if let declared = line.wholeMatch(of: /<!-- doc-test screen: (.+); keys: (.*) -->/) {
                pendingPicture = (String(declared.1), declared.2.split(separator: " ").map(String.init))
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
                blocks.append(Block(line: open + 1, setup: pendingSetup, commands: [], terminal: (command, body.map(\.1)), serve: pendingServe))
                (pendingSetup, pendingTerminal, pendingServe) = ([], nil, nil)
                continue
            }
            if let picture = pendingPicture {
                blocks.append(
                    Block(
                        line: open + 1, setup: pendingSetup, commands: [], picture: (picture.command, picture.keys, body.map(\.1)),
                        serve: pendingServe))
                (pendingSetup, pendingPicture, pendingServe) = ([], nil, nil)
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
            blocks.append(Block(line: open + 1, setup: pendingSetup, commands: commands, serve: pendingServe))
            (pendingSetup, pendingServe) = ([], nil)
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
        // The sync service the document's examples reach, once started: the origin shown, the
        // real one, and its run.
        var service: (shown: String, real: String, launched: Launched)?
        func substituted(_ command: String) -> String {
            var command = command
            if let service { command = command.replacingOccurrences(of: service.shown, with: service.real) }
            guard let server else { return command }
            return command.replacingOccurrences(of: server.shown, with: "'\(server.real)'")
        }

        let directory = try TemporaryDirectory()
        defer { if let service { stopService(service.launched) } }
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
            if let service { output = output.replacingOccurrences(of: service.real, with: service.shown) }
            output = output.replacing(/(Token #[0-9]+ \(|sct_)[0-9a-f]{16}/) { $0.output.1 + shownSelector }
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
            if let serve = block.serve, service == nil {
                let launched = try startService(database: serve.database, in: directory.url, environment: environment)
                guard let origin = launched.origin else {
                    return failures + ["\(name):\(block.line): sectionctl --db \(serve.database) serve did not start: \(launched.output)"]
                }
                service = (serve.origin, origin, launched.run)
            }
            if let terminal = block.terminal {
                failures += try runAtTerminal(terminal.command, showing: terminal.screen, environment: environment, normalised: normalised)
                    .map { "\(name):\(block.line): at a terminal, $ \(terminal.command): \($0)" }
            }
            if let picture = block.picture {
                guard Tmux.executable != nil else {
                    FileHandle.standardError.write(
                        Data("note: \(name)'s examples from line \(block.line) on are not run: tmux is not installed (apt-get install tmux)\n".utf8))
                    return failures
                }
                failures += try showOnScreen(picture.command, keys: picture.keys, screen: picture.screen, in: directory.url, environment: environment)
                    .map { "\(name):\(block.line): on screen, $ \(picture.command): \($0)" }
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

    /// Starts `sectionctl --db DATABASE serve` on any free loopback port in `directory`, its
    /// output in a file outside it, and waits for the line that says where it listens: the
    /// origin (`nil` when it ended first, with what it printed), and the run.
    static func startService(database: String, in directory: URL, environment: [String: String]) throws
        -> (origin: String?, output: String, run: Launched)
    {
        let outputURL = FileManager.default.temporaryDirectory.appendingPathComponent("sectionctl-doc-serve-\(UUID().uuidString).out")
        _ = FileManager.default.createFile(atPath: outputURL.path, contents: nil)
        let process = Process()
        process.executableURL = Sectionctl.binary
        process.arguments = ["--db", database, "serve", "--listen", "127.0.0.1:0"]
        process.currentDirectoryURL = directory
        process.environment = environment
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = try FileHandle(forWritingTo: outputURL)
        process.standardError = try FileHandle(forWritingTo: outputURL)
        try process.run()
        let run = Launched(process: process, outputURL: outputURL, errorURL: outputURL)
        func output() -> String { (try? String(contentsOf: outputURL, encoding: .utf8)) ?? "" }
        var origin: String?
        _ = waitUntil {
            origin = output().firstMatch(of: /Serving .* at (https?:\/\/[^\s\/]+)\/lists\/NAME/).map { String($0.1) }
            return origin != nil || !process.isRunning
        }
        if origin == nil { stopService(run) }
        return (origin, output(), run)
    }

    /// Ends a document's sync service as Ctrl-C does, and removes its output.
    static func stopService(_ run: Launched) {
        if run.process.isRunning { run.process.interrupt() }
        if !waitUntil({ !run.process.isRunning }) { run.process.terminate() }
        run.process.waitUntilExit()
        try? FileManager.default.removeItem(at: run.outputURL)
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

    /// Runs `command` in a tmux window in `directory`, presses `keys` once its first frame is
    /// whole, and waits for the screen to show `screen` (as the convention above reads a
    /// screen). Returns what differs.
    static func showOnScreen(_ command: String, keys: [String], screen: [String], in directory: URL, environment: [String: String])
        throws -> [String]
    {
        let tmux = try Tmux(columns: 100, rows: 24, environment: environment)
        try tmux.start("cd \(ShellWords.quote(directory.path)) && \(command)")
        func picture(_ shown: String) -> [String] {
            var lines = shown.components(separatedBy: "\n").map { String($0.reversed().drop(while: { $0 == " " }).reversed()) }
            while lines.last == "" { lines.removeLast() }
            guard let bottom = lines.popLast() else { return [] }
            while lines.last == "" { lines.removeLast() }
            return lines + ["", bottom]
        }
        // The bottom line is drawn last: with it on the alternate screen, the first frame is whole.
        func bottomIsDrawn(_ shown: String) -> Bool {
            var rows = shown.components(separatedBy: "\n")
            if rows.last == "" { rows.removeLast() }
            return rows.count == 24 && !rows[23].allSatisfy { $0 == " " }
        }
        guard tmux.waitFor({ bottomIsDrawn($0) && (try? tmux.isAlternateScreen()) == true }) != nil else {
            return ["the program did not draw a screen:\n\(tmux.shown)"]
        }
        for key in keys { try tmux.press(key) }
        guard tmux.waitFor({ picture($0) == screen }) != nil else {
            return ["\n--- shown:\n\(screen.joined(separator: "\n"))\n--- on screen:\n\(picture(tmux.shown).joined(separator: "\n"))"]
        }
        return []
    }

    @Test("every example whose output is shown prints it", arguments: documents)
    func examplesPrintWhatIsShown(document: String) throws {
        let text = try String(contentsOf: packageRoot.appending(path: document), encoding: .utf8)
        for failure in try Self.failures(of: text, name: document) { Issue.record(Comment(rawValue: failure)) }
    }

    /// The parser reads the convention as the documents use it: commands, their output, the
    /// exit line, setup, a sync service to start, and exports; and a `$ ` line outside a console
    /// block is caught.
    @Test func theConventionIsReadAsDocumented() {
        let text = """
            <!-- setup
            sectionctl init
            -->
            <!-- doc-test serve: team.db at http://127.0.0.1:8080 -->
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
        #expect(blocks[0].serve?.database == "team.db" && blocks[0].serve?.origin == "http://127.0.0.1:8080")
        #expect(strays.map(\.line) == [14])
    }

    /// A full-screen picture is read with its command, its keys and its lines, and runs no
    /// command of its own.
    @Test func aScreenPictureIsReadWithItsKeys() {
        let text = """
            <!-- doc-test screen: sectionctl --db todo.db ui; keys: e Space Down -->
            ```text
             sectionctl ui · default
            [0] To do  (3 rows)  #1

            ↑↓ carry
            ```
            """
        let (blocks, strays) = Self.parse(text)
        #expect(blocks.count == 1 && blocks[0].commands.isEmpty && strays.isEmpty)
        #expect(blocks.first?.picture?.command == "sectionctl --db todo.db ui")
        #expect(blocks.first?.picture?.keys == ["e", "Space", "Down"])
        #expect(blocks.first?.picture?.screen == [" sectionctl ui · default", "[0] To do  (3 rows)  #1", "", "↑↓ carry"])
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
