#!/usr/bin/env python3
"""MPI integration tests of the patched MPICH (install/vaced).

Real programs, built with the installed mpicc and mpif90, run with the
installed mpiexec.  Their predictions are compared with closed forms
computed here, independently of vaced/, from the model of DESIGN.md
section 2 and the paper's parameters.

Tolerances are 2%: the predictions contain, as they must, the host CPU
time spent between MPI calls.  On the 2-core test machine that is a few
hundred nanoseconds per message (cache and interrupt noise), under 1% of
every message time chosen below; the CPU-bound loop is timed by the test
itself with the same thread clock.

Usage: test_predictions.py ROOT     (prints one line per check and ends
with 'N passed, M failed'; exit status 1 when a check failed)
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

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


def near(name, got, want, tol=TOLERANCE):
    if got is None:
        check(name, False, "(no measurement in the program's output)")
        return
    err = (got - want) / want if want else float("inf")
    check(name, abs(err) <= tol,
          f"(predicted {got * 1e6:.3f} us, closed form {want * 1e6:.3f} us, {err * 100:+.2f}%)", always=True)


# --- the model, written out for the tests ------------------------------------
def copy(net, s):
    return s / net["bmem"]


def latency(net, h):
    return net["l0"] + h * net["lh"]


def transfer(net, s, h):
    return s / net["bnet"] + latency(net, h) if h > 0 else s / net["bmem"]


def eager_oneway(net, s, h):
    """Send copy, transfer, receive copy (eqs. 3 and 4)."""
    return 2 * copy(net, s) + transfer(net, s, h)


def rndv_oneway(net, s, h):
    """REQ and ACK (header only), then the DATA from when the ACK arrives."""
    return 2 * transfer(net, 0, h) + eager_oneway(net, s, h)


# --- running programs ---------------------------------------------------------
def build(name, src, compiler="mpicc", cc=None):
    exe = os.path.join(OUT, name)
    cmd = [cc or os.path.join(BIN, compiler), "-O2", "-o", exe, os.path.join(SRC, src)]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        check(f"build {name}", False, r.stderr[-2000:])
        return None
    return exe


def run(nprocs, argv, target="paper-16", env_extra=None, timeout=300):
    env = dict(os.environ)
    env.pop("VACED_QUIET", None)
    env.pop("VACED_JSON", None)
    env["VACED_TARGET"] = target
    env.update(env_extra or {})
    cmd = [os.path.join(BIN, "mpiexec"), "-n", str(nprocs)] + argv
    try:
        r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=timeout)
    except subprocess.TimeoutExpired:
        return -1, "", f"timeout after {timeout} s: {' '.join(cmd)}"
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
def test_pingpong(exe, label, net, target, hops, sizes):
    for s, iters in sizes:
        rc, out, err = run(2, [exe, str(s), str(iters)], target)
        if not need(f"{label} {s} B runs", rc, out, err):
            continue
        oneway = eager_oneway if s + 64 <= 131072 else rndv_oneway
        near(f"{label} {s} B on {target} ({'eager' if oneway is eager_oneway else 'rendezvous'})",
             field(out, "roundtrip_s"), 2 * oneway(net, s, hops))


def test_ring(exe):
    for p, s in ((8, 65536), (16, 65536)):
        rc, out, err = run(p, [exe, str(s), "20"])
        if need(f"ring {p} ranks runs", rc, out, err):
            near(f"ring of {p} ranks, {s} B, on paper-16", field(out, "lap_s"), p * eager_oneway(PAPER, s, 3))


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
    algos = {"MPIR_CVAR_ALLREDUCE_INTRA_ALGORITHM": "recursive_doubling",
             "MPIR_CVAR_ALLTOALL_INTRA_ALGORITHM": "pairwise"}
    count = 1024
    s = 8 * count
    target = os.path.join(SRC, "slow-net.topo")
    for p in (4, 8):
        rc, out, err = run(p, [exe, str(count), "5"], target, algos)
        if not need(f"collectives {p} ranks run", rc, out, err):
            continue
        check(f"collectives {p} ranks: results are right", "result=ok" in out, out[-300:])
        rounds = p.bit_length() - 1
        reduce_local, localcopy = field(out, "reduce_local_s"), field(out, "localcopy_s")
        round_time = eager_oneway(SLOW, s, 2)
        near(f"MPI_Allreduce, recursive doubling, {p} ranks, {s} B",
             field(out, "allreduce_s"), rounds * (round_time + reduce_local) + localcopy)
        near(f"MPI_Alltoall, pairwise exchange, {p} ranks, {s} B",
             field(out, "alltoall_s"), (p - 1) * round_time + localcopy)


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


def test_bad_target(exe):
    with tempfile.TemporaryDirectory() as d:
        path = os.path.join(d, "bad.topo")
        with open(os.path.join(ROOT, "topo", "paper-16.topo")) as f:
            text = f.read()
        with open(path, "w") as f:
            f.write(text.replace("bnet            = 4.16 GB/s", "bnet            = -4 GB/s"))
        lineno = next(i for i, l in enumerate(text.splitlines(), 1) if l.startswith("bnet"))
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
        coll = build("collectives", "collectives.c")
        if coll:
            test_collectives(coll)
        test_debian_mpicc()
    print(f"{passed} passed, {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
