#!/bin/bash
# What does a traced prediction cost per MPI call, and its OTF2 archive?
# Run bench/trace.sh --help.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VACED=$ROOT/install/vaced
OUT=$ROOT/results
REPS=7
ITERS=20000
TARGET=paper-16

usage() {
    cat <<EOF
usage: bench/trace.sh [--reps N] [--iters N] [--target T] [--out DIR]

The host cost of VACED_TRACE (docs/usage.md, Trace) and of converting the
traces with vaced otf2, per MPI call, on two 2-rank programs of tests/mpi
built with install/vaced's mpicc:

  pingpong   pingpong.c 0 ITERS: blocking MPI_Send and MPI_Recv, a message
             each, 2 (ITERS + 1) calls per rank
  exchange   exchange.c plain wait 8 ITERS: MPI_Isend, MPI_Irecv and
             MPI_Waitall each round, 3 (ITERS + 1) + 1 calls per rank

--reps N (default $REPS) repetitions; in each, every program runs untraced
and traced one after the other (the order alternating from one repetition
to the next), as install/vaced/bin/mpiexec -n 2 under VACED_TARGET=$TARGET
(--target), VACED_QUIET=all; the traced run's directory is then converted
with vaced/tools/vaced otf2.  --iters N (default $ITERS).

Per program: the median host wall times untraced and traced, their ratio
and every repetition's ratio side by side, the cost per MPI call
((traced - untraced) / calls per rank: the two ranks run at once on two
cores), the trace's lines, and vaced otf2's wall time per MPI call of the
job and per event written.  Writes DIR/trace-cost.md and
DIR/trace-cost.csv (--out, default results/).
EOF
}

# shellcheck source=bench/lib/ab-cost.sh
source "$ROOT/bench/lib/ab-cost.sh"
ab_start trace "$@"

for p in pingpong exchange; do
    "$VACED/bin/mpicc" -O2 -o "$TMP/$p" "$ROOT/tests/mpi/$p.c"
done
declare -A ARGS=([pingpong]="0 $ITERS" [exchange]="plain wait 8 $ITERS")
declare -A CALLS=([pingpong]=$((2 * (ITERS + 1))) [exchange]=$((3 * (ITERS + 1) + 1)))

CSV=$OUT/trace-cost.csv
echo "rep,program,calls_per_rank,untraced_s,traced_s,trace_lines,otf2_s,otf2_events" >"$CSV"
for rep in $(seq 1 "$REPS"); do
    for p in pingpong exchange; do
        tr=$TMP/tr-$p
        rm -rf "$tr" "$TMP/otf2"
        mkdir "$tr"
        # shellcheck disable=SC2086
        if [ $((rep % 2)) -eq 1 ]; then
            off=$(wall "$VACED/bin/mpiexec" -n 2 "$TMP/$p" ${ARGS[$p]})
            on=$(wall env VACED_TRACE="$tr" "$VACED/bin/mpiexec" -n 2 "$TMP/$p" ${ARGS[$p]})
        else
            on=$(wall env VACED_TRACE="$tr" "$VACED/bin/mpiexec" -n 2 "$TMP/$p" ${ARGS[$p]})
            off=$(wall "$VACED/bin/mpiexec" -n 2 "$TMP/$p" ${ARGS[$p]})
        fi
        lines=$(cat "$tr"/vaced-trace.*.csv | wc -l)
        t0=$(date +%s.%N)
        conv=$(python3 "$ROOT/vaced/tools/vaced" otf2 "$tr" "$TMP/otf2")
        t1=$(date +%s.%N)
        events=$(echo "$conv" | sed -E 's/.* ([0-9]+) events.*/\1/')
        echo "$rep,$p,${CALLS[$p]},$off,$on,$lines,$(elapsed "$t0" "$t1"),$events" >>"$CSV"
        echo "rep $rep $p: untraced $off s, traced $on s, otf2 $(elapsed "$t0" "$t1") s" >&2
    done
done

python3 - "$CSV" "$OUT/trace-cost.md" "$REPS" "$ITERS" "$TARGET" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
reps, iters, target = sys.argv[3:6]
out = [f"# Trace and OTF2 cost per MPI call\n",
       f"`bench/trace.sh --reps {reps} --iters {iters} --target {target}`: 2 ranks, host wall time of "
       f"`mpiexec`, untraced and traced runs interleaved; `vaced otf2` on the traced run's directory.\n",
       "| program | MPI calls per rank | untraced (median) | traced (median) | ratio | ratios, rep by rep | "
       "trace cost per MPI call | trace lines | vaced otf2 per MPI call | vaced otf2 per event |",
       "|---|---|---|---|---|---|---|---|---|---|"]
for p in ("pingpong", "exchange"):
    rs = [r for r in rows if r["program"] == p]
    off = statistics.median(float(r["untraced_s"]) for r in rs)
    on = statistics.median(float(r["traced_s"]) for r in rs)
    calls = int(rs[0]["calls_per_rank"])
    conv = statistics.median(float(r["otf2_s"]) for r in rs)
    events = int(rs[0]["otf2_events"])
    ratios = " ".join(f"{float(r['traced_s']) / float(r['untraced_s']):.3f}" for r in rs)
    out.append(f"| {p} | {calls} | {off:.3f} s | {on:.3f} s | {on / off:.3f} | {ratios} | "
               f"{(on - off) / calls * 1e6:.2f} us | {rs[0]['trace_lines']} | "
               f"{conv / (2 * calls) * 1e6:.1f} us | {conv / events * 1e6:.1f} us |")
out.append("\nThe cost per MPI call is (traced - untraced) / calls per rank (the ranks run at once); "
           "vaced otf2's is its wall time over both ranks' calls, and over the events it wrote.")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
