-- Checks the PostgreSQL schema (Migrations/postgres/*.sql) on a database where it was
-- applied: counts, rank nodes, undo, plain-SQL marking and retired names. Everything runs in
-- one transaction, rolled back at the end; a failed check stops with an error.
--
--     psql -v ON_ERROR_STOP=1 -d DATABASE -f Tests/postgres-schema-check.sql

\set ON_ERROR_STOP 1
BEGIN;
SET LOCAL search_path = public;  -- the triggers must not depend on it

-- Every way the counts disagree with the rows (RankTree.problems and the sections' row_count).
CREATE FUNCTION pg_temp.problems() RETURNS bigint LANGUAGE sql AS $$
    WITH nodes AS (
        SELECT section_id, level, first, row_count,
               lead(first) OVER (PARTITION BY section_id, level ORDER BY first) AS next
        FROM sectionctl.rank_nodes)
    SELECT (SELECT count(*) FROM nodes AS n WHERE row_count <> (
                SELECT count(*) FROM sectionctl.rows AS r WHERE r.section_id = n.section_id
                AND r.position >= n.first AND r.position < coalesce(n.next, 9223372036854775807)))
         + (SELECT count(*) FROM sectionctl.sections AS s, generate_series(1, 4) AS l
            WHERE NOT EXISTS (SELECT 1 FROM sectionctl.rank_nodes AS n
                              WHERE n.section_id = s.id AND n.level = l AND n.first = (-9223372036854775807 - 1)))
         + (SELECT count(*) FROM sectionctl.sections AS s
            WHERE row_count <> (SELECT count(*) FROM sectionctl.rows AS r WHERE r.section_id = s.id));
$$;

-- The state undo must give back: sections, rows (ids included) and list names.
CREATE FUNCTION pg_temp.state() RETURNS text LANGUAGE sql AS $$
    SELECT md5(concat(
        (SELECT string_agg(concat_ws('|', id, list_id, position, title, empty_text, row_count), ';' ORDER BY id) FROM sectionctl.sections),
        (SELECT string_agg(concat_ws('|', id, section_id, position, kind, title, value), ';' ORDER BY id) FROM sectionctl.rows),
        (SELECT string_agg(concat_ws('|', id, name), ';' ORDER BY id) FROM sectionctl.lists)));
$$;

-- Takes a step back as Undo.swift does: the list's entries, and the list -1 entries of its
-- sections deleted in the step, newest first; each must change exactly one row.
CREATE FUNCTION pg_temp.undo(p_step bigint, p_list bigint) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    e record;
    n bigint;
BEGIN
    PERFORM sectionctl.writer_begin();
    FOR e IN SELECT * FROM sectionctl.undo_log
             WHERE step = p_step AND (list_id = p_list OR (list_id = -1 AND parent_id IN (
                 SELECT item_id FROM sectionctl.undo_log
                 WHERE step = p_step AND list_id = p_list AND target = 'section' AND action = 'delete')))
             ORDER BY id DESC LOOP
        CASE e.target || ' ' || e.action
        WHEN 'row insert' THEN DELETE FROM sectionctl.rows WHERE id = e.item_id;
        WHEN 'row delete' THEN
            INSERT INTO sectionctl.rows (id, section_id, position, kind, title, value)
            VALUES (e.item_id, e.parent_id, e.position, e.kind, e.title, e.value);
        WHEN 'row update' THEN
            UPDATE sectionctl.rows SET section_id = e.parent_id, position = e.position, kind = e.kind,
                title = e.title, value = e.value WHERE id = e.item_id;
        WHEN 'section insert' THEN DELETE FROM sectionctl.sections WHERE id = e.item_id;
        WHEN 'section delete' THEN
            INSERT INTO sectionctl.sections (id, list_id, position, title, empty_text)
            VALUES (e.item_id, e.parent_id, e.position, e.title, e.value);
        WHEN 'section update' THEN
            UPDATE sectionctl.sections SET list_id = e.parent_id, position = e.position, title = e.title,
                empty_text = e.value WHERE id = e.item_id;
        ELSE UPDATE sectionctl.lists SET name = e.title WHERE id = e.item_id;
        END CASE;
        GET DIAGNOSTICS n = ROW_COUNT;
        ASSERT n = 1, format('undo entry %s changed %s rows', e.id, n);
    END LOOP;
    PERFORM set_config('sectionctl.active', '0', true);
END $$;

-- Runs `p_sql` as a sectionctl step, checks the counts, undoes the step and checks that the
-- state before came back.
CREATE FUNCTION pg_temp.check_step(p_name text, p_sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE
    v_before text := pg_temp.state();
    v_step bigint := sectionctl.writer_begin();
BEGIN
    EXECUTE p_sql;
    PERFORM set_config('sectionctl.active', '0', true);
    ASSERT pg_temp.problems() = 0, p_name || ': counts disagree with the rows';
    PERFORM pg_temp.undo(v_step, 1);
    ASSERT pg_temp.problems() = 0, p_name || ': counts disagree with the rows after undo';
    ASSERT pg_temp.state() = v_before, p_name || ': undo did not give the state back';
    RETURN 'ok: ' || p_name;
END $$;

-- Three sections of 1,000 rows each, with nodes of 32 rows (what sectionctl's settling shapes).
SELECT sectionctl.writer_begin();
INSERT INTO sectionctl.sections (list_id, position, title) VALUES (1, 10, 'A'), (1, 20, 'B'), (1, 30, 'C');
INSERT INTO sectionctl.rows (section_id, position, title)
SELECT s.id, g * 1000, 'r' || g FROM sectionctl.sections AS s, generate_series(1, 1000) AS g WHERE s.list_id = 1;
SELECT set_config('sectionctl.active', '0', true);
DELETE FROM sectionctl.rank_pending;
DELETE FROM sectionctl.rank_nodes;
INSERT INTO sectionctl.rank_nodes (section_id, level, first, row_count)
SELECT s.id, l, (-9223372036854775807 - 1), 0 FROM sectionctl.sections AS s, generate_series(1, 4) AS l;
INSERT INTO sectionctl.rank_nodes (section_id, level, first, row_count)
SELECT section_id, level, first, row_count FROM sectionctl.rank_layout
ON CONFLICT (section_id, level, first) DO UPDATE SET row_count = excluded.row_count;
SELECT 'ok: layout' WHERE pg_temp.problems() = 0;

CREATE TEMP TABLE ids AS SELECT id FROM sectionctl.sections WHERE list_id = 1 ORDER BY position;
SELECT pg_temp.check_step('one row inserted', format(
    $$INSERT INTO sectionctl.rows (section_id, position, title) VALUES (%s, 1500, 'x')$$, (SELECT min(id) FROM ids)));
SELECT pg_temp.check_step('rows inserted in bulk', $$
    INSERT INTO sectionctl.rows (section_id, position, title)
    SELECT s.id, g * 1000 + 7, 'n' FROM sectionctl.sections AS s, generate_series(1, 700) AS g WHERE s.list_id = 1$$);
SELECT pg_temp.check_step('a section and its rows inserted', $$
    INSERT INTO sectionctl.sections (list_id, position, title) VALUES (1, 40, 'D');
    INSERT INTO sectionctl.rows (section_id, position, title)
    SELECT (SELECT id FROM sectionctl.sections WHERE title = 'D'), g, 'd' FROM generate_series(1, 100) AS g$$);
SELECT pg_temp.check_step('rows deleted across nodes', $$DELETE FROM sectionctl.rows WHERE position % 7000 = 0$$);
SELECT pg_temp.check_step('one row moved inside its node', format(
    $$UPDATE sectionctl.rows SET position = position + 1 WHERE section_id = %s AND position = 5000$$, (SELECT min(id) FROM ids)));
SELECT pg_temp.check_step('one row moved across nodes', format(
    $$UPDATE sectionctl.rows SET position = 1 WHERE section_id = %s AND position = 900000$$, (SELECT min(id) FROM ids)));
SELECT pg_temp.check_step('rows moved across sections', format(
    $$UPDATE sectionctl.rows SET section_id = %s, position = position + 3 WHERE section_id = %s AND position %% 9000 = 0$$,
    (SELECT max(id) FROM ids), (SELECT min(id) FROM ids)));
SELECT pg_temp.check_step('rows edited', $$UPDATE sectionctl.rows SET title = title || '!' WHERE position % 11000 = 0$$);
SELECT pg_temp.check_step('a section deleted after its rows', format(
    $$DELETE FROM sectionctl.rows WHERE section_id = %1$s; DELETE FROM sectionctl.sections WHERE id = %1$s$$, (SELECT min(id) FROM ids)));
SELECT pg_temp.check_step('sections deleted with their rows', $$DELETE FROM sectionctl.sections WHERE list_id = 1$$);
SELECT pg_temp.check_step('sections edited, the list renamed', format(
    $$UPDATE sectionctl.sections SET title = 'A!', empty_text = 'e' WHERE id = %s;
      UPDATE sectionctl.sections SET position = 5 WHERE id = %s;
      UPDATE sectionctl.lists SET name = 'renamed' WHERE id = 1$$, (SELECT min(id) FROM ids), (SELECT max(id) FROM ids)));

-- Plain SQL marks its list (a new version, journaled as a reload, the undo barrier on it);
-- sectionctl's own writes do not.
DO $$
DECLARE
    v_section bigint := (SELECT min(id) FROM ids);
    v_version bigint;
BEGIN
    PERFORM sectionctl.writer_begin();
    SELECT version INTO v_version FROM sectionctl.lists WHERE id = 1;
    INSERT INTO sectionctl.rows (section_id, position, title) VALUES (v_section, 2500, 'own');
    PERFORM set_config('sectionctl.active', '0', true);
    ASSERT (SELECT version FROM sectionctl.lists WHERE id = 1) = v_version, 'a write of sectionctl''s marked the list';
    UPDATE sectionctl.rows SET title = 'plain' WHERE section_id = v_section AND position = 2500;
    ASSERT (SELECT version = v_version + 1 AND plain_version = version FROM sectionctl.lists WHERE id = 1),
        'a plain-SQL write did not give the list a version of its own';
    ASSERT (SELECT changes FROM sectionctl.journal WHERE list_id = 1 AND version = v_version + 1) = '{"reload":true}',
        'a plain-SQL write was not journaled as a reload';
END $$;
SELECT 'ok: plain SQL marks its list';

-- A deleted list takes its undo history with it, and its name keeps its versions.
DO $$
DECLARE
    v_list bigint;
    v_step bigint;
BEGIN
    INSERT INTO sectionctl.lists (name, version) VALUES ('scratch', 5) RETURNING id INTO v_list;
    PERFORM sectionctl.writer_begin();
    INSERT INTO sectionctl.sections (list_id, position, title) VALUES (v_list, 1, 'S'), (v_list, 2, 'T');
    PERFORM set_config('sectionctl.active', '0', true);
    v_step := sectionctl.writer_begin();
    INSERT INTO sectionctl.rows (section_id, position, title)
    SELECT s.id, g, 't' FROM sectionctl.sections AS s, generate_series(1, 50) AS g WHERE s.list_id = v_list;
    UPDATE sectionctl.rows SET title = 'u' WHERE section_id IN (SELECT id FROM sectionctl.sections WHERE list_id = v_list);
    DELETE FROM sectionctl.lists WHERE id = v_list;
    PERFORM set_config('sectionctl.active', '0', true);
    ASSERT NOT EXISTS (SELECT 1 FROM sectionctl.undo_log WHERE list_id = v_list OR (list_id = -1 AND step = v_step)),
        'the list left undo entries';
    ASSERT pg_temp.problems() = 0, 'counts disagree after the list went';
    -- (Made with plain SQL, the jump is a plain write too: it may add a reload version past it.)
    INSERT INTO sectionctl.lists (name) VALUES ('scratch');
    ASSERT (SELECT version FROM sectionctl.lists WHERE name = 'scratch') > 5, 'a list made under a retired name did not start past it';
    DELETE FROM sectionctl.lists WHERE name = 'scratch';
    INSERT INTO sectionctl.lists (name, version) VALUES ('other', 1);
    UPDATE sectionctl.lists SET name = 'scratch' WHERE name = 'other';
    ASSERT (SELECT version FROM sectionctl.lists WHERE name = 'scratch') > (SELECT last_version FROM sectionctl.retired_lists WHERE name = 'scratch'),
        'a list renamed onto a retired name did not jump past it';
END $$;
SELECT 'ok: deleted lists';

ROLLBACK;
