#!/usr/bin/env python3
"""bench/smpi.sh's report: smpi.csv -> smpi.md.

usage: smpi_report.py CSV OUT.md CORES
"""
import csv
import sys
from collections import OrderedDict

FLAG = 0.10


def main():
    path, out, cores = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = OrderedDict()
    with open(path) as f:
        for r in csv.DictReader(f):
            runs.setdefault((r["app"], r["class"], int(r["ranks"]), r["target"]), {})[r["tool"]] = r
    md = ["# VACED and SMPI side by side", "",
          "Produced by `bench/smpi.sh` (see its `--help`); every run in `smpi.csv`.  The app's "
          "timed section (its TIME= line, in target time under both tools), VACED's against "
          "SMPI's (Debian's SimGrid, on the platform `vaced export-simgrid` writes for the same "
          f"target and rank count), and each tool's host wall time (VACED: its ranks on {cores} "
          "cores; SMPI: one process).  *paper-flat-P*: paper-16's figures with P cores, one a "
          f"node.  Differences beyond {FLAG * 100:.0f} % are marked and discussed in "
          "`smpi-notes.md`.", "",
          "| app | class | ranks | target | VACED (s) | SMPI (s) | VACED / SMPI - 1 | host wall VACED / SMPI (s) |",
          "|---|---|---|---|---|---|---|---|"]
    flagged = 0
    for (app, cls, p, target), tools in runs.items():
        v, s = tools.get("vaced"), tools.get("smpi")
        if not v or not s or not v["time_s"] or not s["time_s"]:
            continue
        vt, st = float(v["time_s"]), float(s["time_s"])
        d = vt / st - 1
        mark = " **" if abs(d) > FLAG else ""
        flagged += abs(d) > FLAG
        md.append(f"| {app} | {cls} | {p} | {target} | {vt:.6f} | {st:.6f} | {mark.strip()}{d * 100:+.1f} %{mark.strip()} "
                  f"| {float(v['host_wall_s']):.1f} / {float(s['host_wall_s']):.1f} |")
    md += ["", f"{flagged} of {len(runs)} comparisons differ by more than {FLAG * 100:.0f} %."]
    with open(out, "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
