-- The change journal: every committed change to a list records its changeset under the version
-- it produced, in the same transaction, so that a view at version V can ask what happened
-- since (`sectionctl changes --since V`) and an observer can follow each version as it commits.
--
-- A change written with plain SQL (the sqlite3 shell) has no changeset and does not bump the
-- version. The triggers below notice it: whatever writes rows, sections or lists while
-- `journal_writer.active` is 0 (sectionctl sets it to 1 inside its own write transactions, and
-- back to 0 before committing, so no other connection ever sees 1) marks the list
-- `journaled = 0`. Until sectionctl's next change, "changes since V" answers "reload"; that next
-- change is journaled as a reload too, since the state before it is one no changeset describes.

ALTER TABLE lists ADD COLUMN journaled INTEGER NOT NULL DEFAULT 1 CHECK (journaled IN (0, 1));

CREATE TABLE journal (
    list_id  INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    -- The list's version after the change.
    version  INTEGER NOT NULL,
    -- The changeset from the version before, in the JSON shape of `sectionctl --json`
    -- (`{"sections": {...}, "rows": {...}}`), or `{"reload": true}` when no changeset can say
    -- what changed (plain SQL came before it).
    changes  TEXT    NOT NULL CHECK (json_valid(changes)),
    PRIMARY KEY (list_id, version)
) STRICT, WITHOUT ROWID;

CREATE TABLE journal_writer (
    id     INTEGER PRIMARY KEY CHECK (id = 1),
    active INTEGER NOT NULL CHECK (active IN (0, 1))
) STRICT;
INSERT INTO journal_writer (id, active) VALUES (1, 0);

-- The last version each deleted list reached, by name, so that a list made anew under the same
-- name starts past it: "list L at version V" names one state, always.
CREATE TABLE retired_lists (
    name         TEXT    PRIMARY KEY,
    last_version INTEGER NOT NULL
) STRICT;

CREATE TRIGGER journal_list_retire AFTER DELETE ON lists BEGIN
    INSERT INTO retired_lists (name, last_version) VALUES (OLD.name, OLD.version)
    ON CONFLICT (name) DO UPDATE SET last_version = max(last_version, excluded.last_version);
END;

CREATE TRIGGER journal_list_identity AFTER INSERT ON lists
WHEN EXISTS (SELECT 1 FROM retired_lists WHERE name = NEW.name) BEGIN
    UPDATE lists SET version = max(version, (SELECT last_version + 1 FROM retired_lists WHERE name = NEW.name))
    WHERE id = NEW.id;
END;

-- A list renamed onto a retired name jumps past its versions too.
CREATE TRIGGER journal_list_rename AFTER UPDATE OF name ON lists
WHEN EXISTS (SELECT 1 FROM retired_lists WHERE name = NEW.name) BEGIN
    UPDATE lists SET version = max(version, (SELECT last_version + 1 FROM retired_lists WHERE name = NEW.name))
    WHERE id = NEW.id;
END;

CREATE TRIGGER journal_plain_row_insert AFTER INSERT ON rows
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    UPDATE lists SET journaled = 0 WHERE id = (SELECT list_id FROM sections WHERE id = NEW.section_id);
END;

CREATE TRIGGER journal_plain_row_update AFTER UPDATE ON rows
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    UPDATE lists SET journaled = 0 WHERE id IN (
        SELECT list_id FROM sections WHERE id IN (OLD.section_id, NEW.section_id));
END;

CREATE TRIGGER journal_plain_row_delete AFTER DELETE ON rows
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    UPDATE lists SET journaled = 0 WHERE id = (SELECT list_id FROM sections WHERE id = OLD.section_id);
END;

CREATE TRIGGER journal_plain_section_insert AFTER INSERT ON sections
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    UPDATE lists SET journaled = 0 WHERE id = NEW.list_id;
END;

-- Not on row_count: the row triggers above already mark a list whose rows change.
CREATE TRIGGER journal_plain_section_update AFTER UPDATE OF list_id, position, title, empty_text ON sections
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    UPDATE lists SET journaled = 0 WHERE id IN (OLD.list_id, NEW.list_id);
END;

CREATE TRIGGER journal_plain_section_delete AFTER DELETE ON sections
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    UPDATE lists SET journaled = 0 WHERE id = OLD.list_id;
END;

CREATE TRIGGER journal_plain_list_update AFTER UPDATE OF name, version ON lists
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    UPDATE lists SET journaled = 0 WHERE id = NEW.id;
END;
