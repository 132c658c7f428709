-- A replica's `server_list_id` goes. It was the mirrored list's id on the server when replicas
-- synced with the database itself; a replica syncs through the sync service now, which names a
-- list by its name (`server_list`) and never tells a client a list's id, so the column held 0 in
-- every file cloned since and nothing read it. Nothing else refers to it: no index, constraint,
-- trigger or view.
ALTER TABLE replica DROP COLUMN server_list_id;
