import CommandLineSupport
import Testing

@testable import SectionCLI

/// The command line's own tree: what the parser reads is what has code.
@Suite struct CatalogTests {
    @Test func everyCommandTheParserAcceptsHasCode() {
        func visit(_ spec: CommandSpec, path: [String]) {
            let command = Catalog.root.command(at: path)
            #expect(command != nil, "\(path)")
            #expect((command?.run != nil) == (spec.subcommands.isEmpty || spec.isRunnable), "\(path)")
            for sub in spec.subcommands { visit(sub, path: path + [sub.name]) }
        }
        visit(Catalog.parser.root, path: [])
        func visitSession(_ spec: CommandSpec, path: [String]) {
            #expect(EditCommand.sessionRoot.command(at: path) != nil, "\(path)")
            for sub in spec.subcommands { visitSession(sub, path: path + [sub.name]) }
        }
        visitSession(Catalog.sessionParser.root, path: [])
    }
}
