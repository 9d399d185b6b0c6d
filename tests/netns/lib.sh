# tests/netns/lib.sh: emulated "host nodes" on one machine, for tests of
# multi-host runs (sourced by bash scripts; needs root, iproute2 and tc).
#
# Each host node is a network namespace NAME = ${NETNS_PREFIX}I (vaced-h0,
# vaced-h1, ...) with its loopback and one interface, $NETNS_IFACE (vnet0),
# the far end of a veth pair whose near end (${NETNS_PREFIX}I-br) is a port
# of a bridge (${NETNS_PREFIX}br) in the root namespace: a switch. Host I
# has address ${NETNS_SUBNET}.(I+1)/24. The bridge has no address, so
# nothing outside these namespaces is reachable from them, and nothing is
# added to the root namespace's routes or to /etc/hosts: tools address the
# hosts by IP (or by namespace name, see vaced/tools/netns-launcher).
#
# Since the root namespace has no address on the bridge, mpiexec runs inside
# host 0 (as on a cluster whose first node launches the job):
#
#     source tests/netns/lib.sh
#     netns_setup 3 500mbit          # 3 hosts, each link shaped to 500 Mbit/s
#     netns_hostfile "$tmp/hosts" 4  # vaced-h0:4, vaced-h1:4, vaced-h2:4
#     netns_exec 0 install/vaced/bin/mpiexec -f "$tmp/hosts" \
#         -launcher ssh -launcher-exec vaced/tools/netns-launcher -iface "$NETNS_IFACE" -n 12 ./prog
#
# Functions:
#   netns_setup N [RATE]   take the lock, remove leftovers, create hosts
#                          0..N-1, install the cleanup trap; RATE (tc units,
#                          e.g. 500mbit, 1gbit) shapes every host's link
#   netns_shape I RATE     (re)shape host I's link in both directions
#   netns_exec I CMD...    run CMD in host I's namespace
#   netns_addr I           host I's IP address
#   netns_hostfile F C     write a Hydra hostfile of all hosts, C cores each
#   netns_cleanup          delete everything of $NETNS_PREFIX (idempotent)
#   netns_on_cleanup CMD   run CMD (a string for eval) before netns_cleanup
#
# Settings (environment, read when the file is sourced):
#   VACED_NETNS_PREFIX  names' prefix, default vaced-h (at most 8 characters,
#                       so that interface names stay within 15)
#   VACED_NETNS_SUBNET  first three octets of the hosts' /24, default 10.218.77
#   VACED_NETNS_BURST   tbf burst in bytes, default 1600 (see netns_shape)
#   VACED_NETNS_QLAT    tbf latency (queue bound), default 50ms
#
# Cleanup always runs: netns_setup installs a trap on EXIT, INT and TERM (a
# caller that needs its own EXIT trap registers it with netns_on_cleanup).
# It also removes leftovers of earlier runs that crashed or were killed with
# SIGKILL: every namespace ${NETNS_PREFIX}<digits> (after killing, by pid,
# the processes still inside it), every ${NETNS_PREFIX}*-br link and the
# bridge. Two runs on one machine would destroy each other's hosts, so
# netns_setup first becomes the owner of the prefix: it writes its pid ($$)
# and that process's start time into /run/lock/${NETNS_PREFIX}netns.pid
# (under flock, so two setups cannot both take it), waiting up to 10
# minutes while a live process owns it. The owner gives it up when it
# exits; an owner that died by SIGKILL is noticed by its pid being gone or
# belonging to a process started at another time. (A plain flock held for the whole run
# would be inherited by every rank and proxy, and one of them surviving a
# SIGKILL would block all later runs.)

NETNS_PREFIX=${VACED_NETNS_PREFIX:-vaced-h}
NETNS_SUBNET=${VACED_NETNS_SUBNET:-10.218.77}
NETNS_BURST=${VACED_NETNS_BURST:-1600}
NETNS_QLAT=${VACED_NETNS_QLAT:-50ms}
NETNS_IFACE=vnet0
NETNS_BRIDGE=${NETNS_PREFIX}br
NETNS_HOSTS=()           # namespace names, index = host number
NETNS_ADDRS=()           # their addresses
NETNS_HOOKS=()           # netns_on_cleanup commands
NETNS_LOCK=/run/lock/${NETNS_PREFIX}netns.lock
NETNS_OWNER=/run/lock/${NETNS_PREFIX}netns.pid

