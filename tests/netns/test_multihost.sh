#!/usr/bin/env bash
# A prediction across several host nodes: 3 network namespaces on a bridge
# (tests/netns/lib.sh), Hydra over the "ssh" launcher vaced/tools/netns-launcher,
# 12 ranks, 4 per host. The prediction must not depend on where the ranks
# ran: it must equal the single-host run's (and the closed form) within 2%.
# Same-host peers connect by Unix sockets carrying shared-memory rings,
# the others by TCP (patches 0013, 0014). Also checks that the namespaces are always removed (error, signal,
# SIGKILL leftovers), the launcher's contract and the rank placement.
# Needs root. Ends with "N passed, M failed"; exits non-zero if any failed.
# 10-15 s.
#
#   tests/netns/test_multihost.sh [ROOT]
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
HERE=$ROOT/tests/netns
BIN=$ROOT/build/tests/netns
VACED_BIN=$ROOT/install/vaced/bin
LAUNCHER=$ROOT/vaced/tools/netns-launcher
SLOW=$ROOT/tests/mpi/slow-net.topo
TOL=0.02
# shellcheck source=../tools/check.sh
source "$ROOT/tests/tools/check.sh"
# one execution a vaced run (the default is two) unless a check asks for more
export VACED_REPEAT=1

if [ "$(id -u)" -ne 0 ]; then
    fail "needs root (network namespaces)"
    finish
fi
for f in "$VACED_BIN/mpicc" "$VACED_BIN/mpiexec"; do
    [ -x "$f" ] || { fail "$f missing: run ./build.sh"; finish; }
done

mkdir -p "$BIN"
for p in ring collectives sockfamily; do
    if [ ! -x "$BIN/$p" ] || [ "$ROOT/tests/mpi/$p.c" -nt "$BIN/$p" ] || [ "$VACED_BIN/mpicc" -nt "$BIN/$p" ]; then
        "$VACED_BIN/mpicc" -O2 -o "$BIN/$p" "$ROOT/tests/mpi/$p.c"
    fi
done

