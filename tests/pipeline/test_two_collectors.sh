#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test_two_collectors.sh — a site with two collectors and one archive, with real daemons on
# loopback: four hosts (a host syslog-ng each, syslog-ng.conf.d/nlkit-host.conf) split
# between two central syslog-ng daemons (nlkit-central.conf) on two ports, both loading
# into one PostgreSQL archive (the test server of tests/pg). Each host runs an instrumented
# program, two of them summarized, two logging every start and end in full; then one
# collector is down for 30 s while every host logs again. Every event each program wrote
# must be archived exactly once, field for field (what each host daemon took from its
# program, loaded on its own, is the reference).
#
#   test_two_collectors.sh NL-LOAD NL-DETECT NL-SNG-WORKLOAD CONF_DIR PG_URI_FILE
set -euo pipefail
NL_LOAD=$(realpath "$1") NL_DETECT=$(realpath "$2") WORKLOAD=$(realpath "$3") CONF=$(realpath "$4")
BASE_URI=$(cat "$5")
SNG=$(command -v syslog-ng || echo /usr/sbin/syslog-ng)
PAIRS=20000                        # per host and round
OUTAGE=${NLKIT_SNG_OUTAGE:-30}     # seconds collector c1 is down in round 2
HOSTS="h1 h2 h3 h4"                # h1, h2 send to c1; h3, h4 to c2; h1, h3 summarize
T=$(mktemp -d /tmp/nlkit-2c-XXXXXX)

. "$(dirname "$0")/sng_lib.sh"
cleanup() {
    for d in $HOSTS c1 c2; do stop "$d"; done
    if [ -n "${NLKIT_KEEP:-}" ]; then echo "kept $T" >&2; else rm -rf "$T"; fi
}
psql_q() { psql "$BASE_URI" -qAtX -v ON_ERROR_STOP=1 -c "$1"; }
# a fresh schema for the site's archive and one for the reference
psql_q "SET client_min_messages = warning; DROP SCHEMA IF EXISTS site CASCADE;
        DROP SCHEMA IF EXISTS want CASCADE; CREATE SCHEMA site; CREATE SCHEMA want" ||
    fail "cannot reach the test's PostgreSQL server ($BASE_URI)"
SITE="$BASE_URI&options=-csearch_path%3Dsite" WANT="$BASE_URI&options=-csearch_path%3Dwant"
site() { psql "$SITE" -qAtX -c "$1"; }

cat >"$T/detect.conf" <<EOF
stream work event=test.work value=mean.dur key=guid algo=msd-hu side=above k=4 history=100 min=10 episode.min=2
EOF

# start_collector NAME: nlkit_central on a free port (sets PORT_NAME), loading into the site
start_collector() {
    local name=$1 port
    for _ in 1 2 3 4 5; do
        port=$(free_port)
        cat >"$T/$name.conf" <<EOF
@version: 3.38
@include "$CONF/nlkit-central.conf"
nlkit_central(id($name) port($port) socket("$T/$name.sock") archive("$T/$name-archive")
              db("$SITE") detect_conf("$T/detect.conf") nl_load("$NL_LOAD")
              nl_detect("$NL_DETECT") errors("$T/$name-tools.log"));
EOF
        rm -f "$T/$name.sock"
        start "$name"
        if came_up "$name"; then
            wait_for "$T/$name.sock" "collector $name's socket"
            eval "PORT_$name=$port"
            return 0
        fi
        grep -q "Error parsing" "$T/$name.log" && fail "the $name configuration is refused"
    done
    fail "collector $name would not start"
}
# restart_collector NAME: the same configuration, the same port (its hosts send there)
restart_collector() {
    local port
    eval "port=\$PORT_$1"
    rm -f "$T/$1.sock"
    start "$1"
    came_up "$1" || fail "collector $1 could not take its port $port again: $(tail -n 3 "$T/$1.log")"
    wait_for "$T/$1.sock" "collector $1's socket"
}

start_collector c1
start_collector c2
echo "0. two collectors (ports $PORT_c1, $PORT_c2) loading into one PostgreSQL archive"

