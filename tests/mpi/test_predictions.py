#!/usr/bin/env python3
"""MPI integration tests of the patched MPICH (install/vaced).

Real programs, built with the installed mpicc and mpif90, run with the
installed mpiexec.  Their predictions are compared with closed forms
computed here, independently of vaced/, from the model of docs/model.md
and the paper's parameters.

Tolerances are 2%: the predictions contain, as they must, the host CPU
time spent between MPI calls.  On the 2-core test machine that is a few
hundred nanoseconds per message (cache and interrupt noise), under 1% of
every message time chosen below; the CPU-bound loop is timed by the test
itself with the same thread clock.

Usage: test_predictions.py ROOT     (prints one line per check and ends
with 'N passed, M failed'; exit status 1 when a check failed)
"""
import json
import math
import os
import platform
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
PREFIX = os.path.join(ROOT, "install", "vaced")
BIN = os.path.join(PREFIX, "bin")
OUT = os.path.join(ROOT, "build", "tests")
SRC = os.path.join(ROOT, "tests", "mpi")
TOLERANCE = 0.02

# The paper's parameters (section 5.2), also in topo/paper-*.topo.
PAPER = dict(bmem=6.38e9, bnet=4.16e9, l0=15e-6, lh=0.6e-6)
# tests/mpi/slow-net.topo
SLOW = dict(bmem=6.38e9, bnet=100e6, l0=500e-6, lh=10e-6)

passed = failed = 0


def check(name, ok, detail="", always=False):
    """Records a check; the detail is shown on failure (or always, for figures)."""
    global passed, failed
    if ok:
        passed += 1
    else:
        failed += 1
    shown = f" {detail}" if detail and (always or not ok) else ""
    print(f"{'ok  ' if ok else 'FAIL'} {name}{shown}")
    sys.stdout.flush()
    return ok


def near(name, got, want, tol=TOLERANCE, computed=0):
    """got within tol of want; above it, also by at most `computed` (the
    host's own computation on the measured path, which the model counts and
    a closed form of the network does not)."""
    if got is None:
        check(name, False, "(no measurement in the program's output)")
        return
    err = (got - want) / want if want else float("inf")
    ok = -tol * want <= got - want <= tol * want + computed
    more = f", computation {computed * 1e6:.3f} us" if computed else ""
    check(name, ok, f"(predicted {got * 1e6:.3f} us, closed form {want * 1e6:.3f} us, {err * 100:+.2f}%{more})",
          always=True)


def near_measured(name, measure, want, tol=TOLERANCE, tries=4, computed=lambda: 0):
    """near() for a prediction measured by running a program.  Host noise
    (other processes' cache and interrupt load, the hypervisor) only ever
    adds CPU time, so while a run is off, up to `tries` runs are made and
    the smallest value kept: a model that is off is off in every run
    (docs/testing.md lists the bounds).  computed(): the host's computation
    on the measured path so far, as near() takes it."""
    values = []
    for _ in range(tries):
        got = measure()
        if got is not None:
            values.append(got)
            if -tol * want <= got - want <= tol * want + computed():
                break
    near(name, min(values) if values else None, want, tol, computed())


# --- the model, written out for the tests ------------------------------------
def size_factor(pts, s):
    """bnet_factors, bmem_factors: (size, factor) points, linear in log2
    size between them, constant beyond; 1 without them."""
    if not pts:
        return 1.0
    if s <= pts[0][0]:
        return pts[0][1]
    for (s0, f0), (s1, f1) in zip(pts, pts[1:]):
        if s <= s1:
            return f0 + (math.log2(s) - math.log2(s0)) / (math.log2(s1) - math.log2(s0)) * (f1 - f0)
    return pts[-1][1]


def copy(net, s):
    return s / (net["bmem"] * size_factor(net.get("mem_factors"), s))


def latency(net, h):
    return net["l0"] + h * net["lh"]


def transfer(net, s, h):
    """L(s, h); between two ranks of one node plus the optional same-node
    latency (latency_same_node, 0 in the paper's model)."""
    if h > 0:
        return s / (net["bnet"] * size_factor(net.get("factors"), s)) + latency(net, h)
    return copy(net, s) + net.get("lnode", 0)


def overheads(net):
    """Optional per-message CPU costs, send_overhead + recv_overhead (0 in
    the paper's model): each protocol message costs its sender o_s before
    it leaves and its receiver o_r before the receive completes or the
    receiver answers."""
    return net.get("os", 0) + net.get("or", 0)


def eager_oneway(net, s, h):
    """Send copy, transfer, receive copy (eqs. 3 and 4)."""
    return 2 * copy(net, s) + transfer(net, s, h) + overheads(net)


def rndv_oneway(net, s, h):
    """REQ and ACK (header only), then the DATA from when the ACK arrives."""
    return 2 * (transfer(net, 0, h) + overheads(net)) + eager_oneway(net, s, h)


