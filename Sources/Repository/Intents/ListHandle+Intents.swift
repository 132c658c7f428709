extension ListHandle {
    /// The intent of `edit` on the list as it is now (`Intent`): its references as ids and
    /// its destination as a placement with the neighbours around it. Reads only; throws what
    /// applying the edit would throw for a reference that names nothing or an index out of range.
    /// - Complexity: O(log n) in the rows of the sections it names (plus O(s) for a section named
    ///   by title).
    public func intent(of edit: Edit) throws -> Intent {
        let name = name
        return try store.read { db in
            let stored = StoredList(db: db, list: try db.listRecord(named: name), store: store)
            return try IntentRules.record(edit, in: stored)
        }
    }

    /// Applies `intent` to the list as it is now, by `Intent`'s rules, in one transaction:
    /// one version step and one journal entry when it changes anything, nothing written when it
    /// is dropped (`IntentResult.change` is then `nil`).
    /// - Complexity: as `apply(_:)` of the edit it resolves to, plus O(log n) to find its
    ///   neighbours.
    @discardableResult
    public func apply(_ intent: Intent) throws -> IntentResult {
        let name = name
        return try store.write { db in
            let record = try db.listRecord(named: name)
            let (edit, outcome) = try IntentRules.resolve(intent, in: StoredList(db: db, list: record, store: store))
            guard let edit else { return IntentResult(outcome: outcome, change: nil) }
            return IntentResult(outcome: outcome, change: try store.commit(edit, in: record, db: db))
        }
    }
}
