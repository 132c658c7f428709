-- An undo step's compact entry for a run of sections added together: the column of
-- Migrations/0013_compact_bulk_history.sql, whose comments say what it means. `item_id` is the
-- run's first id and `last_id` its last; every other entry keeps NULL.

ALTER TABLE undo_log ADD COLUMN last_id bigint;
