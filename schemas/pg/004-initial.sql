-- nlkit archive in PostgreSQL, schema version 4: the first PostgreSQL step, the same tables,
-- columns and views as a SQLite archive at version 4 (../001-004), in PostgreSQL's dialect,
-- for a site where several collectors load into one archive that many people query.
-- Applied by nl-load inside one transaction; the version row is written by nl-load.
-- Where the dialects differ:
--   - every value is text in `value` (as written), with `num` its number when the text is
--     exactly one (SQLite keeps such values as numbers in `value` and, from step 5, has
--     `num` too), so portable queries compare numbers with num and text with value;
--   - raw events live in one partition per day (event_raw, ident_raw, value_raw), so
--     retention drops whole days; a summary's own rows are apart (raw = false) and stay;
--   - the derived summary values (rate, avgrate, busy, mean_dur) are computed by nl-load
--     as SQLite computes them (a generated column in PostgreSQL raises an error where a
--     double overflows), so they can be infinite: the metrics views leave those out;
--   - offset is a reserved word: the column is "offset" (quoted, which SQLite accepts too).

CREATE TABLE nl_schema (
    version integer PRIMARY KEY,
    name    text NOT NULL,
    applied double precision NOT NULL
);

-- ids are taken by nl-load in blocks (nextval), so each loader can COPY its rows
CREATE SEQUENCE event_id_seq;

CREATE TABLE event (
    id       bigint NOT NULL,
    ts       double precision NOT NULL,  -- Unix seconds, UTC
    event    text NOT NULL,
    level    text,
    startend smallint NOT NULL,          -- 0 NAME.start, 1 NAME.end, 2 otherwise
    status   bigint,
    raw      boolean NOT NULL            -- false for NAME.summary events (kept by retention)
) PARTITION BY LIST (raw);
CREATE TABLE event_summary PARTITION OF event FOR VALUES IN (false);
CREATE TABLE event_raw PARTITION OF event FOR VALUES IN (true) PARTITION BY RANGE (ts);
CREATE INDEX event_id ON event (id);
CREATE INDEX event_ts ON event (ts);

CREATE TABLE ident (
    event_id bigint NOT NULL,
    ts       double precision NOT NULL,  -- the event's, for its partition
    raw      boolean NOT NULL,
    name     text NOT NULL,
    value    text NOT NULL
) PARTITION BY LIST (raw);
CREATE TABLE ident_summary PARTITION OF ident FOR VALUES IN (false);
CREATE TABLE ident_raw PARTITION OF ident FOR VALUES IN (true) PARTITION BY RANGE (ts);
CREATE INDEX ident_event ON ident (event_id);
CREATE INDEX ident_value ON ident (value);

CREATE TABLE value (
    event_id bigint NOT NULL,
    ts       double precision NOT NULL,
    raw      boolean NOT NULL,
    name     text NOT NULL,
    value    text NOT NULL,
    num      double precision            -- the value as a number, when its text is exactly one
) PARTITION BY LIST (raw);
CREATE TABLE value_summary PARTITION OF value FOR VALUES IN (false);
CREATE TABLE value_raw PARTITION OF value FOR VALUES IN (true) PARTITION BY RANGE (ts);
CREATE INDEX value_event ON value (event_id);

CREATE TABLE summary (
    event_id     bigint PRIMARY KEY,
    ts           double precision NOT NULL,
    event        text NOT NULL,
    host         text,
    guid         text,
    n            bigint,
    dur_min      double precision, dur_max double precision, dur_sum double precision,
    dur_sd       double precision,
    v_min        double precision, v_max double precision, v_sum double precision,
    v_sd         double precision,
    r_min        double precision, r_max double precision, r_sum double precision,
    r_sd         double precision,
    span         double precision,
    open         bigint,
    interval     double precision,
    orphan_start bigint,
    orphan_end   bigint,
    rate         double precision,       -- v_sum / dur_sum, computed by nl-load
    avgrate      double precision,       -- v_sum / interval
    busy         double precision,       -- dur_sum / interval
    mean_dur     double precision,       -- dur_sum / n
    dur_p50      double precision, dur_p90 double precision, dur_p99 double precision,
    v_p50        double precision, v_p90 double precision, v_p99 double precision
);
CREATE INDEX summary_event_host_ts ON summary (event, host, ts);

