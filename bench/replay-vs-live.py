#!/usr/bin/env python3
"""What a user sees from a replay: a record re-timed on another target
against ordinary live runs on that target.

For each app, rank count and target, --reps repetitions, interleaved: a
live run on the base target that records (VACED_RECORD), an ordinary live
run on the other target (its own computation, measured on the host), in
alternating order, then the record replayed on the other target
(vaced replay).  A replay and a live run on the same target then differ
by the host's noise in the computation each measured plus what the
replay approximates.  The live runs' own spread is the floor.

The consistency check (a live run fed the record's compute,
VACED_COMPUTE_FROM) is tests/mpi/test_replay.py's; results/replay-accuracy.md.

    bench/replay-vs-live.py [--apps cg,mg,lu,ft] [--class S] [--reps 5]
                            [--ranks 16,64] [--out results/replay-vs-live]

Writes OUT.csv (one row a run) and OUT.md (the summary); prints the
summary.  Needs install/vaced; builds the apps under --tmpdir."""
import argparse
import csv
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.abspath(os.path.join(os.path.dirname(__file__), ".."))
BIN = os.path.join(ROOT, "install", "vaced", "bin")
VACED = os.path.join(ROOT, "vaced", "tools", "vaced")
LIBMPI = os.path.join(ROOT, "install", "vaced", "lib", "libmpi.so")     # relinked during a run: it shows
TOPO = os.path.join(ROOT, "topo")
# per rank count: the base target (where the record is made) and the
# targets it is replayed on
TARGETS = {16: ("paper-16", ["torus-4x4x4", "paper-16:latency=60 us"]),
           64: ("paper-1024", ["torus-4x4x4", "paper-1024:latency=60 us"])}


def target_file(tmp, spec):
    """topo/NAME.topo, or for NAME:KEY=VALUE a copy with that key set."""
    if ":" not in spec:
        return os.path.join(TOPO, spec + ".topo")
    base, kv = spec.split(":", 1)
    key, value = kv.split("=", 1)
    name = f"{base}-{key}-{value.replace(' ', '')}"
    path = os.path.join(tmp, name + ".topo")
    out = []
    with open(os.path.join(TOPO, base + ".topo")) as f:
        for line in f.read().splitlines():
            k = line.split("=")[0].strip()
            if k == "name":
                line = "name = " + name
            elif k == key:
                line = f"{key} = {value}"
            out.append(line)
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return path


def label(spec):
    return spec.replace("paper-16:latency=60 us", "paper-16, latency x4").replace(
        "paper-1024:latency=60 us", "paper-1024, latency x4")


def prediction(js):
    with open(js) as f:
        return json.load(f)["prediction_s"]


def live(tmp, np, argv, target, record=None):
    js = os.path.join(tmp, "live.json")
    env = dict(os.environ, VACED_TARGET=target, VACED_JSON=js, VACED_QUIET="all")
    for k in ("VACED_RECORD", "VACED_COMPUTE_FROM"):
        env.pop(k, None)
    if record:
        env["VACED_RECORD"] = record
    t = time.monotonic()
    r = subprocess.run([os.path.join(BIN, "mpiexec"), "-n", str(np)] + argv, env=env,
                       stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL, timeout=900)
    if r.returncode == 2:               # the app refuses this rank count
        return None
    if r.returncode != 0:
        raise RuntimeError(f"mpiexec -n {np} {' '.join(argv)} on {target}: exit {r.returncode}")
    return prediction(js), time.monotonic() - t


def replay(tmp, record, target):
    js = os.path.join(tmp, "replay.json")
    for attempt in range(3):    # the tree may be mid-edit (a tool moved): try again shortly
        t = time.monotonic()
        r = subprocess.run([sys.executable, VACED, "replay", record, "--target", target, "--json", js,
                            "--quiet"], capture_output=True, text=True, timeout=900)
        if r.returncode == 0:
            break
        time.sleep(20)
    if r.returncode != 0:
        raise RuntimeError(f"vaced replay {record} --target {target}: {r.stderr.strip()[-300:]}")
    with open(js) as f:
        data = json.load(f)
    return data["prediction_s"], time.monotonic() - t, bool(data.get("approximate"))


def spread(xs):
    """(max - min) / median"""
    return (max(xs) - min(xs)) / statistics.median(xs)


