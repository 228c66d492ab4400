#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# pipeline.sh — the main demo, live, on one machine: four GridFTP-like servers
# (nl-gridftp-sim) wrap every disk write in a start/end pair, summarized in process every
# 0.25 s, and log through nlkit's x-syslog:// destination to a host syslog-ng
# (syslog-ng.conf.d/nlkit-host.conf, reliable disk buffer), which forwards over TCP to a
# central syslog-ng (nlkit-central.conf): kv-parser, per-day archive file, nl-load into
# SQLite and nl-detect (demo/live.conf), whose reports come back through syslog-ng and are
# archived too. Injected: gw3's disk slows to 30% for 10 s, and a transfer on gw2 hangs.
# Reports are shown as they reach the archive; at the end, what was detected and the
# baseline per host, read back from SQLite; and nl-report draws it all as one page. The archive is kept as BUILD/demo.db, the page as
# BUILD/demo-report.html.
#
#   demo/pipeline.sh [BUILD_DIR [SECONDS]]        (build 45)
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(realpath "${1:-$ROOT/build}")
SECS=${2:-45}
OUT=$(realpath "${3:-$B}")
SNG=$(command -v syslog-ng || echo /usr/sbin/syslog-ng)
CONF=$ROOT/syslog-ng.conf.d NL_LOAD=$B/loader/nl-load NL_DETECT=$B/detector/nl-detect
SIM=$B/examples/nl-gridftp-sim
NL_REPORT=$B/report/nl-report
for f in "$NL_LOAD" "$NL_DETECT" "$SIM" "$B/loader/nl-baseline" "$NL_REPORT" "$SNG"; do
    [ -x "$f" ] || { echo "demo: $f missing (build first; ./nlkit deps installs syslog-ng)" >&2; exit 1; }
done
T=$(mktemp -d /tmp/nlkit-demo-XXXXXX)
. "$ROOT/tests/pipeline/sng_lib.sh"

cp "$ROOT/demo/live.conf" "$T/detect.conf"
# A webhook receiver, where people are: nl-detect's alerts and missing ends are POSTed to it
# (JSON), grouped by alert name; it prints what it gets as it gets it.
python3 "$ROOT/alerts/webhook_sink.py" --out "$T/webhook.jsonl" --port-file "$T/webhook.port" --show &
SINK=$!
trap 'kill $SINK 2>/dev/null || true; cleanup' EXIT
for _ in $(seq 100); do [ -s "$T/webhook.port" ] && break; sleep 0.05; done
[ -s "$T/webhook.port" ] || fail "the webhook receiver did not start"
cat >>"$T/detect.conf" <<EOF
receiver ops http://127.0.0.1:$(cat "$T/webhook.port")/nlkit timeout=5s
route kind=alert notify ops group.by=name group.wait=2s
route kind=missing notify ops
EOF
# Prometheus, where it is installed: it scrapes nl-detect's metrics (--metrics, on a free
# loopback port) every second, with the rules of prometheus/nlkit.rules.yml; one query's
# answer is shown at the end. (`nl_detect` goes into the central's program() command line
# as it is, so the option rides along with the path.)
PROM=$(command -v prometheus || true) PROM_URL=""
free_port() { python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'; }
if [ -n "$PROM" ]; then
    MPORT=$(free_port) PPORT=$(free_port)
    NL_DETECT="$NL_DETECT --metrics 127.0.0.1:$MPORT"
    cat >"$T/prometheus.yml" <<EOF
global: {scrape_interval: 1s, evaluation_interval: 1s}
rule_files: ["$ROOT/prometheus/nlkit.rules.yml"]
scrape_configs: [{job_name: nlkit, static_configs: [{targets: ["127.0.0.1:$MPORT"]}]}]
EOF
    "$PROM" --config.file="$T/prometheus.yml" --storage.tsdb.path="$T/prom" \
        --web.listen-address="127.0.0.1:$PPORT" --log.level=warn >"$T/prometheus.log" 2>&1 &
    PROM_PID=$!
    PROM_URL=http://127.0.0.1:$PPORT
    trap 'kill $SINK $PROM_PID 2>/dev/null || true; cleanup' EXIT
fi
start_central
printf '@version: 3.38\n@include "%s/nlkit-host.conf"\n' "$CONF" >"$T/host.conf"
printf 'nlkit_host(socket("%s/host.sock") local_port(%s) port(%s) buffer_dir("%s/buf") reopen(1));\n' \
    "$T" $((PORT + 1)) "$PORT" "$T" >>"$T/host.conf"
mkdir -p "$T/buf"
start host
came_up host || fail "the host daemon would not start: $(tail -n 3 "$T/host.log")"
wait_for "$T/host.sock" "the host daemon's socket"
echo "host syslog-ng (socket $T/host.sock) -> TCP 127.0.0.1:$PORT -> central syslog-ng -> nl-load, nl-detect -> webhook on 127.0.0.1:$(cat "$T/webhook.port")"
echo "four servers gw1-gw4 for $SECS s; injected: gw3's disk at 30% from 20 s to 30 s, a transfer on gw2 hangs at 15 s"
echo "(the \"disk\" is a timed sleep: on a busy machine a host's measured rate can really dip, and be reported too)"
echo

sims=()
for h in 1 2 3 4; do
    case $h in
    2) args=(-1 0 1 15) ;;  # a hung transfer at 15 s
    3) args=(20 10 0.3) ;;  # slow disk from 20 s for 10 s
    *) args=() ;;
    esac
    NL_DEST="x-syslog://nl-gridftp-sim?socket=$T/host.sock" NL_SUMMARY='gridftp.disk.write=summary:0.25' \
        "$SIM" "gw$h" "$SECS" "${args[@]}" >"$T/sim$h.out" &
    sims+=($!)
