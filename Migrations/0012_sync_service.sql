-- The sync service (`sectionctl serve`, docs/sync-protocol.md): who may reach a list over HTTP,
-- which replicas are registered with it, and which ids each was given. The same tables on a
-- server (Migrations/postgres/0010_sync_service.sql); a file that `serve` never serves keeps
-- them empty.

-- Tokens, each for one list and one role. A token is shown once, when it is made; the file
-- keeps its selector (how a request finds its row) and the SHA-256 of its secret, never the
-- secret itself. A request's secret is hashed and compared with `secret_hash` in constant time.
CREATE TABLE tokens (
    id          INTEGER PRIMARY KEY AUTOINCREMENT,
    -- 16 hex digits, random: the part of the token before its secret.
    selector    TEXT    NOT NULL UNIQUE CHECK (length(selector) = 16),
    secret_hash BLOB    NOT NULL CHECK (length(secret_hash) = 32),
    list_id     INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    -- read: register a replica, pull and watch; edit: also push intents (and be given ids);
    -- admin: what edit may (the role kept for managing the list's replicas and tokens).
    role        TEXT    NOT NULL CHECK (role IN ('read', 'edit', 'admin')),
    -- Seconds since 1970 (UTC). A token past `expires_at`, or revoked, is refused (401).
    created_at  INTEGER NOT NULL,
    expires_at  INTEGER CHECK (expires_at IS NULL OR expires_at > created_at),
    revoked_at  INTEGER
) STRICT;

-- Replicas registered through the service: each bound to the token it was cloned with and that
-- token's list. The server names a replica (32 hex digits) when it registers it; a request that
-- names a replica of another token or list is refused (409). `last_sequence` is the highest of
-- its intents applied, and `last_intent` that intent's JSON: a push retried after its answer was
-- lost skips what is recorded, exactly once.
CREATE TABLE sync_replicas (
    replica       TEXT    PRIMARY KEY CHECK (length(replica) = 32),
    list_id       INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    token_id      INTEGER NOT NULL REFERENCES tokens (id) ON DELETE CASCADE,
    last_sequence INTEGER NOT NULL DEFAULT 0 CHECK (last_sequence >= 0),
    last_intent   TEXT    CHECK (last_intent IS NULL OR json_valid(last_intent)),
    created_at    INTEGER NOT NULL
) STRICT;
CREATE INDEX sync_replicas_token ON sync_replicas (token_id);

-- Every block of ids the server gave a replica, for rows or sections (`first`…`last`). An added
-- row or section a replica pushes must carry an id of one of its own blocks: an id it was not
-- given is refused, so an add never takes over an item another made.
CREATE TABLE sync_blocks (
    replica TEXT    NOT NULL REFERENCES sync_replicas (replica) ON DELETE CASCADE,
    kind    TEXT    NOT NULL CHECK (kind IN ('row', 'section')),
    first   INTEGER NOT NULL CHECK (first > 0),
    last    INTEGER NOT NULL CHECK (last >= first),
    PRIMARY KEY (replica, kind, first)
) STRICT;

-- The ids of those blocks not used yet, as runs: what the replica still holds. The server gives
-- another block only when fewer than half a block are left (what the replica is owed).
CREATE TABLE sync_unused_ids (
    replica TEXT    NOT NULL REFERENCES sync_replicas (replica) ON DELETE CASCADE,
    kind    TEXT    NOT NULL CHECK (kind IN ('row', 'section')),
    first   INTEGER NOT NULL CHECK (first > 0),
    last    INTEGER NOT NULL CHECK (last >= first),
    PRIMARY KEY (replica, kind, first)
) STRICT;

-- A replica's check that its list is the server's: the server version at which the two last
-- had the same digest of their contents, and the last server version at which they differed
-- (the replica then read the whole list). NULL: never checked, never differed.
ALTER TABLE replica ADD COLUMN verified_version INTEGER;
ALTER TABLE replica ADD COLUMN diverged_version INTEGER;
