#!/bin/bash
# The spread of repeated predictions, single executions against
# `vaced run --repeat N` (issue 39's check, results/repeat-spread.md):
# RUNS separate `vaced run --repeat N` of each mini-app at P ranks; each
# gives N single-execution predictions and one combined prediction.
# Prints, per app, (max - min) / median over the RUNS combined predictions
# and over the RUNS first executions (what a plain run gives).
#   bench/repeat-spread.sh [-n P] [--repeat N] [--runs R] [--target T] [--class C] APP...
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
P=64 N=3 RUNS=5 TARGET=paper-1024 CLASS=A
while [ $# -gt 0 ]; do
    case $1 in
        -n) P=$2; shift 2 ;;
        --repeat) N=$2; shift 2 ;;
        --runs) RUNS=$2; shift 2 ;;
        --target) TARGET=$2; shift 2 ;;
        --class) CLASS=$2; shift 2 ;;
        -*) echo "repeat-spread: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || set -- ft stencil is cg
WORK=$(mktemp -d /tmp/repeat-spread.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
make -s -C "$ROOT/tests/apps" PREFIX="$ROOT/install/vaced" OUT="$WORK/bin" >/dev/null
echo "# $RUNS runs of vaced run --repeat $N, $P ranks, class $CLASS, target $TARGET; $(nproc) host CPUs, load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| app | single executions: spread | combined of $N: spread | combined predictions (s) | first executions (s) | host s a run |"
echo "|---|---|---|---|---|---|"
for app in "$@"; do
    for r in $(seq "$RUNS"); do
        "$ROOT/vaced/tools/vaced" run -n "$P" --target "$TARGET" --repeat "$N" --quiet \
            --json "$WORK/$app.$r.json" -- "$WORK/bin/$app" "$CLASS" >/dev/null 2>"$WORK/$app.$r.err" ||
            { echo "repeat-spread: $app run $r failed:" >&2; tail -3 "$WORK/$app.$r.err" >&2; exit 1; }
    done
    python3 - "$WORK" "$app" "$RUNS" <<'PY'
import json, statistics, sys
work, app, runs = sys.argv[1], sys.argv[2], int(sys.argv[3])
d = [json.load(open(f"{work}/{app}.{r}.json")) for r in range(1, runs + 1)]
comb = [x["prediction_s"] for x in d]
raw = [x["prediction_raw_s"] for x in d]
spread = lambda v: (max(v) - min(v)) / statistics.median(v)
wall = statistics.mean(x["host_wall_s"] for x in d)
print(f"| {app} | {100 * spread(raw):.1f} % | {100 * spread(comb):.1f} % | "
      f"{' '.join(f'{p:.4f}' for p in comb)} | {' '.join(f'{p:.4f}' for p in raw)} | {wall:.1f} |")
PY
done
