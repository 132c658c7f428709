import Foundation
import Repository

// What every test target shares: temporary directories, fresh databases, a seedable generator
// and the seeds of the property tests. Declarations are `package`: the package's tests see them.

/// A directory under the system's temporary directory, removed when the value is deinitialised.
package final class TemporaryDirectory {
    package let url: URL

    package init() throws {
        url = FileManager.default.temporaryDirectory.appending(path: "sectionctl-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// The path of `name` in the directory.
    package func path(_ name: String) -> String { url.appending(path: name).path }
}

/// A fresh database in a temporary directory; the directory lives as long as the fixture.
package struct StoreFixture {
    package let directory: TemporaryDirectory
    package let store: SectionStore
    package var path: String { store.path }

    package init(name: String = "test.db") throws {
        directory = try TemporaryDirectory()
        store = try SectionStore(path: directory.path(name), create: true)
    }

    /// Opens a second store on the same file, as another part of a program would.
    package func reopen() throws -> SectionStore { try SectionStore(path: path) }
}

/// A small, fast, seedable generator (SplitMix64), so a failing run can be repeated.
package struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    package init(seed: UInt64) { state = seed }

    package mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}

/// Seeds for the property tests: a few fixed ones, plus `SECTIONCTL_TEST_SEED` when set.
package func propertySeeds(_ fixed: [UInt64]) -> [UInt64] {
    if let text = ProcessInfo.processInfo.environment["SECTIONCTL_TEST_SEED"], let seed = UInt64(text) {
        return fixed + [seed]
    }
    return fixed
}
