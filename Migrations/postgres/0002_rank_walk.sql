-- The rank structure's two walks as functions on the server, so that each is one round trip
-- instead of one query per level: the same walks `RankTree.row(at:)` and
-- `RankTree.index(ofPosition:)` make on SQLite, where a query costs no network.

-- The id and position of the row at 0-based `p_index` of section `p_section` (NULLs past the end).
CREATE FUNCTION rank_row_at(p_section bigint, p_index bigint, OUT row_id bigint, OUT row_position bigint)
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
    FOR lvl IN REVERSE 4..1 LOOP
        found := false;
        FOR node IN
            SELECT first, row_count FROM sectionctl.rank_nodes
            WHERE section_id = p_section AND level = lvl AND first >= low AND first < high ORDER BY first
        LOOP
            IF found THEN
                high := node.first;  -- the next node ends the one found
                EXIT;
            END IF;
            IF remaining < node.row_count THEN
                low := node.first;
                found := true;
            ELSE
                remaining := remaining - node.row_count;
            END IF;
        END LOOP;
        IF NOT found THEN
            RETURN;
        END IF;
    END LOOP;
    SELECT r.id, r.position INTO row_id, row_position FROM sectionctl.rows AS r
    WHERE r.section_id = p_section AND r.position >= low AND r.position < high
    ORDER BY r.position LIMIT 1 OFFSET remaining;
END $$;

-- How many rows of section `p_section` come before `p_position`: the index of the row there.
CREATE FUNCTION rank_index_of(p_section bigint, p_position bigint) RETURNS bigint
LANGUAGE plpgsql STABLE AS $$
DECLARE
    low bigint := -9223372036854775807 - 1;
    total bigint := 0;
    last_count bigint;
    node record;
BEGIN
    FOR lvl IN REVERSE 4..1 LOOP
        -- The children of the node found a level up, up to the one holding the position: all
        -- but the last come before it.
        last_count := 0;
        FOR node IN
            SELECT first, row_count FROM sectionctl.rank_nodes
            WHERE section_id = p_section AND level = lvl AND first >= low AND first <= p_position ORDER BY first
        LOOP
            total := total + last_count;
            low := node.first;
            last_count := node.row_count;
        END LOOP;
    END LOOP;
    RETURN total + (SELECT count(*) FROM sectionctl.rows
                    WHERE section_id = p_section AND position >= low AND position < p_position);
END $$;
