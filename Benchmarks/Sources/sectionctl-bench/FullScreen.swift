import Foundation
import Repository

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

extension Benchmark {
    /// Scenario 13: `sectionctl ui` opens a list of 1M rows as fast as one of 1K. Time to the
    /// first screen: from asking tmux to start `sectionctl ui` in a new window to the window
    /// showing the list (tmux's `capture-pane`, polled every few milliseconds), median of the
    /// rounds, each size in turn. The same tmux overhead is in both; the target is the ratio
    /// (≤ 1.5×), and the contract's "under a second" at 1M is reported beside it.
    func fullScreenRows() throws -> [ResultRow] {
        let plan = self.plan
        let sectionctl = sectionctlPath
        guard FileManager.default.isExecutableFile(atPath: sectionctl) else {
            return [.skipped("13. ui first screen", reason: "no sectionctl binary at \(sectionctl)")]
        }
        guard let tmux = TmuxRunner.find() else {
            return [.skipped("13. ui first screen", reason: "tmux not found (apt-get install tmux)")]
        }
        return try withScratch("ui") { scratch in
            Log.progress("  building sections of \(Format.count(plan.smallSection)) and \(Format.count(plan.hugeSection)) rows…")
            let small = try SectionFixture.create(at: scratch.file("small.db"), rows: plan.smallSection)
            let huge = try SectionFixture.create(at: scratch.file("huge.db"), rows: plan.hugeSection)
            // A first committed change settles the rank structure, as a list in use has it.
            for fixture in [small, huge] {
                try fixture.open().list("default").apply(.moveRow(.at(0, 0), to: .at(0, 1)))
            }
            let runner = TmuxRunner(tmux: tmux, socket: scratch.file("tmux.sock"))
            try runner.startServer()
            defer { runner.stopServer() }
            var times: [[Double]] = [[], []]
            for round in 0...plan.rounds {
                for (index, fixture) in [small, huge].enumerated() {
                    let seconds = try runner.timeToScreen(
                        [sectionctl, "--db", fixture.path, "ui"], window: "r\(round)-\(index)", showing: "Row 1  #2")
                    if round > 0 { times[index].append(seconds) }  // round 0 warms up
                }
            }
            let smallTime = Measurement.median(times[0])
            let hugeTime = Measurement.median(times[1])
            let size = Format.shortCount(huge.rows)
            var rows: [ResultRow] = [
                .atMost(
                    "13. ui first screen, \(Format.shortCount(small.rows)) vs \(size) rows",
                    measured: "\(Format.duration(smallTime)) vs \(Format.duration(hugeTime)) (in tmux; \(size): "
                        + (hugeTime < 1 ? "under a second" : "over a second") + ")",
                    ratio: hugeTime / smallTime, limit: 1.5, suffix: "x")
            ]

            // A list of many sections of one row (a records import's shape) against the one
            // section of 1K rows: the first screen, `G` (to the last row) after it, then `e`
            // (reorder mode, which begins an edit session) and `Esc` (which cancels it).
            Log.progress("  building \(Format.count(plan.manySectionsLarge)) sections of one row…")
            let many = try SectionsFixture.create(at: scratch.file("sections.db"), sections: plan.manySectionsLarge)
            try SectionStore(path: many.path).list("default").apply(.renameSection(.index(0), title: "Section 0"))
            let lists: [(path: String, first: String, last: String)] = [
                (small.path, "Row 1  #2", "Row \(small.rows - 1)  #"), (many.path, "Section 1", "Row \(many.sections - 1)  #"),
            ]
            var screens: [[Double]] = [[], []]
            var keys: [[Double]] = [[], []]
            var enters: [[Double]] = [[], []]
            var leaves: [[Double]] = [[], []]
            Log.progress("  timing the first screen, G, e and Esc, one section vs \(Format.shortCount(many.sections)) sections…")
            for round in 0...plan.rounds {
                for (index, list) in lists.enumerated() {
                    let window = "s\(round)-\(index)"
                    let screen = try runner.timeToScreen([sectionctl, "--db", list.path, "ui"], window: window, showing: list.first, keep: true)
                    let key = try runner.timeAfterKeys(["G"], window: window, showing: list.last)
                    // Reorder mode, entered at the last row and left with nothing changed.
                    let enter = try runner.timeAfterKeys(["e"], window: window, showing: "Reordering: space picks up")
                    let leave = try runner.timeAfterKeys(["Escape"], window: window, showing: "Left reorder mode.")
                    _ = try? runner.run(["kill-session", "-t", window])
                    if round > 0 {
                        screens[index].append(screen)
                        keys[index].append(key)
                        enters[index].append(enter)
                        leaves[index].append(leave)
                    }
                }
            }
            let sections = Format.shortCount(many.sections)
            let (oneScreen, manyScreen) = (Measurement.median(screens[0]), Measurement.median(screens[1]))
            let (oneKey, manyKey) = (Measurement.median(keys[0]), Measurement.median(keys[1]))
            rows.append(
                .atMost(
                    "13. ui first screen, \(sections) sections of one row vs one section of \(Format.shortCount(small.rows))",
                    measured: "\(Format.duration(manyScreen)) vs \(Format.duration(oneScreen)) (in tmux)", ratio: manyScreen / oneScreen,
                    limit: 1.5, suffix: "x"))
            rows.append(
                .atMost(
                    "13. ui key G (to the last row), \(sections) sections vs one section",
                    measured: "\(Format.duration(manyKey)) vs \(Format.duration(oneKey)) (in tmux)", ratio: manyKey / oneKey, limit: 1.5,
                    suffix: "x"))
            for (name, times) in [("e (reorder mode entered)", enters), ("Esc (reorder mode left)", leaves)] {
                let (one, manyTime) = (Measurement.median(times[0]), Measurement.median(times[1]))
                rows.append(
                    .atMost(
                        "13. ui key \(name), \(sections) sections vs one section",
                        measured: "\(Format.duration(manyTime)) vs \(Format.duration(one)) (in tmux)", ratio: manyTime / one, limit: 1.5,
                        suffix: "x"))
            }
            return rows
        }
    }
}

