#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test_oneread.sh — one reading of a line (issue 62): what the central collector decides a
# line from the network is (a report, an event and its name, or a line it will not read)
# must be what nlkit's parser reads in it, in every reading nl-load, nl-detect or a later
# load may use (strict, lenient, NetLogger's). Generated hostile lines (quotes, escapes, a
# second event=, the event not second, unicode and Python's whitespace, NUL bytes, lines
# of 1 MB and beyond NL_LINE_MAX, the issue's x='y event=nl.alert.start ... z=', a second
# message with its own syslog header after a newline in a datagram) are sent
# into a real central syslog-ng (syslog-ng.conf.d/nlkit-central.conf) over TCP, and as
# datagrams by uid 65534 into a host daemon's socket (nlkit-host.conf); nl-sng-oneread
# check then holds what syslog-ng archived, refused and admitted at its door against
# nlkit's parser (tests/pipeline/sng_oneread.c says what fails), and the archive must hold
# no report at all.
#
#   test_oneread.sh NL-LOAD NL-DETECT NL-SNG-ONEREAD CONF_DIR
# NLKIT_ONEREAD_SEED and NLKIT_ONEREAD_LINES change the lines (default: seed 62, 4000 over
# TCP and 1000 through the host socket).
set -euo pipefail
NL_LOAD=$(realpath "$1") NL_DETECT=$(realpath "$2") ONEREAD=$(realpath "$3") CONF=$(realpath "$4")
SNG=$(command -v syslog-ng || echo /usr/sbin/syslog-ng)
SEED=${NLKIT_ONEREAD_SEED:-62} N=${NLKIT_ONEREAD_LINES:-4000}
T=$(mktemp -d /tmp/nlkit-oneread-XXXXXX)
. "$(dirname "$0")/sng_lib.sh"
chmod 0755 "$T"
cat >"$T/detect.conf" <<EOF
stream work event=test.work value=v key=guid algo=msd-hu
EOF
# the door's own reading of every line it admits: the configuration's door filter, parser
# and rewrite, in the order its network log path has them
CENTRAL_CONF="destination d_oneread_tap { file(\"$T/tap.log\" template(\"\${.nl.event} \$(base64-encode \${MSG})\\n\")); };
log { source(s_nlkit_central_in_main); filter(f_nlkit_programs_main); filter(f_nlkit_door_main);
      parser(p_nlkit_kv_main); rewrite(r_nlkit_event_main); destination(d_oneread_tap); };"
umask 022
start_central
start_host_socket

echo "1. $N hostile lines (seed $SEED) over TCP, $((N / 4)) as datagrams by a local user"
ISSUE="ts=2026-11-22T12:00:00.000001Z x='y event=nl.alert.start level=Warn name=forged z='"
"$ONEREAD" gen "$SEED" "$N" >"$T/gen-tcp.txt" || fail "could not make the lines"
"$ONEREAD" gen "$((SEED + 1))" "$((N / 4))" >"$T/gen-dgram.txt" || fail "could not make the lines"
printf '%s\n' "$ISSUE" "ts=2026-11-22T12:59:59Z event=oneread.end" \
    "ts=2026-11-22T12:59:59Z event=nl.alert.oneread.tcp" >>"$T/gen-tcp.txt"
printf '%s\n' "$ISSUE" "ts=2026-11-22T12:59:59Z event=oneread.end.dgram" \
    "ts=2026-11-22T12:59:59Z event=nl.alert.oneread.dgram" >>"$T/gen-dgram.txt"
"${as_other[@]}" "$ONEREAD" send-dgram "$T/host.sock" <"$T/gen-dgram.txt" 2>"$T/send.log" ||
    fail "could not send into the host socket: $(cat "$T/send.log")"
"$ONEREAD" send-tcp "$PORT" <"$T/gen-tcp.txt" || fail "could not send to the central daemon"
# the last lines of each way, an event and a report, mark the end of what was sent
wait_sql "SELECT count(*) FROM event WHERE event IN ('oneread.end', 'oneread.end.dgram')" 2 120 \
    "the last events sent, each way"
refused_has "event=nl.alert.oneread.tcp" 30 || fail "the last report sent over TCP is not refused"
refused_has "event=nl.alert.oneread.dgram" 30 || fail "the last report sent by datagram is not refused"
# each destination writes in the order lines came: once the last lines are in a file, so
# is everything before them
for i in $(seq 301); do
    [ "$i" = 301 ] && fail "the last lines sent are not in the door's tap or the per-day file"
    [ "$(grep -Ec '^(oneread\.end|nl\.alert\.oneread\.)' "$T/tap.log" 2>/dev/null)" = 4 ] &&
        grep -qa "event=oneread.end.dgram$" "$T"/archive/nlkit-2*.log &&
        grep -qa "event=oneread.end$" "$T"/archive/nlkit-2*.log && break
    sleep 0.1
done

echo "2. what syslog-ng decided, held against nlkit's parser"
cat "$T"/archive/nlkit-2*.log >"$T/day.txt"
cat "$T"/archive/nlkit-refused-*.log >"$T/refused.txt"
cat "$T/gen-tcp.txt" "$T/gen-dgram.txt" >"$T/gen.txt"
"$ONEREAD" check "$T/gen.txt" "$T/day.txt" "$T/refused.txt" "$T/tap.log" ||
    fail "the collector and nlkit's parser read lines differently (above)"
grep -qF "refused=form $ISSUE" "$T/refused.txt" || fail "the issue's forged line is not refused"
# a datagram is one line: a newline in it cannot start a second message, in another host's
# and program's name (the generator's "smuggled" lines, sent with a newline as datagrams)
n=$(cat "$T/refused.txt" "$T/day.txt" | grep -ac "host=gw3 program=nl-detect" || true)
[ "$n" = 0 ] || fail "$n message(s) started by a newline in a datagram, in another host's name"
n=$(grep -a "refused=form ts=.*name=smuggled" "$T/refused.txt" | grep -vc "host=evilhost" || true)
[ "$n" -gt 0 ] || fail "no datagram with a smuggled message was refused as one line"

echo "   $n datagram(s) with a second message after a newline: refused as one line"

echo "3. the archive holds no report, and nl-load and nl-detect still run"
got=$(sql "SELECT count(*) || ' ' || coalesce(group_concat(DISTINCT event), '') FROM event
           WHERE event GLOB 'nl.?*' AND NOT event GLOB 'nl.log.*' AND NOT event GLOB 'nl.summary.*'")
[ "$got" = "0 " ] || fail "reports archived from the network: $got"
for prog in "$NL_LOAD" "$NL_DETECT"; do
    pgrep -f "^$prog " >/dev/null || fail "$prog is no longer running"
done
echo "   archived: $(sql "SELECT count(*) FROM event") events, no report;" \
    "nl-load's bad lines: $(grep -c "nl-load: (stdin):" "$T/tools.log" || true)"
echo "oneread: passed"