if [ "${#NETNS_PREFIX}" -gt 8 ]; then
    echo "netns: VACED_NETNS_PREFIX '$NETNS_PREFIX' is longer than 8 characters" >&2
    return 1 2>/dev/null || exit 1
fi

netns__log() { echo "netns: $*" >&2; }

netns__need() {
    local c
    if [ "$(id -u)" -ne 0 ]; then
        netns__log "needs root (network namespaces, veth, tc)"
        return 1
    fi
    for c in ip tc flock; do
        command -v "$c" >/dev/null || { netns__log "'$c' not found (apt-get install iproute2 util-linux)"; return 1; }
    done
}

# The namespaces of our prefix that exist now (also those of crashed runs).
netns__ours() {
    ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${NETNS_PREFIX}[0-9]+\$" || true
}

netns_cleanup() {
    local hook
    for hook in "${NETNS_HOOKS[@]}"; do
        eval "$hook" || true
    done
    NETNS_HOOKS=()
    netns__remove_all
}

# Everything of our prefix: this run's hosts or a crashed run's.
netns__remove_all() {
    local ns pid link
    for ns in $(netns__ours); do
        # processes left inside (a crashed run's ranks): end them by pid
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
            kill -TERM "$pid" 2>/dev/null || true
        done
        for pid in $(ip netns pids "$ns" 2>/dev/null); do
            sleep 0.2
            kill -KILL "$pid" 2>/dev/null || true
        done
        ip netns delete "$ns" 2>/dev/null || netns__log "could not delete namespace $ns"
    done
    # veth ends left in the root namespace (deleting a namespace deletes its
    # pair, but a run killed half-way may have left one unmoved)
    for link in $(ip -o link show 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' |
                  grep -E "^${NETNS_PREFIX}[0-9]+-(br|ns)\$" || true); do
        ip link delete "$link" 2>/dev/null || true
    done
    if ip link show "$NETNS_BRIDGE" >/dev/null 2>&1; then
        ip link delete "$NETNS_BRIDGE" type bridge 2>/dev/null || netns__log "could not delete bridge $NETNS_BRIDGE"
    fi
    NETNS_HOSTS=()
    NETNS_ADDRS=()
}

netns_on_cleanup() { NETNS_HOOKS+=("$1"); }

netns__trap_exit() {
    local st=$?
    trap - EXIT INT TERM
    netns_cleanup
    netns__release
    exit "$st"
}

# "PID STARTTIME" of a process (start time in clock ticks since boot, from
# /proc/PID/stat), or nothing if it is gone: a pid alone could be reused.
netns__ident() {
    local st
    st=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null) || return 0
    set -- "$1" $st
    [ -n "${21:-}" ] && echo "$1 ${21}"
}

# Become the owner of the prefix (see the header); 1 after 10 minutes.
netns__acquire() {
    local fd owner me deadline=$((SECONDS + 600)) said=
    me=$(netns__ident $$)
    mkdir -p "$(dirname "$NETNS_LOCK")"
    while :; do
        exec {fd}>>"$NETNS_LOCK"
        flock "$fd"
        owner=$(cat "$NETNS_OWNER" 2>/dev/null || true)
        if [ -z "$owner" ] || [ "$owner" = "$me" ] || [ "$(netns__ident "${owner%% *}")" != "$owner" ]; then
            echo "$me" >"$NETNS_OWNER"
            exec {fd}>&-
            return 0
        fi
        exec {fd}>&-
        if [ "$SECONDS" -ge "$deadline" ]; then
            netns__log "process ${owner%% *} has owned the ${NETNS_PREFIX}* hosts for 10 minutes"
            return 1
        fi
        if [ -z "$said" ]; then
            netns__log "waiting for process ${owner%% *}, which owns the ${NETNS_PREFIX}* hosts ($NETNS_OWNER)"
            said=1
        fi
        sleep 1
    done
}

