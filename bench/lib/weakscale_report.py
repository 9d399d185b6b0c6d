#!/usr/bin/env python3
"""bench/weakscale.sh's report: weakscale.csv -> weakscale.md, weakscale.png.

usage: weakscale_report.py CSV OUTDIR CORES
"""
import csv
import os
import shutil
import subprocess
import sys
from collections import OrderedDict


def load(path):
    programs = OrderedDict()
    with open(path) as f:
        for row in csv.DictReader(f):
            key = (row["set"], int(row["segment_us"]), row["mode"])
            programs.setdefault(key, []).append(row)
    return programs


def table(programs, ranks, cores):
    out = ["| working set | segment | " + " | ".join(f"P={p}" for p in ranks) +
           " | cold share at the largest P |",
           "|---|---|" + "---|" * len(ranks) + "---|"]
    for (ws, seg, _), rows in programs.items():
        by_p = {int(r["ranks"]): r for r in rows}
        cells = []
        for p in ranks:
            r = by_p.get(p)
            cells.append(f"{float(r['ratio']):.2f} ({float(r['compute_per_segment_us']):.1f} us)"
                         if r else "")
        last = by_p[max(by_p)]
        out.append(f"| {ws} | {seg} us | " + " | ".join(cells) +
                   f" | {float(last['cold_share']) * 100:.0f} % |")
    return out


def plot(programs, outdir, cores):
    if not shutil.which("gnuplot"):
        return False
    data = os.path.join(outdir, ".weakscale.dat")
    with open(data, "w") as f:
        for (ws, seg, _), rows in programs.items():
            f.write(f'"{ws}, {seg} us"\n')
            for r in rows:
                f.write(f"{r['ranks']} {r['ratio']}\n")
            f.write("\n\n")
    n = len(programs)
    script = f"""
set terminal pngcairo size 1000,600 font ",10"
set output "{os.path.join(outdir, 'weakscale.png')}"
set logscale x 2
set xlabel "ranks on {cores} host cores"
set ylabel "mean compute per segment / one rank a core"
set key outside right
set grid
set title "Weak scaling: computation VACED measures against ranks per host core"
plot for [i=0:{n - 1}] "{data}" index i using 1:2 with linespoints title columnheader(1)
"""
    subprocess.run(["gnuplot"], input=script, text=True, check=True)
    os.unlink(data)
    return True


def main():
    path, outdir, cores = sys.argv[1], sys.argv[2], sys.argv[3]
    programs = load(path)
    ranks = sorted({int(r["ranks"]) for rows in programs.values() for r in rows})
    md = ["# Weak scaling: measured computation against ranks per host core", "",
          "Produced by `bench/weakscale.sh` (see its `--help`); figures in "
          "`weakscale.csv`.  Each program is `bench/weakscale.c` with one working "
          "set a rank and one compute segment length (on one rank a core); every "
          f"rank does the same work at every P, so on the target its computation "
          f"does not depend on P.  Cells: VACED's mean per-rank compute time per "
          f"segment at P ranks on {cores} host cores, over its value at P={ranks[0]} "
          "(one rank a core), and the time itself.  The cold share is the part of "
          "the computation in segments that began after the rank slept on an "
          "oversubscribed host (`compute_cold_s` in the JSON).", ""]
    md += table(programs, ranks, cores)
    if plot(programs, outdir, cores):
        md += ["", "![ratio against P](weakscale.png)"]
    with open(os.path.join(outdir, "weakscale.md"), "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
