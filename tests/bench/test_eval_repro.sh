#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# test_eval_repro.sh — bench-eval is reproducible: the same seed and options give the same
# tables and the same plots byte for byte, and another seed gives other ones.
#   test_eval_repro.sh BENCH_EVAL
set -euo pipefail
EVAL=$1
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for run in a b; do
    mkdir -p "$T/$run"
    "$EVAL" --seed 5 --dir "$T/$run/work" --plot "$T/$run" > "$T/$run/tables" 2>/dev/null
done
"$EVAL" --seed 6 --dir "$T/c" > "$T/c.tables" 2>/dev/null
for f in tables xfer-controlled.svg xfer-random.svg cpu-job.svg; do
    cmp "$T/a/$f" "$T/b/$f" || { echo "FAIL: $f differs between two runs of seed 5" >&2; exit 1; }
done
grep -q '^| cdf-hu |' "$T/a/tables" || { echo "FAIL: no table" >&2; exit 1; }
grep -q '<polyline' "$T/a/xfer-controlled.svg" || { echo "FAIL: no series in the plot" >&2; exit 1; }
sed 1d "$T/a/tables" | cmp -s - <(sed 1d "$T/c.tables") && { echo "FAIL: seeds 5 and 6 gave the same tables" >&2; exit 1; }
echo "ok: same seed, same tables and plots; another seed, other tables"
