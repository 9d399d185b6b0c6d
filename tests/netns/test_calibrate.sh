#!/usr/bin/env bash
# Calibration against links whose answer is known: host nodes (network
# namespaces, tests/netns/lib.sh) whose links a tc token-bucket filter
# shapes to 500 Mbit/s (62.5 MB/s on the wire). vaced/tools/vaced-calibrate
# runs its ping-pong and streaming test across them with unpatched MPICH.
#
# 1. One hop distance: 2 hosts on one switch. The fitted Bnet must be
#    within 10% of the emulated payload rate (the rate less the TCP/IP and
#    Ethernet headers of a full frame), the fitted l(1) must reproduce the
#    measured small-message ping-pong within 10%, lh must be reported and
#    written as not fitted, and the written target must make VACED predict
#    the measured ping-pong.
# 2. Two hop distances: hosts 0 and 1 on one switch, host 2 on a second
#    switch behind a router namespace (--hierarchy 2 --hops "0 1 2"). The
#    fitted l0 and lh must reproduce the measured small-message ping-pong
#    at both distances within 10%, Bnet the payload rate within 10%, and
#    VACED on the written target the measured ping-pong at both distances.
#
# Needs root. Ends with "N passed, M failed"; exits non-zero if any failed.
# About 60 s (25 s + 30 s of calibration).
#
#   tests/netns/test_calibrate.sh [ROOT]
#
# The emulated link: tbf rate 500mbit, burst 4600 bytes (3 frames of 1514
# bytes), latency 50 ms. A bucket of one frame is the closest to a real
# link, but then every frame waits for the qdisc's timer, and the timer's
# lateness (several us on this loaded VM) is lost: the link ran at 51 MB/s,
# 82% of the rate. Three frames absorb that lateness (stream 59.7 MB/s =
# 62.5 MB/s x 1448/1514, the TCP/IP/Ethernet header share of a full frame).
# The price: after an idle gap the bucket passes its 4600 bytes at once, so
# messages from a few hundred bytes to about 100 KB arrive up to 74 us
# (4600 B / 62.5 MB/s) earlier than on a link that serialises every byte.
# That is the emulator, not the machine being calibrated, so this test fits
# sizes on either side of it: 0-32 B (the latency) and 256 KiB-4 MiB (the
# bandwidth). tc has no netem here, so no delay is added: the latency is
# this host's TCP and MPICH path (about 10 us one way).
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
HERE=$ROOT/tests/netns
BIN=$ROOT/build/tests/netns
CAL=$ROOT/vaced/tools/vaced-calibrate
LAUNCHER=$ROOT/vaced/tools/netns-launcher
RATE_MBIT=500
RATE_BPS=$((RATE_MBIT * 1000000 / 8))
SIZES=0,8,16,32,262144,1048576,4194304
# the ping-pong calibrations: shorter and more batches (see calibrate and
# two_distances); two distances leave out 4 MiB
SIZES2=0,8,16,32,262144,1048576
BATCHES2=(--batch-time 0.005 --batches 60)
SMALL_MAX=32
# shellcheck source=../tools/check.sh
source "$ROOT/tests/tools/check.sh"
if [ "$(id -u)" -ne 0 ]; then
    fail "needs root (network namespaces)"
    finish
fi
for f in "$ROOT/install/vanilla/bin/mpicc" "$ROOT/install/vaced/bin/mpicc"; do
    [ -x "$f" ] || { fail "$f missing: run ./build.sh"; finish; }
done

mkdir -p "$BIN"
for src in tests/mpi/pingpong.c vaced/tools/vaced-calib-bench.c; do
    exe=$BIN/$(basename "$src" .c)
    if [ ! -x "$exe" ] || [ "$ROOT/$src" -nt "$exe" ]; then
        "$ROOT/install/vaced/bin/mpicc" -O2 -o "$exe" "$ROOT/$src" 2>"$TMP/cc.log" || cat "$TMP/cc.log"
    fi
done

# expect NAME STATUS REGEX CMD...: exit status and output
expect() {
    local name=$1 want=$2 regex=$3 st=0 out
    shift 3
    out=$("$@" 2>&1) || st=$?
    if [ "$st" -eq "$want" ] && grep -qE -- "$regex" <<<"$out"; then
        ok "$name"
    else
        fail "$name (status $st, expected $want; output not /$regex/?)"
        sed 's/^/    | /' <<<"$out" | head -n 10
    fi
}

