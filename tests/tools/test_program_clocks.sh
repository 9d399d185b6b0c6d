#!/usr/bin/env bash
# The program's own clocks tell target time (vaced/src/clock/
# program_clocks.c), checked without MPICH: libvaced is linked into a
# shared library as into libmpi.so, and a program outside it reads its
# clocks (tests/tools/program-clocks.c).  Between start and end its
# monotonic clock and gettimeofday move with VACED's target time over a
# computation (within 1 %), its sleeps (nanosleep, usleep, clock_nanosleep
# to a deadline) advance the target time by their length, realtime keeps
# the host's date as origin; before the start and after the end, and
# with VACED_HOST_CLOCKS=1, the clocks are the host's; another thread's
# sleep is the host's alone.
#
#   tests/tools/test_program_clocks.sh [ROOT] LIBVACED_A
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
LIB=${2:?usage: test_program_clocks.sh ROOT LIBVACED_A}
# shellcheck source=check.sh
source "$ROOT/tests/tools/check.sh"

cat >"$TMP/shim.c" <<'C'
#include <stdint.h>
#include "vaced.h"
int vc_start(void) { uint64_t eager; return vaced_sim_start(0, 1, 0, &eager); }
void vc_end(void)
{
    double out[VACED_SUMMARY_LEN];
    vaced_sim_end(out);
    vaced_report_job(out, 1);
    vaced_shutdown();
}
double vc_wtime(void) { return vaced_wtime(); }
C
check_run "libvaced links into a shared library" \
    cc -shared -fPIC -I"$ROOT/vaced/include" -o "$TMP/libvc.so" "$TMP/shim.c" \
    -Wl,--whole-archive "$LIB" -Wl,--no-whole-archive
check_run "the program builds against it" \
    cc -O1 -pthread -o "$TMP/prog" "$ROOT/tests/tools/program-clocks.c" -L"$TMP" -lvc -Wl,-rpath,"$TMP"

# key=value of run $1's output
val() { sed -n "s/^$2=//p" "$TMP/$1.out"; }
# |a - b| <= tol
within() { awk -v a="$1" -v b="$2" -v t="$3" 'BEGIN { d = a - b; if (d < 0) d = -d; exit !(d <= t) }'; }

env -u VACED_HOST_CLOCKS VACED_TARGET=paper-16 "$TMP/prog" >"$TMP/target.out" 2>&1 ||
    fail "the program runs (target clocks): $(tail -3 "$TMP/target.out")"
VACED_HOST_CLOCKS=1 VACED_TARGET=paper-16 "$TMP/prog" >"$TMP/host.out" 2>&1 ||
    fail "the program runs (VACED_HOST_CLOCKS=1): $(tail -3 "$TMP/host.out")"

w=$(val target compute_wtime)
check "computation: CLOCK_MONOTONIC within 1 % of target time ($(val target compute_mono) vs $w s)" \
    'within "$(val target compute_mono)" "$w" "$(awk -v w="$w" "BEGIN { print w / 100 }")"'
check "computation: gettimeofday within 1 % of target time ($(val target compute_tod) s)" \
    'within "$(val target compute_tod)" "$w" "$(awk -v w="$w" "BEGIN { print w / 100 + 2e-6 }")"'
check "sleeps of 50 + 20 + 30 ms move the target clock that far ($(val target sleep_wtime) s)" \
    'within "$(val target sleep_wtime)" 0.100 0.003'
check "the program's clock sees the same ($(val target sleep_mono) s)" \
    'within "$(val target sleep_mono)" "$(val target sleep_wtime)" 0.0005'
check "realtime's origin is the host's date at the start (gettimeofday $(val target start_realtime_off) s off)" \
    'within "$(val target start_realtime_off)" 0 0.01'
check "time() too ($(val target start_time_off) s off)" 'within "$(val target start_time_off)" 0 1'
check "before the start the clocks are the host's" 'within "$(val target before_mono_off)" 0 0.001'
check "after the end the clocks are the host's" 'within "$(val target after_mono_off)" 0 0.001'
check "another thread's 30 ms sleep is the host's alone ($(val target thread_sleep_wtime) s of target time)" \
    'within "$(val target thread_sleep_wtime)" 0 0.005'
check "its clock reads the rank's target time as of the last event ($(val target thread_sleep_mono) s)" \
    'within "$(val target thread_sleep_mono)" 0 0.001'
check "the job line says the program's clocks are target time" \
    'grep -q "; program clocks target; cpu time" "$TMP/target.out"'

check "VACED_HOST_CLOCKS=1: sleeps do not move the target clock ($(val host sleep_wtime) s)" \
    'within "$(val host sleep_wtime)" 0 0.005'
check "VACED_HOST_CLOCKS=1: the program's clock is the host's ($(val host sleep_mono) s for 100 ms of sleep)" \
    'awk -v m="$(val host sleep_mono)" "BEGIN { exit !(m >= 0.1) }"'
check "VACED_HOST_CLOCKS=1: the job line says host" 'grep -q "; program clocks host; cpu time" "$TMP/host.out"'
finish
