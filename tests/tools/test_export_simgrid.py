#!/usr/bin/env python3
"""vaced export-simgrid (vaced/tools/vaced_export_simgrid.py): the platform it
writes for paper-16 and paper-1024 holds, for every ordered pair of ranks,
the latency and bandwidth of the paper's closed form (l0 + h lh and bnet
between nodes; 0 and bmem on one node, 12 cores a node on paper-1024); the
host file and smpirun's options say what they should; bad input is
refused with the reason.  Then SMPI itself (Debian's libsimgrid-dev) runs
tests/mpi/pingpong.c on the exported 2-rank paper-16 platform: its round
trip is 2 (l + s / bnet) within 0.5 %, eager and rendezvous.

    python3 tests/tools/test_export_simgrid.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
VACED = os.path.join(ROOT, "vaced", "tools", "vaced")
L0, LH, BNET, BMEM = 15e-6, 0.6e-6, 4.16e9, 6.38e9    # topo/paper-*.topo


def export(tmp, target, ranks):
    out = os.path.join(tmp, f"{target}-{ranks}")
    r = subprocess.run([sys.executable, VACED, "export-simgrid", target, "-n", str(ranks), "-o", out],
                       capture_output=True, text=True)
    return r, out


def routes(out):
    """{(src, dst): (latency_s, bandwidth_Bps)} and the host ids."""
    root = ET.parse(os.path.join(out, "platform.xml")).getroot()
    zone = root.find("zone")
    links = {l.get("id"): (float(l.get("latency")[:-1]), float(l.get("bandwidth")[:-3]))
             for l in zone.findall("link")}
    hosts = [h.get("id") for h in zone.findall("host")]
    pairs = {}
    for r in zone.findall("route"):
        ids = [c.get("id") for c in r.findall("link_ctn")]
        pairs[(r.get("src"), r.get("dst"))] = links[ids[0]] if len(ids) == 1 else None
    return hosts, pairs


def near(a, b, tol=1e-6):
    return abs(a - b) <= tol * abs(b)


with tempfile.TemporaryDirectory() as tmp:
    r, out = export(tmp, "paper-16", 16)
    check("export-simgrid paper-16 -n 16 exits 0 and names its files",
          r.returncode == 0 and "platform.xml" in r.stdout and "smpirun.args" in r.stdout, r.stderr[-300:])
    if r.returncode == 0:
        hosts, pairs = routes(out)
        check("paper-16: 16 hosts and a route for each of the 240 ordered pairs",
              hosts == [f"r{i}" for i in range(16)] and len(pairs) == 240, f"{len(hosts)} {len(pairs)}")
        bad = [p for p, v in pairs.items() if v is None or not near(v[0], L0 + 3 * LH) or not near(v[1], BNET)]
        check("paper-16: every route is one link of l0 + 3 lh and bnet", not bad, str(bad[:3]))
        with open(os.path.join(out, "hostfile")) as f:
            check("paper-16: the host file lists the hosts in rank order",
                  f.read().split() == [f"r{i}" for i in range(16)])
        with open(os.path.join(out, "smpirun.args")) as f:
            args = f.read().split("\n")
        want = ["-np", "16", "--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1",
                "--cfg=smpi/async-small-thresh:131072", "--cfg=smpi/send-is-detached-thresh:131072",
                "--cfg=smpi/coll-selector:mpich", "--cfg=smpi/host-speed:1Gf"]
        check("paper-16: smpirun's options: P, factors off, the eager threshold, MPICH's collectives",
              all(w in args for w in want), str(args))

    r, out = export(tmp, "paper-1024", 48)
    if check("export-simgrid paper-1024 -n 48 exits 0", r.returncode == 0, r.stderr[-300:]):
        hosts, pairs = routes(out)
        same = {p: v for p, v in pairs.items() if int(p[0][1:]) // 12 == int(p[1][1:]) // 12}
        other = {p: v for p, v in pairs.items() if p not in same}
        check("paper-1024: pairs on one node (12 cores a node) have latency 0 and bmem",
              len(same) == 4 * 12 * 11 and all(v[0] == 0 and near(v[1], BMEM) for v in same.values()),
              str(list(same.items())[:2]))
        check("paper-1024: pairs across nodes have l0 + h lh with h > 0, and bnet",
              all(near(v[1], BNET) and v[0] > L0 and near((v[0] - L0) / LH, round((v[0] - L0) / LH))
                  for v in other.values()), str(list(other.items())[:2]))

    r, _ = export(tmp, "paper-16", 17)
    check("more ranks than the target's cores: refused with the file and line",
          r.returncode == 1 and re.search(r"paper-16\.topo:\d+: .*17 ranks", r.stderr), r.stderr[-300:])
    r, _ = export(tmp, "no-such-target", 2)
    check("an unknown target: refused, naming the shipped ones",
          r.returncode == 2 and "paper-16" in r.stderr, r.stderr[-300:])
    r = subprocess.run([sys.executable, VACED, "export-simgrid", "paper-16"], capture_output=True, text=True)
    check("no -n: a usage error", r.returncode == 2 and "-n" in r.stderr, r.stderr[-300:])

    smpicc, smpirun = shutil.which("smpicc"), shutil.which("smpirun")
    if check("SimGrid's smpicc and smpirun are installed (Debian's libsimgrid-dev)", smpicc and smpirun):
        exe = os.path.join(tmp, "pingpong")
        b = subprocess.run([smpicc, "-O2", "-o", exe, os.path.join(ROOT, "tests", "mpi", "pingpong.c")],
                           capture_output=True, text=True)
        r, out = export(tmp, "paper-16", 2)
        if check("smpicc builds tests/mpi/pingpong.c", b.returncode == 0 and r.returncode == 0,
                 b.stderr[-300:] + r.stderr[-300:]):
            with open(os.path.join(out, "smpirun.args")) as f:
                args = [a for a in f.read().split("\n") if a]
            for size in (1024, 1048576):
                # the network model alone: SMPI would also count the host's time
                # between calls (its copies of 1 MiB), which varies run to run
                p = subprocess.run([smpirun] + args + ["--cfg=smpi/simulate-computation:no", exe, str(size), "20"],
                                   capture_output=True, text=True, timeout=120)
                m = re.search(r"roundtrip_s=([0-9.]+)", p.stdout)
                want = 2 * (L0 + 3 * LH + size / BNET)
                got = float(m.group(1)) if m else None
                check(f"SMPI on the exported paper-16: {size} B round trip is 2 (l + s / bnet) within 0.5 %",
                      got is not None and abs(got / want - 1) <= 0.005,
                      f"(SMPI {got}, closed form {want:.9f}) {p.stderr[-300:] if not m else ''}")
finish()
