#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_bottleneck.sh — nl-bottleneck names the slowed stage of a real transfer: nl-xfer over
# loopback TCP with, in turn, a slowed sending disk, a throttled link and a slowed
# receiving disk (NL_XFER_LIMIT), logged summarized (every 0.2 s, one summary per transfer:
# key=guid) and in full; the verdict
# for the transfer is the slowed stage, and so it is for each 0.2 s interval of it that saw
# both ends (at least 3 pairs in each stage) but where busy cores kept a process off the CPU
# long enough to outweigh the slowed stage in one interval (89 ms of a 0.2 s interval in a
# fast stage, seen beside stress-ng): at least two in three such intervals must name it,
# which an interval analysis that mixed up its stages would not. From the
# sender's log alone, only a slow sending disk can be named: the rest is "missing data".
#   test_bottleneck.sh NL_XFER NL_BOTTLENECK
set -euo pipefail
XFER=$1 BN=$2
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
head -c $((12 * 1024 * 1024)) /dev/urandom > "$T/src"

xfer() { # LIMIT MODE -> $T/send.log $T/recv.log
    local limit=$1 mode=$2 port=""
    rm -f "$T/send.log" "$T/recv.log"
    : > "$T/recv.err"
    NL_XFER_LIMIT=$limit NL_DEST="$T/recv.log" NL_SUMMARY="*=$mode" "$XFER" recv 0 "$T/dst" 2>"$T/recv.err" &
    local rpid=$!
    for _ in $(seq 1200); do # up to 60 s: a receiver not started by then is broken
        port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$T/recv.err")
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || fail "receiver did not start: $(cat "$T/recv.err")"
    NL_XFER_LIMIT=$limit NL_DEST="$T/send.log" NL_SUMMARY="*=$mode" "$XFER" send 127.0.0.1 "$port" "$T/src" 2>/dev/null ||
        fail "sender failed ($limit)"
    wait $rpid || fail "receiver failed ($limit)"
    cmp -s "$T/src" "$T/dst" || fail "file damaged ($limit)"
}

verdict() { sed -n 's/.* verdict=\("[^"]*"\|[^ ]*\).*/\1/p' | tr -d '"'; }

for case in "disk.read=20 disk.read" "network.write=20 network" "disk.write=20 disk.write"; do
    set -- $case
    limit=$1 want=$2
    for mode in summary:0.2:key=guid full; do
        xfer "$limit" "$mode"
        got=$("$BN" "$T/send.log" "$T/recv.log" | verdict)
        [ "$got" = "$want" ] || fail "$limit, $mode: verdict '$got', want '$want'"
        echo "ok: $limit ($mode): $got"
    done
    # every 0.2 s interval that saw both ends names the same stage
    xfer "$limit" summary:0.2:key=guid
    "$BN" --interval 0.2 "$T/send.log" "$T/recv.log" > "$T/iv"
    n=$(grep -c 'event=nl.bottleneck' "$T/iv")
    named=$(verdict < "$T/iv" | grep -cx "$want" || true)
    [ "$n" -ge 3 ] || fail "$limit: only $n intervals"
    both=$(grep -v 'missing=' "$T/iv" | verdict | grep -c . || true)
    other=$(grep -v 'missing=' "$T/iv" | verdict | grep -vx "$want" || true)
    n_other=$(printf '%s' "$other" | grep -c . || true)
    [ $((n_other * 3)) -le "$both" ] ||
        { cat "$T/iv" >&2; fail "$limit: $n_other of $both intervals with both ends named '$other'"; }
    [ "$named" -ge 2 ] || { cat "$T/iv" >&2; fail "$limit: only $named intervals name $want"; }
    echo "ok: $limit per interval: $named of $n intervals name $want ($n_other of $both with both ends name another)"
    # the sender alone
    got=$("$BN" "$T/send.log" | verdict)
    if [ "$want" = disk.read ]; then exp=disk.read; else exp="missing data"; fi
    [ "$got" = "$exp" ] || fail "$limit, sender only: '$got', want '$exp'"
done
# bad input is counted, not fatal
printf 'garbage\nts=2026-11-22T12:00:00Z event=disk.read.end level=Info guid=g value=1\n' |
    "$BN" 2>"$T/err" >/dev/null || fail "bad input made it fail"
grep -q '1 bad line(s), 0 stage event(s) without a guid, 1 end(s) without a start' "$T/err" ||
    fail "not counted: $(cat "$T/err")"
echo "nl-bottleneck: all slowed stages named"
