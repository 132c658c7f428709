-- The sectionctl schema: lists hold ordered sections, sections hold ordered rows.
--
-- Order lives in sparse integer `position` columns: a move or an insert writes the one row
-- that moves, taking a position between its new neighbours. The dense 0-based indexes people
-- think in come from the ordered_sections and ordered_rows views.

PRAGMA application_id = 1397048148; -- 'SECT'

CREATE TABLE lists (
    id      INTEGER PRIMARY KEY AUTOINCREMENT,
    name    TEXT    NOT NULL UNIQUE CHECK (length(name) > 0),
    -- Grows by one with every committed change to the list (a command, or a saved session).
    version INTEGER NOT NULL DEFAULT 0 CHECK (version >= 0)
) STRICT;

CREATE TABLE sections (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    list_id    INTEGER NOT NULL REFERENCES lists (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    title      TEXT    NOT NULL,
    -- What the footer says while the section is empty in an editing view; NULL means "No Data".
    empty_text TEXT,
    -- Kept equal to the number of rows in the section by the triggers below.
    row_count  INTEGER NOT NULL DEFAULT 0 CHECK (row_count >= 0),
    UNIQUE (list_id, position)
) STRICT;

CREATE TABLE rows (
    id         INTEGER PRIMARY KEY AUTOINCREMENT,
    section_id INTEGER NOT NULL REFERENCES sections (id) ON DELETE CASCADE,
    position   INTEGER NOT NULL,
    kind       TEXT    NOT NULL DEFAULT 'text' CHECK (kind IN ('text', 'topic', 'field')),
    -- The row's text: the title of a text or topic row, the label of a field row.
    title      TEXT    NOT NULL,
    -- A field row's value; NULL when absent (shown as "-"). Only field rows have one.
    value      TEXT    CHECK (value IS NULL OR kind = 'field'),
    UNIQUE (section_id, position)
) STRICT;

CREATE TRIGGER rows_count_insert AFTER INSERT ON rows BEGIN
    UPDATE sections SET row_count = row_count + 1 WHERE id = NEW.section_id;
END;

CREATE TRIGGER rows_count_delete AFTER DELETE ON rows BEGIN
    UPDATE sections SET row_count = row_count - 1 WHERE id = OLD.section_id;
END;

CREATE TRIGGER rows_count_move AFTER UPDATE OF section_id ON rows
WHEN OLD.section_id <> NEW.section_id BEGIN
    UPDATE sections SET row_count = row_count - 1 WHERE id = OLD.section_id;
    UPDATE sections SET row_count = row_count + 1 WHERE id = NEW.section_id;
END;

-- Every section with its list's name and its 0-based index in the list.
CREATE VIEW ordered_sections AS
SELECT
    s.id,
    l.name AS list,
    s.list_id,
    row_number() OVER (PARTITION BY s.list_id ORDER BY s.position) - 1 AS section_index,
    s.title,
    s.empty_text,
    s.row_count,
    s.position
FROM sections AS s
JOIN lists AS l ON l.id = s.list_id;

-- Every row with its list's name, its section, and its 0-based index path.
CREATE VIEW ordered_rows AS
SELECT
    r.id,
    os.list,
    os.list_id,
    r.section_id,
    os.title AS section_title,
    os.section_index,
    row_number() OVER (PARTITION BY r.section_id ORDER BY r.position) - 1 AS row_index,
    os.section_index || ':' || (row_number() OVER (PARTITION BY r.section_id ORDER BY r.position) - 1) AS path,
    r.kind,
    r.title,
    r.value,
    r.position
FROM rows AS r
JOIN ordered_sections AS os ON os.id = r.section_id;

INSERT INTO lists (name) VALUES ('default');
