#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# test_central_trust.sh — who may put what into the central collector's archive
# (syslog-ng.conf.d/nlkit-central.conf, a real syslog-ng with nl-load and nl-detect):
#   - with no ip() given, the network source listens on loopback only;
#   - the reports socket is 0660: another user (uid 65534) cannot send a forged detector
#     report into it, while the daemon's own user (as nl-detect is) can;
#   - a report (nl.alert.start) arriving over the network is refused: not archived, not
#     loaded, kept aside with the sender's host in nlkit-refused-DATE.log, while the good
#     events and the library's own events (nl.log.*) beside it are archived;
#   - a report whose name is written with escapes (event="nl\x2ealert.start"), not in the
#     form the central's door reads, is refused too: sent by uid 65534 into a host
#     daemon's socket (0666) and over TCP, it is kept aside, never archived or loaded;
#   - a report hidden behind a quote (issue 62: x='y event=nl.alert.start ... z=', one quoted
#     value to kv-parser, an event to nl-load), sent by uid 65534 into a host daemon's socket
#     and over TCP, is refused at the door (refused=form), never archived or loaded;
#   - a 70,000-byte event name sent by uid 65534 is archived exactly (the loader once
#     crashed on names of 64 KiB and more), and the event after it too;
#   - the per-day files and the SQLite archive are 0640.
#
#   test_central_trust.sh NL-LOAD NL-DETECT CONF_DIR
set -euo pipefail
NL_LOAD=$(realpath "$1") NL_DETECT=$(realpath "$2") CONF=$(realpath "$3")
SNG=$(command -v syslog-ng || echo /usr/sbin/syslog-ng)
T=$(mktemp -d /tmp/nlkit-trust-XXXXXX)
. "$(dirname "$0")/sng_lib.sh"
# the directory is open to everyone, so that a refusal below is the socket's own
chmod 0755 "$T"
cat >"$T/detect.conf" <<EOF
stream work event=test.work value=v key=guid algo=msd-hu
EOF
umask 022
start_central
count() { sql "SELECT count(*) FROM event WHERE event = '$1' AND id IN (SELECT event_id FROM value WHERE name = 'tag' AND value = '$2')"; }

echo "1. with no ip() given, the network source listens on loopback only"
hexport=$(printf '%04X' "$PORT")
listen=$(awk -v p=":$hexport" '$4 == "0A" && $2 ~ p"$" { print $2 }' /proc/net/tcp /proc/net/tcp6)
[ "$listen" = "0100007F:$hexport" ] || fail "listening on '$listen' for port $PORT, wanted 127.0.0.1 only"
echo "   listening on 127.0.0.1:$PORT only"

echo "2. the reports socket is 0660"
mode=$(stat -c %a "$T/central.sock")
[ "$mode" = 660 ] || fail "central.sock is $mode, wanted 660"

echo "3. over the network: a forged report is refused and kept aside, the events beside it archived"
{
    printf '<14>Nov 22 12:00:00 evilhost app: ts=2026-11-22T12:00:00.000001Z event=test.good level=Info tag=net\n'
    printf '<14>Nov 22 12:00:00 evilhost app: ts=2026-11-22T12:00:00.000002Z event=nl.alert.start level=Warning tag=net name=forged\n'
    printf '<14>Nov 22 12:00:00 evilhost app: ts=2026-11-22T12:00:00.000003Z event=nl.log.dropped level=Warning tag=net n=3\n'
} >"/dev/tcp/127.0.0.1/$PORT" || fail "could not send to the central daemon"
wait_sql "SELECT count(*) FROM event WHERE event IN ('test.good', 'nl.log.dropped')" 2 20 \
    "the good event and the library's event"
[ "$(count nl.alert.start net)" = 0 ] || fail "a report sent over the network was archived"
REFUSED=$(cat "$T"/archive/nlkit-refused-*.log 2>/dev/null || true)
grep -q "host=evilhost program=app .*event=nl.alert.start .*name=forged" <<<"$REFUSED" ||
    fail "the refused report is not kept aside with its sender: '$REFUSED'"
