-- The journal becomes a rowid table, so that an old entry costs a later write nothing.
--
-- In the `WITHOUT ROWID` table of 0003 each entry's changeset lay in the b-tree's cells beside
-- its key, and a cell too large for its page (an import's changeset runs to megabytes) goes on
-- in a chain of overflow pages. Every commit inserts an entry and prunes old ones, and SQLite's
-- seek compares the new key against the cells on its path, reading a large cell's whole chain
-- each time: after a 1M-row import, one `row move` read 6,797 pages where it reads 55, and so
-- did the list's next thousand writes, for as long as the entry was kept.
--
-- Here the payload lives in the table's leaves, found by rowid, and the key is the unique index
-- on (list_id, version), whose entries are a few bytes. A seek reads index pages only; a payload
-- is read when its entry is read (`changes --since`), and its chain once more when it is pruned.
--
-- A table cannot change from WITHOUT ROWID in place, so its entries are copied (at most the
-- kept versions of each list). The triggers that write into the journal (`plain_mark`) or delete
-- from it (`guard_list_delete`) are dropped before the old table and made again as 0005 made
-- them, as are the table's own guards, which go with it.

CREATE TABLE journal_entries (
    -- Where the entry is stored: the key readers use is (list_id, version).
    id       INTEGER PRIMARY KEY,
    list_id  INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    -- The list's version after the change.
    version  INTEGER NOT NULL,
    -- The changeset from the version before, in the JSON shape of `sectionctl --json`
    -- (`{"sections": {...}, "rows": {...}}`), or `{"reload": true}` when no changeset can say
    -- what changed (plain SQL came before it).
    changes  TEXT    NOT NULL CHECK (json_valid(changes)),
    UNIQUE (list_id, version)
) STRICT;

INSERT INTO journal_entries (list_id, version, changes)
SELECT list_id, version, changes FROM journal ORDER BY list_id, version;

DROP TRIGGER plain_mark;
DROP TRIGGER guard_list_delete;
DROP TABLE journal;
ALTER TABLE journal_entries RENAME TO journal;

CREATE TRIGGER plain_mark INSTEAD OF INSERT ON plain_marks BEGIN
    UPDATE lists SET version = version + 1, plain_version = version + 1 WHERE id = NEW.list_id;
    INSERT OR REPLACE INTO journal (list_id, version, changes)
    SELECT id, version, '{{journal_reload}}' FROM lists WHERE id = NEW.list_id;
END;

CREATE TRIGGER guard_list_delete AFTER DELETE ON lists BEGIN
    DELETE FROM sections WHERE list_id = OLD.id;
    DELETE FROM journal WHERE list_id = OLD.id;
    DELETE FROM undo_steps WHERE list_id = OLD.id;
    DELETE FROM redo_steps WHERE list_id = OLD.id;
END;

CREATE TRIGGER guard_journal_insert BEFORE INSERT ON journal
WHEN (SELECT active FROM journal_writer) = 0
    AND NOT (NEW.changes = '{{journal_reload}}' AND NEW.version = (SELECT version FROM lists WHERE id = NEW.list_id)) BEGIN
    SELECT RAISE(ABORT, 'journal entries are written by sectionctl; plain SQL may delete them, not write them');
END;

CREATE TRIGGER guard_journal_update BEFORE UPDATE ON journal
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    SELECT RAISE(ABORT, 'journal entries are written by sectionctl; plain SQL may delete them, not write them');
END;

CREATE TRIGGER journal_plain_journal_delete AFTER DELETE ON journal
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    INSERT INTO plain_marks (list_id) SELECT id FROM lists WHERE id = OLD.list_id;
END;
