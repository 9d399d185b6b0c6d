#!/bin/bash
# VACED and SMPI side by side on the same targets.  Run bench/smpi.sh --help.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VACED=$ROOT/install/vaced
OUT=$ROOT/results
APPS=ep,is,cg,mg,ft,lu,stencil
RANKS="16 64 256"
CLASS=W

usage() {
    cat <<EOF
usage: bench/smpi.sh [--apps LIST] [--ranks "16 64 256"] [--class C] [--out DIR]

Builds the mini-apps of tests/apps twice, as the other harnesses do
(bench/lib/apps.sh: install/vanilla's compilers, run on install/vaced's
library) and with Debian's SimGrid (smpicc, smpiff; libsimgrid-dev), and
runs each at every rank count (default "$RANKS", class $CLASS) on two
targets: paper-1024, and a paper-16-like one (paper-16's figures, one core
a node, all nodes 3 hops apart) with exactly P cores.  SMPI gets the
platform, host file and options of vaced export-simgrid for the same
target.  VACED runs its ranks on this machine's cores.

Per run: the app's own timed section (its TIME= line, target time under
both), VACED's whole-program prediction, and each tool's host wall time.
Writes DIR/smpi.csv and DIR/smpi.md (DIR defaults to results/); logs in
build/smpi/.  Combinations an app refuses (exit 2) are skipped.
EOF
}

while [ $# -gt 0 ]; do
    case $1 in
        --apps) APPS=$2; shift 2 ;;
        --ranks) RANKS=$2; shift 2 ;;
        --class) CLASS=$2; shift 2 ;;
        --out) OUT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "smpi.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

die() { echo "smpi.sh: $*" >&2; exit 1; }
say() { echo "[smpi] $*" >&2; }
[ -x "$VACED/bin/mpiexec" ] || die "run ./build.sh first"
command -v smpicc > /dev/null && command -v smpirun > /dev/null ||
    die "SimGrid's smpicc and smpirun are missing: apt-get install libsimgrid-dev"
# shellcheck source=lib/apps.sh
source "$ROOT/bench/lib/apps.sh"
WORK=$ROOT/build/smpi
mkdir -p "$WORK/logs" "$OUT"
apps_build "$WORK" "$WORK/logs/build-vaced.log"
apps_stage "$WORK"
make -s -C "$ROOT/tests/apps" MPICC=smpicc MPIF90=smpiff OUT="$WORK/smpi" > "$WORK/logs/build-smpi.log" 2>&1 ||
    die "building the apps with smpicc/smpiff failed: see $WORK/logs/build-smpi.log"

# paper-16's figures for exactly $1 cores
flat_target() {
    local f=$WORK/paper-flat-$1.topo
    sed -e "s/^name .*/name = paper-flat-$1/" -e "s/^cores .*/cores = $1/" "$ROOT/topo/paper-16.topo" > "$f"
    echo "$f"
}

wall_of() { awk -v s="$1" -v e="$(date +%s.%N)" 'BEGIN { printf "%.2f", e - s }'; }

csv=$OUT/smpi.csv
echo "app,class,ranks,target,tool,time_s,prediction_s,host_wall_s" > "$csv"
IFS=, read -ra apps <<< "$APPS"
for p in $RANKS; do
    for target in "$(flat_target "$p")" paper-1024; do
        tname=$(basename "$target" .topo)
        sg=$WORK/sg-$tname-$p
        "$ROOT/vaced/tools/vaced" export-simgrid "$target" -n "$p" -o "$sg" > /dev/null
        mapfile -t sargs < "$sg/smpirun.args"
        for app in "${apps[@]}"; do
            log=$WORK/logs/$app-$tname-$p
            start=$(date +%s.%N) rc=0
            env "$(mpi_lib vaced)" VACED_TARGET="$target" VACED_QUIET=1 "$VACED/bin/mpiexec" -n "$p" \
                "$WORK/run/$app" "$CLASS" \
                > "$log.vaced" 2>&1 || rc=$?
            vwall=$(wall_of "$start")
            if [[ $rc == 2 ]]; then
                say "$app class $CLASS refuses $p ranks: skipped"
                continue
            fi
            [[ $rc == 0 ]] || die "$app on VACED failed (exit $rc): see $log.vaced"
            start=$(date +%s.%N) rc=0
            smpirun "${sargs[@]}" "$WORK/smpi/$app" "$CLASS" > "$log.smpi" 2>&1 || rc=$?
            swall=$(wall_of "$start")
            [[ $rc == 0 ]] || die "$app on SMPI failed (exit $rc): see $log.smpi"
            vt=$(sed -n 's/^APP=.* TIME=\([^ ]*\) .*/\1/p' "$log.vaced" | tail -1)
            vp=$(sed -n 's/^vaced: prediction \([0-9.e+-]*\) s.*/\1/p' "$log.vaced" | tail -1)
            st=$(sed -n 's/^APP=.* TIME=\([^ ]*\) .*/\1/p' "$log.smpi" | tail -1)
            echo "$app,$CLASS,$p,$tname,vaced,$vt,$vp,$vwall" >> "$csv"
            echo "$app,$CLASS,$p,$tname,smpi,$st,,$swall" >> "$csv"
            say "$app P=$p $tname: VACED $vt s (host ${vwall}s), SMPI $st s (host ${swall}s)"
        done
    done
done
python3 "$ROOT/bench/lib/smpi_report.py" "$csv" "$OUT/smpi.md" "$(nproc)"
say "wrote $csv and $OUT/smpi.md"
