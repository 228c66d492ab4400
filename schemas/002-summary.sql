-- nlkit archive, schema version 2: typed summaries and baseline views.
-- A NAME.summary event keeps its row in `event` (and guid and *.id fields in `ident`, as
-- any event), while its numeric summary fields and its host live here, one column each,
-- so that baselines read one indexed table. Column names are the field names with "." -> "_"
-- ("int" -> "interval"). A summary field whose value is not a number stays in `value`.

CREATE TABLE summary (
    event_id     INTEGER PRIMARY KEY REFERENCES event (id) ON DELETE CASCADE,
    ts           REAL NOT NULL,    -- copies of event.ts / event.event, for the index
    event        TEXT NOT NULL,
    host         TEXT,             -- the host= field (not repeated in `value`)
                                   -- and a copy of guid= (which stays in `ident`)
    guid         TEXT,
    n            INTEGER,          -- completed start/end pairs in the interval
    dur_min      REAL, dur_max REAL, dur_sum REAL, dur_sd REAL,   -- seconds
    v_min        REAL, v_max REAL, v_sum REAL, v_sd REAL,         -- the event value
    r_min        REAL, r_max REAL, r_sum REAL, r_sd REAL,         -- value / duration
    span         REAL,             -- last end - first start, seconds
    open         INTEGER,          -- started, not ended, at the interval's close
    interval     REAL,             -- the int= field: interval length, seconds
    orphan_start INTEGER,
    orphan_end   INTEGER,
    -- What nl-detect calls the derived values, computed the same way:
    rate     REAL GENERATED ALWAYS AS (CASE WHEN dur_sum <> 0 THEN v_sum / dur_sum END),
    avgrate  REAL GENERATED ALWAYS AS (CASE WHEN interval <> 0 THEN v_sum / interval END),
    busy     REAL GENERATED ALWAYS AS (CASE WHEN interval <> 0 THEN dur_sum / interval END),
    mean_dur REAL GENERATED ALWAYS AS (CASE WHEN n <> 0 THEN dur_sum / n END)
);
CREATE INDEX summary_event_host_ts ON summary (event, host, ts);

-- Version 1 kept summary fields in `value`: move the numeric ones (and host) over.
INSERT INTO summary (event_id, ts, event, host, guid, n, dur_min, dur_max, dur_sum, dur_sd,
                     v_min, v_max, v_sum, v_sd, r_min, r_max, r_sum, r_sd, span, open,
                     interval, orphan_start, orphan_end)
SELECT e.id, e.ts, e.event,
       (SELECT value FROM value WHERE event_id = e.id AND name = 'host'),
       (SELECT value FROM ident WHERE event_id = e.id AND name = 'guid'),
       f.n, f.dur_min, f.dur_max, f.dur_sum, f.dur_sd, f.v_min, f.v_max, f.v_sum, f.v_sd,
       f.r_min, f.r_max, f.r_sum, f.r_sd, f.span, f.open, f.interval, f.orphan_start,
       f.orphan_end
FROM event e JOIN (
    SELECT event_id,
           max(CASE name WHEN 'n' THEN value END) AS n,
           max(CASE name WHEN 'dur.min' THEN value END) AS dur_min,
           max(CASE name WHEN 'dur.max' THEN value END) AS dur_max,
           max(CASE name WHEN 'dur.sum' THEN value END) AS dur_sum,
           max(CASE name WHEN 'dur.sd' THEN value END) AS dur_sd,
           max(CASE name WHEN 'v.min' THEN value END) AS v_min,
           max(CASE name WHEN 'v.max' THEN value END) AS v_max,
           max(CASE name WHEN 'v.sum' THEN value END) AS v_sum,
           max(CASE name WHEN 'v.sd' THEN value END) AS v_sd,
           max(CASE name WHEN 'r.min' THEN value END) AS r_min,
           max(CASE name WHEN 'r.max' THEN value END) AS r_max,
           max(CASE name WHEN 'r.sum' THEN value END) AS r_sum,
           max(CASE name WHEN 'r.sd' THEN value END) AS r_sd,
           max(CASE name WHEN 'span' THEN value END) AS span,
           max(CASE name WHEN 'open' THEN value END) AS open,
           max(CASE name WHEN 'int' THEN value END) AS interval,
           max(CASE name WHEN 'orphan.start' THEN value END) AS orphan_start,
           max(CASE name WHEN 'orphan.end' THEN value END) AS orphan_end
    FROM value
    WHERE typeof(value) IN ('integer', 'real')
      AND name IN ('n', 'dur.min', 'dur.max', 'dur.sum', 'dur.sd', 'v.min', 'v.max', 'v.sum',
                   'v.sd', 'r.min', 'r.max', 'r.sum', 'r.sd', 'span', 'open', 'int',
                   'orphan.start', 'orphan.end')
    GROUP BY event_id
) f ON f.event_id = e.id
WHERE e.event LIKE '%.summary';

DELETE FROM value WHERE name = 'host' AND event_id IN (SELECT event_id FROM summary);
DELETE FROM value
WHERE typeof(value) IN ('integer', 'real')
  AND name IN ('n', 'dur.min', 'dur.max', 'dur.sum', 'dur.sd', 'v.min', 'v.max', 'v.sum',
               'v.sd', 'r.min', 'r.max', 'r.sum', 'r.sd', 'span', 'open', 'int',
               'orphan.start', 'orphan.end')
  AND event_id IN (SELECT event_id FROM summary);

