-- nlkit archive, schema version 5: a value's number, under one name on both databases.
-- A SQLite archive keeps a field's value as a number when its text is exactly one, so
-- `value > 1000` compares numbers; a PostgreSQL archive keeps every value as text, with the
-- number beside it in `num`. SQLite gets the same column (computed, not stored), so a query
-- written with num for numbers and value for text runs on either (loader/README.md).
ALTER TABLE value ADD COLUMN num REAL GENERATED ALWAYS AS
    (CASE WHEN typeof(value) IN ('integer', 'real') THEN value END) VIRTUAL;
