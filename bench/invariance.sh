#!/bin/bash
# Does a prediction depend on how it was hosted?  Run bench/invariance.sh --help.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VACED=$ROOT/install/vaced
OUT=$ROOT/results
APPS=ep,is,cg,mg,ft,lu,stencil
RANKS=64
CLASS=W
REPS=3
TARGET=paper-1024

usage() {
    cat <<EOF
usage: bench/invariance.sh [--apps LIST] [--ranks P] [--class C] [--reps R]
                           [--target T] [--out DIR]

The same prediction of each mini-app (tests/apps; default $APPS, class
$CLASS, $RANKS ranks, target $TARGET) hosted three ways on this machine:
on one core (taskset -c 0), on all its cores, and across 2 network-
namespace hosts of half the ranks each (tests/netns/lib.sh, Hydra through
vaced/tools/netns-launcher; needs root, else skipped).  R repetitions,
interleaved; the median prediction per hosting, its difference from the
all-cores one (goal: within 3 %), and the cold-start share of each.  Each
run is recorded and its record re-timed with vaced replay
--uniform-compute: the same table for the prediction without the host's
measurement noise carried along exchanges (docs/replay.md).
Combinations an app refuses (exit 2) are skipped.

Writes DIR/invariance.csv (every run) and DIR/invariance.md; DIR defaults
to results/.  Logs go to build/invariance/.
EOF
}

while [ $# -gt 0 ]; do
    case $1 in
        --apps) APPS=$2; shift 2 ;;
        --ranks) RANKS=$2; shift 2 ;;
        --class) CLASS=$2; shift 2 ;;
        --reps) REPS=$2; shift 2 ;;
        --target) TARGET=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "invariance.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

die() { echo "invariance.sh: $*" >&2; exit 1; }
say() { echo "[invariance] $*" >&2; }
[[ $RANKS =~ ^[0-9]+$ && $((RANKS % 2)) == 0 ]] || die "--ranks must be an even number"
[ -x "$VACED/bin/mpiexec" ] || die "run ./build.sh first"
# shellcheck source=lib/apps.sh
source "$ROOT/bench/lib/apps.sh"
WORK=$ROOT/build/invariance
mkdir -p "$WORK/logs" "$OUT"
apps_build "$WORK" "$WORK/logs/build.log"
apps_stage "$WORK"

HOSTINGS="1core allcores"
NET=()
if [[ $(id -u) == 0 && -x $ROOT/vaced/tools/netns-launcher ]]; then
    # shellcheck source=../tests/netns/lib.sh
    source "$ROOT/tests/netns/lib.sh"
    netns_setup 2 || die "tests/netns/lib.sh: netns_setup failed"
    trap 'netns_cleanup || true' EXIT
    netns_hostfile "$WORK/hosts" $((RANKS / 2))
    NET=(ip netns exec "${NETNS_HOSTS[0]}" "$VACED/bin/mpiexec" -f "$WORK/hosts" -launcher ssh
         -launcher-exec "$ROOT/vaced/tools/netns-launcher" -iface "$NETNS_IFACE")
    HOSTINGS="$HOSTINGS 2hosts"
else
    say "not root or no netns-launcher: the 2-host hosting is skipped"
fi

csv=$OUT/invariance.csv
echo "app,class,ranks,target,hosting,rep,prediction_s,cold_start_share,host_wall_s,uniform_prediction_s" > "$csv"
IFS=, read -ra apps <<< "$APPS"
for app in "${apps[@]}"; do
    for ((rep = 1; rep <= REPS; rep++)); do
        for h in $HOSTINGS; do
            case $h in
                1core) cmd=(taskset -c 0 "$VACED/bin/mpiexec" -n "$RANKS") ;;
                allcores) cmd=("$VACED/bin/mpiexec" -n "$RANKS") ;;
                2hosts) cmd=("${NET[@]}" -n "$RANKS") ;;
            esac
            json=$WORK/$app-$h-$rep.json log=$WORK/logs/$app-$h-$rep.log rec=$WORK/rec
            rm -rf "$json" "$rec"
            start=$(date +%s.%N)
            rc=0
            env "$(mpi_lib vaced)" VACED_TARGET="$TARGET" VACED_QUIET=1 VACED_JSON="$json" VACED_RECORD="$rec" \
                "${cmd[@]}" "$WORK/run/$app" "$CLASS" > "$log" 2>&1 || rc=$?
            wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
            if [[ $rc == 2 ]]; then
                say "$app class $CLASS refuses $RANKS ranks: skipped"
                continue 3
            fi
            [[ $rc == 0 && -s $json ]] || die "$app $h rep $rep failed (exit $rc): see $log"
            read -r pred cold < <(python3 -c '
import json, sys
j = json.load(open(sys.argv[1]))
c = j.get("cold_start_share")
print(j["prediction_s"], "" if c is None else c)' "$json")
            # the same execution re-timed with uniform computation (docs/replay.md)
            "$ROOT/vaced/tools/vaced" replay "$rec" --target "$TARGET" --quiet --uniform-compute \
                --json "$json.uniform" > "$log.uniform" 2>&1 || die "the uniform replay failed: see $log.uniform"
            upred=$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1]))["prediction_s"])' "$json.uniform")
            rm -rf "$rec"
            echo "$app,$CLASS,$RANKS,$TARGET,$h,$rep,$pred,$cold,$wall,$upred" >> "$csv"
            say "$app $h rep $rep: prediction $pred s (uniform computation $upred s), cold share ${cold:--}, host ${wall} s"
        done
    done
done
python3 "$ROOT/bench/lib/invariance_report.py" "$csv" "$OUT/invariance.md" "$(nproc)"
say "wrote $csv and $OUT/invariance.md"
