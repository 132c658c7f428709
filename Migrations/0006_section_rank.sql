-- Rank for sections: the counted B-tree of 0002_rank.sql, over the positions of a list's
-- sections, so that "the section at index k of a list" and "the index of section #ID" cost
-- O(log s) instead of scanning k index entries. A records import makes a section per record,
-- so a list can hold millions of them.
--
-- The shape is the rows' one: each list has nodes on {{rank_levels}} levels, a node at the smallest integer on
-- every level, levels nest, and a node counts the list's sections in its range. The triggers
-- below keep the counts in the same statement as every insert, delete and move of a section
-- (whoever writes it) and note a level-1 node out of bounds in `section_rank_pending`;
-- sectionctl settles the shape before each commit, and `sectionctl check` compares the counts
-- with the sections (`RankTree`, `RankSpace.sections`).

CREATE TABLE section_rank_nodes (
    list_id       INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    level         INTEGER NOT NULL CHECK (level BETWEEN 1 AND {{rank_levels}}),
    first         INTEGER NOT NULL,
    section_count INTEGER NOT NULL DEFAULT 0 CHECK (section_count >= 0),
    PRIMARY KEY (list_id, level, first)
) STRICT, WITHOUT ROWID;

-- Level-1 nodes to split or merge before the transaction commits.
CREATE TABLE section_rank_pending (
    list_id INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    first   INTEGER NOT NULL,
    PRIMARY KEY (list_id, first)
) STRICT, WITHOUT ROWID;

-- The balanced layout of a list's nodes, as rank_layout gives a section's.
CREATE VIEW section_rank_layout AS
WITH numbered AS (
    SELECT list_id, position, row_number() OVER (PARTITION BY list_id ORDER BY position) - 1 AS section_index
    FROM sections
),
spans (level, span) AS (VALUES {{rank_spans}})
SELECT
    n.list_id,
    s.level,
    CASE WHEN min(n.section_index) < s.span THEN -9223372036854775808 ELSE min(n.position) END AS first,
    count(*) AS section_count
FROM numbered AS n, spans AS s
GROUP BY n.list_id, s.level, n.section_index / s.span;

CREATE TRIGGER section_rank_list_insert AFTER INSERT ON lists BEGIN
    INSERT INTO section_rank_nodes (list_id, level, first)
    SELECT NEW.id, value, -9223372036854775808 FROM json_each('[{{rank_level_list}}]');
END;

-- With foreign keys off the cascade does not run: the list's nodes go here (its sections go in
-- guard_list_delete, whichever runs first: a section's triggers find no nodes, or nodes about to
-- go, and note nothing for a list that is gone).
CREATE TRIGGER section_rank_list_delete AFTER DELETE ON lists BEGIN
    DELETE FROM section_rank_pending WHERE list_id = OLD.id;
    DELETE FROM section_rank_nodes WHERE list_id = OLD.id;
END;

-- Adds `delta` to the node holding `position` on every level of list `list_id` (written out level
-- by level, as 0002_rank.sql's triggers are), and notes the level-1 node when it leaves its
-- bounds: a view that the triggers insert into.
CREATE VIEW section_rank_counts (list_id, position, delta) AS SELECT NULL, NULL, NULL WHERE 0;

CREATE TRIGGER section_rank_count INSTEAD OF INSERT ON section_rank_counts BEGIN
    UPDATE section_rank_nodes SET section_count = section_count + NEW.delta
    WHERE list_id = NEW.list_id AND level = 1 AND first =
        (SELECT max(first) FROM section_rank_nodes WHERE list_id = NEW.list_id AND level = 1 AND first <= NEW.position);
    INSERT OR IGNORE INTO section_rank_pending (list_id, first)
    SELECT list_id, first FROM section_rank_nodes
    WHERE list_id = NEW.list_id AND level = 1
        AND ((NEW.delta > 0 AND section_count > {{rank_maximum_children}})
            OR (NEW.delta < 0 AND section_count < {{rank_minimum_children}} AND first > -9223372036854775808))
        AND first = (SELECT max(first) FROM section_rank_nodes WHERE list_id = NEW.list_id AND level = 1 AND first <= NEW.position)
        AND EXISTS (SELECT 1 FROM lists WHERE id = NEW.list_id);  -- not for a section deleted with its list
    UPDATE section_rank_nodes SET section_count = section_count + NEW.delta
    WHERE list_id = NEW.list_id AND level = 2 AND first =
        (SELECT max(first) FROM section_rank_nodes WHERE list_id = NEW.list_id AND level = 2 AND first <= NEW.position);
    UPDATE section_rank_nodes SET section_count = section_count + NEW.delta
    WHERE list_id = NEW.list_id AND level = 3 AND first =
        (SELECT max(first) FROM section_rank_nodes WHERE list_id = NEW.list_id AND level = 3 AND first <= NEW.position);
    UPDATE section_rank_nodes SET section_count = section_count + NEW.delta
    WHERE list_id = NEW.list_id AND level = 4 AND first =
        (SELECT max(first) FROM section_rank_nodes WHERE list_id = NEW.list_id AND level = 4 AND first <= NEW.position);
END;

CREATE TRIGGER section_rank_insert AFTER INSERT ON sections BEGIN
    INSERT INTO section_rank_counts VALUES (NEW.list_id, NEW.position, 1);
END;

CREATE TRIGGER section_rank_delete AFTER DELETE ON sections BEGIN
    INSERT INTO section_rank_counts VALUES (OLD.list_id, OLD.position, -1);
END;

-- A move is a delete at the old place and an insert at the new one.
CREATE TRIGGER section_rank_move AFTER UPDATE OF list_id, position ON sections
WHEN OLD.list_id <> NEW.list_id OR OLD.position <> NEW.position BEGIN
    INSERT INTO section_rank_counts VALUES (OLD.list_id, OLD.position, -1);
    INSERT INTO section_rank_counts VALUES (NEW.list_id, NEW.position, 1);
END;

-- Build the structure for the lists and sections already there.
INSERT INTO section_rank_nodes (list_id, level, first)
SELECT l.id, v.value, -9223372036854775808 FROM lists AS l, json_each('[{{rank_level_list}}]') AS v;

INSERT INTO section_rank_nodes (list_id, level, first, section_count)
SELECT list_id, level, first, section_count FROM section_rank_layout WHERE true
ON CONFLICT (list_id, level, first) DO UPDATE SET section_count = excluded.section_count;