# --- running programs ---------------------------------------------------------
def build(name, src, compiler="mpicc", cc=None, flags=()):
    exe = os.path.join(OUT, name)
    cmd = [cc or os.path.join(BIN, compiler), "-O2", *flags, "-o", exe, os.path.join(SRC, src)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        check(f"build {name}", False, r.stderr[-2000:])
        return None
    return exe


# program -> [runs with a JSON, worst |sum of the breakdown's terms - total| (s), its rank and run]
BREAKDOWN_SUMS = {}


def note_breakdown(program, path):
    """Every run's JSON: do each rank's breakdown terms add up to its
    prediction?  Reported per program at the end (breakdown_sums)."""
    try:
        with open(path) as f:
            per_rank = json.load(f)["per_rank"]
    except (OSError, ValueError, KeyError):
        return
    entry = BREAKDOWN_SUMS.setdefault(os.path.basename(program), [0, 0.0, ""])
    entry[0] += 1
    for r in per_rank:
        b = r.get("breakdown")
        err = abs(sum(b.values()) - r["total_s"]) if isinstance(b, dict) and len(b) == 9 else math.inf
        if err >= entry[1]:
            entry[1], entry[2] = err, f"rank {r['rank']}: {r['total_s']:.12f} s, terms {b}"


def breakdown_sums():
    """Check (a) of the breakdown: on every program run here, each rank's terms add up to it."""
    for program, (runs, worst, where) in sorted(BREAKDOWN_SUMS.items()):
        check(f"breakdown: each rank's terms add up to its prediction within 1 ns: {program} ({runs} runs)",
              worst <= 1e-9, f"(worst {worst * 1e9:.3f} ns, {where})", always=worst > 1e-12)


def run(nprocs, argv, target="paper-16", env_extra=None, timeout=300):
    env = dict(os.environ)
    env.pop("VACED_QUIET", None)
    env.pop("VACED_JSON", None)
    env["VACED_TARGET"] = target
    env.update(env_extra or {})
    own_json = "VACED_JSON" not in env
    if own_json:
        fd, env["VACED_JSON"] = tempfile.mkstemp(suffix=".json", dir=OUT)
        os.close(fd)
    cmd = [os.path.join(BIN, "mpiexec"), "-n", str(nprocs)] + argv
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "", f"timeout after {timeout} s: {' '.join(cmd)}"
    finally:
        note_breakdown(argv[0], env["VACED_JSON"])
        if own_json:
            os.unlink(env["VACED_JSON"])
    return r.returncode, r.stdout, r.stderr


RANK_LINE = re.compile(r"^vaced: rank (\d+) of (\d+): predicted ([0-9.]+) s \(compute ([0-9.]+) s, communication ([0-9.]+) s\)$", re.M)
JOB_LINE = re.compile(r"^vaced: prediction ([0-9.]+) s on target (\S+) \((\d+) ranks;", re.M)


def field(out, key):
    m = re.search(key + r"=\s*([0-9.eE+-]+)", out)
    return float(m.group(1)) if m else None


def need(name, rc, out, err):
    ok = rc == 0
    if not ok:
        check(name, False, f"exit {rc}: {err[-1500:]}{out[-500:]}")
    return ok


# --- the tests ----------------------------------------------------------------
def computation_per_round(out, rounds):
    """The two ranks' computation per round trip, as their rank lines give
    it: the host's own time between a ping-pong's calls (the loop, the
    bindings' code outside the model's activities).  Part of it lies on
    the round trip's path, which a closed form of the network cannot know;
    all of it bounds that part, on any host."""
    computed = {int(m.group(1)): float(m.group(4)) for m in RANK_LINE.finditer(out)}
    return (computed.get(0, 0) + computed.get(1, 0)) / rounds


def ring_lap(exe, p, s, laps, env_extra=None):
    """(lap_s, every rank's computation per lap, the first run's output)
    of ring.c, or None.  A lap passes each rank once, so part of each
    rank's computation between its receive and its send lies on the lap's
    path, and all of it bounds that part; the rank lines' computation of a
    run with twice the laps, less this run's, is the laps' alone (the
    set-up cancels)."""
    got = []
    for n in (laps, 2 * laps):
        rc, out, err = run(p, [exe, str(s), str(n)], env_extra=env_extra)
        if not need(f"ring of {p} ranks, {n} laps runs", rc, out, err):
            return None
        got.append((field(out, "lap_s"), sum(float(m.group(4)) for m in RANK_LINE.finditer(out)), out))
    return got[0][0], max(0.0, (got[1][1] - got[0][1]) / laps), got[0][2]


def test_pingpong(exe, label, net, target, hops, sizes):
    for s, iters in sizes:
        slack = []

        def measure():
            rc, out, err = run(2, [exe, str(s), str(iters)], target)
            if not need(f"{label} {s} B runs", rc, out, err):
                return None
            # pingpong.c's untimed first round trip is a round too
            slack.append(computation_per_round(out, iters + 1))
            return field(out, "roundtrip_s")
        oneway = eager_oneway if s + 64 <= 131072 else rndv_oneway
        want = 2 * oneway(net, s, hops)
        # the host's computation may add up to its own length: a small
        # message's round trip is a few microseconds
        near_measured(f"{label} {s} B on {target} ({'eager' if oneway is eager_oneway else 'rendezvous'})",
                      measure, want, computed=lambda: min(slack) if slack else 0)


def paper16_variant(directory, key, line):
    """Writes paper-16.topo with the line of `key` replaced; returns the
    file's path and that line's number."""
    with open(os.path.join(ROOT, "topo", "paper-16.topo")) as f:
        lines = f.read().splitlines()
    lineno = next(i for i, l in enumerate(lines, 1) if l.split("=")[0].strip() == key)
    lines[lineno - 1] = line
    path = os.path.join(directory, f"paper-16-{key}.topo")
    with open(path, "w") as f:
        f.write("\n".join(lines) + "\n")
    return path, lineno


def test_eager_threshold(exe):
    """The target's eager threshold, not MPICH's default, picks the protocol."""
    with tempfile.TemporaryDirectory() as d:
        path, _ = paper16_variant(d, "eager_threshold", "eager_threshold = 64 KiB")
        for s, oneway in ((40000, eager_oneway), (100000, rndv_oneway)):
            def measure():
                rc, out, err = run(2, [exe, str(s), "100"], path)
                return field(out, "roundtrip_s") if need(f"small eager threshold {s} B runs", rc, out, err) else None
            near_measured(f"eager threshold 64 KiB: {s} B goes {'eager' if oneway is eager_oneway else 'rendezvous'}",
                          measure, 2 * oneway(PAPER, s, 3))


def test_warmup(exe):
    """net_warmup_messages / bnet_warmup: the first messages of each
    connection across nodes move at the slower rate.  pingpong.c's untimed
    first round trip is each direction's first of 3 warm-up messages;
    rounds 1 and 2 send the other two; the rest run warm.  With
    net_warmup_min above the message size, none of them is slowed."""
    s, iters, count, slow = 1000000, 10, 3, 1e9
    warm = 2 * rndv_oneway(PAPER, s, 3)
    want = warm + 2 * (count - 1) * s * (1 / slow - 1 / PAPER["bnet"]) / iters
    keys = [f"net_warmup_messages = {count}", "bnet_warmup = 1 GB/s"]
    with tempfile.TemporaryDirectory() as d:
        for name, extra, expect, what in [
                ("paper-16-warmup", [], want,
                 f"1 MB round trips while each connection's first 3 messages move at 1 GB/s "
                 f"({(want / warm - 1) * 100:+.0f}% over warm ones)"),
                ("paper-16-warmup-min", ["net_warmup_min = 1000001 B"], warm,
                 "1 MB round trips, warm-up for messages of 1000001 B or more only (as warm ones)")]:
            path = topo_with(d, "paper-16", name, keys + extra)
            def measure():
                rc, out, err = run(2, [exe, str(s), str(iters)], path)
                return field(out, "roundtrip_s") if need("warm-up ping-pong runs", rc, out, err) else None
            near_measured("warm-up: " + what, measure, expect)


def test_size_factors(exe):
    """bnet_factors: a message across nodes moves at Bnet times the factor
    for its size (interpolated in log size), eager and rendezvous alike; on
    one node they do not apply.  bmem_factors: Bmem's, for the copies
    everywhere and the transfer on one node."""
    net = dict(PAPER, factors=[(32768, 2.0), (1048576, 0.5)])
    with tempfile.TemporaryDirectory() as d:
        path = topo_with(d, "paper-16", "paper-16-factors", ["bnet_factors = 32768:2 1048576:0.5"])
        test_pingpong(exe, "ping-pong with bnet_factors", net, path, 3,
                      [(8192, 200), (32768, 200), (185364, 100), (1048576, 30), (4194304, 10)])
        path = topo_with(d, "paper-1024", "paper-1024-factors", ["bnet_factors = 32768:2 1048576:0.5"])
        test_pingpong(exe, "ping-pong on one node with bnet_factors", PAPER, path, 0, [(1048576, 30)])
        # bmem_factors: the copies and the same-node transfer, not the link
        mem = [(65536, 2.0), (1048576, 0.5)]
        keys = ["bmem_factors = 65536:2 1048576:0.5"]
        path = topo_with(d, "paper-1024", "paper-1024-mem-factors", keys)
        test_pingpong(exe, "ping-pong on one node with bmem_factors", dict(PAPER, mem_factors=mem), path, 0,
                      [(32768, 200), (65536, 200), (262144, 100), (1048576, 30), (4194304, 10)])
        path = topo_with(d, "paper-16", "paper-16-mem-factors", keys)
        test_pingpong(exe, "ping-pong across nodes with bmem_factors (the copies)", dict(PAPER, mem_factors=mem),
                      path, 3, [(65536, 200), (4194304, 10)])


def topo_with(directory, base, name, extra):
    """topo/BASE.topo with lines added; returns the new file's path."""
    with open(os.path.join(ROOT, "topo", f"{base}.topo")) as f:
        text = f.read()
    path = os.path.join(directory, f"{name}.topo")
    with open(path, "w") as f:
        f.write(text + "\n".join(extra) + "\n")
    return path


def test_overheads(pp, ring):
    """The optional per-message keys: send and receive overheads on every
    protocol message (one of each per eager message, three of each per
    rendezvous), and a latency between two ranks of one node."""
    net = dict(PAPER, os=4e-6, **{"or": 6e-6})
    same = dict(PAPER, os=4e-6, lnode=20e-6, **{"or": 6e-6})
    keys = ["send_overhead = 4 us", "recv_overhead = 6 us"]
    with tempfile.TemporaryDirectory() as d:
        p16 = topo_with(d, "paper-16", "paper-16-overheads", keys)
        p1024 = topo_with(d, "paper-1024", "paper-1024-overheads", keys + ["latency_same_node = 20 us"])
        zero = topo_with(d, "paper-16", "paper-16-zero", ["send_overhead = 0 us", "recv_overhead = 0 ns",
                                                          "latency_same_node = 0 s"])
        if pp:
            test_pingpong(pp, "ping-pong with overheads", net, p16, 3,
                          [(0, 200), (32768, 200), (200000, 100)])
            test_pingpong(pp, "ping-pong with overheads and a same-node latency", same, p1024, 0,
                          [(0, 200), (1048576, 30)])
            test_pingpong(pp, "ping-pong with overheads and latency_same_node set to 0", PAPER, zero, 3,
                          [(32768, 200), (200000, 100)])
        if ring:
            def measure():
                rc, out, err = run(8, [ring, "65536", "20"], p16)
                return field(out, "lap_s") if need("ring with overheads runs", rc, out, err) else None
            near_measured("ring of 8 ranks, 65536 B, with overheads", measure, 8 * eager_oneway(net, 65536, 3))


def test_overhead_factors(pp, bench):
    """send_overhead_factors: a message after C us of computation since the
    rank's last message costs o_s f(C).  The ping-pong's messages follow one
    another at once (f(0)); vaced-calib-bench's pipeline (rank 0 computes C,
    then sends 8 B to rank 1, which receives it, then computes C) is bound by
    its sender here, so its step less C is o_s f(C) (f linear in C between
    the points, 3 at 100 us and 1 at 300 us: 2 at 200 us), plus the bench's
    own CPU time between sends."""
    keys = ["send_overhead = 10 us", "recv_overhead = 2 us", "send_overhead_factors = 0:0.1 100:3 300:1"]
    with tempfile.TemporaryDirectory() as d:
        topo = topo_with(d, "paper-16", "paper-16-overhead-factors", keys)
        if pp:
            test_pingpong(pp, "ping-pong with overhead factors", dict(PAPER, os=1e-6, **{"or": 2e-6}),
                          topo, 3, [(0, 200), (32768, 200)])
        if bench:
            # the bench's own CPU time between two sends (its clock reads)
            # is computation too, the same at every C: the
            # steps' differences are the overheads' alone.  Host noise in a
            # segment lengthens C, and f rises 0.29 us per us of it: a run
            # that misses is made again (up to 4), the least difference
            # kept.  20 %: on some hosts the steps come out a microsecond
            # or two long at every C (docs/testing.md); a wrong factor
            # would be off by the whole overhead
            want, tol = {50: 15.5, 100: 30.0, 200: 20.0}, 0.2
            best = {}
            for attempt in range(4):
                rc, out, err = run(2, [bench, "-t", "0.005", "-b", "3", "pipeline", "0", "50", "100", "200"], topo)
                if not need("vaced-calib-bench pipeline with overhead factors runs", rc, out, err):
                    break
                step = {}
                for c_us in (0, 50, 100, 200):
                    m = re.search(rf"^pipeline compute_us={c_us} .* median_s=([0-9.eE+-]+)", out, re.M)
                    step[c_us] = float(m.group(1)) if m else None
                for c_us in want:
                    if None not in (step[c_us], step[0]):
                        best[c_us] = min(best.get(c_us, math.inf), step[c_us] - step[0])
                if all(c_us in best and abs(best[c_us] / ((o - 1.0) * 1e-6) - 1) <= tol for c_us, o in want.items()):
                    break
            for c_us, o_us in want.items():
                near(f"pipeline after {c_us} us of computation against none: the sender's overhead "
                     f"{o_us} us against 1 us", best.get(c_us), (o_us - 1.0) * 1e-6, tol)


def test_overhead_coldness(bench):
    """overhead_coldness: the factors are taken at the calibration's
    computation that left VACED's cache canary as cold as the program's.
    The pipeline of test_overhead_factors, computing through 64 MiB (-c 64),
    with f = 0.1 at 0 and 3 from 100 us (o_s 1 us and 30 us).  What a real
    computation does to the canary is the host's (a short arithmetic loop
    leaves it several times its warm read on some hosts, at its warm read
    on others), so the mechanism is tested with tables that
    put every reading at one end: coldness 99 at 0 us (no reading above it:
    every message pays f(0) = 0.1, after 100 us of computation as after
    none), and 0.01 at 0 (every reading is colder than the table's 100 us
    point: every message pays f(100) = 3, after no computation too); with
    VACED_CANARY=off the computation's length decides.  The canary itself
    is checked on the host: the bench's own reading after 100 us of
    streaming is colder than after none.  Not x86-64: no canary, the length
    alone."""
    keys = ["send_overhead = 10 us", "recv_overhead = 2 us", "send_overhead_factors = 0:0.1 100:3 300:3"]
    canary = platform.machine() == "x86_64"
    steps = {}
    tables = {"canary off": ("0:1.5 100:3", {"VACED_CANARY": "off"}),
              "every reading warm": ("0:99 100:100", None),
              "every reading cold": ("0:0.01 100:0.02", None)}

    def measure(d, label):
        table, env = tables[label]
        topo = topo_with(d, "paper-16", "paper-16-coldness-" + label.replace(" ", "-"),
                         keys + [f"overhead_coldness = {table}"])
        rc, out, err = run(2, [bench, "-t", "0.005", "-b", "5", "-c", "64", "pipeline", "0", "100"], topo,
                           env_extra=env)
        if not need(f"pipeline with overhead_coldness, {label}, runs", rc, out, err):
            return
        for c_us in (0, 100):
            m = re.search(rf"^pipeline compute_us={c_us} .* median_s=([0-9.eE+-]+).* send_cold_median=([0-9.eE+-]+)",
                          out, re.M)
            steps[label, c_us] = (float(m.group(1)), float(m.group(2))) if m else (None, None)

    def step(label, c_us):
        return steps.get((label, c_us), (None, None))[0]

    def diff(a, b):
        return None if None in (a, b) else a - b

    # the checks' bounds, which also decide when a table is measured again
    off_want, off_tol, warm_within = 29e-6, 0.15, 5e-6

    def canary_off_misses():
        got = diff(step("canary off", 100), step("canary off", 0))
        return got is not None and abs(got / off_want - 1) > off_tol

    def warm_misses():
        got = diff(step("every reading warm", 100), step("every reading warm", 0))
        return got is not None and abs(got) >= warm_within

    with tempfile.TemporaryDirectory() as d:
        for label in tables:
            measure(d, label)
        # Host noise only lengthens what the clock measures: a segment the
        # hypervisor or another process ran in is longer, and has no canary
        # reading, so it is charged by its length (clock.c).  A slow minute
        # can take a whole run, so a table whose check misses is measured
        # again, up to 4 runs; a wrong mechanism misses in every one.
        for label, misses in (("canary off", canary_off_misses), ("every reading warm", warm_misses)):
            for _ in range(3):
                if not misses():
                    break
                measure(d, label)

    # the computation's length: 30 us after 100 us, 1 us after none
    near("pipeline, VACED_CANARY=off: the sender's overhead after 100 us of computation 30 us against 1 us",
         diff(step("canary off", 100), step("canary off", 0)), off_want, off_tol)
    if not canary:
        return
    # within 5 us of none, where the length rule adds 29 us: the bench's
    # work loop overshoots its 100 us by up to a pass through 64 fresh
    # cache lines (2 us here, as in the length rule's +6 % above)
    got = diff(step("every reading warm", 100), step("every reading warm", 0))
    check("pipeline, every canary reading warm: the sender's overhead after 100 us of computation "
          "as after none (1 us)", got is not None and abs(got) < warm_within,
          "(no measurement)" if got is None else f"(predicted {got * 1e6:+.3f} us)", always=True)
    got = diff(step("every reading cold", 0), step("canary off", 0))
    near("pipeline, every canary reading cold: the sender's overhead after no computation 30 us "
         "against 1 us with VACED_CANARY=off", got, 29e-6, 0.15)
    cold = [steps.get(("canary off", c), (None, None))[1] for c in (0, 100)]
    check("the canary after 100 us of streaming computation is colder than after none",
          None not in cold and cold[1] > cold[0],
          f"(bench's reading: {cold[0]} after none, {cold[1]} after 100 us)", always=True)


def test_patterns(exe):
    """tests/apps/patterns (bench/micro.sh's patterns the mini-apps do
    not use: probes, tests between computation chunks, MPI_Ssend, vector
    datatypes, MPI_Iallreduce, rooted collectives) under VACED on paper-16
    with 2 and 4 ranks: every message and reduction verifies, every figure
    is printed, and no pattern's iteration is predicted shorter than its
    computation alone."""
    for p in (2, 4):
        # Host noise only adds CPU time: a computation alone measured long
        # (once 150 us for 105) makes every pattern look short, so up to 3
        # runs are made; a model that loses computation does in every run.
        for _ in range(3):
            rc, out, err = run(p, [exe, "-i", "20", "hot"])
            if not need(f"patterns on {p} ranks run", rc, out, err):
                break
            figures = {(m.group(1), int(m.group(2))): float(m.group(3))
                       for m in re.finditer(r"^MICRO=([a-z]+)-hot SIZE=([0-9]+) VALUE=([0-9.]+) ", out, re.M)}
            alone = figures.get(("compute", 0), 0)
            short = [k for k, v in figures.items() if v < 0.9 * alone]
            if alone > 0 and not short:
                break
        if rc != 0:
            continue
        check(f"patterns on {p} ranks verify every message and reduction", "MICRO=done VERIFIED=yes" in out,
              out[-300:])
        check(f"patterns on {p} ranks: 9 patterns x 2 sizes and the computation alone", len(figures) == 19,
              str(sorted(figures)))
        check(f"patterns on {p} ranks: no iteration shorter than its computation ({alone:.1f} us)",
              alone > 0 and not short, str(short))


def test_microbench(exe):
    """tests/apps/microbench under VACED on paper-16: its ping-pong latency
    is the closed form's one way (eager sizes; ranks 0 and 1 are 3 hops
    apart), its windowed bandwidth of 16 KiB messages the closed form's,
    and it verifies its data.  A window: the sender's 64 copies into its
    send buffers, each message's flight (paper-16 has no injection_queue:
    the flights overlap), the receiver's copy of the last one out, and the
    4 B answer's one way."""
    s_ = 16384

    def seconds(test, size):
        """One run of a microbench test: a latency's one way, or a bw
        window's time, in seconds; None if the run failed."""
        rc, out, err = run(2, [exe, "-m", str(s_), "-s", "0.1", test])
        m = re.search(rf"^MICRO={test} SIZE={size} VALUE=([0-9.]+) ", out, re.M)
        if not (need(f"microbench {test} runs", rc, out, err) and m):
            return None
        value = float(m.group(1))
        return value * 1e-6 if test == "latency" else 64 * size / (value * 1e6)

    rc, out, err = run(2, [exe, "-m", str(s_), "-s", "0.1", "latency", "bw"])
    if need("microbench runs", rc, out, err):
        check("microbench verifies every message's bytes", "MICRO=done VERIFIED=yes" in out, out[-300:])
    for size in (1, 64, 1024, 16384):
        near_measured(f"microbench latency {size} B on paper-16",
                      lambda: seconds("latency", size),
                      eager_oneway(PAPER, size, 3))
    window = 65 * copy(PAPER, s_) + transfer(PAPER, s_, 3) + eager_oneway(PAPER, 4, 3)
    # a window holds 130 MPI calls; the CPU time between them (the loop, the
    # hooks' own untimed residue) is real host time, 1-2 % of the window
    # here and more on a loaded machine, so this one is allowed 4 %
    near_measured("microbench bw 16 KiB on paper-16: a window's time",
                  lambda: seconds("bw", s_),
                  window, 0.04)


def test_recv_turns(exe):
    """The receiving CPU takes the messages one MPI_Waitall handles in
    turn.  In microbench's bibw both ranks post 64 MPI_Irecv and 64
    MPI_Isend of 1 KiB, then MPI_Waitall.  On paper-16 with o_s = 10 us
    and o_r = 40 us the sends take 64 (o_s + s/Bmem); the first message
    arrives 17 us after the first send, while the rank is still sending, so
    the wait handles its messages back to back from its start, 64 (o_r +
    s/Bmem).  Were the turns overlapped the window would take 64 (o_s +
    s/Bmem) + L + o_r + s/Bmem, a quarter of that; were the next window's
    messages handled in this window's wait, whose CPU is busy, 10 % less;
    were a turn charged again when MPICH asks for the receive's completion
    after the wait, 1.3 % more (the CPU time between the 130 MPI calls is
    real host time, but 0.1-0.2 % of this window), hence 1 %."""
    s = 1024
    net = dict(PAPER, os=10e-6, **{"or": 40e-6})
    window = 64 * (net["os"] + net["or"] + 2 * copy(net, s))
    with tempfile.TemporaryDirectory() as d:
        topo = topo_with(d, "paper-16", "paper-16-recv-turns", ["send_overhead = 10 us", "recv_overhead = 40 us"])

        def measure():
            rc, out, err = run(2, [exe, "-m", str(s), "-s", "0.1", "bibw"], topo)
            m = re.search(rf"^MICRO=bibw SIZE={s} VALUE=([0-9.]+) ", out, re.M)
            return 2 * 64 * s / (float(m.group(1)) * 1e6) if need("microbench bibw runs", rc, out, err) and m else None
        near_measured("bibw 1 KiB, o_s = 10 us, o_r = 40 us: a window's 64 receives take turns", measure, window, 0.01)


def test_window_turns(exe):
    """However a window of receives is completed, the receiving CPU takes
    its messages in turn: tests/mpi/window.c posts 64 MPI_Irecv and 64
    MPI_Isend of 1 KiB each way and completes them by MPI_Waitall, by
    MPI_Wait on each, by MPI_Waitany or by MPI_Waitsome until none is left
    (o_s 10 us, o_r 40 us, as test_recv_turns): each meets 64 (o_s + o_r +
    2 s/Bmem) within 1 %.  Without turns for every wait the last three
    took a quarter of it (every message handled at its arrival); with
    eager DATA charged at its post whoever read it, MPI_Waitany
    took 1.1-1.5 times it (a rank that fell behind posted its next
    window's receives after the peer's messages had come, each post
    charged o_r and the copy, and the two ranks' windows drifted apart)."""
    s = 1024
    net = dict(PAPER, os=10e-6, **{"or": 40e-6})
    window = 64 * (net["os"] + net["or"] + 2 * copy(net, s))
    with tempfile.TemporaryDirectory() as d:
        topo = topo_with(d, "paper-16", "paper-16-window", ["send_overhead = 10 us", "recv_overhead = 40 us"])
        for how in ("waitall", "wait", "waitany", "waitsome"):
            def measure():
                rc, out, err = run(2, [exe, how, str(s), "64", "10"], topo)
                return field(out, "window_s") if need(f"window {how} runs", rc, out, err) else None
            near_measured(f"window of 64 x 1 KiB each way completed by MPI_{how.capitalize()}: "
                          "the receives take turns", measure, window, 0.01)


def test_ring(exe):
    for p, s in ((8, 65536), (16, 65536)):
        slack = []

        def measure():
            got = ring_lap(exe, p, s, 20)
            if got is None:
                return None
            slack.append(got[1])
            return got[0]
        near_measured(f"ring of {p} ranks, {s} B, on paper-16", measure, p * eager_oneway(PAPER, s, 3),
                      computed=lambda: min(slack) if slack else 0)


def test_cpu_sources(ring, loop):
    """Each CPU-time source the host offers gives the same predictions: the
    ring's against its closed form (a lap of 16 ranks has 32 MPI calls a
    rank between messages: the clock is read at each), the CPU loop's
    against the CPU time the ranks measured themselves; the rank-0 line
    names the source in use.  rseq is the default (auto) where glibc
    registers rseq; thread is the fallback everywhere."""
    for src in ("thread", "rseq"):
        env = {"VACED_CPUTIME": src}
        slack = []

        def measure():
            got = ring_lap(ring, 16, 65536, 20, env)
            if got is None:
                return None
            slack.append(got[1])
            check(f"VACED_CPUTIME={src}: the rank-0 line names it",
                  re.search(rf"^vaced: prediction .*; cpu time {src}\)", got[2], re.M) is not None, got[2][-300:])
            return got[0]
        near_measured(f"ring of 16 ranks, 65536 B, VACED_CPUTIME={src}", measure, 16 * eager_oneway(PAPER, 65536, 3),
                      computed=lambda: min(slack) if slack else 0)
        rc, out, err = run(2, [loop, "30000000"], env_extra=env)
        if need(f"cpuloop with VACED_CPUTIME={src} runs", rc, out, err):
            preds = {int(m.group(1)): float(m.group(3)) for m in RANK_LINE.finditer(out)}
            cpus = {int(m.group(1)): float(m.group(2))
                    for m in re.finditer(r"^cpuloop rank=(\d+) cpu_s=([0-9.]+)", out, re.M)}
            for r in sorted(cpus):
                near(f"cpuloop rank {r}, VACED_CPUTIME={src}: prediction vs its thread CPU time",
                     preds.get(r), cpus[r])


def test_cpu_source_remembered(ring):
    """The auto choice is probed by the first rank of a boot and remembered
    (vaced/src/cputime/cputime_cache.c): the first job writes the record naming the
    source its rank-0 line names (one of its ranks probed); in the next job
    rank 0 reuses it and says so, and the prediction agrees with the first
    job's.  A fallback to the thread clock is not remembered: a first job
    that got it (a check failing once under load) leaves no record and is
    run again, up to 3 times."""
    with tempfile.TemporaryDirectory() as d:
        rec = os.path.join(d, "record")
        env = {"VACED_CPUTIME": "auto", "VACED_CPUTIME_CACHE": rec}
        laps = []
        for job in (1, 2):
            for attempt in range(3 if job == 1 else 1):
                rc, out, err = run(8, [ring, "65536", "20"], env_extra=env)
                if not need(f"ring, auto source, job {job}, runs", rc, out, err):
                    return
                m = re.search(r"^vaced: prediction .*; cpu time ([a-z-]+)\)", out, re.M)
                text = open(rec).read() if os.path.exists(rec) else ""
                if job == 2 or not m or m.group(1) != "thread":
                    break
                check(f"job 1, try {attempt + 1}: the thread clock is not remembered", text == "", text)
            check(f"job {job}: the record names the source in use",
                  m is not None and f" src={m.group(1)} " in text, text + out[-200:])
            if job == 2:    # in job 1 another rank may have probed before rank 0
                check("job 2: rank 0 says the source was remembered",
                      "(remembered in " + rec + ")" in err, err[-300:])
            laps.append(field(out, "lap_s"))
        if None not in laps:
            near("ring lap, remembered source vs probed", laps[1], laps[0])


def test_descriptors(fdc):
    """Hydra's proxy keeps each rank's output pipes close-on-exec (patch
    0010, Hydra), so a rank's descriptors do not grow with the ranks started
    before it.  The control: vanilla MPICH's launcher, the same program,
    where the last rank holds about two more per earlier rank."""
    p = 48
    rc, out, err = run(p, [fdc], target="paper-1024")
    m = re.search(r"^fdcount ranks=\d+ min=(\d+) max=(\d+)", out, re.M)
    if need(f"fdcount with {p} ranks runs", rc, out, err):
        lo, hi = (int(m.group(1)), int(m.group(2))) if m else (0, 1 << 30)
        check(f"{p} ranks: every rank holds about as many descriptors (min {lo}, max {hi})",
              hi - lo < 16, out[-300:])
    vanilla = os.path.join(ROOT, "install", "vanilla")
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(vanilla, "lib"))
    r = subprocess.run([os.path.join(vanilla, "bin", "mpiexec"), "-n", str(p), fdc],
                       capture_output=True, text=True, env=env, timeout=300)
    m = re.search(r"^fdcount ranks=\d+ min=(\d+) max=(\d+)", r.stdout, re.M)
    check(f"control: with vanilla's launcher the last of {p} ranks holds over {p} more",
          m is not None and int(m.group(2)) - int(m.group(1)) > p, r.stdout[-300:] + r.stderr[-300:])


