#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test_syslog_ng.sh — the whole pipeline with real daemons, on loopback, unprivileged paths:
# an instrumented program (summaries every 50 ms, a slowdown injected) logs through the
# library's x-syslog:// destination to a host syslog-ng (syslog-ng.conf.d/nlkit-host.conf),
# which forwards over TLS (certificate checked) with a reliable disk buffer to a relay
# (nlkit-relay.conf), which forwards over TCP with its own disk buffer to a central
# syslog-ng (nlkit-central.conf), which archives the lines, loads them with nl-load and
# runs nl-detect, whose reports come back and are loaded too. Hostile lines are sent into
# the central daemon. Then it is stopped for 30 s while the program logs again, and
# restarted: nothing may be lost. Each time, what arrived is compared field for field with
# what the program wrote (the host daemon keeps a copy).
#
#   test_syslog_ng.sh NL-LOAD NL-DETECT NL-SNG-WORKLOAD CONF_DIR
set -euo pipefail
NL_LOAD=$(realpath "$1") NL_DETECT=$(realpath "$2") WORKLOAD=$(realpath "$3") CONF=$(realpath "$4")
SNG=$(command -v syslog-ng || echo /usr/sbin/syslog-ng)
PAIRS=100000
OUTAGE=${NLKIT_SNG_OUTAGE:-30} # seconds the collector is down in step 3
T=$(mktemp -d /tmp/nlkit-sng-XXXXXX)

. "$(dirname "$0")/sng_lib.sh"

echo "0. every fragment, every block, with TLS options, passes syslog-ng's syntax check"
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$T/key.pem" -out "$T/cert.pem" -days 1 \
    -subj "/CN=localhost" -addext "subjectAltName=DNS:localhost" >/dev/null 2>&1 ||
    fail "openssl could not make a test certificate"
TLS="tls(tls(peer-verify(required-trusted) ca-dir(\"$T\") key-file(\"$T/key.pem\") cert-file(\"$T/cert.pem\")))"
cat >"$T/check.conf" <<EOF
@version: 3.38
@include "$CONF/nlkit-host.conf"
@include "$CONF/nlkit-relay.conf"
@include "$CONF/nlkit-central.conf"
nlkit_host(socket("$T/c1.sock") buffer_dir("$T") transport("tls") $TLS);
nlkit_host_files(base_dir("$T/apps"));
nlkit_relay(port(1) buffer_dir("$T") in_transport("tls") in_$TLS transport("tls") $TLS);
nlkit_central(port(2) socket("$T/c2.sock") archive("$T") db("$T/x.db") detect_conf("$T/d.conf")
              transport("tls") $TLS);
EOF
"$SNG" --no-caps -s -f "$T/check.conf" >"$T/check.log" 2>&1 || fail "syntax check: $(cat "$T/check.log")"

# combine=default (robust median and spread, calibrated): with msd-hu k=4 a noisy start
# (the first ten summaries at 27-220 us beside other tests under ASan) inflated the
# history's sd until the 5x slowdown (20.6 -> 100.6 us) lay within 4 sd, and nothing was
# reported; the recommended setting reports the slowdown's first value on that very input.
# This test is about the pipeline, so one flag opens an episode (episode.min=1): live,
# combine=default wants 10 s of flags, here 10 summaries 50 ms apart, and beside other tests
# on two CPUs the slowdown's run of flags breaks now and then (test_live judges that rule).
# And young=off: the stream has 30-50 summaries before the slowdown, where young=300 keeps a
# sixth to a tenth of a surprise; in a CI run under ASan on two busy CPUs the five-fold
# slowdown's scores stayed under the threshold that way (0.43-0.57 with 0.53), and with
# young=off the same series is reported at the slowdown and nowhere before it
cat >"$T/detect.conf" <<EOF
stream work event=test.work value=mean.dur key=guid combine=default side=above min=10 episode.min=1 young=off
EOF
start_central
# host --TLS (certificate checked)--> relay --TCP--> central
RPORT=$((PORT + 1))
cat >"$T/relay.conf" <<EOF
@version: 3.38
@include "$CONF/nlkit-relay.conf"
nlkit_relay(ip("127.0.0.1") port($RPORT) in_transport("tls")
            in_tls(tls(key-file("$T/key.pem") cert-file("$T/cert.pem") peer-verify(optional-untrusted)))
            central("127.0.0.1") central_port($PORT) buffer_dir("$T/rbuf") reopen(1));
EOF
cat >"$T/host.conf" <<EOF
@version: 3.38
@include "$CONF/nlkit-host.conf"
nlkit_host(socket("$T/host.sock") local_port($((PORT + 2))) central("localhost") port($RPORT) buffer_dir("$T/buf")
           reopen(1) transport("tls") tls(tls(ca-file("$T/cert.pem") peer-verify(required-trusted))));
