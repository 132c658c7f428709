import Dispatch
import Foundation
import Synchronization

/// The threads that run a server's handler, apart from libmicrohttpd's own.
///
/// A request whose body is whole is suspended on its connection and queued here; a pool thread
/// runs the handler and resumes the connection with the answer. libmicrohttpd's threads never
/// wait on a handler, so a handler that blocks (a write waiting its turn on a store) holds up
/// neither the reading of other requests nor the answers the server gives itself, such as 503
/// past `HTTPLimits.maxConnections`.
///
/// A request still queued after `HTTPLimits.queueWait` is answered 503 with `Retry-After: 1`
/// then, without running the handler: a queue longer than the pool works through in that time
/// would otherwise keep clients waiting past their own deadlines, and a client that gave up and
/// retried would have the same work done twice.
final class HandlerPool: Sendable {
    /// One queued request: what runs it, taken once, by a pool thread or by its expiry.
    final class Job: Sendable {
        /// Runs the handler (`expired` false) or answers 503 (`expired` true), then resumes the
        /// connection.
        let run: @Sendable (_ expired: Bool) -> Void
        private let taken = Atomic(false)

        init(run: @escaping @Sendable (_ expired: Bool) -> Void) {
            self.run = run
        }

        /// Whether this call is the one that takes the job.
        func take() -> Bool {
            taken.compareExchange(expected: false, desired: true, ordering: .acquiringAndReleasing).exchanged
        }
    }

    private struct State {
        var jobs: [Job] = []
        var head = 0
        var closed = false
    }

    private let state = Mutex(State())
    /// One signal for each job queued, and one for each thread when the pool closes.
    private let available = DispatchSemaphore(value: 0)
    /// Jobs queued and not yet finished: `close()` waits for them.
    private let unfinished = DispatchGroup()
    private let threads: Int
    private let queueWait: Duration
    /// Where queued jobs expire.
    private let expiries = DispatchQueue(label: "HTTPServer.queue-wait")

    /// A pool of `threads` threads that answers 503 for a job queued longer than `queueWait`.
    init(threads: Int, queueWait: Duration) {
        self.threads = max(1, threads)
        self.queueWait = queueWait
        for index in 0..<self.threads {
            let thread = Thread { [self] in work() }
            thread.name = "HTTPServer handler \(index + 1)"
            thread.start()
        }
    }

    /// Queues `run`; false when the pool is closed (the server is stopping), and `run` will
    /// not be called.
    func submit(_ run: @escaping @Sendable (_ expired: Bool) -> Void) -> Bool {
        let job = Job(run: run)
        let queued = state.withLock { state in
            guard !state.closed else { return false }
            unfinished.enter()
            state.jobs.append(job)
            return true
        }
        guard queued else { return false }
        available.signal()
        let (seconds, attoseconds) = queueWait.components
        expiries.asyncAfter(deadline: .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))) {
            [unfinished] in
            guard job.take() else { return }
            job.run(true)
            unfinished.leave()
        }
        return true
    }

    /// Takes no more jobs, waits for every queued one to finish, and ends the threads.
    func close() {
        let alreadyClosed = state.withLock { state in
            defer { state.closed = true }
            return state.closed
        }
        guard !alreadyClosed else { return }
        unfinished.wait()
        for _ in 0..<threads { available.signal() }
    }

    /// A pool thread: runs jobs in the order they were queued until the pool is closed and empty.
    private func work() {
        while true {
            available.wait()
            let job = state.withLock { state -> Job? in
                guard state.head < state.jobs.count else { return nil }
                let job = state.jobs[state.head]
                state.head += 1
                if state.head >= 1_024, state.head * 2 >= state.jobs.count {
                    state.jobs.removeFirst(state.head)
                    state.head = 0
                }
                return job
            }
            guard let job else { return }
            guard job.take() else { continue }
            job.run(false)
            unfinished.leave()
        }
    }
}
