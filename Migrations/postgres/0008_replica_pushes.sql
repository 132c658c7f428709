-- Which intents of each replica the server has applied (docs/replicas.md, "Exactly once"). A
-- replica's push applies its intents in order and records here, in the same transaction, the
-- highest sequence applied and that intent (its JSON). A push retried after a lost connection
-- (even one lost during COMMIT) skips what is recorded; a different intent under a recorded
-- sequence means two files push under one replica's name (a copied replica file), and is refused.
CREATE TABLE replica_pushes (
    replica       text        PRIMARY KEY CHECK (length(replica) = 32),
    list_id       bigint      NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    last_sequence bigint      NOT NULL CHECK (last_sequence > 0),
    last_intent   text        NOT NULL,
    pushed_at     timestamptz NOT NULL DEFAULT now()
);
