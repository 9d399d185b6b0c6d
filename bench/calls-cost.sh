#!/bin/bash
# What do the per-call and per-call-site tables cost? Run bench/calls-cost.sh --help.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VACED=$ROOT/install/vaced
OUT=$ROOT/results
REPS=7
ITERS=20000
TARGET=paper-16

usage() {
    cat <<EOF
usage: bench/calls-cost.sh [--reps N] [--iters N] [--target T] [--out DIR]

The host cost of the per-call and per-call-site tables (docs/breakdown.md,
on by default; VACED_CALLS=0 turns them off).  First the hooks alone
(bench/calls-hook.c, linked with build/vaced/libvaced.a): nanoseconds a
binding's hooks take with the tables off and on, and what a stack walk
(backtrace) would add.  Then four programs built with install/vaced's
compilers:

  pingpong   tests/mpi/pingpong.c 0 ITERS on 2 ranks: MPI_Send and MPI_Recv,
             whose callers are their return addresses
  waitany    tests/mpi/window.c waitany 8 16 ITERS/16 on 2 ranks: MPI_Waitany,
             a binding MPICH does not inline, whose caller takes a stack walk
  cg         tests/apps cg S on 16 ranks (a C mini-app)
  lu         tests/apps lu W on 16 ranks (a Fortran mini-app: its calls go
             through MPICH's Fortran bindings)

--reps N (default $REPS) repetitions; in each, every program runs with the
tables off and on, one after the other (the order alternating from one
repetition to the next), as install/vaced/bin/mpiexec under
VACED_TARGET=$TARGET (--target), VACED_QUIET=all.  --iters N (default
$ITERS).

Per program: the median host wall times off and on, their ratio and every
repetition's ratio side by side, the MPI calls per rank (from the JSON's
table) and, for the 2-rank programs (a core each), the cost per MPI call:
(on - off) / calls per rank.  Writes DIR/calls-cost.md and
DIR/calls-cost.csv (--out, default results/).
EOF
}

# shellcheck source=bench/lib/ab-cost.sh
source "$ROOT/bench/lib/ab-cost.sh"
ab_start calls-cost "$@"

for p in pingpong window; do
    "$VACED/bin/mpicc" -O2 -g -o "$TMP/$p" "$ROOT/tests/mpi/$p.c"
done
make -s -C "$ROOT/tests/apps" PREFIX="$VACED" OUT="$TMP" "$TMP/cg" "$TMP/lu" >/dev/null
declare -A CMD=([pingpong]="-n 2 $TMP/pingpong 0 $ITERS" [waitany]="-n 2 $TMP/window waitany 8 16 $((ITERS / 16))"
                [cg]="-n 16 $TMP/cg S" [lu]="-n 16 $TMP/lu W")
PROGRAMS="pingpong waitany cg lu"
[ -f "$ROOT/build/vaced/libvaced.a" ] || { echo "bench/calls-cost.sh: build/vaced/libvaced.a is missing: run ./build.sh" >&2; exit 1; }
cc -O2 -std=gnu11 -I"$ROOT/vaced/include" -I"$ROOT/vaced/src" "$ROOT/bench/calls-hook.c" \
    "$ROOT/build/vaced/libvaced.a" -lm -o "$TMP/calls-hook"
HOOKS=$("$TMP/calls-hook")
echo "$HOOKS" >&2

CSV=$OUT/calls-cost.csv
echo "rep,program,calls_per_rank,off_s,on_s" >"$CSV"
for rep in $(seq 1 "$REPS"); do
    for p in $PROGRAMS; do
        # shellcheck disable=SC2086
        if [ $((rep % 2)) -eq 1 ]; then
            off=$(wall env VACED_CALLS=0 "$VACED/bin/mpiexec" ${CMD[$p]})
            on=$(wall env VACED_JSON="$TMP/$p.json" "$VACED/bin/mpiexec" ${CMD[$p]})
        else
            on=$(wall env VACED_JSON="$TMP/$p.json" "$VACED/bin/mpiexec" ${CMD[$p]})
            off=$(wall env VACED_CALLS=0 "$VACED/bin/mpiexec" ${CMD[$p]})
        fi
        calls=$(python3 -c 'import json, sys; d = json.load(open(sys.argv[1]))
print(sum(c["calls"] for c in d["calls"]) // d["ranks"])' "$TMP/$p.json")
        echo "$rep,$p,$calls,$off,$on" >>"$CSV"
        echo "rep $rep $p: off $off s, on $on s" >&2
    done
done

python3 - "$CSV" "$OUT/calls-cost.md" "$REPS" "$ITERS" "$TARGET" "$HOOKS" <<'EOF'
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
reps, iters, target, hooks = sys.argv[3:7]
out = ["# Cost of the per-call and per-call-site tables\n",
       f"`bench/calls-cost.sh --reps {reps} --iters {iters} --target {target}`.\n",
       f"The hooks alone (`bench/calls-hook.c`): {hooks}.\n",
       "Host wall time of `mpiexec`, runs with `VACED_CALLS=0` and with the tables (the default) "
       "interleaved:\n",
       "| program | MPI calls per rank | off (median) | on (median) | ratio | ratios, rep by rep | cost per MPI call |",
       "|---|---|---|---|---|---|---|"]
for p in ("pingpong", "waitany", "cg", "lu"):
    rs = [r for r in rows if r["program"] == p]
    off = statistics.median(float(r["off_s"]) for r in rs)
    on = statistics.median(float(r["on_s"]) for r in rs)
    calls = int(rs[0]["calls_per_rank"])
    ratios = " ".join(f"{float(r['on_s']) / float(r['off_s']):.3f}" for r in rs)
    per_call = f"{(on - off) / calls * 1e6:.2f} us" if p in ("pingpong", "waitany") else \
        "(16 ranks on the host's cores)"
    out.append(f"| {p} | {calls} | {off:.3f} s | {on:.3f} s | {on / off:.3f} | {ratios} | {per_call} |")
out.append("\nThe cost per MPI call is (on - off) / calls per rank (the two ranks run at once, a core each).")
open(sys.argv[2], "w").write("\n".join(out) + "\n")
print("\n".join(out))
EOF