def test_whole_lines(exe):
    """Hydra's mpiexec writes each rank's output in whole lines (patch
    0011): rank 0 writes " No Errors" and its newline 200 ms apart, rank 1
    a line of its own and its VACED line in between; every line still
    comes out whole.  The control: vanilla MPICH's launcher, where the
    same program's line is split by rank 1's."""
    for i in range(3):
        rc, out, err = run(2, [exe])
        if not need(f"splitline runs ({i + 1})", rc, out, err):
            return
        lines = out.splitlines()
        check(f"splitline {i + 1}: ' No Errors' and 'rank 1 line' are whole lines, with rank 1's VACED line",
              " No Errors" in lines and "rank 1 line" in lines and
              any(RANK_LINE.fullmatch(l) and l.startswith("vaced: rank 1 ") for l in lines),
              out[-600:])
    vanilla = os.path.join(ROOT, "install", "vanilla")
    env = dict(os.environ, LD_LIBRARY_PATH=os.path.join(vanilla, "lib"))
    r = subprocess.run([os.path.join(vanilla, "bin", "mpiexec"), "-n", "2", exe],
                       capture_output=True, text=True, env=env, timeout=120)
    check("control: with vanilla's launcher rank 1's line splits rank 0's",
          " No Errorsrank 1 line" in r.stdout, r.stdout[-300:] + r.stderr[-300:])


