#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_flows_rpc.sh — nl-flows on a real multi-process workload: nl-flows-rpc's client,
# front-end and two back-ends (four processes, TCP over loopback, the traceparent in each
# request), 3000 requests a run, 1% of them faulty, each fault kind in turn. nl-flows must
# name at least 95% of the faulty requests and at most 1% of the normal ones, and put the
# injected path first among the causes: the retry activity (only in anomalous flows), the
# front-end's timeout event for a dropped reply (only anomalous), the slow back-end's
# disk.read (by time: a slow disk changes no coverage). A fault-free run names nothing; a
# fault-free run as --reference names the slow disk's requests too. A reply later than the
# front-end's wait is not taken for a lost one. Durations are the
# workload's own accounts (sim.dur), so nothing here depends on the machine's speed.
# The retry run loaded into a SQLite archive with nl-load and read back with nl-flows -d
# gives the same flows named as the files.
# nl-flows --durations hands every flow's duration to nl-detect.
#   test_flows_rpc.sh NL_FLOWS_RPC NL_FLOWS NL_LOAD NL_DETECT
set -euo pipefail
RPC=$1 FLOWS=$2 LOAD=$3 DETECT=$4
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
N=3000

field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p"; }

run() { # FAULT SEED -> $T/FAULT/{cl,fe,be1,be2}.log, truth
    mkdir -p "$T/$1"
    "$RPC" run "$T/$1" --requests $N --fault "$1" --share 0.01 --seed "$2" || fail "workload ($1)"
    [ "$(wc -l < "$T/$1/cl.log")" = $((2 * N)) ] || fail "client log of $1 has $(wc -l < "$T/$1/cl.log") lines"
}

judge() { # FAULT EXPECTED-PATH [nl-flows options...]
    local fault=$1 want=$2 d=$T/$1
    shift 2
    "$FLOWS" --dur-field sim.dur "$@" "$d/cl.log" "$d/fe.log" "$d/be1.log" "$d/be2.log" > "$d/out"
    local stats faulty named hit normal
    stats=$(grep 'event=nl.flow.stats' "$d/out") || fail "$fault: no stats line"
    [ "$(echo "$stats" | field judged)" = $N ] || fail "$fault: not every request judged: $stats"
    for c in orphans open.flows skewed evicted bad ambiguous unjudged; do
        [ "$(echo "$stats" | field "$c")" = 0 ] || fail "$fault: $c not 0: $stats"
    done
    cut -d' ' -f1 "$d/truth" | sort > "$d/truth.ids"
    grep 'event=nl.flow.suspect' "$d/out" | field trace.id | sort > "$d/named" || true
    faulty=$(wc -l < "$d/truth.ids")
    named=$(wc -l < "$d/named")
    hit=$(comm -12 "$d/truth.ids" "$d/named" | wc -l)
    normal=$((named - hit))
    echo "$fault: $faulty faulty, $named named: $hit faulty, $normal normal"
    if [ "$fault" = none ]; then
        [ "$named" = 0 ] || fail "fault-free run: $named flows named"
        ! grep -q 'event=nl.flow.cause' "$d/out" || fail "fault-free run: causes given"
        return
    fi
    [ "$faulty" -ge 10 ] || fail "$fault: only $faulty faulty requests"
    [ $((hit * 100)) -ge $((faulty * 95)) ] || fail "$fault: $hit of $faulty faulty named"
    [ $((normal * 100)) -le $((N - faulty)) ] || fail "$fault: $normal normal requests named"
    # the most unusual flows are the faulty ones, named in the ranked list too
    grep 'event=nl.flow.top' "$d/out" | head -n "$faulty" | field trace.id | sort > "$d/top"
    [ $(($(comm -12 "$d/truth.ids" "$d/top" | wc -l) * 100)) -ge $((faulty * 95)) ] ||
        fail "$fault: the top $faulty are not the faulty ones"
    local first
    first=$(grep 'event=nl.flow.cause' "$d/out" | grep ' rank=1 ' | field path)
    [ "$first" = "$want" ] || fail "$fault: first cause $first, not $want"
    grep 'event=nl.flow.cause' "$d/out" | grep ' rank=1 '
}

run retry 11
judge retry request/fe.handle/retry
grep ' rank=1 ' "$T/retry/out" | grep -q 'kind=only.anomalous .*also=request/fe.handle/be.call/be.busy' ||
    fail "retry: the busy answer is not merged with the retry"
# the same run from the archive
"$LOAD" -d "$T/a.db" "$T/retry/cl.log" "$T/retry/fe.log" "$T/retry/be1.log" "$T/retry/be2.log" 2>/dev/null ||
    fail "nl-load"
"$FLOWS" --dur-field sim.dur -d "$T/a.db" > "$T/db.out"
grep 'event=nl.flow.suspect' "$T/db.out" | field trace.id | sort > "$T/db.named"
cmp -s "$T/db.named" "$T/retry/named" || fail "-d: not the same flows named as from the files"
grep 'event=nl.flow.stats' "$T/db.out" | grep -q " judged=$N " || fail "-d: not every request judged"
"$FLOWS" -d "$T/a.db" --since 2000-01-01T00:00:00Z --until 2000-01-02T00:00:00Z | grep -q ' events=0 ' ||
    fail "-d: --since/--until do not bound the window"
echo "-d: the archive gives the same $(wc -l < "$T/db.named") flows named"
run drop 12
judge drop request/fe.handle/be.call/be.timeout
run slow 13
judge slow request/fe.handle/be.call/be.serve/disk.read
grep ' rank=1 ' "$T/slow/out" | grep -q 'kind=time' || fail "slow: not a time cause"
# each flow's duration handed to nl-detect, one stream per root activity
"$FLOWS" --durations --dur-field sim.dur "$T/slow/cl.log" "$T/slow/fe.log" "$T/slow/be1.log" "$T/slow/be2.log" |
    "$DETECT" -e nl.flow.done -v dur -k root --stats > /dev/null 2> "$T/detect.err"
grep -q " values=$N " "$T/detect.err" || fail "nl-detect did not get every flow's duration: $(cat "$T/detect.err")"
grep -q " streams=1 " "$T/detect.err" || fail "nl-detect: not one stream per root activity"
run none 14
judge none -

# a reply later than the front-end's 250 ms wait (be1 answers 625 ms late, as a process
# descheduled on busy cores does) is waited for, not taken for a lost one: the front-end's
# PING settles it, not the clock
mkdir -p "$T/late"
"$RPC" run "$T/late" --requests 300 --fault late --share 0.02 --seed 15 || fail "workload (late)"
late=$(wc -l < "$T/late/truth")
[ "$late" -ge 2 ] || fail "late: only $late late replies"
[ "$(grep -c 'event=request.end' "$T/late/cl.log")" = 300 ] || fail "late: not every request answered"
! grep -q 'event=be.timeout' "$T/late/fe.log" ||
    fail "late: $(grep -c 'event=be.timeout' "$T/late/fe.log") of $late late replies taken for lost ones"
echo "late: $late replies 625 ms late, none taken for a lost one"

# a fault-free run as the reference: the slow disk's requests are still the ones named
sort -s -k1,1 "$T/none/cl.log" "$T/none/fe.log" "$T/none/be1.log" "$T/none/be2.log" > "$T/ref.log"
judge slow request/fe.handle/be.call/be.serve/disk.read --reference "$T/ref.log"
echo "ok: nl-flows names the faulty requests of each kind, and nothing in a fault-free run"
