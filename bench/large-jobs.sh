#!/usr/bin/env bash
# Large jobs on one host: a token ring (tests/mpi/ring.c) of P ranks through
# `vaced run`, for each P one start-up run (the warm-up lap only: launch,
# MPI_Init, the ring's connections, MPI_Finalize) and one run of --laps laps.
# Per run: host wall and CPU time (mpiexec, Hydra's proxy and the ranks),
# each rank's Pss and descriptors at MPI_Finalize (bench/rankstat.c), the
# machine's MemAvailable drop and the proxy's peak resident memory and
# descriptors (sampled every 0.5 s), the load average, and the ring's lap
# against its closed form on the target (hierarchy targets with block
# mapping: a hop's eager one-way time, eqs. 3-5, summed over the ring).
#
#   bench/large-jobs.sh [--ranks "256 1024 2048 4096"] [--target paper-4096]
#                       [--bytes 1024] [--laps 2] [--ab P --reps R] [--csv FILE]
#
# --ab P: instead, start-up runs of P ranks with vaced run's environment
# defaults (vaced/tools/vaced_jobsize.py) and with MPICH's and hwloc's own
# (RMA pools of 16384, hwloc's I/O discovery), interleaved R times in
# alternating order.  Prints one line a run and a table; --csv appends
# every run to FILE.  Run it alone: each run loads the whole host.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RANKS="256 1024 2048 4096"
TARGET=paper-4096
BYTES=1024
LAPS=2
AB=
REPS=3
CSV=
while [[ $# -gt 0 ]]; do
    case $1 in
        --ranks) RANKS=$2; shift 2 ;;
        --target) TARGET=$2; shift 2 ;;
        --bytes) BYTES=$2; shift 2 ;;
        --laps) LAPS=$2; shift 2 ;;
        --ab) AB=$2; shift 2 ;;
        --reps) REPS=$2; shift 2 ;;
        --csv) CSV=$2; shift 2 ;;
        -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "large-jobs.sh: unknown option $1 (see --help)" >&2; exit 2 ;;
    esac
done

WORK=$ROOT/build/bench/large-jobs
mkdir -p "$WORK"
"$ROOT/install/vaced/bin/mpicc" -O2 -o "$WORK/ring" "$ROOT/tests/mpi/ring.c"
cc -O2 -shared -fPIC -o "$WORK/rankstat.so" "$ROOT/bench/rankstat.c" -ldl
TOPO=$ROOT/topo/$TARGET.topo
[[ -f $TARGET ]] && TOPO=$TARGET

# lap_closed_form P: the ring's lap on the target, or "-" when the target is
# not a hierarchy with block mapping
lap_closed_form() {
    python3 - "$TOPO" "$1" "$BYTES" <<'EOF'
import re, sys
kv = {}
for line in open(sys.argv[1]):
    line = line.split("#")[0].strip()
    if "=" in line:
        k, v = (x.strip() for x in line.split("=", 1))
        kv[k] = v
p, s = int(sys.argv[2]), int(sys.argv[3])
unit = {"GB/s": 1e9, "MB/s": 1e6, "us": 1e-6, "ns": 1e-9, "ms": 1e-3}
num = lambda v: float(v.split()[0]) * unit.get(v.split()[1], 1) if len(v.split()) > 1 else float(v)
if kv.get("topology") != "hierarchy" or kv.get("mapping", "block") != "block" or \
        set(kv) & {"send_overhead", "recv_overhead", "bnet_factors", "bmem_factors", "bcpu", "latency_same_node"}:
    print("-"); sys.exit()
c, g = int(kv["cores_per_node"]), int(kv.get("hierarchy", "1").split()[0])
hops = [int(h) for h in kv["hops"].split()]
bmem, bnet, l0, lh = num(kv["bmem"]), num(kv["bnet"]), num(kv["latency"]), num(kv["latency_per_hop"])
def oneway(a, b):
    na, nb = a // c, b // c
    h = hops[0] if na == nb else hops[1] if na // g == nb // g else hops[2]
    return 2 * s / bmem + (s / bmem if h == 0 else s / bnet + l0 + h * lh)
print(f"{sum(oneway(r, (r + 1) % p) for r in range(p)):.9f}")
EOF
}

HEADER="kind,variant,ranks,laps,wall_s,cpu_s,user_s,sys_s,rc,pss_mean_kib,pss_max_kib,rank_fds_max,avail_drop_kib,proxy_hwm_kib,proxy_fds_max,lap_s,lap_closed_s,prediction_s,load1_before,load1_after"
[[ -z $CSV || -s $CSV ]] || echo "$HEADER" > "$CSV"