def clock_fields(out):
    f = {}
    for m in re.finditer(r"^clocks(?:_after)? (.*)$", out, re.M):
        f.update(kv.split("=") for kv in m.group(1).split())
    return f


def test_program_clocks(programs, env_extra=None, label=""):
    """The program's own clocks (C's clock_gettime and gettimeofday, C++'s
    steady_clock and system_clock, Fortran's system_clock, OpenMP's
    omp_get_wtime) time a ping-pong and a computation as MPI_Wtime does,
    within 1 %; the ping-pong matches the closed form on the slow target;
    a loop that waits 20 ms of its own clock by nanosleep and MPI_Test
    ends; after MPI_Finalize the clock is the host's again."""
    slow = os.path.join(SRC, "slow-net.topo")
    iters = 200
    want = 2 * iters * eager_oneway(SLOW, 1, 2)
    for exe, owns in programs:
        name = os.path.basename(exe) + label
        rc, out, err = run(2, [exe], target=slow, env_extra=env_extra)
        if not need(f"{name} runs", rc, out, err):
            continue
        f = clock_fields(out)
        check(f"{name}: the job line says the program's clocks are target time",
              "; program clocks target; " in out, out[-300:])
        near(f"{name}: ping-pong of {iters} on slow-net by MPI_Wtime", float(f.get("pp_wtime", 0)), want)
        for own in owns:
            for part in ("pp", "comp"):
                near(f"{name}: {part} by the program's {own} vs MPI_Wtime",
                     float(f.get(f"{part}_{own}", 0)), float(f.get(f"{part}_wtime", 1)), tol=0.01)
        if "sleep_loops" in f:
            check(f"{name}: waiting 20 ms of its clock by nanosleep(1 ms) ends, after 20 sleeps or so "
                  f"({f['sleep_loops']} loops, {f['sleep_wtime']} s)",
                  15 <= int(f["sleep_loops"]) <= 21 and 0.02 <= float(f["sleep_wtime"]) < 0.03, out[-300:])
            check(f"{name}: waiting 5 ms of its clock by MPI_Test alone ends ({f['busy_mono']} s)",
                  0.005 <= float(f["busy_mono"]) < 0.01, out[-300:])
            check(f"{name}: after MPI_Finalize CLOCK_MONOTONIC is the host's ({f['after_s']} s off)",
                  float(f["after_s"]) < 0.001, out[-300:])
            check(f"{name}: time() right after MPI_Init is the host's date",
                  abs(float(f["realtime_s"]) - time.time()) < 300, out[-300:])


def test_host_clocks(exe):
    """VACED_HOST_CLOCKS=1: the program's clocks are the host's, far below
    the slow target's ping-pong, and rank 0's line says so."""
    slow = os.path.join(SRC, "slow-net.topo")
    rc, out, err = run(2, [exe], target=slow, env_extra={"VACED_HOST_CLOCKS": "1"})
    if not need("clocks with VACED_HOST_CLOCKS=1 runs", rc, out, err):
        return
    f = clock_fields(out)
    check("VACED_HOST_CLOCKS=1: the job line says host", "; program clocks host; " in out, out[-300:])
    check(f"VACED_HOST_CLOCKS=1: the program's clock shows the host's ping-pong "
          f"({f.get('pp_mono')} s, MPI_Wtime {f.get('pp_wtime')} s)",
          float(f.get("pp_mono", 1)) < 0.5 * float(f.get("pp_wtime", 0)), out[-300:])


def test_cpuloop(exe):
    rc, out, err = run(2, [exe, "60000000"])
    if not need("cpuloop runs", rc, out, err):
        return
    ranks = {int(m.group(1)): m for m in RANK_LINE.finditer(out)}
    for r in (0, 1):
        m = re.search(rf"^cpuloop rank={r} cpu_s=([0-9.]+) wtime_s=([0-9.]+) wtick=([0-9.e+-]+)", out, re.M)
        if not m or r not in ranks:
            check(f"cpuloop rank {r} output", False, out[-500:])
            continue
        cpu, wtime, wtick = float(m.group(1)), float(m.group(2)), float(m.group(3))
        near(f"cpuloop rank {r}: MPI_Wtime of the loop vs its thread CPU time", wtime, cpu)
        near(f"cpuloop rank {r}: prediction vs the loop's thread CPU time", float(ranks[r].group(3)), cpu)
        check(f"cpuloop rank {r}: MPI_Wtick is the 1 ns clock resolution", wtick == 1e-9, f"({wtick})")


def test_collectives(exe):
    """Blocking, nonblocking and persistent collectives on forced algorithms
    against closed forms (the same for the three: the same rounds)."""
    algos = {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": "recursive_doubling",
             "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM": "pairwise",
             "MPIR_CVAR_IALLREDUCE_INTRA_ALGORITHM": "sched_recursive_doubling",
             "MPIR_CVAR_IALLTOALL_INTRA_ALGORITHM": "sched_pairwise"}
    count = 1024
    s = 8 * count
    target = os.path.join(SRC, "slow-net.topo")
    round_time = eager_oneway(SLOW, s, 2)
    for p in (4, 8):
        rounds = p.bit_length() - 1
        # host noise only adds CPU time: a run that misses is made again
        for attempt in (1, 2, 3, 4):
            rc, out, err = run(p, [exe, str(count), "5"], target, algos)
            if rc != 0:
                break
            reduce_local, localcopy = field(out, "reduce_local_s"), field(out, "localcopy_s")
            pairs = [(field(out, "allreduce_s"), rounds * (round_time + reduce_local) + localcopy),
                     (field(out, "alltoall_s"), (p - 1) * round_time + localcopy),
                     (field(out, "iallreduce_s"), rounds * (round_time + reduce_local) + localcopy),
                     (field(out, "allreduce_init_s"), rounds * (round_time + reduce_local) + localcopy),
                     (field(out, "ialltoall_s"), (p - 1) * round_time + localcopy),
                     (field(out, "iallreduce_test_s"), rounds * (round_time + reduce_local) + localcopy)]
            if all(g is not None and abs(g - w) <= TOLERANCE * w for g, w in pairs):
                break
        if not need(f"collectives {p} ranks run", rc, out, err):
            continue
        check(f"collectives {p} ranks: results are right", "result=ok" in out, out[-300:])
        near(f"MPI_Allreduce, recursive doubling, {p} ranks, {s} B", *pairs[0])
        near(f"MPI_Alltoall, pairwise exchange, {p} ranks, {s} B", *pairs[1])
        near(f"MPI_Iallreduce + MPI_Wait, recursive doubling schedule, {p} ranks, {s} B", *pairs[2])
        near(f"MPI_Allreduce_init, MPI_Start + MPI_Wait (persistent), {p} ranks, {s} B", *pairs[3])
        near(f"MPI_Ialltoall + MPI_Wait, pairwise schedule, {p} ranks, {s} B", *pairs[4])
        near(f"MPI_Iallreduce + MPI_Test loop, recursive doubling schedule, {p} ranks, {s} B", *pairs[5])


def test_test_reads(exe):
    """A test reads the eager DATA that came while the rank computed, and
    the read costs the rank its CPU: tests/mpi/exchange.c overlap posts
    MPI_Isend and MPI_Irecv of 1 KiB each way, computes 100 us, calls
    MPI_Testall, computes 100 us more (o_s 10 us, o_r 100 us on paper-16):
    each round is o_s + o_r + 2 s/Bmem beyond its computation.  When
    tests did not pay for the read, it ran beside the computation, free, and the first
    test found nothing: about 10 us."""
    s = 1024
    net = dict(PAPER, os=10e-6, **{"or": 100e-6})
    with tempfile.TemporaryDirectory() as d:
        topo = topo_with(d, "paper-16", "paper-16-overlap", ["send_overhead = 10 us", "recv_overhead = 100 us"])
        for kind in ("plain", "persistent"):
            def measure():
                rc, out, err = run(2, [exe, kind, "overlap", str(s), "50", "100"], topo)
                if not need(f"exchange {kind} overlap runs", rc, out, err):
                    return None
                rnd, comp = field(out, "round_s"), field(out, "compute_s")
                return None if rnd is None or comp is None else rnd - comp
            # the clock reads around each chunk are computation the
            # program's own CPU time leaves out (1-3 us a round here)
            near_measured(f"exchange of 1 KiB ({kind} requests) overlapped with computation and one "
                          "MPI_Testall: the test reads the DATA (round beyond its computation)", measure,
                          net["os"] + net["or"] + 2 * copy(net, s), 0.05)


def test_exchange(exe):
    """Both ways at once: a round takes one one-way time, whether written
    with MPI_Isend/MPI_Irecv or persistent requests, completed by
    MPI_Waitall or a polling MPI_Testall loop."""
    for s, oneway in ((1024, eager_oneway), (200000, rndv_oneway)):
        want = oneway(SLOW, s, 2)
        for kind in ("plain", "persistent"):
            for how in ("wait", "test"):
                name = (f"exchange, {'persistent requests' if kind == 'persistent' else 'MPI_Isend/MPI_Irecv'}, "
                        f"{'MPI_Testall loop' if how == 'test' else 'MPI_Waitall'}, {s} B")
                near_measured(name, lambda: field(run(2, [exe, kind, how, str(s), "6"],
                                                      os.path.join(SRC, "slow-net.topo"))[1], "round_s"),
                              want)


def test_wakeup(pp, exchange):
    """wakeup_latency: a message that finds its receiver blocked for longer
    than wakeup_after is handled that much later.  A ping-pong's receiver
    waits a round trip (asleep), an exchange's less than wakeup_after
    (awake), a polling one is never asleep."""
    net = dict(PAPER, os=4e-6, lnode=20e-6, **{"or": 4e-6})
    keys = ["send_overhead = 4 us", "recv_overhead = 4 us", "latency_same_node = 20 us",
            "wakeup_latency = 15 us", "wakeup_after = 30 us"]
    with tempfile.TemporaryDirectory() as d:
        path = topo_with(d, "paper-1024", "paper-1024-wakeup", keys)
        for s, iters in ((8, 200), (65536, 100)):
            near_measured(f"wake-up: ping-pong {s} B, each receiver asleep",
                          lambda: field(run(2, [pp, str(s), str(iters)], path)[1], "roundtrip_s"),
                          2 * (eager_oneway(net, s, 0) + 15e-6))
        # the exchange's receiver has waited l + s/Bmem = 20.2 us when the
        # message arrives: awake with wakeup_after = 60 us, asleep with 10 us
        # unless it polls.  (An exchange out of step stays so, each message
        # finding its receiver asleep: host noise of ~10 us in one compute
        # segment flipped 1 run in 16 with wakeup_after = 30 us; 60 us leaves
        # the awake case a 40 us margin.)
        short = topo_with(d, "paper-1024", "paper-1024-wakeup-10", keys[:-1] + ["wakeup_after = 10 us"])
        wide = topo_with(d, "paper-1024", "paper-1024-wakeup-60", keys[:-1] + ["wakeup_after = 60 us"])
        for target, how, asleep in ((wide, "wait", False), (short, "wait", True), (short, "test", False)):
            if exchange:
                near_measured(f"wake-up: exchange of 1024 B ({'MPI_Testall loop' if how == 'test' else 'MPI_Waitall'}),"
                              f" wakeup_after = {'10' if target == short else '60'} us, each receiver "
                              f"{'asleep' if asleep else 'awake'}",
                              lambda: field(run(2, [exchange, "plain", how, "1024", "50"], target)[1], "round_s"),
                              eager_oneway(net, 1024, 0) + (15e-6 if asleep else 0),
                              # the polls' own CPU time is computation (+0.8-2.4 % here);
                              # asleep would be +53 %
                              0.05 if how == "test" else TOLERANCE)


