/// Work a store does inside each commit, before the journal's bookkeeping
/// (`Journal.commit`): the changeset of the change, its list, and the connection of the write
/// transaction.
typealias CommitHook = @Sendable (_ changeset: Changeset, _ list: ListRecord, _ db: any Database, _ store: SectionStore) throws -> Void

extension SectionStore {
    /// The hook that runs inside each of this store's commits: on a replica file, the replica's
    /// record of each change to its mirrored list as intents to push (`ReplicaLog`); `nil` on any
    /// other database, whose commits then ask nothing of replicas.
    ///
    /// Decided once, in the store's first commit (so that a store that only reads asks
    /// nothing): a file becomes a replica only as it is made (`clone(list:from:to:server:)`),
    /// and a replica that stops being one (its record deleted by plain SQL) is found so by the
    /// hook itself.
    func commitHook(db: any Database) throws -> CommitHook? {
        if let decided = decidedCommitHook.withLock({ $0 }) { return decided }
        let hook = try ReplicaLog.commitHook(db: db)
        decidedCommitHook.withLock { $0 = .some(hook) }
        return hook
    }
}
