-- sectionctl never ends its writer mark early: the mark is local to the transaction and ends
-- with it (see writer_begin() in 0001_initial.sql). The function that cleared it goes, so that
-- nothing on the server suggests a way to write as sectionctl from psql.
DROP FUNCTION IF EXISTS writer_end();