def test_cpu_share(exchange, pp):
    """bcpu: on one node, rendezvous data keeps both ends' CPUs busy for
    W = s/Bcpu, and a rank's transfers take turns.  An exchange then ends
    at the later of the one-way time and two turns, 2 W, from when the
    DATA leaves: the DATA's own latency hides under the turns (with a
    same-node latency l, 3 c + max(3 s/Bmem, 2 W - l)); a ping-pong (one
    transfer at a time) and an exchange across nodes are unchanged."""
    s, bcpu = 1048576, 3e9
    w, c3 = s / bcpu, 3 * copy(PAPER, s)
    lat = dict(PAPER, lnode=40e-6)
    with tempfile.TemporaryDirectory() as d:
        node = topo_with(d, "paper-1024", "paper-1024-bcpu", ["bcpu = 3 GB/s"])
        node_l = topo_with(d, "paper-1024", "paper-1024-bcpu-lat", ["bcpu = 3 GB/s", "latency_same_node = 40 us"])
        nodes = topo_with(d, "paper-16", "paper-16-bcpu", ["bcpu = 3 GB/s"])
        if exchange:
            for target, h, want, what in (
                    (node, 0, rndv_oneway(PAPER, s, 0) + max(0.0, 2 * w - c3), "on one node takes turns"),
                    (node_l, 0, rndv_oneway(lat, s, 0) + max(0.0, 2 * w - 40e-6 - c3),
                     "on one node with a 40 us same-node latency takes turns, the DATA's latency hidden"),
                    (nodes, 3, rndv_oneway(PAPER, s, 3), "across nodes is unchanged")):
                near_measured(f"bcpu: a {s} B exchange {what}",
                              lambda: field(run(2, [exchange, "plain", "wait", str(s), "6"], target)[1],
                                            "round_s"), want)
        if pp:
            test_pingpong(pp, "bcpu: ping-pong on one node is unchanged:", PAPER, node, 0, [(s, 20)])


def test_eager_cpu_share(bench):
    """bcpu and eager DATA on one node: the sender's CPU moves each message
    (W = s/Bcpu) and a send waits for the one before, but its own message
    leaves at once.  vaced-calib-bench's stream of 64 x 64 KiB eager
    messages (rank 1 answers with 0 bytes once all are in) then takes
    63 W + one way of s + one way of 0 B (W 21.8 us against a copy of
    10.3 us: the receiver keeps up); without bcpu every send follows its
    copy, many times faster.  An eager exchange (one message each way,
    after 50 us of computation) is unchanged."""
    s, w = 65536, 64
    with tempfile.TemporaryDirectory() as d:
        node = topo_with(d, "paper-1024", "paper-1024-bcpu", ["bcpu = 3 GB/s"])
        want = w * s / ((w - 1) * s / 3e9 + eager_oneway(PAPER, s, 0) + eager_oneway(PAPER, 0, 0))

        def measure(target):
            rc, out, err = run(2, [bench, "-b", "3", "stream", str(s)], target)
            return field(out, "min_Bps") if need(f"eager stream {s} B runs", rc, out, err) else None
        got = measure(node)
        check(f"bcpu: a stream of {w} x {s} B eager messages on one node moves at about Bcpu",
              got is not None and abs(got / want - 1) <= TOLERANCE,
              f"(predicted {(got or 0) / 1e6:.3f} MB/s, closed form {want / 1e6:.3f} MB/s, "
              f"{((got or 0) / want - 1) * 100:+.2f}%)", always=True)
        free = measure("paper-1024")
        check("without bcpu the same stream moves at more than 1.5 times that", free is not None
              and free > 1.5 * want, f"({(free or 0) / 1e6:.1f} MB/s)", always=True)
        ex = {}
        for target in (node, "paper-1024"):
            rc, out, err = run(2, [bench, "-b", "3", "-g", "50", "exchange", str(s)], target)
            m = re.search(r"^exchange size=65536 .* min_s=([0-9.eE+-]+)", out, re.M)
            ex[target] = float(m.group(1)) if need(f"eager exchange {s} B runs", rc, out, err) and m else None
        near(f"bcpu: an eager exchange of {s} B on one node takes what it takes without bcpu", ex[node],
             ex["paper-1024"])


def test_injection_queue(bench):
    """injection_queue: a rank's messages to other nodes take turns on its
    link.  vaced-calib-bench's stream (rank 0 sends a window of W messages
    at once, rank 1 answers with 0 bytes once all are in) then moves at
    Bnet: W s / (W s/Bnet + the latencies), eager (64 x 64 KiB: the
    message's latency and the answer's, after the first copy) and
    rendezvous (16 x 1 MiB: REQ, ACK, the DATA's latency and the answer's).
    Eq. 4 alone lets all W travel at once: many times Bnet."""
    net = SLOW
    with tempfile.TemporaryDirectory() as d:
        queued = os.path.join(d, "slow-net-queue.topo")
        with open(os.path.join(SRC, "slow-net.topo")) as f:
            text = f.read()
        with open(queued, "w") as f:
            f.write(text + "injection_queue = yes\n")
        for s, w, n_lat in ((65536, 64, 2), (1048576, 16, 4)):
            window = w * s / net["bnet"] + n_lat * latency(net, 2) + copy(net, s)
            want = w * s / window

            def measure(target):
                rc, out, err = run(2, [bench, "-b", "3", "stream", str(s)], target)
                return field(out, "min_Bps") if need(f"stream {s} B runs", rc, out, err) else None
            # host noise only adds time, so only lowers a bandwidth: a miss is measured once more
            got = measure(queued)
            if got is None or abs(got / want - 1) > TOLERANCE:
                got = max(v for v in (got, measure(queued), 0.0) if v is not None) or None
            check(f"injection queue: a stream of {w} x {s} B moves at Bnet",
                  got is not None and abs(got / want - 1) <= TOLERANCE,
                  f"(predicted {(got or 0) / 1e6:.3f} MB/s, closed form {want / 1e6:.3f} MB/s, "
                  f"{((got or 0) / want - 1) * 100:+.2f}%)", always=True)
            free = measure(os.path.join(SRC, "slow-net.topo"))
            check(f"without the queue (eq. 4) the same stream moves at more than 5 Bnet",
                  free is not None and free > 5 * net["bnet"], f"({(free or 0) / 1e6:.1f} MB/s)", always=True)


TWO_SENDERS = ("wildcard", "wildcard-early", "probe-early", "waitany", "waitany-early", "waitsome-early",
               "irecv-early", "irecv-order-early", "irecv-cancel-early", "irecv-test-early",
               "test-late-early", "testany-late-early", "test-data-late-early", "iprobe-early", "mprobe-early",
               "improbe-early")


def adversarial_times(out, mode, s):
    """An adversarial run's completion times and their closed forms, as
    (what, got, expected); None where a rank's line is missing."""
    lines = {}
    for r in (0, 1, 2):
        m = re.search(rf"^rank={r} .*$", out, re.M)
        lines[r] = m.group(0) if m else None
    if lines[0] is None or lines[1] is None:
        return None

    # received: eager, one-way plus the receive copy; rendezvous, REQ,
    # ACK and DATA (the receive is posted before the REQ arrives)
    def done(t_send):
        return None if t_send is None else t_send + (eager_oneway if s < 131072 else rndv_oneway)(SLOW, s, 2)

    def t(r, name):
        return field(lines[r], name) if lines[r] else None

    second = ("second completion at rank 1's target arrival", t(0, "t_second"), done(t(1, "t_send")))
    if mode in TWO_SENDERS:
        return [("first completion at rank 2's target arrival", t(0, "t_first"), done(t(2, "t_send"))),
                second]
    if mode in ("issend-test-early", "waitany-send-early"):
        # an MPI_Issend to rank 2: eager, the message, then rank 2's ACK;
        # rendezvous, REQ, ACK, then the send completes when its DATA is
        # copied out
        ctrl = transfer(SLOW, 0, 2) + overheads(SLOW)
        t_isend, t_post = t(0, "t_isend"), t(2, "t_post")
        t_out = None
        if t_isend is not None and t_post is not None:
            t_in = t_isend + (eager_oneway(SLOW, s, 2) if s < 131072 else ctrl)
            t_out = max(t_in, t_post) + ctrl + (copy(SLOW, s) if s >= 131072 else 0)
        if mode == "waitany-send-early":
            return [("the first MPI_Waitany ends with the send, at its ACK's target arrival",
                     t(0, "t_first"), t_out), second]
        return [("the send completes at its ACK's target arrival", t(0, "t_sent"), t_out), second]
    what = {"late": "a receive posted (on the host) long after its message waits for the target arrival",
            "test": "the polling loop ends at the target arrival"}[mode]
    return [(what, t(0, "t_recv"), done(t(1, "t_send")))]


def test_adversarial(exe):
    """Host order opposite to target order (sleeps cost no CPU time)."""
    target = os.path.join(SRC, "slow-net.topo")
    send_early = ("issend-test-early", "waitany-send-early")
    cases = ([(m, 1024) for m in TWO_SENDERS + ("late", "test") + send_early] +
             [(m, 200000) for m in TWO_SENDERS + send_early])
    for mode, s in cases:
        # host noise only adds CPU time (a polling loop's last poll): a run
        # whose times miss by more than 1% is made again (up to 3 runs)
        for attempt in (1, 2, 3):
            rc, out, err = run(3, [exe, mode, str(s)], target)
            times = adversarial_times(out, mode, s) if rc == 0 else None
            if rc != 0 or attempt == 3 or (times and all(
                    got is not None and want is not None and abs(got - want) <= 0.01 * want
                    for _, got, want in times)):
                break
        name = f"{mode} ({s} B, rendezvous)" if s > 1024 else mode
        if not need(f"adversarial {name} runs", rc, out, err):
            continue
        if not times or any(want is None for _, _, want in times):
            check(f"adversarial {name} output", False, out[-500:])
            continue
        r0 = re.search(r"^rank=0 .*$", out, re.M).group(0)
        if mode in TWO_SENDERS:
            check(f"{name}: the target's first message (rank 2) is matched first, though it reached the host last",
                  field(r0, "first") == 2 and field(r0, "second") == 1, r0)
            if mode == "waitsome-early":
                check(f"{name}: the first MPI_Waitsome reports rank 2's receive only", field(r0, "first_count") == 1, r0)
            if mode == "irecv-cancel-early":
                check(f"{name}: the held wildcard receive is cancelled", field(r0, "cancelled") == 1, r0)
        elif mode == "test":
            check("test: MPI_Test finds nothing before the target arrival", field(r0, "first_test") == 0, r0)
        elif mode == "waitany-send-early":
            check(f"{name}: the send to rank 2 ends the first MPI_Waitany, though the receive completed first "
                  "on the host", field(r0, "first") == 2 and field(r0, "second") == 1, r0)
        for what, got, want in times:
            near(f"{name}: {what}", got, want, 0.01)


