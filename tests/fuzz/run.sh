#!/usr/bin/env bash
# Fuzz the target-description loader (and mapping files) with libFuzzer
# under AddressSanitizer and UndefinedBehaviorSanitizer, for a bounded time.
#
#   tests/fuzz/run.sh [seconds]      default 60
#
# Seeds: topo/*.topo, tests/unit/topo-cases/*, tests/fuzz/seeds/* (small
# networks whose 64 ranks span them, inline mapping files), and the torus
# sample of topo-cases with its mapping file inline. New inputs accumulate in build/fuzz/corpus (kept
# between runs); a crashing input is saved as build/fuzz/artifacts/crash-*
# and the script exits non-zero. Reproduce one with
#   build/fuzz/fuzz_target build/fuzz/artifacts/crash-...
# Needs clang with its runtime: apt-get install -y clang libclang-rt-14-dev
set -euo pipefail

secs=${1:-60}
case $secs in '' | *[!0-9]*) echo "usage: $0 [seconds]" >&2; exit 2 ;; esac
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=$ROOT/build/fuzz
CC=${FUZZ_CC:-clang}

if ! command -v "$CC" >/dev/null; then
    echo "$0: $CC not found (apt-get install -y clang libclang-rt-14-dev)" >&2
    exit 2
fi
mkdir -p "$OUT/corpus" "$OUT/artifacts"
rm -rf "$OUT/seeds"
mkdir -p "$OUT/seeds"

# The loader's own sources only: no MPICH, no CPU-time code.
SRC=$ROOT/vaced/src
"$CC" -std=gnu11 -g -O1 -Wall -Wextra -Werror \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -I"$SRC" "$ROOT/tests/fuzz/fuzz_target.c" \
    "$SRC"/target/*.c "$SRC"/network/netmodel.c "$SRC"/network/sizefactors.c \
    -lm -o "$OUT/fuzz_target"

cp "$ROOT"/topo/*.topo "$ROOT"/tests/unit/topo-cases/* "$ROOT"/tests/fuzz/seeds/* "$OUT/seeds/"
{   # a description whose mapping file rides along after a "%%map" line
    sed 's/good-torus\.map/fuzz.map/' "$ROOT/tests/unit/topo-cases/good-torus-mapfile.topo"
    echo '%%map'
    cat "$ROOT/tests/unit/topo-cases/good-torus.map"
} >"$OUT/seeds/inline-map.topo"

# stdin from /dev/null: nothing the loader opens may wait for input.
# -timeout: one input taking 10 s counts as a crash (a hang).
echo "fuzzing for $secs s (corpus $OUT/corpus)"
"$OUT/fuzz_target" -max_total_time="$secs" -timeout=10 -max_len=4096 \
    -dict="$ROOT/tests/fuzz/topo.dict" -artifact_prefix="$OUT/artifacts/" \
    -print_final_stats=1 "$OUT/corpus" "$OUT/seeds" </dev/null
echo "fuzz: no crash in $secs s"
