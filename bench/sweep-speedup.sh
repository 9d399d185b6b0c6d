#!/bin/bash
# How much faster does vaced sweep run its replays side by side than one
# at a time?  Run bench/sweep-speedup.sh --help.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: bench/sweep-speedup.sh --target T [--vary KEY=V1,V2,...]... [--reps N] [--jobs "1 2"] RECORD

Runs `vaced sweep RECORD --target T --vary ... --jobs J --stats` for each
J of --jobs (default: 1 and the CPUs this shell may use), --reps times
(default 3), the J interleaved within each repetition.  Prints for each
run the sweep's wall time, the sum of its replays' own wall times and
their ratio (replays running side by side), then per J the median wall
time and the speed-up of the median against J=1's.  Default --vary:
bnet=0.5x,1x,2x and latency=0.5x,1x,2x (10 replays with the base).
USAGE
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TARGET= REPS=3 JOBS="1 $(nproc)" VARY=() REC=
while [ $# -gt 0 ]; do
    case $1 in
        --target) TARGET=$2; shift 2 ;;
        --vary) VARY+=(--vary "$2"); shift 2 ;;
        --reps) REPS=$2; shift 2 ;;
        --jobs) JOBS=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "sweep-speedup.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) REC=$1; shift ;;
    esac
done
[ -n "$TARGET" ] && [ -n "$REC" ] || { usage >&2; exit 2; }
[ ${#VARY[@]} -gt 0 ] || VARY=(--vary bnet=0.5x,1x,2x --vary latency=0.5x,1x,2x)
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
# the replay tool is built on first use: outside the timings
python3 "$ROOT/vaced/tools/vaced" replay --help > /dev/null

read -r -a JS <<< "$JOBS"
printf '%-4s %-4s %10s %14s %8s\n' rep jobs "wall (s)" "replays (s)" ratio
for ((rep = 0; rep < REPS; rep++)); do
    for ((k = 0; k < ${#JS[@]}; k++)); do
        j=${JS[$(( rep % 2 ? ${#JS[@]} - 1 - k : k ))]}
        python3 "$ROOT/vaced/tools/vaced" sweep "$REC" --target "$TARGET" "${VARY[@]}" --jobs "$j" \
            --stats > "$OUT/out" 2> "$OUT/err" || { cat "$OUT/err" >&2; exit 1; }
        line=$(sed -nE 's/^sweep: .* ([0-9.]+) s wall, the replays. own ([0-9.]+) s summed \(([0-9.]+)x\)$/\1 \2 \3/p' "$OUT/err")
        [ -n "$line" ] || { echo "sweep-speedup.sh: no --stats line:" >&2; cat "$OUT/err" >&2; exit 1; }
        read -r wall sum ratio <<< "$line"
        printf '%-4s %-4s %10s %14s %8s\n' "$rep" "$j" "$wall" "$sum" "$ratio"
        echo "$wall" >> "$OUT/wall.$j"
        sed -n 's/^\(base\|vary\|target\) .*/&/p' "$OUT/out" > "$OUT/rows.$j.$rep"
    done
done
median() { sort -n "$1" | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }
one=$(median "$OUT/wall.${JS[0]}")
for j in "${JS[@]}"; do
    m=$(median "$OUT/wall.$j")
    awk -v j="$j" -v m="$m" -v one="$one" -v j0="${JS[0]}" \
        'BEGIN { printf "jobs %s: median wall %.3f s, %.2fx the median of jobs %s\n", j, m, one / m, j0 }'
done
# every run must print the same table
[ "$(cat "$OUT"/rows.* | sort | uniq -c | awk '{ print $1 }' | sort -u | wc -l)" = 1 ] ||
    { echo "sweep-speedup.sh: the runs' tables differ" >&2; exit 1; }
