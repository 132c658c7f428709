import CommandLineSupport
import Repository

/// Human sentences for changes: what a command or a saved session did, in index paths.
enum ChangeReport {
    /// `Added row 0:2 (#9); list "default" is at version 4.`, or `Nothing changed; …` for a change
    /// that changed nothing.
    static func sentence(for change: Change) -> String {
        let list = "list \"\(TextEscaping.escaped(change.list))\""
        let what = describe(change.changeset)
        guard !what.isEmpty else {
            return "Nothing changed; \(list) is still at version \(change.version)."
        }
        let created = change.createdID.map { " (#\($0))" } ?? ""
        return capitalized(what) + created + "; \(list) is at version \(change.version)."
    }

    /// `Undid the change that deleted row 0:0; list "default" is at version 5.`: an undo named by
    /// the change it took back (its own changeset is that change's inverse, whose "added row 0:0"
    /// read as if the undo had taken back an add), and a redo by the change it made again.
    static func undoSentence(for change: Change, redo: Bool) -> String {
        "\(undoPhrase(for: change, redo: redo)); list \"\(TextEscaping.escaped(change.list))\" is at version \(change.version)."
    }

    /// `Undid the change that deleted row 0:0`, `Redid …`, or `Undid a change that changed nothing`.
    static func undoPhrase(for change: Change, redo: Bool) -> String {
        let verb = redo ? "Redid" : "Undid"
        let what = describe(redo ? change.changeset : change.changeset.inverted())
        return what.isEmpty ? "\(verb) a change that changed nothing" : "\(verb) the change that \(what)"
    }

    /// `Saved 2 changes: moved row 0:1 to 1:0, added section 2; list "default" is at version 5.`
    static func savedSentence(for change: Change, editCount: Int) -> String {
        let list = "list \"\(TextEscaping.escaped(change.list))\""
        let edits = editCount == 1 ? "1 change" : "\(editCount) changes"
        let what = describe(change.changeset)
        guard !what.isEmpty else {
            return "Saved \(edits), which changed nothing; \(list) is still at version \(change.version)."
        }
        return "Saved \(edits): \(what); \(list) is at version \(change.version)."
    }

    /// The changeset as a comma-separated list of what happened, in list order: `moved row 0:1
    /// to 1:0, added section 2`. Long runs of one kind are counted instead of listed.
    static func describe(_ changeset: Changeset) -> String {
        var parts: [String] = []
        func add<Item>(_ verb: String, _ noun: String, _ items: [Item], _ spell: (Item) -> String) {
            guard !items.isEmpty else { return }
            if items.count > 4 {
                parts.append("\(verb) \(items.count) \(noun)s")
            } else {
                parts.append("\(verb) \(noun)\(items.count == 1 ? "" : "s") " + items.map(spell).joined(separator: ", "))
            }
        }
        add("deleted", "section", changeset.deletedSections) { "\($0)" }
        add("added", "section", changeset.insertedSections) { "\($0)" }
        add("moved", "section", changeset.movedSections) { "\($0.from) to \($0.to)" }
        add("updated", "section", changeset.updatedSections) { "\($0)" }
        add("deleted", "row", changeset.deletedRows) { "\($0)" }
        add("added", "row", changeset.insertedRows) { "\($0)" }
        add("moved", "row", changeset.movedRows) { "\($0.from) to \($0.to)" }
        add("updated", "row", changeset.updatedRows) { "\($0)" }
        return parts.joined(separator: ", ")
    }

    /// The pending changes of an edit session, one kind per line, for the `changes` command.
    static func pendingLines(_ changeset: Changeset, editCount: Int) -> [String] {
        let edits = editCount == 1 ? "1 change" : "\(editCount) changes"
        guard !changeset.isEmpty else {
            return editCount == 0 ? ["No changes yet."] : ["\(edits), which together change nothing."]
        }
        var lines = ["\(edits) pending; saving would:"]
        func add(_ label: String, _ entries: [String]) {
            if !entries.isEmpty { lines.append("  \(label): \(entries.joined(separator: ", "))") }
        }
        add("delete sections", changeset.deletedSections.map(String.init))
        add("add sections", changeset.insertedSections.map(String.init))
        add("move sections", changeset.movedSections.map { "\($0.from) → \($0.to)" })
        add("update sections", changeset.updatedSections.map(String.init))
        add("delete rows", changeset.deletedRows.map(\.description))
        add("add rows", changeset.insertedRows.map(\.description))
        add("move rows", changeset.movedRows.map { "\($0.from) → \($0.to)" })
        add("update rows", changeset.updatedRows.map(\.description))
        return lines
    }

    private static func capitalized(_ text: String) -> String {
        text.prefix(1).uppercased() + text.dropFirst()
    }
}
