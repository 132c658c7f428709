/// Why a replica cannot do what was asked (`RepositoryError.replica`). Each says what happened
/// and what to do; none loses what is pending.
public enum ReplicaProblem: Hashable, Sendable, CustomStringConvertible {
    /// The file mirrors no server list: it was not made by `clone`.
    case notAReplica(path: String)
    /// `clone` was given a file to clone from: replicas mirror a server's list.
    case cloneFromFile(path: String)
    /// `clone` was asked to write a file that exists already.
    case fileExists(path: String)
    /// The connection string holds a password, which a replica file would keep in the clear.
    case passwordInConnectionString
    /// Every id the server allotted for new rows (`kind` "row") or sections ("section") is used;
    /// a sync takes more.
    case noIDsLeft(kind: String)
    /// The change cannot be kept as intents (a bulk import, a change without ids); `what` names it.
    case cannotRecord(what: String)
    /// The mirrored list is gone from the server (deleted, or renamed and made anew).
    case listGoneOnServer(list: String, server: String)
    /// The file's copy of the mirrored list is gone (deleted with plain SQL).
    case listGoneHere(path: String)
    /// The server's list is at an older version than this replica pulled: the server was
    /// restored from an older backup.
    case serverBehind(server: String, serverVersion: Int64, replicaVersion: Int64)
    /// The server has applied, under this replica's name and one of its sequence numbers, an
    /// intent other than the one this file holds there: a second file pushes under the same
    /// name (a copy of the replica file).
    case identityClash(replicaID: String, sequence: Int64)

    public var description: String {
        switch self {
        case .notAReplica(let path):
            return "\(path) is not a replica of a server list; make one with: sectionctl clone URI --list NAME FILE"
        case .cloneFromFile(let path):
            return "\(path) is a file; a replica is cloned from a list on a PostgreSQL server (a postgresql:// URI)"
        case .fileExists(let path):
            return "\(path) exists already; a replica is cloned into a new file"
        case .passwordInConnectionString:
            return "the connection string holds a password, which the replica file would keep in the clear; "
                + "put the password in PGPASSWORD or ~/.pgpass and clone with a connection string without it"
        case .noIDsLeft(let kind):
            return "no \(kind) ids are left on this replica offline; run sync to get more from the server"
        case .cannotRecord(let what):
            return "\(what) cannot be recorded on a replica to be pushed later; make it on the server, then sync"
        case .listGoneOnServer(let list, let server):
            return "the list \"\(list)\" is gone from the server at \(server); nothing was pushed, "
                + "and what this replica holds (its pending changes included) is still here"
        case .listGoneHere(let path):
            return "the list this replica mirrors is gone from \(path) (deleted outside sectionctl); "
                + "its pending changes are still in the file; clone a fresh replica"
        case .serverBehind(let server, let serverVersion, let replicaVersion):
            return "the server at \(server) has the list at version \(serverVersion), older than version \(replicaVersion) "
                + "this replica pulled (was it restored from a backup?); nothing was pushed"
        case .identityClash(let replicaID, let sequence):
            return "the server applied another change as number \(sequence) of replica \(replicaID): a second file "
                + "(a copy of this one?) pushes under its name; nothing was pushed; clone a fresh replica for this file's work"
        }
    }
}
