import Testing

@testable import CommandLineSupport

/// What a status line draws before its first drawing is due: nothing, and it does not even ask
/// for the text (which a caller may take time to make), so quick work stays quiet. (A log's line,
/// whose first drawing is a second away: ten updates take far less even on a loaded machine.)
@Suite struct StatusLineTests {
    @Test func quickWorkDrawsNothingAndClearsNothing() {
        var written: [String] = []
        var asked = 0
        let line = StatusLine(mode: .lines, width: 80) { written.append($0) }
        for _ in 0..<10 {
            line.update { _ in
                asked += 1
                return "work: 1 row"
            }
        }
        line.finish()
        #expect(written.isEmpty)
        #expect(asked == 0)
    }
}
