-- Rank in SQL: an order-statistic structure over row positions, so that "the row at index k of
-- a section" and "the index of row #ID" cost O(log n) instead of scanning k index entries.
--
-- It is a counted B-tree kept in a table. Each section has nodes on four levels. A node covers
-- the positions from its `first` up to the `first` of the next node on its level (the last
-- one: up to the end), and counts the section's rows in that range. Every section has a node at
-- the smallest integer on every level, so the whole range is always covered. Levels nest: every
-- `first` on a level is also a `first` on the level below, so a node's children are the nodes
-- of the level below within its range, and a level-1 node's children are rows.
--
-- Counts are kept by the triggers below, in the same statement as every insert, delete and move
-- of a row, whoever writes it (sectionctl, or SQL typed into the sqlite3 shell). The shape is kept
-- by sectionctl before each commit: a level-1 node whose count leaves rank_minimum_children…
-- rank_maximum_children is noted in `rank_pending`, and split or merged with a neighbour (and
-- the levels above with it) so that every node keeps about rank_fanout children (the numbers are
-- Migrations/constants.txt's, written in below by the migration embedder). `sectionctl check` compares the counts with the rows.

CREATE TABLE rank_nodes (
    section_id INTEGER NOT NULL REFERENCES sections (id) ON DELETE CASCADE,
    level      INTEGER NOT NULL CHECK (level BETWEEN 1 AND {{rank_levels}}),
    first      INTEGER NOT NULL,
    row_count  INTEGER NOT NULL DEFAULT 0 CHECK (row_count >= 0),
    PRIMARY KEY (section_id, level, first)
) STRICT, WITHOUT ROWID;

-- Level-1 nodes to split or merge before the transaction commits.
CREATE TABLE rank_pending (
    section_id INTEGER NOT NULL REFERENCES sections (id) ON DELETE CASCADE,
    first      INTEGER NOT NULL,
    PRIMARY KEY (section_id, first)
) STRICT, WITHOUT ROWID;

-- The balanced layout of a section's nodes: rank_fanout rows a level-1 node, rank_fanout children a
-- node above.
-- Used to build the structure for the rows already there, in one statement (below). (After
-- that, a bulk insert needs nothing of its own: the nodes it overfills are cut into shape before
-- its transaction commits, like any other.)
CREATE VIEW rank_layout AS
WITH numbered AS (
    SELECT section_id, position, row_number() OVER (PARTITION BY section_id ORDER BY position) - 1 AS row_index
    FROM rows
),
spans (level, span) AS (VALUES {{rank_spans}})
SELECT
    n.section_id,
    s.level,
    CASE WHEN min(n.row_index) < s.span THEN -9223372036854775808 ELSE min(n.position) END AS first,
    count(*) AS row_count
FROM numbered AS n, spans AS s
GROUP BY n.section_id, s.level, n.row_index / s.span;

CREATE TRIGGER rank_section_insert AFTER INSERT ON sections BEGIN
    INSERT INTO rank_nodes (section_id, level, first) VALUES
        (NEW.id, 1, -9223372036854775808), (NEW.id, 2, -9223372036854775808),
        (NEW.id, 3, -9223372036854775808), (NEW.id, 4, -9223372036854775808);
END;

CREATE TRIGGER rank_row_insert AFTER INSERT ON rows BEGIN
    UPDATE rank_nodes SET row_count = row_count + 1
    WHERE section_id = NEW.section_id AND level = 1 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = NEW.section_id AND level = 1 AND first <= NEW.position);
    INSERT OR IGNORE INTO rank_pending (section_id, first)
    SELECT section_id, first FROM rank_nodes
    WHERE section_id = NEW.section_id AND level = 1 AND row_count > {{rank_maximum_children}} AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = NEW.section_id AND level = 1 AND first <= NEW.position);
    UPDATE rank_nodes SET row_count = row_count + 1
    WHERE section_id = NEW.section_id AND level = 2 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = NEW.section_id AND level = 2 AND first <= NEW.position);
    UPDATE rank_nodes SET row_count = row_count + 1
    WHERE section_id = NEW.section_id AND level = 3 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = NEW.section_id AND level = 3 AND first <= NEW.position);
    UPDATE rank_nodes SET row_count = row_count + 1
    WHERE section_id = NEW.section_id AND level = 4 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = NEW.section_id AND level = 4 AND first <= NEW.position);