# --- usage errors: nothing is run ----------------------------------------
touch "$TMP/exists.topo"
printf 'onlyhost:4\n' >"$TMP/one-host"
expect "existing output without --force is refused" 1 'exists: give --force' \
    "$CAL" --output "$TMP/exists.topo"
expect "a hostfile of one host is refused" 1 'needs at least two hosts' \
    "$CAL" --hostfile "$TMP/one-host" --output "$TMP/x.topo"
expect "--pattern takes pingpong or exchange" 2 'invalid choice' "$CAL" --pattern bibw --output "$TMP/x.topo"
expect "--gap-us needs --pattern exchange" 2 'needs --pattern exchange' "$CAL" --gap-us 100 --output "$TMP/x.topo"
expect "--hops 0 is a usage error" 2 'hops must be between' "$CAL" --hops 0 --output "$TMP/x.topo"
expect "a bad time for --latency-per-hop" 2 'expected a time' "$CAL" --latency-per-hop 3 --output "$TMP/x.topo"
expect "a --hops list needs --hierarchy's levels" 2 'needs 2 values' \
    "$CAL" --hops "0 1 2" --output "$TMP/x.topo"
expect "a --hops list starts with 0" 2 'starts with 0' "$CAL" --hops "1 2 3" --hierarchy 2 --output "$TMP/x.topo"
expect "a --hops list does not decrease" 2 'non-decreasing' "$CAL" --hops "0 3 2" --hierarchy 2 --output "$TMP/x.topo"

# --- emulated hosts ----------------------------------------------------------
source "$HERE/lib.sh"
netns_on_cleanup 'rm -rf "$TMP"'
NETNS_BURST=4600
MPIEXEC_ARGS="-launcher ssh -launcher-exec $LAUNCHER -iface $NETNS_IFACE"

# calibrate NAME ARGS...: vaced-calibrate from host 0 with the test's
# sizes; writes $TMP/NAME.{topo,json,out}; returns the tool's status.
# Fitted to each size's fastest batch (--statistic min): in a guest a
# small-message batch runs either with the ranks awake or with each
# waiting rank asleep (several times longer), whole batches at a time
# (the hypervisor's idle polling), so the p10 of 21 batches fell on
# either mode size by size; the fastest batch is the link and MPICH's
# path, which this test checks.  The ping-pong calibrations take 60
# batches of 5 ms: with 21 of 20 ms even the fastest batch of a size was
# sometimes in the slow mode.  In the background with wait, so that
# SIGTERM or SIGINT runs the cleanup trap at once (bash defers a trap
# until a foreground command ends); the cleanup ends the tool and its
# ranks, which run inside the namespaces.
calibrate() {
    local name=$1 st=0 start=$SECONDS pid
    shift
    rm -f "$TMP/$name.topo" "$TMP/$name.json"  # an earlier attempt's
    netns_exec 0 "$CAL" --hostfile "$TMP/hosts" --name "$name" --output "$TMP/$name.topo" \
        --sizes "$SIZES" --stream-sizes 1048576,4194304 --batch-time 0.02 --batches 21 --stream-batches 7 \
        --statistic min \
        --json "$TMP/$name.json" --mpiexec-args "$MPIEXEC_ARGS" "$@" >"$TMP/$name.out" 2>&1 &
    pid=$!
    wait "$pid" || st=$?
    sed 's/^/    | /' "$TMP/$name.out"
    echo "     (calibration took $((SECONDS - start)) s)"
    return "$st"
}

# again_if_missed ATTEMPT VERDICTS: true (calibrate again) when an
# attempt before the third holds a miss: host noise (other jobs, the
# hypervisor's steal) only slows a measurement, and on a busy CI machine
# two attempts in a row missed (the judged one: a 0 B ping-pong of 15.5 us
# where the fit gave 12.8 us); the last attempt made is judged
again_if_missed() {
    [ "$1" -lt 3 ] && grep -q '^FAIL' <<<"$2" || return 1
    echo "     (a check missed: calibrating once more, in case host noise slowed the measurement)"
}

