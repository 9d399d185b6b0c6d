#!/bin/bash
# Host time of vaced run's default (two executions combined and replayed)
# against one execution (--repeat 1) and against the unpatched MPICH run
# of the same program (issue 39's cost check: at most 3x).  For each app
# and P, ROUNDS interleaved rounds of the three, each timed from start to
# exit (the front end's start-up, the combination and the replay
# included); prints the median wall times and their ratios.
#   bench/default-cost.sh [--ranks "16 64"] [--rounds K] [--target T] [--class C] APP...
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RANKS="16 64" ROUNDS=3 TARGET=paper-1024 CLASS=A
while [ $# -gt 0 ]; do
    case $1 in
        --ranks) RANKS=$2; shift 2 ;;
        --rounds) ROUNDS=$2; shift 2 ;;
        --target) TARGET=$2; shift 2 ;;
        --class) CLASS=$2; shift 2 ;;
        -*) echo "default-cost: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || set -- cg ft is stencil
WORK=$(mktemp -d /tmp/default-cost.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
VACED=$ROOT/vaced/tools/vaced
make -s -C "$ROOT/tests/apps" PREFIX="$ROOT/install/vaced" OUT="$WORK/bin" >/dev/null
make -s -C "$ROOT/tests/apps" PREFIX="$ROOT/install/vanilla" OUT="$WORK/vanilla" >/dev/null
# seconds KIND CMD...: runs CMD, prints its wall time; a failure stops the bench
seconds() {
    local kind=$1 t0 t1
    shift
    t0=$(date +%s.%N)
    "$@" >/dev/null 2>"$WORK/err" || { echo "default-cost: $kind failed:" >&2; tail -3 "$WORK/err" >&2; exit 1; }
    t1=$(date +%s.%N)
    python3 -c "print(f'{$t1 - $t0:.3f}')"
}
echo "# $ROUNDS interleaved rounds, class $CLASS, target $TARGET; $(nproc) host CPUs; load $(cut -d' ' -f1-3 /proc/loadavg) at $(date +%H:%M)"
echo
echo "| app | P | unpatched (s) | vaced run --repeat 1 (s) | vaced run, default (s) | default / --repeat 1 | default / unpatched |"
echo "|---|---|---|---|---|---|---|"
for app in "$@"; do
    for p in $RANKS; do
        : >"$WORK/times"
        for _ in $(seq "$ROUNDS"); do
            v=$(seconds unpatched "$ROOT/install/vanilla/bin/mpiexec" -n "$p" "$WORK/vanilla/$app" "$CLASS")
            one=$(seconds "--repeat 1" "$VACED" run -n "$p" --target "$TARGET" --repeat 1 --quiet -- "$WORK/bin/$app" "$CLASS")
            def=$(seconds default env -u VACED_REPEAT "$VACED" run -n "$p" --target "$TARGET" --quiet -- \
                  "$WORK/bin/$app" "$CLASS")
            echo "$v $one $def" >>"$WORK/times"
        done
        python3 - "$WORK/times" "$app" "$p" <<'PY'
import statistics, sys
rows = [list(map(float, l.split())) for l in open(sys.argv[1])]
v, one, d = (statistics.median(c) for c in zip(*rows))
print(f"| {sys.argv[2]} | {sys.argv[3]} | {v:.2f} | {one:.2f} | {d:.2f} | {d / one:.2f} | {d / v:.2f} |")
PY
    done
done
echo "# load $(cut -d' ' -f1-3 /proc/loadavg) at $(date +%H:%M)"
