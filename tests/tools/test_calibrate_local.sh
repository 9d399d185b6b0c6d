#!/usr/bin/env bash
# vaced/tools/vaced-calibrate on the host alone (2 ranks on one node, no
# hostfile): the written target must reproduce what it measured.
#
# 1. It writes a target that loads, with bcpu (same-node transfers are the
#    CPUs' work) fitted from an exchange of the rendezvous sizes.
# 2. VACED on that target predicts the fitted model's ping-pong (with its
#    bmem_factors) and exchange of 1 MiB within 3% (with a wake-up, the
#    measured exchange within 20%: see verdicts), and the model's exchange
#    is the measured one within 20%.  A miss is calibrated again, up to 3
#    times in all, before it counts: a shared host's speed can move by
#    about that much between runs.
# 3. The model's exchange is slower than its one way by the ratio measured,
#    within 20%: without bcpu the two would be equal.  A stream of 1 MiB
#    messages (vaced-calib-bench stream, as OSU's osu_bw) is predicted at
#    Bcpu (bcpu with its factor at 1 MiB; 85-100% of it: its handshakes),
#    and within a factor 2 of the measured bandwidth: without bcpu its
#    messages would all move at once.  The stream's receiver fills 16
#    distinct buffers, colder than the exchange's one, so the measured
#    stream sits below bcpu.  bcpu_factors make the exchange model the
#    measured exchange from 1 MiB within 1% (below, the copies can set the
#    time, which no factor on Bcpu lowers): a host's exchange need not be
#    a line in the size.  Figures: results/targets-notes.md, "Same-node
#    CPU share".
# 4. --no-overheads writes the paper's model: no bcpu.
# 5. --cold-mib passes cold data (-c) to the ping-pong and the exchange;
#    --pipeline-pool-mib a pool to the pipeline's computation (-c).
# 6. bmem_factors: from 64 KiB the written model is the measured ping-pong;
#    --no-factors and --no-overheads write none (nor bcpu_factors).  The
#    overheads' factors start at C = 0, whose overheads with
#    latency_same_node and the wake-up make the ping-pong's c;
#    --no-overhead-factors writes none.
# 7. The wake-up: when the test finds one, VACED's 8 B ping-pong on the
#    written target is the ping-pong's c (its receivers asleep) and its 8 B
#    exchange the measured awake one-way time (receivers awake), each within
#    10%; no wake-up is longer than the idle time before it (wakeup_latency
#    <= wakeup_after + wakeup_ramp); --no-wakeup and --no-overheads write
#    none.  A compute spike of the host (more than about o_s + 2 us) puts
#    the exchange's ranks out of step, and an exchange out of step stays
#    so, each message finding its receiver asleep: on the target as on the
#    host, where consecutive real runs can differ by a wake-up a message
#    (results/targets-notes.md, "The receiver's wake-up").  So the exchange
#    is paced (tests/mpi/exchange.c): each round starts at a common time,
#    in step whatever the rounds before it did, and the median round of
#    the fastest of 3 runs is taken; back-to-back rounds stayed out of
#    step in every run on a noisier host.
# Ends with "N passed, M failed"; exits non-zero if any failed. About 30 s.
#
#   tests/tools/test_calibrate_local.sh [ROOT]
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
CAL=$ROOT/vaced/tools/vaced-calibrate
BIN=$ROOT/build/tests/tools
SIZES=0,8,65536,262144,1048576,4194304
# shellcheck source=check.sh
source "$ROOT/tests/tools/check.sh"

mkdir -p "$BIN"
for src in tests/mpi/pingpong.c tests/mpi/exchange.c vaced/tools/vaced-calib-bench.c; do
    p=$(basename "$src" .c)
    "$ROOT/install/vaced/bin/mpicc" -O2 -o "$BIN/$p" "$ROOT/$src" 2>"$TMP/cc.log" ||
        { cat "$TMP/cc.log"; echo "0 passed, 1 failed"; exit 1; }
done

