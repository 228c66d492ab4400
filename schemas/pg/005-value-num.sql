-- nlkit archive in PostgreSQL, schema version 5: `num` was there from the first
-- PostgreSQL step; SQLite archives get it now (../005-value-num.sql). Documented here.
COMMENT ON COLUMN value.num IS 'the value as a number, when its text is exactly one (NULL otherwise)';
