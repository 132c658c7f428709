-- Rank for sections, as Migrations/0006_section_rank.sql gives a file: the counted B-tree of
-- rank_nodes, over the positions of a list's sections, so that the section at an index and the
-- index of a section cost O(log s). The triggers keep the counts (per row: sections are written
-- one by one, where rows come in statements of many), note a level-1 node out of bounds in
-- section_rank_pending, and sectionctl settles the shape before each commit.

CREATE TABLE section_rank_nodes (
    list_id       bigint NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    level         bigint NOT NULL CHECK (level BETWEEN 1 AND {{rank_levels}}),
    first         bigint NOT NULL,
    section_count bigint NOT NULL DEFAULT 0 CHECK (section_count >= 0),
    PRIMARY KEY (list_id, level, first)
);

CREATE TABLE section_rank_pending (
    list_id bigint NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    first   bigint NOT NULL,
    PRIMARY KEY (list_id, first)
);

-- The balanced layout of a list's nodes, as rank_layout gives a section's.
CREATE VIEW section_rank_layout AS
WITH numbered AS (
    SELECT list_id, position, row_number() OVER (PARTITION BY list_id ORDER BY position) - 1 AS section_index
    FROM sections
),
spans (level, span) AS (SELECT v.level::bigint, v.span::bigint FROM (VALUES {{rank_spans}}) AS v (level, span))
SELECT n.list_id, s.level,
       CASE WHEN min(n.section_index) < s.span THEN (-9223372036854775807 - 1) ELSE min(n.position) END AS first,
       count(*) AS section_count
FROM numbered AS n, spans AS s
GROUP BY n.list_id, s.level, s.span, n.section_index / s.span;

-- Adds `p_delta` to the node holding `p_position` on every level of list `p_list`, and notes the
-- level-1 node when it leaves its bounds (the first node of a list is never merged away).
CREATE FUNCTION section_rank_count(p_list bigint, p_position bigint, p_delta bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    v_first bigint;
    v_count bigint;
BEGIN
    FOR lvl IN 1..{{rank_levels}} LOOP
        UPDATE sectionctl.section_rank_nodes SET section_count = section_count + p_delta
        WHERE list_id = p_list AND level = lvl AND first =
            (SELECT m.first FROM sectionctl.section_rank_nodes AS m
             WHERE m.list_id = p_list AND m.level = lvl AND m.first <= p_position ORDER BY m.first DESC LIMIT 1)
        RETURNING first, section_count INTO v_first, v_count;
        IF lvl = 1 AND FOUND AND EXISTS (SELECT 1 FROM sectionctl.lists WHERE id = p_list) AND ((p_delta > 0 AND v_count > {{rank_maximum_children}})
                                  OR (p_delta < 0 AND v_count < {{rank_minimum_children}} AND v_first > (-9223372036854775807 - 1))) THEN
            INSERT INTO sectionctl.section_rank_pending (list_id, first) VALUES (p_list, v_first) ON CONFLICT DO NOTHING;
        END IF;
    END LOOP;
END $$;

CREATE FUNCTION section_rank_list_inserted() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    INSERT INTO sectionctl.section_rank_nodes (list_id, level, first)
    SELECT NEW.id, l, (-9223372036854775807 - 1) FROM generate_series(1, {{rank_levels}}) AS l;
    RETURN NULL;
END $$;

-- A section deleted with its list finds the list's nodes gone (the cascade took them).
CREATE FUNCTION section_rank_changed() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    IF TG_OP IN ('DELETE', 'UPDATE') THEN
        PERFORM sectionctl.section_rank_count(OLD.list_id, OLD.position, -1);
    END IF;
    IF TG_OP IN ('INSERT', 'UPDATE') THEN
        PERFORM sectionctl.section_rank_count(NEW.list_id, NEW.position, 1);
    END IF;
    RETURN NULL;
END $$;

CREATE TRIGGER section_rank_list_insert AFTER INSERT ON lists
FOR EACH ROW EXECUTE FUNCTION section_rank_list_inserted();
CREATE TRIGGER section_rank_insert AFTER INSERT ON sections
FOR EACH ROW EXECUTE FUNCTION section_rank_changed();
CREATE TRIGGER section_rank_delete AFTER DELETE ON sections
FOR EACH ROW EXECUTE FUNCTION section_rank_changed();
CREATE TRIGGER section_rank_move AFTER UPDATE OF list_id, position ON sections
FOR EACH ROW WHEN (OLD.list_id <> NEW.list_id OR OLD.position <> NEW.position)
EXECUTE FUNCTION section_rank_changed();

-- The walks, as rank_row_at and rank_index_of make them for rows: one round trip each.

-- The id and position of the section at 0-based `p_index` of list `p_list` (NULLs past the end).
CREATE FUNCTION section_rank_at(p_list bigint, p_index bigint, OUT section_id bigint, OUT section_position bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    low bigint := -9223372036854775807 - 1;
    high bigint := 9223372036854775807;
    remaining bigint := p_index;
    found boolean;
    node record;
BEGIN
    IF p_index < 0 THEN
        RETURN;
    END IF;
    FOR lvl IN REVERSE {{rank_levels}}..1 LOOP
        found := false;
        FOR node IN
            SELECT first, section_count FROM sectionctl.section_rank_nodes
            WHERE list_id = p_list AND level = lvl AND first >= low AND first < high ORDER BY first
        LOOP
            IF found THEN
                high := node.first;  -- the next node ends the one found
                EXIT;
            END IF;
            IF remaining < node.section_count THEN
                low := node.first;
                found := true;
            ELSE
                remaining := remaining - node.section_count;
            END IF;
        END LOOP;
        IF NOT found THEN
            RETURN;
        END IF;
    END LOOP;
    SELECT s.id, s.position INTO section_id, section_position FROM sectionctl.sections AS s
    WHERE s.list_id = p_list AND s.position >= low AND s.position < high
    ORDER BY s.position LIMIT 1 OFFSET remaining;
END $$;

-- How many sections of list `p_list` come before `p_position`: the index of the section there.
CREATE FUNCTION section_rank_index_of(p_list bigint, p_position bigint) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
    low bigint := -9223372036854775807 - 1;
    total bigint := 0;
    last_count bigint;
    node record;
BEGIN
    FOR lvl IN REVERSE {{rank_levels}}..1 LOOP
        last_count := 0;
        FOR node IN
            SELECT first, section_count FROM sectionctl.section_rank_nodes
            WHERE list_id = p_list AND level = lvl AND first >= low AND first <= p_position ORDER BY first
        LOOP
            total := total + last_count;
            low := node.first;
            last_count := node.section_count;
        END LOOP;
    END LOOP;
    RETURN total + (SELECT count(*) FROM sectionctl.sections
                    WHERE list_id = p_list AND position >= low AND position < p_position);
END $$;

-- Build the structure for the lists and sections already there.
INSERT INTO section_rank_nodes (list_id, level, first)
SELECT l.id, v.level, (-9223372036854775807 - 1) FROM lists AS l, generate_series(1, {{rank_levels}}) AS v (level);

INSERT INTO section_rank_nodes (list_id, level, first, section_count)
SELECT list_id, level, first, section_count FROM section_rank_layout
ON CONFLICT (list_id, level, first) DO UPDATE SET section_count = excluded.section_count;
