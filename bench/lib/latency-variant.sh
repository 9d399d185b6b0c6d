#!/bin/bash
# latency-variant.sh SRC NAME > DST: a calibrated one-node description
# (vaced-calibrate, hop 0 between its ranks) as 1-core nodes 1 hop apart
# with the fitted per-message time c as the latency and no per-message
# overheads: the pure-latency model of the same ping-pong (t(s) = n c +
# 3 s/Bmem, bnet = bmem), which hop 0 without overheads cannot express.
set -euo pipefail
src=$1 name=$2
c=$(sed -n 's/^#   c = \([0-9.]* [mun]*s\) .*/\1/p' "$src" | head -1)
[[ -n $c ]] || { echo "latency-variant.sh: no fitted c in $src" >&2; exit 1; }
echo "# $name: $(basename "$src") with cores_per_node = 1 and no per-message overheads: the"
echo "# cores as 1-core nodes 1 hop apart, so that every message pays the measured per-message"
echo "# time c = $c as a latency and the model's one-way time is n c + 3 s/Bmem (bnet = bmem)."
echo "# Written by bench/lib/latency-variant.sh."
sed -e 's/^cores_per_node  *= *[0-9]*/cores_per_node  = 1/' -e "s/^name  *= .*/name            = $name/" \
    -e "s/^latency  *= .*/latency         = $c/" \
    -e '/^latency_same_node *=/d' -e '/^send_overhead *=/d' -e '/^recv_overhead *=/d' "$src"
