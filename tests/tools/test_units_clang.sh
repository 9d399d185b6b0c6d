#!/usr/bin/env bash
# libvaced and its unit tests built with clang instead of gcc: warning-free
# under -Wall -Wextra, and every unit test passes.  clang optimises what
# gcc keeps (a pointer chase whose result is unused, stores to memory that
# is freed unread), which is where timing code goes quietly wrong.
#
#   tests/tools/test_units_clang.sh [ROOT] [BUILD_DIR]
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
OUT=$(realpath -m "${2:-$ROOT/build/vaced-clang}")     # make -C runs in vaced/
# shellcheck source=check.sh
source "$ROOT/tests/tools/check.sh"

if ! command -v clang >/dev/null; then
    fail "clang is installed (apt-get install clang)"
    finish
fi
rm -rf "$OUT"
if make -s -C "$ROOT/vaced" O="$OUT" CC=clang units >"$TMP/build.log" 2>&1; then
    ok "libvaced and the unit tests build with clang"
else
    fail "libvaced and the unit tests build with clang: $(tail -n 5 "$TMP/build.log")"
    finish
fi
warnings=$(grep -c 'warning:' "$TMP/build.log" || true)
check "clang -Wall -Wextra: no warnings ($warnings; see the first: $(grep -m1 'warning:' "$TMP/build.log" || true))" \
    '[ "$warnings" -eq 0 ]'
for t in "$OUT"/unit/test_*; do
    [ "${t%.d}" = "$t" ] || continue
    "$t" "$ROOT" > "$TMP/unit.log" 2>&1 || true
    summary=$(tail -n 1 "$TMP/unit.log")
    failing=$(grep -m 3 'CHECK failed' "$TMP/unit.log" | tr '\n' ' ' || true)    # which, where
    check "$(basename "$t") under clang: $summary${failing:+ ($failing)}" \
        '[[ $summary =~ ^[0-9]+\ passed,\ 0\ failed$ ]]'
done
finish
