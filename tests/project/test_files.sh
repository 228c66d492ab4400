#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_files.sh — every file a tool opens by name to read whole (nl-detect's configuration,
# silences, alert state, a receiver's CA file, the archive of nl-detect's history.from=db,
# nl-load, nl-baseline, nl-report and nl-flows) is a regular file, opened without waiting:
# a FIFO there is refused at once with "PATH: a FIFO, not a regular file" (open(2) on a FIFO
# with no writer blocked nl-detect for ever when it was the silences file), a directory the
# same way. Each run has 30 s, far more than a refusal takes; one that blocks is killed and
# failed.
#   test_files.sh NL-DETECT NL-LOAD NL-BASELINE NL-REPORT NL-FLOWS
set -euo pipefail
detect=$1 load=$2 baseline=$3 report=$4 flows=$5
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0 n=0
bound=${TEST_FILES_BOUND:-30} # seconds a run may take (lower it to check a revert quickly)
fail() { echo "FAIL: $*" >&2; bad=1; }

mkfifo "$tmp/fifo"
mkdir "$tmp/dir"
echo 'ts=2026-11-28T09:00:00Z event=a.b level=Info' >"$tmp/in.log"

# expect WHAT WANT-RC PATH -- PROGRAM ARGS...: exits WANT-RC within the bound, saying what
# PATH is on standard error
expect() {
    local what=$1 want=$2 path=$3
    shift 4
    local rc=0
    n=$((n + 1))
    timeout -s KILL "$bound" "$@" </dev/null >"$tmp/out" 2>"$tmp/err" || rc=$?
    if [ "$rc" = 137 ]; then
        fail "$what: still blocked after $bound s (killed)"
        return
    fi
    [ "$rc" = "$want" ] || fail "$what: exit $rc, want $want: $(cat "$tmp/err")"
    local kind="a FIFO"
    [ -d "$path" ] && kind="a directory"
    grep -qF "$path: $kind, not a regular file" "$tmp/err" ||
        fail "$what: no \"$path: $kind, not a regular file\" on stderr: $(cat "$tmp/err")"
}

conf() { printf '%s\n' "$@" >"$tmp/c.conf"; }

for f in "$tmp/fifo" "$tmp/dir"; do
    k=$(basename "$f")
    expect "nl-detect -c $k" 2 "$f" -- "$detect" -c "$f" "$tmp/in.log"
    conf "stream s event=a.b value=rate history.from=db" "set db=$f"
    expect "nl-detect db=$k (history.from=db)" 2 "$f" -- "$detect" -c "$tmp/c.conf" "$tmp/in.log"
    conf 'stream s event=a.* value=rate' 'receiver r file:///dev/null' 'route notify r' \
        "alerts state=$f"
    expect "nl-detect alerts state=$k" 2 "$f" -- "$detect" -c "$tmp/c.conf" "$tmp/in.log"
    conf 'stream s event=a.* value=rate' "receiver r https://127.0.0.1:9/ ca=$f" 'route notify r'
    expect "nl-detect receiver ca=$k" 2 "$f" -- "$detect" -c "$tmp/c.conf" "$tmp/in.log"
    # a bad silences file is said and counted, and detection goes on (the silences in force
    # stay): exit 0, and the input was read
    conf 'stream s event=a.* value=rate' 'receiver r file:///dev/null' 'route notify r' \
        "alerts silences=$f"
    expect "nl-detect alerts silences=$k" 0 "$f" -- "$detect" -c "$tmp/c.conf" --stats "$tmp/in.log"
    grep -q 'lines=1 ' "$tmp/err" || fail "nl-detect silences=$k: input not read: $(cat "$tmp/err")"
    expect "nl-load -d $k" 1 "$f" -- "$load" -d "$f" "$tmp/in.log"
    expect "nl-baseline -d $k" 1 "$f" -- "$baseline" -d "$f" -e a.b
    expect "nl-report -d $k" 1 "$f" -- "$report" -d "$f" -o "$tmp/page.html"
    expect "nl-flows -d $k" 1 "$f" -- "$flows" -d "$f"
done

[ $bad = 0 ] && echo "ok: $n runs: a FIFO or a directory named as a file to read is refused at once"
exit $bad
