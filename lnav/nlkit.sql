-- nlkit.sql — lnav views over nlkit lines, whichever lnav format claimed the file: lnav 0.11
-- (Debian 12) tries its built-in logfmt format before any installed one, and that format
-- reads only the ts= field of a line (every line shows as "info"); these views read the
-- line itself. Installed with `lnav -i nlkit.sql`; lnav runs it at every start.
--
--   nlkit_events     one row per nlkit line: ts (microseconds, as written), event, level,
--                    guid, host, prog and the whole line
--   nlkit_summaries  the NAME.summary lines, with their counts and sums as numbers

CREATE VIEW IF NOT EXISTS nlkit_events AS
SELECT log_line,
       log_format,
       regexp_match('^ts=(\S+)', log_text) AS ts,
       regexp_match(' event=(\S+)', log_text) AS event,
       regexp_match(' level=([A-Za-z]+)', log_text) AS level,
       regexp_match(' guid=(\S+)', log_text) AS guid,
       regexp_match(' host=(\S+)', log_text) AS host,
       regexp_match(' prog=(\S+)', log_text) AS prog,
       log_text AS line
  FROM all_logs
 WHERE log_text GLOB 'ts=* event=* level=*';

CREATE VIEW IF NOT EXISTS nlkit_summaries AS
SELECT log_line, ts, substr(event, 1, length(event) - 8) AS activity, guid, host, prog,
       CAST(regexp_match(' n=(\S+)', line) AS INTEGER) AS n,
       CAST(regexp_match(' dur\.sum=(\S+)', line) AS REAL) AS dur_sum,
       CAST(regexp_match(' v\.sum=(\S+)', line) AS REAL) AS v_sum,
       CAST(regexp_match(' r\.sum=(\S+)', line) AS REAL) AS r_sum,
       CAST(regexp_match(' open=(\S+)', line) AS INTEGER) AS open,
       CAST(regexp_match(' int=(\S+)', line) AS REAL) AS interval
  FROM nlkit_events
 WHERE event GLOB '*.summary';
