#!/usr/bin/env bash
# bench/lib/apps.sh, the one-binary-for-both-builds helper of
# bench/validate.sh and bench/run.sh:
#
# 1. apps_build builds the apps once; apps_stage copies them to new files
#    (new inodes, same bytes), and a second apps_stage replaces them again.
# 2. The same staged file runs on each build as mpi_lib selects it: with
#    install/vanilla's libraries no VACED line, with install/vaced's the
#    prediction line (the environment reaches every rank through mpiexec).
# 3. Installs with different MPI headers are refused before anything is built.
# Ends with "N passed, M failed"; exits non-zero if any failed. About 30 s.
#
#   tests/tools/test_apps_lib.sh [ROOT]
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
# shellcheck source=check.sh
source "$ROOT/tests/tools/check.sh"

# shellcheck source=../../bench/lib/apps.sh
source "$ROOT/bench/lib/apps.sh"
die() { echo "die: $*"; exit 3; }

# 1. build once, stage twice
if (apps_build "$TMP/w" "$TMP/build.log" "$ROOT/tests/mpi/ring.c") > "$TMP/out" 2>&1; then
    ok "apps_build builds the apps and the extra program"
else
    fail "apps_build: $(cat "$TMP/out") $(tail -5 "$TMP/build.log")"
fi
apps_stage "$TMP/w"
check "apps_stage copies every app and the extra program" \
    '[[ -x $TMP/w/run/ep && -x $TMP/w/run/lu && -x $TMP/w/run/ring ]]'
check "a staged copy is a new file with the same bytes" \
    '[[ $(stat -c %i "$TMP/w/run/ep") != $(stat -c %i "$TMP/w/build/ep") ]] && cmp -s "$TMP/w/run/ep" "$TMP/w/build/ep"'
ino=$(stat -c %i "$TMP/w/run/ep")
cp "$TMP/w/run/ep" "$TMP/hold"       # keeps the old inode from being reused at once
apps_stage "$TMP/w"
check "staging again replaces the file" '[[ $(stat -c %i "$TMP/w/run/ep") != "$ino" ]]'

# 2. one file, two builds
run() {
    local v=$1; shift
    env "$(mpi_lib "$v")" "$@" "$ROOT/install/$v/bin/mpiexec" -n 2 "$TMP/w/run/ep" S > "$TMP/$v.log" 2>&1
}
if run vanilla; then
    check "on install/vanilla: the app verifies, no VACED line" \
        'grep -q "VERIFIED=yes" "$TMP/vanilla.log" && ! grep -q "^vaced:" "$TMP/vanilla.log"'
else
    fail "the staged ep on install/vanilla failed: $(tail -3 "$TMP/vanilla.log")"
fi
if run vaced VACED_TARGET=paper-1024; then
    check "on install/vaced: the app verifies and rank 0 prints the prediction" \
        'grep -q "VERIFIED=yes" "$TMP/vaced.log" && grep -q "^vaced: prediction" "$TMP/vaced.log"'
else
    fail "the staged ep on install/vaced failed: $(tail -3 "$TMP/vaced.log")"
fi

# 3. headers that differ
mkdir -p "$TMP/fake/install/vanilla" "$TMP/fake/install/vaced"
cp -r "$ROOT/install/vanilla/include" "$TMP/fake/install/vanilla/"
cp -r "$ROOT/install/vaced/include" "$TMP/fake/install/vaced/"
echo "/* another build */" >> "$TMP/fake/install/vaced/include/mpi.h"
if out=$(ROOT=$TMP/fake apps_build "$TMP/w2" "$TMP/build2.log" 2>&1); then
    fail "different headers were accepted"
else
    check "different headers are refused, naming the cause" \
        '[[ $out == *"different MPI headers"* && ! -e $TMP/w2/build ]]'
fi

finish