# calibrate NAME ARGS...: writes $TMP/NAME.{topo,json,out}
calibrate() {
    local name=$1
    shift
    "$CAL" --name "$name" --output "$TMP/$name.topo" --force --json "$TMP/$name.json" \
        --sizes "$SIZES" --stream-sizes 1048576 --batch-time 0.02 --batches 11 \
        --pipeline-batches 5 "$@" >"$TMP/$name.out" 2>&1
}

# predicted NAME BYTES: VACED's one-way ping-pong and exchange time (s) and
# streaming bandwidth (B/s, vaced-calib-bench's stream) on the written
# target, "PINGPONG EXCHANGE STREAM"
predicted() {
    local topo=$TMP/$1.topo pp ex
    pp=$(VACED_TARGET=$topo VACED_QUIET=all "$ROOT/install/vaced/bin/mpiexec" -n 2 "$BIN/pingpong" "$2" 10 |
         grep -oE 'roundtrip_s=[0-9.e+-]+' | cut -d= -f2)
    ex=$(VACED_TARGET=$topo VACED_QUIET=all "$ROOT/install/vaced/bin/mpiexec" -n 2 "$BIN/exchange" plain wait "$2" 6 |
         grep -oE 'round_s=[0-9.e+-]+' | cut -d= -f2)
    st=$(VACED_TARGET=$topo VACED_QUIET=all "$ROOT/install/vaced/bin/mpiexec" -n 2 "$BIN/vaced-calib-bench" -b 3 stream "$2" |
         grep -oE 'max_Bps=[0-9.e+-]+' | cut -d= -f2)
    echo "$(python3 -c "print(${pp:-nan} / 2)") ${ex:-nan} ${st:-nan}"
}

# wake_verdicts NAME: the checks of 7., one "ok/FAIL text" line each
wake_verdicts() {
    local topo=$TMP/$1.topo pp ex
    pp=$(VACED_TARGET=$topo VACED_QUIET=all "$ROOT/install/vaced/bin/mpiexec" -n 2 "$BIN/pingpong" 8 200 |
         grep -oE 'roundtrip_s=[0-9.e+-]+' | cut -d= -f2)
    # the in-step exchange: paced rounds, the fastest of 3 runs (see 7. above)
    ex=$(for _ in 1 2 3; do
             VACED_TARGET=$topo VACED_QUIET=all "$ROOT/install/vaced/bin/mpiexec" -n 2 "$BIN/exchange" plain paced 8 50 |
                 grep -oE 'round_s=[0-9.e+-]+' | cut -d= -f2
         done | sort -g | head -n 1)
    python3 - "$TMP/$1.json" "${pp:-nan}" "${ex:-nan}" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pp, ex = float(sys.argv[2]) / 2, float(sys.argv[3])
def v(ok, text):
    print(("ok" if ok else "FAIL") + " " + text)
w = d.get("wakeup")
keys = [l for l in d["topo"].splitlines() if l.startswith("wakeup_")]
if not w or "wakeup_after_s" not in w:
    v(w is not None and not keys, f"the wake-up test ran; none written: {w and w['status']}")
    sys.exit(0)
v(len(keys) == 3 and w["wakeup_latency_s"] > 0 and w["wakeup_after_s"] > 0,
  f"wake-up written: {', '.join(keys)}")
v(w["wakeup_latency_s"] <= w["wakeup_after_s"] + w["wakeup_ramp_s"] + 1e-12 and w["wakeup_ramp_s"] >= w["ramp_s"],
  f"no wake-up longer than the idle time before it: wakeup_latency {w['wakeup_latency_s'] * 1e6:.1f} us "
  f"<= wakeup_after + wakeup_ramp {(w['wakeup_after_s'] + w['wakeup_ramp_s']) * 1e6:.1f} us (exchanges stay "
  f"in step; the ramp measured {w['ramp_s'] * 1e6:.0f} us)")
c = d["local_c_s"]
v(abs(pp / c - 1) <= 0.10, f"VACED on the written target: 8 B ping-pong one way {pp * 1e6:.1f} us, the fitted "
  f"c {c * 1e6:.1f} us, within 10% (receivers asleep)")
v(abs(ex / w["awake_s"] - 1) <= 0.10, f"VACED on the written target: 8 B exchange {ex * 1e6:.1f} us, the measured "
  f"awake one way {w['awake_s'] * 1e6:.1f} us, within 10% (receivers awake; asleep {w['asleep_s'] * 1e6:.1f} us)")
PY
}

