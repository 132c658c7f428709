-- A bulk append's undo step in a compact form, so that dropping it costs a later write nothing.
--
-- An import into a new list logged one `insert section` entry per section it added (its rows
-- have none: undoing a section's insert empties it first). The list's 101st version drops the
-- import's step as it drops any step past `undo_kept_steps`, and after an import of a million
-- sections that one commit read and freed every page of those entries (4,984 pages at 100,000
-- sections). Now `finishBulkAppend` logs the sections it added, when their ids run in sequence,
-- as one entry: `item_id` the first id and `last_id` the last. Undoing the step takes the
-- sections back from the last id down to the first, as it took back the entries one by one.
-- Every other entry keeps `last_id` NULL, and an entry logged before this migration stays as
-- it was.
--
-- ADD COLUMN rewrites no stored row: every entry reads NULL. The column has no CHECK: a run on
-- another kind of entry, or one that does not end past its first id, is named by `check`
-- (`malformedUndoRuns`) and mended by `repair`, which drops the list's undo history, where a
-- constraint failed would be a `quick_check` failure that repair refuses. Plain SQL cannot write
-- one anyway (the guards of 0005 refuse it every write to `undo_log`).

ALTER TABLE undo_log ADD COLUMN last_id INTEGER;
