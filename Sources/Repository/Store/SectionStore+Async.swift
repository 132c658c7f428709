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
    /// let imported = try await store.perform { store in try store.importJSON(data) }
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

    // MARK: - Async forms of the reads and writes

    /// `apply(_:to:)`, off the cooperative pool (see `perform(_:)`).
    @discardableResult
    package func apply(_ edit: Edit, to list: String = SectionStore.defaultList) async throws -> Change {
        try await perform { try $0.apply(edit, to: list) }
    }

    /// `row(at:in:atVersion:)`, off the cooperative pool (see `perform(_:)`): what `cellForRowAt` reads.
    package func row(
        at path: RowPath, in list: String = SectionStore.defaultList, atVersion expected: Int64? = nil
    ) async throws -> LocatedRow {
        try await perform { try $0.row(at: path, in: list, atVersion: expected) }
    }

    /// `row(_:in:atVersion:)`, off the cooperative pool (see `perform(_:)`).
    package func row(
        _ ref: RowRef, in list: String = SectionStore.defaultList, atVersion expected: Int64? = nil
    ) async throws -> LocatedRow {
        try await perform { try $0.row(ref, in: list, atVersion: expected) }
    }

    /// `path(ofRow:in:atVersion:)`, off the cooperative pool (see `perform(_:)`).
    package func path(
        ofRow id: RowID, in list: String = SectionStore.defaultList, atVersion expected: Int64? = nil
    ) async throws -> RowPath {
        try await perform { try $0.path(ofRow: id, in: list, atVersion: expected) }
    }

    /// `versionedPath(ofRow:in:atVersion:)`, off the cooperative pool (see `perform(_:)`).
    package func versionedPath(
        ofRow id: RowID, in list: String = SectionStore.defaultList, atVersion expected: Int64? = nil
    ) async throws -> Versioned<RowPath> {
        try await perform { try $0.versionedPath(ofRow: id, in: list, atVersion: expected) }
    }

    /// `rowCount(of:in:atVersion:)`, off the cooperative pool (see `perform(_:)`).
    package func rowCount(
        of section: SectionRef, in list: String = SectionStore.defaultList, atVersion expected: Int64? = nil
    ) async throws -> Int {
        try await perform { try $0.rowCount(of: section, in: list, atVersion: expected) }
    }

    /// `versionedRowCount(of:in:atVersion:)`, off the cooperative pool (see `perform(_:)`).
    package func versionedRowCount(
        of section: SectionRef, in list: String = SectionStore.defaultList, atVersion expected: Int64? = nil
    ) async throws -> Versioned<Int> {
        try await perform { try $0.versionedRowCount(of: section, in: list, atVersion: expected) }
    }

    /// `outline(of:editing:atVersion:)`, off the cooperative pool (see `perform(_:)`).
    package func outline(
        of list: String = SectionStore.defaultList, editing: Bool = false, atVersion expected: Int64? = nil
    ) async throws -> ListOutline {
        try await perform { try $0.outline(of: list, editing: editing, atVersion: expected) }
    }

    /// `outline(of:from:limit:editing:atVersion:)`, off the cooperative pool (see `perform(_:)`).
    package func outline(
        of list: String = SectionStore.defaultList, from first: Int, limit: Int, editing: Bool = false,
        atVersion expected: Int64? = nil
    ) async throws -> OutlineWindow {
        try await perform { try $0.outline(of: list, from: first, limit: limit, editing: editing, atVersion: expected) }
    }

    /// `window(from:limit:in:editing:atVersion:)`, off the cooperative pool (see `perform(_:)`).
    package func window(
        from start: RowPath, limit: Int, in list: String = SectionStore.defaultList, editing: Bool = false,
        atVersion expected: Int64? = nil
    ) async throws -> ListWindow {
        try await perform { try $0.window(from: start, limit: limit, in: list, editing: editing, atVersion: expected) }
    }

    /// `snapshot(of:editing:atVersion:)`, off the cooperative pool (see `perform(_:)`).
    package func snapshot(
        of list: String = SectionStore.defaultList, editing: Bool = false, atVersion expected: Int64? = nil
    ) async throws -> ListSnapshot {
        try await perform { try $0.snapshot(of: list, editing: editing, atVersion: expected) }
    }

    /// `changes(of:since:)`, off the cooperative pool (see `perform(_:)`).
    package func changes(of list: String = SectionStore.defaultList, since version: Int64) async throws -> ListChanges {
        try await perform { try $0.changes(of: list, since: version) }
    }

    /// `undo(list:)`, off the cooperative pool (see `perform(_:)`).
    @discardableResult
    package func undo(list: String = SectionStore.defaultList) async throws -> Change {
        try await perform { try $0.undo(list: list) }
    }

    /// `redo(list:)`, off the cooperative pool (see `perform(_:)`).
    @discardableResult
    package func redo(list: String = SectionStore.defaultList) async throws -> Change {
        try await perform { try $0.redo(list: list) }
    }
}
