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