done

# reports as they reach the archive, until the servers are done
REPORT="SELECT e.id, strftime('%H:%M:%S', e.ts, 'unixepoch'), e.event,
               (SELECT group_concat(name || '=' || value, ' ') FROM value v WHERE v.event_id = e.id
                AND name IN ('key.host', 'algo', 'name', 'activity', 'len', 'dur', 'value',
                             'reference', 'timeout', 'held'))
        FROM event e WHERE e.event LIKE 'nl.%'"
t0=$SECONDS seen=0
show_new() {
    local rows
    rows=$(sql "$REPORT AND e.id > $seen ORDER BY e.id" 2>/dev/null) || return 0
    [ -n "$rows" ] || return 0
    while IFS='|' read -r id at ev fields; do
        printf '  [%3ds] %s %-16s %s\n' $((SECONDS - t0)) "$at" "$ev" "$fields"
        seen=$id
    done <<<"$rows"
}
echo "reports from nl-detect, as they arrive in the archive (and 'webhook:' lines as the receiver gets them):"
running() { local p; for p in "${sims[@]}"; do kill -0 "$p" 2>/dev/null && return 0; done; return 1; }
while running; do
    sleep 1
    show_new
done
for p in "${sims[@]}"; do wait "$p" || true; done
writes=0 transfers=0
for h in 1 2 3 4; do
    grep -q "dropped=0$" "$T/sim$h.out" || fail "gw$h dropped lines: $(cat "$T/sim$h.out")"
    writes=$((writes + $(sed 's/.*writes=\([0-9]*\).*/\1/' "$T/sim$h.out")))
    transfers=$((transfers + $(sed 's/.*transfers=\([0-9]*\).*/\1/' "$T/sim$h.out")))
done
wait_sql "SELECT sum(n) FROM summary WHERE event = 'gridftp.disk.write.summary'" $writes 30 \
    "disk writes counted in the archived summaries"
wait_sql "SELECT count(*) FROM event WHERE event = 'gridftp.transfer.start'" $transfers 30 \
    "transfers archived"
sleep 2
show_new

echo
echo "== archived in SQLite: $writes disk writes in $(sql "SELECT count(*) FROM summary WHERE event = 'gridftp.disk.write.summary'") summaries, $transfers transfers, $(sql "SELECT count(*) FROM event WHERE event LIKE 'nl.%'") reports; per-day file: $(cat "$T"/archive/*.log | wc -l) lines; lines the tools wrote on stderr (errors and notes, $T/tools.log): $(wc -l <"$T/tools.log")"
echo
echo "== what was detected, read back from SQLite (a missing end's host is its start's, found by guid)"
sqlite3 -header -column "$T/archive.db" "
    WITH r AS (
        SELECT e.id, e.ts, e.event,
               coalesce((SELECT value FROM value WHERE event_id = e.id AND name = 'key.host'),
                        (SELECT h.value FROM ident g JOIN ident s ON s.value = g.value AND s.name = 'guid'
                         JOIN event se ON se.id = s.event_id AND se.event LIKE '%.start'
                         JOIN value h ON h.event_id = se.id AND h.name = 'host'
                         WHERE g.event_id = e.id AND g.name = 'guid')) AS host,
               coalesce((SELECT value FROM value WHERE event_id = e.id AND name IN ('algo', 'name', 'activity')), '') AS what
        FROM event e WHERE e.event LIKE 'nl.%')
    SELECT event, host, what, strftime('%H:%M:%S', min(ts), 'unixepoch') AS first, count(*) AS reports
    FROM r GROUP BY event, host, what ORDER BY min(ts), event"
