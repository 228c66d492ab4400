#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# run_all.sh — every benchmark in bench/, one after the other, each printing its table;
# CSVs (and, when gnuplot is installed, the perturbation plot) go to OUT.
#
#   bench/run_all.sh [--quick] [BUILD_DIR [OUT]]      (build, BUILD_DIR/bench-results)
#
# Full run: about 10 minutes on a 2-core machine (the pipeline part needs syslog-ng; it is
# skipped, and says so, without it). --quick: each benchmark on a tiny size, under 30 s —
# a check that they all work, not a measurement.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
QUICK=0
if [ "${1:-}" = --quick ]; then
    QUICK=1
    shift
fi
B=$(realpath "${1:-$ROOT/build}")
OUT=${2:-$B/bench-results}
mkdir -p "$OUT"
for p in bench-throughput bench-perturb bench-write bench-detect bench-metrics bench-load bench-eval bench-peers bench-flows bench-realdata bench-quiet; do
    [ -x "$B/bench/$p" ] || { echo "run_all: $B/bench/$p missing: build first (./nlkit build)" >&2; exit 1; }
done
T0=$(date +%s)
say() { printf '\n== %s\n\n' "$*"; }

say "bench-throughput: Table I (nlkit full / summarized beside fprintf, syslog(3), spdlog)"
if [ $QUICK = 1 ]; then
    "$B/bench/bench-throughput" --quick --csv "$OUT/throughput.csv"
else
    "$B/bench/bench-throughput" --csv "$OUT/throughput.csv"
fi
say "bench-throughput --paced: one writer at 30 .. 1000 ns a line; does the background keep up"
if [ $QUICK = 1 ]; then
    "$B/bench/bench-throughput" --paced 2000 1 || [ $? = 3 ] # 3: no CPU counter here
else
    "$B/bench/bench-throughput" --paced --csv "$OUT/throughput-paced.csv" 200000 3 || [ $? = 3 ]
fi

say "bench-perturb: Figure 3 (how much logging every iteration slows a loop)"
if [ $QUICK = 1 ]; then
    "$B/bench/bench-perturb" --quick --csv "$OUT/perturb.csv"
else
    "$B/bench/bench-perturb" --csv "$OUT/perturb.csv"
fi
if command -v gnuplot >/dev/null; then
    "$ROOT/bench/plot_perturb.sh" "$OUT/perturb.csv" "$OUT/perturb.svg" &&
        echo "plot: $OUT/perturb.svg"
else
    echo "(no plot: gnuplot is not installed; apt install gnuplot-nox)"
fi

say "bench-write: one nl_write against a hand-written fprintf"
if [ $QUICK = 1 ]; then "$B/bench/bench-write" 100000 1; else "$B/bench/bench-write"; fi

say "bench-detect: nl-detect's algorithms against the obvious implementation"
if [ $QUICK = 1 ]; then "$B/bench/bench-detect" 50000 2000; else "$B/bench/bench-detect"; fi

say "bench-load: nl-load against sqlite3 .import"
if [ $QUICK = 1 ]; then "$B/bench/bench-load" 20000 10000 1; else "$B/bench/bench-load"; fi
if [ $QUICK = 0 ]; then
    say "bench-load --pg: nl-load into PostgreSQL against its own COPY, and two loaders at once"
    "$B/bench/bench-load" --pg
fi

say "nl-xfer bench: a real TCP file transfer with logging off, in full and summarized"
if [ $QUICK = 1 ]; then "$B/examples/nl-xfer" bench 16 1; else "$B/examples/nl-xfer" bench; fi

say "bench-eval: detection quality of the eight algorithms (the paper's Tables III, V, VI)"
if [ $QUICK = 1 ]; then
    "$B/bench/bench-eval" --dir "$OUT/eval" --plot "$OUT"
else
    "$B/bench/bench-eval" --seeds 10 --dir "$OUT/eval" --plot "$OUT"
fi
echo "plots (the paper's Figure 6): $OUT/xfer-controlled.svg $OUT/xfer-random.svg $OUT/cpu-job.svg"

say "bench-metrics: nl-detect --metrics with 100k series (memory, render, scrape)"
if [ $QUICK = 1 ]; then "$B/bench/bench-metrics" --quick; else "$B/bench/bench-metrics"; fi

say "bench-peers: nl-peers names the slowed and the stopped host of a 16-server pool"
if [ $QUICK = 1 ]; then "$B/bench/bench-peers" --seeds 2; else "$B/bench/bench-peers" --seeds 20; fi

say "bench-flows: nl-flows' events per second on one core, beside nl_parse alone"
if [ $QUICK = 1 ]; then "$B/bench/bench-flows" --quick; else "$B/bench/bench-flows"; fi

say "bench-realdata: nl-detect on real, expert-labelled operations series (NAB scoring)"
# exit 2: the data set (../shared/datasets beside the checkout) is absent; it says so
rc=0
if [ $QUICK = 1 ]; then
    "$B/bench/bench-realdata" --quick --tmp "$OUT" || rc=$?
    # one rate for both sets, with the bars each meets (~6 s; the full run prints it too)
    [ $rc != 0 ] || "$B/bench/bench-realdata" --rates || rc=$?
else
    "$B/bench/bench-realdata" --tmp "$OUT" || rc=$?
    for s in app2-10 app2-07; do
        "$B/bench/bench-realdata" --plot application-crash-rate-2/$s.csv "$OUT/realdata-$s.svg" ||
            rc=$?
    done
fi
[ $rc = 0 ] || [ $rc = 2 ] || exit $rc

say "bench-quiet: nl-detect's reports per day on generated series with nothing wrong"
if [ $QUICK = 1 ]; then "$B/bench/bench-quiet" --days 10 --seeds 1; else "$B/bench/bench-quiet"; fi

if [ $QUICK = 0 ]; then
    say "bench_pipeline.sh: through two syslog-ng daemons into SQLite and PostgreSQL"
    if command -v syslog-ng >/dev/null || [ -x /usr/sbin/syslog-ng ]; then
        "$ROOT/bench/bench_pipeline.sh" "$B" "50000 100000" 20 300000
    else
        echo "(skipped: syslog-ng is not installed; ./nlkit deps)"
    fi
fi
echo
echo "run_all: done in $(($(date +%s) - T0)) s; CSVs in $OUT"
