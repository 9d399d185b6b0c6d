#!/usr/bin/env bash
# The simulator calls no libm function.  Its code runs in the program's
# process between the program's computations, which VACED times by their
# CPU time: calling libm's log2 (glibc's FMA variant) there made LU class
# A's residual run in 2.1 ms instead of the 3.4 ms it takes under vanilla
# MPICH (results/validation-notes.md), so VACED predicted LU 15-20 % low.
# Checks the undefined symbols of libvaced.a against the functions only
# libm defines (not libc too).
#
#   tests/tools/test_no_libm.sh [ROOT] LIBVACED_A
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
LIB=${2:?usage: test_no_libm.sh ROOT LIBVACED_A}
# shellcheck source=check.sh
source "$ROOT/tests/tools/check.sh"

libm=$(gcc -print-file-name=libm.so.6)
libc=$(gcc -print-file-name=libc.so.6)
defined() { nm -D --defined-only "$1" | awk '{ sub(/@.*/, "", $3); print $3 }' | sort -u; }
defined "$libm" >"$TMP/libm"
defined "$libc" >"$TMP/libc"
comm -23 "$TMP/libm" "$TMP/libc" >"$TMP/only-libm"
nm -u "$LIB" | awk '{ print $2 }' | sort -u >"$TMP/undefined"
check "libm defines functions libc does not ($(wc -l <"$TMP/only-libm") of them, log2 among them)" \
    'grep -qx log2 "$TMP/only-libm"'
used=$(comm -12 "$TMP/only-libm" "$TMP/undefined" | tr '\n' ' ')
check "libvaced.a calls no libm function${used:+ (calls: $used)}" '[ -z "$used" ]'
finish
