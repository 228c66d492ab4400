#!/bin/bash
# SPDX-License-Identifier: BSD-3-Clause
# plot_perturb.sh — the paper's Figure 3 from bench-perturb's CSV: perturbation (%) of the
# loop against its rate (iterations/s, log scale), one line per kernel and logging mode,
# with 95% confidence intervals as error bars. Needs gnuplot (apt install gnuplot-nox).
#
#   bench/plot_perturb.sh PERTURB.csv OUT.svg|OUT.png
set -euo pipefail
CSV=${1:?usage: plot_perturb.sh PERTURB.csv OUT.svg}
SVG=${2:?usage: plot_perturb.sh PERTURB.csv OUT.svg}
command -v gnuplot >/dev/null || { echo "plot_perturb: gnuplot is not installed (apt install gnuplot-nox)" >&2; exit 1; }
head -n 1 "$CSV" | grep -q '^kernel,target_per_s,achieved_per_s,mode,' ||
    { echo "plot_perturb: $CSV: not a bench-perturb CSV (header)" >&2; exit 1; }
TMP=$(mktemp -d)
trap 'rm -rf "$TMP"' EXIT
# one data file per (kernel, mode): achieved rate, mean %, CI half-width
plots=()
n=0
for kernel in compute I/O; do
    for mode in full summarized deferred; do
        f=$TMP/s$n.dat
        awk -F, -v k="$kernel" -v m="$mode" 'NR > 1 && $1 == k && $4 == m { print $3, $6, $7 }' "$CSV" >"$f"
        [ -s "$f" ] && plots+=("'$f' using 1:2:3 with yerrorlines title '$kernel kernel, $mode'")
        n=$((n + 1))
    done
done
[ ${#plots[@]} -gt 0 ] || { echo "plot_perturb: $CSV has no rows" >&2; exit 1; }
{
    case $SVG in
    *.png) echo "set terminal png size 800,500 enhanced font 'sans,10'" ;;
    *) echo "set terminal svg size 800,500 dynamic enhanced font 'sans,12'" ;;
    esac
    echo "set output '$SVG'"
    echo "set title 'Perturbation of a loop by logging a start/end pair per iteration'"
    echo "set xlabel 'iterations per second (unlogged)'"
    echo "set ylabel 'slowdown (%), mean with 95% CI'"
    echo "set logscale x"
    echo "set grid"
    echo "set key top left"
    echo "set arrow from graph 0, first 0.5 to graph 1, first 0.5 nohead dashtype 2"
    echo "set label 'goal for summarized at 10,000/s: 0.5%' at graph 0.02, first 0.5 offset 0,-0.8"
    printf 'plot %s\n' "$(IFS=,; echo "${plots[*]}")"
} >"$TMP/plot.gp"
gnuplot "$TMP/plot.gp"
