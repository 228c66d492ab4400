-- nlkit archive, schema version 3: a loaded file is known by its content, not its name.
-- load_position knew a file by path and inode, so a rotated file (renamed, copied and
-- truncated, or a new file that got an old inode back) was resumed at the wrong place or
-- read again. load_file knows it by its first bytes (head: up to 1024) and the bytes just
-- before the loaded offset (tail: up to 64): a file whose beginning is a loaded file's head
-- and whose bytes before that offset are its tail is that file, under whatever name.
-- path and inode say where it was last seen. Rows from load_position keep no head: they
-- are matched by path and inode once more, then get one.

CREATE TABLE load_file (
    id      INTEGER PRIMARY KEY,
    head    BLOB,                  -- the file's first min(offset, 1024) bytes (NULL: upgraded row)
    tail    BLOB,                  -- the min(offset, 64) bytes before offset
    offset  INTEGER NOT NULL,      -- bytes loaded (always at a line boundary)
    lines   INTEGER NOT NULL,      -- lines read up to offset, good and bad
    path    TEXT NOT NULL,         -- where it was last loaded from
    inode   INTEGER NOT NULL,
    updated REAL NOT NULL          -- Unix seconds
);
CREATE INDEX load_file_head ON load_file (substr(head, 1, 16));

INSERT INTO load_file (head, tail, offset, lines, path, inode, updated)
    SELECT NULL, NULL, offset, lines, path, inode, updated FROM load_position;
DROP TABLE load_position;

-- The old name, for queries written against it: the newest row per path.
CREATE VIEW load_position AS
    SELECT path, inode, offset, lines, updated FROM load_file AS f
    WHERE updated = (SELECT max(updated) FROM load_file WHERE path = f.path);
