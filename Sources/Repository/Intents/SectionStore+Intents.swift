extension SectionStore {
    /// The intent of `edit` on `list` as the list is now (`Intent`): its references as ids and
    /// its destination as a placement with the neighbours around it. Reads only; throws what
    /// applying the edit would throw for a reference that names nothing or an index out of range.
    package func intent(of edit: Edit, in list: String = SectionStore.defaultList) throws -> Intent {
        try read { db in
            let stored = StoredList(db: db, list: try db.listRecord(named: list), store: self)
            return try IntentRules.record(edit, in: stored)
        }
    }

    /// Applies `intent` to `list` as the list is now, by `Intent`'s rules, in one transaction:
    /// one version step and one journal entry when it changes anything, nothing written when it
    /// is dropped (`IntentResult.change` is then `nil`).
    @discardableResult
    package func apply(_ intent: Intent, to list: String = SectionStore.defaultList) throws -> IntentResult {
        try write { db in
            let record = try db.listRecord(named: list)
            let (edit, outcome) = try IntentRules.resolve(intent, in: StoredList(db: db, list: record, store: self))
            guard let edit else { return IntentResult(outcome: outcome, change: nil) }
            return IntentResult(outcome: outcome, change: try commit(edit, in: record, db: db))
        }
    }
}
