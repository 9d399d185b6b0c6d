#!/usr/bin/env bash
# bench/ab-libs.sh: does a change of the predictor move its predictions,
# or its cost?  Runs the mini-apps under two VACED installs (an older copy
# and the current one) on one fixed target description, interleaved
# A B A B ..., and prints, per app, each side's median prediction and
# median wall time of the whole mpiexec, their spreads ((max - min) /
# median) and the relative differences of the medians.  A change that
# keeps the model and its cost passes when the differences stay inside
# the spreads.
#
#   bench/ab-libs.sh [-r REPS] [-n RANKS] [-t TARGET] [-c CLASS] [-o CSV] OLD_PREFIX [NEW_PREFIX]
#
#   OLD_PREFIX   an install to compare, e.g. a copy of install/vaced made
#                before the change (cp -a install/vaced /tmp/vaced-old)
#   NEW_PREFIX   default install/vaced
#   -r REPS      repetitions per side (default 5)
#   -n RANKS     ranks (default 16)
#   -t TARGET    target description (default topo/paper-16.topo)
#   -c CLASS     problem class of the apps (default S)
#   -o CSV       also write every run (app,side,rep,prediction_s,wall_s) to CSV
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
REPS=5 RANKS=16 TARGET=$ROOT/topo/paper-16.topo CLASS=S CSV=
APPS=(cg is mg stencil ft lu)

die() { echo "ab-libs.sh: $*" >&2; exit 1; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }

while getopts "r:n:t:c:o:h" opt; do
    case $opt in
        r) REPS=$OPTARG ;;
        n) RANKS=$OPTARG ;;
        t) TARGET=$OPTARG ;;
        c) CLASS=$OPTARG ;;
        o) CSV=$OPTARG ;;
        h) usage 0 ;;
        *) usage 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -ge 1 ] || usage 2
OLD=$(cd "$1" && pwd) || die "no such install: $1"
NEW=$(cd "${2:-$ROOT/install/vaced}" && pwd) || die "no such install: ${2:-install/vaced}"
for p in "$OLD" "$NEW"; do
    [ -x "$p/bin/mpiexec" ] && [ -e "$p/lib/libmpi.so" ] || die "$p is not an MPICH install (bin/mpiexec, lib/libmpi.so)"
done
[ -f "$TARGET" ] || die "no such target description: $TARGET"

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
# One binary per app for both sides (built with NEW's compilers; the
# libmpi each run loads is chosen with LD_LIBRARY_PATH).
make -s -C "$ROOT/tests/apps" PREFIX="$NEW" OUT="$WORK/build" >"$WORK/build.log" 2>&1 ||
    { cat "$WORK/build.log" >&2; die "building the apps failed"; }

# predict SIDE_PREFIX APP: "PREDICTED_S WALL_S", from the JSON report and
# the wall time of the whole mpiexec
predict() {
    local prefix=$1 app=$2 json=$WORK/out.json t0 t1
    rm -f "$json"
    t0=$EPOCHREALTIME
    LD_LIBRARY_PATH="$prefix/lib" VACED_TARGET="$TARGET" VACED_QUIET=all VACED_JSON="$json" \
        "$prefix/bin/mpiexec" -n "$RANKS" "$WORK/build/$app" "$CLASS" >"$WORK/run.log" 2>&1 ||
        { cat "$WORK/run.log" >&2; die "$app failed under $prefix"; }
    t1=$EPOCHREALTIME
    python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["prediction_s"], float(sys.argv[3]) - float(sys.argv[2]))' \
        "$json" "$t0" "$t1"
}

[ -z "$CSV" ] || echo "app,side,rep,prediction_s,wall_s" >"$CSV"
printf '%-8s %12s %8s %12s %8s %9s   %9s %8s %9s %8s %9s\n' app old_median spread new_median spread diff \
    old_wall spread new_wall spread diff
for app in "${APPS[@]}"; do
    [ -x "$WORK/build/$app" ] || continue
    old=() new=() oldw=() neww=()
    for ((r = 1; r <= REPS; r++)); do
        read -r o ow < <(predict "$OLD" "$app")
        read -r n nw < <(predict "$NEW" "$app")
        old+=("$o"); new+=("$n"); oldw+=("$ow"); neww+=("$nw")
        [ -z "$CSV" ] || printf '%s,old,%d,%s,%s\n%s,new,%d,%s,%s\n' "$app" "$r" "$o" "$ow" "$app" "$r" "$n" "$nw" >>"$CSV"
    done
    python3 - "$app" "${old[*]}" "${new[*]}" "${oldw[*]}" "${neww[*]}" <<'EOF'
import statistics, sys
app = sys.argv[1]
old, new, oldw, neww = ([float(x) for x in a.split()] for a in sys.argv[2:6])
spread = lambda v, m: (max(v) - min(v)) / m
def cols(a, b, w):
    ma, mb = statistics.median(a), statistics.median(b)
    return (f"{ma:{w}.6f} {100 * spread(a, ma):7.2f}% {mb:{w}.6f} {100 * spread(b, mb):7.2f}%"
            f" {100 * (mb - ma) / ma:+8.2f}%")
print(f"{app:<8} {cols(old, new, 12)}   {cols(oldw, neww, 9)}")
EOF
done
