-- nlkit archive, schema version 4: percentiles of each summary, and derived values that
-- stay finite.
--
-- A summary line now carries the 50th, 90th and 99th percentiles of its durations and of
-- its values (dur.p50 ... v.p99), read from the interval's histogram, and the histogram
-- itself (dur.h, v.h: log-linear buckets, internal/nl_hist.h), which stays in `value`.
-- Percentiles do not average; histograms merge exactly: nl-baseline --percentiles adds the
-- histograms of any set of summaries (hosts, intervals) for the percentiles of all their
-- pairs, as if one histogram had seen them all.
ALTER TABLE summary ADD COLUMN dur_p50 REAL;
ALTER TABLE summary ADD COLUMN dur_p90 REAL;
ALTER TABLE summary ADD COLUMN dur_p99 REAL;
ALTER TABLE summary ADD COLUMN v_p50 REAL;
ALTER TABLE summary ADD COLUMN v_p90 REAL;
ALTER TABLE summary ADD COLUMN v_p99 REAL;

-- A derived value past a double's range (v.sum 1e149 over dur.sum 1e-300) was infinite,
-- and so was every baseline over it. Such values are left out of the metrics, as nl-detect
-- and nl-report leave them out. (The baseline views read summary_metric by name, so
-- replacing it changes them too.)
DROP VIEW summary_metric;
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
WHERE x IS NOT NULL AND abs(x) <= 1.7976931348623157e308;
