import Foundation
import Synchronization

/// A list's committed versions as they happen, from this process or any other: the one change
/// feed of the library, which `sectionctl watch` and `ui` follow too.
///
/// One loop, on a thread of its own (never the cooperative pool, whose few threads it would
/// block), waits for a commit with a `ListWatcher` — `PRAGMA data_version` on a SQLite file,
/// `LISTEN` on a server — and reads the journal's changesets for the versions committed since it
/// last looked. What it read waits for the consumer, one update per version, in order. A
/// consumer that falls behind — more than `bufferLimit` updates waiting — gets, at its next
/// `next()`, one update composed of every version it has not taken (`from` to `version`, the
/// changesets composed, or a reload if any of them was one), so the feed never holds more than
/// `bufferLimit` updates however far behind its consumer is. A view that only wants the latest
/// state passes a limit of 1: whatever piled up while it animated comes as one changeset.
///
/// ```swift
/// for try await update in store.list("default").updates() {
///     if let changeset = update.changeset { apply(changeset, from: update.from) } else { reload() }
/// }
/// ```
/// The sequence ends after the update that reports the list deleted. Cancelling the task that
/// iterates it (or dropping the feed) ends it, and the loop stops within `stopLatency`; an
/// error the loop meets (the database gone, the server unreachable) is thrown from
/// `next()` after the updates read before it.
public final class ListFeed: AsyncSequence, Sendable {
    public typealias Element = ListUpdate

    /// How long the loop waits for a commit before it looks whether it should stop: the
    /// longest a cancelled feed keeps its connection.
    public static let stopLatency: Duration = .milliseconds(100)

    /// How many updates wait for a consumer before they are composed into one, by default.
    public static let defaultBufferLimit = 256

    /// How many updates wait for the consumer before they are composed into one (at least 1).
    public let bufferLimit: Int
    private let state: FeedState

    /// Starts the loop on a thread of its own: it opens its connection, delivers what came after
    /// `version` (the store reads the list's version before it makes the feed, so nothing
    /// committed after that is missed however late the thread starts; `nil`: the version the
    /// loop finds), then waits for commits until the feed is dropped or its iteration ends.
    init(location: StoreLocation, server: ServerSupport?, list: String, version: ListVersion?, bufferLimit: Int) {
        self.bufferLimit = Swift.max(1, bufferLimit)
        let state = FeedState(bufferLimit: self.bufferLimit)
        self.state = state
        let thread = Thread { state.run(location: location, server: server, list: list, from: version) }
        thread.name = "sectionctl feed"
        thread.start()
    }

    deinit {
        state.stop()
    }

    /// The feed's one iterator: each update goes to one `next()` call, so iterate a feed once
    /// (ask the store for another feed for another consumer).
    public func makeAsyncIterator() -> Iterator {
        Iterator(feed: self)
    }

    /// Hands out the updates the feed's loop read. The feed stays open while it exists.
    public struct Iterator: AsyncIteratorProtocol {
        private let feed: ListFeed

        init(feed: ListFeed) {
            self.feed = feed
        }

        /// The next update: the oldest waiting, or the next one committed. `nil` after the
        /// list's deletion was reported and when the task is cancelled.
        public mutating func next() async throws -> ListUpdate? {
            try await feed.state.next()
        }
    }

    /// The updates read and not taken yet (for tests).
    var waiting: [ListUpdate] { state.waiting }

    /// The feed's buffer, which outlives it until its loop ends (for tests).
    var buffer: FeedState { state }
}

/// The buffer between a feed's loop and its consumer: at most one update (composed from every
/// version the consumer has not taken yet), then the end.
final class FeedState: Sendable {
    private struct Shared {
        /// What the consumer has not taken yet, oldest first: at most `bufferLimit` updates.
        var pending: [ListUpdate] = []
        /// The deletion of the list, handed out after `pending`.
        var deletion: ListUpdate?
        /// The loop's failure, thrown after `pending`.
        var failure: (any Error)?
        /// The loop ended (deletion, failure) or was told to stop.
        var loopEnded = false
        var stopped = false
        /// The consumer's `next()`, waiting for an update.
        var waiter: CheckedContinuation<Void, Never>?
    }

