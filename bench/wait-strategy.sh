#!/bin/bash
# Does a rank that spins in its waits, as a target core's MPI does, measure
# shorter compute segments than one that sleeps (issue 39's wake-up
# penalty; results/segment-noise.md)?  bench/weakscale.c (every rank the
# same segments whatever P) at P ranks, each wait as ch3:sock makes it
# (sleep in poll), spinning up to SPIN us first (bench/spin-poll.c by
# LD_PRELOAD), or spinning with sched_yield between polls; one lone rank
# (its exchanges are with itself: no wait) is the reference.  Variants
# interleaved, TRIES times; prints each variant's median and range of the
# mean per-rank computation a segment, and its host wall time.
#   bench/wait-strategy.sh [--ranks "2 64"] [--sets "32768 262144"] [--lines N]
#                          [--iterations N] [--spin US] [--tries K]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RANKS="2 64" SETS="32768 262144" LINES=3000 ITERS=2000 SPIN=300 TRIES=5
while [ $# -gt 0 ]; do
    case $1 in
        --ranks) RANKS=$2; shift 2 ;;
        --sets) SETS=$2; shift 2 ;;
        --lines) LINES=$2; shift 2 ;;
        --iterations) ITERS=$2; shift 2 ;;
        --spin) SPIN=$2; shift 2 ;;
        --tries) TRIES=$2; shift 2 ;;
        *) echo "wait-strategy: unknown argument $1" >&2; exit 2 ;;
    esac
done
WORK=$(mktemp -d /tmp/wait-strategy.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$ROOT/install/vaced/bin/mpicc" -O2 -o "$WORK/weakscale" "$ROOT/bench/weakscale.c"
cc -O2 -shared -fPIC -o "$WORK/spin-poll.so" "$ROOT/bench/spin-poll.c" -ldl
echo "# weakscale, $LINES lines a segment, $ITERS segments a rank, paper-1024, $(nproc) host CPUs;" \
     "median [range] of $TRIES interleaved tries; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| working set | ranks | waits | us a segment | over the lone rank | host wall (s) |"
echo "|---|---:|---|---|---|---|"
# run VARIANT P W TRY: one job; appends "us wall" to WORK/VARIANT.P.W
run() {
    local v=$1 p=$2 w=$3 pre=()
    case $v in
        spin) pre=(-genv LD_PRELOAD "$WORK/spin-poll.so" -genv SPIN_US "$SPIN") ;;
        yield) pre=(-genv LD_PRELOAD "$WORK/spin-poll.so" -genv SPIN_US "$SPIN" -genv SPIN_YIELD 1) ;;
    esac
    local t0 t1
    t0=$(date +%s.%N)
    VACED_TARGET=paper-1024 VACED_QUIET=1 VACED_JSON=$WORK/j.json \
        "$ROOT/install/vaced/bin/mpiexec" "${pre[@]}" -n "$p" "$WORK/weakscale" -w "$w" -l "$LINES" -n "$ITERS" >/dev/null
    t1=$(date +%s.%N)
    python3 -c "import json; r=json.load(open('$WORK/j.json'))['per_rank']; print(sum(x['compute_s'] for x in r) / len(r) / $ITERS * 1e6, $t1 - $t0)" \
        >> "$WORK/$v.$p.$w"
}
for W in $SETS; do
    for t in $(seq "$TRIES"); do
        run lone 1 "$W"
        for P in $RANKS; do
            # spinning without yielding only makes sense with a core a rank
            variants="sleep yield"
            [ "$P" -le "$(nproc)" ] && variants="sleep spin"
            [ $((t % 2)) -eq 0 ] && variants=$(echo "$variants" | tr ' ' '\n' | tac | tr '\n' ' ')
            for v in $variants; do run "$v" "$P" "$W"; done
        done
    done
    python3 - "$WORK" "$W" "$RANKS" "$(nproc)" <<'PY'
import os, statistics, sys
work, w, ranks, cores = sys.argv[1], sys.argv[2], sys.argv[3].split(), int(sys.argv[4])
def load(v, p):
    rows = [tuple(map(float, l.split())) for l in open(f"{work}/{v}.{p}.{w}")]
    return [r[0] for r in rows], [r[1] for r in rows]
lone, lone_wall = load("lone", 1)
ref = statistics.median(lone)
fmt = lambda xs, f: f"{f(statistics.median(xs))} [{f(min(xs))}-{f(max(xs))}]"
print(f"| {w} | 1 | none (lone) | {fmt(lone, lambda x: f'{x:.2f}')} | 1 | {fmt(lone_wall, lambda x: f'{x:.2f}')} |")
for p in ranks:
    for v in ("sleep", "spin" if int(p) <= cores else "yield"):
        us, wall = load(v, p)
        print(f"| {w} | {p} | {v} | {fmt(us, lambda x: f'{x:.2f}')} | {fmt(us, lambda x: f'{x / ref:.2f}')} | {fmt(wall, lambda x: f'{x:.2f}')} |")
PY
done
