#!/bin/bash
# Weak scaling against the wake-up correction (issue 39's check,
# results/segment-noise.md): bench/weakscale.c (every rank walks the same
# cache lines of its own working set each segment, whatever P) recorded at
# P ranks on this host's CPUs, on paper-1024; each record corrected with
# vaced-combine --wake-up and replayed.  Prints the mean per-rank compute,
# raw and corrected, and their ratio to the first P's (a rank a core:
# nothing cold there).
#   bench/wakeup-weakscale.sh [--ranks "2 64 256"] [--sets "32768 262144"]
#                             [--lines "3000 50000"] [--iterations N] [--tries K]
# Each point is the median of K tries (default 3).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
RANKS="2 64" SETS="32768 262144" LINES="3000 50000" ITERS=300 TRIES=3
while [ $# -gt 0 ]; do
    case $1 in
        --ranks) RANKS=$2; shift 2 ;;
        --sets) SETS=$2; shift 2 ;;
        --lines) LINES=$2; shift 2 ;;
        --iterations) ITERS=$2; shift 2 ;;
        --tries) TRIES=$2; shift 2 ;;
        *) echo "wakeup-weakscale: unknown argument $1" >&2; exit 2 ;;
    esac
done
WORK=$(mktemp -d /tmp/wakeup-weakscale.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
"$ROOT/install/vaced/bin/mpicc" -O2 -o "$WORK/weakscale" "$ROOT/bench/weakscale.c"
COMBINE=$(python3 -c "import sys; sys.path.insert(0, '$ROOT/vaced/tools'); import vaced_cli; print(vaced_cli.c_tool('vaced-combine'))")
REPLAY=$(python3 -c "import sys; sys.path.insert(0, '$ROOT/vaced/tools'); import vaced_cli; print(vaced_cli.c_tool('vaced-replay'))")
echo "# weakscale on paper-1024, $(nproc) host CPUs, $ITERS segments a rank, median of $TRIES; load $(cut -d' ' -f1-3 /proc/loadavg)"
echo
echo "| working set | lines a segment | P | us a segment (raw) | compute raw (ms) | corrected (ms) | raw / first P | corrected / first P | cold % | taken off % | uncorrected % |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for W in $SETS; do
  for L in $LINES; do
    ref=
    for P in $RANKS; do
      for t in $(seq "$TRIES"); do
        d=$WORK/$P.$t
        rm -rf "$d" "$d.w"
        VACED_TARGET=paper-1024 VACED_QUIET=1 VACED_RECORD=$d VACED_RECORD_SITES=1 VACED_JSON=$d.live.json \
            "$ROOT/install/vaced/bin/mpiexec" -n "$P" "$WORK/weakscale" -w "$W" -l "$L" -n "$ITERS" >/dev/null
        "$COMBINE" --wake-up "$d.w" "$d" > "$d.combine"
        "$REPLAY" "$d.w" --target paper-1024 --quiet --json "$d.w.json" >/dev/null
      done
      line=$(python3 - "$WORK" "$P" "$TRIES" "$ITERS" "${ref:-}" <<'PY'
import json, re, statistics, sys
work, p, tries, iters, ref = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5]
mean = lambda d: sum(r["compute_s"] for r in d["per_rank"]) / len(d["per_rank"])
raw = statistics.median(mean(json.load(open(f"{work}/{p}.{t}.live.json"))) for t in range(1, tries + 1))
cor = statistics.median(mean(json.load(open(f"{work}/{p}.{t}.w.json"))) for t in range(1, tries + 1))
m = re.search(r"cold segments ([0-9.]+) %.*, ([0-9.]+) % taken off, ([0-9.]+) %", open(f"{work}/{p}.1.combine").read())
r0, c0 = (float(x) for x in ref.split(",")) if ref else (raw, cor)
print(f"{raw},{cor}|{p} | {raw / iters * 1e6:.1f} | {raw * 1e3:.3f} | {cor * 1e3:.3f} | {raw / r0:.3f} | {cor / c0:.3f} | "
      f"{m.group(1)} | {m.group(2)} | {m.group(3)} |")
PY
)
      [ -n "$ref" ] || ref=${line%%|*}
      echo "| $W | $L | ${line#*|}"
    done
  done
done
