-- A replica's push as one statement (docs/replicas.md, "Round trips"). The replica pulls first,
-- replays its pending intents over the server's state by the rebase rules, and then sends where
-- every item those intents touched stands now: its section and the item before it, its content,
-- or that it is gone. `replica_push` writes that in one transaction, only if the list is still at
-- the version the replica pulled and nobody pushed for the replica meanwhile; otherwise it writes
-- nothing and says so, and the replica pulls again (or, after a few tries, pushes its intents for
-- the server to resolve one by one).
--
-- The writes are the ones sectionctl's own edits make, here so that none costs a round trip:
-- a position between the new neighbours (OrderedTable.swift: the midpoint, a step of 2^32 past
-- an end, or a block of neighbours spread out), the rank structure settled before the commit
-- (RankTree.settle), the commit's bookkeeping (`commit_change`), the sequence recorded in
-- `replica_pushes`, and new ids when asked for. The Swift code stays the one the conformance
-- suite runs on both engines; these functions follow it step for step, and the replica tests
-- check their result (ranks, positions, `check`) on a server.

-- The names of one rank space: {nodes, pending notes, owner column, count column, items, owners}.
CREATE FUNCTION rank_space_names(p_space text) RETURNS text[] LANGUAGE sql IMMUTABLE AS $$
    SELECT CASE p_space
        WHEN 'rows' THEN ARRAY['rank_nodes', 'rank_pending', 'section_id', 'row_count', 'rows', 'sections']
        WHEN 'sections' THEN ARRAY['section_rank_nodes', 'section_rank_pending', 'list_id', 'section_count', 'sections', 'lists']
    END
$$;

-- The node on `p_level` of `p_owner` whose range holds `p_position`: its first, its count, and
-- the first of the next node (NULL for the last).
CREATE FUNCTION rank_node_holding(
    p_space text, p_owner bigint, p_level bigint, p_position bigint, OUT node_first bigint, OUT node_count bigint, OUT node_end bigint
) LANGUAGE plpgsql AS $$
DECLARE
    n text[] := sectionctl.rank_space_names(p_space);
BEGIN
    EXECUTE format('SELECT first, %I FROM sectionctl.%I WHERE %I = $1 AND level = $2 AND first <= $3 ORDER BY first DESC LIMIT 1', n[4], n[1], n[3])
    INTO node_first, node_count USING p_owner, p_level, p_position;
    IF node_first IS NULL THEN
        RAISE EXCEPTION '% #% has no rank node at the start of level %', n[6], p_owner, p_level USING ERRCODE = 'data_corrupted';
    END IF;
    EXECUTE format('SELECT first FROM sectionctl.%I WHERE %I = $1 AND level = $2 AND first > $3 ORDER BY first LIMIT 1', n[1], n[3])
    INTO node_end USING p_owner, p_level, node_first;
END $$;

-- How many children a node has: items on level 1, nodes of the level below otherwise.
CREATE FUNCTION rank_child_count(p_space text, p_owner bigint, p_level bigint, p_first bigint, p_count bigint, p_end bigint)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n text[] := sectionctl.rank_space_names(p_space);
    v_children bigint;
BEGIN
    IF p_level = 1 THEN
        RETURN p_count;
    END IF;
    EXECUTE format('SELECT count(*) FROM sectionctl.%I WHERE %I = $1 AND level = $2 AND first >= $3 AND first < $4', n[1], n[3])
    INTO v_children USING p_owner, p_level - 1, p_first, coalesce(p_end, 9223372036854775807);
    RETURN v_children;
END $$;

