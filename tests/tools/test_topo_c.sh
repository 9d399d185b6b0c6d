#!/usr/bin/env bash
# bench/lib/topo-c.sh, which bench/validate.sh and bench/micro.sh use
# to measure the localhost description again when it met a slow moment:
# topo_c reads vaced-calibrate's "c = ... us" line, else sums the keys
# (units converted); c_above compares.  No MPI needed.
#
#   tests/tools/test_topo_c.sh [ROOT]
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
# shellcheck source=check.sh
source "$ROOT/tests/tools/check.sh"
# shellcheck source=../../bench/lib/topo-c.sh
source "$ROOT/bench/lib/topo-c.sh"

cat > "$TMP/said.topo" <<'TOPO'
# Same node: t(s) = n c + 3 s/Bmem, R^2 0.98008
#   c = 38.317 us (per protocol message on one node: send overhead + latency_same_node + receive overhead).
send_overhead   = 7.485 us
recv_overhead   = 6.120 us
latency_same_node = 27.899 us
TOPO
check "the calibration's own c line" '[[ $(topo_c "$TMP/said.topo") == 38.317 ]]'
cat > "$TMP/keys.topo" <<'TOPO'
send_overhead   = 4500 ns
recv_overhead   = 3.5 us
latency_same_node = 0.01 ms
wakeup_latency  = 2000000 ps
latency         = 99 us
TOPO
check "no c line: o_s + l + o_r + wake-up, units converted" '[[ $(topo_c "$TMP/keys.topo") == 20.000 ]]'
check "c_above: 38.317 > 1.1 x 28" 'c_above 38.317 28 1.1'
check "c_above: 30 is not above 1.1 x 28" '! c_above 30 28 1.1'
check "c_above: equal is not above" '! c_above 28.080 28.080 1'
finish
