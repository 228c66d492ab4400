#!/usr/bin/env bash
# SPDX-License-Identifier: BSD-3-Clause
# eval_sweep.sh — how nl-detect's defaults were chosen: bench-eval over a grid of stream
# options, seeds 1-3 each; prints the configurations ranked by summed badness (each
# algorithm's badness on each scenario, averaged over the seeds and capped at 10, summed
# over the 3 scenarios x 8 algorithms: 0 is perfect, 240 is useless). About 4 minutes.
#   bench/eval_sweep.sh [BUILD_DIR [TOP]]
set -euo pipefail
B=$(realpath "${1:-build}")
TOP=${2:-10}
EVAL=$B/bench/bench-eval
[ -x "$EVAL" ] || { echo "eval_sweep: $EVAL missing: build first (./nlkit build)" >&2; exit 1; }
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT
for h in 300 600; do for ep in 1 5 10 20; do for a in 0.2 0.5; do for ad in 0 3 10; do
    for kp in "k=2 p=5%" "k=2.5 p=2%" "k=3 p=1%" "k=4 p=0.5%"; do
        P="history=$h episode.min=$ep alpha=$a admit=$ad min=30 $kp"
        for seed in 1 2 3; do
            "$EVAL" --seed $seed --dir "$T/run" $P 2>/dev/null |
                awk -v P="$P" '/^[a-z-]+ \(seed/ {sc=$1}
                    /^\| (msd|cdf)/ {split($0, f, "|"); b=f[6]+0; if (f[6] ~ /inf/ || b > 10) b=10;
                                     print P "\t" b}'
        done
    done
done; done; done; done |
    awk -F'\t' '{s[$1]+=$2/3} END {for (p in s) printf "%7.2f  %s\n", s[p], p}' | sort -n | head -n "$TOP"
