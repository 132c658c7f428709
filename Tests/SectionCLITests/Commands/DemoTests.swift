import Foundation
import TestSupport
import Testing

@Suite struct DemoTests {
    @Test(.needs(.sqlite3)) func demoBuildsTheSeedScenariosAndEndsWithThePath() throws {
        let cli = try Sectionctl()
        let path = cli.directory.appendingPathComponent("demo/demo.db").path
        let result = try cli.run(["--db", path, "demo"], database: false)
        #expect(result.status == 0, "\(result.stderr)")
        let lines = result.lines
        #expect(lines.last == path)
        #expect(result.stdout.contains("sqlite3 \(path) \"SELECT"))
        #expect(result.stdout.contains("       (No Data)"))  // the footer of the empty section
        #expect(result.stdout.contains(#""moved":[{"from":[0,1],"to":[1,0]}]"#))  // into the empty section
        #expect(result.stdout.contains("# 基本情報"))
        #expect(result.stdout.contains("年齢    -"))  // a missing value
        #expect(result.stdout.contains("Cancelled; 2 changes dropped"))
        #expect(result.stdout.contains("Saved 2 changes"))
        // The database is there to look at, with sqlite3 too.
        #expect(try sqliteValue(path, "SELECT title FROM ordered_rows WHERE list = 'default' AND path = '1:0'") == "Call Aiko")
        // A demo never overwrites a file.
        let again = try cli.run(["--db", path, "demo"], database: false)
        #expect(again.status == 1)
        #expect(again.stderr.contains("already exists"))
    }

    @Test func demoWithoutDbUsesATemporaryDirectory() throws {
        let cli = try Sectionctl()
        let result = try cli.run(["demo"], environment: ["TMPDIR": cli.directory.path], database: false)
        #expect(result.status == 0)
        let path = try #require(result.lines.last)
        #expect(path.hasPrefix(cli.directory.path + "/sectionctl-demo-"))
        #expect(FileManager.default.fileExists(atPath: path))
        let json = try cli.run(["--json", "demo"], environment: ["TMPDIR": cli.directory.path], database: false)
        let object = try json.json()
        #expect((object["database"] as? String)?.hasPrefix(cli.directory.path) == true)
        #expect((object["list"] as? [String: Any])?["editing"] as? Bool == true)
    }
}
