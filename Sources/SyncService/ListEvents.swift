import Foundation
import HTTPServer
import Repository
import Synchronization

/// The service's live streams (`GET /lists/NAME/events`, Server-Sent Events): each committed
/// version of a list, as its changeset, to every client that follows the list.
///
/// One watcher per followed list, on a thread of its own, whatever the number of streams
/// (`ListWatcher`: a `PRAGMA data_version` poll on a file, a `LISTEN` on a server, so another
/// `serve` process's writes are seen too); a stream costs its buffer and its connection. A client
/// that connects with the last version it saw (`Last-Event-ID`, or `?since=`) first gets one event
/// that carries it to the list's version, then each version as it commits.
///
/// The events (docs/sync-protocol.md):
///
/// ```text
/// id: 7
/// event: change
/// data: {"changes":{…},"from":6,"list":"groceries","version":7}
///
/// ```
///
/// `event: reload` (no changeset can say what changed: plain SQL, or a version older than the
/// journal keeps) and `event: deleted` (the list is gone; the stream ends) carry the same fields
/// but `changes`.
final class ListEvents: Sendable {
    private let store: SectionStore
    private let feeds = Mutex<[String: Feed]>([:])

    init(store: SectionStore) {
        self.store = store
    }

    /// A stream of list `name`'s versions after `since` (now, when `nil`).
    /// - Throws: `RepositoryError.listNotFound`.
    func stream(list name: String, since: ListVersion?) throws -> EventStream {
        let stream = EventStream()
        // A comment first, so that the answer's head goes out at once: the client knows the
        // stream is open before the list next changes.
        stream.send(Array(": open\n\n".utf8))
        let feed = feeds.withLock { feeds in
            if let feed = feeds[name] { return feed }
            let feed = Feed(store: store, list: name)
            feeds[name] = feed
            return feed
        }
        try feed.add(stream, since: since)
        return stream
    }

    /// One followed list: its streams, and the thread that watches it while it has any.
    final class Feed: Sendable {
        private struct Follower {
            var stream: EventStream
            var lastSent: ListVersion
        }
        private struct State {
            var followers: [ObjectIdentifier: Follower] = [:]
            /// Whether the watching thread runs: it stops when no stream is left, and the next
            /// stream starts another.
            var running = false
        }
        private let store: SectionStore
        private let list: String
        private let state = Mutex(State())

        init(store: SectionStore, list: String) {
            self.store = store
            self.list = list
        }

        /// Adds `stream`, first sending it what came after `since`.
        func add(_ stream: EventStream, since: ListVersion?) throws {
            let handle = store.list(list)
            // The watching thread, when this stream starts one, follows from the version the
            // stream was brought to: a commit made before the thread is under way still reaches it.
            let start = try state.withLock { state -> ListVersion? in
                let current = try handle.header().version
                var follower = Follower(stream: stream, lastSent: since ?? current)
                if let since, since != current {
                    try catchUp(&follower, to: current)
                }
                state.followers[ObjectIdentifier(stream)] = follower
                defer { state.running = true }
                return state.running ? nil : follower.lastSent
            }
            stream.onClose { [weak self] in
                self?.state.withLock { _ = $0.followers.removeValue(forKey: ObjectIdentifier(stream)) }
            }
            if let start {
                let thread = Thread { [self] in watch(from: start) }
                thread.name = "sectionctl events: \(list)"
                thread.start()
            }
        }

        /// Sends `follower` one event from its last version to the list's now.
        private func catchUp(_ follower: inout Follower, to version: ListVersion) throws {
            let changes = try store.list(list).changes(since: follower.lastSent)
            let event = Self.event(from: follower.lastSent, to: changes.version, changeset: changes.changeset, deleted: false)
            follower.stream.send(event)
            follower.lastSent = changes.version
        }

        /// Follows the list from `version` until it has no streams left (or is deleted), sending
        /// each update to every stream that has not had it.
        private func watch(from version: ListVersion) {
            guard let watcher = try? ListWatcher(location: store.location, server: store.server, list: list, from: version) else {
                finishAll()
                return
            }
            while true {
                let updates: [ListUpdate]
                do {
                    updates = try watcher.poll(waitingUpTo: 1)
                } catch {
                    finishAll()
                    return
                }
                // Streams to end are ended after the lock is let go: ending one runs its close
                // handler, which takes the lock.
                let (done, ending) = state.withLock { state -> (Bool, [EventStream]) in
                    var ending: [EventStream] = []
                    state.followers = state.followers.filter { !$0.value.stream.isClosed }
                    for update in updates {
                        for (key, var follower) in state.followers where update.version > follower.lastSent || update.isDeleted {
                            if update.from == follower.lastSent || update.isDeleted {
                                follower.stream.send(
                                    Self.event(from: update.from, to: update.version, changeset: update.changeset, deleted: update.isDeleted))
                                follower.lastSent = update.version
                            } else if (try? catchUp(&follower, to: update.version)) == nil {
                                ending.append(follower.stream)
                            }
                            state.followers[key] = follower
                        }
                        if update.isDeleted {
                            ending += state.followers.values.map(\.stream)
                            state.followers = [:]
                        }
                    }
                    if state.followers.isEmpty {
                        state.running = false
                        return (true, ending)
                    }
                    return (false, ending)
                }
                for stream in ending { stream.finish() }
                if done { return }
            }
        }

        private func finishAll() {
            let ending = state.withLock { state in
                defer {
                    state.followers = [:]
                    state.running = false
                }
                return state.followers.values.map(\.stream)
            }
            for stream in ending { stream.finish() }
        }

        /// One event, as the stream carries it.
        static func event(from: ListVersion, to version: ListVersion, changeset: Changeset?, deleted: Bool) -> [UInt8] {
            let kind = deleted ? "deleted" : changeset == nil ? "reload" : "change"
            var data = "{"
            if let changeset { data += "\"changes\":\(changeset.json)," }
            data += "\"from\":\(from),\"version\":\(version)}"
            return Array("id: \(version)\nevent: \(kind)\ndata: \(data)\n\n".utf8)
        }
    }
}
