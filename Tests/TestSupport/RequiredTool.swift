import Foundation
import PostgresCluster
import Testing

/// A program outside the package that some tests run (a shell, tmux, groff, the `sqlite3` shell,
/// PostgreSQL's server programs), and how to install it.
///
/// A test that needs one says so with a trait, `@Test(.needs(.zsh))` or `@Suite(.needs(.tmux))`,
/// or, when only some of its cases need it, with `try RequiredTool.zsh.path()` where it starts the
/// program. Where the program is missing the test is skipped with one line naming what to
/// install, so that `swift test` on a fresh machine passes and says what it left out. Where
/// `SECTIONCTL_REQUIRE_TOOLS=1` (CI sets it), a missing program is a failing test instead:
/// there nothing may be skipped unnoticed.
///
/// Programs are looked up on the test process's `PATH` (then in Homebrew's and `/usr/local`'s
/// directories, which a test runner on macOS may leave out of it), so a `PATH` without one
/// shows what a machine without it does.
package struct RequiredTool: Sendable, CustomStringConvertible {
    /// What a person is told is missing ("zsh", "PostgreSQL's initdb and pg_ctl").
    package let name: String
    /// The Debian package that installs it.
    package let debianPackage: String
    /// The command that installs it, when it is not `apt-get install` of `debianPackage`
    /// ("pip install selenium").
    package let installCommand: String?
    /// How a person turns the tests that need it off on purpose ("SECTIONCTL_TEST_POSTGRES=0"),
    /// if they can: those are skipped even where programs are required.
    package let offSwitch: String?
    /// Finds the program (or its directory); `nil` when it is not installed.
    private let locate: @Sendable () -> String?
    private let switchedOff: @Sendable () -> Bool

    package init(
        _ name: String, debianPackage: String, installCommand: String? = nil, offSwitch: String? = nil,
        switchedOff: @escaping @Sendable () -> Bool = { false }, locate: @escaping @Sendable () -> String?
    ) {
        self.name = name
        self.debianPackage = debianPackage
        self.installCommand = installCommand
        self.offSwitch = offSwitch
        self.switchedOff = switchedOff
        self.locate = locate
    }

    /// A program found by `command` on the `PATH`.
    package init(command: String, debianPackage: String) {
        self.init(command, debianPackage: debianPackage) { RequiredTool.onPath(command) }
    }

    package static let bash = RequiredTool(command: "bash", debianPackage: "bash")
    package static let zsh = RequiredTool(command: "zsh", debianPackage: "zsh")
    package static let fish = RequiredTool(command: "fish", debianPackage: "fish")
    package static let tmux = RequiredTool(command: "tmux", debianPackage: "tmux")
    package static let groff = RequiredTool(command: "groff", debianPackage: "groff-base")
    package static let man = RequiredTool(command: "man", debianPackage: "man-db")
    /// The `sqlite3` shell, which a person uses on the file outside sectionctl.
    package static let sqlite3 = RequiredTool(command: "sqlite3", debianPackage: "sqlite3")
    /// OpenSSL's command, which makes the self-signed certificates of the TLS tests.
    package static let openssl = RequiredTool(command: "openssl", debianPackage: "openssl")
    /// A mount namespace of a test's own (`unshare --mount`, which needs root): where a TLS test
    /// puts its own certificate into the system's trust store for one process, as an
    /// administrator would install it. Returns `unshare`'s path.
    package static let mountNamespace = RequiredTool("unshare --mount (as root)", debianPackage: "util-linux") {
        guard let unshare = RequiredTool.onPath("unshare"),
            let process = try? Process.run(URL(fileURLWithPath: unshare), arguments: ["--mount", "true"])
        else { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? unshare : nil
    }
    /// curl, the HTTPS client of the TLS tests.
    package static let curl = RequiredTool(command: "curl", debianPackage: "curl")
    /// PostgreSQL's server programs, for the throwaway cluster the server tests start (as root,
    /// also `setpriv`, which runs them as `nobody`). The directory of the programs is returned.
    package static let postgreSQL = RequiredTool(
        "PostgreSQL's initdb and pg_ctl", debianPackage: "postgresql", offSwitch: "SECTIONCTL_TEST_POSTGRES=0",
        switchedOff: { ThrowawayCluster.isSwitchedOff }, locate: { ThrowawayCluster.isInstalled ? ThrowawayCluster.binaries : nil })

    /// Debian's Chromium and its WebDriver, which the page's browser tests drive headless.
    /// Returns Chromium's path.
    package static let chromium = RequiredTool("chromium and chromedriver", debianPackage: "chromium chromium-driver") {
        guard let chromium = RequiredTool.onPath("chromium"), RequiredTool.onPath("chromedriver") != nil else { return nil }
        return chromium
    }
    /// SortableJS as Debian installs it, which `sectionctl serve` gives the page for drag-and-drop.
    package static let sortable = RequiredTool("SortableJS", debianPackage: "libjs-sortable") {
        let path = "/usr/share/javascript/sortable/Sortable.min.js"
        return FileManager.default.fileExists(atPath: path) ? path : nil
    }
    /// Python 3 with selenium, the WebDriver client the browser tests are written with. Returns
    /// python3's path.
    package static let selenium = RequiredTool("selenium for Python 3", debianPackage: "python3-pip", installCommand: "pip install selenium") {
        guard let python = RequiredTool.onPath("python3"),
            let process = try? Process.run(URL(fileURLWithPath: python), arguments: ["-c", "import selenium"])
        else { return nil }
        process.waitUntilExit()
        return process.terminationStatus == 0 ? python : nil
    }

    /// The shell named `name` (bash, zsh or fish).
    package static func shell(_ name: String) -> RequiredTool {
        switch name {
        case "zsh": zsh
        case "fish": fish
        case "bash": bash
        default: RequiredTool(command: name, debianPackage: name)
        }
    }

    /// "needs zsh (apt-get install zsh)": the line a skipped test shows.
    package var description: String { "needs \(name) (\(installCommand ?? "apt-get install \(debianPackage)"))" }

    /// Whether the program is installed.
    package var isInstalled: Bool { locate() != nil }

    /// Whether the tests that need it were turned off on purpose (its `offSwitch`).
    package var isSwitchedOff: Bool { switchedOff() }

    /// `SECTIONCTL_REQUIRE_TOOLS=1`: a missing program fails the tests that need it.
    package static var isRequired: Bool { ProcessInfo.processInfo.environment["SECTIONCTL_REQUIRE_TOOLS"] == "1" }

    /// The program's path (for PostgreSQL, its directory). When it is missing, the running test
    /// (or the test case, for one argument of a parameterized test) is skipped, saying so on
    /// standard error; with `SECTIONCTL_REQUIRE_TOOLS=1` this throws instead, a failing test.
    package func path(sourceLocation: SourceLocation = #_sourceLocation) throws -> String {
        let switchedOff = isSwitchedOff
        if !switchedOff, let path = locate() { return path }
        if Self.isRequired, !switchedOff { throw MissingTool(tool: self) }
        let why = switchedOff ? "\(offSwitch ?? "switched off")" : description
        // Swift Testing shows a cancelled test case as passed: this line says what was left out.
        let test = Test.current.map { " \($0.name)" } ?? ""
        FileHandle.standardError.write(Data("skipped:\(test): \(why)\n".utf8))
        try Test.cancel("\(why)", sourceLocation: sourceLocation)
    }

    /// The first executable `command` on the `PATH`, or in `/usr/local/bin` or `/opt/homebrew/bin`.
    package static func onPath(_ command: String) -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/local/bin", "/opt/homebrew/bin"]
        return directories.map { $0 + "/" + command }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }
}

/// A program a test needs is not installed, and `SECTIONCTL_REQUIRE_TOOLS=1` forbids skipping.
package struct MissingTool: Error, CustomStringConvertible {
    package let tool: RequiredTool
    package var description: String {
        "\(tool); SECTIONCTL_REQUIRE_TOOLS=1 makes a missing program a failure, not a skip"
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test or suite only where `tools` are installed; elsewhere it is skipped with a
    /// line naming what to install ("needs zsh (apt-get install zsh)"), or, with
    /// `SECTIONCTL_REQUIRE_TOOLS=1`, it fails naming the missing one.
    package static func needs(_ tools: RequiredTool..., sourceLocation: SourceLocation = #_sourceLocation) -> Self {
        let comment = Comment(
            rawValue: tools.map { tool in tool.description + (tool.offSwitch.map { ", and not \($0)" } ?? "") }.joined(separator: "; "))
        return .enabled(comment, sourceLocation: sourceLocation) {
            if tools.contains(where: \.isSwitchedOff) { return false }
            guard let missing = tools.first(where: { !$0.isInstalled }) else { return true }
            if RequiredTool.isRequired { throw MissingTool(tool: missing) }
            return false
        }
    }
}