echo
echo "== what the webhook receiver got (JSON POSTed by nl-detect; $T/webhook.jsonl)"
python3 - "$T/webhook.jsonl" <<'PY'
import json, os, sys
rows = [json.loads(l) for l in open(sys.argv[1])] if os.path.exists(sys.argv[1]) else []
for r in rows:
    b = r["body"]
    for a in b["alerts"]:
        if a["new"] or a["end"]:  # a firing alert's first notice, and its resolve
            end = f"  end {a['end'][11:19]}" if a["end"] else ""
            print(f"  {b['status']:8} {a['kind']:7} {a['key']:28} start {a['start'][11:19]}{end}"
                  f"  (notification {b['seq']} of group {b['group']})")
print(f"  {len(rows)} notification(s)")
PY
if [ -n "$PROM_URL" ]; then
    echo
    echo "== Prometheus ($PROM_URL, scraping nl-detect --metrics): p99 of the disk writes per host"
    echo "   histogram_quantile(0.99, sum by (host, le) (rate(nlkit_activity_duration_seconds_bucket[5m])))"
    sleep 3 # the last summaries scraped
    python3 - "$PROM_URL" <<'PY'
import json, sys, urllib.parse, urllib.request
def q(expr):
    url = sys.argv[1] + "/api/v1/query?" + urllib.parse.urlencode({"query": expr})
    try:
        return json.load(urllib.request.urlopen(url, timeout=10))["data"]["result"]
    except OSError as e:
        print("  (Prometheus did not answer: %s)" % e)
        return []
for r in sorted(q('histogram_quantile(0.99, sum by (host, le) (rate('
                  'nlkit_activity_duration_seconds_bucket{activity="gridftp.disk.write"}[5m])))'),
                key=lambda r: r["metric"].get("host", "")):
    print("  %-4s p99 %.4f s" % (r["metric"].get("host", "?"), float(r["value"][1])))
fired = q('max_over_time(ALERTS{alertstate="firing"}[5m])')
print("  alerting rules that fired: " + (", ".join(sorted("%s %s" % (r["metric"]["alertname"],
      r["metric"].get("host", r["metric"].get("activity", ""))) for r in fired)) or "none"))
PY
fi
echo
echo "== nl-baseline: what is normal per host (throughput of the disk-write summaries)"
"$B/loader/nl-baseline" -d "$T/archive.db" -e gridftp.disk.write.summary --by host --metric rate --table
echo
echo "== tail latency per host: every disk write's duration, the summaries' histograms merged"
"$B/loader/nl-baseline" -d "$T/archive.db" -e gridftp.disk.write.summary --by host --percentiles dur --table
stop host
stop central
grep -q '"slow-disk host=gw3"' "$T/webhook.jsonl" 2>/dev/null ||
    echo "demo: gw3's slow-disk alert did not reach the webhook (on a busy machine the dip may be missed)" >&2
rm -f "$OUT/demo.db" "$OUT/demo.db-wal" "$OUT/demo.db-shm"
# the loader (a program of the central daemon) may still be committing its last lines
sqlite3 "$T/archive.db" ".timeout 20000" ".backup '$OUT/demo.db'"
echo
echo "the archive is kept: sqlite3 $OUT/demo.db \"SELECT host, count(*), avg(rate) FROM summary GROUP BY host\""
echo
echo "== the report: series, baselines, anomalies and a lifeline, as one page"
"$NL_REPORT" -d "$OUT/demo.db" -o "$OUT/demo-report.html" --title "nlkit demo: four GridFTP-like servers, gw3's disk slowed"
echo "open it in a browser: file://$OUT/demo-report.html"
