-- Guards: the file is open to the sqlite3 shell, and plain SQL on its tables must never leave it
-- in a state sectionctl relies on not meeting, nor let a version name two states.
--
-- 1. A write sectionctl's code cannot survive is refused (RAISE): a position outside
--    {{position_minimum}}…{{position_maximum}} (the parking value {{position_parking}} only inside sectionctl's own transaction), a
--    row of no section, a section of no list, a list's version or undo barrier going back, a
--    journal or undo entry written by hand, the writer row deleted or its step going back.
-- 2. A delete that would leave orphans while foreign keys are off (the sqlite3 shell's default)
--    deletes what the cascade would have.
-- 3. Every plain-SQL write to a list, its journal or its undo history gives the list a new
--    version journaled as a reload, so that a version always names one state and every such
--    write reaches observers; and it raises the list's undo barrier (`plain_version`): undo and
--    redo refuse to take back a change made at or before it.
--
-- What no trigger can refuse (a count, a rank node, a trigger dropped) `sectionctl check` names
-- and `sectionctl repair` mends.

ALTER TABLE lists ADD COLUMN plain_version INTEGER NOT NULL DEFAULT 0 CHECK (plain_version >= 0);

-- The old marks only flagged a list (`journaled = 0`); the new ones below name its state.
DROP TRIGGER journal_plain_row_insert;
DROP TRIGGER journal_plain_row_update;
DROP TRIGGER journal_plain_row_delete;
DROP TRIGGER journal_plain_section_insert;
DROP TRIGGER journal_plain_section_update;
DROP TRIGGER journal_plain_section_delete;
DROP TRIGGER journal_plain_list_update;

-- A list flagged by the old marks gets its reload version now.
UPDATE lists SET version = version + 1, plain_version = version + 1, journaled = 1 WHERE journaled = 0;
INSERT OR REPLACE INTO journal (list_id, version, changes)
SELECT id, version, '{{journal_reload}}' FROM lists WHERE plain_version = version AND plain_version > 0;

-- Marking a list: insert its id here (from a trigger). The list gets a new version, journaled
-- as a reload, and its undo barrier moves up to it.
CREATE VIEW plain_marks (list_id) AS SELECT NULL WHERE 0;

CREATE TRIGGER plain_mark INSTEAD OF INSERT ON plain_marks BEGIN
    UPDATE lists SET version = version + 1, plain_version = version + 1 WHERE id = NEW.list_id;
    INSERT OR REPLACE INTO journal (list_id, version, changes)
    SELECT id, version, '{{journal_reload}}' FROM lists WHERE id = NEW.list_id;
END;

-- Plain SQL on rows, sections and lists (journal_writer.active = 0: not sectionctl's own).

CREATE TRIGGER journal_plain_row_insert AFTER INSERT ON rows
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    INSERT INTO plain_marks (list_id) SELECT list_id FROM sections WHERE id = NEW.section_id;
END;

CREATE TRIGGER journal_plain_row_update AFTER UPDATE ON rows
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    INSERT INTO plain_marks (list_id) SELECT DISTINCT list_id FROM sections WHERE id IN (OLD.section_id, NEW.section_id);
END;

CREATE TRIGGER journal_plain_row_delete AFTER DELETE ON rows
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    INSERT INTO plain_marks (list_id) SELECT list_id FROM sections WHERE id = OLD.section_id;
END;

CREATE TRIGGER journal_plain_section_insert AFTER INSERT ON sections
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    INSERT INTO plain_marks (list_id) VALUES (NEW.list_id);
END;

-- Not on row_count: the row triggers above already mark a list whose rows change.
CREATE TRIGGER journal_plain_section_update AFTER UPDATE OF list_id, position, title, empty_text ON sections
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    INSERT INTO plain_marks (list_id) SELECT id FROM lists WHERE id IN (OLD.list_id, NEW.list_id);
END;

CREATE TRIGGER journal_plain_section_delete AFTER DELETE ON sections
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    INSERT INTO plain_marks (list_id) VALUES (OLD.list_id);
END;

-- A rename or a version set by hand; not the mark's own bump (one up, barrier on it, same name).
CREATE TRIGGER journal_plain_list_update AFTER UPDATE OF name, version, plain_version ON lists
WHEN (SELECT active FROM journal_writer) = 0
    AND NOT (NEW.version = OLD.version + 1 AND NEW.plain_version = NEW.version AND NEW.name = OLD.name) BEGIN
    INSERT INTO plain_marks (list_id) VALUES (NEW.id);
END;

-- Plain SQL on the journal and the undo history: an entry may be deleted (noticed like any plain
-- write), never written by hand. The one entry plain SQL may add is the mark's own: a reload at
-- the list's current version.

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

CREATE TRIGGER guard_undo_log_insert BEFORE INSERT ON undo_log
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    SELECT RAISE(ABORT, 'the undo history is written by sectionctl; plain SQL may delete its entries, not write them');
END;

CREATE TRIGGER guard_undo_log_update BEFORE UPDATE ON undo_log
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    SELECT RAISE(ABORT, 'the undo history is written by sectionctl; plain SQL may delete its entries, not write them');
END;

-- An entry of a row deleted with its section (list -1) belongs to the lists of its step.
CREATE TRIGGER journal_plain_undo_log_delete AFTER DELETE ON undo_log
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    INSERT INTO plain_marks (list_id) SELECT id FROM lists
    WHERE id = OLD.list_id
       OR (OLD.list_id = -1 AND id IN (SELECT list_id FROM undo_steps WHERE step = OLD.step
                                       UNION SELECT list_id FROM redo_steps WHERE step = OLD.step));
END;

CREATE TRIGGER guard_undo_steps_insert BEFORE INSERT ON undo_steps
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    SELECT RAISE(ABORT, 'the undo history is written by sectionctl; plain SQL may delete its entries, not write them');
END;

CREATE TRIGGER guard_undo_steps_update BEFORE UPDATE ON undo_steps
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    SELECT RAISE(ABORT, 'the undo history is written by sectionctl; plain SQL may delete its entries, not write them');
END;

CREATE TRIGGER journal_plain_undo_steps_delete AFTER DELETE ON undo_steps
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    INSERT INTO plain_marks (list_id) SELECT id FROM lists WHERE id = OLD.list_id;
END;

CREATE TRIGGER guard_redo_steps_insert BEFORE INSERT ON redo_steps
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    SELECT RAISE(ABORT, 'the undo history is written by sectionctl; plain SQL may delete its entries, not write them');
END;

CREATE TRIGGER guard_redo_steps_update BEFORE UPDATE ON redo_steps
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    SELECT RAISE(ABORT, 'the undo history is written by sectionctl; plain SQL may delete its entries, not write them');
END;

CREATE TRIGGER journal_plain_redo_steps_delete AFTER DELETE ON redo_steps
WHEN (SELECT active FROM journal_writer) = 0 BEGIN
    INSERT INTO plain_marks (list_id) SELECT id FROM lists WHERE id = OLD.list_id;
END;

-- The writer row: one, always; its step numbers undo_log's entries and never repeats.
CREATE TRIGGER guard_journal_writer_delete BEFORE DELETE ON journal_writer BEGIN
    SELECT RAISE(ABORT, 'journal_writer holds one row, which sectionctl needs');
END;

CREATE TRIGGER guard_journal_writer_step BEFORE UPDATE OF step ON journal_writer
WHEN NEW.step < OLD.step BEGIN
    SELECT RAISE(ABORT, 'journal_writer.step numbers the undo history and never goes back');
END;

-- Versions name states: a version never goes back, nor the undo barrier, which never passes it;
-- `journaled` is sectionctl's to set (plain SQL names its own state now, so it stays 1).
CREATE TRIGGER guard_list_version BEFORE UPDATE OF version, plain_version, journaled ON lists
WHEN NEW.version < OLD.version OR NEW.plain_version < OLD.plain_version OR NEW.plain_version > NEW.version
    OR (NEW.journaled <> OLD.journaled AND (SELECT active FROM journal_writer) = 0) BEGIN
    SELECT RAISE(ABORT, 'a list''s version and plain_version never go back, plain_version never passes version, and journaled is sectionctl''s to set');
END;

-- Positions: inside the range the position scheme uses; the parking value only while sectionctl
-- moves an item.

CREATE TRIGGER guard_row_insert_position BEFORE INSERT ON rows
WHEN NEW.position NOT BETWEEN {{position_minimum}} AND {{position_maximum}}
    AND NOT (NEW.position = {{position_parking}} AND (SELECT active FROM journal_writer) = 1) BEGIN
    SELECT RAISE(ABORT, 'rows.position must be from {{position_minimum}} to {{position_maximum}}');
END;

CREATE TRIGGER guard_row_update_position BEFORE UPDATE OF position ON rows
WHEN NEW.position NOT BETWEEN {{position_minimum}} AND {{position_maximum}}
    AND NOT (NEW.position = {{position_parking}} AND (SELECT active FROM journal_writer) = 1) BEGIN
    SELECT RAISE(ABORT, 'rows.position must be from {{position_minimum}} to {{position_maximum}}');
END;

CREATE TRIGGER guard_section_insert_position BEFORE INSERT ON sections
WHEN NEW.position NOT BETWEEN {{position_minimum}} AND {{position_maximum}}
    AND NOT (NEW.position = {{position_parking}} AND (SELECT active FROM journal_writer) = 1) BEGIN
    SELECT RAISE(ABORT, 'sections.position must be from {{position_minimum}} to {{position_maximum}}');
END;

CREATE TRIGGER guard_section_update_position BEFORE UPDATE OF position ON sections
WHEN NEW.position NOT BETWEEN {{position_minimum}} AND {{position_maximum}}
    AND NOT (NEW.position = {{position_parking}} AND (SELECT active FROM journal_writer) = 1) BEGIN
    SELECT RAISE(ABORT, 'sections.position must be from {{position_minimum}} to {{position_maximum}}');
END;

-- Parents: a row of no section, a section of no list, are refused even with foreign keys off.

CREATE TRIGGER guard_row_insert_section BEFORE INSERT ON rows
WHEN NOT EXISTS (SELECT 1 FROM sections WHERE id = NEW.section_id) BEGIN
    SELECT RAISE(ABORT, 'rows.section_id must name a section');
END;

CREATE TRIGGER guard_row_update_section BEFORE UPDATE OF section_id ON rows
WHEN NOT EXISTS (SELECT 1 FROM sections WHERE id = NEW.section_id) BEGIN
    SELECT RAISE(ABORT, 'rows.section_id must name a section');
END;

CREATE TRIGGER guard_section_insert_list BEFORE INSERT ON sections
WHEN NOT EXISTS (SELECT 1 FROM lists WHERE id = NEW.list_id) BEGIN
    SELECT RAISE(ABORT, 'sections.list_id must name a list');
END;

CREATE TRIGGER guard_section_update_list BEFORE UPDATE OF list_id ON sections
WHEN NOT EXISTS (SELECT 1 FROM lists WHERE id = NEW.list_id) BEGIN
    SELECT RAISE(ABORT, 'sections.list_id must name a list');
END;

-- Deletes take what the foreign keys' cascade would (with them on, it is gone already). A
-- section's rows go before its rank nodes and pending marks, which their triggers touch.

CREATE TRIGGER guard_section_delete AFTER DELETE ON sections BEGIN
    DELETE FROM rows WHERE section_id = OLD.id;
    DELETE FROM rank_pending WHERE section_id = OLD.id;
    DELETE FROM rank_nodes WHERE section_id = OLD.id;
END;

CREATE TRIGGER guard_list_delete AFTER DELETE ON lists BEGIN
    DELETE FROM sections WHERE list_id = OLD.id;
    DELETE FROM journal WHERE list_id = OLD.id;
    DELETE FROM undo_steps WHERE list_id = OLD.id;
    DELETE FROM redo_steps WHERE list_id = OLD.id;
END;

-- Undo logs every row a step inserts, also into a section the same step created, so that the
-- backward replay meets no row it does not know of.
DROP TRIGGER undo_row_insert;
DROP INDEX undo_log_item;

CREATE TRIGGER undo_row_insert AFTER INSERT ON rows
WHEN (SELECT active FROM journal_writer) = 1 BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id)
    VALUES ((SELECT step FROM journal_writer), (SELECT list_id FROM sections WHERE id = NEW.section_id), 'insert', 'row', NEW.id);
END;
