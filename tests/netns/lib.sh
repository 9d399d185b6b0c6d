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
# Several switches joined by a router (netns_setup_segments): segment K
# is a bridge of its own (${NETNS_PREFIX}br for K = 0, ${NETNS_PREFIX}brK
# after) with its own /24 (the third octet of $NETNS_SUBNET plus K), and
# one more namespace, the router ${NETNS_PREFIX}r, has an interface vnetK
# on every segment's bridge at address .254 of its /24 and forwards IP
# between them (net.ipv4.ip_forward = 1). Every host's default route goes
# through the router's address on its segment. Hosts are numbered across
# the segments in order, and host I keeps the address .(I+1):
#
#     netns_setup_segments "2 1" 500mbit  # hosts 0, 1 on segment 0
#                                         # (10.218.77.1, .2), host 2 on
#                                         # segment 1 (10.218.78.3)
#
# A packet between hosts of one segment crosses the bridge; between
# segments it is also forwarded by the router, one IP hop more (its TTL
# drops by one, `ip route get` in a host shows "via" the router). The
# router's interfaces are not shaped.
#
# Functions:
#   netns_setup N [RATE]   take the lock, remove leftovers, create hosts
#                          0..N-1, install the cleanup trap; RATE (tc units,
#                          e.g. 500mbit, 1gbit) shapes every host's link
#   netns_setup_segments "N0 N1 ..." [RATE]
#                          the same with N0 hosts on segment 0, N1 on
#                          segment 1, ..., and the router (if 2 or more)
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
#                       (segment K: the third octet plus K)
#   VACED_NETNS_BURST   tbf burst in bytes, default 1600 (see netns_shape)
#   VACED_NETNS_QLAT    tbf latency (queue bound), default 50ms
#
# Cleanup always runs: netns_setup installs a trap on EXIT, INT and TERM (a
# caller that needs its own EXIT trap registers it with netns_on_cleanup).
# It also removes leftovers of earlier runs that crashed or were killed with
# SIGKILL: every namespace ${NETNS_PREFIX}<digits> and the router
# ${NETNS_PREFIX}r (after killing, by pid, the processes still inside
# them), every ${NETNS_PREFIX}*-br link and the bridges. Two runs on one machine would destroy each other's hosts, so
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
NETNS_ROUTER=${NETNS_PREFIX}r   # the router namespace (netns_setup_segments)
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
    ip netns list 2>/dev/null | awk '{print $1}' | grep -E "^${NETNS_PREFIX}([0-9]+|r)\$" || true
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
                  grep -E "^${NETNS_PREFIX}r?[0-9]+-(br|ns)\$" || true); do
        ip link delete "$link" 2>/dev/null || true
    done
    for link in $(ip -o link show type bridge 2>/dev/null | awk -F': ' '{print $2}' | sed 's/@.*//' |
                  grep -E "^${NETNS_BRIDGE}[0-9]*\$" || true); do
        ip link delete "$link" type bridge 2>/dev/null || netns__log "could not delete bridge $link"
    done
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

# Host I's address: .(I+1) of its segment's /24 (segment 0 unless
# netns_setup_segments put it on another).
netns_addr() {
    if [ -n "${NETNS_ADDRS[$1]:-}" ]; then
        echo "${NETNS_ADDRS[$1]}"
    else
        echo "${NETNS_SUBNET}.$(($1 + 1))"
    fi
}

# The first three octets of segment K's /24.
netns__subnet() {
    local third=${NETNS_SUBNET##*.}
    if [ $((third + $1)) -gt 255 ]; then
        netns__log "segment $1: ${NETNS_SUBNET%.*}.$((third + $1)) is not an address"
        return 1
    fi
    echo "${NETNS_SUBNET%.*}.$((third + $1))"
}

netns__bridge() { if [ "$1" -eq 0 ]; then echo "$NETNS_BRIDGE"; else echo "$NETNS_BRIDGE$1"; fi; }

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
    netns_setup_segments "$1" "${2:-}"
}

netns_setup_segments() {
    local segs=($1) rate=${2:-} n=0 i j k ns addr subnet br port ports=()
    netns__need || return 1
    for k in "${segs[@]}"; do
        if ! [[ $k =~ ^[0-9]+$ ]] || [ "$k" -lt 1 ]; then
            netns__log "netns_setup: every segment needs at least 1 host, not '$k'"
            return 1
        fi
        n=$((n + k))
    done
    if [ "${#segs[@]}" -lt 1 ] || [ "$n" -gt 250 ] || [ "${#segs[@]}" -gt 16 ]; then
        netns__log "netns_setup: between 1 and 250 hosts on 1 to 16 segments, not '$1'"
        return 1
    fi
    netns__acquire || return 1
    trap netns__trap_exit EXIT
    trap 'exit 130' INT
    trap 'exit 143' TERM
    netns__remove_all                   # leftovers of crashed runs
    if [ "${#segs[@]}" -gt 1 ]; then
        ip netns add "$NETNS_ROUTER"
        ip -n "$NETNS_ROUTER" link set lo up
        ip netns exec "$NETNS_ROUTER" sysctl -qw net.ipv4.ip_forward=1
    fi
    i=0
    for ((k = 0; k < ${#segs[@]}; k++)); do
        subnet=$(netns__subnet "$k") || return 1
        br=$(netns__bridge "$k")
        ip link add "$br" type bridge
        ip link set "$br" up
        if [ "${#segs[@]}" -gt 1 ]; then
            port=${NETNS_ROUTER}$k-br
            ip link add "$port" type veth peer name "${NETNS_ROUTER}$k-ns"
            ip link set "${NETNS_ROUTER}$k-ns" netns "$NETNS_ROUTER"
            ip -n "$NETNS_ROUTER" link set "${NETNS_ROUTER}$k-ns" name "vnet$k"
            ip -n "$NETNS_ROUTER" addr add "$subnet.254/24" dev "vnet$k"
            ip -n "$NETNS_ROUTER" link set "vnet$k" up
            ip link set "$port" master "$br"
            ip link set "$port" up
            ports+=("$port")
        fi
        for ((j = 0; j < ${segs[$k]}; j++, i++)); do
            ns=${NETNS_PREFIX}$i
            addr=$subnet.$((i + 1))
            ip netns add "$ns"
            ip link add "${ns}-br" type veth peer name "${ns}-ns"
            ip link set "${ns}-ns" netns "$ns"
            ip -n "$ns" link set "${ns}-ns" name "$NETNS_IFACE"
            ip -n "$ns" addr add "$addr/24" dev "$NETNS_IFACE"
            ip -n "$ns" link set lo up
            ip -n "$ns" link set "$NETNS_IFACE" up
            if [ "${#segs[@]}" -gt 1 ]; then
                ip -n "$ns" route add default via "$subnet.254" dev "$NETNS_IFACE"
            fi
            ip link set "${ns}-br" master "$br"
            ip link set "${ns}-br" up
            NETNS_HOSTS+=("$ns")
            NETNS_ADDRS+=("$addr")
            ports+=("${ns}-br")
            if [ -n "$rate" ]; then
                netns_shape "$i" "$rate"
            fi
        done
    done
    # wait until every bridge port forwards (no STP: at once) and carries
    for port in "${ports[@]}"; do
        local tries=0
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