# verdicts TEXT: its "ok ..." and "FAIL ..." lines count as passed / failed
verdicts() {
    local line
    while IFS= read -r line; do
        case $line in
            "ok "*) ok "${line#ok }" ;;
            "FAIL "*) fail "${line#FAIL }" ;;
        esac
    done <<<"$1"
}

# predict TOPO BYTES MEASURED_S WHAT: VACED's ping-pong between ranks 0
# and 1 on the written target, run on this host: one way must equal
# MEASURED_S, unpatched MPICH's fastest batch across the emulated link, within 10%.
# Like the calibration's batches, it is timed after a new connection's
# warm-up (10 untimed round trips: net_warmup_messages is 8 per direction),
# which would otherwise lengthen its first 8 messages of 64 KiB or more
# (by milliseconds each at 1 MiB: more than the 10 % over 20 round trips)
predict() {
    local topo=$1 s=$2 measured=$3 what=$4 out rt line try
    # A prediction holds the host's computation between the calls, which
    # host noise only lengthens: a miss runs again, up to 3 times, and the
    # smallest round trip is judged (as the MPI tests do)
    for try in 1 2 3; do
        out=$(VACED_TARGET=$topo VACED_QUIET=all "$ROOT/install/vaced/bin/mpiexec" -n 2 \
              "$BIN/pingpong" "$s" "$([ "$s" -eq 0 ] && echo 2000 || echo 20)" 10 2>&1) || true
        rt=$(python3 -c 'import sys; print(min(float(x) for x in sys.argv[1:] if x))' "${rt:-}" \
             "$(grep -oE 'roundtrip_s=[0-9.e+-]+' <<<"$out" | cut -d= -f2)" 2>/dev/null) || rt=
        line=$(python3 -c 'import sys
p, m = float(sys.argv[1]) / 2, float(sys.argv[2])
e = p / m - 1
print(("ok" if abs(e) <= 0.10 else "bad") + f" predicted {p * 1e6:.3f} us, measured {m * 1e6:.3f} us, {e * 100:+.1f}%")' \
            "${rt:-nan}" "${measured:-nan}" 2>/dev/null || echo "bad no value")
        [ "${line%% *}" = ok ] && break
    done
    if [ "${line%% *}" = ok ]; then
        ok "VACED on the calibrated target: $what = measured within 10% (${line#* })"
    else
        fail "VACED on the calibrated target: $what = measured within 10% (${line#* })"
    fi
}

# stream_verdict NAME: a window of messages takes turns on the link
# (injection_queue): VACED's stream of 1 MiB messages on NAME.topo moves at
# the calibration's measured streaming bandwidth at that size, within 10%
# (an "ok"/"FAIL" line; judged with the calibration's other checks, so a
# real stream slowed by host noise is measured again)
stream_verdict() {
    local pred meas
    pred=$(VACED_TARGET=$1.topo VACED_QUIET=all "$ROOT/install/vaced/bin/mpiexec" -n 2 \
           "$BIN/vaced-calib-bench" -b 3 stream 1048576 2>&1 | grep -oE 'max_Bps=[0-9.e+-]+' | cut -d= -f2) || true
    meas=$(python3 -c 'import json, sys
d = json.load(open(sys.argv[1]))
print([r for r in d["network"]["stream"] if r["size"] == 1048576][0]["max_Bps"])' "$1.json")
    if python3 -c 'import sys; p, m = float(sys.argv[1]), float(sys.argv[2]); sys.exit(abs(p / m - 1) > 0.10)' \
        "${pred:-nan}" "$meas" 2>/dev/null; then
        echo "ok VACED on the calibrated target: a stream of 1 MiB messages at ${pred} B/s, measured ${meas} B/s, within 10%"
    else
        echo "FAIL VACED on the calibrated target: a stream of 1 MiB messages at ${pred:-no value} B/s, measured ${meas} B/s, within 10%"
    fi
}

# --- one hop distance: 2 hosts on one switch -------------------------------
one_distance() {
    local st=0 v s attempt
    netns_setup 2 "${RATE_MBIT}mbit"
    netns_hostfile "$TMP/hosts" 1
    check_run "tbf shapes both directions of both links" test "$( (netns_exec 0 tc qdisc show dev "$NETNS_IFACE";
        netns_exec 1 tc qdisc show dev "$NETNS_IFACE"; tc qdisc show dev vaced-h0-br; tc qdisc show dev vaced-h1-br) |
        grep -c "tbf .*rate ${RATE_MBIT}Mbit")" -eq 4

    for attempt in 1 2 3; do
        st=0
        calibrate netns-500mbit "${BATCHES2[@]}" || st=$?
        if [ "$st" -ne 0 ] || [ ! -f "$TMP/netns-500mbit.json" ]; then
            fail "vaced-calibrate across 2 hosts (status $st)"
            return 0
        fi

        # every check below is computed from the tool's JSON
        v=$(python3 - "$TMP/netns-500mbit.json" "$RATE_BPS" "$SMALL_MAX" "$HERE" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
from small_sizes import fit_verdict, latency_verdict, small_consensus
d = json.load(open(sys.argv[1]))
rate, small_max = float(sys.argv[2]), int(sys.argv[3])
payload = rate * 1448 / 1514
def v(ok, text):
    print(("ok" if ok else "FAIL") + " " + text)
bnet = d["bnet_Bps"]
v(abs(bnet / payload - 1) <= 0.10,
  f"fitted Bnet {bnet / 1e6:.2f} MB/s within 10% of the emulated link's payload rate {payload / 1e6:.2f} MB/s "
  f"({(bnet / payload - 1) * 100:+.1f}%; {(bnet / rate - 1) * 100:+.1f}% of its rate {rate / 1e6:.1f} MB/s)")
peak = d["stream_peak_Bps"]
v(abs(peak / payload - 1) <= 0.10,
  f"streaming peak {peak / 1e6:.2f} MB/s within 10% of the emulated link's payload rate "
  f"({(peak / payload - 1) * 100:+.1f}%; {(peak / rate - 1) * 100:+.1f}% of its rate)")
fit = d["network"]["fit"]
v(*latency_verdict(fit["per_size"], small_max, f"fitted latency l = {d['latency_s'] * 1e6:.3f} us"))
v(*fit_verdict(fit, small_max, "fit quality"))
v(d["lh_s"] == 0 and abs(d["l0_s"] - d["latency_s"]) < 1e-15 and "latency_per_hop = 1 ps" in d["topo"]
  and d["lh_fitted"] is False and d["lh_status"] == "one-distance",
  "one hop distance: lh = 0 (written as 1 ps), l0 = l(1), not fitted")
line = [l for l in d["topo"].splitlines() if l.startswith("latency_per_hop")][0]
v("# lh NOT FITTED" in d["topo"] and "NOT FITTED" in line,
  f"the file says lh was not fitted, in its header and on the line '{line}'")
w = d.get("warmup")
v(w is not None and w["runs"] == 5 and len(w["per_exchange_mean_s"]) == w["count"] == 24,
  "a new connection's warm-up measured: 5 fresh jobs of 24 exchanges each")
if w:
    lines = [l for l in d["topo"].splitlines() if l.startswith(("net_warmup", "bnet_warmup"))]
    if w["net_warmup"]:
        v(w["first_mean_s"] > 1.03 * w["steady_mean_s"] and w["bnet_warmup_Bps"] < bnet
          and w["net_warmup"] == 8 and len(lines) == 3 and "net_warmup_min  = 65536 B" in lines,
          f"warm-up written: the first 8 exchanges {w['first_mean_s'] * 1e3:.2f} ms against "
          f"{w['steady_mean_s'] * 1e3:.2f} ms later, so 8 messages of 64 KiB or more at "
          f"{w['bnet_warmup_Bps'] / 1e6:.2f} MB/s (Bnet {bnet / 1e6:.2f})")
        print(f"warmup {w['first_mean_s'] - w['steady_mean_s']!r}")
    else:
        v(w["first_mean_s"] <= 1.03 * w["steady_mean_s"] and not lines,
          f"no warm-up written: the first 8 exchanges {w['first_mean_s'] * 1e3:.2f} ms, "
          f"later ones {w['steady_mean_s'] * 1e3:.2f} ms")
# the sizes where the per-byte time matters (from 1 KiB; below, the latency
# check above decides)
f, qf = d.get("bnet_factors") or [], d.get("factors_fit")
shaped = [p for p in qf["per_size"] if p["size"] >= 1024] if qf else []
worst = max(shaped, key=lambda p: abs(p["rel_error"]), default={"size": 0, "rel_error": 1})
v(f and {1024, 2048, 4096, 8192, 16384} <= {p["size"] for p in shaped} and abs(worst["rel_error"]) <= 0.10
  and any(l.startswith("bnet_factors    = ") for l in d["topo"].splitlines()),
  f"bnet_factors written at {len(f)} sizes ({', '.join(f'{s}:{x:.3g}' for s, x in f)}); with them the "
  f"model meets the {len(shaped)} measured sizes from 1 KiB within 10% (worst {worst['size']} B "
  f"{worst['rel_error'] * 100:+.1f}%)")
# VACED's small-message prediction is judged against the same median
print(f"measured 0 {small_consensus(fit['per_size'], small_max)[0]!r}")
for p in (qf or fit)["per_size"]:
    if p["size"] in (8192, 1048576):
        print(f"measured {p['size']} {p['measured_s']!r}")
PY
)
        v+=$'\n'$(stream_verdict "$TMP/netns-500mbit")
        again_if_missed "$attempt" "$v" || break
    done
    ok "vaced-calibrate across 2 hosts"
    verdicts "$v"
    check_run "the report says lh was not fitted" grep -q "lh: NOT FITTED" "$TMP/netns-500mbit.out"
    expect "the written target loads (vaced check-target)" 0 'netns-500mbit' \
        "$ROOT/vaced/tools/vaced" check-target "$TMP/netns-500mbit.topo" -n 2

    # the calibrated target predicts the measured machine: VACED's
    # ping-pong on the written target (its 2 nodes, 1 core each), run on
    # this host (the same runs as the fit, so within 10%; 0 B against the
    # median of the small sizes, as the latency check)
    for s in 0 8192 1048576; do
        predict "$TMP/netns-500mbit.topo" "$s" \
            "$(awk -v s="$s" '$1 == "measured" && $2 == s {print $3}' <<<"$v")" "ping-pong $s B one way"
    done

    # the warm-up as written: VACED's first 8 exchanges of a new connection
    # exceed its later ones by what the calibration measured
    local excess
    excess=$(awk '$1 == "warmup" {print $2}' <<<"$v")
    if [ -n "$excess" ]; then
        local line
        line=$(VACED_TARGET=$TMP/netns-500mbit.topo VACED_QUIET=all "$ROOT/install/vaced/bin/mpiexec" -n 2 \
               "$BIN/vaced-calib-bench" warmup 1048576 24 2>&1 | grep '^warmup ') || true
        local msg st=0
        msg=$(python3 - "${line#*times_s=}" "$excess" <<'PY'
import sys
try:
    t = [float(x) for x in sys.argv[1].split(",")]
except ValueError:
    print("no times from VACED's run")
    sys.exit(1)
want = float(sys.argv[2])
got = sum(t[:8]) / 8 - sum(t[12:]) / 12
print(f"a new connection's first 8 exchanges of 1 MiB take {got * 1e3:.3f} ms longer than "
      f"later ones, measured {want * 1e3:.3f} ms (within 2%)")
sys.exit(len(t) != 24 or abs(got / want - 1) > 0.02)
PY
) || st=$?
        if [ "$st" -eq 0 ]; then ok "VACED on the calibrated target: $msg"; else fail "VACED on the calibrated target: $msg"; fi
    fi

    check_run "across hosts the file says injection_queue = yes" grep -q '^injection_queue = yes$' "$TMP/netns-500mbit.topo"

    # --pattern exchange: the network fitted to both ranks sending at once,
    # each exchange after 2 ms of computation (--gap-us); per direction that
    # cannot beat the ping-pong's one way
    st=0
    calibrate netns-500mbit-exchange --pattern exchange --gap-us 2000 --no-overheads \
        --sizes 0,65536,1048576 || st=$?
    if [ "$st" -ne 0 ] || [ ! -f "$TMP/netns-500mbit-exchange.json" ]; then
        fail "vaced-calibrate --pattern exchange (status $st)"
        return 0
    fi
    verdicts "$(python3 - "$TMP/netns-500mbit-exchange.json" \
        "$(awk '$1 == "measured" && $2 == 1048576 {print $3}' <<<"$v")" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pp = float(sys.argv[2])
def v(ok, text):
    print(("ok" if ok else "FAIL") + " " + text)
v(d.get("network_pattern") == "exchange" and "across hosts an exchange" in d["topo"],
  "--pattern exchange: recorded in the JSON and the file's header")
v(d.get("network_gap_us") == 2000 and "after 2000 us of computation each, --gap-us" in d["topo"],
  "--gap-us: recorded in the JSON and the file's header")
ex = [p for p in d["network"]["fit"]["per_size"] if p["size"] == 1048576][0]["measured_s"]
v(ex >= 0.97 * pp, f"a 1 MiB exchange per direction ({ex * 1e6:.1f} us) is no faster than the "
  f"ping-pong's one way ({pp * 1e6:.1f} us)")
PY
)"
}

