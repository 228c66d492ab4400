#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bench_report.sh — nl-report on a large archive: a month of a 20-host site (10M events by
# default: two summarized activities per host, a transfer per host and minute logged in
# full, one injected slow disk with its anomaly episode), loaded once with nl-load and kept
# (BUILD/bench-report.db; delete it to make it again). Then the report over the month, over
# its last day and for one host, each timed, with the page's size and what it drew; beside
# them, as the anchor, the least any report must do: sqlite3 reading every summary and every
# event of the month once (one aggregate each), in the same run.
#   bench/bench_report.sh [BUILD_DIR [EVENTS]]        (build 10000000)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(realpath "${1:-$ROOT/build}")
EVENTS=${2:-10000000}
DB=$B/bench-report.db
for f in "$B/bench/nl-report-gen" "$B/loader/nl-load" "$B/report/nl-report"; do
    [ -x "$f" ] || { echo "bench_report: $f missing (build first)" >&2; exit 1; }
done
if [ ! -s "$DB" ] || [ "$(sqlite3 "$DB" 'SELECT count(*) FROM event' 2>/dev/null || echo 0)" -lt $((EVENTS * 9 / 10)) ]; then
    rm -f "$DB" "$DB-wal" "$DB-shm"
    echo "making the archive: $EVENTS events (once; kept as $DB)"
    t=$(date +%s.%N)
    "$B/bench/nl-report-gen" "$EVENTS" | "$B/loader/nl-load" -q -d "$DB" -
    echo "loaded in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t}") s"
fi
n=$(sqlite3 "$DB" 'SELECT count(*) FROM event')
echo "archive: $n events, $(( $(stat -c %s "$DB") / 1048576 )) MiB"
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
printf '\n%-28s %9s %10s %8s %6s\n' "report" "seconds" "page KiB" "charts" "drawn"
run() {
    local name=$1; shift
    local t0 t1 msg
    t0=$(date +%s.%N)
    msg=$("$B/report/nl-report" -d "$DB" -o "$OUT/r.html" "$@" 2>&1)
    t1=$(date +%s.%N)
    local charts drawn
    charts=$(sed -n 's/.*: \([0-9]*\) activit.*/\1/p' <<<"$msg")
    drawn=$(sed -n 's/.*, \([0-9]*\) drawn.*/\1/p' <<<"$msg")
    printf '%-28s %9.2f %10d %8s %6s\n' "$name" "$(awk "BEGIN{print $t1 - $t0}")" \
        $(( ($(stat -c %s "$OUT/r.html") + 1023) / 1024 )) "$charts" "$drawn"
}
last=$(sqlite3 "$DB" 'SELECT max(ts) FROM event')
anchor() {
    local t0 t1
    t0=$(date +%s.%N)
    sqlite3 "$DB" "SELECT sum(n), sum(rate), max(mean_dur) FROM summary; SELECT count(DISTINCT event) FROM event" >/dev/null
    t1=$(date +%s.%N)
    printf '%-28s %9.2f %10s %8s %6s\n' "anchor: sqlite3, one pass" "$(awk "BEGIN{print $t1 - $t0}")" - - -
}
anchor
run "the month, every host"
run "the month, one host" --host h07
run "the last day, every host" --since "$(awk "BEGIN{printf \"%.6f\", $last - 86400}")"