# verdicts NAME PREDICTED: the checks of 1.-3., one "ok/FAIL text" line each
verdicts() {
    python3 - "$TMP/$1.json" $2 <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
pp_pred, ex_pred, st_pred = float(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
def v(ok, text):
    print(("ok" if ok else "FAIL") + " " + text)
bcpu = d.get("bcpu_Bps")
v(bcpu is not None and d["topo"].count("\nbcpu ") == 1 and 1e8 < bcpu < 1e12,
  f"bcpu fitted ({(bcpu or 0) / 1e9:.3f} GB/s) and written to the target")
def at(rows, key):
    return [r for r in rows if r["size"] == 1048576][0][key]
pp, ex = at(d["local"]["fit"]["per_size"], "measured_s"), at(d["local"]["exchange_fit"]["per_size"], "measured_s")
# the model as written: the line with bmem_factors
pp_fit = d.get("mem_factors_fit")
f = d.get("bmem_factors") or []
sizes = [p for p in (pp_fit or {"per_size": []})["per_size"] if p["size"] >= 65536]
worst = max(sizes, key=lambda p: abs(p["rel_error"]), default={"size": 0, "rel_error": 1})
cf = d.get("bcpu_factors") or []
ex_fit = d["local"]["exchange_fit"]["per_size"]
cpu_bound = [p for p in ex_fit if p["size"] >= 1048576]
worst_ex = max(cpu_bound, key=lambda p: abs(p["rel_error"]), default={"size": 0, "rel_error": 1})
v([s for s, _ in cf] == sorted(p["size"] for p in ex_fit) and abs(worst_ex["rel_error"]) <= 0.01
  and d["topo"].count("\nbcpu_factors    = ") == 1,
  f"bcpu_factors written ({', '.join(f'{s}:{x:.3g}' for s, x in cf)}); with them the exchange model meets "
  f"the measured exchange from 1 MiB within 1% (worst {worst_ex['size']} B {worst_ex['rel_error'] * 100:+.2f}%; "
  f"the line alone: RMS {d['local']['exchange_line_fit']['rms_rel_error'] * 100:.1f}%)")
v(pp_fit and [s for s, _ in f][-4:] == [65536, 262144, 1048576, 4194304] and abs(worst["rel_error"]) <= 0.01
  and d["topo"].count("\nbmem_factors    = ") == 1,
  f"bmem_factors written ({', '.join(f'{s}:{x:.3g}' for s, x in f)}); with them the model meets the measured "
  f"ping-pong from 64 KiB within 1% (worst {worst['size']} B {worst['rel_error'] * 100:+.2f}%)")
# with a wake-up, which of a rendezvous exchange's protocol messages find
# their receiver asleep depends on where their idle times fall on the
# ramp, which the exchange's closed form leaves out: VACED's exchange is
# then held to the measured one
wake = "wakeup_after_s" in (d.get("wakeup") or {})
for what, got, fit, tol, key in (("ping-pong one way", pp_pred, pp_fit or d["local"]["fit"], 0.03, "model_s"),
                                 ("exchange", ex_pred, d["local"]["exchange_fit"], 0.20 if wake else 0.03,
                                  "measured_s" if wake else "model_s")):
    want = at(fit["per_size"], key)
    e = got / want - 1
    v(abs(e) <= tol, f"VACED on the written target: 1 MiB {what} {got * 1e6:.1f} us, the "
      f"{'measured' if key == 'measured_s' else 'fitted model' + chr(39) + 's'} {want * 1e6:.1f} us "
      f"({e * 100:+.1f}%), within {tol * 100:.0f}%")
want = at(d["local"]["exchange_fit"]["per_size"], "model_s")
v(abs(want / ex - 1) <= 0.2, f"the fitted model's 1 MiB exchange {want * 1e6:.1f} us, measured {ex * 1e6:.1f} us "
  f"({(want / ex - 1) * 100:+.1f}%), within 20%")
st = [r for r in d["local"]["stream"] if r["size"] == 1048576][0]["max_Bps"]
if bcpu:
    # Bcpu with its factor at 1 MiB, one of the exchanged sizes
    bcpu_1m = bcpu * dict(cf).get(1048576, 1.0)
    v(0.85 * bcpu_1m <= st_pred <= 1.001 * bcpu_1m, f"VACED on the written target: a stream of 1 MiB messages at "
      f"{st_pred / 1e9:.2f} GB/s, at most Bcpu {bcpu_1m / 1e9:.2f} GB/s (bcpu with its factor at 1 MiB) "
      f"and at least 85% of it (its handshakes)")
v(st / 2 <= st_pred <= 2 * st, f"VACED on the written target: a stream of 1 MiB messages at "
  f"{st_pred / 1e9:.2f} GB/s, measured {st / 1e9:.2f} GB/s ({(st_pred / st - 1) * 100:+.0f}%), within a factor 2")
r_model, r_real = ex_pred / pp_pred, ex / pp
v(abs(r_model / r_real - 1) <= 0.2, f"1 MiB exchange / one way: VACED {r_model:.2f}, measured "
  f"{r_real:.2f}, within 20%")
PY
}

v=""
for attempt in 1 2 3; do
    if ! calibrate here; then
        fail "vaced-calibrate on this host (see below)"
        sed 's/^/    | /' "$TMP/here.out" | tail -n 20
        break
    fi
    v=$(verdicts here "$(predicted here 1048576)"; wake_verdicts here)
    grep -q '^FAIL' <<<"$v" && [ "$attempt" -lt 3 ] || break
    echo "     (a check missed: calibrating again, in case host noise slowed a measurement)"
    grep '^FAIL' <<<"$v" | sed 's/^FAIL/       missed:/'
done
if [ -n "$v" ]; then
    ok "vaced-calibrate on this host"
    while IFS= read -r line; do
        case $line in
            "ok "*) ok "${line#ok }" ;;
            *) fail "${line#FAIL }" ;;
        esac
    done <<<"$v"
    if grep -q "bcpu = " "$TMP/here.out"; then ok "the report gives bcpu"; else fail "the report gives bcpu"; fi
    # the overheads' factors: from C = 0, and the ping-pong's per-message
    # time c is its messages' overheads (C = 0) + latency_same_node + wake-up
    if python3 - "$TMP/here.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
