#!/usr/bin/env python3
"""bench/lib/report.py, the validation's arithmetic, on a made-up CSV
whose REs, noise floor and slowdowns were worked out by hand: the RE of
the minima and of the medians, a failed run left out, the per-class
summary, the odd/even noise floor.  No MPI needed.

    python3 tests/tools/test_report.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import csv
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
REPORT = os.path.join(ROOT, "bench", "lib", "report.py")


# TIME= of repetitions 1-3 per (app, class, configuration)
TIMES = {
    ("ep", "S"): {"real": [1.0, 1.2, 1.1], "vaced-1core": [1.05, 1.30, 1.20], "vaced-2core": [0.88, 1.0, 0.95],
                  "netns-real": [2.0, 2.2, 2.1], "netns-vaced-1core": [2.3, 2.4, 2.35],
                  "netns-vaced-2core": [1.9, 2.0, 2.1]},
    ("cg", "S"): {"real": [0.5, 0.5, 0.6], "vaced-1core": [0.46, 0.5, 0.55], "vaced-2core": [0.51, 0.52, 0.53],
                  "netns-real": [1.0, 1.1, 1.0], "netns-vaced-1core": [1.04, 1.05, 1.06],
                  "netns-vaced-2core": [1.08, 1.09, 1.14]},
    ("ep", "W"): {"real": [2.0, 2.0, 2.0], "vaced-1core": [2.1, 2.1, 2.1], "vaced-2core": [2.02, 2.02, 2.02],
                  "netns-real": [3.0, 3.0, 3.0], "netns-vaced-1core": [2.97, 2.97, 2.97],
                  "netns-vaced-2core": [3.06, 3.06, 3.06]},
    ("cg", "W"): {"real": [4.0, 4.4, 4.2], "vaced-1core": [4.16, 4.2, 4.3], "vaced-2core": [3.8, 4.0, 4.1],
                  "netns-real": [8.0, 8.0, 8.0], "netns-vaced-1core": [8.16, 8.16, 8.16],
                  "netns-vaced-2core": [7.6, 7.8, 8.0]},
}
# host wall time per configuration: slowdown 1 core = 2.2 / 2.0, 2 cores = 1.1 / 1.0
WALL = {"real": 1.0, "real-1core": 2.0, "vaced-1core": 2.2, "vaced-2core": 1.1,
        "netns-real": 1.5, "netns-vaced-1core": 2.4, "netns-vaced-2core": 1.3}
FIELDS = ("run_id,app,class,config,rep,host_cores,target,time_s,prediction_s,pred_compute_s,pred_comm_s,"
          "wall_s,cpu_s,others_cpus,steal_cpus,verified,exit,load1,start_utc").split(",")


def row(app, cls, cfg, rep, time_s, exit_status="0"):
    vaced = "vaced" in cfg
    return {"run_id": "20260101T000000Z", "app": app, "class": cls, "config": cfg, "rep": rep,
            "host_cores": "0", "target": "t.topo" if vaced else "-", "time_s": f"{time_s}",
            "prediction_s": f"{time_s}" if vaced else "", "pred_compute_s": "", "pred_comm_s": "",
            "wall_s": f"{WALL[cfg]}", "cpu_s": "1.0", "others_cpus": "0.00", "steal_cpus": "0.00",
            "verified": "yes" if exit_status == "0" else "no", "exit": exit_status, "load1": "0.1",
            "start_utc": "2026-01-01T00:00:00Z"}


def write_csv(path):
    rows = []
    for (app, cls), cfgs in TIMES.items():
        for rep in (1, 2, 3):
            for cfg, times in cfgs.items():
                rows.append(row(app, cls, cfg, rep, times[rep - 1]))
            rows.append(row(app, cls, "real-1core", rep, 9.9))
    # a failed run, faster than any: it must not count
    rows.append(row("ep", "S", "vaced-1core", 4, 0.1, exit_status="1"))
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=FIELDS)
        w.writeheader()
        w.writerows(rows)


def run_report(tmp, *opts):
    out = os.path.join(tmp, "out" + "".join(o.strip("-") for o in opts))
    os.makedirs(out)
    p = subprocess.run([sys.executable, REPORT, *opts, os.path.join(tmp, "v.csv"), out],
                       capture_output=True, text=True)
    check(f"report.py {' '.join(opts)} exits 0", p.returncode == 0,
          "" if p.returncode == 0 else p.stderr.strip()[-300:])
    read = lambda name: open(os.path.join(out, name)).read() if os.path.exists(os.path.join(out, name)) else ""
    return read("README-results.md"), read("validation.md")


def table_row(text, app, cls):
    m = re.search(rf"^\| {app} \| {cls} \|.*$", text, re.M)
    return m.group(0) if m else ""


with tempfile.TemporaryDirectory() as tmp:
    write_csv(os.path.join(tmp, "v.csv"))
    readme, full = run_report(tmp)

    ep_s = table_row(readme, "EP", "S")
    # 1 core: min 1.05 / min 1.0; 2 cores 0.88 / 1.0; netns 2.3 / 2.0
    check("EP S: RE of the minima on 1 core +5.0 %, the failed 0.1 s run left out", "| +5.0 % |" in ep_s, ep_s)
    check("EP S: RE on 2 cores -12.0 %, netns +15.0 % and -5.0 %",
          "| -12.0 % |" in ep_s and "| +15.0 % | -5.0 % |" in ep_s, ep_s)
    check("EP S: real median (min-max) 1.100 (1.000-1.200) s", "1.100 (1.000–1.200)" in ep_s, ep_s)
    check("EP S: slowdown 1.10 / 1.10", ep_s.endswith("| 1.10 / 1.10 |"), ep_s)
    check("the failed run is counted as failed in the full report", "[1 failed]" in table_row(full, "EP", "S"),
          table_row(full, "EP", "S"))

    # 1 core: +5, -8 (class S), +5, +4 (class W); medians +9.09, 0, +5, 0
    want = ("- VACED on 1 core: mean |RE| 5.5 %, worst -8.0 %, 4 of 4 within 10 %; class S 6.5 % (2 of 2), "
            "class W 4.5 % (2 of 2). With the medians: 3.5 %, 4 of 4.")
    check("summary, 1 core: mean, worst, per class, medians", want in readme,
          next((l for l in readme.splitlines() if l.startswith("- VACED on 1 core")), "no line"))
    # netns: +15, +4, -1, +2
    want = "- netns target, 1 core: mean |RE| 5.5 %, worst +15.0 %, 3 of 4 within 10 %; class S 9.5 % (1 of 2)"
    check("summary, netns on 1 core", want in readme,
          next((l for l in readme.splitlines() if l.startswith("- netns target, 1")), "no line"))
    # netns on 2 cores: -5, +8, +2, -5; medians -4.76, +9, +2, -2.5
    want = ("- netns target, 2 cores: mean |RE| 5.0 %, worst +8.0 %, 4 of 4 within 10 %; class S 6.5 % (2 of 2), "
            "class W 3.5 % (2 of 2). With the medians: 4.6 %, 4 of 4.")
    check("summary, netns on 2 cores", want in readme,
          next((l for l in readme.splitlines() if l.startswith("- netns target, 2")), "no line"))
    net_ep_s = table_row(full[full.find("## Target: two network"):], "EP", "S")
    check("full report, netns EP S: RE +15.0 % on 1 core, -5.0 % on 2 cores, slowdowns 1.20 (2.4 / 2.0) and 1.30 (1.3 / 1.0)",
          "| +15.0 % (" in net_ep_s and "| -5.0 % (" in net_ep_s and net_ep_s.endswith("| 1.20 | 1.30 |"), net_ep_s)
    # real, odd (1, 3) against even (2) repetitions' minima: -16.7, 0, 0, -9.1
    check("noise floor of the real runs 6.4 %, 3 of 4 within 10 %", "real 6.4 % (3/4 within 10 %)" in readme)

    # real EP S: 1.0, 1.2, 1.1 -> mean 1.1, sample standard deviation 0.1
    means = full[full.find("Mean ± standard deviation"):]
    check("full report: EP S real mean ± sd 1.100 ± 0.1000", table_row(means, "EP", "S").startswith(
          "| EP | S | 1.100 ± 0.1000 |"), table_row(means, "EP", "S"))

    readme_med, _ = run_report(tmp, "--estimator", "median")
    ep_s = table_row(readme_med, "EP", "S")
    check("--estimator median: EP S on 1 core +9.1 % (1.20 / 1.10)", "| +9.1 % |" in ep_s, ep_s)

finish()