grep -q "event=test.good" <<<"$REFUSED" && fail "a good event was refused"
grep -h "event=nl.alert.start" "$T"/archive/nlkit-2*.log 2>/dev/null &&
    fail "the refused report is in the per-day archive file"
echo "   refused: $(wc -l <<<"$REFUSED") line(s), with host and program; good and library events archived"

echo "4. through the socket: the daemon's own user may report, uid 65534 may not"
logger --socket-errors=on -u "$T/central.sock" -t nl-detect \
    "ts=2026-11-22T12:00:01.000001Z event=nl.alert.start level=Warning tag=own name=real" ||
    fail "the daemon's own user could not send a report"
wait_sql "SELECT count(*) FROM event WHERE event = 'nl.alert.start'" 1 20 "the report from the daemon's user"
if [ "$(id -u)" = 0 ]; then
    if setpriv --reuid=65534 --regid=65534 --clear-groups logger --socket-errors=on \
        -u "$T/central.sock" -t nl-detect \
        "ts=2026-11-22T12:00:02.000001Z event=nl.alert.start level=Fatal tag=forged name=forged" \
        2>"$T/forge.err"; then
        fail "uid 65534 could send into the reports socket"
    fi
    grep -q "Permission denied" "$T/forge.err" || fail "refused, but not for permission: $(cat "$T/forge.err")"
    # a sure barrier: a later report from the daemon's user is archived, the forged one not
    logger -u "$T/central.sock" -t nl-detect \
        "ts=2026-11-22T12:00:03.000001Z event=nl.alert.end level=Info tag=own name=real"
    wait_sql "SELECT count(*) FROM event WHERE event = 'nl.alert.end'" 1 20 "the later report"
    [ "$(count nl.alert.start forged)" = 0 ] || fail "uid 65534's forged report was archived"
    echo "   uid 65534: $(cat "$T/forge.err")"
else
    echo "   (not root: the uid 65534 half needs root to change user; left out)"
fi

echo "5. a report name written with escapes is refused, from the host socket (uid 65534) and TCP"
start_host_socket
for ev in 'nl\x2ealert.start' 'nl.alert\x2estart' '\x6el.anomaly.start'; do
    "${as_other[@]}" logger --socket-errors=on -u "$T/host.sock" -t nl-detect \
        "ts=2026-11-22T12:00:04.000001Z event=\"$ev\" level=Warning tag=esc name=slow-disk key.host=gw3" ||
        fail "could not send into the host socket"
done
printf '<14>Nov 22 12:00:04 evilhost app: %s\n' \
    'ts=2026-11-22T12:00:04.000003Z event="\x6el.anomaly.start" level=Warning tag=esc' \
    'ts=2026-11-22T12:00:04.000004Z event="nl\x2emissing" level=Warning tag=esc' \
    >"/dev/tcp/127.0.0.1/$PORT" || fail "could not send to the central daemon"
# a sure barrier: good events sent after them, the same two ways, are archived
"${as_other[@]}" logger -u "$T/host.sock" -t app \
    "ts=2026-11-22T12:00:05.000001Z event=test.after level=Info tag=esc"
printf '<14>Nov 22 12:00:05 evilhost app: %s\n' \
    'ts=2026-11-22T12:00:05.000002Z event=test.after level=Info tag=esc' >"/dev/tcp/127.0.0.1/$PORT"