fs, fr = r["send_overhead_factors"], r["recv_overhead_factors"]
parts = (r["send_overhead_s"] * fs[0][1] + r["recv_overhead_s"] * fr[0][1]
         + r["latency_same_node_s"] + r.get("wakeup_latency_s", 0.0))
sys.exit(not (fs[0][0] == 0 and fr[0][0] == 0 and len(fs) == len(fr) >= 2
              and abs(parts / r["local_c_s"] - 1) < 1e-6))
PY
    then
        ok "overhead factors from C = 0; o_s(0) + o_r(0) + latency_same_node + wakeup_latency = c"
    else
        fail "overhead factors from C = 0; o_s(0) + o_r(0) + latency_same_node + wakeup_latency = c"
    fi
fi

if calibrate paper --no-overheads; then
    if grep -q '^bcpu' "$TMP/paper.topo"; then
        fail "--no-overheads writes no bcpu"
    else
        ok "--no-overheads writes no bcpu"
    fi
    if grep -qE '^(bmem_factors|wakeup_)' "$TMP/paper.topo"; then
        fail "--no-overheads writes no bmem_factors and no wake-up"
    else
        ok "--no-overheads writes no bmem_factors and no wake-up"
    fi
else
    fail "vaced-calibrate --no-overheads on this host"
    sed 's/^/    | /' "$TMP/paper.out" | tail -n 20
fi

