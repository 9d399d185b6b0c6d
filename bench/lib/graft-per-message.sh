#!/bin/bash
# graft-per-message.sh FROM ONTO > DST: description ONTO with the
# per-message lines of FROM (send_overhead, recv_overhead, latency,
# latency_same_node), so that two calibrations differ only in their
# bandwidths: an A/B of what a calibration option changes (for example
# vaced-calibrate --cold-mib) without the per-message noise of two runs of
# the overhead pipeline.
set -euo pipefail
from=$1 onto=$2
keys='send_overhead|recv_overhead|latency|latency_same_node'
for f in "$from" "$onto"; do
    [[ -r $f ]] || { echo "graft-per-message.sh: cannot read $f" >&2; exit 1; }
done
echo "# $(basename "$onto") with the per-message lines of $(basename "$from") (bench/lib/graft-per-message.sh)."
awk -v keys="^($keys)\$" '
    NR == FNR { if ($0 !~ /^#/ && split($0, kv, "=") == 2) { k = kv[1]; gsub(/ /, "", k); if (k ~ keys) line[k] = $0 }; next }
    /^#/ { print; next }
    { k = $0; sub(/=.*/, "", k); gsub(/ /, "", k)
      if (k ~ keys && (k in line)) { print line[k]; seen[k] = 1 } else print }
    END { for (k in line) if (!(k in seen)) print line[k] }' "$from" "$onto"