def summarise(rows):
    groups = {}
    for r in rows:
        groups.setdefault((r["app"], r["ranks"], r["target"]), []).append(r)
    out = []
    for (app, np, target), rs in groups.items():
        lv = [r["live_s"] for r in rs]
        rp = [r["replay_s"] for r in rs]
        every = [b / a - 1 for a in lv for b in rp]                    # each replay against each live run
        floor = [b / a - 1 for i, a in enumerate(lv) for j, b in enumerate(lv) if i != j]
        out.append(dict(app=app, ranks=np, target=target, n=len(rs), live_med=statistics.median(lv),
                        replay_med=statistics.median(rp),
                        med_diff=statistics.median(rp) / statistics.median(lv) - 1,
                        every_mean_abs=statistics.mean(abs(d) for d in every),
                        floor_mean_abs=statistics.mean(abs(d) for d in floor),
                        every_max_abs=max(abs(d) for d in every),
                        live_spread=spread(lv), replay_spread=spread(rp), every=every, floor=floor,
                        flagged=sum(r["flagged"] for r in rs)))
    return out


def report(summary, args, meta):
    lines = ["| app | ranks | recorded on | replayed on | live median (s) | replay median (s) | "
             "medians | replay vs live | live vs live | worst pair | live spread | replay spread | flagged |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for s in summary:
        lines.append(f"| {s['app']} | {s['ranks']} | {TARGETS[s['ranks']][0]} | {label(s['target'])} | "
                     f"{s['live_med']:.6f} | {s['replay_med']:.6f} | {s['med_diff'] * 100:+.2f} % | "
                     f"{s['every_mean_abs'] * 100:.2f} % | {s['floor_mean_abs'] * 100:.2f} % | "
                     f"{s['every_max_abs'] * 100:.2f} % | "
                     f"{s['live_spread'] * 100:.2f} % | {s['replay_spread'] * 100:.2f} % | "
                     f"{s['flagged']} of {s['n']} |")
    meds = [abs(s["med_diff"]) for s in summary]
    every = [s["every_mean_abs"] for s in summary]
    floor = [s["floor_mean_abs"] for s in summary]
    spreads = [s["live_spread"] for s in summary]
    pairs = [abs(d) for s in summary for d in s["every"]]
    floors = [abs(d) for s in summary for d in s["floor"]]
    tail = [
        "",
        f"Over all pairs: a replay differs from a live run on its target by {statistics.median(pairs) * 100:.1f} % "
        f"(median; {sum(d <= 0.1 for d in pairs) / len(pairs):.0%} of pairs within 10 %), two live runs "
        f"there from each other by {statistics.median(floors) * 100:.1f} % ({sum(d <= 0.1 for d in floors) / len(floors):.0%} "
        f"within 10 %).",
        "",
        f"Over {len(summary)} app, rank-count and target combinations: a replay differs from a live run "
        f"by {statistics.mean(every) * 100:.1f} % on average (combinations from {min(every) * 100:.1f} to "
        f"{max(every) * 100:.1f} %), two live runs from each other by {statistics.mean(floor) * 100:.1f} % "
        f"({min(floor) * 100:.1f} to {max(floor) * 100:.1f} %); the replays' medians are within "
        f"{max(meds) * 100:.1f} % of the live runs' (mean {statistics.mean(meds) * 100:.1f} %); the live "
        f"runs' spread (max - min) / median is {statistics.median(spreads) * 100:.1f} % (median; max "
        f"{max(spreads) * 100:.1f} %). Host load (1-minute average) during the runs: {meta['load']}.",
    ]
    head = [
        "# A replay against ordinary live runs on the same target",
        "",
        f"Produced by `{meta['command']}` ({meta['when']}; notes: "
        "[replay-vs-live-notes.md](replay-vs-live-notes.md)). Class "
        f"{args.cls} mini-apps, {args.reps} repetitions, interleaved: each records a live run on the "
        "base target, makes an ordinary live run on the other target (its own computation, measured "
        "on the host), then replays the record on that target. The figure a user sees: a replay "
        "against a live run. The live runs' spread on one target is the host's noise, the floor "
        "of any such comparison. `medians`: replay median / live median - 1; `replay vs live`: the "
        "mean absolute difference of every replay from every live run (replay / live - 1); `live vs "
        "live`: the same between the live runs, the host's floor; `worst pair`: the largest difference "
        "of any replay from any live run; `spread`: (max - min) / median.",
        "",
    ]
    return "\n".join(head + lines + tail) + "\n"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--apps", default="cg,mg,lu,ft")
    ap.add_argument("--class", dest="cls", default="S")
    ap.add_argument("--reps", type=int, default=5)
    ap.add_argument("--ranks", default="16,64")
    ap.add_argument("--out", default=os.path.join(ROOT, "results", "replay-vs-live"))
    ap.add_argument("--tmpdir", default="/tmp")
    ap.add_argument("--report-only", metavar="WHEN",
                    help="remake OUT.md from OUT.csv (WHEN: the date of the runs, for the report)")
    args = ap.parse_args()
    meta = {"command": "bench/replay-vs-live.py " + " ".join(sys.argv[1:]),
            "when": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime())}
    if args.report_only:
        with open(args.out + ".csv") as f:
            rows = [dict(r, ranks=int(r["ranks"]), live_s=float(r["live_s"]), replay_s=float(r["replay_s"]),
                         flagged=int(r["flagged"]), load1=float(r["load1"])) for r in csv.DictReader(f)]
        meta["command"] = "bench/replay-vs-live.py " + " ".join(a for a in sys.argv[1:] if a != "--report-only"
                                                                  and a != args.report_only)
        meta["when"] = args.report_only
        write(rows, args, meta)
        return
    rows = []
    tmp = tempfile.mkdtemp(prefix="replay-vs-live.", dir=args.tmpdir)
    try:
        apps = os.path.join(tmp, "apps")
        subprocess.run(["make", "-s", "-C", os.path.join(ROOT, "tests", "apps"),
                        "PREFIX=" + os.path.join(ROOT, "install", "vaced"), "OUT=" + apps],
                       check=True, capture_output=True)
        refused = set()
        for rep in range(args.reps):
            for np in map(int, args.ranks.split(",")):
                base, others = TARGETS[np]
                for app in args.apps.split(","):
                    argv = [os.path.join(apps, app), args.cls]
                    if (app, np) in refused:
                        continue
                    for spec in others:
                        t = target_file(tmp, spec)
                        rec = os.path.join(tmp, "rec")
                        shutil.rmtree(rec, ignore_errors=True)
                        steps = [("record", lambda: live(tmp, np, argv, os.path.join(TOPO, base + ".topo"),
                                                          record=rec)),
                                 ("live", lambda: live(tmp, np, argv, t))]
                        if rep % 2:
                            steps.reverse()
                        got = {name: f() for name, f in steps}
                        if None in got.values():
                            print(f"{app} {args.cls} refuses {np} ranks: skipped", flush=True)
                            refused.add((app, np))
                            break
                        rp, rwall, flagged = replay(tmp, rec, t)
                        row = dict(rep=rep, app=app, ranks=np, target=spec, base=base,
                                   recorded_s=got["record"][0], live_s=got["live"][0], replay_s=rp,
                                   live_wall_s=got["live"][1], replay_wall_s=rwall, flagged=int(flagged),
                                   order="record-first" if rep % 2 == 0 else "live-first",
                                   load1=os.getloadavg()[0], libmpi_mtime=int(os.stat(LIBMPI).st_mtime))
                        rows.append(row)
                        save(args.out + ".csv", rows)
                        print(f"rep {rep} {app} {np} {label(spec)}: live {row['live_s']:.6f} replay {rp:.6f} "
                              f"({(rp / row['live_s'] - 1) * 100:+.2f} %)", flush=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    write(rows, args, meta)


def save(path, rows):
    """every row so far (a run cut short keeps what it measured)"""
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=list(rows[0].keys()))
        w.writeheader()
        w.writerows(rows)


def write(rows, args, meta):
    loads = [r["load1"] for r in rows]
    meta["load"] = f"median {statistics.median(loads):.1f}, {min(loads):.1f} to {max(loads):.1f}"
    text = report(summarise(rows), args, meta)
    with open(args.out + ".md", "w") as f:
        f.write(text)
    print(text)


if __name__ == "__main__":
    main()
