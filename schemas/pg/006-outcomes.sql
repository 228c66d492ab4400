-- nlkit archive in PostgreSQL, schema version 6: outcomes of the pairs a summary folded
-- (../006-outcomes.sql says what they count). err_ratio is computed here, as SQLite's.
ALTER TABLE summary ADD COLUMN err_n bigint;
ALTER TABLE summary ADD COLUMN err_ratio double precision GENERATED ALWAYS AS
    (CASE WHEN n <> 0 THEN err_n::float8 / n END) STORED;