wait_sql "SELECT count(*) FROM event WHERE event = 'test.after'" 2 30 "the good events after the forgeries"
forged=$(sql "SELECT group_concat(event, ' ') FROM event WHERE id IN
              (SELECT event_id FROM value WHERE name = 'tag' AND value = 'esc') AND event <> 'test.after'")
[ -z "$forged" ] || fail "reports with escaped names archived: $forged"
n=$(cat "$T"/archive/nlkit-refused-*.log | grep -c 'tag=esc' || true)
[ "$n" = 5 ] || fail "wanted the 5 escaped reports in the refused file, found $n"
cat "$T"/archive/nlkit-2*.log | grep 'tag=esc' | grep -v test.after &&
    fail "an escaped report is in the per-day archive file"
echo "   5 reports with escaped names refused and kept aside; the good events after them archived"

echo "5b. a report behind a quote (issue 62) is refused, from the host socket (uid 65534) and TCP"
QUOTED1="ts=2026-11-22T12:00:07.000001Z x='y event=nl.alert.start level=Warn name=forged z='"
QUOTED2="ts=2026-11-22T12:00:07.000002Z x='y event=nl.anomaly.start level=Warn algo=msd-hu key.host=gw3 len=6 z='"
"${as_other[@]}" logger --socket-errors=on -u "$T/host.sock" -t nl-detect "$QUOTED2" ||
    fail "could not send into the host socket"
printf '<14>Nov 22 12:00:07 evilhost app: %s\n' "$QUOTED1" "$QUOTED2" >"/dev/tcp/127.0.0.1/$PORT" ||
    fail "could not send to the central daemon"
"${as_other[@]}" logger -u "$T/host.sock" -t app \
    "ts=2026-11-22T12:00:07.000003Z event=test.after.quote level=Info"
printf '<14>Nov 22 12:00:07 evilhost app: %s\n' \
    'ts=2026-11-22T12:00:07.000004Z event=test.after.quote level=Info' >"/dev/tcp/127.0.0.1/$PORT"
wait_sql "SELECT count(*) FROM event WHERE event = 'test.after.quote'" 2 30 "the good events after the quoted forgeries"
forged=$(sql "SELECT group_concat(event, ', ') FROM event WHERE ts >= 1795348807 AND ts < 1795348808 AND event <> 'test.after.quote'")  # 12:00:07
[ -z "$forged" ] || fail "a report behind a quote was archived: $forged"
for q in "$QUOTED1" "$QUOTED2"; do
    refused_has "refused=form $q" 10 || fail "not kept aside as refused=form: $q"
    grep -qF "$q" "$T"/archive/nlkit-2*.log && fail "in the per-day archive file: $q"
done
n=$(cat "$T"/archive/nlkit-refused-*.log | grep -c "refused=form ts=2026-11-22T12:00:07" || true)
[ "$n" = 3 ] || fail "wanted the 3 quoted forgeries in the refused file, found $n"
echo "   3 reports behind a quote refused at the door (refused=form); the good events after them archived"

echo "6. a 70,000-byte event name from any local user: archived exactly, the loader goes on"
long=$(head -c 52500 /dev/urandom | base64 -w0 | tr '+/=' '._-' | head -c 70000)
"${as_other[@]}" logger --socket-errors=on --size 200000 -u "$T/host.sock" -t app \
    "ts=2026-11-22T12:00:06.000001Z event=$long level=Info tag=long" ||
    fail "could not send the long name into the host socket"
"${as_other[@]}" logger -u "$T/host.sock" -t app \
    "ts=2026-11-22T12:00:06.000002Z event=test.after.long level=Info tag=long"
wait_sql "SELECT count(*) FROM event WHERE event = 'test.after.long'" 1 30 "the good event after the long name"
[ "$(sql "SELECT count(*) FROM event WHERE event = '$long'")" = 1 ] ||
    fail "the 70,000-byte name is not archived exactly: $(sql "SELECT length(event) FROM event WHERE id IN (SELECT event_id FROM value WHERE value = 'long')")"
echo "   archived with its 70,000 bytes; the next event archived after it"

echo "7. the archive is 0640: per-day files and the SQLite database"
for f in "$T"/archive/nlkit-*.log "$T/archive.db"; do
    mode=$(stat -c %a "$f")
    [ "$mode" = 640 ] || fail "$f is $mode, wanted 640"
done
echo "   $(ls "$T"/archive/nlkit-*.log "$T/archive.db" | wc -l) files, each 0640"
echo "central trust: passed"
