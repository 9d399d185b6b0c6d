#!/bin/bash
# Replay speed on one core: million events a second of `vaced-replay
# DIR --target T --quiet --stats`, pinned to one CPU, for each record
# and each tool, interleaved.  Run bench/replay-rate.sh --help.
set -euo pipefail

usage() {
    cat <<'USAGE'
usage: bench/replay-rate.sh --target T [--tools A,B,...] [--reps N] [--cpu C] RECORD...

Replays each RECORD (a VACED_RECORD directory) on target T with each
tool (a vaced-replay binary; default build/tools/vaced-replay, as
`vaced replay` builds it) --reps times (default 5), pinned with
taskset -c C (default 0), the records and tools interleaved within each
repetition so that a change in the host's load falls on all of them.
Prints, for each record and tool, the events, the median seconds
(--stats: the load and the replay, without a front end's start-up) and
the median, lowest and highest million events a second; then the same
over the process's CPU time (--stats), which other processes on the
core inflate less than the wall time; last, the median CPU time of the
record's load (ms) and the median rate once loaded.  Also checks
that every tool prints the same prediction for a record.
USAGE
}

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
TOOLS=$ROOT/build/tools/vaced-replay TARGET= REPS=5 CPU=0 RECS=()
while [ $# -gt 0 ]; do
    case $1 in
        --tools) TOOLS=$2; shift 2 ;;
        --target) TARGET=$2; shift 2 ;;
        --reps) REPS=$2; shift 2 ;;
        --cpu) CPU=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        -*) echo "replay-rate.sh: unknown option $1" >&2; usage >&2; exit 2 ;;
        *) RECS+=("$1"); shift ;;
    esac
done
[ -n "$TARGET" ] && [ ${#RECS[@]} -gt 0 ] || { usage >&2; exit 2; }
IFS=, read -r -a TOOL <<< "$TOOLS"
export VACED_TOPO_DIR=${VACED_TOPO_DIR:-$ROOT/topo}
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT

for ((rep = 0; rep < REPS; rep++)); do
    for rec in "${RECS[@]}"; do
        for ((t = 0; t < ${#TOOL[@]}; t++)); do
            # alternate the tools' order from one repetition to the next
            k=$(( rep % 2 ? ${#TOOL[@]} - 1 - t : t ))
            log=$OUT/$(basename "$rec").$k
            taskset -c "$CPU" "${TOOL[$k]}" "$rec" --target "$TARGET" --quiet --stats \
                > "$log.out.$rep" 2> "$log.err.$rep" || { cat "$log.err.$rep" >&2; exit 1; }
            sed -nE 's/^vaced replay: ([0-9]+) events in ([0-9.]+) s: ([0-9.]+) million.*/\1 \2 \3/p' \
                "$log.err.$rep" >> "$log.rates"
            sed -nE 's/^vaced replay: ([0-9.]+) s of CPU: ([0-9.]+) million.*/\1 \2/p' \
                "$log.err.$rep" >> "$log.cpu"
            sed -nE 's/^vaced replay: of which loading the record ([0-9.]+) ms, .*: ([0-9.]+) million.*/\1 \2/p' \
                "$log.err.$rep" >> "$log.load"
            sed -nE 's/^vaced: prediction ([0-9.eE+-]+) s.*/\1/p' "$log.out.$rep" >> "$OUT/$(basename "$rec").preds"
        done
    done
done

# the median of numbers on stdin, a line each; "-" for none (an older tool
# prints no load line)
median_of() { sort -n | awk '{ v[NR] = $1 } END { print NR ? v[int((NR + 1) / 2)] : "-" }'; }

printf '%-10s %-4s %10s %9s %8s %8s %8s %9s %8s %8s %8s %8s %9s\n' record tool events "s (med)" "Mev/s" low high \
    "CPU s" "Mev/CPUs" low high "load ms" "Mev/CPUs"
for rec in "${RECS[@]}"; do
    name=$(basename "$rec")
    for ((t = 0; t < ${#TOOL[@]}; t++)); do
        med_s=$(awk '{ print $2 }' "$OUT/$name.$t.rates" | median_of)
        med_c=$(awk '{ print $1 }' "$OUT/$name.$t.cpu" | median_of)
        cpu=$(sort -n -k2 "$OUT/$name.$t.cpu" | awk '{ r[NR] = $2 } END { print r[int((NR + 1) / 2)], r[1], r[NR] }')
        load=$(awk '{ print $1 }' "$OUT/$name.$t.load" 2>/dev/null | median_of)
        loaded=$(awk '{ print $2 }' "$OUT/$name.$t.load" 2>/dev/null | median_of)
        sort -n -k3 "$OUT/$name.$t.rates" | awk -v n="$name" -v t="$t" -v ms="$med_s" -v mc="$med_c" -v cpu="$cpu" \
            -v load="$load" -v loaded="$loaded" '
            { ev = $1; r[NR] = $3 }
            END {
                split(cpu, c, " ")
                printf "%-10s %-4s %10d %9.3f %8.1f %8.1f %8.1f %9.3f %8.1f %8.1f %8.1f %8s %9s\n", n, t, ev, ms,
                       r[int((NR + 1) / 2)], r[1], r[NR], mc, c[1], c[2], c[3], load, loaded
            }'
    done
    [ "$(sort -u "$OUT/$name.preds" | wc -l)" = 1 ] ||
        { echo "replay-rate.sh: $name: the tools or repetitions predict differently:" >&2; sort -u "$OUT/$name.preds" >&2; exit 1; }
done
