import Foundation
import Glibc
import Testing

/// `sectionctl watch` follows another process's changes and ends cleanly on SIGINT.
@Suite struct WatchTests {
    /// Waits until `launched`'s standard output has at least `lines` lines (or 10 s pass).
    func waitForLines(_ launched: Launched, _ lines: Int) throws -> [String] {
        let deadline = Date().addingTimeInterval(10)
        while true {
            let text = String(decoding: try Data(contentsOf: launched.outputURL), as: UTF8.self)
            let found = text.split(separator: "\n").map(String.init)
            if found.count >= lines || Date() > deadline { return found }
            usleep(20_000)
        }
    }

    @Test func watchPrintsOneLinePerVersionFromAnotherProcess() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        let watch = try cli.launch(["--json", "watch"])
        usleep(300_000)
        try cli.ok(["section", "add", "To do"])
        try cli.ok(["row", "add", "0", "Buy milk"])
        try cli.ok(["row", "move", "0:0", "0:end"])  // onto its own place: no version, no line
        let lines = try waitForLines(watch, 2)
        kill(watch.process.processIdentifier, SIGINT)
        let result = try watch.finish()
        #expect(result.status == 0, "SIGINT ends watch with exit 0")
        #expect(result.stderr == "")
        #expect(lines.count == 2)
        let objects = try lines.map { try #require(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
        #expect(objects.map { $0["version"] as? Int } == [1, 2])
        let rows = try #require((objects[1]["changes"] as? [String: Any])?["rows"] as? [String: Any])
        #expect(rows["inserted"] as? [[Int]] == [[0, 0]])
    }

    @Test func watchSaysWhenToReloadAndEndsWhenTheListIsDeleted() throws {
        let cli = try Sectionctl()
        try cli.initialize()
        try cli.ok(["list", "add", "work"])
        let watch = try cli.launch(["--list", "work", "watch"])
        usleep(300_000)
        try cli.ok(["--list", "work", "section", "add", "Inbox"])
        try cli.ok(["list", "delete", "work", "--force"])
        let result = try watch.finish()
        #expect(result.status == 0)
        #expect(
            result.lines == [
                "Watching list \"work\" from version 0; Ctrl-C ends.",
                "Version 1 of list \"work\": added section 0.",
                "The list \"work\" was deleted.",
            ])
    }
}
