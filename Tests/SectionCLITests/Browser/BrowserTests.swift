import Foundation
import TestSupport
import Testing

/// The list page of `sectionctl serve` in a real headless Chromium: the Python tests of
/// `Tests/Browser/test_page.py` (selenium driving chromium-driver), run against the built
/// `sectionctl`. Each starts `sectionctl serve` on a fresh file, opens the page, types a token
/// once, and checks what the page shows and what `sectionctl show` then has: the list as shown,
/// a drag into an empty section and its footers, save, cancel, another process's move arriving
/// live, delete and undo, keyboard reordering, a read token's page, hostile titles, and a list of
/// a million rows (built once per run by `sectionctl import`) that opens and scrolls with a bounded
/// number of rows in the page. Screenshots
/// of their steps go to `.build/browser-artifacts/`.
///
/// Where Chromium, SortableJS or selenium is missing the test is skipped, saying which to
/// install; CI installs them (`.ci/run`).
@Suite("The page in a browser")
struct BrowserTests {
    @Test(.needs(.chromium, .sortable, .selenium), .timeLimit(.minutes(20)))
    func thePageBehavesInChromium() throws {
        let python = try RequiredTool.selenium.path()
        let artifacts = packageRoot.appendingPathComponent(".build/browser-artifacts")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: python)
        process.arguments = [packageRoot.appendingPathComponent("Tests/Browser/test_page.py").path]
        process.currentDirectoryURL = packageRoot
        var environment = ProcessInfo.processInfo.environment
        environment["SECTIONCTL"] = Sectionctl.binary.path
        environment["SECTIONCTL_BROWSER_ARTIFACTS"] = artifacts.path
        process.environment = environment
        let log = try TemporaryDirectory()
        let output = log.url.appendingPathComponent("browser.log")
        try Data().write(to: output)
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        process.waitUntilExit()
        try handle.close()
        let text = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(process.terminationStatus == 0, "the browser tests failed (screenshots in \(artifacts.path)):\n\(text)")
        #expect(text.contains("\nOK"), "\(text)")
    }
}
