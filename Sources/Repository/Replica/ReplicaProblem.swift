/// Why a replica cannot do what was asked (`RepositoryError.replica`). Each says what happened
/// and what to do; none loses what is pending.
public enum ReplicaProblem: Hashable, Sendable, CustomStringConvertible {
    /// The file mirrors no server list: it was not made by `clone`.
    case notAReplica(path: String)
    /// `clone` was given a file to clone from: replicas mirror a server's list.
    case cloneFromFile(path: String)
    /// `clone` was asked to write a file that exists already.
    case fileExists(path: String)
    /// A sync service's address cannot be used; `reason` says why.
    case badServerAddress(address: String, reason: String)
    /// The token given cannot be one; `reason` says why.
    case badToken(reason: String)
    /// The replica's token file (beside the replica file, `path`) is missing or unreadable.
    case tokenMissing(path: String, reason: String)
    /// The replica file names a server other than the one its token file was made for: the file
    /// was changed since `clone` (or the two come from different replicas). Nothing was sent.
    case serverChanged(file: String, token: String)
    /// The server refused the token (401): wrong, revoked or expired.
    case tokenRefused(server: String, reason: String)
    /// The token's role does not allow what was asked (403).
    case notAllowed(server: String, reason: String)
    /// The server refused the request (a conflict, 409, or another status); `reason` is its
    /// message. Nothing was written there.
    case refusedByServer(server: String, status: Int, reason: String)
    /// The server answered something the protocol does not allow.
    case badAnswer(server: String, reason: String)
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
    case serverBehind(server: String, serverVersion: ListVersion, replicaVersion: ListVersion)
    /// The server has applied, under this replica's name and one of its sequence numbers, an
    /// intent other than the one this file holds there: a second file pushes under the same
    /// name (a copy of the replica file).
    case identityClash(replicaID: String, sequence: Int64)

    public var description: String {
        switch self {
        case .notAReplica(let path):
            return "\(path) is not a replica of a server list; make one with: sectionctl clone https://HOST/lists/NAME FILE --token-file F"
        case .cloneFromFile(let path):
            return "\(path) is not a list on a sync service; a replica is cloned from one: https://HOST[:PORT]/lists/NAME"
        case .fileExists(let path):
            return "\(path) exists already; a replica is cloned into a new file"
        case .badServerAddress(let address, let reason):
            return "cannot use \(address) as a list's address on a sync service: \(reason)"
        case .badToken(let reason):
            return "the token cannot be used: \(reason)"
        case .tokenMissing(let path, let reason):
            return "the replica's token file \(path) cannot be read (\(reason)); clone the list anew, or put its token there"
        case .serverChanged(let file, let token):
            return "the replica file names the server \(file), and its token is for \(token): the file was changed since it was cloned; "
                + "nothing was sent"
        case .tokenRefused(let server, let reason):
            return "the server at \(server) refused the token (\(reason)); ask for a new one"
        case .notAllowed(let server, let reason):
            return "the server at \(server) does not allow it: \(reason)"
        case .refusedByServer(let server, let status, let reason):
            return "the server at \(server) refused the sync (\(status)): \(reason)"
        case .badAnswer(let server, let reason):
            return "the server at \(server) answered outside the protocol: \(reason)"
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