# --cold-mib: the ping-pong and the exchange rotate their data through pools;
# --pipeline-pool-mib: the pipeline computes through one
if calibrate cold --cold-mib 16 --pipeline-pool-mib 8 --no-factors --no-wakeup --no-overhead-factors; then
    if grep -q -- "-c 16 pingpong" "$TMP/cold.out" && grep -q -- "-c 16 exchange" "$TMP/cold.out" &&
        ! grep -q -- "-c 16 stream" "$TMP/cold.out"; then
        ok "--cold-mib 16 runs the ping-pong and the exchange with cold data (-c 16), not the stream"
    else
        fail "--cold-mib 16 runs the ping-pong and the exchange with cold data (-c 16), not the stream"
    fi
    if grep -q -- "-c 8 pipeline" "$TMP/cold.out" && grep -q "(writing through 8 MiB)" "$TMP/cold.topo"; then
        ok "--pipeline-pool-mib 8 runs the pipeline with -c 8 and says so in the target's header"
    else
        fail "--pipeline-pool-mib 8 runs the pipeline with -c 8 and says so in the target's header"
    fi
    if "$ROOT/vaced/tools/vaced" check-target "$TMP/cold.topo" -n 2 >/dev/null 2>&1; then
        ok "--cold-mib 16 writes a target that loads"
    else
        fail "--cold-mib 16 writes a target that loads"
    fi
    if grep -qE '^(bmem|bcpu)_factors' "$TMP/cold.topo" || ! grep -q '^bcpu ' "$TMP/cold.topo"; then
        fail "--no-factors writes no bmem_factors and no bcpu_factors (and still bcpu)"
    else
        ok "--no-factors writes no bmem_factors and no bcpu_factors (and still bcpu)"
    fi
    if grep -q '^send_overhead ' "$TMP/cold.topo" && ! grep -q '_overhead_factors' "$TMP/cold.topo"; then
        ok "--no-overhead-factors writes the overheads without their factors"
    else
        fail "--no-overhead-factors writes the overheads without their factors"
    fi
    if ! grep -q '^wakeup_' "$TMP/cold.topo" && ! grep -q 'wakeup here' "$TMP/cold.out"; then
        ok "--no-wakeup: no wake-up test, none written"
    else
        fail "--no-wakeup: no wake-up test, none written"
    fi
else
    fail "vaced-calibrate --cold-mib 16 on this host"
    sed 's/^/    | /' "$TMP/cold.out" | tail -n 20
fi
# the calibrated range and the cold large sizes
if grep -q "^calibrated_max  = 4194304 B$" "$TMP/here.topo"; then
    ok "the target says the largest size calibrated (calibrated_max, the largest of --sizes)"
else
    fail "the target says the largest size calibrated (calibrated_max, the largest of --sizes)"
fi
if grep -qE -- "-L [1-9][0-9]* pingpong" "$TMP/here.out" && ! grep -qE -- "-L [0-9]+ pingpong" "$TMP/cold.out"; then
    ok "the ping-pong gets the caches' size (-L), unless --cold-mib makes every size cold"
else
    fail "the ping-pong gets the caches' size (-L), unless --cold-mib makes every size cold"
fi
# sizes above a 4 KiB "cache" rotate through pools; each size still gives its row
rows=$("$ROOT/install/vanilla/bin/mpiexec" -n 2 "$ROOT/build/tools/vaced-calib-bench" -t 0.005 -b 2 -L 4096 pingpong 0 1024 65536 2>&1 |
       grep -cE '^pingpong size=(0|1024|65536) peer=1 ' || true)
if [ "$rows" = 3 ]; then
    ok "vaced-calib-bench -L 4096: hot and cold sizes measured side by side"
else
    fail "vaced-calib-bench -L 4096: hot and cold sizes measured side by side ($rows rows of 3)"
fi

if "$CAL" --pipeline-pool-mib -1 --output "$TMP/x.topo" >"$TMP/bad.out" 2>&1 ||
    ! grep -q "pipeline-pool-mib must be between 0 and 4096" "$TMP/bad.out"; then
    fail "--pipeline-pool-mib -1 is refused with a reason"
else
    ok "--pipeline-pool-mib -1 is refused with a reason"
fi
if "$CAL" --cold-mib 5000 --output "$TMP/x.topo" >"$TMP/bad.out" 2>&1; then
    fail "--cold-mib 5000 is refused"
elif grep -q "cold-mib must be between 0 and 4096" "$TMP/bad.out"; then
    ok "--cold-mib 5000 is refused"
else
    fail "--cold-mib 5000 is refused with a reason"
fi

finish
