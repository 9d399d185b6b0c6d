#!/bin/bash
# Which combination of repeated executions predicts most steadily?  Each
# trial records 3 executions of a mini-app (vaced run --repeat 1 --record)
# and combines them four ways (vaced combine): the median and the least
# of the first two, the median and the least of all three; each is
# replayed on the target.  Prints, per app and way, (max - min) / median
# of the TRIALS predictions, their median and the predictions, beside the
# first executions' (what one execution gives).  Records are kept in
# WORK for further combinations.  results/segment-noise.md, section 7.
#   bench/combine-statistic.sh [-n P] [--trials N] [--target T] [--class C] [--work DIR] APP...
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
P=64 TRIALS=5 TARGET=paper-1024 CLASS=A WORK=""
while [ $# -gt 0 ]; do
    case $1 in
        -n) P=$2; shift 2 ;;
        --trials) TRIALS=$2; shift 2 ;;
        --target) TARGET=$2; shift 2 ;;
        --class) CLASS=$2; shift 2 ;;
        --work) WORK=$2; shift 2 ;;
        -*) echo "combine-statistic: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || set -- ft stencil is cg
[ -n "$WORK" ] || { WORK=$(mktemp -d /tmp/combine-statistic.XXXXXX); trap 'rm -rf "$WORK"' EXIT; }
mkdir -p "$WORK"
VACED=$ROOT/vaced/tools/vaced
make -s -C "$ROOT/tests/apps" PREFIX="$ROOT/install/vaced" OUT="$WORK/bin" >/dev/null
echo "# $TRIALS trials of 3 executions, $P ranks, class $CLASS, target $TARGET; $(nproc) host CPUs;" \
     "load $(cut -d' ' -f1-3 /proc/loadavg) at $(date +%H:%M)"
for app in "$@"; do
    for t in $(seq "$TRIALS"); do
        for x in 0 1 2; do
            rm -rf "$WORK/$app.$t.$x"
            "$VACED" run -n "$P" --target "$TARGET" --repeat 1 --quiet --record "$WORK/$app.$t.$x" \
                --json "$WORK/$app.$t.$x.json" -- "$WORK/bin/$app" "$CLASS" >/dev/null 2>"$WORK/err" ||
                { echo "combine-statistic: $app trial $t failed:" >&2; tail -3 "$WORK/err" >&2; exit 1; }
        done
        for way in median2 least2 median3 least3; do
            ex=("$WORK/$app.$t.0" "$WORK/$app.$t.1")
            [ "${way: -1}" = 3 ] && ex+=("$WORK/$app.$t.2")
            opt=()
            [ "${way:0:6}" = median ] && opt=(--median)
            rm -rf "$WORK/$app.$t.$way"
            "$VACED" combine "${opt[@]}" "$WORK/$app.$t.$way" "${ex[@]}" >/dev/null
            "$VACED" replay "$WORK/$app.$t.$way" --target "$TARGET" --json "$WORK/$app.$t.$way.json" \
                --quiet >/dev/null 2>&1
        done
    done
    python3 - "$WORK" "$app" "$TRIALS" <<'PY'
import json, statistics, sys
work, app, trials = sys.argv[1], sys.argv[2], int(sys.argv[3])
for way, name in (("0", "one execution"), ("median2", "median of 2"), ("least2", "least of 2"),
                  ("median3", "median of 3"), ("least3", "least of 3")):
    v = [json.load(open(f"{work}/{app}.{t}.{way}.json"))["prediction_s"] for t in range(1, trials + 1)]
    m = statistics.median(v)
    print(f"| {app} | {name} | {100 * (max(v) - min(v)) / m:.1f} % | {m:.5f} | {' '.join(f'{p:.5f}' for p in v)} |")
PY
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) at $(date +%H:%M)"
