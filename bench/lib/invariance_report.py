#!/usr/bin/env python3
"""bench/invariance.sh's report: invariance.csv -> invariance.md.

usage: invariance_report.py CSV OUT.md CORES
"""
import csv
import statistics
import sys
from collections import OrderedDict

NAMES = {"1core": "1 core", "allcores": "all cores", "2hosts": "2 namespace hosts"}
GOAL = 0.03


def table(runs, hostings, key, with_cold):
    """The Markdown table of column `key`: per app, each hosting's median
    (spread, difference from all cores), and the largest difference."""
    md = ["| app | " + " | ".join(NAMES.get(h, h) for h in hostings) + " | largest difference |",
          "|---|" + "---|" * len(hostings) + "---|"]
    worst_all = 0.0
    for app, by_h in runs.items():
        med = {h: statistics.median(float(r[key]) for r in rs) for h, rs in by_h.items()}
        base = med.get("allcores")
        cells, worst = [], 0.0
        for h in hostings:
            rs = by_h.get(h)
            if not rs:
                cells.append("")
                continue
            preds = [float(r[key]) for r in rs]
            spread = max(preds) / min(preds) - 1
            colds = [float(r["cold_start_share"]) for r in rs if with_cold and r["cold_start_share"]]
            cold = f", cold {statistics.median(colds) * 100:.0f} %" if colds else ""
            diff = ""
            if base and h != "allcores":
                d = med[h] / base - 1
                worst = max(worst, abs(d))
                diff = f", {d * 100:+.1f} %"
            cells.append(f"{med[h]:.6f} s ({spread * 100:.1f} %{diff}{cold})")
        worst_all = max(worst_all, worst)
        md.append(f"| {app} | " + " | ".join(cells) + f" | {worst * 100:.1f} % |")
    return md + ["", f"Largest difference over all apps: {worst_all * 100:.1f} % "
                 f"({'within' if worst_all <= GOAL else 'beyond'} the {GOAL * 100:.0f} % goal)."]


def main():
    path, out, cores = sys.argv[1], sys.argv[2], sys.argv[3]
    runs = OrderedDict()
    hostings = []
    with open(path) as f:
        for r in csv.DictReader(f):
            runs.setdefault(r["app"], {}).setdefault(r["hosting"], []).append(r)
            if r["hosting"] not in hostings:
                hostings.append(r["hosting"])
    first = next((h for v in runs.values() for h in v.values()), [{}])[0]
    md = ["# Host invariance: one prediction, hosted three ways", "",
          f"Produced by `bench/invariance.sh` (see its `--help`); every run in "
          f"`invariance.csv`.  {first.get('ranks', '?')} ranks of each mini-app at class "
          f"{first.get('class', '?')} on target {first.get('target', '?')}, hosted on one core, on "
          f"all {cores} cores, and across 2 network-namespace hosts (which share the same "
          "cores).  Median prediction per hosting (its spread over the repetitions, max/min - 1, "
          "in brackets), its difference from the all-cores median, and the cold-start share "
          f"(median).  Goal: every difference within {GOAL * 100:.0f} %.", ""]
    md += table(runs, hostings, "prediction_s", with_cold=True)
    if all(r.get("uniform_prediction_s") for v in runs.values() for rs in v.values() for r in rs):
        md += ["", "## With uniform computation", "",
               "The same runs' records re-timed with `vaced replay --uniform-compute` (every rank's "
               "k-th compute segment the median of the k-th segments of the ranks with its sequence "
               "of calls, docs/replay.md): the prediction without the host's measurement noise "
               "carried along exchanges.", ""]
        md += table(runs, hostings, "uniform_prediction_s", with_cold=False)
    with open(out, "w") as f:
        f.write("\n".join(md) + "\n")


if __name__ == "__main__":
    main()
