#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test_report_pg.sh — nl-report reads a PostgreSQL archive as it reads a SQLite one: the
# demo's half hour (nl-gen-transfers: four GridFTP-like hosts, gw3's disk at 30% from 12:15
# to 12:20, a job that never ends) and nl-detect's reports on it (demo/live.conf's anomaly
# streams and slow-disk alert, and a missing-end rule for the jobs) are loaded into a SQLite
# file and into the test server of tests/pg; the two pages must say the same thing, byte
# for byte but for the archive's name and the time they were written: the same overview
# rows and values, charts, anomaly episodes, alerts, missing ends and lifelines.
#
#   test_report_pg.sh NL-REPORT NL-LOAD NL-DETECT NL-GEN-TRANSFERS DEMO_CONF PG_URI_FILE
set -euo pipefail
NL_REPORT=$1 NL_LOAD=$2 NL_DETECT=$3 NL_GEN=$4 DEMO_CONF=$5
BASE_URI=$(cat "$6")
T=$(mktemp -d /tmp/nlkit-report-pg-XXXXXX)
trap 'rm -rf "$T"' EXIT
fail() {
    echo "FAIL: $*" >&2
    exit 1
}
psql_q() { psql "$BASE_URI" -qAtX -v ON_ERROR_STOP=1 -c "$1"; }
# a fresh schema for this test's archive, and an empty one (never loaded)
psql_q "SET client_min_messages = warning; DROP SCHEMA IF EXISTS report CASCADE;
        DROP SCHEMA IF EXISTS report_empty CASCADE; CREATE SCHEMA report;
        CREATE SCHEMA report_empty" || fail "cannot reach the test's PostgreSQL server ($BASE_URI)"
# with a password (the test server trusts its socket, so it is not checked): never shown
PG="$BASE_URI&options=-csearch_path%3Dreport&password=s3cret"

# the demo's data: its generator, its detector configuration, plus the jobs' missing ends
"$NL_GEN" 1800 4 >"$T/gen.log"
{ grep -v '^missing' "$DEMO_CONF"; echo "missing job.run timeout=15s"; } >"$T/detect.conf"
"$NL_DETECT" -c "$T/detect.conf" "$T/gen.log" >"$T/reports.log"
for want in nl.anomaly.start nl.alert.start nl.missing; do
    grep -q "event=$want " "$T/reports.log" || fail "nl-detect wrote no $want on the demo's data"
done

"$NL_LOAD" -d "$T/a.db" "$T/gen.log" "$T/reports.log" 2>"$T/load.lite" ||
    fail "nl-load into SQLite: $(cat "$T/load.lite")"
"$NL_LOAD" -d "$PG" "$T/gen.log" "$T/reports.log" 2>"$T/load.pg" ||
    fail "nl-load into PostgreSQL: $(cat "$T/load.pg")"
n_lite=$(grep -o '[0-9]* events loaded' "$T/load.lite") n_pg=$(grep -o '[0-9]* events loaded' "$T/load.pg")
[ -n "$n_lite" ] && [ "$n_lite" = "$n_pg" ] || fail "loaded: SQLite '$n_lite', PostgreSQL '$n_pg'"

"$NL_REPORT" -d "$T/a.db" -o "$T/lite.html" 2>"$T/report.lite" ||
    fail "nl-report on SQLite: $(cat "$T/report.lite")"
"$NL_REPORT" -d "$PG" -o "$T/pg.html" 2>"$T/report.pg" ||
    fail "nl-report on PostgreSQL: $(cat "$T/report.pg")"
# "wrote FILE (N KiB): 5 activities x hosts, 5 drawn; 2 anomaly episodes, 1 alert, ..."
facts() { sed -n 's/^nl-report: wrote [^:]*: //p' "$1"; }
f_lite=$(facts "$T/report.lite") f_pg=$(facts "$T/report.pg")
echo "SQLite:     $f_lite"
echo "PostgreSQL: $f_pg"
[ "$f_lite" = "$f_pg" ] || fail "the two reports count different things"
case $f_pg in
*"5 activities x hosts, 5 drawn; 2 anomaly episodes, 1 alert, 1 missing end"*) ;;
*) fail "the PostgreSQL report does not hold the demo's facts: $f_pg" ;;
esac
# the pages: the same but for the archive's name and the writing time, in the header line
strip() { sed 's|<p class="meta">archive [^·]*·\(.*\)· written [^<]*</p>|<p class="meta">\1</p>|' "$1"; }
strip "$T/lite.html" >"$T/lite.cmp"
strip "$T/pg.html" >"$T/pg.cmp"
if ! cmp -s "$T/lite.cmp" "$T/pg.cmp"; then
    diff "$T/lite.cmp" "$T/pg.cmp" | head -n 20 >&2
    fail "the pages from SQLite and from PostgreSQL differ"
fi
grep -q '7386 events' "$T/pg.cmp" || fail "the page's header does not count the 7386 events"
for what in '<tr class="dev-warn">' 'class="episode"' 'class="alert"' 'class="missing"' \
    'class="lifeline"'; do
    grep -q "$what" "$T/pg.cmp" || fail "the PostgreSQL page has no $what"
done
grep -q 'postgresql://' "$T/pg.html" || fail "the page does not name its PostgreSQL archive"
if grep -l s3cret "$T/pg.html" "$T/report.pg"; then fail "the URI's password is shown"; fi

# a database nl-load never wrote: said, with the archive's name, exit 1
if "$NL_REPORT" -d "$BASE_URI&options=-csearch_path%3Dreport_empty" -o "$T/e.html" \
    2>"$T/report.empty"; then
    fail "nl-report on an empty PostgreSQL database succeeded"
fi
grep -q 'postgresql://' "$T/report.empty" || fail "no archive name in: $(cat "$T/report.empty")"
echo "ok: nl-report's page from PostgreSQL is the page from SQLite ($f_pg)"
