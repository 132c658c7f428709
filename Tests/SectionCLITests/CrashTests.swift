import Foundation
import Repository
import SQLite
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// `kill -9` in the middle of a large save leaves the database at the old state or the new one,
/// whole, with integrity intact and the rank structure consistent with the rows.
@Suite("Crashes")
struct CrashTests {
    /// A list of 2,000 rows in two sections, and an edit session of 1,000 moves across them.
    func prepare(_ cli: Sectionctl) throws -> (script: String, old: [Section], new: [Section]) {
        try cli.initialize()
        var lines = ["section add Left", "section add Right"]
        for index in 0..<2000 { lines.append("row add \(index % 2) 'row \(index)'") }
        lines.append("save")
        try cli.ok(["edit"], input: lines.joined(separator: "\n") + "\n")
        let old = try SectionStore(path: cli.databasePath).list("default").snapshot().sections

        var random = SystemRandomNumberGenerator()
        var moves: [String] = []
        for _ in 0..<1000 {
            let from = Int.random(in: 0...1, using: &random)
            let to = Int.random(in: 0...1, using: &random)
            moves.append("row move \(from):\(Int.random(in: 0..<900, using: &random)) \(to):\(Int.random(in: 0..<900, using: &random))")
        }
        let script = moves.joined(separator: "\n") + "\nsave\n"

        // The new state: the same session run to the end on a copy.
        let copy = cli.directory.appendingPathComponent("copy.db").path
        try FileManager.default.copyItem(atPath: cli.databasePath, toPath: copy)
        let saved = try cli.run(["--db", copy, "edit"], input: script, database: false)
        try #require(saved.status == 0, "\(saved.stderr)")
        let new = try SectionStore(path: copy).list("default").snapshot().sections
        try #require(new != old)
        return (script, old, new)
    }

    /// Waits until process `pid`, sent SIGSTOP, has stopped (true) or ended (false), leaving it
    /// to be waited for by its `Process` (`WNOWAIT`).
    static func hasStopped(_ pid: pid_t) -> Bool {
        var info = siginfo_t()
        while waitid(P_PID, id_t(pid), &info, WSTOPPED | WEXITED | WNOWAIT) != 0 {
            if errno != EINTR { return false }
        }
        return info.si_code == Int32(CLD_STOPPED)
    }

    @Test func killingASaveLeavesTheOldStateOrTheNew() throws {
        let cli = try Sectionctl()
        let (script, old, new) = try prepare(cli)
        let pristine = cli.directory.appendingPathComponent("pristine.db").path
        try FileManager.default.copyItem(atPath: cli.databasePath, toPath: pristine)

        // How long a whole run takes, to spread the kills over it.
        let started = Date()
        let whole = try cli.run(["edit"], input: script)
        let duration = Date().timeIntervalSince(started)
        try #require(whole.status == 0, "\(whole.stderr)")

        var outcomes: [String: Int] = [:]
        // Fourteen kills spread from the start to past the usual end (where they land does not
        // matter: any outcome must be the old state or the new); then kills aimed at the save: a
        // probe asks for the write lock without waiting, and at the first refusal the run is
        // stopped (SIGSTOP); if the lock is still refused, the stopped run holds it inside its
        // save's transaction, and is killed there, which must leave the old state. A run that
        // got past its save before it was stopped goes on, and the next trial aims again (up to
        // 20 of them, however fast or slow the machine: each waits for the lock, not for a time).
        var killedInsideTheSave = 0
        var trial = 0
        while trial < 14 || (killedInsideTheSave == 0 && trial < 34) {
            defer { trial += 1 }
            let aimed = trial >= 14
            for suffix in ["", "-wal", "-shm"] { try? FileManager.default.removeItem(atPath: cli.databasePath + suffix) }
            try FileManager.default.copyItem(atPath: pristine, toPath: cli.databasePath)
            let probe = try Connection(path: cli.databasePath, mode: .readWrite)
            probe.setBusyTimeout(milliseconds: 0)
            let run = try cli.launch(["edit"], input: script)
            func lockIsTaken() throws -> Bool {
                guard (try? probe.execute(script: "BEGIN IMMEDIATE")) == nil else {
                    try probe.execute(script: "ROLLBACK")
                    return false
                }
                return true
            }
            var saving = false
            if aimed {
                let pid = run.process.processIdentifier
                _ = try waitUntil {
                    guard run.process.isRunning else { return true }
                    guard try lockIsTaken() else { return false }
                    kill(pid, SIGSTOP)
                    guard Self.hasStopped(pid) else { return true }  // it ended first
                    saving = try lockIsTaken()
                    if !saving { kill(pid, SIGCONT) }
                    return saving
                }
            } else {
                usleep(useconds_t(duration * Double(trial) / 10 * 1_000_000))
            }
            kill(run.process.processIdentifier, SIGKILL)
            run.process.waitUntilExit()

            let db = try Connection(path: cli.databasePath, mode: .readWrite)
            #expect(try db.query("PRAGMA integrity_check") { $0.string(0) } == ["ok"], "trial \(trial)")
            let store = try SectionStore(path: cli.databasePath)
            #expect(try store.check() == [], "trial \(trial): the rank structure or the counts disagree with the rows")
            let sections = try store.list("default").snapshot().sections
            let state = sections == old ? "old" : sections == new ? "new" : "neither"
            #expect(state != "neither", "trial \(trial): the database is neither the old state nor the new")
            outcomes[state, default: 0] += 1
            if saving {
                #expect(state == "old", "trial \(trial): killed while holding the lock inside its save, the run left \(state)")
                killedInsideTheSave += 1
            }
        }
        #expect(killedInsideTheSave > 0, "no run was stopped inside its save in \(trial) trials: \(outcomes)")
        #expect(outcomes["neither"] == nil, "\(outcomes)")
        print("kill -9 during an edit session: \(outcomes), \(killedInsideTheSave) inside the save (a whole run takes \(Int(duration * 1000)) ms)")
    }
}