END;

CREATE TRIGGER rank_row_delete AFTER DELETE ON rows BEGIN
    UPDATE rank_nodes SET row_count = row_count - 1
    WHERE section_id = OLD.section_id AND level = 1 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = OLD.section_id AND level = 1 AND first <= OLD.position);
    INSERT OR IGNORE INTO rank_pending (section_id, first)
    SELECT section_id, first FROM rank_nodes
    WHERE section_id = OLD.section_id AND level = 1 AND row_count < {{rank_minimum_children}} AND first > -9223372036854775808 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = OLD.section_id AND level = 1 AND first <= OLD.position);
    UPDATE rank_nodes SET row_count = row_count - 1
    WHERE section_id = OLD.section_id AND level = 2 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = OLD.section_id AND level = 2 AND first <= OLD.position);
    UPDATE rank_nodes SET row_count = row_count - 1
    WHERE section_id = OLD.section_id AND level = 3 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = OLD.section_id AND level = 3 AND first <= OLD.position);
    UPDATE rank_nodes SET row_count = row_count - 1
    WHERE section_id = OLD.section_id AND level = 4 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = OLD.section_id AND level = 4 AND first <= OLD.position);
END;

-- A move is a delete at the old place and an insert at the new one; a move that stays inside
-- one level-1 node (most moves, and every position rewritten while spreading) changes no count.
CREATE TRIGGER rank_row_move AFTER UPDATE OF section_id, position ON rows BEGIN
    UPDATE rank_nodes SET row_count = row_count - 1
    WHERE section_id = OLD.section_id AND level = 1 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = OLD.section_id AND level = 1 AND first <= OLD.position);
    UPDATE rank_nodes SET row_count = row_count + 1
    WHERE section_id = NEW.section_id AND level = 1 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = NEW.section_id AND level = 1 AND first <= NEW.position);
    UPDATE rank_nodes SET row_count = row_count - 1
    WHERE section_id = OLD.section_id AND level = 2 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = OLD.section_id AND level = 2 AND first <= OLD.position);
    UPDATE rank_nodes SET row_count = row_count + 1
    WHERE section_id = NEW.section_id AND level = 2 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = NEW.section_id AND level = 2 AND first <= NEW.position);
    UPDATE rank_nodes SET row_count = row_count - 1
    WHERE section_id = OLD.section_id AND level = 3 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = OLD.section_id AND level = 3 AND first <= OLD.position);
    UPDATE rank_nodes SET row_count = row_count + 1
    WHERE section_id = NEW.section_id AND level = 3 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = NEW.section_id AND level = 3 AND first <= NEW.position);
    UPDATE rank_nodes SET row_count = row_count - 1
    WHERE section_id = OLD.section_id AND level = 4 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = OLD.section_id AND level = 4 AND first <= OLD.position);
    UPDATE rank_nodes SET row_count = row_count + 1
    WHERE section_id = NEW.section_id AND level = 4 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = NEW.section_id AND level = 4 AND first <= NEW.position);
    INSERT OR IGNORE INTO rank_pending (section_id, first)
    SELECT section_id, first FROM rank_nodes
    WHERE section_id = NEW.section_id AND level = 1 AND row_count > {{rank_maximum_children}} AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = NEW.section_id AND level = 1 AND first <= NEW.position);
    INSERT OR IGNORE INTO rank_pending (section_id, first)
    SELECT section_id, first FROM rank_nodes
    WHERE section_id = OLD.section_id AND level = 1 AND row_count < {{rank_minimum_children}} AND first > -9223372036854775808 AND first =
        (SELECT max(first) FROM rank_nodes WHERE section_id = OLD.section_id AND level = 1 AND first <= OLD.position);
END;

-- Build the structure for the sections and rows already there.
INSERT INTO rank_nodes (section_id, level, first)
SELECT s.id, l.level, -9223372036854775808
FROM sections AS s, (SELECT value AS level FROM json_each('[{{rank_level_list}}]')) AS l;

INSERT INTO rank_nodes (section_id, level, first, row_count)
SELECT section_id, level, first, row_count FROM rank_layout WHERE true
ON CONFLICT (section_id, level, first) DO UPDATE SET row_count = excluded.row_count;
