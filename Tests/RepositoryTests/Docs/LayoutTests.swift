import Foundation
import TestSupport
import Testing

/// Every file committed at the package's root is one ARCHITECTURE.md's "Layout" section names,
/// and every root entry it names is committed: a stray file (a command's output, say) fails. The
/// README stays an orientation, under 300 lines.
@Suite("The package's layout")
struct LayoutTests {
    static let root = packageRoot

    /// `git -C root <arguments>`: its status and standard output (nil when git cannot be run).
    static func git(_ arguments: [String]) -> (status: Int32, output: String)? {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["git", "-C", root.path] + arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = FileHandle.nullDevice
        guard (try? process.run()) != nil else { return nil }
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    /// Whether the package is a git checkout (with git installed), whose root is the package's.
    static let isGitCheckout: Bool = {
        guard let (status, output) = git(["rev-parse", "--show-toplevel"]), status == 0 else { return false }
        let top = URL(fileURLWithPath: output.trimmingCharacters(in: .whitespacesAndNewlines)).resolvingSymlinksInPath()
        return top.path == root.resolvingSymlinksInPath().path
    }()

    /// The root-level entries ARCHITECTURE.md's Layout section names: in its code block, each line
    /// that starts at the margin begins with a path (indented lines go on with the line above);
    /// the path's first component is a root entry.
    static func namedInLayout() throws -> Set<String> {
        let architecture = try String(contentsOf: root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
        let lines = architecture.components(separatedBy: "\n")
        let heading = try #require(lines.firstIndex(of: "## Layout"), "ARCHITECTURE.md has no \"## Layout\" section")
        let open = try #require(lines[heading...].firstIndex { $0.hasPrefix("```") }, "the Layout section has no code block")
        let close = try #require(lines[(open + 1)...].firstIndex { $0.hasPrefix("```") }, "the Layout section's code block does not end")
        var names: Set<String> = []
        for line in lines[(open + 1)..<close] where !line.isEmpty && !line.hasPrefix(" ") {
            let path = line.prefix { !$0.isWhitespace && $0 != "," }
            if let first = path.split(separator: "/").first { names.insert(String(first)) }
        }
        return names
    }

    @Test(.enabled(if: isGitCheckout, "not a git checkout (or git is not installed): the committed files cannot be listed"))
    func everyCommittedRootEntryIsNamedInTheLayout() throws {
        let listing = try #require(Self.git(["ls-files", "-z"]))
        try #require(listing.status == 0, "git ls-files failed")
        let committed = Set(listing.output.split(separator: "\0").compactMap { $0.split(separator: "/").first.map(String.init) })
        let named = try Self.namedInLayout()
        #expect(
            committed.subtracting(named).isEmpty,
            "committed at the root but not in ARCHITECTURE.md's Layout: \(committed.subtracting(named).sorted())")
        #expect(named.subtracting(committed).isEmpty, "in ARCHITECTURE.md's Layout but not committed: \(named.subtracting(committed).sorted())")
        #expect(named.isSuperset(of: ["Sources", "Tests", "Package.swift", "README.md"]), "the Layout section was read: \(named.sorted())")
    }

    @Test func theReadmeStaysUnder300Lines() throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let lines = readme.components(separatedBy: "\n").count - (readme.hasSuffix("\n") ? 1 : 0)
        #expect(lines < 300, "README.md has \(lines) lines: the manual goes in docs/, the layout in ARCHITECTURE.md")
    }
}

/// ARCHITECTURE.md keeps up with the code: its table of Sources/Repository's folders names every
/// folder there is and no other, and every file or folder it names by path exists.
@Suite("ARCHITECTURE.md")
struct ArchitectureTests {
    static let root = packageRoot

    static func architecture() throws -> String {
        try String(contentsOf: root.appendingPathComponent("ARCHITECTURE.md"), encoding: .utf8)
    }

    /// Every folder under Sources/Repository, as a path relative to it ending in `/`.
    static func repositoryFolders() throws -> Set<String> {
        let base = root.appendingPathComponent("Sources/Repository")
        let enumerator = try #require(FileManager.default.enumerator(at: base, includingPropertiesForKeys: [.isDirectoryKey]))
        var folders: Set<String> = []
        for case let url as URL in enumerator {
            guard try url.resourceValues(forKeys: [.isDirectoryKey]).isDirectory == true else { continue }
            // A DocC catalogue is one thing, whatever folders it may hold.
            if url.pathExtension == "docc" { enumerator.skipDescendants() }
            folders.insert(String(url.standardizedFileURL.path.dropFirst(base.standardizedFileURL.path.count + 1)) + "/")
        }
        return folders
    }

    /// The folders the "Sources/Repository, by concept" table names: the first cell of each row.
    static func foldersInTable(_ text: String) throws -> Set<String> {
        let lines = text.components(separatedBy: "\n")
        let heading = try #require(lines.firstIndex(of: "## Sources/Repository, by concept"), "ARCHITECTURE.md has no folder table")
        var folders: Set<String> = []
        for line in lines[(heading + 1)...].prefix(while: { !$0.hasPrefix("## ") }) where line.hasPrefix("| `") {
            if let name = line.dropFirst(3).split(separator: "`").first, name.hasSuffix("/") { folders.insert(String(name)) }
        }
        return folders
    }

    @Test func everyFolderOfTheLibraryIsInTheTableAndNoOther() throws {
        let actual = try Self.repositoryFolders()
        let named = try Self.foldersInTable(try Self.architecture())
        #expect(
            actual.subtracting(named).isEmpty, "folders of Sources/Repository ARCHITECTURE.md does not name: \(actual.subtracting(named).sorted())")
        #expect(
            named.subtracting(actual).isEmpty, "folders ARCHITECTURE.md names that Sources/Repository lacks: \(named.subtracting(actual).sorted())")
        #expect(named.isSuperset(of: ["Model/", "Engine/SQLite/", "Replica/Internal/"]), "the table was read: \(named.sorted())")
    }

    /// Each `path` in backticks with a `/` that ends in `.swift`, `.sql` or `/` exists, from the
    /// package's root, from Sources/Repository (the walk's short paths), from Migrations/ or from
    /// Tests/RepositoryTests; a pattern (`NNNN_name.sql`) is not a path.
    @Test func everyPathItNamesExists() throws {
        let text = try Self.architecture()
        let paths = text.split(separator: "`", omittingEmptySubsequences: false).enumerated()
            .filter { $0.offset % 2 == 1 }.map { String($0.element) }
            .filter {
                $0.contains("/") && !$0.contains(" ") && !$0.contains("NNNN") && !$0.contains("://")
                    && ($0.hasSuffix(".swift") || $0.hasSuffix(".sql") || $0.hasSuffix("/"))
            }
        #expect(paths.count > 20, "paths were read: \(paths)")
        let bases = ["", "Sources/Repository/", "Migrations/", "Tests/RepositoryTests/"]
        for path in Set(paths).sorted() {
            let found = bases.contains { FileManager.default.fileExists(atPath: Self.root.appendingPathComponent($0 + path).path) }
            #expect(found, "ARCHITECTURE.md names \(path), which does not exist")
        }
    }
}
