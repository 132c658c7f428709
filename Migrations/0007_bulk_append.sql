-- Bulk appends and bulk deletes: an import appends sections and rows at the ends of a list and
-- its sections, and deleting a section (or a list) empties whole sections; doing their
-- bookkeeping once per batch instead of once per row takes them from about 35 µs a row (up to
-- seven triggers firing) to a few.
--
-- Inside sectionctl's own transaction (and only there: a guard refuses it otherwise, and
-- sectionctl sets it back with the writer mark), `journal_writer.bulk = 1` turns off the insert
-- triggers below: counts, rank nodes, the undo log's entries and the insert guards. sectionctl
-- then writes what they would have in a few set-based statements before the flag goes back
-- (`Connection.finishBulkAppend`): row counts, a new section's rank nodes, the counts of the
-- last rank node of each level (appended items land there) with its rank_pending note, and the
-- undo log's entries. Plain SQL never sees the flag set, so its writes keep every structure
-- exact as before.

ALTER TABLE journal_writer ADD COLUMN bulk INTEGER NOT NULL DEFAULT 0 CHECK (bulk IN (0, 1));

CREATE TRIGGER guard_writer_bulk BEFORE UPDATE OF active, bulk ON journal_writer
WHEN NEW.bulk = 1 AND NEW.active <> 1 BEGIN
    SELECT RAISE(ABORT, 'journal_writer.bulk is 1 only inside sectionctl''s own write transaction');
END;

-- The insert triggers, as before, but for bulk appends.

DROP TRIGGER rows_count_insert;
CREATE TRIGGER rows_count_insert AFTER INSERT ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 BEGIN
    UPDATE sections SET row_count = row_count + 1 WHERE id = NEW.section_id;
END;

DROP TRIGGER rank_row_insert;
CREATE TRIGGER rank_row_insert AFTER INSERT ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 BEGIN
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

DROP TRIGGER undo_row_insert;
CREATE TRIGGER undo_row_insert AFTER INSERT ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 AND ((SELECT active FROM journal_writer) = 1) BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id)
    VALUES ((SELECT step FROM journal_writer), (SELECT list_id FROM sections WHERE id = NEW.section_id), 'insert', 'row', NEW.id);
END;

DROP TRIGGER guard_row_insert_section;
CREATE TRIGGER guard_row_insert_section BEFORE INSERT ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 AND (NOT EXISTS (SELECT 1 FROM sections WHERE id = NEW.section_id)) BEGIN
    SELECT RAISE(ABORT, 'rows.section_id must name a section');
END;

DROP TRIGGER guard_row_insert_position;
CREATE TRIGGER guard_row_insert_position BEFORE INSERT ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 AND (NEW.position NOT BETWEEN {{position_minimum}} AND {{position_maximum}}
    AND NOT (NEW.position = {{position_parking}} AND (SELECT active FROM journal_writer) = 1)) BEGIN
    SELECT RAISE(ABORT, 'rows.position must be from {{position_minimum}} to {{position_maximum}}');
END;

DROP TRIGGER rank_section_insert;
CREATE TRIGGER rank_section_insert AFTER INSERT ON sections
WHEN (SELECT bulk FROM journal_writer) = 0 BEGIN
    INSERT INTO rank_nodes (section_id, level, first) VALUES
        (NEW.id, 1, -9223372036854775808), (NEW.id, 2, -9223372036854775808),
        (NEW.id, 3, -9223372036854775808), (NEW.id, 4, -9223372036854775808);
END;

DROP TRIGGER section_rank_insert;
CREATE TRIGGER section_rank_insert AFTER INSERT ON sections
WHEN (SELECT bulk FROM journal_writer) = 0 BEGIN
    INSERT INTO section_rank_counts VALUES (NEW.list_id, NEW.position, 1);
END;

DROP TRIGGER undo_section_insert;
CREATE TRIGGER undo_section_insert AFTER INSERT ON sections
WHEN (SELECT bulk FROM journal_writer) = 0 AND ((SELECT active FROM journal_writer) = 1) BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id)
    VALUES ((SELECT step FROM journal_writer), NEW.list_id, 'insert', 'section', NEW.id);
END;

DROP TRIGGER guard_section_insert_list;
CREATE TRIGGER guard_section_insert_list BEFORE INSERT ON sections
WHEN (SELECT bulk FROM journal_writer) = 0 AND (NOT EXISTS (SELECT 1 FROM lists WHERE id = NEW.list_id)) BEGIN
    SELECT RAISE(ABORT, 'sections.list_id must name a list');
END;

DROP TRIGGER guard_section_insert_position;
CREATE TRIGGER guard_section_insert_position BEFORE INSERT ON sections
WHEN (SELECT bulk FROM journal_writer) = 0 AND (NEW.position NOT BETWEEN {{position_minimum}} AND {{position_maximum}}
    AND NOT (NEW.position = {{position_parking}} AND (SELECT active FROM journal_writer) = 1)) BEGIN
    SELECT RAISE(ABORT, 'sections.position must be from {{position_minimum}} to {{position_maximum}}');
END;

-- The row delete triggers, as before, but while sectionctl empties whole sections in bulk
-- (`Connection.emptySectionsInBulk`: the undo log's entries first, set-based, then the rows,
-- then the sections' counts and rank nodes set back to those of an empty section).

DROP TRIGGER rows_count_delete;
CREATE TRIGGER rows_count_delete AFTER DELETE ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 BEGIN
    UPDATE sections SET row_count = row_count - 1 WHERE id = OLD.section_id;
END;

DROP TRIGGER rank_row_delete;
CREATE TRIGGER rank_row_delete AFTER DELETE ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 BEGIN
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

DROP TRIGGER undo_row_delete;
CREATE TRIGGER undo_row_delete AFTER DELETE ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 AND ((SELECT active FROM journal_writer) = 1) BEGIN
    INSERT INTO undo_log (step, list_id, action, target, item_id, parent_id, position, kind, title, value)
    VALUES ((SELECT step FROM journal_writer), coalesce((SELECT list_id FROM sections WHERE id = OLD.section_id), -1),
            'delete', 'row', OLD.id, OLD.section_id, OLD.position, OLD.kind, OLD.title, OLD.value);
END;