/// Runs tmux commands on a server of the benchmark's own, each a process spawned with default
/// signal handling (the benchmark ignores SIGINT and SIGTERM, which a spawned program would
/// otherwise inherit).
struct TmuxRunner {
    let tmux: String
    let socket: String

    static func find() -> String? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return (path.split(separator: ":").map(String.init) + ["/usr/bin", "/usr/local/bin"]).map { $0 + "/tmux" }
            .first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    func startServer() throws {
        try run(["new-session", "-d", "-s", "keep", "-x", "100", "-y", "40", "cat"])
    }

    func stopServer() {
        _ = try? run(["kill-server"])
    }

    /// Seconds from asking for a new window running `command` to its screen containing `text`;
    /// the window is closed then, unless `keep`.
    func timeToScreen(_ command: [String], window: String, showing text: String, keep: Bool = false) throws -> Double {
        let started = ContinuousClock.now
        try run(["new-session", "-d", "-s", window, "-x", "100", "-y", "40"] + command)
        let seconds = try waitFor(text, in: window, since: started)
        if !keep { _ = try? run(["kill-session", "-t", window]) }
        return seconds
    }

    /// Seconds from sending `keys` to the window to its screen containing `text`.
    func timeAfterKeys(_ keys: [String], window: String, showing text: String) throws -> Double {
        let started = ContinuousClock.now
        try run(["send-keys", "-t", window] + keys)
        return try waitFor(text, in: window, since: started)
    }

    /// Polls the window every 2 ms until its screen contains `text` (a guard of 30 s against a
    /// hang); the seconds since `started`.
    private func waitFor(_ text: String, in window: String, since started: ContinuousClock.Instant) throws -> Double {
        let deadline = started + .seconds(30)
        while ContinuousClock.now < deadline {
            if try run(["capture-pane", "-p", "-t", window]).contains(text) {
                return Measurement.seconds(ContinuousClock.now - started)
            }
            usleep(2_000)
        }
        let screen = (try? run(["capture-pane", "-p", "-t", window])) ?? ""
        _ = try? run(["kill-session", "-t", window])
        throw BenchmarkError("sectionctl ui did not show \"\(text)\" within 30 s; the screen: \(screen)")
    }

    /// Runs `tmux -S socket ARGUMENTS` and returns its standard output.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        let output = socket + ".out"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var none = sigset_t()
        sigemptyset(&none)
        var all = sigset_t()
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &none)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        let argv: [UnsafeMutablePointer<CChar>?] = ([tmux, "-S", socket, "-f", "/dev/null"] + arguments).map { strdup($0) } + [nil]
        defer { for argument in argv { free(argument) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, tmux, &actions, &attributes, argv, environ)
        guard spawned == 0 else { throw BenchmarkError("cannot run tmux: error \(spawned)") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        guard status == 0 else { throw BenchmarkError("tmux \(arguments.first ?? "") failed (status \(status))") }
        return (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    }
}