EOF
# what the program wrote, as the host daemon took it: the reference for the far end
cat >>"$T/host.conf" <<EOF
destination d_test_copy { file("$T/host-copy.log" template("\${MSG}\n")); };
log { source(s_nlkit_local_main); destination(d_test_copy); };
EOF
mkdir -p "$T/buf" "$T/rbuf"
start relay
came_up relay || fail "the relay would not start: $(tail -n 3 "$T/relay.log")"
start host
came_up host || fail "the host daemon would not start: $(tail -n 3 "$T/host.log")"
wait_for "$T/host.sock" "the host daemon's socket"

# run_workload: PAIRS pairs of ~20 us, five times slower from 60% to 80% (~2 s, 40
# summaries); no line may be dropped (counted by the end, or said undelivered at nl_close).
# The slowdown comes after 60% (it came after 40%) so that nl-detect has ~30 summaries of
# history before it, not ~16: beside other tests on two CPUs the normal summaries' mean.dur
# doubles now and then (the spin shares its CPU).
run_workload() {
    NL_DEST="x-syslog://nl-sng-workload?socket=$T/host.sock" NL_SUMMARY='test.work=summary:0.05' \
        "$WORKLOAD" $PAIRS $((PAIRS * 6 / 10)) $((PAIRS * 8 / 10)) 20 >"$T/work.out" \
        2>"$T/work.err" || fail "the workload failed: $(cat "$T/work.err")"
    grep -q "dropped=0$" "$T/work.out" || fail "the library dropped lines: $(cat "$T/work.out")"
    [ ! -s "$T/work.err" ] || fail "the program could not deliver: $(cat "$T/work.err")"
}

