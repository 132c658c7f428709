-- One trigger for each event of a row where there were up to four. SQLite runs a row trigger's
-- program for every row to test its WHEN, about 0.4 µs a trigger a row even when the WHEN is
-- false: an inserted row paid six of them and a deleted row four, also while a bulk write had
-- turned their work off (`journal_writer.bulk`). The statements are those of the triggers they
-- replace, in the same order, each under the condition its trigger had:
--
--   guard_row_insert   ← guard_row_insert_section, guard_row_insert_position (0007)
--   rows_after_insert  ← rows_count_insert, rank_row_insert, undo_row_insert (0007),
--                        journal_plain_row_insert (0005)
--   rows_after_delete  ← rows_count_delete, rank_row_delete, undo_row_delete (0007),
--                        journal_plain_row_delete (0005)
--
-- journal_plain's statements keep their own condition (the writer not active); under the bulk
-- flag the writer is always active (guard_writer_bulk), so the merged WHEN loses nothing.

DROP TRIGGER guard_row_insert_section;
DROP TRIGGER guard_row_insert_position;
CREATE TRIGGER guard_row_insert BEFORE INSERT ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 BEGIN
    SELECT RAISE(ABORT, 'rows.section_id must name a section')
    WHERE NOT EXISTS (SELECT 1 FROM sections WHERE id = NEW.section_id);
    SELECT RAISE(ABORT, 'rows.position must be from {{position_minimum}} to {{position_maximum}}')
    WHERE NEW.position NOT BETWEEN {{position_minimum}} AND {{position_maximum}}
        AND NOT (NEW.position = {{position_parking}} AND (SELECT active FROM journal_writer) = 1);
END;

DROP TRIGGER rows_count_insert;
DROP TRIGGER rank_row_insert;
DROP TRIGGER undo_row_insert;
DROP TRIGGER journal_plain_row_insert;
CREATE TRIGGER rows_after_insert AFTER INSERT ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 BEGIN
    UPDATE sections SET row_count = row_count + 1 WHERE id = NEW.section_id;
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
    INSERT INTO undo_log (step, list_id, action, target, item_id)
    SELECT (SELECT step FROM journal_writer), (SELECT list_id FROM sections WHERE id = NEW.section_id), 'insert', 'row', NEW.id
    WHERE (SELECT active FROM journal_writer) = 1;
    INSERT INTO plain_marks (list_id) SELECT list_id FROM sections
    WHERE id = NEW.section_id AND (SELECT active FROM journal_writer) = 0;
END;

DROP TRIGGER rows_count_delete;
DROP TRIGGER rank_row_delete;
DROP TRIGGER undo_row_delete;
DROP TRIGGER journal_plain_row_delete;
CREATE TRIGGER rows_after_delete AFTER DELETE ON rows
WHEN (SELECT bulk FROM journal_writer) = 0 BEGIN
    UPDATE sections SET row_count = row_count - 1 WHERE id = OLD.section_id;
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
    INSERT INTO undo_log (step, list_id, action, target, item_id, parent_id, position, kind, title, value)
    SELECT (SELECT step FROM journal_writer), coalesce((SELECT list_id FROM sections WHERE id = OLD.section_id), -1),
           'delete', 'row', OLD.id, OLD.section_id, OLD.position, OLD.kind, OLD.title, OLD.value
    WHERE (SELECT active FROM journal_writer) = 1;
    INSERT INTO plain_marks (list_id) SELECT list_id FROM sections
    WHERE id = OLD.section_id AND (SELECT active FROM journal_writer) = 0;
END;
