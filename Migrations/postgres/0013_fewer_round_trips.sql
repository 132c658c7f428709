-- Two functions a command sends without waiting for their answers, with the statements it waits
-- on, so that a command makes fewer round trips.

-- The opening's check of the schema, sent with the first transaction's first statement: returns
-- when the schema is at `p_version` and this role may read and write `applied_writes` (what an
-- opening that waits for its check reads of the catalogue), and otherwise refuses (SQLSTATE
-- 55000), after which the client makes the whole check, which says what is wrong or migrates.
-- A schema older than this function has none, and calling it fails the same way.
CREATE FUNCTION schema_ready(p_version bigint) RETURNS void
LANGUAGE plpgsql STABLE AS $$
BEGIN
    IF (SELECT max(version) FROM sectionctl.sectionctl_migrations) IS DISTINCT FROM p_version
        OR NOT (has_table_privilege('sectionctl.applied_writes', 'SELECT') AND has_table_privilege('sectionctl.applied_writes', 'INSERT')
            AND has_table_privilege('sectionctl.applied_writes', 'UPDATE') AND has_table_privilege('sectionctl.applied_writes', 'DELETE'))
    THEN
        RAISE EXCEPTION 'the sectionctl schema is not at version % for this role', p_version USING ERRCODE = '55000';
    END IF;
END $$;

-- A write's journal entry, sent with its COMMIT: the client names the version it expects the
-- change to get (the list's version as it read it, under the list's row lock, plus one). The
-- function commits the change as `commit_change` does and refuses one whose version would be
-- another (SQLSTATE XX001, which sectionctl reports as inconsistent), so the version the client
-- shows is the one committed.
CREATE FUNCTION commit_change_as(p_list bigint, p_changes text, p_history text, p_of bigint, p_version bigint) RETURNS void
LANGUAGE plpgsql AS $$
DECLARE
    committed bigint := sectionctl.commit_change(p_list, p_changes, p_history, p_of);
BEGIN
    IF committed IS DISTINCT FROM p_version THEN
        RAISE EXCEPTION 'list % would be at version %, not the % its writer read', p_list, committed, p_version
            USING ERRCODE = 'XX001';
    END IF;
END $$;