netns__release() {
    local fd
    exec {fd}>>"$NETNS_LOCK"
    flock "$fd"
    if [ "$(cat "$NETNS_OWNER" 2>/dev/null || true)" = "$(netns__ident $$)" ]; then
        rm -f "$NETNS_OWNER"
    fi
    exec {fd}>&-
}

netns_addr() { echo "${NETNS_SUBNET}.$(($1 + 1))"; }

# netns_shape I RATE: a token-bucket filter of RATE on both directions of
# host I's link: egress of vnet0 inside the namespace (host -> switch) and
# egress of the bridge port (switch -> host), so a host neither sends nor
# receives faster than RATE. tbf needs a bucket size (burst) of at least one
# packet: VACED_NETNS_BURST, default 1600 bytes = one 1514-byte frame of a
# 1500-byte MTU plus slack. tbf cuts larger GSO packets into frames itself.
# A real link spends s/RATE on every frame; the bucket lets up to a burst
# pass at once after an idle time, so keep it as small as possible (at
# 500 Mbit/s one frame is 24 us). The latency parameter (VACED_NETNS_QLAT,
# 50 ms) bounds the queue, limit = RATE * latency + burst (3 MB at
# 500 Mbit/s): far more than TCP keeps in flight on one connection, so
# nothing is dropped.
netns_shape() {
    local i=$1 rate=$2 ns=${NETNS_PREFIX}$1
    ip netns exec "$ns" tc qdisc replace dev "$NETNS_IFACE" root tbf \
        rate "$rate" burst "$NETNS_BURST" latency "$NETNS_QLAT"
    tc qdisc replace dev "${ns}-br" root tbf rate "$rate" burst "$NETNS_BURST" latency "$NETNS_QLAT"
}

netns_setup() {
    local n=$1 rate=${2:-} i ns addr
    netns__need || return 1
    if [ "$n" -lt 1 ] || [ "$n" -gt 250 ]; then
        netns__log "netns_setup: between 1 and 250 hosts, not '$n'"
        return 1
    fi
    netns__acquire || return 1
    trap netns__trap_exit EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    netns__remove_all                   # leftovers of crashed runs
    ip link add "$NETNS_BRIDGE" type bridge
    ip link set "$NETNS_BRIDGE" up
    for ((i = 0; i < n; i++)); do
        ns=${NETNS_PREFIX}$i
        addr=$(netns_addr "$i")
        ip netns add "$ns"
        ip link add "${ns}-br" type veth peer name "${ns}-ns"
        ip link set "${ns}-ns" netns "$ns"
        ip -n "$ns" link set "${ns}-ns" name "$NETNS_IFACE"
        ip -n "$ns" addr add "$addr/24" dev "$NETNS_IFACE"
        ip -n "$ns" link set lo up
        ip -n "$ns" link set "$NETNS_IFACE" up
        ip link set "${ns}-br" master "$NETNS_BRIDGE"
        ip link set "${ns}-br" up
        NETNS_HOSTS+=("$ns")
        NETNS_ADDRS+=("$addr")
        if [ -n "$rate" ]; then
            netns_shape "$i" "$rate"
        fi
    done
    # wait until every bridge port forwards (no STP: at once) and carries
    for ((i = 0; i < n; i++)); do
        local port=${NETNS_PREFIX}$i-br tries=0
        until [ "$(cat "/sys/class/net/$port/brport/state" 2>/dev/null)" = 3 ] &&
              [ "$(cat "/sys/class/net/$port/operstate" 2>/dev/null)" = up ]; do
            tries=$((tries + 1))
            if [ "$tries" -ge 50 ]; then
                netns__log "bridge port $port does not come up"
                return 1
            fi
            sleep 0.1
        done
    done
}

netns_exec() {
    local i=$1
    shift
    ip netns exec "${NETNS_PREFIX}$i" "$@"
}

# netns_hostfile FILE CORES: one line "NAME:CORES" per host. Hydra passes
# NAME to the launcher, which maps it to the namespace and its address.
netns_hostfile() {
    local f=$1 c=$2 ns
    : >"$f"
    for ns in "${NETNS_HOSTS[@]}"; do
        echo "$ns:$c" >>"$f"
    done
}
