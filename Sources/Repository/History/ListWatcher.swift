import Foundation

/// One committed version of a list, as an observer receives it: the changeset from the version
/// before, or a reload when no changeset can say what changed.
public struct ListUpdate: Hashable, Sendable {
    /// The list's stable id.
    public var listID: ListID
    /// The list's name when the update was read.
    public var list: String
    /// The version this update starts from: `version.previous` for one committed version; earlier
    /// when a feed composed several versions its consumer had not taken yet (`ListFeed`), or when
    /// a reload covers versions the journal no longer holds.
    public var from: ListVersion
    /// The version this update brings the list to.
    public var version: ListVersion
    /// The changes from the version before; `nil` when the observer must reload: plain SQL changed
    /// the list, the journal no longer holds the entry, or the list was deleted.
    public var changeset: Changeset?
    /// Whether the list was deleted (then `changeset` is `nil` and no more updates follow).
    public var isDeleted: Bool

    /// Creates an update from `from` (by default the version before `version`) to `version`.
    public init(listID: ListID, list: String, from: ListVersion? = nil, version: ListVersion, changeset: Changeset?, isDeleted: Bool = false) {
        self.listID = listID
        self.list = list
        self.from = from ?? version.previous
        self.version = version
        self.changeset = changeset
        self.isDeleted = isDeleted
    }

    /// Whether the observer must read the list afresh instead of applying a changeset.
    public var isReload: Bool { changeset == nil }
}

/// Follows one list's committed versions, whichever connection or process commits them, on a
/// connection of its own: on a SQLite file it polls `PRAGMA data_version` (a poll that finds
/// nothing new costs one pragma and reads nothing of the list); on a PostgreSQL server it
/// `LISTEN`s on the channel `sectionctl`, which every committed change and every plain-SQL
/// write notifies, and reads only when a notification came. Not `Sendable`: one thread or task
/// polls it.
///
/// It is the loop inside `ListFeed` (`ListHandle.updates(from:bufferLimit:)`), which `sectionctl watch`
/// follows; use it directly to poll from a loop of your own (as `sectionctl ui` does between
/// keys).
public final class ListWatcher {
    private let connection: any Database
    private let signal: any CommitSignal
    private let location: StoreLocation
    private let listID: ListID
    private var name: String
    /// The last version delivered.
    public private(set) var version: ListVersion
    private var reportedPlainWrite = false
    private var ended = false

    /// Starts watching `list` in the database file at `path`, from its current version (or from
    /// `version`, to catch up on what came after it first).
    public convenience init(path: String, list: String, from version: ListVersion? = nil) throws {
        try self.init(location: .file(path: path), list: list, from: version)
    }

    /// Starts watching `list` at `location`, from its current version (or from `version`, to
    /// catch up on what came after it first). A server is reached through `server` (see
    /// `SectionStore.server`).
    public init(location: StoreLocation, server: ServerSupport? = nil, list: String, from version: ListVersion? = nil) throws {
        self.location = location
        let connection = try location.openObserverConnection(server: server)
        do {
            let record = try connection.inTransaction(.read) { try connection.listRecord(named: list) }
            // The first look at the signal always says yes, so whatever was committed between
            // this read and the signal's start is read by the first poll.
            signal = try connection.makeCommitSignal(listID: record.id)
            self.connection = connection
            listID = ListID(record.id)
            name = record.name
            self.version = version ?? record.version
        } catch {
            throw SectionStore.repositoryError(error, location: location)
        }
    }

    /// The updates committed since the last call, oldest first; empty when nothing changed. After
    /// the list is deleted, one last update says so and later calls return nothing.
    /// - Complexity: O(1) when nothing was committed; otherwise O(size of the new entries).
    public func poll() throws -> [ListUpdate] {
        try poll(waitingUpTo: 0)
    }

    /// As `poll()`, but waits up to `seconds` for a commit when nothing is new yet: for a
    /// notification on a server, looking again every 25 ms on a file.
    public func poll(waitingUpTo seconds: Double) throws -> [ListUpdate] {
        guard !ended else { return [] }
        do {
            guard try signal.wait(upTo: seconds) else { return [] }
            return try connection.inTransaction(.read) { try readUpdates() }
        } catch {
            throw SectionStore.repositoryError(error, location: location)
        }
    }

    private func readUpdates() throws -> [ListUpdate] {
        guard let (name, latest, journaled) = try connection.listState(id: listID.rawValue) else {
            ended = true
            return [ListUpdate(listID: listID, list: self.name, from: version, version: version, changeset: nil, isDeleted: true)]
        }
        self.name = name
        var updates: [ListUpdate] = []
        if latest > version {
            let entries = try connection.journalEntries(list: listID.rawValue, after: version, through: latest)
            if entries.count != Int(version.distance(to: latest)) || entries.first?.0 != version.next {
                // Pruned away, or a gap: the journal cannot say what happened.
                updates.append(ListUpdate(listID: listID, list: name, from: version, version: latest, changeset: nil))
            } else {
                let read = entries.map { ListUpdate(listID: listID, list: name, version: $0.0, changeset: try? Changeset(json: $0.1)) }
                // Plain SQL makes a version a row it writes: reloads in a row are one, from the
                // first's start to the last's version.
                for update in read {
                    if update.isReload, let last = updates.last, last.isReload, last.version == update.from {
                        updates[updates.count - 1] = last.followed(by: update)
                    } else {
                        updates.append(update)
                    }
                }
            }
            version = latest
            reportedPlainWrite = false
        }
        if !journaled && !reportedPlainWrite {
            // Plain SQL changed the list after its last version.
            updates.append(ListUpdate(listID: listID, list: name, from: latest, version: latest, changeset: nil))
            reportedPlainWrite = true
        }
        return updates
    }
}

extension SectionStore {
    /// How often an observer of a SQLite file asks whether anything was committed (`PRAGMA
    /// data_version`); on a server it waits for the notification instead.
    public static let observationInterval: Duration = .milliseconds(25)
}

extension ListHandle {
    /// The list's committed versions as they happen, from this process or any other (see
    /// `ListFeed`): one `ListUpdate` per version, in order, a reload for a plain-SQL change; one
    /// composed update for the versions a consumer missed when more than `bufferLimit` wait. Cheap when
    /// idle: a `PRAGMA data_version` every `observationInterval` on a file, a wait for a
    /// notification on a server, on a connection and a thread of the feed's own; the list
    /// itself is never re-read.
    ///
    /// ```swift
    /// for try await update in store.list("default").updates() {
    ///     if let changeset = update.changeset { tableView.apply(changeset) } else { reload() }
    /// }
    /// ```
    /// The sequence ends after the update that reports the list deleted, and when the task
    /// iterating it is cancelled.
    /// - Parameters:
    ///   - version: deliver what came after this version first (default: the version the list
    ///     is at when this is called, read before it returns, so that nothing committed after the
    ///     call is missed however late the feed's thread starts).
    ///   - bufferLimit: how many updates may wait for the consumer before they are composed into
    ///     one (at least 1; see `ListFeed`).
    /// - Complexity: O(s) in the list's sections when `version` is not given (the list's header
    ///   is read once); then O(1) a poll while idle, and O(the changeset) an update.
    public func updates(from version: ListVersion? = nil, bufferLimit: Int = ListFeed.defaultBufferLimit) -> ListFeed {
        // A missing list is left to the loop, which reports it as the sequence's error.
        let start = version ?? (try? header().version)
        return ListFeed(location: store.location, server: store.server, list: name, version: start, bufferLimit: max(1, bufferLimit))
    }
}
