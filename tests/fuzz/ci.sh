#!/usr/bin/env bash
# The fuzzers' short run in the test suite (tests/run.sh): each libFuzzer
# harness of tests/fuzz/ built and run by tests/fuzz/run.sh for a fixed
# number of executions from its seeds, with a fixed seed, in a scratch
# folder (no corpus carried over: a run's work does not grow from run to
# run, and a failure reproduces); then the record harness on the past finds
# of the fuzzer (tests/fuzz/record-crashes/), which must trip no sanitizer.
#
# A failing input is kept in build/fuzz/ci-artifacts/ (reproduce with the
# harness, as tests/fuzz/run.sh says).  Longer runs: tests/fuzz/run.sh.
# Needs clang and libFuzzer's runtime (Debian: clang, libclang-rt-dev).
# Ends with "N passed, M failed"; exits non-zero if any failed.
#
#   tests/fuzz/ci.sh [ROOT]
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
# shellcheck source=../tools/check.sh
source "$ROOT/tests/tools/check.sh"

TARGET_RUNS=20000   # the description loader: fast inputs
RECORD_RUNS=3000    # the record reader and a whole replay each: slower
SEED=1
KEEP=$ROOT/build/fuzz/ci-artifacts

# clang, and the runtime that -fsanitize=fuzzer links (a package of its own
# that a Debian install without recommended packages lacks).
echo 'int LLVMFuzzerTestOneInput(const unsigned char *d, unsigned long n) { (void)d; (void)n; return 0; }' \
    >"$TMP/probe.c"
if ! command -v clang >/dev/null; then
    fail "clang is installed (apt-get install clang libclang-rt-dev)"
    finish
fi
if ! clang -fsanitize=fuzzer,address,undefined -o "$TMP/probe" "$TMP/probe.c" >"$TMP/probe.log" 2>&1; then
    fail "clang links -fsanitize=fuzzer,address,undefined (apt-get install libclang-rt-dev): $(tail -n 1 "$TMP/probe.log")"
    finish
fi
ok "clang links -fsanitize=fuzzer,address,undefined"

# fuzz MODE RUNS: the harness's run; the executions it did and its status
fuzz() {
    local mode=$1 runs=$2 log=$TMP/$1.log st=0 ran
    FUZZ_OUT=$TMP/out "$ROOT/tests/fuzz/run.sh" 0 "$mode" -runs="$runs" -seed="$SEED" >"$log" 2>&1 || st=$?
    ran=$(sed -n 's/^Done \([0-9]*\) runs in .*/\1/p' "$log" | tail -n 1)
    if [ "$st" -eq 0 ] && [ "${ran:-0}" -eq "$runs" ]; then
        ok "$mode harness: $runs executions from its seeds (seed $SEED), no sanitizer report, no hang"
    else
        fail "$mode harness: $runs executions (seed $SEED): exit $st after ${ran:-no} runs"
        grep -E 'ERROR|SUMMARY|runtime error|deadly signal|Test unit written|error:' "$log" | head -n 20 |
            sed 's/^/    /' || true
        tail -n 5 "$log" | sed 's/^/    /'
        mkdir -p "$KEEP"
        find "$TMP/out" -path '*artifacts*' -type f -exec cp {} "$KEEP/" \; 2>/dev/null || true
        echo "    failing inputs, if any: $KEEP"
    fi
}

fuzz target "$TARGET_RUNS"
fuzz record "$RECORD_RUNS"

# The past finds, each replayed once as is and sealed.
finds=("$ROOT"/tests/fuzz/record-crashes/*.vlog)
if [ -x "$TMP/out/fuzz_record" ]; then
    st=0
    "$TMP/out/fuzz_record" -close_fd_mask=3 "${finds[@]}" >"$TMP/finds.log" 2>&1 </dev/null || st=$?
    check "record harness on the ${#finds[@]} past finds (tests/fuzz/record-crashes): no sanitizer report" \
        '[ "$st" -eq 0 ]'
    [ "$st" -eq 0 ] || grep -E 'ERROR|SUMMARY|runtime error|Running:' "$TMP/finds.log" | head -n 20 | sed 's/^/    /'
else
    fail "record harness on the past finds: it was not built"
fi
finish
