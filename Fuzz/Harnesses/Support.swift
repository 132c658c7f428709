import Foundation

@testable import Repository
@testable import Transfer

// Compiled into every harness.
#if canImport(Glibc)
    import Glibc
#endif

/// Stops the run with `message` on standard error when `condition` is false: unlike
/// `precondition`, the message survives `-O`, and libFuzzer saves the input as a crash.
func require(_ condition: @autoclosure () -> Bool, _ message: @autoclosure () -> String = "") {
    guard !condition() else { return }
    fputs("harness check failed: \(message())\n", stderr)
    abort()
}

/// Stops the run with `message`.
func fail(_ message: String) -> Never {
    fputs("harness check failed: \(message)\n", stderr)
    abort()
}

/// A database of the harness's own, in a temporary directory, emptied before each input.
final class ScratchStore {
    let store: SectionStore

    init(_ name: String) {
        let path = NSTemporaryDirectory() + "sectionctl-fuzz-\(getpid())-\(name).db"
        for suffix in ["", "-wal", "-shm"] { unlink(path + suffix) }
        store = try! SectionStore(path: path, create: true)
    }

    /// The store with no lists in it.
    func emptied() -> SectionStore {
        for list in try! store.lists() { try! store.deleteList(list.name, force: true) }
        return store
    }
}
