#!/usr/bin/env python3
"""A large job on one host: 1024 ranks of a token ring (tests/mpi/ring.c)
through `vaced run` on paper-1024, and the front end's refusal of a job
the host's limits cannot hold (docs/limits.md#large-jobs).

1. Every rank reports: exactly one "vaced: rank R of 1024" line for each R,
   the job line names 1024 ranks and is the largest rank's prediction, the
   JSON has the 1024 ranks with the same values.
2. The lap (rank 0's MPI_Wtime over LAPS laps) is the sum of the hops'
   eager one-way times on paper-1024 (eqs. 3-5, hops 0 / 3 / 5 by node and
   switch group, block mapping), written out here: within 2 % below, and
   above by at most the ranks' computation a lap (the host's time between
   a rank's receive and its send lies on the lap's path; all the ranks'
   computation over LAPS bounds it).
3. Every rank's prediction lies between LAPS laps and LAPS + 1 laps (the
   warm-up lap and the last) of that closed form, with the same slack.
4. With a hard limit of open files below what 1024 ranks need, `vaced run`
   stops before launching, with exit status 1 and a message naming the
   limit, the fix and the ranks that fit; no rank runs.

    python3 tests/mpi/test_large.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
from checks import check, finish  # noqa: E402
# one execution a vaced run (the default is two) unless a check asks for more
os.environ["VACED_REPEAT"] = "1"

BIN = os.path.join(ROOT, "install", "vaced", "bin")
VACED = os.path.join(ROOT, "vaced", "tools", "vaced")
OUT = os.path.join(ROOT, "build", "tests")
P, BYTES, LAPS = 1024, 65536, 3
TOL = 0.02
# paper-1024 (topo/paper-1024.topo, the paper's section 5.2)
CORES_PER_NODE, NODES_PER_GROUP, HOPS = 12, 16, (0, 3, 5)
BMEM, BNET, L0, LH = 6.38e9, 4.16e9, 15e-6, 0.6e-6

RANK_LINE = re.compile(r"^vaced: rank (\d+) of (\d+): predicted ([0-9.]+) s \(compute ([0-9.]+) s, "
                       r"communication ([0-9.]+) s\)$", re.M)
JOB_LINE = re.compile(r"^vaced: prediction ([0-9.]+) s on target (\S+) \((\d+) ranks;", re.M)


def hops(a, b):
    na, nb = a // CORES_PER_NODE, b // CORES_PER_NODE
    if na == nb:
        return HOPS[0]
    return HOPS[1] if na // NODES_PER_GROUP == nb // NODES_PER_GROUP else HOPS[2]


def eager_oneway(s, h):
    """Send copy, transfer (a memory copy on one node), receive copy."""
    transfer = s / BMEM if h == 0 else s / BNET + L0 + h * LH
    return 2 * s / BMEM + transfer


def lap_closed_form(p, s):
    return sum(eager_oneway(s, hops(r, (r + 1) % p)) for r in range(p))


def run_ring(ring, laps, d):
    """(stdout, rank lines [(rank, of, predicted, compute)], per-rank JSON
    by rank) of one ring through vaced run, or None."""
    js = os.path.join(d, f"ring-{laps}.json")
    env = dict(os.environ)
    for k in ("VACED_QUIET", "VACED_JSON", "VACED_TARGET"):
        env.pop(k, None)
    try:
        r = subprocess.run([VACED, "run", "-n", str(P), "--target", "paper-1024", "--json", js, "--",
                            ring, str(BYTES), str(laps)], capture_output=True, text=True, env=env, timeout=600)
    except subprocess.TimeoutExpired:
        check(f"{P}-rank ring of {laps} laps ends within 600 s", False)
        return None
    if not check(f"{P}-rank ring of {laps} laps through vaced run exits 0", r.returncode == 0,
                 "" if r.returncode == 0 else f"exit {r.returncode}: {r.stderr[-1500:]}"):
        return None
    lines = [(int(m.group(1)), int(m.group(2)), float(m.group(3)), float(m.group(4)))
             for m in RANK_LINE.finditer(r.stdout)]
    try:
        with open(js) as f:
            per = {x["rank"]: x for x in json.load(f)["per_rank"]}
    except (OSError, ValueError, KeyError):
        per = {}
    return r.stdout, lines, per


def test_ring(ring):
    with tempfile.TemporaryDirectory(dir=OUT) as d:
        got = run_ring(ring, LAPS, d)
        if got is None:
            return
        out, lines, per = got
        ranks = sorted(x[0] for x in lines)
        check(f"exactly one rank line for each of the {P} ranks", ranks == list(range(P)),
              f"{len(lines)} lines, {len(set(ranks))} distinct ranks")
        check(f"every rank line says 'of {P}'", lines and all(x[1] == P for x in lines))
        job = JOB_LINE.search(out)
        if not check("the job line is printed", job is not None, "" if job else out[-500:]):
            return
        pred = {x[0]: x[2] for x in lines}
        check(f"the job line names paper-1024 and {P} ranks",
              job.group(2) == "paper-1024" and int(job.group(3)) == P, job.group(0))
        check("the job's prediction is the slowest rank's",
              pred and abs(float(job.group(1)) - max(pred.values())) < 1e-9,
              f"job {job.group(1)} s, slowest rank {max(pred.values()) if pred else None} s")
        check(f"the JSON has the {P} ranks with their lines' predictions",
              sorted(per) == list(range(P)) and all(abs(per[k]["total_s"] - pred.get(k, -1)) < 1e-9 for k in per),
              f"{len(per)} ranks")
        m = re.search(r"^ring ranks=(\d+) .* lap_s=([0-9.eE+-]+)", out, re.M)
        if not check("the ring prints its lap", m is not None, "" if m else out[-300:]):
            return
        # all the ranks' computation, the start-up's and the warm-up lap's
        # included, over LAPS: a bound of a lap's on its path (the
        # difference of two runs' computation is not one: the host's cold
        # segments vary from run to run by more than a lap's)
        slack = sum(x[3] for x in lines) / LAPS
        lap, want = float(m.group(2)), lap_closed_form(P, BYTES)
        check(f"lap of {P} ranks, {BYTES} B, on paper-1024 within {TOL:.0%} below the closed form and at most "
              f"the ranks' computation a lap above",
              -TOL * want <= lap - want <= TOL * want + slack,
              f"predicted {lap * 1e3:.4f} ms, closed form {want * 1e3:.4f} ms, {(lap - want) / want:+.2%}, "
              f"computation a lap {slack * 1e3:.4f} ms")
        lo, hi = LAPS * want * (1 - TOL), (LAPS + 1) * (want * (1 + TOL) + slack)
        out_of = [(k, v) for k, v in pred.items() if not lo <= v <= hi]
        check(f"every rank's prediction between {LAPS} and {LAPS + 1} laps of the closed form",
              pred and not out_of, f"[{lo * 1e3:.3f}, {hi * 1e3:.3f}] ms; outside: {out_of[:5]}")


def test_limit(ring):
    """Without CAP_SYS_RESOURCE (setpriv) a hard limit cannot be raised."""
    setpriv = shutil.which("setpriv")
    if not check("setpriv is installed (util-linux)", setpriv is not None):
        return
    script = (f"ulimit -n 1000 && exec {setpriv} --bounding-set=-sys_resource --inh-caps=-sys_resource "
              f"{VACED} run -n {P} --target paper-1024 --quiet -- {ring} {BYTES} 1")
    r = subprocess.run(["bash", "-c", script], capture_output=True, text=True, timeout=120)
    check(f"hard limit 1000 open files, {P} ranks: vaced run exits 1", r.returncode == 1,
          f"exit {r.returncode}")
    # 4 P + 64 open files; (1000 - 64) / 4 ranks fit
    want = (f"-n {P} needs {4 * P + 64} open files", "hard limit is 1000", "ulimit -Hn", "run at most 234 ranks")
    check("the message names the need, the limit, the fix and the ranks that fit",
          all(w in r.stderr for w in want), r.stderr.strip()[-500:])
    check("no rank ran", "ring ranks=" not in r.stdout and "vaced: rank" not in r.stdout, r.stdout[-300:])


def main():
    os.makedirs(OUT, exist_ok=True)
    ring = os.path.join(OUT, "ring-large")
    b = subprocess.run([os.path.join(BIN, "mpicc"), "-O2", "-o", ring, os.path.join(ROOT, "tests", "mpi", "ring.c")],
                       capture_output=True, text=True)
    if check("build ring.c", b.returncode == 0, b.stderr[-1000:]):
        test_limit(ring)
        test_ring(ring)
    finish()


if __name__ == "__main__":
    main()
