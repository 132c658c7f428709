import Foundation
import Synchronization

/// How a long write learns that the task that asked for it was cancelled: the async forms of the
/// store's calls run their work on a thread of their own, where `Task.isCancelled` cannot see the
/// caller's task, so they hand the work a flag that the task's cancellation sets.
package final class CancellationFlag: Sendable {
    private let cancelled = Atomic<Bool>(false)

    package init() {}

    /// Marks the work cancelled.
    package func cancel() { cancelled.store(true, ordering: .relaxed) }

    /// Whether the work was cancelled.
    package var isCancelled: Bool { cancelled.load(ordering: .relaxed) }

    /// The flag of the async call whose work runs on this thread, if any.
    @TaskLocal package static var current: CancellationFlag?

    /// Throws `CancellationError` when the work on this thread was cancelled: through the flag of
    /// an async call, or, for a synchronous call made inside a task, the task's own cancellation.
    /// Long writes ask between batches and before they commit, so a cancelled write rolls back
    /// and writes nothing.
    package static func check() throws {
        if current?.isCancelled == true || Task.isCancelled { throw CancellationError() }
    }
}

extension SectionStore {
    /// Runs `work` on a thread outside Swift's cooperative pool (whose few threads blocking
    /// database calls would hold up) and returns its result, so an `async` caller — the main
    /// actor, say — never blocks. Cancelling the calling task cancels a long write inside
    /// `work` (an import, a session's save): it throws `CancellationError` and writes nothing.
    /// A write that already committed stays committed.
    ///
    /// ```swift
    /// let problems = try await store.perform { store in try store.check() }
    /// ```
    public func perform<T: Sendable>(_ work: @escaping @Sendable (SectionStore) throws -> T) async throws -> T {
        let flag = CancellationFlag()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<T, any Error>) in
                DispatchQueue.global(qos: .userInitiated).async {
                    continuation.resume(with: Result { try CancellationFlag.$current.withValue(flag) { try work(self) } })
                }
            }
        } onCancel: {
            flag.cancel()
        }
    }
}