def test_wildcard_chains(exe):
    """Wildcard receives whose other sender has not sent yet: it waits on the
    receiver, or on a rank that waits on the receiver (decided exactly), or
    on anyone (approximate, no hang)."""
    target = os.path.join(SRC, "slow-net.topo")
    s = 1024

    def done(t_send):
        return t_send + eager_oneway(SLOW, s, 2)

    for mode in ("wildcard-blocked", "wildcard-chain", "wildcard-unprovable"):
        rc, out, err = run(3, [exe, mode], target, timeout=120)
        if not need(f"adversarial {mode} runs (no hang)", rc, out, err):
            continue
        r0 = re.search(r"^rank=0 .*$", out, re.M)
        r1 = re.search(r"^rank=1 .*$", out, re.M)
        r2 = re.search(r"^rank=2 .*$", out, re.M)
        if not (r0 and r1 and r2):
            check(f"{mode} output", False, out[-500:])
            continue
        r0 = r0.group(0)
        check(f"{mode}: rank 1's message matched first, rank 2's second",
              field(r0, "first") == 1 and field(r0, "second") == 2, r0)
        near(f"{mode}: first completion at rank 1's target arrival", field(r0, "t_first"),
             done(field(r1.group(0), "t_send")), 0.01)
        near(f"{mode}: second completion at rank 2's target arrival", field(r0, "t_second"),
             done(field(r2.group(0), "t_send")), 0.01)
        job = JOB_LINE.search(out)
        approx = "APPROXIMATE" in (out[job.start():].splitlines()[0] if job else "")
        if mode != "wildcard-unprovable":
            check(f"{mode}: decided by rank 2's (and rank 1's) blocked report: not approximate",
                  job and not approx and "warning" not in err, out[-300:] + err[-300:])
        else:
            check("wildcard-unprovable: rank 0's line says approximate", job and approx, out[-300:])
            check("wildcard-unprovable: the warning names rank 0's MPI_Recv",
                  "rank 0: MPI_Recv(MPI_ANY_SOURCE)" in err, err[-400:])


def test_nonblocking_collectives(exe):
    """Nonblocking collectives with rendezvous messages complete (their
    schedules post receives inside MPI_Wait) and move the right data."""
    for p in (4, 8):
        rc, out, err = run(p, [exe, "200000"], "paper-16", timeout=120)
        if need(f"MPI_Ialltoall/Iallreduce of 200 kB blocks, {p} ranks, complete (no hang)", rc, out, err):
            check(f"nonblocking collectives, {p} ranks: right data", "nbcoll ok" in out, out[-300:])


def test_fig4(exe):
    """The paper's Fig. 4 for DATA, REQ and ACK, host order made adversarial."""
    target = os.path.join(SRC, "slow-net.topo")
    small, big = 1024, 200000
    l = latency(SLOW, 2)
    for mode in ("fig4b-data", "fig4b-req", "fig4b-ack", "fig4c-data", "fig4c-req"):
        rc, out, err = run(3, [exe, mode], target)
        if not need(f"{mode} runs", rc, out, err):
            continue
        r0 = re.search(r"^rank=0 .*$", out, re.M)
        r1 = "\n".join(re.findall(r"^rank=1 .*$", out, re.M))
        if not r0 or not r1:
            check(f"{mode} output", False, out[-500:])
            continue
        r0 = r0.group(0)
        t_send, t_wait2, t_done = field(r1, "t_send"), field(r0, "t_wait2"), field(r0, "t_done")
        if mode == "fig4b-data":
            # arrived on the target during the computation: wait 2 copies it
            near("Fig. 4(b) DATA: completes at wait 2's start plus the copy", t_done,
                 t_wait2 + copy(SLOW, small), 0.01)
        elif mode == "fig4b-req":
            # the RTS is answered at wait 2's start, not at the post
            want = t_wait2 + rndv_oneway(SLOW, big, 2) - transfer(SLOW, 0, 2)
            near("Fig. 4(b) REQ: the CTS leaves at wait 2's start, not at the post", t_done, want, 0.01)
            near("Fig. 4(b) REQ: the sender completes when the CTS reaches it", field(r1, "t_sent"),
                 t_wait2 + l + copy(SLOW, big), 0.01)
        elif mode == "fig4b-ack":
            # the sender's test ran before the CTS reached it on the target
            check("Fig. 4(b) ACK: the sender's test finds nothing", field(r1, "first_test") == 0, r1)
            t_wait = field(r1, "t_wait")
            near("Fig. 4(b) ACK: the DATA leaves at the sender's wait, not at its test", t_done,
                 t_wait + eager_oneway(SLOW, big, 2), 0.01)
            near("Fig. 4(b) ACK: the sender completes at its wait plus the copy", field(r1, "t_done"),
                 t_wait + copy(SLOW, big), 0.01)
        elif mode == "fig4c-data":
            near("Fig. 4(c) DATA: handled in wait 1 on the target, so wait 2 ends at once", t_done, t_wait2, 0.01)
        else:
            # RTS handled in wait 1 at its arrival: the sender's send ends early
            near("Fig. 4(c) REQ: handled in wait 1, so wait 2 ends at once", t_done, t_wait2, 0.01)
            near("Fig. 4(c) REQ: the CTS left at the RTS's arrival, in wait 1", field(r1, "t_sent"),
                 t_send + 2 * l + copy(SLOW, big), 0.01)


def test_long_run(exe, iters=200000):
    """Memory stays flat however many waits, tests and messages there are."""
    rc, out, err = run(2, [exe, str(iters)], "paper-16", timeout=600)
    if not need("long run", rc, out, err):
        return
    for r in (0, 1):
        line = re.search(rf"^longrun rank={r} .*$", out, re.M)
        if not line:
            check(f"long run rank {r} output", False, out[-300:])
            continue
        early, end = field(line.group(0), "rss_early_kib"), field(line.group(0), "rss_end_kib")
        check(f"long run rank {r}: resident memory flat over {iters} iterations (<= 512 KiB growth after 10%)",
              end - early <= 512, f"({early:.0f} KiB -> {end:.0f} KiB)", always=True)


def test_host_invariance(ring, loop):
    """The same program predicted on 1 core, on 2 cores and beside a CPU hog.

    Communication-bound programs must agree within 2% (issue 7's bound;
    they usually agree within 1%, but 2 cores alone measured 1.2% above 1
    core and beside a hog, twice in a row, on a busy CI machine).  A compute-bound
    program's prediction is its CPU time, and the CPU time of the same loop
    varies by a few % from run to run in a guest whatever the configuration
    (the host's own speed, not the simulator's): so there each
    configuration's prediction is checked against the CPU time its ranks
    measured themselves, within 2%."""
    if not shutil.which("taskset"):
        check("taskset is installed (package util-linux)", False)
        return
    configs = (("0,1", False, "2 cores"), ("0", False, "1 core"), ("0,1", True, "2 cores beside a CPU hog"))
    for name, args, p in (("ring of 16 ranks, 64 KiB", ["65536", "20"], 16),
                          ("ring of 8 ranks, 200 kB", ["200000", "10"], 8)):
        def predict(cores, hog):
            out = host_run(ring, args, p, "paper-16", cores, hog)
            job = JOB_LINE.search(out or "")
            return (float(job.group(1)) if job else None), out

        base = None
        for cores, hog, how in configs:
            pred, out = predict(cores, hog)
            if base is None:
                base = pred
                check(f"host invariance, {name}: runs on {how}", pred is not None, (out or "")[-300:])
                continue
            if pred is None or base is None:
                check(f"host invariance, {name}: {how}", False, "(a run failed)")
                continue
            if abs(pred - base) > 0.01 * base:
                # host noise only adds CPU time (about 1% here between runs
                # of one configuration): once more each, the smaller kept
                again, again_base = predict(cores, hog)[0], predict(*configs[0][:2])[0]
                pred = min(pred, again or pred)
                base = min(base, again_base or base)
            err = (pred - base) / base
            check(f"host invariance, {name} (communication-bound): {how} vs 2 cores", abs(err) <= 0.02,
                  f"({pred * 1e3:.4f} ms vs {base * 1e3:.4f} ms, {err * 100:+.2f}%)", always=True)
    for cores, hog, how in configs:
        out = host_run(loop, ["20000000"], 8, "paper-16", cores, hog, quiet=False) or ""
        preds = {int(m.group(1)): float(m.group(3)) for m in RANK_LINE.finditer(out)}
        cpus = {int(m.group(1)): float(m.group(2)) for m in re.finditer(r"^cpuloop rank=(\d+) cpu_s=([0-9.]+)", out, re.M)}
        worst = max((abs(preds[r] - cpus[r]) / cpus[r] for r in cpus if r in preds), default=None)
        check(f"host invariance, CPU loop on 8 ranks (compute-bound), {how}: predictions = own CPU time",
              worst is not None and len(cpus) == 8 and worst <= 0.02,
              f"(worst rank {worst * 100 if worst is not None else float('nan'):.2f}% off)", always=True)


def host_run(exe, args, p, target, cores, hog=False, quiet=True):
    """Runs with the host limited to `cores` (taskset), optionally beside a
    CPU-bound process competing for them; returns stdout, None on failure."""
    hog_proc = None
    if hog:
        hog_proc = subprocess.Popen(["taskset", "-c", cores, "sh", "-c", "while :; do :; done"])
    fd, js = tempfile.mkstemp(suffix=".json", dir=OUT)
    os.close(fd)
    try:
        env = dict(os.environ, VACED_TARGET=target, VACED_JSON=js)
        if quiet:
            env["VACED_QUIET"] = "1"
        else:
            env.pop("VACED_QUIET", None)
        r = subprocess.run(["taskset", "-c", cores, os.path.join(BIN, "mpiexec"), "-n", str(p), exe] + args,
                           capture_output=True, text=True, env=env, timeout=600)
    except subprocess.TimeoutExpired:
        return None
    finally:
        if hog_proc:
            hog_proc.kill()
            hog_proc.wait()
        note_breakdown(exe, js)
        os.unlink(js)
    return r.stdout if r.returncode == 0 else None


def test_faults(exe):
    """Unmodelled features are marked; failing jobs end without orphans."""
    for mode, what in (("rma", "one-sided communication (RMA)"), ("threads", "MPI calls from several threads")):
        with tempfile.TemporaryDirectory() as d:
            path = os.path.join(d, "p.json")
            rc, out, err = run(4, [exe, mode], env_extra={"VACED_JSON": path})
            ok = rc == 0 and f"not modelled: {what}" in out and "warning" in err
            if mode == "rma":
                m = re.search(r"rma sum=(\d+) expected=(\d+)", out)
                ok = ok and m is not None and m.group(1) == m.group(2)
            try:
                with open(path) as f:
                    doc = json.load(f)
                ok = ok and doc["approximate"] is True and what in doc["not_modelled"]
            except (OSError, ValueError, KeyError):
                ok = False
            check(f"{mode}: works as MPI, warns, and the prediction is marked approximate", ok,
                  f"rc={rc} {out[-300:]} {err[-300:]}")
    rc, out, err = run(4, [exe, "normal"])
    check("a program using only modelled features is not marked approximate",
          rc == 0 and JOB_LINE.search(out) is not None and "APPROXIMATE" not in out, out[-300:])
    for mode in ("abort", "kill"):
        rc, out, err = run(4, [exe, mode], timeout=60)
        time.sleep(0.5)
        left = subprocess.run(["pgrep", "-f", exe], capture_output=True, text=True).stdout.split()
        check(f"{mode} in one rank: the job fails without hanging and leaves no process", rc not in (0, -1) and not left,
              f"rc={rc} left={left}")


def ring_memfds(pids):
    """The inodes of the same-host rings (memfds, patch 0014) that these
    processes map or hold a descriptor of."""
    found = set()
    for pid in pids:
        try:
            with open(f"/proc/{pid}/maps") as f:
                for line in f:
                    if "/memfd:vaced-ring" in line:
                        found.add(int(line.split()[4]))
            for fd in os.listdir(f"/proc/{pid}/fd"):
                if os.readlink(f"/proc/{pid}/fd/{fd}").startswith("/memfd:vaced-ring"):
                    found.add(os.stat(f"/proc/{pid}/fd/{fd}").st_ino)
        except OSError:
            pass    # gone meanwhile
    return found


