#!/bin/bash
# Does a rank's measured computation depend on how many ranks share its
# host core?  Run bench/weakscale.sh --help.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VANILLA=$ROOT/install/vanilla
VACED=$ROOT/install/vaced
OUT=$ROOT/results
RANKS="2 8 16 32 64 256"
SETS="32K 256K 2M 16M"
SEGMENTS="5 50 1000"
COMPUTE_MS=20
MODE=ring

usage() {
    cat <<EOF
usage: bench/weakscale.sh [--ranks "2 8 ..."] [--sets "32K ..."] [--segments "5 ..."]
                          [--compute-ms MS] [--allreduce] [--out DIR]

Weak-scaling programs (bench/weakscale.c: every rank walks the same number
of cache lines of its own working set per compute segment, whatever the
rank count) run under VACED with P ranks on this machine's cores, for each
working set (--sets, bytes a rank; default $SETS) and compute segment
length (--segments, microseconds on one rank a core; default $SEGMENTS).
A segment's work is sized once per program: a one-rank vanilla run times
the walk, and the line count is scaled to the wanted length.  Each rank
computes about --compute-ms ($COMPUTE_MS) ms in total.

For each program and P (--ranks, default "$RANKS"): the mean per-rank
compute time VACED reports (JSON per_rank[].compute_s), per segment, and
its ratio to P = the first of --ranks (one rank a core: 2 on 2 cores).
Between segments: MPI_Sendrecv with both ring neighbours, or with
--allreduce an MPI_Allreduce.  Target: paper-1024.

Writes DIR/weakscale.csv, weakscale.md and weakscale.png (gnuplot);
DIR defaults to results/.  Logs and JSON go to build/weakscale/.
EOF
}

while [ $# -gt 0 ]; do
    case $1 in
        --ranks) RANKS=$2; shift 2 ;;
        --sets) SETS=$2; shift 2 ;;
        --segments) SEGMENTS=$2; shift 2 ;;
        --compute-ms) COMPUTE_MS=$2; shift 2 ;;
        --allreduce) MODE=allreduce; shift ;;
        --out) OUT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "weakscale.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

die() { echo "weakscale.sh: $*" >&2; exit 1; }
say() { echo "[weakscale] $*" >&2; }
[ -x "$VACED/bin/mpiexec" ] && [ -x "$VANILLA/bin/mpicc" ] || die "run ./build.sh first"
WORK=$ROOT/build/weakscale
mkdir -p "$WORK" "$OUT"
BIN=$WORK/weakscale
"$VANILLA/bin/mpicc" -O2 -Wall -Wextra -o "$BIN" "$ROOT/bench/weakscale.c" || die "cannot build bench/weakscale.c"

bytes() {
    local v=$1
    case $v in
        *K) echo $(( ${v%K} * 1024 )) ;;
        *M) echo $(( ${v%M} * 1048576 )) ;;
        *) echo "$v" ;;
    esac
}

# mean segment time in us of a one-rank vanilla run walking $2 lines of $1 bytes
segment_us() {
    LD_LIBRARY_PATH=$VANILLA/lib "$VANILLA/bin/mpiexec" -n 1 "$BIN" -w "$1" -l "$2" -n 200 |
        sed -nE 's/.*mean segment time ([0-9.]+) us.*/\1/p'
}

flag=
[ "$MODE" = allreduce ] && flag=-a
csv=$OUT/weakscale.csv
echo "set,segment_us,lines,mode,ranks,iterations,compute_per_segment_us,ratio,cold_share,host_wall_s" > "$csv"
for set in $SETS; do
    b=$(bytes "$set")
    for seg in $SEGMENTS; do
        probe=20000
        t=$(segment_us "$b" "$probe") || die "the one-rank sizing run failed"
        [ -n "$t" ] || die "the one-rank sizing run printed no segment time"
        lines=$(awk -v p=$probe -v t="$t" -v s="$seg" 'BEGIN { l = int(p * s / t + 0.5); print l < 1 ? 1 : l }')
        iters=$(awk -v s="$seg" -v c="$COMPUTE_MS" 'BEGIN { n = int(c * 1000 / s); print n < 30 ? 30 : n }')
        base=
        for p in $RANKS; do
            json=$WORK/$set-$seg-$p.json
            log=$WORK/$set-$seg-$p.log
            start=$(date +%s.%N)
            env VACED_TARGET=paper-1024 VACED_QUIET=all VACED_JSON="$json" LD_LIBRARY_PATH="$VACED/lib" \
                "$VACED/bin/mpiexec" -n "$p" "$BIN" -w "$b" -l "$lines" -n "$iters" $flag > "$log" 2>&1 ||
                die "P=$p $set ${seg}us failed: see $log"
            wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN { printf "%.1f", e - s }')
            read -r per cold < <(python3 - "$json" "$iters" <<'EOF'
import json, sys
j = json.load(open(sys.argv[1]))
ranks = j["per_rank"]
compute = sum(r["compute_s"] for r in ranks) / len(ranks)
cold = sum(r.get("compute_cold_s", 0) for r in ranks) / len(ranks)
print(f"{compute / int(sys.argv[2]) * 1e6:.4f} {cold / compute if compute else 0:.4f}")
EOF
            )
            [ -n "$base" ] || base=$per
            ratio=$(awk -v a="$per" -v b="$base" 'BEGIN { printf "%.3f", a / b }')
            echo "$set,$seg,$lines,$MODE,$p,$iters,$per,$ratio,$cold,$wall" >> "$csv"
            say "$set ${seg}us P=$p: $per us a segment (x$ratio), cold share $cold, host ${wall}s"
        done
    done
done
python3 "$ROOT/bench/lib/weakscale_report.py" "$csv" "$OUT" "$(nproc)"
say "wrote $csv, $OUT/weakscale.md, $OUT/weakscale.png"
