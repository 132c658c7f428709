import Foundation
import Testing

/// Eight processes changing one list at once: each succeeds or exits 75, and the final list is
/// exactly what the successful ones imply.
@Suite struct ConcurrencyTests {
    @Test func eightWritersAtOnce() throws {
        let cli = try Sectionctl()
        try cli.seed()
        var added: [(version: Int, title: String)] = []
        for round in 0..<2 {
            let runs = try (0..<8).map { process in
                (title: "p\(process)-r\(round)", run: try cli.launch(["--json", "row", "add", "Done", "p\(process)-r\(round)"]))
            }
            for (title, launched) in runs {
                let result = try launched.finish()
                #expect(result.status == 0 || result.status == 75, "\(result.stderr)")
                if result.status == 0 {
                    let version = try #require(try result.json()["version"] as? Int)
                    added.append((version, title))
                } else {
                    #expect(result.stderr.contains("busy"))
                }
            }
        }
        #expect(!added.isEmpty)
        // Each success is one version step; rows were appended in commit order.
        #expect(Set(added.map(\.version)).count == added.count)
        #expect(try cli.snapshot()["version"] as? Int == 5 + added.count)
        let expected = added.sorted { $0.version < $1.version }.map(\.title)
        #expect(try cli.orderedOutline()[1] == ["Done"] + expected)
    }

    @Test func eightEditSessionsAtOnce() throws {
        let cli = try Sectionctl()
        try cli.seed()
        let runs = try (0..<8).map { process in
            (
                title: "s\(process)",
                run: try cli.launch(["--json", "edit"], input: "row add Done s\(process)\nrow move 0:0 0:end\nsave\n")
            )
        }
        var saved: [(version: Int, title: String)] = []
        for (title, launched) in runs {
            let result = try launched.finish()
            #expect(result.status == 0 || result.status == 75, "\(result.stderr)")
            if result.status == 0 {
                saved.append((try #require(try result.json()["version"] as? Int), title))
            } else {
                #expect(result.stderr.contains("changed by someone else") || result.stderr.contains("busy"))
            }
        }
        #expect(!saved.isEmpty)
        let outline = try cli.orderedOutline()
        #expect(try cli.snapshot()["version"] as? Int == 5 + saved.count)
        #expect(outline[1] == ["Done"] + saved.sorted { $0.version < $1.version }.map(\.title))
        // Each saved session rotated "To do" by one.
        let base = ["Buy milk", "Call Mom", "Write report"]
        let rotated = Array(base[(saved.count % 3)...] + base[..<(saved.count % 3)])
        #expect(outline[0] == ["To do"] + rotated)
    }
}
