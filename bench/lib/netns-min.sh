# Minimal two-"node" network for bench/validate.sh, used only when the
# project's tests/netns/lib.sh is not there.  Source it, then:
#
#   vnet_up RATE STATEDIR    # 2 namespaces on a bridge, tc tbf RATE on each
#                            # namespace's egress; writes STATEDIR/hosts and
#                            # STATEDIR/launcher (a Hydra -launcher-exec)
#   vnet_down                # removes namespaces and bridge (idempotent)
#
# Layout (the scheme of tests/netns/lib.sh, docs/hosts.md "Emulated host
# nodes"): bridge vvalbr 10.213.77.254/24 in the root namespace; namespace
# vval0 (10.213.77.1) and vval1 (10.213.77.2), each with a veth "eth0"
# enslaved to the bridge.  mpiexec runs in the root namespace
# and listens on the bridge (-iface vvalbr); the launcher runs each Hydra
# proxy with `ip netns exec`, pinned to CPU 0 (vval0) or CPU 1 (vval1), and
# sets MPICH_INTERFACE_HOSTNAME to the namespace's address (all namespaces
# share the hostname, so ranks must advertise their own address).
# tc tbf shapes each namespace's outgoing traffic, so each direction of the
# rank-to-rank path crosses exactly one shaper.  The kernel has no netem:
# no delay is added; the latency is what veth + TCP + ch3:sock give.

VNET_BR=vvalbr
VNET_NS=(vval0 vval1)
VNET_IP=(10.213.77.1 10.213.77.2)
VNET_BR_IP=10.213.77.254
VNET_BURST=${VNET_BURST:-64kb}

vnet_down() {
    local ns
    for ns in "${VNET_NS[@]}"; do
        ip netns del "$ns" 2>/dev/null || true
    done
    ip link del "$VNET_BR" 2>/dev/null || true
}

vnet_up() {
    local rate=$1 dir=$2 i ns
    vnet_down
    mkdir -p "$dir"
    ip link add "$VNET_BR" type bridge
    ip addr add "$VNET_BR_IP/24" dev "$VNET_BR"
    ip link set "$VNET_BR" up
    for i in 0 1; do
        ns=${VNET_NS[$i]}
        ip netns add "$ns"
        ip link add "${ns}h" type veth peer name eth0 netns "$ns"
        ip link set "${ns}h" master "$VNET_BR" up
        ip -n "$ns" addr add "${VNET_IP[$i]}/24" dev eth0
        ip -n "$ns" link set eth0 up
        ip -n "$ns" link set lo up
        tc -n "$ns" qdisc add dev eth0 root tbf rate "$rate" burst "$VNET_BURST" latency 100ms
    done
    printf '%s:1\n%s:1\n' "${VNET_IP[0]}" "${VNET_IP[1]}" > "$dir/hosts"
    cat > "$dir/launcher" <<LAUNCHER
#!/bin/bash
# Hydra -launcher-exec: called as ssh would be, [options] HOST COMMAND...
while [[ \$# -gt 0 && \$1 == -* ]]; do shift; done
host=\$1; shift
case \$host in
    ${VNET_IP[0]}) ns=${VNET_NS[0]}; cpu=0 ;;
    ${VNET_IP[1]}) ns=${VNET_NS[1]}; cpu=1 ;;
    *) echo "launcher: unknown host '\$host'" >&2; exit 1 ;;
esac
exec ip netns exec "\$ns" env MPICH_INTERFACE_HOSTNAME="\$host" taskset -c "\$cpu" sh -c "\$*"
LAUNCHER
    chmod +x "$dir/launcher"
    # mpiexec options for a 2-rank job, one rank per namespace
    VNET_MPIEXEC_ARGS=(-f "$dir/hosts" -launcher ssh -launcher-exec "$dir/launcher" -iface "$VNET_BR")
}
