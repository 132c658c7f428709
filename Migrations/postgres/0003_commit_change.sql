-- The bookkeeping of a committed change as one function on the server: bump the list's version,
-- journal the changeset (or a reload, after plain SQL), keep the last journal_kept_versions versions, and file
-- the version in the undo or redo history — what `Journal.commit` and `Journal.record` do on
-- SQLite, statement by statement, where a statement costs no round trip. The rules are the
-- same; the conformance suite runs the journal and undo tests on both.

-- p_history: 'change' (can be undone; clears redo), 'undo' (of version p_of: leaves the undo
-- history, can be redone), 'redo' (of the undo at version p_of: can be undone again).
-- Returns the new version.
CREATE FUNCTION commit_change(p_list bigint, p_changes text, p_history text, p_of bigint) RETURNS bigint
LANGUAGE plpgsql AS $$
DECLARE
    was_journaled bigint;
    new_version bigint;
    current_step bigint := sectionctl.writer_step();
    old record;
BEGIN
    SELECT journaled INTO was_journaled FROM sectionctl.lists WHERE id = p_list;
    UPDATE sectionctl.lists SET version = version + 1, journaled = 1 WHERE id = p_list RETURNING version INTO new_version;
    INSERT INTO sectionctl.journal (list_id, version, changes)
    VALUES (p_list, new_version, CASE WHEN was_journaled = 1 THEN p_changes ELSE '{{journal_reload}}' END);
    DELETE FROM sectionctl.journal WHERE list_id = p_list AND version <= new_version - {{journal_kept_versions}};
    IF p_history = 'change' THEN
        FOR old IN DELETE FROM sectionctl.redo_steps WHERE list_id = p_list RETURNING step LOOP
            DELETE FROM sectionctl.undo_log WHERE step = old.step AND list_id IN (p_list, -1);
        END LOOP;
        INSERT INTO sectionctl.undo_steps (list_id, version, step) VALUES (p_list, new_version, current_step);
        -- At least the last undo_kept_steps changes can be undone; older logs go.
        FOR old IN SELECT version, step FROM sectionctl.undo_steps WHERE list_id = p_list ORDER BY version DESC OFFSET {{undo_kept_steps}} LOOP
            DELETE FROM sectionctl.undo_log WHERE step = old.step AND list_id IN (p_list, -1);
            DELETE FROM sectionctl.undo_steps WHERE list_id = p_list AND version = old.version;
        END LOOP;
    ELSIF p_history = 'undo' THEN
        FOR old IN DELETE FROM sectionctl.undo_steps WHERE list_id = p_list AND version = p_of RETURNING step LOOP
            DELETE FROM sectionctl.undo_log WHERE step = old.step AND list_id IN (p_list, -1);
        END LOOP;
        INSERT INTO sectionctl.redo_steps (list_id, version, step) VALUES (p_list, new_version, current_step);
    ELSIF p_history = 'redo' THEN
        FOR old IN DELETE FROM sectionctl.redo_steps WHERE list_id = p_list AND version = p_of RETURNING step LOOP
            DELETE FROM sectionctl.undo_log WHERE step = old.step AND list_id IN (p_list, -1);
        END LOOP;
        INSERT INTO sectionctl.undo_steps (list_id, version, step) VALUES (p_list, new_version, current_step);
    ELSE
        RAISE EXCEPTION 'commit_change: unknown history %', p_history;
    END IF;
    RETURN new_version;
END $$;
