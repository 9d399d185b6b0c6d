#!/usr/bin/env python3
"""bench/lib/weakscale_report.py and bench/lib/invariance_report.py, the
arithmetic of bench/weakscale.sh and bench/invariance.sh, on made-up CSVs
worked out by hand: weak-scaling cells (ratio and time per segment) and
the cold share at the largest P; invariance medians, spreads, differences
from the all-cores median and the largest difference.  No MPI needed.

    python3 tests/tools/test_host_reports.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
LIB = os.path.join(ROOT, "bench", "lib")


def row_of(md, first_cell):
    for line in md.splitlines():
        if line.startswith(f"| {first_cell} |"):
            return [c.strip() for c in line.strip("|").split("|")]
    return None


with tempfile.TemporaryDirectory() as tmp:
    # weak scaling: one program, P = 2 (base), 8, 64
    csv_path = os.path.join(tmp, "weakscale.csv")
    with open(csv_path, "w") as f:
        f.write("set,segment_us,lines,mode,ranks,iterations,compute_per_segment_us,ratio,cold_share,host_wall_s\n")
        f.write("2M,5,100,ring,2,10,5.0000,1.000,0.0000,0.1\n")
        f.write("2M,5,100,ring,8,10,7.5000,1.500,0.4000,0.2\n")
        f.write("2M,5,100,ring,64,10,14.0000,2.800,0.5250,0.9\n")
    p = subprocess.run([sys.executable, os.path.join(LIB, "weakscale_report.py"), csv_path, tmp, "2"],
                       capture_output=True, text=True)
    check("weakscale_report.py exits 0", p.returncode == 0, p.stderr.strip()[-300:])
    md = open(os.path.join(tmp, "weakscale.md")).read() if p.returncode == 0 else ""
    row = row_of(md, "2M")
    check("weak scaling: one row per program, a column per P and the cold share",
          row is not None and len(row) == 6, str(row))
    if row and len(row) == 6:
        check("weak scaling: P=2 is the reference", row[2] == "1.00 (5.0 us)", row[2])
        check("weak scaling: P=64 reads ratio and time", row[4] == "2.80 (14.0 us)", row[4])
        check("weak scaling: the cold share is the largest P's", row[5] == "52 %", row[5])

    # invariance: two apps, three hostings, three repetitions
    csv_path = os.path.join(tmp, "invariance.csv")
    preds = {("ep", "1core"): [1.10, 1.00, 1.05], ("ep", "allcores"): [1.00, 0.98, 1.02],
             ("ep", "2hosts"): [0.99, 0.97, 1.00],
             ("lu", "1core"): [2.00, 2.02, 2.04], ("lu", "allcores"): [2.00, 2.00, 2.00],
             ("lu", "2hosts"): [2.02, 2.00, 2.04]}
    with open(csv_path, "w") as f:
        f.write("app,class,ranks,target,hosting,rep,prediction_s,cold_start_share,host_wall_s\n")
        for (app, h), vals in preds.items():
            for rep, v in enumerate(vals, 1):
                f.write(f"{app},W,64,paper-1024,{h},{rep},{v},0.5,1.0\n")
    out = os.path.join(tmp, "invariance.md")
    p = subprocess.run([sys.executable, os.path.join(LIB, "invariance_report.py"), csv_path, out, "2"],
                       capture_output=True, text=True)
    check("invariance_report.py exits 0", p.returncode == 0, p.stderr.strip()[-300:])
    md = open(out).read() if p.returncode == 0 else ""
    ep, lu = row_of(md, "ep"), row_of(md, "lu")
    check("invariance: a row per app, a column per hosting and the largest difference",
          ep is not None and lu is not None and len(ep) == 5, f"{ep} {lu}")
    if ep and lu and len(ep) == 5:
        # ep: medians 1.05, 1.00, 0.99; spreads 10 %, 4.1 %, 3.1 %
        check("invariance: one core's median, spread and difference",
              ep[1] == "1.050000 s (10.0 %, +5.0 %, cold 50 %)", ep[1])
        check("invariance: all cores is the reference", ep[2] == "1.000000 s (4.1 %, cold 50 %)", ep[2])
        check("invariance: 2 hosts' difference", ep[3].startswith("0.990000 s (3.1 %, -1.0 %"), ep[3])
        check("invariance: the largest difference of an app", ep[4] == "5.0 %" and lu[4] == "1.0 %",
              f"{ep[4]} {lu[4]}")
    check("invariance: the largest difference over all apps, against the 3 % goal",
          "Largest difference over all apps: 5.0 % (beyond the 3 % goal)." in md, md[-200:])
finish()
