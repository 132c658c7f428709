-- Undo and redo: each committed change can be taken back, as a new committed change.
--
-- Inside sectionctl's own write transactions (journal_writer.active = 1) the triggers below log
-- every row, section and list-name write with what it overwrote, under the transaction's
-- number (journal_writer.step). Undoing a change replays its log backwards — a row inserted is
-- deleted, a row deleted comes back with its id, position and content, an update is reversed —
-- which gives back exactly the state before it, ids included (table views key cells by id).
--
-- Per list, `undo_steps` holds the changes that can be undone (the last undo_kept_steps of Migrations/constants.txt at least) and
-- `redo_steps` the undos that can be redone; a new change empties `redo_steps`.

ALTER TABLE journal_writer ADD COLUMN step INTEGER NOT NULL DEFAULT 0;

CREATE TABLE undo_log (
    id         INTEGER PRIMARY KEY,
    step       INTEGER NOT NULL,
    list_id    INTEGER NOT NULL,
    action     TEXT    NOT NULL CHECK (action IN ('insert', 'delete', 'update')),
    target     TEXT    NOT NULL CHECK (target IN ('row', 'section', 'list')),
    item_id    INTEGER NOT NULL,
    -- What a delete removed or an update overwrote (NULL for an insert): a row's section_id or a
    -- section's list_id, the position, and the content.
    parent_id  INTEGER,
    position   INTEGER,
    kind       TEXT,
    title      TEXT,
    value      TEXT
) STRICT;
CREATE INDEX undo_log_step ON undo_log (list_id, step);
-- For undo_row_insert's question "was this row's section added in this step?", once per row.
CREATE INDEX undo_log_item ON undo_log (step, item_id);

CREATE TABLE undo_steps (
    list_id INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    step    INTEGER NOT NULL,
    PRIMARY KEY (list_id, version)
) STRICT, WITHOUT ROWID;

CREATE TABLE redo_steps (
    list_id INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    version INTEGER NOT NULL,
    step    INTEGER NOT NULL,
    PRIMARY KEY (list_id, version)
) STRICT, WITHOUT ROWID;

-- A deleted list takes its history with it (rows deleted with their section, whose list could
-- no longer be looked up, were logged under list -1).
CREATE TRIGGER undo_list_delete AFTER DELETE ON lists BEGIN
    DELETE FROM undo_log WHERE list_id = OLD.id OR (list_id = -1 AND step = (SELECT step FROM journal_writer));
END;

-- Rows added to a section added in the same transaction are not logged: undoing the section's
-- insert deletes them with it.
CREATE TRIGGER undo_row_insert AFTER INSERT ON rows
WHEN (SELECT active FROM journal_writer) = 1 AND NOT EXISTS (
    SELECT 1 FROM undo_log WHERE step = (SELECT step FROM journal_writer) AND target = 'section'
        AND action = 'insert' AND item_id = NEW.section_id) BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id)
    VALUES ((SELECT step FROM journal_writer), (SELECT list_id FROM sections WHERE id = NEW.section_id), 'insert', 'row', NEW.id);
END;

-- A row deleted with its section may find the section gone already: it is logged under list -1
-- and found through its section's own delete entry in the same step.
CREATE TRIGGER undo_row_delete AFTER DELETE ON rows
WHEN (SELECT active FROM journal_writer) = 1 BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id, parent_id, position, kind, title, value)
    VALUES ((SELECT step FROM journal_writer), coalesce((SELECT list_id FROM sections WHERE id = OLD.section_id), -1),
            'delete', 'row', OLD.id, OLD.section_id, OLD.position, OLD.kind, OLD.title, OLD.value);
END;

CREATE TRIGGER undo_row_update AFTER UPDATE OF section_id, position, kind, title, value ON rows
WHEN (SELECT active FROM journal_writer) = 1 BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id, parent_id, position, kind, title, value)
    VALUES ((SELECT step FROM journal_writer), (SELECT list_id FROM sections WHERE id = OLD.section_id),
            'update', 'row', OLD.id, OLD.section_id, OLD.position, OLD.kind, OLD.title, OLD.value);
END;

CREATE TRIGGER undo_section_insert AFTER INSERT ON sections
WHEN (SELECT active FROM journal_writer) = 1 BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id)
    VALUES ((SELECT step FROM journal_writer), NEW.list_id, 'insert', 'section', NEW.id);
END;

-- After the rows it held (SQLite deletes them first, firing undo_row_delete for each), so that
-- undoing puts the section back before its rows.
CREATE TRIGGER undo_section_delete AFTER DELETE ON sections
WHEN (SELECT active FROM journal_writer) = 1 BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id, parent_id, position, title, value)
    VALUES ((SELECT step FROM journal_writer), OLD.list_id, 'delete', 'section', OLD.id, OLD.list_id, OLD.position,
            OLD.title, OLD.empty_text);
END;

CREATE TRIGGER undo_section_update AFTER UPDATE OF list_id, position, title, empty_text ON sections
WHEN (SELECT active FROM journal_writer) = 1 BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id, parent_id, position, title, value)
    VALUES ((SELECT step FROM journal_writer), OLD.list_id, 'update', 'section', OLD.id, OLD.list_id, OLD.position,
            OLD.title, OLD.empty_text);
END;

CREATE TRIGGER undo_list_rename AFTER UPDATE OF name ON lists
WHEN (SELECT active FROM journal_writer) = 1 BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id, title)
    VALUES ((SELECT step FROM journal_writer), OLD.id, 'update', 'list', OLD.id, OLD.name);
END;
