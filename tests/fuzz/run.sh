#!/usr/bin/env bash
# Fuzz the target-description loader (and mapping files) with libFuzzer
# under AddressSanitizer and UndefinedBehaviorSanitizer, for a bounded time;
# or, with `record`, the record reader and the replay behind it.
#
#   tests/fuzz/run.sh [seconds] [target|record] [libFuzzer options...]
#                                    default 60 s, target
#
# 0 seconds: no time limit, for a fixed number of executions (-runs=N, as
# tests/fuzz/ci.sh does).  $FUZZ_OUT: another folder than build/fuzz.
#
# target: seeds: topo/*.topo, tests/unit/topo-cases/*, tests/fuzz/seeds/* (small
# networks whose 64 ranks span them, inline mapping files), and the torus
# sample of topo-cases with its mapping file inline. New inputs accumulate in build/fuzz/corpus (kept
# between runs); a crashing input is saved as build/fuzz/artifacts/crash-*
# and the script exits non-zero. Reproduce one with
#   build/fuzz/fuzz_target build/fuzz/artifacts/crash-...
#
# record: tests/fuzz/fuzz_record.c replays each input as the one file of a
# one-rank record (as is, and with its trailer's count and hash made valid)
# on topo/paper-16.topo. Seeds: one-rank records of tests/mpi programs made
# with install/vaced when it is there (collectives.c on paper-16 and on
# localhost, whose canary's coldness is recorded; nbcoll.c; faults.c rma),
# and minimal records the harness writes (SIM_END and its segment; with the
# coldness; oversubscribed). Dictionary tests/fuzz/record.dict.
# Corpus build/fuzz/record-corpus, crashes build/fuzz/record-artifacts/crash-*;
# reproduce one with
#   build/fuzz/fuzz_record build/fuzz/record-artifacts/crash-...
# (VACED_FUZZ_SEAL_TO=FILE writes its sealed form, which `vaced replay`
# reads; tests/fuzz/record-crashes/ holds the ones found so far.)
# Options after the mode go to libFuzzer, e.g. -fork=2 -ignore_crashes=1 to
# go on past crashes; the VACED_FUZZ_* variables fuzz_record.c reads pass
# through (VACED_FUZZ_MAX_RANKS=64 skips the known huge-rank-count inputs).
# Needs clang with its runtime: apt-get install -y clang libclang-rt-14-dev
set -euo pipefail

secs=${1:-60}
mode=${2:-target}
usage="usage: $0 [seconds] [target|record] [libFuzzer options...]"
case $secs in '' | *[!0-9]*) echo "$usage" >&2; exit 2 ;; esac
case $mode in target | record) ;; *) echo "$usage" >&2; exit 2 ;; esac
shift $(($# < 2 ? $# : 2))
ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
OUT=${FUZZ_OUT:-$ROOT/build/fuzz}
CC=${FUZZ_CC:-clang}

if ! command -v "$CC" >/dev/null; then
    echo "$0: $CC not found (apt-get install -y clang libclang-rt-14-dev)" >&2
    exit 2
fi
SRC=$ROOT/vaced/src

# One-rank records of tests/mpi programs, made with install/vaced.
recorded_seeds() { # SEEDS
    local bin=$ROOT/install/vaced/bin work=$OUT/record-work n=0 spec prog target args
    if [ ! -x "$bin/mpicc" ] || [ ! -x "$bin/mpiexec" ]; then
        echo "note: no install/vaced (./build.sh): seeds are the hand-made records only"
        return
    fi
    rm -rf "$work"
    mkdir -p "$work"
    for spec in "collectives paper-16 64 2" "collectives localhost 64 2" "nbcoll paper-16 4096" \
                "faults paper-16 rma"; do
        read -r prog target args <<<"$spec"
        [ -x "$work/$prog" ] || "$bin/mpicc" -O2 -o "$work/$prog" "$ROOT/tests/mpi/$prog.c" ||
            { echo "note: $prog.c does not build with $bin/mpicc"; continue; }
        # shellcheck disable=SC2086 # args: the program's words
        if (cd "$work" && VACED_TARGET=$target VACED_RECORD=rec-$n VACED_QUIET=all \
                timeout 120 "$bin/mpiexec" -n 1 "./$prog" $args >/dev/null 2>&1) &&
                [ -s "$work/rec-$n/rank-000000.vlog" ]; then
            cp "$work/rec-$n/rank-000000.vlog" "$1/$prog-$target.vlog"
        else
            echo "note: recording $prog on $target failed: no seed from it"
        fi
        n=$((n + 1))
    done
}

fuzz_record() {
    mkdir -p "$OUT/record-corpus" "$OUT/record-artifacts"
    rm -rf "$OUT/record-seeds"
    mkdir -p "$OUT/record-seeds"
    # All of vaced/src: the reader, the replay and the model it drives.
    "$CC" -std=gnu11 -g -O1 -Wall -Wextra -Werror \
        -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
        -I"$ROOT/vaced/include" -I"$SRC" -DVACED_TOPO_DIR="\"$ROOT/topo\"" \
        -DFUZZ_TOPO_DIR="\"$ROOT/topo\"" "$ROOT/tests/fuzz/fuzz_record.c" \
        "$SRC"/*/*.c -lm -o "$OUT/fuzz_record"

    local seeds=$OUT/record-seeds
    recorded_seeds "$seeds"
    # hand-made ones, numbered as vaced/src/record/log_format.h is now
    VACED_FUZZ_WRITE_SEEDS=$seeds "$OUT/fuzz_record"

    # -close_fd_mask=3: the replay's own notes would drown libFuzzer's lines
    # (a crash's report still shows; run the reproducer to see the rest).
    # With -ignore_crashes (fork mode) libFuzzer exits 0 after crashes: count
    # the artifacts this run wrote.
    local start=$OUT/record-artifacts/.start found
    touch "$start"
    echo "fuzzing the record reader for $secs s (corpus $OUT/record-corpus)"
    "$OUT/fuzz_record" -max_total_time="$secs" -timeout=10 -max_len=4096 -close_fd_mask=3 \
        -dict="$ROOT/tests/fuzz/record.dict" -artifact_prefix="$OUT/record-artifacts/" \
        -print_final_stats=1 "$@" "$OUT/record-corpus" "$seeds" </dev/null
    found=$(find "$OUT/record-artifacts" -newer "$start" -type f \
        \( -name 'crash-*' -o -name 'timeout-*' -o -name 'oom-*' -o -name 'leak-*' \) | wc -l)
    if [ "$found" -gt 0 ]; then
        echo "fuzz record: $found failing inputs in $OUT/record-artifacts" >&2
        exit 1
    fi
    echo "fuzz record: no crash in $secs s"
}

if [ "$mode" = record ]; then
    fuzz_record "$@"
    exit
fi

mkdir -p "$OUT/corpus" "$OUT/artifacts"
rm -rf "$OUT/seeds"
mkdir -p "$OUT/seeds"

# The loader's own sources only: no MPICH, no CPU-time code.
"$CC" -std=gnu11 -g -O1 -Wall -Wextra -Werror \
    -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all \
    -I"$SRC" "$ROOT/tests/fuzz/fuzz_target.c" \
    "$SRC"/machine/*.c "$SRC"/network/netmodel.c \
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
    -print_final_stats=1 "$@" "$OUT/corpus" "$OUT/seeds" </dev/null
echo "fuzz: no crash in $secs s"
