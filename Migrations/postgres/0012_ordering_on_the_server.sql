-- Every write's ordering on a server, in the server's own functions: the position an inserted or
-- moved item takes (its neighbours found through the rank structure, the midpoint between
-- them, a step past an end, or a block of neighbours spread out) is one call,
-- `position_at_slot`; the rank structure's nodes noted during a write are split and merged by
-- one call before it commits, `rank_settle`. A file does the same in Swift (OrderedTable.swift,
-- RankTree.swift), step for step: a differential test (OrderingTests) puts random neighbours
-- and random workloads through both and compares positions and rank nodes.
--
-- Every number is Migrations/constants.txt's. The functions of 0009 that only the replica push
-- used are replaced or dropped here.

-- The names of one rank space: {nodes, pending notes, owner column, count column, items,
-- owners, an owner and an item in messages}.
CREATE OR REPLACE FUNCTION rank_space_names(p_space text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE p_space
        WHEN 'rows' THEN ARRAY['rank_nodes', 'rank_pending', 'section_id', 'row_count', 'rows', 'sections', 'section', 'row']
        WHEN 'sections' THEN ARRAY['section_rank_nodes', 'section_rank_pending', 'list_id', 'section_count', 'sections', 'lists', 'list', 'section']
    END
$$;

-- The node on `p_level` of `p_owner` whose range holds `p_position`: its first, its count, and
-- the first of the next node (NULL for the last). A level without a node at its start is the
-- database disagreeing with itself (SQLSTATE XX001, which sectionctl reports as inconsistent).
CREATE OR REPLACE FUNCTION rank_node_holding(
    p_space text, p_owner bigint, p_level bigint, p_position bigint, OUT node_first bigint, OUT node_count bigint, OUT node_end bigint
) LANGUAGE plpgsql AS $$
DECLARE
    n text[] := sectionctl.rank_space_names(p_space);
BEGIN
    EXECUTE format('SELECT first, %I FROM sectionctl.%I WHERE %I = $1 AND level = $2 AND first <= $3 ORDER BY first DESC LIMIT 1', n[4], n[1], n[3])
    INTO node_first, node_count USING p_owner, p_level, p_position;
    IF node_first IS NULL THEN
        RAISE EXCEPTION '% #% has no rank node at the start of level %', n[7], p_owner, p_level USING ERRCODE = 'data_corrupted';
    END IF;
    EXECUTE format('SELECT first FROM sectionctl.%I WHERE %I = $1 AND level = $2 AND first > $3 ORDER BY first LIMIT 1', n[1], n[3])
    INTO node_end USING p_owner, p_level, node_first;
END $$;

-- Splits and merges every node noted since the transaction began, oldest owner and lowest node
-- first, as RankTree.settle takes them: the order decides the shape.
CREATE OR REPLACE FUNCTION rank_settle() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_space text;
    n text[];
    v_owner bigint;
    v_first bigint;
    v_exists bigint;
BEGIN
    -- Most writes note nothing: two static lookups, planned once, before any dynamic SQL.
    IF NOT EXISTS (SELECT 1 FROM sectionctl.rank_pending) AND NOT EXISTS (SELECT 1 FROM sectionctl.section_rank_pending) THEN
        RETURN;
    END IF;
    FOREACH v_space IN ARRAY ARRAY['rows', 'sections'] LOOP
        n := sectionctl.rank_space_names(v_space);
        LOOP
            v_owner := NULL;
            EXECUTE format('SELECT %I, first FROM sectionctl.%I ORDER BY %I, first LIMIT 1', n[3], n[2], n[3]) INTO v_owner, v_first;
            EXIT WHEN v_owner IS NULL;
            -- A node someone else's plain SQL noted may belong to another list: lock that list
            -- as a write to it would, before reshaping its structure.
            IF v_space = 'sections' THEN
                PERFORM 1 FROM sectionctl.lists WHERE id = v_owner FOR UPDATE;
            ELSE
                PERFORM 1 FROM sectionctl.lists WHERE id = (SELECT list_id FROM sectionctl.sections WHERE id = v_owner) FOR UPDATE;
            END IF;
            EXECUTE format('DELETE FROM sectionctl.%I WHERE %I = $1 AND first = $2', n[2], n[3]) USING v_owner, v_first;
            EXECUTE format('SELECT count(*) FROM sectionctl.%I WHERE id = $1', n[6]) INTO v_exists USING v_owner;
            CONTINUE WHEN v_exists = 0;
            PERFORM sectionctl.rank_rebalance(v_space, v_owner, v_first, 1);
        END LOOP;
    END LOOP;
END $$;

-- The row walks of 0002 with the number of levels from constants.txt.
CREATE OR REPLACE FUNCTION rank_row_at(p_section bigint, p_index bigint, OUT row_id bigint, OUT row_position bigint)
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

CREATE OR REPLACE FUNCTION rank_index_of(p_section bigint, p_position bigint) RETURNS bigint
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

-- A position between two neighbours (NULL for an end), or NULL when there is no room:
-- OrderedTable.position(between:and:).
CREATE OR REPLACE FUNCTION position_between(p_before bigint, p_after bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_upper bigint := {{position_maximum}}::bigint + 1;
    v_step bigint := {{position_step}};
BEGIN
    IF p_before IS NULL AND p_after IS NULL THEN
        RETURN {{position_first}};
    ELSIF p_after IS NULL THEN
        IF p_before < v_upper - v_step THEN RETURN p_before + v_step; END IF;
        IF v_upper - p_before >= 2 THEN RETURN p_before + (v_upper - p_before) / 2; END IF;
        RETURN NULL;
    ELSIF p_before IS NULL THEN
        IF p_after > v_step THEN RETURN p_after - v_step; END IF;
        IF p_after >= 2 THEN RETURN p_after / 2; END IF;
        RETURN NULL;
    ELSIF p_after - p_before >= 2 THEN
        RETURN p_before + (p_after - p_before) / 2;
    END IF;
    RETURN NULL;
END $$;

-- A position between the items at `p_before` and `p_after` (NULL: an end) of `p_owner`, and how
-- many existing items were rewritten for it: the midpoint or a step past an end; when there is
-- no room, the item `p_moving` waits at the parking position if `p_owner` holds it, and the
-- items of the smallest aligned block of positions around the gap that stays under its density
-- threshold with one more item are spread evenly across it, a place kept just after
-- `p_before`: OrderedTable.position(between:and:of:movingID:in:) and spreadBlock.
CREATE FUNCTION position_place(
    p_space text, p_owner bigint, p_before bigint, p_after bigint, p_moving bigint, OUT new_position bigint, OUT rewritten bigint
) LANGUAGE plpgsql AS $$
DECLARE
    n text[] := sectionctl.rank_space_names(p_space);
    v_anchor bigint := coalesce(p_before, 0);
    v_parked bigint;
    v_level int := 1;
    v_size bigint;
    v_start bigint;
    v_count bigint;
    v_ids bigint[];
    v_positions bigint[];
    v_items int;
    v_slot int;
    v_gap bigint;
    v_to bigint;
BEGIN
    rewritten := 0;
    new_position := sectionctl.position_between(p_before, p_after);
    IF new_position IS NOT NULL THEN
        RETURN;
    END IF;
    IF p_moving IS NOT NULL THEN
        EXECUTE format('UPDATE sectionctl.%I SET position = {{position_parking}} WHERE id = $1 AND %I = $2', n[5], n[3])
        USING p_moving, p_owner;
        GET DIAGNOSTICS v_parked = ROW_COUNT;
        rewritten := v_parked;
    END IF;
    LOOP
        v_size := 1::bigint << v_level;
        v_start := (v_anchor / v_size) * v_size;
        EXECUTE format('SELECT count(*) FROM sectionctl.%I WHERE %I = $1 AND position >= $2 AND position < $3', n[5], n[3])
        INTO v_count USING p_owner, v_start, v_start + v_size;
        EXIT WHEN (v_count + 1)::float8 <= v_size::float8 / power({{spread_density_growth}}::float8, v_level::float8)
            OR v_level >= {{spread_top_level}};
        v_level := v_level + 1;
    END LOOP;
    EXECUTE format('SELECT array_agg(id ORDER BY position), array_agg(position ORDER BY position) FROM sectionctl.%I WHERE %I = $1 AND position >= $2 AND position < $3', n[5], n[3])
    INTO v_ids, v_positions USING p_owner, v_start, v_start + v_size;
    v_items := coalesce(array_length(v_ids, 1), 0);
    v_slot := v_items;
    FOR i IN 1..v_items LOOP
        IF v_positions[i] > v_anchor THEN
            v_slot := i - 1;
            EXIT;
        END IF;
    END LOOP;
    v_gap := v_size / (v_items + 2);
    -- Under UNIQUE (owner, position): items moving down first, lowest first; then those moving
    -- up, highest first. Neither order lands on a position still taken.
    FOR i IN 1..v_items LOOP
        v_to := v_start + (CASE WHEN i - 1 < v_slot THEN i ELSE i + 1 END) * v_gap;
        IF v_to < v_positions[i] THEN
            EXECUTE format('UPDATE sectionctl.%I SET position = $1 WHERE id = $2', n[5]) USING v_to, v_ids[i];
            rewritten := rewritten + 1;
        END IF;
    END LOOP;
    FOR i IN REVERSE v_items..1 LOOP
        v_to := v_start + (CASE WHEN i - 1 < v_slot THEN i ELSE i + 1 END) * v_gap;
        IF v_to > v_positions[i] THEN
            EXECUTE format('UPDATE sectionctl.%I SET position = $1 WHERE id = $2', n[5]) USING v_to, v_ids[i];
            rewritten := rewritten + 1;
        END IF;
    END LOOP;
    new_position := v_start + (v_slot + 1) * v_gap;
END $$;

-- The item at 0-based `p_index` of `p_owner`'s `p_stored` items, through the rank structure; an
-- index under the count that finds none is the database disagreeing with itself.
CREATE FUNCTION rank_item_at(p_space text, p_owner bigint, p_index bigint, p_stored bigint, OUT item_id bigint, OUT item_position bigint)
LANGUAGE plpgsql STABLE AS $$
DECLARE
    n text[] := sectionctl.rank_space_names(p_space);
BEGIN
    IF p_space = 'rows' THEN
        SELECT w.row_id, w.row_position INTO item_id, item_position FROM sectionctl.rank_row_at(p_owner, p_index) AS w;
    ELSE
        SELECT w.section_id, w.section_position INTO item_id, item_position FROM sectionctl.section_rank_at(p_owner, p_index) AS w;
    END IF;
    IF item_id IS NULL THEN
        RAISE EXCEPTION '% #% counts % %s, but none is at index %', n[7], p_owner, p_stored, n[8], p_index USING ERRCODE = 'data_corrupted';
    END IF;
END $$;

-- The position for an item that is to be at `p_slot` (0…p_count) among the `p_count` items of
-- `p_owner`, not counting `p_moving` (NULL: an insert), and how many items were rewritten for
-- it: OrderedTable.positionForSlot. The neighbours are the item before the slot by rank
-- (skipping the moving one) and the next by position. `p_moving_index` is the moving item's
-- index among `p_owner`'s items when the caller knows it is one of them (NULL: looked up).
CREATE FUNCTION position_at_slot(
    p_space text, p_owner bigint, p_slot bigint, p_count bigint, p_moving bigint, p_moving_index bigint,
    OUT new_position bigint, OUT rewritten bigint
) LANGUAGE plpgsql AS $$
DECLARE
    n text[] := sectionctl.rank_space_names(p_space);
    v_excluded bigint := p_moving_index;
    v_current bigint;
    v_stored bigint;
    v_before bigint;
    v_after bigint;
    v_index bigint;
BEGIN
    IF p_count > 0 THEN
        IF v_excluded IS NULL AND p_moving IS NOT NULL THEN
            EXECUTE format('SELECT position FROM sectionctl.%I WHERE id = $1 AND %I = $2', n[5], n[3]) INTO v_current USING p_moving, p_owner;
            IF v_current IS NOT NULL THEN
                v_excluded := CASE WHEN p_space = 'rows' THEN sectionctl.rank_index_of(p_owner, v_current)
                                   ELSE sectionctl.section_rank_index_of(p_owner, v_current) END;
            END IF;
        END IF;
        v_stored := p_count + CASE WHEN v_excluded IS NULL THEN 0 ELSE 1 END;
        IF p_slot = 0 THEN
            v_index := CASE WHEN v_excluded IS NULL OR 0 < v_excluded THEN 0 ELSE 1 END;
            SELECT item_position INTO v_after FROM sectionctl.rank_item_at(p_space, p_owner, v_index, v_stored);
        ELSE
            v_index := CASE WHEN v_excluded IS NULL OR p_slot - 1 < v_excluded THEN p_slot - 1 ELSE p_slot END;
            SELECT item_position INTO v_before FROM sectionctl.rank_item_at(p_space, p_owner, v_index, v_stored);
            IF p_slot < p_count THEN
                EXECUTE format('SELECT position FROM sectionctl.%I WHERE %I = $1 AND position > $2 AND id <> $3 ORDER BY position LIMIT 1', n[5], n[3])
                INTO v_after USING p_owner, v_before, coalesce(p_moving, 0);
            END IF;
        END IF;
    END IF;
    SELECT p.new_position, p.rewritten INTO new_position, rewritten
    FROM sectionctl.position_place(p_space, p_owner, v_before, v_after, p_moving) AS p;
END $$;

DROP FUNCTION place_item(text, bigint, bigint, bigint, boolean);
DROP FUNCTION position_spread(text, bigint, bigint);