# --- two hop distances: a second switch behind a router ---------------------
# Hosts 0 and 1 on one bridge, host 2 on a second bridge joined to the
# first by a router namespace (netns_setup_segments "2 1"): h0-h1 cross a
# switch, h0-h2 also an IP forwarding step. The target says so with
# "hierarchy = 2" (2 nodes per switch) and "hops = 0 1 2". All host links
# are shaped as above (the router's are not), so both paths have the same
# bandwidth and differ in latency by the real cost of forwarding (no
# netem: about 1 us here).
# The batches are shorter and more (60 of 5 ms, not 21 of 20 ms) and 4 MiB
# is left out, which keeps the time: with other jobs running beside it
# in bursts, 21 windows per size were too few, and the p10 of sizes that
# cost the same (0, 8, 16 B) differed by up to 40% in one run; with 60-100
# shorter windows, by under 3% (8 runs of each under an on/off busy loop).
two_distances() {
    local st=0 v rx i attempt
    netns_setup_segments "2 1" "${RATE_MBIT}mbit"
    netns_hostfile "$TMP/hosts" 1
    check_run "routed setup: h0 reaches h2 via the router, h1 directly" \
        test "$(netns_exec 0 ip route get "$(netns_addr 2)" | grep -c ' via ') $(netns_exec 0 ip route get "$(netns_addr 1)" | grep -c ' via ' || true)" = "1 0"
    # the TTL of datagrams arriving at h0: 64 from h1, 63 from h2 (one
    # forwarding step more)
    netns_exec 0 python3 -c '
import socket, sys
s = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
s.setsockopt(socket.IPPROTO_IP, getattr(socket, "IP_RECVTTL", 12), 1)  # 12: Linux, not in Python 3.11
s.bind((sys.argv[1], 47123))
s.settimeout(10)
out = {}
while len(out) < 2:
    data, anc, _, addr = s.recvmsg(64, 64)
    out[addr[0]] = [int.from_bytes(c[2][:4], sys.byteorder) for c in anc if c[1] == socket.IP_TTL][0]
print(" ".join(f"{a}={t}" for a, t in sorted(out.items())))' "$(netns_addr 0)" >"$TMP/ttl" 2>&1 &
    rx=$!
    sleep 0.5
    for i in 1 2; do
        netns_exec "$i" python3 -c 'import socket, sys
socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", (sys.argv[1], 47123))' "$(netns_addr 0)" || true
    done
    wait "$rx" || true
    check_run "IP TTL at h0: 64 from h1, 63 from h2 (got: $(head -c 200 "$TMP/ttl"))" \
        test "$(cat "$TMP/ttl")" = "$(netns_addr 1)=64 $(netns_addr 2)=63"

    for attempt in 1 2 3; do
        st=0
        calibrate netns-routed --hierarchy 2 --hops "0 1 2" --sizes "$SIZES2" "${BATCHES2[@]}" || st=$?
        if [ "$st" -ne 0 ] || [ ! -f "$TMP/netns-routed.json" ]; then
            fail "vaced-calibrate across 2 hop distances (status $st)"
            return 0
        fi

        v=$(python3 - "$TMP/netns-routed.json" "$RATE_BPS" "$SMALL_MAX" "$HERE" <<'PY'
import json, sys
sys.path.insert(0, sys.argv[4])
from small_sizes import fit_verdict, latency_verdict, small_consensus
d = json.load(open(sys.argv[1]))
rate, small_max = float(sys.argv[2]), int(sys.argv[3])
def v(ok, text):
    print(("ok" if ok else "FAIL") + " " + text)
us = lambda x: f"{x * 1e6:.3f} us"
dist = d["distances"]
v([(x["hops"], x["hosts"]) for x in dist] == [(1, ["vaced-h0", "vaced-h1"]), (2, ["vaced-h0", "vaced-h2"])],
  "measured pairs: h0-h1 at 1 hop, h0-h2 at 2 hops (got " +
  ", ".join(f"{x['hosts'][0]}-{x['hosts'][1]} h={x['hops']}" for x in dist) + ")")
bnet = d["bnet_Bps"]
payload = rate * 1448 / 1514
v(abs(bnet / payload - 1) <= 0.10,
  f"fitted Bnet {bnet / 1e6:.2f} MB/s within 10% of the emulated link's payload rate {payload / 1e6:.2f} MB/s "
  f"({(bnet / payload - 1) * 100:+.1f}%)")
l0, lh, se = d["l0_s"], d["lh_s"], d["lh_se_s"]
v(d["lh_fitted"] is True and d["lh_status"] == "fitted" and l0 > 0 and lh > 0,
  f"l0 and lh fitted, both positive: l0 = {us(l0)}, lh = {us(lh)}"
  + (f" +- {us(se)}" if se else "") + f" (status {d['lh_status']})")
for x in dist:
    h, q = x["hops"], x["fit"]
    v(*latency_verdict(q["per_size"], small_max, f"h = {h}: l0 + {h} lh = {us(l0 + h * lh)}"))
    v(*fit_verdict(q, small_max, f"h = {h}: fit quality"))
    print(f"measured {h} 0 {small_consensus(q['per_size'], small_max)[0]!r}")
    for p in q["per_size"]:
        if p["size"] == 1048576:
            print(f"measured {h} {p['size']} {p['measured_s']!r}")
t = d["topo"]
v("\nhierarchy       = 2\n" in t and "\nhops            = 0 1 2\n" in t and "NOT FITTED" not in t,
  "the file has hierarchy = 2, hops = 0 1 2 and a fitted lh")
PY
)
        again_if_missed "$attempt" "$v" || break
    done
    ok "vaced-calibrate across 2 hop distances"
    verdicts "$v"
    expect "the written target loads: 1 pair of ranks at 1 hop (vaced check-target -n 3)" 0 \
        '1 hops +1 pairs' "$ROOT/vaced/tools/vaced" check-target "$TMP/netns-routed.topo" -n 3
    expect "the written target loads: 2 pairs of ranks at 2 hops (vaced check-target -n 3)" 0 \
        '2 hops +2 pairs' "$ROOT/vaced/tools/vaced" check-target "$TMP/netns-routed.topo" -n 3

    # VACED's ping-pong between nodes 0 and 1 (1 hop, block mapping) and
    # between nodes 0 and 2 (2 hops: a mapping file puts rank 1 on node 2)
    printf '0\n2\n' >"$TMP/far.map"
    sed "s|^mapping .*|mapping         = file $TMP/far.map|" "$TMP/netns-routed.topo" >"$TMP/netns-routed-far.topo"
    measured() { awk -v h="$1" -v s="$2" '$1 == "measured" && $2 == h && $3 == s {print $4}' <<<"$v"; }
    predict "$TMP/netns-routed.topo" 0 "$(measured 1 0)" "ping-pong 0 B one way at 1 hop"
    predict "$TMP/netns-routed-far.topo" 0 "$(measured 2 0)" "ping-pong 0 B one way at 2 hops"
    predict "$TMP/netns-routed-far.topo" 1048576 "$(measured 2 1048576)" "ping-pong 1048576 B one way at 2 hops"
}

one_distance
two_distances

netns_cleanup
check_run "cleanup removes the hosts, the router and the bridges" \
    test -z "$(ip netns list | grep -E '^vaced-h([0-9]+|r)( |$)' || true)$(ip -o link show | grep -E '^[0-9]+: vaced-h' || true)"
finish
