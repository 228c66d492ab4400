#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_cli.sh — what an operator meets first at the command line: a wrong flag gives its
# error and one line pointing at --help (it was 20-37 lines of usage); a config with only a
# receiver is named as what lacks a stream (it said "give --config FILE" to one who had);
# ./nlkit alone prints a usage that lists every command, deps included (it printed its
# SPDX line and left deps out); every program's man page documents --help and --version;
# every function of the public header is named by a man page; nl-detect, nl-peers and
# nl-flows write their reports where -o says, whatever NL_DEST, NL_CFG and NL_SUMMARY say
# for the programs they watch (nl-peers and nl-flows put NL_CFG's errors in their reports).
#   test_cli.sh SOURCE_DIR PROGRAM...
set -euo pipefail
src=$1
shift
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
bad=0
fail() { echo "FAIL: $*" >&2; bad=1; }

for prog in "$@"; do
    name=$(basename "$prog")
    rc=0
    "$prog" --no-such-flag >"$tmp/out" 2>"$tmp/err" </dev/null || rc=$?
    [ "$rc" = 2 ] || fail "$name --no-such-flag: exit $rc, want 2"
    n=$(wc -l <"$tmp/err")
    [ "$n" -le 2 ] || fail "$name --no-such-flag: $n lines on stderr, want the error and one more"
    tail -n 1 "$tmp/err" | grep -q -- "--help" || fail "$name --no-such-flag: no pointer to --help: $(cat "$tmp/err")"
    [ ! -s "$tmp/out" ] || fail "$name --no-such-flag: wrote to stdout"
    "$prog" --help >"$tmp/out" 2>&1 || fail "$name --help failed"
    "$prog" --version | grep -q "(nlkit)" || fail "$name --version"
    page=$(find "$src" -path "$src/build*" -prune -o -name "$name.1" -print | head -n 1)
    if [ -z "$page" ]; then
        fail "$name: no man page $name.1"
    else
        grep -q -- '\\-\\-help' "$page" || fail "$page: --help not documented"
        grep -q -- '\\-\\-version' "$page" || fail "$page: --version not documented"
    fi
    case $name in nl-detect | nl-peers | nl-flows) # the watched programs' environment is theirs
        echo "no-such-level" >"$tmp/levels"
        args=()
        [ "$name" = nl-detect ] && args=(--event 'x.*')
        rc=0
        NL_DEST="$tmp/elsewhere" NL_CFG="$tmp/levels" NL_SUMMARY='*=summary:0' \
            "$prog" -o "$tmp/reports" "${args[@]}" </dev/null >/dev/null 2>"$tmp/err" || rc=$?
        [ "$rc" = 0 ] || fail "$name with NL_DEST, NL_CFG, NL_SUMMARY set: exit $rc: $(cat "$tmp/err")"
        [ ! -e "$tmp/elsewhere" ] || fail "$name: NL_DEST redirected its reports"
        if grep -q "event=nl.log.config" "$tmp/reports" 2>/dev/null; then
            fail "$name: the watched programs' NL_CFG reached its reports: $(grep nl.log.config "$tmp/reports")"
        fi
        rm -f "$tmp/reports" "$tmp/elsewhere"
        ;;
    esac
    if [ "$name" = nl-detect ]; then
        echo "receiver ops http://127.0.0.1:9/hook" >"$tmp/only-receiver.conf"
        rc=0
        "$prog" -c "$tmp/only-receiver.conf" </dev/null 2>"$tmp/err" || rc=$?
        [ "$rc" = 2 ] || fail "nl-detect -c receiver-only: exit $rc, want 2"
        grep -q "only-receiver.conf: nothing to watch" "$tmp/err" ||
            fail "nl-detect -c receiver-only: config not named: $(cat "$tmp/err")"
        grep -q "give --config" "$tmp/err" && fail "nl-detect -c FILE told to give --config"
    fi
done

rc=0
"$src/nlkit" >"$tmp/out" 2>&1 || rc=$?
[ "$rc" = 2 ] || fail "./nlkit with no command: exit $rc, want 2"
grep -q '^Usage: ./nlkit COMMAND' "$tmp/out" || fail "./nlkit: no usage line"
grep -q 'SPDX' "$tmp/out" && fail "./nlkit: prints its SPDX line"
for cmd in demo replay test bench fuzz build deps; do
    grep -q "\./nlkit $cmd " "$tmp/out" || fail "./nlkit's usage omits $cmd"
done
"$src/nlkit" --help >/dev/null || fail "./nlkit --help failed"

# every function the public header declares is named on a man page
for f in $(grep -ohE '\bnl_[a-z_0-9]+\(' "$src/include/nlkit/nl.h" | tr -d '(' | sort -u); do
    sed -n '/^\.SH NAME/,/^\.SH SYNOPSIS/p' "$src"/libnl/man/*.3 | grep -qw "$f" ||
        fail "$f: on no man page"
done

[ $bad = 0 ] && echo "ok: $# programs: a wrong flag is two lines; ./nlkit's usage; man pages"
exit $bad
