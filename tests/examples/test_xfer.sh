#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_xfer.sh — nl-xfer moves a file intact over loopback TCP, and both sides log the
# paper's Table II events (disk.read / network.write on the sender, network.read /
# disk.write on the receiver) in full with one shared guid and the byte counts as values;
# summarized, each side writes one summary per activity whose v.sum is the file size.
#   test_xfer.sh NL_XFER
set -euo pipefail
XFER=$1
T=$(mktemp -d)
trap 'kill $(jobs -p) 2>/dev/null || true; rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

head -c $((3 * 262144 + 1000)) /dev/urandom > "$T/src" # 3 full blocks and a short one
SIZE=$(stat -c %s "$T/src")

run() { # MODE(full|summary) -> sender and receiver logs in $T
    local mode=$1 port=""
    : >"$T/recv-$mode.err" # exists before the loop below reads it (the receiver may be slower)
    NL_DEST="$T/recv-$mode.log" NL_SUMMARY="*=$mode:1" "$XFER" recv 0 "$T/dst-$mode" 2>"$T/recv-$mode.err" &
    local rpid=$!
    for _ in $(seq 100); do # until the receiver says where it listens
        port=$(sed -n 's/.*listening on port \([0-9]*\).*/\1/p' "$T/recv-$mode.err")
        [ -n "$port" ] && break
        sleep 0.05
    done
    [ -n "$port" ] || fail "receiver ($mode) did not start: $(cat "$T/recv-$mode.err")"
    NL_DEST="$T/send-$mode.log" NL_SUMMARY="*=$mode:1" "$XFER" send 127.0.0.1 "$port" "$T/src" \
        2>"$T/send-$mode.err" || fail "sender ($mode) failed: $(cat "$T/send-$mode.err")"
    wait $rpid || fail "receiver ($mode) failed"
    cmp -s "$T/src" "$T/dst-$mode" || fail "file damaged in transfer ($mode)"
}

sum_values() { # FILE EVENT -> sum of value= over EVENT lines
    awk -v ev="event=$2" '$0 ~ " "ev" " {for (i=1;i<=NF;i++) if ($i ~ /^value=/) s+=substr($i,7)} END {print s+0}' "$1"
}
count() { grep -c " event=$2 " "$1" || true; }

run full
# 4 blocks: 4 network writes, and 5 disk reads (the last one finds the end of the file)
[ "$(count "$T/send-full.log" disk.read.start)" = 5 ] || fail "sender: 5 disk.read.start expected"
[ "$(count "$T/send-full.log" network.write.start)" = 4 ] || fail "sender: 4 network.write.start expected"
for ev in disk.read network.write; do
    [ "$(sum_values "$T/send-full.log" $ev.end)" = "$SIZE" ] || fail "sender: $ev values do not add up to $SIZE"
done
for ev in network.read disk.write; do
    [ "$(sum_values "$T/recv-full.log" $ev.end)" = "$SIZE" ] || fail "receiver: $ev values do not add up to $SIZE"
done
G1=$(grep -o ' event=disk.read.end level=Info guid=[^ ]*' "$T/send-full.log" | sort -u)
G2=$(grep -o ' event=disk.write.end level=Info guid=[^ ]*' "$T/recv-full.log" | sort -u)
[ "$(echo "$G1" | wc -l)" = 1 ] || fail "sender: more than one guid"
[ "${G1##*guid=}" = "${G2##*guid=}" ] || fail "sender and receiver guids differ: $G1 / $G2"

run summary
for f in send recv; do
    grep -q ' event=[a-z.]*\.start ' "$T/$f-summary.log" && fail "$f: raw events written while summarized"
done
for pair in "send disk.read" "send network.write" "recv network.read" "recv disk.write"; do
    set -- $pair
    v=$(grep " event=$2.summary " "$T/$1-summary.log" | grep -o ' v.sum=[0-9]*' | awk -F= '{s+=$2} END {print s+0}')
    [ "$v" = "$SIZE" ] || fail "$1: $2.summary v.sum adds up to $v, not $SIZE"
done
echo "ok: $SIZE bytes intact, Table II events in full and summarized"
