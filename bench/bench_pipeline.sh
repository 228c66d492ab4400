#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# bench_pipeline.sh — events/s through the whole collection pipeline, sustained, with the
# loss count: a program writing through nlkit's x-syslog:// destination at a fixed rate ->
# host syslog-ng (nlkit-host.conf, disk buffer) -> TCP -> central syslog-ng
# (nlkit-central.conf: kv-parser, per-day file, nl-load, nl-detect), into each archive: a
# SQLite file, and PostgreSQL (a throwaway local server, tests/pg/pg_cluster.sh). For each
# archive and rate: events sent, dropped by the library (the host's socket full), archived,
# lost, and the rate that reached the archive including the time to drain; and the CPU
# time each stage used per event archived (from /proc; PostgreSQL's server processes are a
# stage of their own).
#
# Then the collector stage alone, side by side with the reference: syslog-ng's own loggen
# sends the same framed lines as fast as one TCP connection takes them to (a) a plain
# syslog-ng with kv-parser writing a file, and (b) nlkit_central (kv-parser, filters,
# per-day file, nl-load into SQLite, nl-detect); the ratio is (b)/(a).
#
#   bench/bench_pipeline.sh [BUILD_DIR [RATES [SECONDS [STAGE_LINES]]]]
#                                             (build "50000 100000 150000" 60 1000000)
#
# NLKIT_BENCH_DB="sqlite pg" (the default) chooses the archives.
#
# The program reaches the host daemon over its loopback TCP port (x-netlog://, a stream with
# back-pressure); NLKIT_BENCH_VIA=syslog uses the unix datagram socket (x-syslog://)
# instead, where the kernel's net.unix.max_dgram_qlen bounds a burst. NLKIT_BENCH_HOST adds
# parameters to the host block, e.g. 'reliable(no)'.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
B=$(realpath "${1:-$ROOT/build}")
RATES=${2:-"50000 100000 150000"}
SECS=${3:-60}
STAGE_LINES=${4:-1000000}
SNG=$(command -v syslog-ng || echo /usr/sbin/syslog-ng)
CONF=$ROOT/syslog-ng.conf.d NL_LOAD=$B/loader/nl-load NL_DETECT=$B/detector/nl-detect
GEN=$B/bench/nl-pipeline-gen
VIA=${NLKIT_BENCH_VIA:-netlog}
DBS=${NLKIT_BENCH_DB:-"sqlite pg"}
for f in "$NL_LOAD" "$NL_DETECT" "$GEN" "$SNG"; do
    [ -x "$f" ] || { echo "bench-pipeline: $f missing (build first; ./nlkit deps)" >&2; exit 1; }
done

