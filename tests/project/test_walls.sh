#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_walls.sh — the walls between the parts hold: every #include "..." of a part names a
# header of its own folder, of a folder it may use, or the public nlkit/ headers.
#   libnl/      its own, internal/
#   summarizer/ its own, libnl/'s private ones, internal/
#   internal/   its own
#   detector/, loader/, peers/ (the tools): their own, internal/; nl-detect also the
#                                  loader's (its archive histories) and the alert layer's
#   alerts/     its own, internal/ (it knows nothing of the detector)
#   report/     its own, internal/, the loader's (it reads the archive through it)
#   flows/      its own, internal/, peers/ (nl-peers' distance arithmetic, nlp_score.h),
#               the loader's (nl-flows -d reads the archive through it)
# No exception is left; a new crossing fails.
# The databases: <sqlite3.h> and <libpq-fe.h>, and the loader headers that bring them
# (nll_db_lite.h, nll_db_int.h), are included in loader/ only; every other part reads the
# archive through nll.h and nll_sql.h, which show neither. Two exceptions, both of which
# test the SQLite layer itself: tests/loader/ (it opens archives behind the layer's back to
# check what the file holds, holds SQLite's write lock, compares with psql's output) and
# bench/bench_load.c (its anchors are SQLite's own .import and prepared inserts).
#   test_walls.sh SOURCE_DIR
set -euo pipefail
cd "$1"
bad=0
check() { # folder, allowed folders..., then -- and allowed extra headers
    local part=$1; shift
    local dirs=() extra=()
    while [ $# -gt 0 ] && [ "$1" != -- ]; do dirs+=("$1"); shift; done
    [ $# -gt 0 ] && shift
    extra=("$@")
    for f in "$part"/*.c "$part"/*.h; do
        [ -e "$f" ] || continue
        while IFS= read -r h; do
            case "$h" in nlkit/*) continue ;; esac
            ok=0
            for d in "$part" "${dirs[@]}"; do [ -e "$d/$h" ] && ok=1; done
            for e in "${extra[@]}"; do [ "$h" = "$e" ] && ok=1; done
            if [ $ok = 0 ]; then
                echo "FAIL: $f includes \"$h\", outside what $part/ may use" >&2
                bad=1
            fi
        done < <(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\([^"]*\)".*/\1/p' "$f")
    done
}
check internal
check libnl internal
check summarizer libnl internal
check detector internal loader alerts
check alerts internal
check loader internal
check peers internal
check report internal loader
check bottleneck internal
check flows internal peers loader

# the database headers, anywhere in the tree outside build directories
db_headers='^[[:space:]]*#[[:space:]]*include[[:space:]]*[<"](sqlite3\.h|libpq-fe\.h|nll_db_lite\.h|nll_db_int\.h)[>"]'
while IFS= read -r f; do
    case "$f" in
    ./loader/* | ./tests/loader/* | ./bench/bench_load.c) continue ;;
    esac
    echo "FAIL: $f includes a database's header ($(grep -ohE "$db_headers" "$f" | head -1 |
        sed 's/.*include[[:space:]]*//')): only loader/ talks to SQLite or PostgreSQL" >&2
    bad=1
done < <(find . \( -name 'build*' -o -name '.git' \) -prune -o \
    -type f \( -name '*.c' -o -name '*.h' -o -name '*.in' \) -print | sort |
    xargs grep -lE "$db_headers" || true)
# and the loader headers other parts include must not bring them in either
for h in loader/nll.h loader/nll_sql.h; do
    if grep -qE "$db_headers" "$h"; then
        echo "FAIL: $h brings in a database's header: the archive's API must stay opaque" >&2
        bad=1
    fi
done
for f in $(grep -lE '#[[:space:]]*include[[:space:]]*"nll[a-z_]*\.h"' \
    detector/*.[ch] report/*.[ch] flows/*.[ch] tests/report/*.c 2>/dev/null); do
    for h in $(sed -n 's/^[[:space:]]*#[[:space:]]*include[[:space:]]*"\(nll[a-z_]*\.h\)".*/\1/p' "$f"); do
        case "$h" in nll.h | nll_sql.h) ;; *)
            echo "FAIL: $f includes loader/$h: outside loader/, the archive is nll.h and nll_sql.h" >&2
            bad=1 ;;
        esac
    done
done
[ $bad = 0 ] && echo "ok: <sqlite3.h> and <libpq-fe.h> only in loader/ (and the SQLite layer's own tests/loader/, bench/bench_load.c)"
[ $bad = 0 ] && echo "ok: libnl/, summarizer/, internal/, detector/, loader/, peers/, report/, bottleneck/, flows/ and alerts/ include only what their walls allow"
exit $bad