# field KEY TEXT: the value of KEY=VALUE in TEXT (last occurrence)
field() { grep -oE "(^| )$1=[^ ]+" <<<"$2" | tail -n 1 | sed 's/.*=//'; }
json_prediction() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["prediction_s"])' "$1"; }
# near NAME GOT WANT [TOL]: |GOT/WANT - 1| <= TOL
near() {
    local name=$1 got=$2 want=$3 tol=${4:-$TOL} line
    if [ -z "$got" ] || [ -z "$want" ]; then
        fail "$name: no value (got '$got', want '$want')"
        return 0
    fi
    line=$(python3 -c 'import sys
g, w, t = map(float, sys.argv[1:4])
e = g / w - 1
print(("ok" if abs(e) <= t else "bad") + f" {g * 1e6:.3f} us vs {w * 1e6:.3f} us, {e * 100:+.2f}%")' "$got" "$want" "$tol")
    if [ "${line%% *}" = ok ]; then ok "$name (${line#* })"; else fail "$name (${line#* })"; fi
}

# --- 1. cleanup always happens (runs in child shells, before our hosts) ----
nsleft() { ip netns list 2>/dev/null | awk '{print $1}' | grep -cE '^vaced-h[0-9]+$' || true; }
linksleft() { ip -o link show 2>/dev/null | grep -cE ': vaced-h(br|[0-9]+-(br|ns))[@:]' || true; }
# running PID: "yes" while PID runs (a zombie waiting to be reaped has ended)
running() {
    local st
    st=$(awk '{print $3}' "/proc/$1/stat" 2>/dev/null || true)
    if [ -n "$st" ] && [ "$st" != Z ] && [ "$st" != X ]; then echo yes; else echo no; fi
}
# (SIGINT reset to its default: a shell started with it ignored, as
# background jobs without job control are, could not trap it)
child() { env --default-signal=INT bash -c "set -euo pipefail; source '$HERE/lib.sh'; $1"; }

st=0
child 'netns_setup 2; false' >/dev/null 2>&1 || st=$?
check_run "a failing script (set -e) leaves no namespace or link" test "$st" -ne 0 -a "$(nsleft)" -eq 0 -a "$(linksleft)" -eq 0
st=0
child 'netns_setup 2; kill -TERM $$; sleep 5' >/dev/null 2>&1 || st=$?
check_run "SIGTERM: namespaces removed, status 143" test "$st" -eq 143 -a "$(nsleft)" -eq 0 -a "$(linksleft)" -eq 0
st=0
child 'netns_setup 2; kill -INT $$; sleep 5' >/dev/null 2>&1 || st=$?
check_run "SIGINT: namespaces removed, status 130" test "$st" -eq 130 -a "$(nsleft)" -eq 0 -a "$(linksleft)" -eq 0
# SIGKILL cannot be trapped: the hosts stay, with a process inside, until
# the next setup removes them
child "netns_setup 2; ip netns exec vaced-h1 sleep 300 & echo \$! >'$TMP/orphan'; sleep 0.5; kill -KILL \$\$" >/dev/null 2>&1 || true
orphan=$(cat "$TMP/orphan")
check_run "SIGKILL leaves the hosts and a process inside (as expected)" test "$(nsleft)" -eq 2 -a -n "$orphan"
child 'netns_setup 1; true' >/dev/null 2>&1 || true
check_run "the next setup removes the leftovers and ends the process inside" \
    test "$(nsleft)" -eq 0 -a "$(linksleft)" -eq 0 -a -n "$orphan" -a "$(running "$orphan")" = no

# --- 2. three hosts, 4 ranks each ----------------------------------------
source "$HERE/lib.sh"
netns_on_cleanup 'rm -rf "$TMP"'
netns_setup 3
# the shipped example hostfile, which must name exactly these hosts
HOSTS=$ROOT/hostfiles/netns-3.txt
netns_hostfile "$TMP/hosts" 4
check_run "hostfiles/netns-3.txt lists the three hosts, 4 cores each" \
    test "$(grep -v '^#' "$HOSTS")" = "$(cat "$TMP/hosts")"
check_run "three hosts up: namespaces, bridge ports" test "$(nsleft)" -eq 3 -a "$(linksleft)" -eq 4
unset MPICH_INTERFACE_HOSTNAME || true

# the launcher's contract: ssh options skipped, host by name or IP, user@
# dropped, the command run by sh -c in the namespace with its address
probe='echo "$MPICH_INTERFACE_HOSTNAME $(ip -o -4 addr show vnet0 | awk "{print \$4}")"'
a1=$(netns_addr 1)
check_run "launcher: -x HOST CMD runs CMD in HOST's namespace with its address" \
    test "$("$LAUNCHER" -x vaced-h1 "$probe" 2>&1)" = "$a1 $a1/24"
check_run "launcher: ssh options with values (separate, attached, combined) are skipped" \
    test "$("$LAUNCHER" -o BatchMode=yes -p 22 -oStrictHostKeyChecking=no -xTl root -- root@vaced-h2 "$probe" 2>&1)" = "$(netns_addr 2) $(netns_addr 2)/24"
check_run "launcher: a host given by IP address" test "$("$LAUNCHER" -x "$a1" "$probe" 2>&1)" = "$a1 $a1/24"
check_run "launcher: words are joined for sh -c, as ssh does" test "$("$LAUNCHER" vaced-h0 echo '"a  b"' c)" = "a  b c"
st=0
"$LAUNCHER" -x nosuchhost true 2>/dev/null || st=$?
check_run "launcher: an unknown host exits 255, as ssh does" test "$st" -eq 255
st=0
"$LAUNCHER" vaced-h0 'exit 7' || st=$?
check_run "launcher: the command's exit status is passed on" test "$st" -eq 7

# mpiexec runs in host 0 (the bridge has no address in the root namespace)
multi() {
    netns_exec 0 "$VACED_BIN/mpiexec" -f "$HOSTS" -launcher ssh -launcher-exec "$LAUNCHER" \
        -iface "$NETNS_IFACE" "$@"
}
single() { "$VACED_BIN/mpiexec" "$@"; }

out=$(multi -n 12 sh -c 'echo "place $PMI_RANK $MPICH_INTERFACE_HOSTNAME $(ip -o -4 addr show vnet0 | awk "{print \$4}")"' 2>&1) || true
want=""
for r in $(seq 0 11); do
    a=$(netns_addr $((r / 4)))
    want+="place $r $a $a/24"$'\n'
done
got=$(grep '^place ' <<<"$out" | sort -k2,2n)
check_run "12 ranks placed 4 per host, each advertising its host's address" test "$got" = "${want%$'\n'}"
[ "$got" = "${want%$'\n'}" ] || sed 's/^/    | /' <<<"$out" | head -n 20

# patch 0013: a rank reaches the 3 others of its host by Unix sockets and
# the 8 of the other hosts by TCP; VACED_TRANSPORT=tcp: all 11 by TCP.
# Patch 0014: each same-host connection carries two rings (6 a rank), none
# with VACED_TRANSPORT=unix.
out=$(multi -genv VACED_QUIET all -n 12 "$BIN/sockfamily" 2>&1) || true
check_run "same-host peers over Unix sockets with rings, other hosts over TCP (3, 6 and 8 a rank)" \
    grep -q '^sockfamily ranks=12 unix_min=3 unix_max=3 inet_min=8 inet_max=8 rings_min=6 rings_max=6$' <<<"$out"
out=$(multi -genv VACED_QUIET all -genv VACED_TRANSPORT unix -n 12 "$BIN/sockfamily" 2>&1) || true
check_run "VACED_TRANSPORT=unix: same-host peers over Unix sockets without rings" \
    grep -q '^sockfamily ranks=12 unix_min=3 unix_max=3 inet_min=8 inet_max=8 rings_min=0 rings_max=0$' <<<"$out"
out=$(multi -genv VACED_QUIET all -genv VACED_TRANSPORT tcp -n 12 "$BIN/sockfamily" 2>&1) || true
check_run "VACED_TRANSPORT=tcp: every peer over TCP (11 a rank)" \
    grep -q '^sockfamily ranks=12 unix_min=0 unix_max=0 inet_min=11 inet_max=11 rings_min=0 rings_max=0$' <<<"$out"
out=$(VACED_QUIET=all "$VACED_BIN/mpiexec" -n 12 "$BIN/sockfamily" 2>&1) || true
check_run "one host: every peer over Unix sockets with rings (11 and 22 a rank)" \
    grep -q '^sockfamily ranks=12 unix_min=11 unix_max=11 inet_min=0 inet_max=0 rings_min=22 rings_max=22$' <<<"$out"

# run_pair NAME ARGS...: the same 12-rank job across the hosts and on this
# host alone; sets out_m, out_s and pred_m, pred_s (the library's JSON)
run_pair() {
    local name=$1 st=0
    shift
    out_m=$(VACED_JSON=$TMP/m.json multi -genv VACED_QUIET 1 -n 12 "$@" 2>&1) || st=$?
    if [ "$st" -ne 0 ]; then
        fail "$name: run across 3 hosts failed (status $st)"
        sed 's/^/    | /' <<<"$out_m" | tail -n 20
        return 1
    fi
    out_s=$(VACED_JSON=$TMP/s.json VACED_QUIET=1 single -n 12 "$@" 2>&1) || st=$?
    if [ "$st" -ne 0 ]; then
        fail "$name: run on one host failed (status $st)"
        sed 's/^/    | /' <<<"$out_s" | tail -n 20
        return 1
    fi
    pred_m=$(json_prediction "$TMP/m.json")
    pred_s=$(json_prediction "$TMP/s.json")
    echo "     $name: prediction $pred_m s across 3 hosts, $pred_s s on one host"
}

# closed form of a ring lap on slow-net (tests/mpi/test_predictions.py):
# P eager one-way messages, 2 hops: 2 s/Bmem + s/Bnet + l0 + 2 lh
ring_lap() { python3 -c 'import sys; p, s = map(int, sys.argv[1:]); print(p * (2 * s / 6.38e9 + s / 100e6 + 500e-6 + 2 * 10e-6))' "$@"; }
ring_lap_rndv() { python3 -c 'import sys; p, s = map(int, sys.argv[1:]); l = 500e-6 + 2 * 10e-6; print(p * (3 * l + 2 * s / 6.38e9 + s / 100e6))' "$@"; }

export VACED_TARGET=$SLOW
if run_pair "ring 1000 B" "$BIN/ring" 1000 100; then
    near "ring 12 ranks 1000 B (eager): prediction across 3 hosts = one host" "$pred_m" "$pred_s"
    near "ring 12 ranks 1000 B: lap time across 3 hosts = one host" "$(field lap_s "$out_m")" "$(field lap_s "$out_s")"
    near "ring 12 ranks 1000 B: lap time across 3 hosts = closed form" "$(field lap_s "$out_m")" "$(ring_lap 12 1000)"
fi
if run_pair "ring 200000 B" "$BIN/ring" 200000 10; then
    near "ring 12 ranks 200000 B (rendezvous): prediction across 3 hosts = one host" "$pred_m" "$pred_s"
    near "ring 12 ranks 200000 B: lap time across 3 hosts = closed form" "$(field lap_s "$out_m")" "$(ring_lap_rndv 12 200000)"
    # host conditions must not leak into target time: the host links slowed
    # to 20 Mbit/s (a 200 kB message now takes 80 ms on the host)
    unshaped=$pred_m
    for i in 0 1 2; do netns_shape "$i" 20mbit; done
    if run_pair "ring 200000 B, host links at 20 Mbit/s" "$BIN/ring" 200000 10; then
        near "ring 12 ranks 200000 B: host links slowed by tc tbf to 20 Mbit/s, same prediction" \
            "$pred_m" "$unshaped"
    fi
    for i in 0 1 2; do
        ip netns exec "${NETNS_PREFIX}$i" tc qdisc del dev "$NETNS_IFACE" root 2>/dev/null || true
        tc qdisc del dev "${NETNS_PREFIX}$i-br" root 2>/dev/null || true
    done
fi
unset VACED_TARGET
# the target passed with -genv instead of the environment
if run_pair "collectives" -genv VACED_TARGET "$SLOW" "$BIN/collectives" 1024 5; then
    check_run "collectives 12 ranks across 3 hosts: results right" grep -q 'result=ok' <<<"$out_m"
    # these times include computation, which host load only lengthens: a
    # pair with any figure apart runs once more, and each figure keeps the
    # smaller of its two values on each side
    m_all=$pred_m m_ar=$(field allreduce_s "$out_m") m_a2a=$(field alltoall_s "$out_m")
    s_all=$pred_s s_ar=$(field allreduce_s "$out_s") s_a2a=$(field alltoall_s "$out_s")
    apart() { python3 -c 'import sys; v = list(map(float, sys.argv[2:])); t = float(sys.argv[1])
sys.exit(0 if any(abs(v[i] / v[i + 1] - 1) > t for i in range(0, len(v), 2)) else 1)' "$TOL" "$@"; }
    smaller() { python3 -c 'import sys; print(min(map(float, sys.argv[1:])))' "$@"; }
    if apart "$m_all" "$s_all" "$m_ar" "$s_ar" "$m_a2a" "$s_a2a" 2>/dev/null &&
        run_pair "collectives (again)" -genv VACED_TARGET "$SLOW" "$BIN/collectives" 1024 5; then
        m_all=$(smaller "$m_all" "$pred_m") m_ar=$(smaller "$m_ar" "$(field allreduce_s "$out_m")")
        m_a2a=$(smaller "$m_a2a" "$(field alltoall_s "$out_m")")
        s_all=$(smaller "$s_all" "$pred_s") s_ar=$(smaller "$s_ar" "$(field allreduce_s "$out_s")")
        s_a2a=$(smaller "$s_a2a" "$(field alltoall_s "$out_s")")
    fi
    near "collectives 12 ranks: prediction across 3 hosts = one host" "$m_all" "$s_all"
    near "collectives: MPI_Allreduce time across 3 hosts = one host" "$m_ar" "$s_ar"
    near "collectives: MPI_Alltoall time across 3 hosts = one host" "$m_a2a" "$s_a2a"
fi

# the vaced front end with --hostfile, the launcher given through Hydra's
# environment variables (HYDRA_LAUNCHER, HYDRA_LAUNCHER_EXEC, HYDRA_IFACE)
st=0
out=$(netns_exec 0 env HYDRA_LAUNCHER=ssh HYDRA_LAUNCHER_EXEC="$LAUNCHER" HYDRA_IFACE="$NETNS_IFACE" \
      "$ROOT/vaced/tools/vaced" run -n 12 --target "$SLOW" --hostfile "$HOSTS" --quiet \
      --json "$TMP/f.json" -- "$BIN/ring" 1000 100 2>&1) || st=$?
if [ "$st" -eq 0 ] && [ -f "$TMP/f.json" ]; then
    near "vaced run --hostfile across 3 hosts = one-host ring prediction" "$(json_prediction "$TMP/f.json")" \
        "$(VACED_TARGET=$SLOW VACED_JSON=$TMP/s2.json VACED_QUIET=all single -n 12 "$BIN/ring" 1000 100 >/dev/null 2>&1 &&
           json_prediction "$TMP/s2.json")"
else
    fail "vaced run --hostfile across 3 hosts (status $st)"
    sed 's/^/    | /' <<<"$out" | tail -n 20
fi

netns_cleanup
check_run "cleanup removes the hosts and the bridge" test "$(nsleft)" -eq 0 -a "$(linksleft)" -eq 0
finish