# same_fields: every summary the program wrote is in the per-day archive file byte for
# byte and in SQLite field for field (every summary column, and the text fields in value),
# each exactly once; the reference is the host's copy, loaded into a database of its own
same_fields() {
    grep ' event=test.work.summary ' "$T/host-copy.log" | sort >"$T/want.txt"
    cat "$T"/archive/nlkit-*.log | grep ' event=test.work.summary ' | sort >"$T/got.txt"
    cmp -s "$T/want.txt" "$T/got.txt" ||
        fail "the archive file differs from what the program wrote: $(diff "$T/want.txt" "$T/got.txt" | head -5)"
    rm -f "$T/want.db"*
    "$NL_LOAD" -q -d "$T/want.db" "$T/want.txt" || fail "nl-load could not load the host's copy"
    local cols rows q
    cols=$(sql "SELECT group_concat(name) FROM pragma_table_xinfo('summary') WHERE name <> 'event_id'")
    # rows of one shape: each summary's columns, then its text fields (ts, guid, name, value
    # in the first four columns, NULL in the rest)
    rows="SELECT $cols FROM DB.summary WHERE event = 'test.work.summary'
          UNION ALL SELECT s.ts, s.guid, v.name, v.value, $(sed 's/[^,]*/NULL/g' <<<"${cols#*,*,*,*,}")
          FROM DB.summary s JOIN DB.value v ON v.event_id = s.event_id WHERE s.event = 'test.work.summary'"
    q="ATTACH '$T/want.db' AS w;
       SELECT (SELECT count(*) FROM (SELECT * FROM (${rows//DB/main}) EXCEPT SELECT * FROM (${rows//DB/w})))
       + (SELECT count(*) FROM (SELECT * FROM (${rows//DB/w}) EXCEPT SELECT * FROM (${rows//DB/main})))
       + (SELECT count(*) FROM main.summary WHERE event = 'test.work.summary')
       - (SELECT count(*) FROM w.summary)"
    r=$(sql "$q" 2>&1); [ "$r" = 0 ] || fail "SQLite summaries differ from what the program wrote ($r)"
    echo "   field for field: $(wc -l <"$T/want.txt") summaries as the program wrote them, $(echo "$cols" | tr ',' '\n' | wc -l) columns each"
}

echo "1. $PAIRS start/end pairs, summarized every 50 ms, through host, relay and central syslog-ng"
run_workload
# every pair is in exactly one summary, and no summary came twice
wait_sql "SELECT sum(n) FROM summary WHERE event = 'test.work.summary'" $PAIRS 30 \
    "pairs counted in the archived summaries"
SUMS=$(sql "SELECT count(*) FROM summary WHERE event = 'test.work.summary'")
[ "$(sql "SELECT count(DISTINCT guid || ts) FROM summary WHERE event = 'test.work.summary'")" = "$SUMS" ] ||
    fail "a summary was archived twice"
# the per-day archive file has the same summaries, as the program wrote them
FILE_SUMS=$(cat "$T"/archive/nlkit-*.log | grep -c " event=test.work.summary ")
[ "$FILE_SUMS" = "$SUMS" ] || fail "archive file has $FILE_SUMS summaries, database $SUMS"
echo "   $SUMS summaries, sum(n) = $PAIRS, each once; archive file agrees"
same_fields
# the slowdown was detected, and the report came back through syslog-ng into the archive
if ! NO_FAIL=1 wait_sql "SELECT count(*) > 0 FROM event WHERE event = 'nl.anomaly.start'" 1 60; then
    fail "nl-detect's nl.anomaly.start not archived in 60 s; mean.dur (us) of the summaries, in order: $(sql "SELECT group_concat(m, ' ') FROM (SELECT round(dur_sum / n * 1e6, 1) AS m FROM summary WHERE event = 'test.work.summary' AND n > 0 ORDER BY ts)")"
fi
echo "   nl.anomaly.start archived: $(sql "SELECT count(*) FROM event WHERE event = 'nl.anomaly.start'")"

echo "2. hostile lines straight into the central daemon, between two good events"
GOOD1="ts=2026-11-22T12:00:00.000001Z event=test.good level=Info seq=1"
FORGED='ts=2026-11-22T12:00:00.000002Z event=test.good level=Info seq=2 note="x event=nl.alert.start level=Fatal"'
{
    printf '<14>Nov 22 12:00:00 evilhost nl-evil: %s\n' "$GOOD1"
    printf '<14>Nov 22 12:00:00 evilhost nl-evil: ts=2026-11-22T12:00:01Z event=bad level=Info msg="unterminated\n'
    printf '<14>Nov 22 12:00:00 evilhost nl-evil: '
    head -c 4000 /dev/urandom | tr -d '\n'
    printf '\n<14>Nov 22 12:00:00 evilhost nl-evil: ts=2026-11-22T12:00:02Z event=big level=Info x='
    head -c 1200000 /dev/zero | tr '\0' 'a'
    printf '\n<14>Nov 22 12:00:00 evilhost nl-evil: %s\n' "$FORGED"
} >"/dev/tcp/127.0.0.1/$PORT" || fail "could not send to the central daemon"
GOOD3="ts=2026-11-22T12:00:00.000003Z event=test.good level=Info seq=3"
printf '<14>Nov 22 12:00:00 evilhost nl-evil: %s\n' "$GOOD3" >"/dev/tcp/127.0.0.1/$PORT" ||
    fail "could not send to the central daemon"
wait_sql "SELECT count(*) FROM event WHERE event = 'test.good'" 2 20 "the good events around the hostile ones"
# a second event= (here inside a quoted value) is one the door does not try to read: kept
# aside, never archived
refused_has "refused=form $FORGED" 10 ||
    fail "the line with a second event= inside a value was not refused at the door"
[ "$(sql "SELECT count(*) FROM event WHERE event IN ('bad', 'big', 'nl.alert.start')")" = 0 ] ||
    fail "a hostile line was archived as an event: $(sql "SELECT event, length(ts) FROM event WHERE event IN ('bad', 'big', 'nl.alert.start')")"
grep -q "nl-load: (stdin):[0-9]*:[0-9]*: " "$T/tools.log" || fail "nl-load did not report the bad lines"
for prog in "$NL_LOAD" "$NL_DETECT"; do
    pgrep -f "^$prog " >/dev/null || fail "$prog is no longer running"
done
echo "   good events intact, a second event= refused at the door, bad lines reported ($(grep -c "nl-load: (stdin):[0-9]*:[0-9]*: " "$T/tools.log")), nl-load and nl-detect still running"

echo "3. the central daemon is down for ${OUTAGE}s while the program logs $PAIRS more pairs"
stop central
T0=$SECONDS
run_workload
sleep $((OUTAGE - (SECONDS - T0) > 0 ? OUTAGE - (SECONDS - T0) : 0))
start central
came_up central || fail "the central daemon could not take its port $PORT again: $(tail -n 3 "$T/central.log")"
wait_sql "SELECT sum(n) FROM summary WHERE event = 'test.work.summary'" $((2 * PAIRS)) 60 \
    "pairs after the outage"
SUMS2=$(sql "SELECT count(*) FROM summary WHERE event = 'test.work.summary'")
[ "$(sql "SELECT count(DISTINCT guid || ts) FROM summary WHERE event = 'test.work.summary'")" = "$SUMS2" ] ||
    fail "a summary was archived twice after the outage"
echo "   all $((2 * PAIRS)) pairs archived after the restart ($SUMS2 summaries), none twice"
same_fields
echo "syslog-ng pipeline: 4 passed, 0 failed"
