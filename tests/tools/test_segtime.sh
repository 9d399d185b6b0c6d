#!/usr/bin/env bash
# bench/segtime.c, the PMPI library of bench/run.sh's part "segments" (does
# VACED change how fast a program computes?), measures what it says, the
# same way under install/vanilla and install/vaced:
#
# 1. tests/mpi/cpuloop.c (one CPU-bound loop between MPI_Init and
#    MPI_Finalize, timed by the program with its thread's CPU clock): one
#    segment per rank, whose compute time is the program's own figure
#    within 10 % (plus 5 ms of start-up and printing), in both builds.
# 2. bench/pingpong.c (N round trips after a warm-up): the number of MPI
#    calls and of segments per rank follows from the program (MPI_Init, 2
#    a trip, the warm-up's included; a segment ends at every call after
#    MPI_Init and at MPI_Finalize) and is the same in both builds; the time
#    inside MPI is positive.
# The benchmark's figure itself (the compute ratio) is not asserted here:
# timing targets belong to benchmarks, not tests, on a shared machine.
# Ends with "N passed, M failed"; exits non-zero if any failed. About 10 s.
#
#   tests/tools/test_segtime.sh [ROOT]
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
# shellcheck source=check.sh
source "$ROOT/tests/tools/check.sh"

VANILLA=$ROOT/install/vanilla
gcc -O2 -Wall -Wextra -Werror -shared -fPIC -I"$VANILLA/include" -o "$TMP/segtime.so" "$ROOT/bench/segtime.c"
"$VANILLA/bin/mpicc" -O2 -o "$TMP/cpuloop" "$ROOT/tests/mpi/cpuloop.c"
"$VANILLA/bin/mpicc" -O2 -o "$TMP/pingpong" "$ROOT/bench/pingpong.c"

# field NAME FILE: the value of NAME=... in FILE
field() { sed -n "s/.*\\b$1=\\([^ ]*\\).*/\\1/p" "$2" | head -1; }

# run BUILD TAG PROGRAM ARGS...: 2 ranks with the library, stats in $TMP/TAG
run() {
    local v=$1 tag=$2; shift 2
    mkdir -p "$TMP/$tag"
    env LD_LIBRARY_PATH="$ROOT/install/$v/lib" LD_PRELOAD="$TMP/segtime.so" SEGTIME_DIR="$TMP/$tag" \
        VACED_TARGET=localhost VACED_QUIET=all "$ROOT/install/$v/bin/mpiexec" -n 2 "$@" > "$TMP/$tag.out" 2>&1
}

for v in vanilla vaced; do
    if ! run "$v" "loop.$v" "$TMP/cpuloop" 200000000; then
        fail "$v: cpuloop runs with the library"; sed 's/^/    /' "$TMP/loop.$v.out"; continue
    fi
    for r in 0 1; do
        f=$TMP/loop.$v/rank.$r
        check "$v rank $r: writes its line" "[[ -s $f ]]" || continue
        own=$(sed -n "s/^cpuloop rank=$r cpu_s=\\([0-9.]*\\).*/\\1/p" "$TMP/loop.$v.out")
        seg=$(field compute_cpu_s "$f")
        check "$v rank $r: one segment (MPI_Init to MPI_Finalize), one call" \
            "[[ $(field segments "$f") == 1 && $(field mpi_calls "$f") == 1 ]]"
        check "$v rank $r: compute $seg s is the loop's own $own s (within 10 % + 5 ms)" \
            "awk -v s='$seg' -v o='$own' 'BEGIN { exit !(o > 0.05 && s >= o && s <= o * 1.1 + 0.005) }'"
    done
done

iters=200
# MPI_Init, then warm-up max(iters/10, 10) + iters round trips of 2 calls
calls=$(( 1 + (iters / 10 > 10 ? iters / 10 : 10) * 2 + iters * 2 ))
declare -A seen
for v in vanilla vaced; do
    if ! run "$v" "pp.$v" "$TMP/pingpong" 0 "$iters" 1; then
        fail "$v: pingpong runs with the library"; sed 's/^/    /' "$TMP/pp.$v.out"; continue
    fi
    f=$TMP/pp.$v/rank.0
    n=$(field mpi_calls "$f")
    seen[$v]=$n/$(field segments "$f")
    check "$v rank 0: $n MPI calls, $calls expected" "[[ '$n' == $calls ]]"
    check "$v rank 0: one segment a call (${seen[$v]})" "[[ ${seen[$v]} == $calls/$calls ]]"
    check "$v rank 0: CPU time inside MPI > 0" "awk -v m='$(field mpi_cpu_s "$f")' 'BEGIN { exit !(m > 0) }'"
done
check "both builds count the same calls and segments (${seen[vanilla]:-} / ${seen[vaced]:-})" \
    "[[ -n '${seen[vanilla]:-}' && '${seen[vanilla]:-}' == '${seen[vaced]:-}' ]]"
finish
