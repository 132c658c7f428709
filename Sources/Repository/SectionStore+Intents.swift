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
            var stored = StoredList(db: db, list: record, store: self)
            let (edit, outcome) = try IntentRules.resolve(intent, in: stored)
            guard let edit else { return IntentResult(outcome: outcome, change: nil) }
            let result = try EditRules.apply(edit, to: &stored)
            guard !result.changeset.isEmpty || result.createdID != nil else {
                return IntentResult(outcome: outcome, change: Change(list: record.name, version: record.version, committed: false))
            }
            let version = try bumpVersion(of: record, recording: result.changeset, db: db)
            let change = Change(list: record.name, version: version, createdID: result.createdID, changeset: result.changeset)
            return IntentResult(outcome: outcome, change: change)
        }
    }
}