CREATE TABLE load_file (
    id       bigserial PRIMARY KEY,
    head     bytea,
    tail     bytea,
    "offset" bigint NOT NULL,
    lines    bigint NOT NULL,
    path     text NOT NULL,
    inode    bigint NOT NULL,
    updated  double precision NOT NULL
);
CREATE INDEX load_file_head ON load_file (substr(head, 1, 16));

CREATE VIEW load_position AS
    SELECT path, inode, "offset", lines, updated FROM load_file AS f
    WHERE updated = (SELECT max(updated) FROM load_file WHERE path = f.path);

CREATE TABLE period (
    name  text PRIMARY KEY,
    since double precision,
    until double precision,
    age   double precision
);
INSERT INTO period VALUES ('all', NULL, NULL, NULL), ('1h', NULL, NULL, 3600),
    ('1d', NULL, NULL, 86400), ('7d', NULL, NULL, 604800), ('30d', NULL, NULL, 2592000);

CREATE VIEW summary_metric AS
SELECT * FROM (
    SELECT s.event_id, s.ts, s.event, s.host,
           CAST(extract(hour FROM to_timestamp(s.ts) AT TIME ZONE 'UTC') AS integer) AS hour,
           CAST(extract(dow FROM to_timestamp(s.ts) AT TIME ZONE 'UTC') AS integer) AS dow,
           m.metric,
           CASE m.metric WHEN 'rate' THEN s.rate WHEN 'avgrate' THEN s.avgrate
                         WHEN 'busy' THEN s.busy ELSE s.mean_dur END AS x
    FROM summary s,
         (VALUES ('rate'), ('avgrate'), ('busy'), ('mean.dur')) AS m (metric)) sm
WHERE x IS NOT NULL AND x <> 'Infinity'::float8 AND x <> '-Infinity'::float8 AND x <> 'NaN'::float8;

CREATE VIEW baseline_member AS
SELECT p.name AS period, g.grp, sm.event,
       CASE WHEN g.grp IN ('host', 'host,hour') THEN sm.host END AS host,
       CASE WHEN g.grp IN ('hour', 'host,hour') THEN sm.hour END AS hour,
       CASE WHEN g.grp = 'dow' THEN sm.dow END AS dow,
       sm.metric, sm.x
FROM summary_metric sm
JOIN period p ON (p.since IS NULL OR sm.ts >= p.since) AND (p.until IS NULL OR sm.ts < p.until)
             AND (p.age IS NULL OR sm.ts >= extract(epoch FROM now()) - p.age)
CROSS JOIN (VALUES ('event'), ('host'), ('hour'), ('dow'), ('host,hour')) AS g (grp)
WHERE g.grp NOT IN ('host', 'host,hour') OR sm.host IS NOT NULL;

-- count, mean, sample standard deviation and the 5th/50th/95th percentiles interpolated
-- as R's type 7 (percentile_cont), as the SQLite views and nl-baseline compute them
CREATE VIEW baseline_all AS
SELECT period, grp, event, host, hour, dow, metric, count(*) AS n, avg(x) AS mean,
       stddev_samp(x) AS sd,
       percentile_cont(0.05) WITHIN GROUP (ORDER BY x) AS p5,
       percentile_cont(0.5) WITHIN GROUP (ORDER BY x) AS p50,
       percentile_cont(0.95) WITHIN GROUP (ORDER BY x) AS p95
FROM baseline_member GROUP BY period, grp, event, host, hour, dow, metric;

CREATE VIEW baseline AS
SELECT period, event, metric, n, mean, sd, p5, p50, p95 FROM baseline_all WHERE grp = 'event';
CREATE VIEW baseline_host AS
SELECT period, event, host, metric, n, mean, sd, p5, p50, p95 FROM baseline_all
WHERE grp = 'host';
CREATE VIEW baseline_hour AS
SELECT period, event, hour, metric, n, mean, sd, p5, p50, p95 FROM baseline_all
WHERE grp = 'hour';
CREATE VIEW baseline_dow AS
SELECT period, event, dow, metric, n, mean, sd, p5, p50, p95 FROM baseline_all
WHERE grp = 'dow';
CREATE VIEW baseline_host_hour AS
SELECT period, event, host, hour, metric, n, mean, sd, p5, p50, p95 FROM baseline_all
WHERE grp = 'host,hour';
