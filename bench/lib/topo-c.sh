# topo_c FILE: a one-node description's per-message time c in microseconds,
# the ping-pong's (n c + 3 s/Bmem): the "c = ... us" line vaced-calibrate
# writes, else send_overhead + latency_same_node + recv_overhead +
# wakeup_latency.  Sourced by bench/validate.sh and bench/micro.sh,
# which measure the localhost description again when it met a slow moment
# of the host: a calibration taken then describes a slower network than the
# real runs meet (results/validation-notes.md, "a slow hour").
topo_c() {
    awk '/^#[ \t]*c = [0-9.]+ us/ { for (i = 1; i <= NF; i++) if ($i == "=") { said = $(i + 1); break } }
         $1 == "send_overhead" || $1 == "recv_overhead" || $1 == "latency_same_node" || $1 == "wakeup_latency" {
             m = ($4 == "s") ? 1e6 : ($4 == "ms") ? 1e3 : ($4 == "us") ? 1 : ($4 == "ns") ? 1e-3 : ($4 == "ps") ? 1e-6 : 0
             sum += $3 * m
         }
         END { printf "%.3f", said != "" ? said : sum }' "$1"
}

# c_above A B FACTOR: A > FACTOR * B (numbers as topo_c prints them)
c_above() {
    awk -v a="$1" -v b="$2" -v f="$3" 'BEGIN { exit !(a > f * b) }'
}
