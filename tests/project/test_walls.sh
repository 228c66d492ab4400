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
[ $bad = 0 ] && echo "ok: libnl/, summarizer/, internal/, detector/, loader/, peers/, report/, bottleneck/, flows/ and alerts/ include only what their walls allow"
exit $bad
