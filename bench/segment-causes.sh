#!/bin/bash
# What the host did to the computation VACED measured (issue 39, item 1;
# results/segment-noise.md): each mini-app at each rank count, run once
# with VACED_SEGMENT_CAUSES (report/segment_causes.h), which notes around
# every compute segment its page faults, its involuntary context switches
# (preempted: another rank ran in the middle of it) and whether the rank
# slept in the MPI call before (cold).  Prints, over all ranks, the share
# of the summed computation in each kind of segment, and in short ones.
#   bench/segment-causes.sh [-n "16 64 256"] [--target T] [--class C] [APP...]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RANKS="16 64" TARGET=paper-1024 CLASS=A
while [ $# -gt 0 ]; do
    case $1 in
        -n) RANKS=$2; shift 2 ;;
        --target) TARGET=$2; shift 2 ;;
        --class) CLASS=$2; shift 2 ;;
        -*) echo "segment-causes: unknown option $1" >&2; exit 2 ;;
        *) break ;;
    esac
done
[ $# -gt 0 ] || set -- cg ft is stencil
WORK=$(mktemp -d /tmp/segment-causes.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
make -s -C "$ROOT/tests/apps" PREFIX="$ROOT/install/vaced" OUT="$WORK/bin" >/dev/null
echo "# class $CLASS on $TARGET, $(nproc) host CPUs; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| app | ranks | segments | computation (s) | segments' wall / CPU | faulted | preempted | cold | none of these | under 10 us | under 10 us, cold |"
echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
for app in "$@"; do
    for P in $RANKS; do
        d=$WORK/$app.$P
        mkdir -p "$d"
        VACED_SEGMENT_CAUSES=$d VACED_TARGET=$TARGET VACED_QUIET=1 \
            "$ROOT/install/vaced/bin/mpiexec" -n "$P" "$WORK/bin/$app" "$CLASS" >/dev/null 2>"$d.err" ||
            { echo "segment-causes: $app at $P ranks failed:" >&2; tail -3 "$d.err" >&2; exit 1; }
        python3 - "$d" "$app" "$P" <<'PY'
import glob, json, sys
d, app, p = sys.argv[1:4]
ranks = [json.load(open(f)) for f in glob.glob(f"{d}/segment-causes.*.json")]
if len(ranks) != int(p):
    sys.exit(f"segment-causes: {app}: {len(ranks)} rank files, expected {p}")
tot = lambda k: sum(r[k]["cpu_s"] for r in ranks)
cpu = tot("all")
share = lambda x: f"{100 * x / cpu:.1f} %" if cpu > 0 else "-"
short = sum(r["by_length"][0]["all"]["cpu_s"] for r in ranks)
short_cold = sum(r["by_length"][0]["cold"]["cpu_s"] for r in ranks)
wall = sum(r["wall_s"] for r in ranks)
print(f"| {app} | {p} | {sum(r['all']['segments'] for r in ranks)} | {cpu:.3f} | {wall / cpu:.2f} | "
      f"{share(tot('faulted'))} | {share(tot('preempted'))} | {share(tot('cold'))} | {share(tot('clean'))} | "
      f"{share(short)} | {share(short_cold)} |")
PY
    done
done