# one_run KIND VARIANT P LAPS [ENV=VALUE...]: one vaced run of the ring;
# prints a CSV row
one_run() {
    local kind=$1 variant=$2 p=$3 laps=$4; shift 4
    local st=$WORK/st.$kind.$variant.$p log=$WORK/log.$kind.$variant.$p
    local load0 load1 avail0 sampler
    rm -rf "$st"; mkdir -p "$st"
    load0=$(cut -d' ' -f1 /proc/loadavg)
    avail0=$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)
    env "$@" LD_PRELOAD="$WORK/rankstat.so" RANKSTAT_DIR="$st" \
        /usr/bin/time -f "%e %U %S" -o "$st.time" \
        "$ROOT/vaced/tools/vaced" run -n "$p" --target "$TOPO" --repeat 1 --quiet --json "$st.json" \
        -- "$WORK/ring" "$BYTES" "$laps" > "$log" 2>&1 &
    local job=$!
    # MemAvailable, and the proxy under this job's mpiexec: resident memory, descriptors
    (
        local m px=
        while kill -0 "$job" 2> /dev/null; do
            m=$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)
            # found once: pgrep reads every process, thousands of them here
            if [[ -z $px || ! -d /proc/$px ]]; then
                px=
                for vp in $(pgrep -P "$job" 2> /dev/null); do
                    for mp in $(pgrep -P "$vp" -x mpiexec 2> /dev/null); do px=$(pgrep -P "$mp" -x hydra_pmi_proxy | head -1); done
                done
            fi
            if [[ -n $px ]]; then
                echo "$m $(awk '/^VmHWM/ { print $2 }' "/proc/$px/status" 2> /dev/null || echo 0) $(ls "/proc/$px/fd" 2> /dev/null | wc -l)"
            else
                echo "$m 0 0"
            fi
            sleep 0.5
        done
    ) > "$st.samples" &
    sampler=$!
    local rc=0
    wait "$job" || rc=$?
    wait "$sampler" || true
    load1=$(cut -d' ' -f1 /proc/loadavg)
    local t m pred lap cf
    read -r wall user sys < <(tail -1 "$st.time" 2> /dev/null || echo "- - -")
    m=$(cat "$st"/rank.* 2> /dev/null | awk '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
          n++; pss += v["pss_kb"]; if (v["pss_kb"] > pmax) pmax = v["pss_kb"]; if (v["fds"] > fmax) fmax = v["fds"] }
        END { if (n) printf "%.0f,%d,%d", pss / n, pmax, fmax; else printf "-,-,-" }')
    local s
    s=$(awk -v a0="$avail0" '{ if (min == "" || $1 < min) min = $1; if ($2 > h) h = $2; if ($3 > f) f = $3 }
        END { printf "%d,%d,%d", a0 - (min == "" ? a0 : min), h, f }' "$st.samples")
    pred=$(sed -n 's/^vaced: prediction \([0-9.e+-]*\) s.*/\1/p' "$log" | tail -1)
    lap=$(sed -n 's/^ring .* lap_s=\([0-9.e+-]*\).*/\1/p' "$log" | tail -1)
    cf=$(lap_closed_form "$p")
    local cpu
    cpu=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.2f", u + s }')
    local row="$kind,$variant,$p,$laps,$wall,$cpu,$user,$sys,$rc,$m,$s,${lap:--},$cf,${pred:--},$load0,$load1"
    [[ -z $CSV ]] || echo "$row" >> "$CSV"
    echo "$row"
    [[ $rc == 0 ]] || echo "  (exit $rc: $(grep -v '^ ' "$log" | grep -m3 -i 'vaced:\|error' | tr '\n' ' '))" >&2
}

table() {
    column -s, -t
}

if [[ -n $AB ]]; then
    off=(MPIR_CVAR_CH3_RMA_OP_GLOBAL_POOL_SIZE=16384 MPIR_CVAR_CH3_RMA_TARGET_GLOBAL_POOL_SIZE=16384 HWLOC_COMPONENTS=)
    {
        echo "$HEADER"
        for ((i = 1; i <= REPS; i++)); do
            if ((i % 2)); then
                one_run startup defaults "$AB" 0 X=1
                one_run startup mpich "$AB" 0 "${off[@]}"
            else
                one_run startup mpich "$AB" 0 "${off[@]}"
                one_run startup defaults "$AB" 0 X=1
            fi
        done
    } | table
    exit 0
fi

{
    echo "$HEADER"
    for p in $RANKS; do
        one_run startup defaults "$p" 0 X=1
        one_run ring defaults "$p" "$LAPS" X=1
    done
} | table