-- Cuts a node into pieces of rank_fanout children (a remainder under rank_minimum_children stays
-- with the piece before it): RankTree.split.
CREATE FUNCTION rank_split(p_space text, p_owner bigint, p_level bigint, p_first bigint, p_end bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    n text[] := sectionctl.rank_space_names(p_space);
    v_end bigint := coalesce(p_end, 9223372036854775807);
    v_firsts bigint[] := '{}';
    v_items bigint[] := '{}';
    v_children bigint := 0;
    v_pieces int;
    child record;
BEGIN
    FOR child IN EXECUTE CASE WHEN p_level = 1
        THEN format('SELECT position AS first, 1::bigint AS items FROM sectionctl.%I WHERE %I = $1 AND position >= $3 AND position < $4 AND $2 = 1 ORDER BY position', n[5], n[3])
        ELSE format('SELECT first, %I AS items FROM sectionctl.%I WHERE %I = $1 AND level = $2 - 1 AND first >= $3 AND first < $4 ORDER BY first', n[4], n[1], n[3])
        END USING p_owner, p_level, p_first, v_end
    LOOP
        IF v_children % {{rank_fanout}} = 0 THEN
            v_firsts := v_firsts || child.first;
            v_items := v_items || 0::bigint;
        END IF;
        v_items[array_length(v_items, 1)] := v_items[array_length(v_items, 1)] + child.items;
        v_children := v_children + 1;
    END LOOP;
    v_pieces := coalesce(array_length(v_firsts, 1), 0);
    IF v_pieces = 0 THEN
        RETURN;
    END IF;
    IF v_pieces > 1 AND v_children - (v_pieces - 1) * {{rank_fanout}} < {{rank_minimum_children}} THEN
        v_items[v_pieces - 1] := v_items[v_pieces - 1] + v_items[v_pieces];
        v_pieces := v_pieces - 1;
    END IF;
    FOR i IN 2..v_pieces LOOP
        EXECUTE format('INSERT INTO sectionctl.%I (%I, level, first, %I) VALUES ($1, $2, $3, $4)', n[1], n[3], n[4])
        USING p_owner, p_level, v_firsts[i], v_items[i];
    END LOOP;
    EXECUTE format('UPDATE sectionctl.%I SET %I = $1 WHERE %I = $2 AND level = $3 AND first = $4', n[1], n[4], n[3])
    USING v_items[1], p_owner, p_level, p_first;
END $$;

-- Splits or merges the node on `p_level` holding `p_position` when its child count is out of
-- bounds, then does the same a level up: RankTree.rebalance.
CREATE FUNCTION rank_rebalance(p_space text, p_owner bigint, p_position bigint, p_level bigint)
RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    n text[] := sectionctl.rank_space_names(p_space);
    node record;
    parent record;
    other record;
    v_size bigint;
    v_parent_first bigint := -9223372036854775807 - 1;
    v_parent_end bigint;
BEGIN
    SELECT * INTO node FROM sectionctl.rank_node_holding(p_space, p_owner, p_level, p_position);
    v_size := sectionctl.rank_child_count(p_space, p_owner, p_level, node.node_first, node.node_count, node.node_end);
    IF v_size > {{rank_maximum_children}} THEN
        PERFORM sectionctl.rank_split(p_space, p_owner, p_level, node.node_first, node.node_end);
    ELSIF v_size < {{rank_minimum_children}} THEN
        -- Merge with a neighbour under the same parent: into the one before, unless this node
        -- starts its parent, then the one after into it.
        IF p_level < {{rank_levels}} THEN
            SELECT * INTO parent FROM sectionctl.rank_node_holding(p_space, p_owner, p_level + 1, node.node_first);
            v_parent_first := parent.node_first;
            v_parent_end := parent.node_end;
        END IF;
        IF node.node_first <> v_parent_first THEN
            SELECT * INTO other FROM sectionctl.rank_node_holding(p_space, p_owner, p_level, node.node_first - 1);
            EXECUTE format('DELETE FROM sectionctl.%I WHERE %I = $1 AND level = $2 AND first = $3', n[1], n[3])
            USING p_owner, p_level, node.node_first;
            EXECUTE format('UPDATE sectionctl.%I SET %I = %I + $1 WHERE %I = $2 AND level = $3 AND first = $4', n[1], n[4], n[4], n[3])
            USING node.node_count, p_owner, p_level, other.node_first;
            SELECT * INTO node FROM sectionctl.rank_node_holding(p_space, p_owner, p_level, other.node_first);
        ELSIF node.node_end IS NOT NULL AND node.node_end < coalesce(v_parent_end, 9223372036854775807) THEN
            SELECT * INTO other FROM sectionctl.rank_node_holding(p_space, p_owner, p_level, node.node_end);
            EXECUTE format('DELETE FROM sectionctl.%I WHERE %I = $1 AND level = $2 AND first = $3', n[1], n[3])
            USING p_owner, p_level, other.node_first;
            EXECUTE format('UPDATE sectionctl.%I SET %I = %I + $1 WHERE %I = $2 AND level = $3 AND first = $4', n[1], n[4], n[4], n[3])
            USING other.node_count, p_owner, p_level, node.node_first;
            SELECT * INTO node FROM sectionctl.rank_node_holding(p_space, p_owner, p_level, node.node_first);
        ELSE
            RETURN;  -- the only child: its parent is small too, and is balanced from its own side
        END IF;
        IF sectionctl.rank_child_count(p_space, p_owner, p_level, node.node_first, node.node_count, node.node_end) > {{rank_maximum_children}} THEN
            PERFORM sectionctl.rank_split(p_space, p_owner, p_level, node.node_first, node.node_end);
        END IF;
    ELSE
        RETURN;
    END IF;
    IF p_level < {{rank_levels}} THEN
        PERFORM sectionctl.rank_rebalance(p_space, p_owner, node.node_first, p_level + 1);
    END IF;
END $$;

-- Splits and merges every node noted since the transaction began: RankTree.settle.
CREATE FUNCTION rank_settle() RETURNS void LANGUAGE plpgsql AS $$
DECLARE
    v_space text;
    n text[];
    v_owner bigint;
    v_first bigint;
    v_exists bigint;
BEGIN
    FOREACH v_space IN ARRAY ARRAY['rows', 'sections'] LOOP
        n := sectionctl.rank_space_names(v_space);
        LOOP
            v_owner := NULL;
            EXECUTE format('SELECT %I, first FROM sectionctl.%I LIMIT 1', n[3], n[2]) INTO v_owner, v_first;
            EXIT WHEN v_owner IS NULL;
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

-- A position between two neighbours (NULL for an end), or NULL when there is no room:
-- OrderedTable.position(between:and:).
CREATE FUNCTION position_between(p_before bigint, p_after bigint) RETURNS bigint LANGUAGE plpgsql IMMUTABLE AS $$
DECLARE
    v_upper bigint := {{position_maximum}}::bigint + 1;
    v_step bigint := 4294967296;
BEGIN
    IF p_before IS NULL AND p_after IS NULL THEN
        RETURN 2305843009213693952;
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

-- Spreads the items of the smallest aligned block of positions around `p_anchor` that stays
-- under its density threshold with one more item, keeping a place just after `p_anchor` (0:
-- before every item), and returns that place: OrderedTable.spreadBlock.
CREATE FUNCTION position_spread(p_space text, p_owner bigint, p_anchor bigint) RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n text[] := sectionctl.rank_space_names(p_space);
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
    LOOP
        v_size := 1::bigint << v_level;
        v_start := (p_anchor / v_size) * v_size;
        EXECUTE format('SELECT count(*) FROM sectionctl.%I WHERE %I = $1 AND position >= $2 AND position < $3', n[5], n[3])
        INTO v_count USING p_owner, v_start, v_start + v_size;
        EXIT WHEN (v_count + 1)::float8 <= v_size::float8 / power(1.5::float8, v_level) OR v_level >= 62;
        v_level := v_level + 1;
    END LOOP;
    EXECUTE format('SELECT array_agg(id ORDER BY position), array_agg(position ORDER BY position) FROM sectionctl.%I WHERE %I = $1 AND position >= $2 AND position < $3', n[5], n[3])
    INTO v_ids, v_positions USING p_owner, v_start, v_start + v_size;
    v_items := coalesce(array_length(v_ids, 1), 0);
    v_slot := v_items;
    FOR i IN 1..v_items LOOP
        IF v_positions[i] > p_anchor THEN
            v_slot := i - 1;
            EXIT;
        END IF;
    END LOOP;
    v_gap := v_size / (v_items + 2);
    -- Items moving down first, lowest first; then those moving up, highest first: neither order
    -- lands on a position still taken.
    FOR i IN 1..v_items LOOP
        v_to := v_start + (CASE WHEN i - 1 < v_slot THEN i ELSE i + 1 END) * v_gap;
        IF v_to < v_positions[i] THEN
            EXECUTE format('UPDATE sectionctl.%I SET position = $1 WHERE id = $2', n[5]) USING v_to, v_ids[i];
        END IF;
    END LOOP;
    FOR i IN REVERSE v_items..1 LOOP
        v_to := v_start + (CASE WHEN i - 1 < v_slot THEN i ELSE i + 1 END) * v_gap;
        IF v_to > v_positions[i] THEN
            EXECUTE format('UPDATE sectionctl.%I SET position = $1 WHERE id = $2', n[5]) USING v_to, v_ids[i];
        END IF;
    END LOOP;
    RETURN v_start + (v_slot + 1) * v_gap;
END $$;

-- Puts item `p_id` of `p_owner` (a section of a list, a row of a section) just after the item
-- `p_predecessor` there (NULL: first), inserting it when `p_insert`; returns its position. An
-- item already there is left where it is.
CREATE FUNCTION place_item(p_space text, p_owner bigint, p_id bigint, p_predecessor bigint, p_insert boolean)
RETURNS bigint LANGUAGE plpgsql AS $$
DECLARE
    n text[] := sectionctl.rank_space_names(p_space);
    v_before bigint;
    v_after bigint;
    v_current bigint;
    v_position bigint;
BEGIN
    IF p_predecessor IS NOT NULL THEN
        EXECUTE format('SELECT position FROM sectionctl.%I WHERE id = $1 AND %I = $2', n[5], n[3]) INTO v_before USING p_predecessor, p_owner;
        IF v_before IS NULL THEN
            RAISE EXCEPTION 'the % before #% is not where the replica has it', n[5], p_id USING ERRCODE = 'SCR01';
        END IF;
    END IF;
    EXECUTE format('SELECT position FROM sectionctl.%I WHERE %I = $1 AND position > $2 AND id <> $3 ORDER BY position LIMIT 1', n[5], n[3])
    INTO v_after USING p_owner, coalesce(v_before, 0), p_id;
    IF NOT p_insert THEN
        EXECUTE format('SELECT position FROM sectionctl.%I WHERE id = $1 AND %I = $2', n[5], n[3]) INTO v_current USING p_id, p_owner;
        IF v_current > coalesce(v_before, 0) AND (v_after IS NULL OR v_current < v_after) THEN
            RETURN v_current;
        END IF;
    END IF;
    v_position := sectionctl.position_between(v_before, v_after);
    IF v_position IS NULL THEN
        IF v_current IS NOT NULL THEN
            EXECUTE format('UPDATE sectionctl.%I SET position = {{position_parking}} WHERE id = $1', n[5]) USING p_id;
        END IF;
        v_position := sectionctl.position_spread(p_space, p_owner, coalesce(v_before, 0));
    END IF;
    RETURN v_position;
END $$;

-- A replica's push (see the top). `p_push` holds: list, version (the list's version the replica
-- pulled), replica, acknowledged (the sequence the replica read as recorded), sequence and
-- intent (its last intent, recorded), changes (the changeset to journal; absent when nothing
-- changed), sections [{id, after, title, empty_text}, …] and rows [{id, section, after, kind,
-- title, value}, …] in the order they end up (`after`: the item before it, absent for the
-- first), gone_sections and gone_rows (ids), want_rows and want_sections (how many new ids).
-- Returns {"applied": true, "version", "row_ids", "section_ids"}, or {"applied": false,
-- "version"} (version NULL: the list is gone) with nothing written.
CREATE FUNCTION replica_push(p_push jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
DECLARE
    v_list bigint := (p_push->>'list')::bigint;
    v_version bigint;
    v_recorded bigint;
    v_new boolean;
    v_position bigint;
    v_row_ids bigint[];
    v_section_ids bigint[];
    v_written bigint := 0;
    v_count bigint;
    e jsonb;
BEGIN
    SELECT version INTO v_version FROM sectionctl.lists WHERE id = v_list FOR UPDATE;
    IF NOT FOUND THEN
        RETURN jsonb_build_object('applied', false, 'version', NULL);
    END IF;
    SELECT last_sequence INTO v_recorded FROM sectionctl.replica_pushes WHERE replica = p_push->>'replica';
    IF v_version <> (p_push->>'version')::bigint OR coalesce(v_recorded, 0) <> (p_push->>'acknowledged')::bigint THEN
        RETURN jsonb_build_object('applied', false, 'version', v_version);
    END IF;
    BEGIN
        PERFORM sectionctl.writer_begin();
        FOR e IN SELECT value FROM jsonb_array_elements(p_push->'sections') LOOP
            v_new := NOT EXISTS (SELECT 1 FROM sectionctl.sections WHERE id = (e->>'id')::bigint);
            v_position := sectionctl.place_item('sections', v_list, (e->>'id')::bigint, (e->>'after')::bigint, v_new);
            IF v_new THEN
                INSERT INTO sectionctl.sections (id, list_id, position, title, empty_text)
                VALUES ((e->>'id')::bigint, v_list, v_position, e->>'title', e->>'empty_text');
                v_written := v_written + 1;
            ELSE
                UPDATE sectionctl.sections SET position = v_position, title = e->>'title', empty_text = e->>'empty_text'
                WHERE id = (e->>'id')::bigint AND list_id = v_list
                AND (position, title, empty_text) IS DISTINCT FROM (v_position, e->>'title', e->>'empty_text');
                GET DIAGNOSTICS v_count = ROW_COUNT;
                v_written := v_written + v_count;
            END IF;
        END LOOP;
        FOR e IN SELECT value FROM jsonb_array_elements(p_push->'rows') LOOP
            v_new := NOT EXISTS (SELECT 1 FROM sectionctl.rows WHERE id = (e->>'id')::bigint);
            IF NOT v_new AND NOT EXISTS (SELECT 1 FROM sectionctl.rows AS r JOIN sectionctl.sections AS s ON s.id = r.section_id
                                         WHERE r.id = (e->>'id')::bigint AND s.list_id = v_list) THEN
                RAISE EXCEPTION 'row #% is not in the list', e->>'id' USING ERRCODE = 'SCR01';
            END IF;
            IF NOT EXISTS (SELECT 1 FROM sectionctl.sections WHERE id = (e->>'section')::bigint AND list_id = v_list) THEN
                RAISE EXCEPTION 'section #% is not in the list', e->>'section' USING ERRCODE = 'SCR01';
            END IF;
            v_position := sectionctl.place_item('rows', (e->>'section')::bigint, (e->>'id')::bigint, (e->>'after')::bigint, v_new);
            IF v_new THEN
                INSERT INTO sectionctl.rows (id, section_id, position, kind, title, value)
                VALUES ((e->>'id')::bigint, (e->>'section')::bigint, v_position, e->>'kind', e->>'title', e->>'value');
                v_written := v_written + 1;
            ELSE
                UPDATE sectionctl.rows
                SET section_id = (e->>'section')::bigint, position = v_position, kind = e->>'kind', title = e->>'title', value = e->>'value'
                WHERE id = (e->>'id')::bigint
                AND (section_id, position, kind, title, value)
                    IS DISTINCT FROM ((e->>'section')::bigint, v_position, e->>'kind', e->>'title', e->>'value');
                GET DIAGNOSTICS v_count = ROW_COUNT;
                v_written := v_written + v_count;
            END IF;
        END LOOP;
        DELETE FROM sectionctl.rows WHERE id IN (SELECT jsonb_array_elements_text(p_push->'gone_rows')::bigint)
        AND section_id IN (SELECT id FROM sectionctl.sections WHERE list_id = v_list);
        GET DIAGNOSTICS v_count = ROW_COUNT;
        v_written := v_written + v_count;
        DELETE FROM sectionctl.sections WHERE id IN (SELECT jsonb_array_elements_text(p_push->'gone_sections')::bigint) AND list_id = v_list;
        GET DIAGNOSTICS v_count = ROW_COUNT;
        v_written := v_written + v_count;
        IF v_written > 0 AND p_push->>'changes' IS NULL THEN
            -- The replica saw no change, yet the list differs from what it sent: never written
            -- unjournaled.
            RAISE EXCEPTION 'the push changes % items its changeset does not name', v_written USING ERRCODE = 'SCR01';
        END IF;
        PERFORM sectionctl.rank_settle();
        IF p_push->>'changes' IS NOT NULL THEN
            v_version := sectionctl.commit_change(v_list, p_push->>'changes', 'change', NULL);
        END IF;
        IF (p_push->>'sequence')::bigint > 0 THEN
            INSERT INTO sectionctl.replica_pushes (replica, list_id, last_sequence, last_intent)
            VALUES (p_push->>'replica', v_list, (p_push->>'sequence')::bigint, p_push->>'intent')
            ON CONFLICT (replica) DO UPDATE SET last_sequence = excluded.last_sequence, last_intent = excluded.last_intent, pushed_at = now();
        END IF;
        v_row_ids := ARRAY(SELECT nextval(pg_get_serial_sequence('sectionctl.rows', 'id')) FROM generate_series(1, (p_push->>'want_rows')::int));
        v_section_ids := ARRAY(SELECT nextval(pg_get_serial_sequence('sectionctl.sections', 'id'))
                               FROM generate_series(1, (p_push->>'want_sections')::int));
    EXCEPTION WHEN SQLSTATE 'SCR01' THEN
        -- The list differs from what the replica read (a bug, or a state this cannot say): nothing
        -- is written, and the replica pushes its intents one by one instead.
        RETURN jsonb_build_object('applied', false, 'version', v_version, 'differs', SQLERRM);
    END;
    RETURN jsonb_build_object('applied', true, 'version', v_version, 'row_ids', to_jsonb(v_row_ids), 'section_ids', to_jsonb(v_section_ids));
END $$;
