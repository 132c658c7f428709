-- An import's rows, appended in bulk, with their bookkeeping done per statement in one pass, as a
-- file's `finishBulkAppend` does (Sources/Repository/Engine/SQLite/SQLiteEngine+BulkAppend.swift).
--
-- While sectionctl appends (its writer mark on, and the transaction's setting `sectionctl.bulk`
-- holding the highest section id from before the append), every row inserted comes after every
-- other row of its section: its section's count and the last rank node of each level take it,
-- and a level-1 node past its bound is noted for settling, without placing each row among the
-- nodes. Rows appended to a section appended in the same step (an id above the setting) get no
-- undo entry of their own: undoing the section's insert empties it first (SectionStore.reverse),
-- so an import into a new list logs its sections only. Plain SQL, and sectionctl's other
-- writes, take the same path as before.
CREATE OR REPLACE FUNCTION rows_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
    v_sections bigint[];
    v_positions bigint[];
    v_lists jsonb;
    v_active boolean := coalesce(current_setting('sectionctl.active', true), '') = '1';
    v_bulk text := coalesce(current_setting('sectionctl.bulk', true), '');
BEGIN
    IF v_active AND v_bulk <> '' THEN
        WITH added AS (SELECT section_id, count(*) AS n FROM new_rows GROUP BY section_id)
        UPDATE sectionctl.sections AS s SET row_count = s.row_count + a.n FROM added AS a WHERE s.id = a.section_id;
        WITH added AS (SELECT section_id, count(*) AS n FROM new_rows GROUP BY section_id)
        UPDATE sectionctl.rank_nodes AS r SET row_count = r.row_count + a.n FROM added AS a
        WHERE r.section_id = a.section_id AND r.first = (
            SELECT max(m.first) FROM sectionctl.rank_nodes AS m WHERE m.section_id = a.section_id AND m.level = r.level);
        INSERT INTO sectionctl.rank_pending (section_id, first)
        SELECT n.section_id, n.first FROM sectionctl.rank_nodes AS n
        WHERE n.level = 1 AND n.row_count > {{rank_maximum_children}}
            AND n.section_id IN (SELECT DISTINCT section_id FROM new_rows)
            AND n.first = (SELECT max(m.first) FROM sectionctl.rank_nodes AS m WHERE m.section_id = n.section_id AND m.level = 1)
        ON CONFLICT DO NOTHING;
        INSERT INTO sectionctl.undo_log (step, list_id, action, target, item_id)
        SELECT current_setting('sectionctl.step')::bigint, (SELECT list_id FROM sectionctl.sections WHERE id = r.section_id),
            'insert', 'row', r.id
        FROM (SELECT row_number() OVER () AS ord, id, section_id FROM new_rows) AS r
        WHERE r.section_id <= v_bulk::bigint
        ORDER BY r.ord;
        RETURN NULL;
    END IF;
    SELECT array_agg(section_id), array_agg(position) INTO v_sections, v_positions FROM new_rows;
    IF v_sections IS NULL THEN
        RETURN NULL;
    END IF;
    PERFORM sectionctl.count_rows(v_sections, v_positions, array_fill(1::bigint, ARRAY[cardinality(v_sections)]));
    IF v_active THEN
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