-- Periods the baseline views are computed over. NULL bounds are open; `age` is relative to
-- now (seconds back). Add your own rows: INSERT INTO period VALUES ('june', 1780272000, 1782864000, NULL);
CREATE TABLE period (
    name  TEXT PRIMARY KEY,
    since REAL,                    -- Unix seconds, inclusive
    until REAL,                    -- Unix seconds, exclusive
    age   REAL                     -- only rows newer than now - age
);
INSERT INTO period VALUES ('all', NULL, NULL, NULL), ('1h', NULL, NULL, 3600),
    ('1d', NULL, NULL, 86400), ('7d', NULL, NULL, 604800), ('30d', NULL, NULL, 2592000);

-- Each summary as up to four metric rows (the derived values nl-detect watches most).
CREATE VIEW summary_metric AS
SELECT s.event_id, s.ts, s.event, s.host,
       CAST(strftime('%H', s.ts, 'unixepoch') AS INTEGER) AS hour,  -- UTC, 0-23
       CAST(strftime('%w', s.ts, 'unixepoch') AS INTEGER) AS dow,   -- 0 = Sunday
       m.metric,
       CASE m.metric WHEN 'rate' THEN s.rate WHEN 'avgrate' THEN s.avgrate
                     WHEN 'busy' THEN s.busy ELSE s.mean_dur END AS x
FROM summary s,
     (SELECT 'rate' AS metric UNION ALL SELECT 'avgrate' UNION ALL SELECT 'busy'
      UNION ALL SELECT 'mean.dur') m
WHERE x IS NOT NULL;

-- Every summary value as a member of the groups baselines are computed over: per period,
-- grouping (grp: 'event', 'host', 'hour', 'dow', 'host,hour'), event, host/hour/dow as the
-- grouping asks, and metric.
CREATE VIEW baseline_member AS
SELECT p.name AS period, g.grp, sm.event,
       CASE WHEN g.grp IN ('host', 'host,hour') THEN sm.host END AS host,
       CASE WHEN g.grp IN ('hour', 'host,hour') THEN sm.hour END AS hour,
       CASE WHEN g.grp = 'dow' THEN sm.dow END AS dow,
       sm.metric, sm.x
FROM summary_metric sm
JOIN period p ON (p.since IS NULL OR sm.ts >= p.since) AND (p.until IS NULL OR sm.ts < p.until)
             AND (p.age IS NULL OR sm.ts >= unixepoch('now') - p.age)
CROSS JOIN (SELECT 'event' AS grp UNION ALL SELECT 'host' UNION ALL SELECT 'hour'
            UNION ALL SELECT 'dow' UNION ALL SELECT 'host,hour') g
WHERE g.grp NOT IN ('host', 'host,hour') OR sm.host IS NOT NULL;

-- Baselines: count, mean, sample standard deviation (two passes, so a large mean does not
-- swallow a small spread) and the 5th/50th/95th percentiles, interpolated between order
-- statistics as R's type 7 and nl-baseline. The spread and percentiles are computed only
-- for the groups a query keeps: filter on period and event (and host, hour, dow, metric),
--   SELECT * FROM baseline_host WHERE period = '7d' AND event = 'x.summary';
CREATE VIEW baseline_all AS
SELECT g.period, g.grp, g.event, g.host, g.hour, g.dow, g.metric, g.n, g.mean,
       (SELECT sqrt(sum((m.x - g.mean) * (m.x - g.mean)) / (g.n - 1)) FROM baseline_member m
        WHERE m.period = g.period AND m.grp = g.grp AND m.event = g.event AND m.metric = g.metric
              AND m.host IS g.host AND m.hour IS g.hour AND m.dow IS g.dow) AS sd,
       (SELECT min(x) + ((g.n - 1) * 0.05 - CAST((g.n - 1) * 0.05 AS INTEGER)) * (max(x) - min(x))
        FROM (SELECT m.x, row_number() OVER (ORDER BY m.x) AS rn FROM baseline_member m
              WHERE m.period = g.period AND m.grp = g.grp AND m.event = g.event AND m.metric = g.metric
                AND m.host IS g.host AND m.hour IS g.hour AND m.dow IS g.dow)
        WHERE rn BETWEEN CAST((g.n - 1) * 0.05 AS INTEGER) + 1 AND CAST((g.n - 1) * 0.05 AS INTEGER) + 2) AS p5,
       (SELECT min(x) + ((g.n - 1) * 0.5 - CAST((g.n - 1) * 0.5 AS INTEGER)) * (max(x) - min(x))
        FROM (SELECT m.x, row_number() OVER (ORDER BY m.x) AS rn FROM baseline_member m
              WHERE m.period = g.period AND m.grp = g.grp AND m.event = g.event AND m.metric = g.metric
                AND m.host IS g.host AND m.hour IS g.hour AND m.dow IS g.dow)
        WHERE rn BETWEEN CAST((g.n - 1) * 0.5 AS INTEGER) + 1 AND CAST((g.n - 1) * 0.5 AS INTEGER) + 2) AS p50,
       (SELECT min(x) + ((g.n - 1) * 0.95 - CAST((g.n - 1) * 0.95 AS INTEGER)) * (max(x) - min(x))
        FROM (SELECT m.x, row_number() OVER (ORDER BY m.x) AS rn FROM baseline_member m
              WHERE m.period = g.period AND m.grp = g.grp AND m.event = g.event AND m.metric = g.metric
                AND m.host IS g.host AND m.hour IS g.hour AND m.dow IS g.dow)
        WHERE rn BETWEEN CAST((g.n - 1) * 0.95 AS INTEGER) + 1 AND CAST((g.n - 1) * 0.95 AS INTEGER) + 2) AS p95
FROM (SELECT period, grp, event, host, hour, dow, metric, count(*) AS n, avg(x) AS mean
      FROM baseline_member GROUP BY period, grp, event, host, hour, dow, metric) g;

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
