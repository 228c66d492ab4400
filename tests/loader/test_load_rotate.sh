#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_load_rotate.sh — nl-load stores every line exactly once however the file it reads is
# rotated, cut or shared. Every line carries a unique seq=; after each scheme the archive
# must hold each seq written exactly once:
#   1. rename and create (logrotate's default), lines appended after the last load and
#      before the rename; the renamed file compressed one cycle later (delaycompress)
#   2. copytruncate: the file copied, cut to nothing and written again (same path, same
#      inode, new content: what an inode reused by a new file looks like too)
#   3. a last line written in two parts around a load
#   4. three loaders at once on the same files
#   5. kill -9 in the middle of loads
# 20 cycles each (NLKIT_ROTATE_CYCLES).
#   test_load_rotate.sh NL-LOAD         (NLKIT_ROTATE_ONLY=N: scheme N only)
set -euo pipefail
NL_LOAD=$(realpath "$1")
CYCLES=${NLKIT_ROTATE_CYCLES:-20}
T=$(mktemp -d /tmp/nlkit-rotate-XXXXXX)
trap 'rm -rf "$T"' EXIT
cd "$T"
command -v sqlite3 >/dev/null || { echo "SKIP: no sqlite3 (./nlkit deps installs it)"; exit 77; }

seq_next=0
fail() { echo "FAIL: $*" >&2; exit 1; }
# emit N lines with fresh seq numbers to FILE
emit() {
    local f=$1 n=$2 i
    for ((i = 0; i < n; i++)); do
        printf 'ts=2026-11-23T10:%02d:%02d.%06dZ event=rot.line level=Info seq=%d\n' \
            $((seq_next / 60000 % 60)) $((seq_next / 1000 % 60)) $((seq_next % 1000000)) "$seq_next"
        seq_next=$((seq_next + 1))
    done >>"$f"
}
load() { "$NL_LOAD" -q -d "$DB" "$@" 2>>"$T/stderr.log" || fail "nl-load $* failed: $(tail -3 "$T/stderr.log")"; }
check() { # every seq written so far, exactly once
    local what=$1 got
    got=$(sqlite3 "$DB" "SELECT count(*), count(DISTINCT v.value), coalesce(min(v.value), -1),
        coalesce(max(v.value), -1) FROM event e JOIN value v ON v.event_id = e.id
        WHERE e.event = 'rot.line' AND v.name = 'seq'")
    [ "$got" = "$seq_next|$seq_next|0|$((seq_next - 1))" ] ||
        fail "$what: archive has count|distinct|min|max = $got, want $seq_next lines once each"
    echo "  $what: $seq_next lines, each once"
}
fresh() { DB="$T/$1.db"; seq_next=0; rm -f app.log app.log.* old.*.gz "$DB"*; }
want() { [ -z "${NLKIT_ROTATE_ONLY:-}" ] || [ "$NLKIT_ROTATE_ONLY" = "$1" ]; } # one scheme only

if want 1; then
echo "1. rename and create, $CYCLES cycles"
fresh rename
for ((c = 0; c < CYCLES; c++)); do
    emit app.log $((RANDOM % 50 + 1))
    load app.log
    emit app.log $((RANDOM % 20)) # written after the load, before the rotation
    [ -f app.log.1 ] && gzip -f app.log.1 && mv app.log.1.gz "old.$c.gz" # delaycompress
    mv app.log app.log.1
    emit app.log $((RANDOM % 30 + 1))
    load app.log.1 app.log
done
load app.log.1 app.log # nothing new: nothing stored
check "rename"
fi

if want 2; then
echo "2. copytruncate (same path, same inode, new content), $CYCLES cycles"
fresh copytrunc
for ((c = 0; c < CYCLES; c++)); do
    emit app.log $((RANDOM % 40 + 1))
    load app.log
    emit app.log $((RANDOM % 10))
    cp app.log app.log.1
    : >app.log
    emit app.log $((RANDOM % 80 + 1)) # often longer than what was loaded before
    load app.log.1 app.log
done
check "copytruncate"
fi

if want 3; then
echo "3. a last line in two parts"
fresh partial
emit app.log 5
printf 'ts=2026-11-23T11:00:00.000000Z event=rot.line level=Info seq=%d note=hal' "$seq_next" >>app.log
load app.log
"$NL_LOAD" -d "$DB" app.log 2>"$T/partial.err" || fail "nl-load failed: $(cat "$T/partial.err")"
grep -q "no newline yet: left for the next load" "$T/partial.err" ||
    fail "the unfinished line was not reported: $(cat "$T/partial.err")"
[ "$(sqlite3 "$DB" "SELECT count(*) FROM event")" = 5 ] || fail "an unfinished line was stored"
printf 'f-written\n' >>app.log
seq_next=$((seq_next + 1))
emit app.log 3
load app.log
check "partial line"
[ "$(sqlite3 "$DB" "SELECT value FROM value WHERE name = 'note'")" = "half-written" ] ||
    fail "the line finished later was not stored whole"
fi

if want 4; then
echo "4. three loaders at once, $CYCLES cycles"
fresh concurrent
emit b.log 10
for ((c = 0; c < CYCLES; c++)); do
    emit app.log $((RANDOM % 300 + 50))
    emit b.log $((RANDOM % 100))
    pids=()
    for k in 1 2 3; do
        "$NL_LOAD" -q -d "$DB" --batch 37 app.log b.log 2>>"$T/stderr.log" & pids+=($!)
    done
    for p in "${pids[@]}"; do wait "$p" || fail "a concurrent nl-load failed: $(tail -3 "$T/stderr.log")"; done
done
rm -f b.log
check "concurrent"
fi

if want 5; then
echo "5. kill -9 while loading, $CYCLES cycles"
fresh kill9
for ((c = 0; c < CYCLES; c++)); do
    emit app.log 400
    "$NL_LOAD" -q -d "$DB" --batch 50 app.log 2>/dev/null &
    p=$!
    sleep "0.0$((RANDOM % 9 + 1))"
    kill -9 "$p" 2>/dev/null || true
    wait "$p" 2>/dev/null || true
done
load app.log
check "kill -9"
fi

echo "ok: every line exactly once under rotation, truncation, concurrency and kill -9"