# start_host NAME COLLECTOR_PORT: a host syslog-ng with a disk buffer and a copy of what its
# program wrote, on a loopback port for its program that it was seen to take (sets
# LOCAL_NAME): a host daemon that cannot take its port exits, and its program's lines would
# go nowhere
start_host() {
    local h=$1 lport
    mkdir -p "$T/$h-buf"
    for _ in 1 2 3 4 5; do
        lport=$(free_port 0)
        cat >"$T/$h.conf" <<EOF
@version: 3.38
@include "$CONF/nlkit-host.conf"
nlkit_host(id($h) socket("$T/$h.sock") local_port($lport) central("127.0.0.1")
           port($2) buffer_dir("$T/$h-buf") reopen(1));
destination d_test_copy { file("$T/$h-copy.log" template("\${MSG}\n")); };
log { source(s_nlkit_local_$h); destination(d_test_copy); };
EOF
        rm -f "$T/$h.sock"
        start "$h"
        if came_up "$h"; then
            wait_for "$T/$h.sock" "host $h's socket"
            eval "LOCAL_$h=$lport"
            return 0
        fi
    done
    fail "host $h's syslog-ng would not start"
}
for h in $HOSTS; do
    case $h in h1 | h2) start_host "$h" "$PORT_c1" ;; *) start_host "$h" "$PORT_c2" ;; esac
done

# round: every host's program logs PAIRS start/end pairs at once, over its host daemon's
# loopback port (back-pressure, never a drop): h1 and h3 summarized every 50 ms, h2 and h4
# every start and end. No line may be dropped: none counted by the end of the run, and none
# said undelivered at nl_close (the library says that on standard error, after the count)
round() {
    local pids=() h port summary
    for h in $HOSTS; do
        eval "port=\$LOCAL_$h"
        case $h in h1 | h3) summary='test.work=summary:0.05' ;; *) summary= ;; esac
        NL_DEST="x-netlog://127.0.0.1:$port" NL_SUMMARY="$summary" NL_TEST_HOST="$h" \
            "$WORKLOAD" $PAIRS >"$T/$h-work.out" 2>"$T/$h-work.err" &
        pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || fail "a workload failed"; done
    for h in $HOSTS; do
        grep -q "dropped=0$" "$T/$h-work.out" || fail "the library dropped lines on $h: $(cat "$T/$h-work.out")"
        [ ! -s "$T/$h-work.err" ] || fail "$h's program could not deliver: $(cat "$T/$h-work.err")"
    done
}
wait_site() { # wait_site QUERY WANT SECONDS WHAT
    local got=""
    for _ in $(seq $(($3 * 10))); do
        got=$(site "$1" 2>/dev/null || true)
        [ "$got" = "$2" ] && return 0
        sleep 0.1
    done
    fail "$4: wanted $2, got '${got}'"
}

