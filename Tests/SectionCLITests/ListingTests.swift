import Repository
import Testing

@testable import CommandLineSupport
@testable import SectionCLI

@Suite struct ListingTests {
    let snapshot = ListSnapshot(
        name: "default", version: 7,
        sections: [
            Section(id: 1, title: "To do", rows: [Row(id: 4, content: .text("Buy milk")), Row(id: 5, content: .text("Call Mom"))]),
            Section(id: 2, title: "Done"),
            Section(
                id: 3, title: "プロフィール",
                rows: [
                    Row(id: 6, content: .topic("基本情報")),
                    Row(id: 7, content: .field("名前", "山田 太郎")),
                    Row(id: 8, content: .field("年齢", nil)),
                    Row(id: 9, content: .field("メールアドレス", "taro@example.com")),
                ]),
        ])

    @Test func showsSectionsPathsAndIds() {
        let text = Listing(style: .plain).render(snapshot)
        #expect(
            text == """
                default (version 7)

                [0] To do  #1
                  0:0  Buy milk  #4
                  0:1  Call Mom  #5

                [1] Done  #2

                [2] プロフィール  #3
                  2:0  # 基本情報  #6
                  2:1  名前            山田 太郎  #7
                  2:2  年齢            -  #8
                  2:3  メールアドレス  taro@example.com  #9

                """)
    }

    @Test func editingViewShowsFootersOfEmptySections() {
        var editing = snapshot
        editing.isEditing = true
        editing.sections[1].emptyText = "Nothing done yet"
        let text = Listing(style: .plain).render(editing)
        #expect(text.hasPrefix("default (version 7, editing)\n"))
        #expect(text.contains("[1] Done  #2\n       (Nothing done yet)\n"))
        #expect(!Listing(style: .plain).render(snapshot).contains("No Data"))
    }

    @Test func escapesUserText() {
        let hostile = ListSnapshot(
            name: "x\u{1B}]0;pwned\u{7}", version: 1,
            sections: [Section(id: 1, title: "\u{1B}[2J", rows: [Row(id: 2, content: .field("\u{9B}31m", "v\u{1B}[0m"))])])
        let text = Listing(style: .plain).render(hostile)
        #expect(!text.unicodeScalars.contains { $0.value == 0x1B || $0.value == 0x07 || $0.value == 0x9B })
        #expect(text.contains("\\e[2J"))
        #expect(text.contains("\\u{9B}31m"))
    }

    @Test func colourOnlyWhenEnabled() {
        #expect(!Listing(style: .plain).render(snapshot).contains("\u{1B}"))
        #expect(Listing(style: Style(isEnabled: true)).render(snapshot).contains("\u{1B}[1m"))
    }

    @Test func styleFollowsTheTerminalAndTheEnvironment() {
        #expect(Style.forStream(isTerminal: true, environment: ["TERM": "xterm"]).isEnabled)
        #expect(!Style.forStream(isTerminal: false, environment: ["TERM": "xterm"]).isEnabled)
        #expect(!Style.forStream(isTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": "1"]).isEnabled)
        #expect(!Style.forStream(isTerminal: true, environment: ["TERM": "xterm", "NO_COLOR": ""]).isEnabled)
        #expect(!Style.forStream(isTerminal: true, environment: ["TERM": "dumb"]).isEnabled)
        #expect(!Style.forStream(isTerminal: true, environment: [:]).isEnabled)
    }

    @Test func emptyListSaysHowToStart() {
        let text = Listing(style: .plain).render(ListSnapshot(name: "default", version: 0))
        #expect(text.contains("no sections yet"))
    }
}

@Suite struct AddressTests {
    @Test func sectionsByIndexIdOrTitle() {
        #expect(SectionAddress("2").reference == .index(2))
        #expect(SectionAddress("#7").reference == .id(7))
        #expect(SectionAddress("#-1").reference == .id(-1))
        #expect(SectionAddress("Done").reference == .title("Done"))
        #expect(SectionAddress("-1").reference == .title("-1"))
        #expect(SectionAddress("2a").reference == .title("2a"))
    }

    @Test func rows() throws {
        #expect(try RowAddress("0:1").reference == .at(0, 1))
        #expect(try RowAddress("1:end").reference == .path(.index(1), .end))
        #expect(try RowAddress("#12").reference == .id(12))
        #expect(try RowAddress("Done:0").reference == .path(.title("Done"), .index(0)))
        #expect(try RowAddress("a:b:2").reference == .path(.title("a:b"), .index(2)))
        #expect(try RowAddress("0:-1").reference == .path(.index(0), .index(-1)))
        #expect(throws: CLIError.self) { try RowAddress("0") }
        #expect(throws: CLIError.self) { try RowAddress("0:x") }
        #expect(throws: CLIError.self) { try RowAddress(":1") }
    }

    @Test func destinations() throws {
        #expect(try DestinationAddress("1:0").destination == .at(1, 0))
        #expect(try DestinationAddress("#3:end").destination == RowDestination(section: .id(3), index: .end))
        #expect(throws: CLIError.self) { try DestinationAddress("#3") }
    }
}