echo "bench-pipeline: nlkit -($VIA)-> host syslog-ng -> TCP -> central syslog-ng -> nl-load, $SECS s per rate"
echo "($(nproc) cores; everything on this one machine)"
echo
# CPU seconds a process has used so far (all its threads), from /proc
cpu_s() {
    local f
    f=$(cut -d')' -f2 "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
    awk -v hz="$(getconf CLK_TCK)" '{ printf "%.2f", ($12 + $13) / hz }' <<<"$f"
}
# PostgreSQL: a throwaway server for the run
PGT=""
pg_down() { [ -z "$PGT" ] || { "$ROOT/tests/pg/pg_cluster.sh" stop "$PGT" >/dev/null 2>&1; rm -rf "$PGT"; }; }
if [[ " $DBS " == *" pg "* ]]; then
    PGT=$(mktemp -d /tmp/nlkit-bench-pgd-XXXXXX)
    "$ROOT/tests/pg/pg_cluster.sh" start "$PGT" >/dev/null ||
        { echo "bench-pipeline: no PostgreSQL server (./nlkit deps installs postgresql)" >&2; exit 1; }
    PG_URI=$(cat "$PGT/uri") PG_DIR=$(cat "$PGT/cluster")
    trap pg_down EXIT
fi
# CPU seconds PostgreSQL's processes have used so far: the server's, and (cutime, cstime)
# its sessions' that have ended
pg_cpu_s() {
    local pid total=0 f
    for pid in $(pgrep -f "postgres.*-D $PG_DIR/data" 2>/dev/null; pgrep -P "$(head -n 1 "$PG_DIR/data/postmaster.pid")" 2>/dev/null); do
        f=$(cut -d')' -f2 "/proc/$pid/stat" 2>/dev/null) || continue
        total=$(awk -v hz="$(getconf CLK_TCK)" -v t="$total" '{ printf "%.2f", t + ($12 + $13 + $14 + $15) / hz }' <<<"$f")
    done
    echo "$total"
}
# events archived so far, in this run's archive
archived() {
    if [ "$DB" = pg ]; then
        psql "$NLKIT_CENTRAL_DB" -qAtX -c "SELECT count(*) FROM event WHERE event = 'bench.pipe.read.end'" 2>/dev/null || echo 0
    else
        sql "SELECT count(*) FROM event WHERE event = 'bench.pipe.read.end'" 2>/dev/null || echo 0
    fi
}
echo "| archive | target/s | sent | sent/s | dropped by library | archived | lost in the pipeline | archived/s |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|"
CPU_ROWS=""
for DB in $DBS; do
for RATE in $RATES; do
    T=$(mktemp -d /tmp/nlkit-bench-sng-XXXXXX)
    . "$ROOT/tests/pipeline/sng_lib.sh"
    trap 'cleanup; pg_down' EXIT
    c_pg0=0
    if [ "$DB" = pg ]; then
        psql "$PG_URI" -qAtX -c "SET client_min_messages = warning; DROP SCHEMA IF EXISTS bench CASCADE; CREATE SCHEMA bench"
        export NLKIT_CENTRAL_DB="$PG_URI&options=-csearch_path%3Dbench"
        c_pg0=$(pg_cpu_s)
    else
        unset NLKIT_CENTRAL_DB
    fi
    echo "stream s event=bench.pipe.read value=nbytes algo=msd-hu" >"$T/detect.conf"
    start_central
    printf '@version: 3.38\n@include "%s/nlkit-host.conf"\n' "$CONF" >"$T/host.conf"
    LPORT=$((PORT + 1))
    printf 'nlkit_host(socket("%s/host.sock") local_port(%s) port(%s) buffer_dir("%s/buf") reopen(1) %s);\n' \
        "$T" "$LPORT" "$PORT" "$T" "${NLKIT_BENCH_HOST:-}" >>"$T/host.conf"
    mkdir -p "$T/buf"
    start host
    came_up host || fail "the host daemon would not start: $(tail -n 3 "$T/host.log")"
    wait_for "$T/host.sock" "the host daemon's socket"
    t0=$(date +%s.%N)
    sleep 0.5
    if [ "$VIA" = syslog ]; then
        dest="x-syslog://nl-pipeline-gen?socket=$T/host.sock"
    else
        dest="x-netlog://127.0.0.1:$LPORT"
    fi
    out=$(NL_DEST="$dest" "$GEN" "$RATE" "$SECS" 2>"$T/gen.err")
    # lines the library dropped after the count it printed (at close) are lost to the count
    if grep -q "could not be delivered" "$T/gen.err"; then
        echo "bench-pipeline: $(cat "$T/gen.err")" >&2
    fi
    sent=$(sed -n 's/.*sent=\([0-9]*\).*/\1/p' <<<"$out")
    dropped=$(sed -n 's/.*dropped=\([0-9]*\).*/\1/p' <<<"$out")
    sent_rate=$(sed -n 's/.*rate=\([0-9]*\).*/\1/p' <<<"$out")
    # wait until the archive has everything, or has not grown for 10 s
    have=0 last=-1 still=0 t1=$t0
    while [ "$still" -lt 100 ] && [ "$have" -lt $((sent - dropped)) ]; do
        sleep 0.1
        have=$(archived)
        if [ "$have" = "$last" ]; then
            still=$((still + 1))
        else
            still=0 last=$have t1=$(date +%s.%N)
        fi
    done
    into=$(awk -v n="$have" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }')
    name=$([ "$DB" = pg ] && echo PostgreSQL || echo SQLite)
    # where the CPU went, per event archived
    c_host=$(cpu_s "$(cat "$T/host.bg")") c_central=$(cpu_s "$(cat "$T/central.bg")")
    c_load=$(cpu_s "$(pgrep -f "^$NL_LOAD " | head -n 1)")
    c_detect=$(cpu_s "$(pgrep -f "^$NL_DETECT " | head -n 1)")
    # lost: what is not archived once the daemons have stopped (nl-load commits at exit)
    stop host
    stop central
    final=$(archived)
    echo "| $name | $RATE | $sent | $sent_rate | $dropped | $final | $((sent - dropped - final)) | $into |"
    c_gen=$(sed -n 's/.*cpu=\([0-9.]*\).*/\1/p' <<<"$out")
    c_db=0
    [ "$DB" = pg ] && c_db=$(awk -v a="$(pg_cpu_s)" -v b="$c_pg0" 'BEGIN { printf "%.2f", a - b }')
    CPU_ROWS+=$(awk -v n="$have" -v r="$RATE" -v a="$c_gen" -v b="$c_host" -v c="$c_central" \
        -v d="$c_load" -v s="$c_db" -v e="$c_detect" -v db="$name" 'BEGIN { u = 1e6 / n
        printf "| %s | %d | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f | %.1f |\\n", db, r, a*u, b*u, c*u, d*u, s*u, e*u, (a+b+c+d+s+e)*u }')
    cleanup
    trap pg_down EXIT
done
done
unset NLKIT_CENTRAL_DB
echo
echo "CPU per event archived, in microseconds (all threads; 2 cores give 20 us per event at 100k/s):"
echo
echo "| archive | target/s | program | host syslog-ng | central syslog-ng | nl-load | database server | nl-detect | total |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|"
printf "$CPU_ROWS"

# --- the collector stage alone, against a plain syslog-ng with kv-parser ---
LOGGEN=$(command -v loggen || echo /usr/bin/loggen)
[ -x "$LOGGEN" ] || { echo "bench-pipeline: loggen (syslog-ng-core) missing" >&2; exit 1; }
T=$(mktemp -d /tmp/nlkit-bench-sng-XXXXXX)
. "$ROOT/tests/pipeline/sng_lib.sh"
trap 'cleanup; pg_down' EXIT
# the lines as a host daemon forwards them: a syslog header, then the nlkit line
NL_DEST="$T/raw.log" "$GEN" "$STAGE_LINES" 1 >/dev/null # RATE x 1 s = STAGE_LINES lines
awk '{ print "<14>Nov 23 00:50:00 hosta nlkit: " $0 }' "$T/raw.log" >"$T/in.log"
N=$(wc -l <"$T/in.log")
rm "$T/raw.log"

send_all() { # send_all PORT COUNT-COMMAND: loggen at full speed; lines/s until COUNT = N
    local t0 t1 have=0 still=0 last=-1 lg
    t0=$(date +%s.%N)
    "$LOGGEN" -i -S -Q -d -R "$T/in.log" -r 100000000 -I 3600 -n "$N" 127.0.0.1 "$1" \
        >"$T/loggen.out" 2>&1 &
    lg=$!
    while [ "$have" -lt "$N" ] && [ "$still" -lt 50 ]; do
        sleep 0.1
        have=$(eval "$2" 2>/dev/null || echo 0)
        if [ "$have" = "$last" ]; then still=$((still + 1)); else still=0 last=$have; fi
    done
    t1=$(date +%s.%N)
    wait "$lg" || true
    [ "$have" = "$N" ] || echo "bench-pipeline: only $have of $N arrived" >&2
    awk -v n="$have" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.0f", n / (b - a) }'
}

PORT=$((20000 + RANDOM % 30000))
cat >"$T/plain.conf" <<EOF
@version: 3.38
source s_in { network(ip("127.0.0.1") port($PORT) transport("tcp") keep-hostname(yes)
                      log-fetch-limit(100) log-iw-size(100000) max-connections(100)); };
parser p_kv { kv-parser(prefix(".nl.")); };
destination d_out { file("$T/plain.out" template("\${MSG}\n") flush-lines(1000)); };
log { source(s_in); parser(p_kv); destination(d_out); flags(flow-control); };
EOF
start plain
for _ in $(seq 50); do ss -ltn | grep -q ":$PORT " && break; sleep 0.1; done
plain=$(send_all "$PORT" "wc -l <'$T/plain.out'")
stop plain

echo "stream s event=bench.pipe.read value=nbytes algo=msd-hu" >"$T/detect.conf"
start_central
ours=$(send_all "$PORT" "sql 'SELECT count(*) FROM event'")
echo
echo "collector stage alone, $N lines over one TCP connection (loggen, full speed):"
echo
echo "| receiver | lines/s |"
echo "|---|---:|"
echo "| syslog-ng: kv-parser -> file (reference) | $plain |"
echo "| nlkit_central: kv-parser, filters, file, nl-load -> SQLite, nl-detect | $ours |"
awk -v a="$ours" -v b="$plain" 'BEGIN { printf "| ratio nlkit_central / reference | %.2f |\n", a / b }'
