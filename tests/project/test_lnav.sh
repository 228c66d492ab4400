#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_lnav.sh — Debian's lnav reads nlkit logs with the files in lnav/: the format loads
# and every sample in it parses with the level it claims (lnav checks them at load), and, on
# the log of a real instrumented run (nl-gridftp-sim, summarized) plus a line of every
# level, the nlkit_events and nlkit_summaries views agree with the file itself: every line,
# every level, the exact microsecond timestamps, the summed pair counts.
#   test_lnav.sh SOURCE_DIR GRIDFTP_SIM
set -euo pipefail
src=$1 sim=$2
command -v lnav >/dev/null || { echo "SKIP: lnav is not installed (apt-get install lnav)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export HOME=$tmp/home # lnav keeps its state under HOME: not the user's
mkdir -p "$HOME" "$tmp/cfg/formats/nlkit"
cp "$src"/lnav/nlkit_log.json "$src"/lnav/nlkit.sql "$tmp/cfg/formats/nlkit/"
fail() { echo "FAIL: $*" >&2; exit 1; }
q() { lnav -n -I "$tmp/cfg" -c ";$1" "${@:2}" 2>&1 | sed -n '2p' | tr -s ' ' | sed 's/^ //; s/ $//'; }

# 1. the format loads without a warning, and lnav accepts every sample in it
: >"$tmp/empty.log"
out=$(lnav -W -I "$tmp/cfg" -n "$tmp/empty.log" 2>&1) || fail "lnav rejects the format: $out"
[ -z "$out" ] || fail "lnav warns about the format: $out"

# 2. a real run, summarized, and one line of each level
NL_DEST=$tmp/run.log NL_SUMMARY='gridftp.*=both:1' "$sim" h1 2 >"$tmp/sim.out" 2>&1
writes=$(sed -n 's/.*writes=\([0-9]*\).*/\1/p' "$tmp/sim.out")
[ "${writes:-0}" -gt 0 ] || fail "nl-gridftp-sim wrote nothing: $(cat "$tmp/sim.out")"
g=278415b1-4549-4e6c-b858-431a931463db
cat >"$tmp/levels.log" <<LINES
ts=2026-11-23T09:35:10.000001Z event=t.fatal level=Fatal guid=$g
ts=2026-11-23T09:35:10.000002Z event=t.error level=Error guid=$g msg="disk \"full\""
ts=2026-11-23T09:35:10.000003Z event=nl.anomaly level=Warn guid=$g stream=rate score=0.999
ts=2026-11-23T09:35:10.000004Z event=t.debug level=Debug guid=$g
ts=2026-11-23T09:35:10.000005Z event=t.trace level=Trace guid=$g
LINES
lines=$(cat "$tmp/run.log" "$tmp/levels.log" | wc -l)
got=$(q 'SELECT count(*) FROM nlkit_events' "$tmp/run.log" "$tmp/levels.log")
[ "$got" = "$lines" ] || fail "nlkit_events has $got rows, the files $lines lines"
for lv in Fatal Error Warn Info Debug Trace; do
    want=$(cat "$tmp/run.log" "$tmp/levels.log" | grep -c " level=$lv " || true)
    got=$(q "SELECT count(*) FROM nlkit_events WHERE level = '$lv'" "$tmp/run.log" "$tmp/levels.log")
    [ "$got" = "$want" ] || fail "level $lv: lnav $got, the files $want"
done
# the first line, field for field (lnav's own log_time keeps only milliseconds)
first=$(head -n 1 "$tmp/run.log")
want="$(echo "$first" | sed 's/^ts=\([^ ]*\) event=\([^ ]*\) level=\([^ ]*\) guid=\([^ ]*\).*/\1 \2 \3 \4/')"
got=$(q 'SELECT ts, event, level, guid FROM nlkit_events ORDER BY log_line LIMIT 1' "$tmp/run.log")
[ "$got" = "$want" ] || fail "first line: lnav '$got', the file '$want'"
# every disk write is one pair, counted once in the summaries
got=$(q "SELECT sum(n) FROM nlkit_summaries WHERE activity = 'gridftp.disk.write'" "$tmp/run.log")
[ "$got" = "$writes" ] || fail "summaries count $got disk writes, the program $writes"
echo "ok: lnav $(lnav -V | awk '{print $2}'): format and samples accepted; $lines lines, 6 levels, $writes summarized writes"