# check N: every pair of N rounds on every host is archived exactly once: in one summary
# (h1, h3) or as its start and end events (h2, h4); every event is the one its program
# wrote, field for field (each host's copy, loaded into a schema of its own, is the
# reference); and each host's events came through its own collector
check() {
    local n=$1 cols q
    wait_site "SELECT sum(n) FROM summary WHERE event = 'test.work.summary'" $((n * 2 * PAIRS)) 90 \
        "pairs counted in the archived summaries"
    wait_site "SELECT count(*) FROM event WHERE event = 'test.work.end'" $((n * 2 * PAIRS)) 90 \
        "end events archived"
    psql_q "SET client_min_messages = warning; DROP SCHEMA want CASCADE; CREATE SCHEMA want"
    for h in $HOSTS; do
        grep ' event=test\.work\.' "$T/$h-copy.log" >"$T/$h-want.log" || true
    done
    "$NL_LOAD" -q -d "$WANT" "$T"/h?-want.log || fail "nl-load could not load the hosts' copies"
    cols=$(psql_q "SELECT string_agg(column_name, ', ' ORDER BY ordinal_position)
                   FROM information_schema.columns
                   WHERE table_schema = 'site' AND table_name = 'summary' AND column_name <> 'event_id'")
    differ() { # differ QUERY: rows in one archive and not the other, both ways (@: the schema)
        psql_q "SELECT count(*) FROM ((${1//@/site} EXCEPT ALL ${1//@/want})
                                      UNION ALL (${1//@/want} EXCEPT ALL ${1//@/site})) d"
    }
    [ "$(differ "SELECT $cols FROM @.summary WHERE event LIKE 'test.work.%'")" = 0 ] ||
        fail "the archived summaries differ from what the programs wrote"
    [ "$(differ "SELECT e.ts, e.event, e.level, e.startend, v.name, v.value, v.num FROM @.event e
                 JOIN @.value v ON v.event_id = e.id WHERE e.event LIKE 'test.work.%'")" = 0 ] ||
        fail "the archived events' values differ from what the programs wrote"
    [ "$(differ "SELECT e.ts, e.event, i.name, i.value FROM @.event e
                 JOIN @.ident i ON i.event_id = e.id WHERE e.event LIKE 'test.work.%'")" = 0 ] ||
        fail "the archived events' identities differ from what the programs wrote"
    [ "$(differ "SELECT ts, event, level, startend FROM @.event WHERE event LIKE 'test.work.%'")" = 0 ] ||
        fail "the archived events differ from what the programs wrote"
    local sums events per
    sums=$(site "SELECT count(*) FROM summary WHERE event = 'test.work.summary'")
    events=$(site "SELECT count(*) FROM event WHERE event LIKE 'test.work.%'")
    per=$(site "SELECT string_agg(host || ' ' || n, ', ' ORDER BY host) FROM (
                  SELECT host, sum(n) AS n FROM summary WHERE event = 'test.work.summary' GROUP BY host
                  UNION ALL SELECT v.value, count(*) FROM event e JOIN value v ON v.event_id = e.id
                  WHERE e.event = 'test.work.end' AND v.name = 'host' GROUP BY v.value) h")
    [ "$per" = "h1 $((n * PAIRS)), h2 $((n * PAIRS)), h3 $((n * PAIRS)), h4 $((n * PAIRS))" ] ||
        fail "pairs per host: $per"
    for c in c1 c2; do
        for h in $HOSTS; do
            local want=0
            case $c$h in c1h1 | c1h2 | c2h3 | c2h4) want=1 ;; esac
            local got=0
            grep -q " host=$h " "$T/$c-archive"/nlkit-*.log 2>/dev/null && got=1
            [ "$got" = "$want" ] || fail "collector $c's archive file: host $h present=$got, wanted $want"
        done
    done
    echo "   $events events ($sums summaries); pairs per host: $per; each once, field for field"
}

echo "1. four hosts, $PAIRS pairs each (h1, h3 summarized every 50 ms; h2, h4 in full): h1, h2 -> c1; h3, h4 -> c2"
round
check 1

echo "2. collector c1 is down for ${OUTAGE}s while every host logs $PAIRS more pairs"
stop c1
T0=$SECONDS
round
sleep $((OUTAGE - (SECONDS - T0) > 0 ? OUTAGE - (SECONDS - T0) : 0))
# c2's hosts were not held up: their pairs are in before c1 is back
wait_site "SELECT sum(n) FROM summary WHERE event = 'test.work.summary' AND host = 'h3'" \
    $((2 * PAIRS)) 30 "c2's summarizing host during c1's outage"
wait_site "SELECT count(*) FROM event e JOIN value v ON v.event_id = e.id
           WHERE e.event = 'test.work.end' AND v.name = 'host' AND v.value = 'h4'" \
    $((2 * PAIRS)) 30 "c2's full host during c1's outage"
held=$(site "SELECT count(*) FROM event e JOIN value v ON v.event_id = e.id
              WHERE e.event = 'test.work.end' AND v.name = 'host' AND v.value = 'h2'")
[ "$held" = "$PAIRS" ] || fail "h2's second round reached the archive while its collector was down ($held ends)"
echo "   during the outage: c2's hosts archived in full, c1's held back (h2: $held of $((2 * PAIRS)) ends)"
restart_collector c1
check 2
echo "two collectors, one archive: 3 passed, 0 failed"
