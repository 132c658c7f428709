-- A replica: a file that mirrors one list of a PostgreSQL server (docs/replicas.md). Every file
-- has these tables; they are empty unless the file was made by `sectionctl clone`.
--
-- `replica` is the one row that says which server and list the file mirrors and how far it has
-- synced. The server's location is kept without its password (a connection string's password,
-- if any, comes from the environment or ~/.pgpass when syncing).
CREATE TABLE replica (
    only_row        INTEGER PRIMARY KEY CHECK (only_row = 1),
    server          TEXT    NOT NULL CHECK (length(server) > 0),
    -- The mirrored list: its id here and on the server, and its name on the server.
    list_id         INTEGER NOT NULL UNIQUE REFERENCES lists (id) ON DELETE RESTRICT,
    server_list_id  INTEGER NOT NULL,
    server_list     TEXT    NOT NULL,
    -- This replica's name on the server (random, 32 hex digits): what its pushes are kept under.
    replica_id      TEXT    NOT NULL CHECK (length(replica_id) = 32),
    -- The server's version of the list that this file last pulled, and the file's own version of
    -- the list after that pull: a reload journaled since (plain SQL changed the list here) makes
    -- the next pull read the whole list, to put the server's state back.
    server_version  INTEGER NOT NULL CHECK (server_version >= 0),
    local_version   INTEGER NOT NULL DEFAULT 0 CHECK (local_version >= 0),
    -- The sequence the next recorded intent gets, and the highest the server has acknowledged.
    next_sequence   INTEGER NOT NULL CHECK (next_sequence >= 1),
    acknowledged    INTEGER NOT NULL CHECK (acknowledged >= 0 AND acknowledged < next_sequence)
) STRICT;

-- What was done here and is not yet acknowledged by the server, as intents (`Intent`'s JSON
-- form), in order. `new_id` is the id an added row or section took from `replica_ids`: the
-- server gives it the same id.
CREATE TABLE replica_intents (
    sequence INTEGER PRIMARY KEY,
    intent   TEXT    NOT NULL CHECK (json_valid(intent)),
    new_id   INTEGER CHECK (new_id IS NULL OR new_id > 0)
) STRICT;

-- Ids the server allotted to this replica and it has not used yet, as runs `first`…`last`: rows
-- and sections added here take theirs from these, so that they never collide with anyone's.
CREATE TABLE replica_ids (
    kind  TEXT    NOT NULL CHECK (kind = 'row' OR kind = 'section'),
    first INTEGER NOT NULL CHECK (first > 0),
    last  INTEGER NOT NULL CHECK (last >= first),
    PRIMARY KEY (kind, first)
) STRICT;