    private let shared = Mutex(Shared())
    private let bufferLimit: Int

    init(bufferLimit: Int) {
        self.bufferLimit = Swift.max(1, bufferLimit)
    }

    /// The updates waiting for the consumer (for tests).
    var waiting: [ListUpdate] { shared.withLock { $0.pending } }

    /// Whether the loop has ended and closed its connection (for tests).
    var loopHasEnded: Bool { shared.withLock { $0.loopEnded } }

    /// The loop: runs on the feed's thread until stopped, the list is deleted or a read fails.
    func run(location: StoreLocation, server: ServerSupport?, list: String, from version: ListVersion?) {
        do {
            let watcher = try ListWatcher(location: location, server: server, list: list, from: version)
            let wait = Double(ListFeed.stopLatency.components.attoseconds) / 1e18 + Double(ListFeed.stopLatency.components.seconds)
            while !shared.withLock({ $0.stopped }) {
                let updates = try watcher.poll(waitingUpTo: wait)
                if !updates.isEmpty { deliver(updates) }
                if updates.last?.isDeleted == true { break }
            }
            end(failure: nil)
        } catch {
            end(failure: error)
        }
    }

    private func deliver(_ updates: [ListUpdate]) {
        let waiter = shared.withLock { shared -> CheckedContinuation<Void, Never>? in
            for update in updates {
                if update.isDeleted {
                    shared.deletion = update
                } else {
                    shared.pending.append(update)
                }
            }
            if shared.pending.count > bufferLimit, var composed = shared.pending.first {
                for update in shared.pending.dropFirst() { composed = composed.followed(by: update) }
                shared.pending = [composed]
            }
            defer { shared.waiter = nil }
            return shared.waiter
        }
        waiter?.resume()
    }

    private func end(failure: (any Error)?) {
        let waiter = shared.withLock { shared -> CheckedContinuation<Void, Never>? in
            shared.loopEnded = true
            if shared.failure == nil { shared.failure = failure }
            defer { shared.waiter = nil }
            return shared.waiter
        }
        waiter?.resume()
    }

    /// Tells the loop to stop (it does within `ListFeed.stopLatency`) and ends `next()`.
    func stop() {
        let waiter = shared.withLock { shared -> CheckedContinuation<Void, Never>? in
            shared.stopped = true
            defer { shared.waiter = nil }
            return shared.waiter
        }
        waiter?.resume()
    }

    private enum Taken {
        case update(ListUpdate)
        case failure(any Error)
        case end
        case wait
    }

    private func take() -> Taken {
        shared.withLock { shared in
            if shared.stopped { return .end }
            if !shared.pending.isEmpty {
                return .update(shared.pending.removeFirst())
            }
            if let deletion = shared.deletion {
                shared.deletion = nil
                shared.stopped = true
                return .update(deletion)
            }
            if let failure = shared.failure {
                shared.failure = nil
                shared.stopped = true
                return .failure(failure)
            }
            return shared.loopEnded ? .end : .wait
        }
    }

    func next() async throws -> ListUpdate? {
        while true {
            if Task.isCancelled {
                stop()
                return nil
            }
            switch take() {
            case .update(let update): return update
            case .failure(let error): throw error
            case .end: return nil
            case .wait:
                await withTaskCancellationHandler {
                    await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
                        let ready = shared.withLock { shared -> Bool in
                            let ready =
                                !shared.pending.isEmpty || shared.deletion != nil || shared.failure != nil || shared.loopEnded || shared.stopped
                            if !ready { shared.waiter = continuation }
                            return ready
                        }
                        if ready { continuation.resume() }
                    }
                } onCancel: {
                    stop()
                }
            }
        }
    }
}

extension ListUpdate {
    /// This update followed by `next`, as one: from this one's `from` to `next`'s version, the
    /// changesets composed, or a reload when either is one.
    func followed(by next: ListUpdate) -> ListUpdate {
        var composed = next
        composed.from = from
        if let first = changeset, let second = next.changeset {
            composed.changeset = first.followed(by: second)
        } else {
            composed.changeset = nil
        }
        return composed
    }
}
