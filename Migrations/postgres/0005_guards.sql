-- Guards, as Migrations/0005_guards.sql gives a file: plain SQL (psql) on the tables never leaves
-- a state sectionctl relies on not meeting, nor lets a version name two states. Foreign keys are
-- always on on a server, so orphans need no triggers here.
--
-- 1. Refused: a position outside {{position_minimum}}…{{position_maximum}} (the parking value {{position_parking}} only inside
--    sectionctl's own transaction), a list's version or undo barrier going back, a journal or
--    undo entry written by hand.
-- 2. Every plain-SQL write to a list, its journal or its undo history gives the list a new
--    version journaled as a reload (once per statement and list), and raises the list's undo
--    barrier (`plain_version`): undo and redo refuse to take back a change made at or before it.
-- 3. Undo logs every row a step inserts, also into a section the same step created.

ALTER TABLE lists ADD COLUMN plain_version bigint NOT NULL DEFAULT 0 CHECK (plain_version >= 0);

-- Marks the lists plain SQL wrote to: a new version each, journaled as a reload, the undo barrier
-- on it, and a notification.
CREATE OR REPLACE FUNCTION mark_plain(p_lists bigint[]) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
    UPDATE sectionctl.lists SET version = version + 1, plain_version = version + 1 WHERE id = ANY (p_lists);
    INSERT INTO sectionctl.journal (list_id, version, changes)
    SELECT id, version, '{{journal_reload}}' FROM sectionctl.lists WHERE id = ANY (p_lists);
    PERFORM pg_notify('sectionctl', l::text) FROM (SELECT DISTINCT unnest(p_lists)) AS x (l) WHERE l IS NOT NULL;
END $$;

-- A rename or a version set by hand marks the list; not the mark's own bump (one up, the barrier
-- on it, nothing else changed).
DROP TRIGGER lists_after_update ON lists;
CREATE TRIGGER lists_after_update AFTER UPDATE OF name, version, plain_version ON lists FOR EACH ROW
WHEN (OLD.name IS DISTINCT FROM NEW.name OR (coalesce(current_setting('sectionctl.active', true), '') <> '1'
      AND NOT (NEW.version = OLD.version + 1 AND NEW.plain_version = NEW.version)))
EXECUTE FUNCTION lists_updated();

-- A list flagged by the old marks gets its reload version now (as sectionctl's own write, which
-- the trigger above leaves alone).
SELECT set_config('sectionctl.active', '1', true);
UPDATE lists SET version = version + 1, plain_version = version + 1, journaled = 1 WHERE journaled = 0;
INSERT INTO journal (list_id, version, changes)
SELECT id, version, '{{journal_reload}}' FROM lists WHERE plain_version = version AND plain_version > 0;
SELECT set_config('sectionctl.active', '', true);

-- Versions name states: a version never goes back, nor the undo barrier, which never passes it.
CREATE FUNCTION refuse_version() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    RAISE EXCEPTION 'a list''s version and plain_version never go back, plain_version never passes version, and journaled is sectionctl''s to set'
        USING ERRCODE = 'check_violation';
END $$;

-- `journaled` is sectionctl's to set (plain SQL names its own state now, so it stays 1).
CREATE TRIGGER lists_version_guard BEFORE UPDATE OF version, plain_version, journaled ON lists FOR EACH ROW
WHEN (NEW.version < OLD.version OR NEW.plain_version < OLD.plain_version OR NEW.plain_version > NEW.version
      OR (NEW.journaled <> OLD.journaled AND coalesce(current_setting('sectionctl.active', true), '') <> '1'))
EXECUTE FUNCTION refuse_version();

-- Positions: inside the range the position scheme uses; the parking value only while sectionctl
-- moves an item.
CREATE FUNCTION refuse_position() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF NEW.position = {{position_parking}} AND coalesce(current_setting('sectionctl.active', true), '') = '1' THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '%.position must be from {{position_minimum}} to {{position_maximum}}', TG_TABLE_NAME USING ERRCODE = 'check_violation';
END $$;

CREATE TRIGGER rows_position_guard BEFORE INSERT OR UPDATE OF position ON rows FOR EACH ROW
WHEN (NEW.position NOT BETWEEN {{position_minimum}} AND {{position_maximum}}) EXECUTE FUNCTION refuse_position();
CREATE TRIGGER sections_position_guard BEFORE INSERT OR UPDATE OF position ON sections FOR EACH ROW
WHEN (NEW.position NOT BETWEEN {{position_minimum}} AND {{position_maximum}}) EXECUTE FUNCTION refuse_position();

