-- Which writes committed: every write transaction of sectionctl commits with its number, under
-- its connection's random name, in the same transaction (`PostgresDatabase`). When the
-- connection is lost while a change commits, sectionctl connects again, waits until the server
-- is done with the lost connection, and reads here whether the change landed: if it did, it is
-- reported as saved; if not, it is made once more. A blind retry could make it twice.
--
-- One entry per connection that wrote, its latest write; entries a day old go with a
-- connection's first write (a scan of the table, once per connection). Plain SQL may read or
-- clear them: a cleared entry only makes a change whose connection is lost at that moment look
-- unsaved.
--
-- No index but the key, and pages half empty: each write updates its connection's entry in
-- place (a heap-only update), where an index on committed_at made every update add an entry to
-- both indexes, and a connection's thousandth write find its entry behind a thousand dead ones
-- (a move took 5.8 ms instead of 3.5 ms in the benchmark).

CREATE TABLE applied_writes (
    writer       text        PRIMARY KEY,
    write_count  bigint      NOT NULL CHECK (write_count > 0),
    committed_at timestamptz NOT NULL DEFAULT now()
) WITH (fillfactor = 50);
