#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_man.sh — every man page in the tree renders with man(1) without a single warning.
#   test_man.sh SOURCE_DIR
set -euo pipefail
cd "$1"
pages=$(find . -path ./build\* -prune -o -name '*.[1-8]' -print | sort)
[ -n "$pages" ] || { echo "FAIL: no man pages found" >&2; exit 1; }
bad=0
for p in $pages; do
    w=$(MANWIDTH=80 man --warnings -l "$p" 2>&1 >/dev/null || echo "man failed")
    if [ -n "$w" ]; then
        echo "FAIL: $p: $w" >&2
        bad=1
    fi
done
[ $bad = 0 ] && echo "ok: $(echo "$pages" | wc -l) man pages render without warnings"
exit $bad