def test_killed_rank_rings(exe):
    """A rank killed mid-run leaves no shared memory: the kernel frees a
    memfd with the last descriptor and mapping, so no process may hold the
    job's rings after it."""
    mark = f"rings-{os.getpid()}-{time.time()}"
    env = dict(os.environ, VACED_TARGET="paper-16", VACED_QUIET="all", VACED_TEST_MARK=mark)
    env.pop("VACED_TRANSPORT", None)        # the default: rings
    job = subprocess.Popen([os.path.join(BIN, "mpiexec"), "-n", "3", exe, "1000", "1000000"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)

    def ranks():
        pids = []
        for pid in (p for p in os.listdir("/proc") if p.isdigit()):
            try:
                with open(f"/proc/{pid}/environ", "rb") as f:
                    marked = mark.encode() in f.read()
                with open(f"/proc/{pid}/cmdline", "rb") as f:
                    rank = f.read().split(b"\0")[0] == exe.encode()
            except OSError:
                continue
            if marked and rank:
                pids.append(int(pid))
        return pids

    seen, pids = set(), []
    deadline = time.time() + 60
    while time.time() < deadline and job.poll() is None and len(seen) < 2:
        time.sleep(0.2)
        pids = ranks()
        seen = ring_memfds(pids)
    check("a running job's ranks map their rings (memfds): what the next check looks for",
          len(seen) >= 2, f"pids={pids} memfds={sorted(seen)}")
    if pids:
        os.kill(max(pids), signal.SIGKILL)
    try:
        rc = job.wait(timeout=60)
    except subprocess.TimeoutExpired:
        job.kill()
        rc = job.wait()
    time.sleep(0.5)
    all_pids = [p for p in os.listdir("/proc") if p.isdigit()]
    held = seen & ring_memfds(all_pids)
    check("a rank killed mid-run: the job fails, leaves no process and no shared memory",
          rc != 0 and not ranks() and not held, f"rc={rc} left={ranks()} held={sorted(held)}")


def test_reports(exe):
    """Output format: rank lines, the job line, quiet mode and JSON."""
    rc, out, err = run(4, [exe, "1000", "10"])
    if not need("report run", rc, out, err):
        return
    ranks = sorted(int(m.group(1)) for m in RANK_LINE.finditer(out))
    check("every rank prints one prediction line", ranks == [0, 1, 2, 3], str(ranks))
    job = JOB_LINE.search(out)
    check("rank 0 prints the job's prediction with the target's name",
          job is not None and job.group(2) == "paper-16" and job.group(3) == "4", out[-300:])
    if job:
        worst = max(float(m.group(3)) for m in RANK_LINE.finditer(out))
        check("the job's prediction is the maximum over ranks", abs(float(job.group(1)) - worst) < 1e-9,
              f"({job.group(1)} vs {worst})")
    for m in RANK_LINE.finditer(out):
        total, comp, comm = (float(m.group(i)) for i in (3, 4, 5))
        if abs(total - comp - comm) > 2e-9:
            check("compute + communication = prediction", False, m.group(0))
            break
    else:
        check("compute + communication = prediction", True)

    rc, out, err = run(4, [exe, "1000", "10"], env_extra={"VACED_QUIET": "1"})
    check("VACED_QUIET silences the rank lines but not the job line",
          rc == 0 and not RANK_LINE.search(out) and JOB_LINE.search(out) is not None, out[-300:])
    rc, out, err = run(4, [exe, "1000", "10"], env_extra={"VACED_QUIET": "all"})
    check("VACED_QUIET=all silences every line", rc == 0 and "vaced:" not in out and "pingpong" in out, out[-300:])

    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pred.json")
        rc, out, err = run(4, [exe, "1000", "10"], env_extra={"VACED_JSON": path})
        try:
            with open(path) as f:
                doc = json.load(f)
            totals = [r["total_s"] for r in doc["per_rank"]]
            job = JOB_LINE.search(out)
            check("VACED_JSON holds every rank and the job's prediction",
                  rc == 0 and len(totals) == 4 and doc["ranks"] == 4 and doc["target"] == "paper-16"
                  and abs(doc["prediction_s"] - max(totals)) < 1e-12
                  and abs(float(job.group(1)) - doc["prediction_s"]) < 1e-9, json.dumps(doc)[:300])
        except (OSError, ValueError, KeyError, TypeError, AttributeError) as e:
            check("VACED_JSON holds every rank and the job's prediction", False, f"{e}: {out[-300:]}")

    bad = "/nonexistent-dir/pred.json"
    rc, out, err = run(2, [exe, "1000", "10"], env_extra={"VACED_JSON": bad})
    check("an unwritable VACED_JSON is an error, and the prediction is still printed",
          JOB_LINE.search(out) is not None and bad in err, f"rc={rc} {err[-300:]}")


BREAKDOWN_LINE = re.compile(r"^vaced: breakdown \(all ranks\): (.*)$", re.M)
TERMS = ("compute", "poll", "send_overhead", "recv_overhead", "copy", "network",
         "late_sender", "late_receiver", "collective_wait")


def breakdown_run(np, argv, target="paper-16"):
    """Runs a program; returns (each rank's breakdown in s, its total, the
    job's breakdown line) or None."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pred.json")
        rc, out, err = run(np, argv, target, env_extra={"VACED_JSON": path, "VACED_QUIET": "1"})
        if not need(f"{os.path.basename(argv[0])} {' '.join(argv[1:])} runs", rc, out, err):
            return None
        with open(path) as f:
            per_rank = json.load(f)["per_rank"]
    return [r["breakdown"] for r in per_rank], [r["total_s"] for r in per_rank], BREAKDOWN_LINE.search(out)


def terms_near(label, got, want, tol=TOLERANCE, abs_tol=1e-9, at_most=None):
    """Each term of `want` against got; the others must be 0 within abs_tol,
    or lie between 0 and their bound in `at_most`."""
    for term in TERMS:
        w = want.get(term, 0.0)
        if w:
            near(f"{label}: {term}", got[term], w, tol)
        elif at_most and term in at_most:
            check(f"{label}: {term} between 0 and {at_most[term] * 1e6:.3f} us",
                  -abs_tol <= got[term] <= at_most[term] + abs_tol, f"({got[term] * 1e6:.3f} us)")
        else:
            check(f"{label}: {term} is 0", abs(got[term]) <= abs_tol, f"({got[term] * 1e6:.3f} us)")


def test_breakdown(pp, bd):
    """Check (b) of the breakdown (docs/breakdown.md): programs whose terms
    are known in closed form on paper-16 (no overheads), with L = L(s, 3),
    L0 = L(0, 3), c = s/Bmem and n round trips."""
    n, L0 = 101, transfer(PAPER, 0, 3)     # 100 timed and 1 warm-up round trip
    for s in (1000, 200000):
        got = breakdown_run(2, [pp, str(s), "100"])
        if not got:
            continue
        L, c = transfer(PAPER, s, 3), copy(PAPER, s)
        # a rendezvous message adds the RTS's and the CTS's flights
        net = n * (L if s + 64 <= 131072 else L + 4 * L0)
        kind = "eager" if s + 64 <= 131072 else "rendezvous"
        # each rank copies its own message in, the peer's out and (on the
        # DATA's chain) the peer's in; it waits for the peer's round half
        # (rank 1 from the second round trip on: it starts by receiving)
        # The closed form has each receive posted before its message; but
        # the ranks' computation is measured on the host, and a segment the
        # host stretched can make the peer post a receive late, by at most
        # the peer's computation: late_receiver lies between 0 and that.
        for rank, late in ((0, n), (1, n - 1)):
            want = dict(network=net, copy=3 * n * c, late_sender=late * (L + c),
                        compute=got[0][rank]["compute"])
            terms_near(f"breakdown, {kind} ping-pong {s} B, rank {rank}", got[0][rank], want,
                       at_most=dict(late_receiver=got[0][1 - rank]["compute"]))
        m = got[2]
        shares = [float(x) for x in re.findall(r"([0-9.]+) %", m.group(1))] if m else []
        check("breakdown: the job line is followed by the terms' shares of all ranks' time",
              m is not None and len(shares) == 9 and abs(sum(shares) - 100) < 0.6
              and [t for t in re.findall(r"([a-z_]+) [0-9.]+ %", m.group(1))] == list(TERMS),
              m.group(0) if m else "(no breakdown line)")
    if not bd:
        return
    s = 1000
    got = breakdown_run(2, [bd, "late-sender", str(s)])
    if got:
        b = got[0]
        L, c = transfer(PAPER, s, 3), copy(PAPER, s)
        # rank 0 waits from its first call until rank 1 begins its send
        terms_near("breakdown, late sender: rank 0", b[0],
                   dict(compute=b[0]["compute"], network=L, copy=2 * c,
                        late_sender=got[1][0] - b[0]["compute"] - L - 2 * c))
        near("breakdown, late sender: rank 0 waits as long as rank 1 computes longer",
             b[0]["late_sender"], b[1]["compute"] - b[0]["compute"])
        terms_near("breakdown, late sender: rank 1", b[1], dict(compute=b[1]["compute"], copy=c))
    s = 1048576
    got = breakdown_run(2, [bd, "late-receiver", str(s)])
    if got:
        b = got[0]
        L, c = transfer(PAPER, s, 3), copy(PAPER, s)
        # rank 0's RTS waits at rank 1 until it posts; then the CTS's flight
        # and the DATA's copy in.  Rank 1 waits for the CTS's flight and
        # the DATA from rank 0 (which was waiting: no late sender).
        terms_near("breakdown, late receiver (rendezvous): rank 0", b[0],
                   dict(compute=b[0]["compute"], network=2 * L0, copy=c,
                        late_receiver=got[1][0] - b[0]["compute"] - 2 * L0 - c))
        near("breakdown, late receiver (rendezvous): rank 0 waits as long as rank 1 computes longer",
             b[0]["late_receiver"], b[1]["compute"] - b[0]["compute"] - 2 * L0)
        terms_near("breakdown, late receiver (rendezvous): rank 1", b[1],
                   dict(compute=b[1]["compute"], network=L0 + L, copy=2 * c))
    got = breakdown_run(4, [bd, "barrier"])
    if got:
        b, slow = got[0], got[0][3]["compute"]
        # MPICH's barrier on one host node: a barrier, then a broadcast, of
        # log2(4) rounds of 0-byte messages each at most
        rounds = 4
        for rank in range(3):
            # the early ranks wait for the last one inside the collective:
            # collective_wait, not late_sender (docs/breakdown.md#collectives)
            near(f"breakdown, imbalanced barrier: rank {rank} waits in the collective as long as the last "
                 f"rank computes longer", b[rank]["collective_wait"], slow - b[rank]["compute"])
            check(f"breakdown, imbalanced barrier: rank {rank}'s network time is within its rounds' latencies",
                  0 < b[rank]["network"] <= rounds * L0 * (1 + TOLERANCE), f"({b[rank]['network'] * 1e6:.3f} us)")
            check(f"breakdown, imbalanced barrier: rank {rank} has no copies, overheads, late sender or receiver",
                  all(abs(b[rank][t]) <= 1e-9 for t in ("copy", "send_overhead", "recv_overhead", "late_receiver",
                                                        "late_sender", "poll")), str(b[rank]))
        check("breakdown, imbalanced barrier: the last rank computes and waits little",
              b[3]["collective_wait"] + b[3]["network"] <= 2 * rounds * L0 * (1 + TOLERANCE), str(b[3]))


COLD_CLAUSE = re.compile(r"; cold starts ([0-9.]+) % of compute;")


def test_cold_starts(exe):
    """Cold starts (vaced/src/clock/clock.c): with both ranks of
    tests/mpi/coldstart.c on one core, the segment after each rank's receive
    began after the rank slept while the other computed: its CPU time, as
    the program measures it, is the rank's cold computation; the first
    segment is not.  On two cores (a rank a core) nothing is noted."""
    a, b, c = "20000000", "10000000", "5000000"
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pred.json")
        env = dict(os.environ, VACED_TARGET="paper-16", VACED_JSON=path)
        env.pop("VACED_QUIET", None)
        cmd = ["taskset", "-c", "0", os.path.join(BIN, "mpiexec"), "-n", "2", exe, a, b, c]
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=300)
        if not need("coldstart on one core runs", r.returncode, r.stdout, r.stderr):
            return
        out = r.stdout
        note_breakdown(exe, path)
        try:
            with open(path) as f:
                doc = json.load(f)
        except (OSError, ValueError) as e:
            check("coldstart on one core writes its JSON", False, str(e))
            return
        per = {x["rank"]: x for x in doc["per_rank"]}
        seg = {int(m.group(1)): (float(m.group(2)), float(m.group(3))) for m in
               re.finditer(r"^coldstart rank=(\d+) after_recv_s=([0-9.]+) all_s=([0-9.]+)", out, re.M)}
        if not check("coldstart prints both ranks' segments", sorted(seg) == [0, 1], out[-300:]):
            return
        for rank in (0, 1):
            near(f"cold starts, one core: rank {rank}'s cold computation is its segment after the receive",
                 per[rank]["compute_cold_s"], seg[rank][0], tol=0.05)
        share = sum(x["compute_cold_s"] for x in per.values()) / sum(x["compute_s"] for x in per.values())
        m = COLD_CLAUSE.search(out)
        check("cold starts, one core: the job line and the JSON give the share of all ranks' computation",
              m is not None and abs(float(m.group(1)) - share * 100) < 0.06
              and abs(doc["cold_start_share"] - share) < 1e-6, f"{out[-300:]} {doc.get('cold_start_share')}")
        env["VACED_JSON"] = path
        r = subprocess.run(cmd[3:], capture_output=True, text=True, env=env, timeout=300)
        if need("coldstart on two cores runs", r.returncode, r.stdout, r.stderr):
            note_breakdown(exe, path)
            with open(path) as f:
                doc = json.load(f)
            check("cold starts, a rank a core: not noted (no clause, JSON null, no cold computation)",
                  COLD_CLAUSE.search(r.stdout) is None and doc["cold_start_share"] is None
                  and all(x["compute_cold_s"] == 0 for x in doc["per_rank"]), r.stdout[-300:])


def read_trace(path):
    """A VACED_TRACE file's spans: [(kind, start_s, end_s)] (its message lines
    left out), or None if unreadable."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
        if not lines or lines[0] != "kind,start_s,end_s":
            return None
        return [(k, float(a), float(b)) for k, a, b in
                (ln.split(",") for ln in lines[1:] if ln.split(",")[0] in ("compute", "mpi", "poll"))]
    except (OSError, ValueError):
        return None


