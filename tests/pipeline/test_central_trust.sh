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

echo "5. the archive is 0640: per-day files and the SQLite database"
for f in "$T"/archive/nlkit-*.log "$T/archive.db"; do
    mode=$(stat -c %a "$f")
    [ "$mode" = 640 ] || fail "$f is $mode, wanted 640"
done
echo "   $(ls "$T"/archive/nlkit-*.log "$T/archive.db" | wc -l) files, each 0640"
echo "central trust: passed"
