import Foundation
import Synchronization

/// The long-running commands (`watch`, `sync --watch`): work that runs until it ends by itself,
/// or until SIGINT (Ctrl-C) or SIGTERM cancels it, which ends the command with exit 0.
enum UntilInterrupted {
    /// Runs `body` in a task of its own, which SIGINT and SIGTERM cancel, and waits for it to
    /// return; rethrows what it throws.
    static func run(_ body: @escaping @Sendable () async throws -> Void) throws {
        let ended = DispatchSemaphore(value: 0)
        let failure = Mutex<(any Error)?>(nil)
        let task = Task.detached {
            do {
                try await body()
            } catch {
                failure.withLock { $0 = error }
            }
            ended.signal()
        }
        let sources = [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { task.cancel() }
            source.resume()
            return source
        }
        defer { for source in sources { source.cancel() } }
        ended.wait()
        if let error = failure.withLock({ $0 }) { throw error }
    }
}
