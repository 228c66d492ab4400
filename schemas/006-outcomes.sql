-- nlkit archive, schema version 6: outcomes of the pairs a summary folded.
--
-- A summary line now says how many of its pairs failed: err.n counts the ends whose result
-- field (status=, or the rule's result=) says an error (an HTTP status of 500 or more,
-- another non-zero number, a word other than ok/success/true: summarizer/README.md), and
-- err_ratio is errors per pair, the E of rate, errors, duration (nl-baseline --metric
-- err.ratio). The counts by HTTP class (res.2xx ... res.5xx) and res.n (when not every end
-- carried a result) stay in `value`. Summaries written before have err_n NULL: unknown,
-- not zero.
ALTER TABLE summary ADD COLUMN err_n INTEGER;
ALTER TABLE summary ADD COLUMN err_ratio REAL GENERATED ALWAYS AS
    (CASE WHEN n <> 0 THEN CAST(err_n AS REAL) / n END) VIRTUAL;