def read_trace_messages(d, ranks):
    """The message lines of a run's traces: {(sender, receiver, seq): (bytes, t)}
    for the sends and for the receives."""
    sends, recvs = {}, {}
    for r in range(ranks):
        with open(os.path.join(d, f"vaced-trace.{r}.csv")) as f:
            for ln in f.read().splitlines()[1:]:
                kind, *v = ln.split(",")
                if kind == "send":
                    sends[(r, int(v[0]), int(v[1]))] = (int(v[2]), float(v[3]))
                elif kind == "recv":
                    recvs[(int(v[0]), r, int(v[1]))] = (int(v[2]), float(v[3]))
    return sends, recvs


def test_trace(exe):
    """VACED_TRACE: every rank's spans tile its prediction, and the compute and poll
    spans add up to its compute time (collectives.c polls MPI_Iallreduce with MPI_Test);
    its messages pair up."""
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "pred.json")
        rc, out, err = run(4, [exe], env_extra={"VACED_TRACE": d, "VACED_JSON": path, "VACED_QUIET": "all"})
        if not need("trace run", rc, out, err):
            return
        with open(path) as f:
            doc = json.load(f)
        kinds = set()
        for r in doc["per_rank"]:
            spans = read_trace(os.path.join(d, f"vaced-trace.{r['rank']}.csv"))
            if spans is None:
                check(f"rank {r['rank']} wrote a trace with its header", False, str(os.listdir(d)))
                continue
            kinds |= {k for k, _, _ in spans}
            breaks = [i for i in range(1, len(spans)) if spans[i][1] != spans[i - 1][2]]
            check(f"rank {r['rank']}: {len(spans)} spans from 0 to its prediction, each starting where the last ended",
                  spans and spans[0][1] == 0 and not breaks and abs(spans[-1][2] - r["total_s"]) < 1e-9
                  and all(b > a for _, a, b in spans),
                  f"first {spans[:1]}, breaks at {breaks[:3]}, end {spans[-1:]} vs {r['total_s']}")
            summed = sum(b - a for k, a, b in spans if k != "mpi")
            check(f"rank {r['rank']}: compute and poll spans add up to its compute time",
                  abs(summed - r["compute_s"]) < 1e-9 * len(spans), f"{summed:.12f} s vs {r['compute_s']:.12f} s")
        check("the trace has compute, mpi and poll spans", kinds == {"compute", "mpi", "poll"}, str(kinds))
        sends, recvs = read_trace_messages(d, len(doc["per_rank"]))
        late = [k for k in sends.keys() & recvs.keys()
                if sends[k][0] != recvs[k][0] or recvs[k][1] < sends[k][1]]
        check(f"the trace's {len(sends)} sends and {len(recvs)} receives pair up (same sizes, "
              "each received no earlier than sent)",
              sends and sends.keys() == recvs.keys() and not late,
              f"unpaired {sorted(sends.keys() ^ recvs.keys())[:4]}, mismatched {late[:4]}")

    bad = "/nonexistent-dir"
    rc, out, err = run(2, [exe], env_extra={"VACED_TRACE": bad})
    check("an unwritable VACED_TRACE is reported by each rank, and the job still predicts",
          rc == 0 and JOB_LINE.search(out) is not None and err.count("cannot write trace") == 2,
          f"rc={rc} {err[-300:]}")


def test_bad_target(exe):
    with tempfile.TemporaryDirectory() as d:
        path, lineno = paper16_variant(d, "bnet", "bnet = -4 GB/s")
        rc, out, err = run(2, [exe, "1000", "10"], path)
        check("a bad target file stops the job before the program runs, naming file and line",
              rc != 0 and f"{path}:{lineno}:" in err and "pingpong" not in out, f"rc={rc} {err[-300:]}")
        rc, out, err = run(17, [exe, "1000", "10"], "paper-16")
        check("a target with fewer cores than ranks is refused",
              rc != 0 and "paper-16" in err and "pingpong" not in out, f"rc={rc} {err[-300:]}")


def test_debian_mpicc():
    """A binary built against Debian's MPICH runs on ours via LD_LIBRARY_PATH."""
    cc = shutil.which("mpicc.mpich")
    if not cc:
        check("Debian's mpicc.mpich is installed (package libmpich-dev)", False)
        return
    exe = build("pingpong-debian", "pingpong.c", cc=cc)
    if not exe:
        return
    libs = subprocess.run(["ldd", exe], capture_output=True, text=True).stdout
    check("the Debian-built binary links libmpich.so.12", "libmpich.so.12" in libs, libs[-300:])
    s = 200000
    rc, out, err = run(2, [exe, str(s), "50"], env_extra={"LD_LIBRARY_PATH": os.path.join(PREFIX, "lib")})
    if need("Debian-built ping-pong runs", rc, out, err):
        check("Debian-built binary prints a prediction", JOB_LINE.search(out) is not None, out[-300:])
        near(f"Debian-built ping-pong {s} B on paper-16", field(out, "roundtrip_s"), 2 * rndv_oneway(PAPER, s, 3))
    clk = build("clocks-debian", "clocks.c", cc=cc)
    if clk:
        test_program_clocks([(clk, ("mono", "tod"))], env_extra={"LD_LIBRARY_PATH": os.path.join(PREFIX, "lib")},
                            label=" (Debian-built)")


def main():
    os.makedirs(OUT, exist_ok=True)
    if not os.access(os.path.join(BIN, "mpiexec"), os.X_OK):
        check("install/vaced exists (run ./build.sh)", False)
    else:
        pp = build("pingpong", "pingpong.c")
        if pp:
            sizes = [(32768, 200), (100000, 100), (200000, 100), (1048576, 30)]
            test_pingpong(pp, "ping-pong", PAPER, "paper-16", 3, sizes)
            # two ranks share a node of paper-1024: 0 hops, memory copies only
            test_pingpong(pp, "ping-pong", PAPER, "paper-1024", 0, [(1048576, 30)])
            test_eager_threshold(pp)
            test_warmup(pp)
            test_size_factors(pp)
            test_reports(pp)
            test_bad_target(pp)
        ppf = build("pingpong-f90", "pingpong.f90", compiler="mpif90")
        if ppf:
            test_pingpong(ppf, "Fortran 90 ping-pong", PAPER, "paper-16", 3, [(100000, 100)])
        ring = build("ring", "ring.c")
        if ring:
            test_ring(ring)
        loop = build("cpuloop", "cpuloop.c")
        if loop:
            test_cpuloop(loop)
        cold = build("coldstart", "coldstart.c")
        if cold:
            test_cold_starts(cold)
        coll = build("collectives", "collectives.c")
        if coll:
            test_collectives(coll)
            test_trace(coll)
        exchange = build("exchange", "exchange.c")
        if exchange:
            test_exchange(exchange)
            test_test_reads(exchange)
        test_cpu_share(exchange, pp)
        if pp:
            test_wakeup(pp, exchange)
        bench = build("vaced-calib-bench", os.path.join(ROOT, "vaced", "tools", "vaced-calib-bench.c"))
        if bench:
            test_injection_queue(bench)
            test_eager_cpu_share(bench)
        test_overhead_factors(pp, bench)
        if bench:
            test_overhead_coldness(bench)
        micro = build("microbench", os.path.join(ROOT, "tests", "apps", "microbench.c"))
        if micro:
            test_microbench(micro)
            test_recv_turns(micro)
        patterns = build("patterns", os.path.join(ROOT, "tests", "apps", "patterns.c"))
        if patterns:
            test_patterns(patterns)
        window = build("window", "window.c")
        if window:
            test_window_turns(window)
        adv = build("adversarial", "adversarial.c")
        if adv:
            test_adversarial(adv)
            test_wildcard_chains(adv)
            test_fig4(adv)
        if ring and loop:
            test_host_invariance(ring, loop)
            test_cpu_sources(ring, loop)
            test_cpu_source_remembered(ring)
        fdc = build("fdcount", "fdcount.c")
        if fdc:
            test_descriptors(fdc)
        spl = build("splitline", "splitline.c")
        if spl:
            test_whole_lines(spl)
        progs = [(build("clocks", "clocks.c"), ("mono", "tod")),
                 (build("clocks-omp", "clocks.c", flags=("-fopenmp",)), ("mono", "omp")),
                 (build("clocks-cxx", "clocks_cxx.cpp", compiler="mpicxx"), ("steady", "system")),
                 (build("clocks-f90", "clocks.f90", compiler="mpif90"), ("sysclock",))]
        test_program_clocks([(e, o) for e, o in progs if e])
        if progs[0][0]:
            test_host_clocks(progs[0][0])
        bd = build("breakdown", "breakdown.c")
        if pp:
            test_breakdown(pp, bd)
        nbc = build("nbcoll", "nbcoll.c")
        if nbc:
            test_nonblocking_collectives(nbc)
        test_overheads(pp, ring)
        faults = build("faults", "faults.c")
        if faults:
            test_faults(faults)
        if pp:
            test_killed_rank_rings(pp)
        longrun = build("longrun", "longrun.c")
        if longrun:
            test_long_run(longrun)
        test_debian_mpicc()
        breakdown_sums()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
