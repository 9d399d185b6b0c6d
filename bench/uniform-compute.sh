#!/bin/bash
# How much of a prediction is the noise of the host's measurements.
# Run bench/uniform-compute.sh --help.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VACED=$ROOT/install/vaced
APPS=stencil,mg
CLASS=W
RANKS=256
TARGET=paper-1024
REPS=1

usage() {
    cat <<EOF
usage: bench/uniform-compute.sh [--apps LIST] [--class C] [--ranks P] [--target T] [--reps N]

Records a prediction of each mini-app (default $APPS, class $CLASS, $RANKS
ranks, target $TARGET), then replays the record twice on the same target:
as recorded (it must give the live prediction), and with its computation
made uniform across ranks (vaced replay --uniform-compute: in each group of
ranks with the same number of compute segments, every rank's k-th segment
is the group's median).  The difference is what the host's measurement noise
adds: each exchange waits for the slower partner, so a segment stretched on
the host (a cold start, a context switch) is carried along the chains of
exchanges, where the target's ranks, doing the same work, would not wait.
Meaningful for programs whose ranks do the same work (the stencil, MG, CG;
not for LU's wavefronts or IS's data-dependent exchanges).

Prints one line per app and repetition: the live prediction, the replay's,
the uniform one, and the change.  Logs and records under build/uniform/.
EOF
}

while [ $# -gt 0 ]; do
    case $1 in
        --apps) APPS=$2; shift 2 ;;
        --class) CLASS=$2; shift 2 ;;
        --ranks) RANKS=$2; shift 2 ;;
        --target) TARGET=$2; shift 2 ;;
        --reps) REPS=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "uniform-compute.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

die() { echo "uniform-compute.sh: $*" >&2; exit 1; }
[ -x "$VACED/bin/mpiexec" ] || die "run ./build.sh first"
# shellcheck source=lib/apps.sh
source "$ROOT/bench/lib/apps.sh"
WORK=$ROOT/build/uniform
mkdir -p "$WORK"
apps_build "$WORK" "$WORK/build.log"

prediction() { sed -nE 's/^vaced: prediction ([0-9.eE+-]+) s.*/\1/p' "$1" | tail -n 1; }

IFS=, read -ra apps <<< "$APPS"
for ((rep = 1; rep <= REPS; rep++)); do
    for app in "${apps[@]}"; do
        rec=$WORK/rec-$app rc=0
        rm -rf "$rec"
        env LD_LIBRARY_PATH="$VACED/lib" VACED_TARGET="$TARGET" VACED_QUIET=1 VACED_RECORD="$rec" \
            "$VACED/bin/mpiexec" -n "$RANKS" "$WORK/build/$app" "$CLASS" > "$WORK/$app.live" 2>&1 || rc=$?
        [ $rc = 2 ] && { echo "$app class $CLASS refuses $RANKS ranks: skipped"; continue; }
        [ $rc = 0 ] || die "$app failed (exit $rc): see $WORK/$app.live"
        "$ROOT/vaced/tools/vaced" replay "$rec" --target "$TARGET" --quiet > "$WORK/$app.replay" 2>&1 ||
            die "the replay failed: see $WORK/$app.replay"
        "$ROOT/vaced/tools/vaced" replay "$rec" --target "$TARGET" --quiet --uniform-compute \
            > "$WORK/$app.uniform" 2>&1 || die "the uniform replay failed: see $WORK/$app.uniform"
        live=$(prediction "$WORK/$app.live") replayed=$(prediction "$WORK/$app.replay")
        uniform=$(prediction "$WORK/$app.uniform")
        [ "$live" = "$replayed" ] || die "$app: the replay gives $replayed s, the live run $live s"
        awk -v a="$app" -v c="$CLASS" -v p="$RANKS" -v t="$TARGET" -v r="$rep" -v l="$live" -v u="$uniform" \
            -v g="$(sed -nE 's/.*uniform computation: .*\(([0-9]+) groups? of ranks\)/\1/p' "$WORK/$app.uniform")" 'BEGIN {
            printf "%s %s P=%s %s rep %s: live %.6f s (replayed alike), uniform computation %.6f s (%+.1f %%; %d groups of ranks)\n",
                a, c, p, t, r, l, u, (u / l - 1) * 100, g }'
        rm -rf "$rec"
    done
done
