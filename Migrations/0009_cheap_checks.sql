-- The value checks of rows.kind, undo_log.action and undo_log.target, written as comparisons.
--
-- SQLite 3.40 runs `x IN ('a', 'b', 'c')` in a CHECK constraint by building a small ephemeral
-- index for every row it checks: about 0.6 µs a row a constraint, which is a third of the cost
-- of an undo log entry (250,000 entries: 427 ms with the two checks, 136 ms written as below,
-- 130 ms with none). `x = 'a' OR x = 'b' OR x = 'c'` accepts and refuses exactly the same values.
--
-- A CHECK constraint cannot be altered, and copying `rows` to change one would rewrite every row
-- of the file. SQLite's ALTER TABLE documentation gives the way for a change that no stored row
-- can fail: the table's definition is rewritten in sqlite_schema, with writable_schema on, and
-- the schema version bumped (the migrator does both for a migration with the line below). A
-- definition that is not as 0001 and 0004 wrote it is left as it is.
-- sectionctl: rewrites sqlite_schema

UPDATE sqlite_schema
SET sql = replace(sql,
    'CHECK (kind IN (''text'', ''topic'', ''field''))',
    'CHECK (kind = ''text'' OR kind = ''topic'' OR kind = ''field'')')
WHERE type = 'table' AND name = 'rows';

UPDATE sqlite_schema
SET sql = replace(replace(sql,
    'CHECK (action IN (''insert'', ''delete'', ''update''))',
    'CHECK (action = ''insert'' OR action = ''delete'' OR action = ''update'')'),
    'CHECK (target IN (''row'', ''section'', ''list''))',
    'CHECK (target = ''row'' OR target = ''section'' OR target = ''list'')')
WHERE type = 'table' AND name = 'undo_log';