-- The journal and the undo history: an entry may be deleted (noticed like any plain write),
-- never written by hand. The one entry plain SQL may add is the mark's own: a reload at the
-- list's current version.
CREATE FUNCTION refuse_plain_history() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('sectionctl.active', true), '') = '1' THEN
        RETURN NEW;
    END IF;
    IF TG_TABLE_NAME = 'journal' AND TG_OP = 'INSERT' AND NEW.changes = '{{journal_reload}}'
        AND NEW.version = (SELECT version FROM sectionctl.lists WHERE id = NEW.list_id) THEN
        RETURN NEW;
    END IF;
    RAISE EXCEPTION '% entries are written by sectionctl; plain SQL may delete them, not write them', TG_TABLE_NAME
        USING ERRCODE = 'check_violation';
END $$;

-- An entry of a row deleted with its section (list -1) belongs to the lists of its step.
CREATE FUNCTION history_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF coalesce(current_setting('sectionctl.active', true), '') <> '1' THEN
        IF TG_TABLE_NAME = 'undo_log' THEN
            PERFORM sectionctl.mark_plain(ARRAY(
                SELECT list_id FROM old_rows WHERE list_id <> -1
                UNION SELECT u.list_id FROM sectionctl.undo_steps AS u WHERE u.step IN (SELECT step FROM old_rows WHERE list_id = -1)
                UNION SELECT r.list_id FROM sectionctl.redo_steps AS r WHERE r.step IN (SELECT step FROM old_rows WHERE list_id = -1)));
        ELSE
            PERFORM sectionctl.mark_plain(ARRAY(SELECT DISTINCT list_id FROM old_rows));
        END IF;
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER journal_history_guard BEFORE INSERT OR UPDATE ON journal FOR EACH ROW EXECUTE FUNCTION refuse_plain_history();
CREATE TRIGGER undo_log_history_guard BEFORE INSERT OR UPDATE ON undo_log FOR EACH ROW EXECUTE FUNCTION refuse_plain_history();
CREATE TRIGGER undo_steps_history_guard BEFORE INSERT OR UPDATE ON undo_steps FOR EACH ROW EXECUTE FUNCTION refuse_plain_history();
CREATE TRIGGER redo_steps_history_guard BEFORE INSERT OR UPDATE ON redo_steps FOR EACH ROW EXECUTE FUNCTION refuse_plain_history();

CREATE TRIGGER journal_after_delete AFTER DELETE ON journal REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION history_deleted();
CREATE TRIGGER undo_log_after_delete AFTER DELETE ON undo_log REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION history_deleted();
CREATE TRIGGER undo_steps_after_delete AFTER DELETE ON undo_steps REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION history_deleted();
CREATE TRIGGER redo_steps_after_delete AFTER DELETE ON redo_steps REFERENCING OLD TABLE AS old_rows
FOR EACH STATEMENT EXECUTE FUNCTION history_deleted();

-- Undo logs every row a step inserts, also into a section the same step created, so that the
-- backward replay meets no row it does not know of.
CREATE OR REPLACE FUNCTION rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_sections bigint[];
    v_positions bigint[];
    v_lists jsonb;
BEGIN
    SELECT array_agg(section_id), array_agg(position) INTO v_sections, v_positions FROM new_rows;
    IF v_sections IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM sectionctl.count_rows(v_sections, v_positions, array_fill(1::bigint, ARRAY[cardinality(v_sections)]));
    IF coalesce(current_setting('sectionctl.active', true), '') = '1' THEN
        SELECT jsonb_object_agg(x.s, (SELECT list_id FROM sectionctl.sections WHERE id = x.s))
        INTO v_lists FROM (SELECT DISTINCT section_id AS s FROM new_rows) AS x;
        INSERT INTO sectionctl.undo_log (step, list_id, action, target, item_id)
        SELECT current_setting('sectionctl.step')::bigint, (v_lists ->> r.section_id::text)::bigint, 'insert', 'row', r.id
        FROM (SELECT row_number() OVER () AS ord, id, section_id FROM new_rows) AS r
        ORDER BY r.ord;
    ELSE
        PERFORM sectionctl.mark_plain(ARRAY(
            SELECT (SELECT list_id FROM sectionctl.sections WHERE id = x.s)
            FROM (SELECT DISTINCT section_id AS s FROM new_rows) AS x));
    END IF;
    RETURN NULL;
END $$;
