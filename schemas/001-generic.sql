-- nlkit archive, schema version 1: NetLogger's generic nl_load layout, so SQL written
-- against NetLogger archives keeps working, plus nl-load's record of what it has loaded.
-- Applied by nl-load inside one transaction; the version row is written by nl-load.

CREATE TABLE nl_schema (
    version INTEGER PRIMARY KEY,   -- one row per applied step: 1, 2, ...
    name    TEXT NOT NULL,         -- the step's file name
    applied REAL NOT NULL          -- when, Unix seconds
);

-- One row per event line.
CREATE TABLE event (
    id       INTEGER PRIMARY KEY,
    ts       REAL NOT NULL,        -- Unix seconds, UTC (microseconds survive the round trip)
    event    TEXT NOT NULL,        -- e.g. disk.read.start
    level    TEXT,                 -- Fatal, Error, Warn, Info, Debug, Trace (NULL: none given)
    startend INTEGER NOT NULL,     -- 0 for NAME.start, 1 for NAME.end, 2 otherwise
    status   INTEGER               -- the status= field when it is an integer, else NULL
);
-- Time ranges are what every query narrows by first; an index per event name as well cost
-- a fifth of the load rate (bench-load), and summaries have their own (event, host, ts).
CREATE INDEX event_ts ON event (ts);

-- Identity fields: guid and every field whose name ends in ".id". Values exactly as sent.
CREATE TABLE ident (
    event_id INTEGER NOT NULL REFERENCES event (id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    value    TEXT NOT NULL,
    PRIMARY KEY (event_id, name)
) WITHOUT ROWID;
-- All events of one guid (or stream.id, ...): WHERE value = ? AND name = ?.
CREATE INDEX ident_value ON ident (value);

-- Every other field. The column has no declared type, so a value is stored as sent: an
-- integer or a real when its text is exactly a decimal number, otherwise the text itself
-- ("007", "1e3x" and "inf" stay text; compare with CAST when in doubt).
CREATE TABLE value (
    event_id INTEGER NOT NULL REFERENCES event (id) ON DELETE CASCADE,
    name     TEXT NOT NULL,
    value,
    PRIMARY KEY (event_id, name)
) WITHOUT ROWID;

-- Exactly-once file loads: how far nl-load got in each file, updated in the same
-- transaction as the rows it loaded. A file is known by path and inode, so a rotated file
-- that reuses the name is a new file.
CREATE TABLE load_position (
    path    TEXT NOT NULL,
    inode   INTEGER NOT NULL,
    offset  INTEGER NOT NULL,      -- bytes loaded (always at a line boundary)
    lines   INTEGER NOT NULL,      -- lines read up to offset, good and bad
    updated REAL NOT NULL,         -- Unix seconds
    PRIMARY KEY (path, inode)
);
