-- Which writes committed: every write transaction of sectionctl commits with its number, under
-- its connection's random name, in the same transaction (`PostgresDatabase`). When the
-- connection is lost while a change commits, sectionctl connects again, waits until the server
-- is done with the lost connection, and reads here whether the change landed: if it did, it is
-- reported as saved; if not, it is made once more. A blind retry could make it twice.
--
-- One entry per connection that wrote, its latest write; entries a day old go with a
-- connection's first write. Plain SQL may read or clear them: a cleared entry only makes a
-- change whose connection is lost at that moment look unsaved.

CREATE TABLE applied_writes (
    writer       text        PRIMARY KEY,
    write_count  bigint      NOT NULL CHECK (write_count > 0),
    committed_at timestamptz NOT NULL DEFAULT now()
);

CREATE INDEX applied_writes_age ON applied_writes (committed_at);
