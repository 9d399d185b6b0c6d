#!/usr/bin/env python3
"""bench/validate.sh's report: validation.csv -> validation.md, re.png, slowdown.png.

usage: report.py [--estimator min|median] CSV OUTDIR

RE compares the estimator (default min) of the repetitions' TIME= values:
noise on this shared machine only ever adds time, to the real runs (wall
time lost to other processes) and to VACED's compute segments (CPU time
lost to cache and host contention), so the fastest repetition is the best
estimate of the program running alone, which is what VACED predicts and
what vaced-calibrate measures (p10).  The other estimator's RE is shown
beside it.

For every (app, class, configuration) the rows of the newest run that has it
are used.  Only runs that exited 0 and verified count for the statistics.
A hand-written analysis in OUTDIR/validation-notes.md, if present, is
appended to validation.md.
"""
import csv
import os
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
APPS = ["ep", "is", "cg", "mg", "ft", "lu", "stencil"]
CLASSES = ["S", "W", "A"]

# (label, predicted configuration, real configuration) for RE
RE_PAIRS = [("2-core target, VACED on 1 core", "vaced-1core", "real"),
            ("2-core target, VACED on 2 cores", "vaced-2core", "real"),
            ("netns target, VACED on 1 core", "netns-vaced-1core", "netns-real"),
            ("netns target, VACED on 2 cores", "netns-vaced-2core", "netns-real"),
            ("2-core target, alternative description, 1 core", "alt-vaced-1core", "real")]
# (label, VACED configuration, vanilla configuration with the same host cores)
SD_PAIRS = [("1 core", "vaced-1core", "real-1core"),
            ("2 cores", "vaced-2core", "real"),
            ("netns target, 1 core", "netns-vaced-1core", "real-1core"),
            ("netns target, 2 cores", "netns-vaced-2core", "real")]


def load(path):
    rows = list(csv.DictReader(open(path)))
    newest = {}
    for r in rows:
        k = (r["app"], r["class"], r["config"])
        if k not in newest or r["run_id"] > newest[k]:
            newest[k] = r["run_id"]
    groups = {}
    for r in rows:
        k = (r["app"], r["class"], r["config"])
        if r["run_id"] == newest[k]:
            groups.setdefault(k, []).append(r)
    return rows, groups


ESTIMATOR = "min"


def est(values):
    return (min if ESTIMATOR == "min" else statistics.median)(values)


def other_est(values):
    return (statistics.median if ESTIMATOR == "min" else min)(values)


OTHER = {"min": "median", "median": "min"}


class Stat:
    def __init__(self, rows):
        ok = [r for r in rows if r["exit"] == "0" and r["verified"] == "yes" and r["time_s"]]
        self.n, self.failed = len(ok), len(rows) - len(ok)
        self.time = [float(r["time_s"]) for r in ok]
        self.wall = [float(r["wall_s"]) for r in ok]
        self.pred = [float(r["prediction_s"]) for r in ok if r["prediction_s"]]
        self.load = [float(r["load1"]) for r in rows]
        self.run_id = rows[0]["run_id"] if rows else ""

    def med(self, what="time"):
        v = getattr(self, what)
        return statistics.median(v) if v else None


def fmt_t(x):
    if x is None:
        return "–"
    if x >= 10:
        return f"{x:.2f}"
    if x >= 1:
        return f"{x:.3f}"
    if x >= 0.01:
        return f"{x:.4f}"
    return f"{x:.5f}"


def fmt_spread(st, what="time"):
    v = getattr(st, what)
    if not v:
        return "–"
    m = statistics.median(v)
    s = f"{fmt_t(m)} ({fmt_t(min(v))}–{fmt_t(max(v))})"
    if st.failed:
        s += f" [{st.failed} failed]"
    return s


def re_of(groups, app, cls, pred_cfg, real_cfg):
    p, r = groups.get((app, cls, pred_cfg)), groups.get((app, cls, real_cfg))
    if not p or not r:
        return None
    p, r = Stat(p), Stat(r)
    if not p.time or not r.time:
        return None
    re = est(p.time) / est(r.time) - 1
    lo = min(p.time) / max(r.time) - 1
    hi = max(p.time) / min(r.time) - 1
    return re, lo, hi, other_est(p.time) / other_est(r.time) - 1


def sd_of(groups, app, cls, vaced_cfg, vanilla_cfg):
    p, r = groups.get((app, cls, vaced_cfg)), groups.get((app, cls, vanilla_cfg))
    if not p or not r:
        return None
    p, r = Stat(p), Stat(r)
    if not p.wall or not r.wall:
        return None
    return p.med("wall") / r.med("wall")


def pct(x):
    return "–" if x is None else f"{x * 100:+.1f} %"


def re_cell(v):
    if v is None:
        return "–"
    re, lo, hi, other = v
    mark = "" if abs(re) <= 0.10 else " **"
    return f"{re * 100:+.1f} % ({lo * 100:+.0f}…{hi * 100:+.0f}; {OTHER[ESTIMATOR]} {other * 100:+.0f}){mark}"


def mean_abs(v):
    return sum(abs(x) for x in v) / len(v)


def within(v):
    """How many of the REs v are within the 10 % target."""
    return sum(abs(x) <= 0.10 for x in v)


def summary_line(label, values):
    v = [x[0] for x in values if x is not None]
    if not v:
        return None
    ok = "meets" if mean_abs(v) <= 0.05 and within(v) == len(v) else "misses"
    o = [x[3] for x in values if x is not None]
    return (f"| {label} | {len(v)} | {mean_abs(v) * 100:.1f} % | {max(v, key=abs) * 100:+.1f} % | "
            f"{within(v)}/{len(v)} | {ok} | {mean_abs(o) * 100:.1f} %, {within(o)}/{len(o)} |")


def main():
    global ESTIMATOR
    args = sys.argv[1:]
    if len(args) >= 2 and args[0] == "--estimator":
        ESTIMATOR = args[1]
        args = args[2:]
    if ESTIMATOR not in OTHER or len(args) != 2:
        sys.exit("usage: report.py [--estimator min|median] CSV OUTDIR")
    csv_path, out = args
    rows, groups = load(csv_path)
    keys = sorted({(a, c) for a, c, _ in groups},
                  key=lambda k: (CLASSES.index(k[1]) if k[1] in CLASSES else 9,
                                 APPS.index(k[0]) if k[0] in APPS else 99))
    run_ids = sorted({r["run_id"] for r in rows})
    # only the runs whose rows the CSV holds (a run without --append starts it anew)
    metas = [os.path.join(out, f"validation.{i}.meta") for i in run_ids]
    meta = {}
    for m in (m for m in metas if os.path.exists(m)):
        for line in open(m):
            if "=" in line:
                k, v = line.rstrip("\n").split("=", 1)
                meta.setdefault(k, []).append(v)
    loads = [float(r["load1"]) for r in rows]
    reps = sorted({int(r["rep"]) for r in rows})

    md = []
    md.append("# Validation against real runs")
    md.append("")
    md.append("Written by `bench/validate.sh` (do not edit: rerun it, or "
              "`bench/validate.sh --report-only`); the analysis at the end comes from "
              "`results/validation-notes.md`.")
    md.append("")
    md.append(f"- runs: {', '.join(run_ids)}; {len(rows)} rows in `validation.csv`, "
              f"up to {max(reps) if reps else 0} repetitions per configuration")
    for k in ("command", "target", "alt_target", "net_target", "netns", "rate", "net_pattern", "rt", "steal", "page_reporting", "estimator", "autogroup",
              "binaries", "libs_start", "libs_end"):
        if k in meta:
            vals = sorted(set(meta[k]))
            vals = [v for v in vals if v]
            if not vals:
                continue
            md.append(f"- {k}: " + "; ".join(f"`{os.path.relpath(v, ROOT) if v.startswith('/') and k != 'autogroup' else v}`" for v in vals))
    if loads:
        md.append(f"- load average (1 min) at the start of the runs: median {statistics.median(loads):.1f}, "
                  f"min {min(loads):.1f}, max {max(loads):.1f} (2-core VM shared with other jobs)")
    md.append("")
    md.append("Times are the apps' `TIME=` lines in seconds, median (min–max) over the "
              "repetitions. Under VACED `TIME=` is the predicted target time. "
              f"RE = {ESTIMATOR} predicted / {ESTIMATOR} real − 1 (the {ESTIMATOR} over the "
              "repetitions; why: `validation-notes.md`), with in brackets the range over all "
              "repetitions (min predicted / max real − 1 … max predicted / min real − 1) and the "
              f"RE of the {OTHER[ESTIMATOR]}s; "
              "`**` marks |RE| > 10 %. Slowdown = median VACED host wall time / median "
              "vanilla host wall time on the same host cores (whole `mpiexec`, start-up included).")
    md.append("")

    # --- table 1: localhost target
    md.append("## Target: this machine, 2 ranks on its 2 cores")
    md.append("")
    md.append("| app | class | real (vanilla, 2 cores) | VACED on 1 core | RE 1 core | VACED on 2 cores | RE 2 cores | slowdown 1 core | slowdown 2 cores | rank-0 prediction line, 1 core |")
    md.append("|---|---|---|---|---|---|---|---|---|---|")
    re1, re2, ren, ren2 = {}, {}, {}, {}
    for app, cls in keys:
        g = lambda cfg: Stat(groups.get((app, cls, cfg), []))
        if not groups.get((app, cls, "real")):
            continue
        a = re_of(groups, app, cls, "vaced-1core", "real")
        b = re_of(groups, app, cls, "vaced-2core", "real")
        re1[app, cls] = a
        re2[app, cls] = b
        s1 = sd_of(groups, app, cls, "vaced-1core", "real-1core")
        s2 = sd_of(groups, app, cls, "vaced-2core", "real")
        md.append(f"| {app.upper()} | {cls} | {fmt_spread(g('real'))} | {fmt_spread(g('vaced-1core'))} | "
                  f"{re_cell(a)} | {fmt_spread(g('vaced-2core'))} | {re_cell(b)} | "
                  f"{'–' if s1 is None else f'{s1:.2f}'} | {'–' if s2 is None else f'{s2:.2f}'} | "
                  f"{fmt_t(g('vaced-1core').med('pred'))} |")
    md.append("")

    # --- table 2: netns target
    has_net = any(groups.get((a, c, "netns-real")) for a, c in keys)
    if has_net:
        md.append("## Target: two network-namespace nodes, 1 rank each, TCP over a tbf-shaped veth link")
        md.append("")
        md.append("| app | class | real (vanilla, netns) | VACED on 1 core | RE 1 core | VACED on 2 cores | "
                  "RE 2 cores | slowdown 1 core | slowdown 2 cores |")
        md.append("|---|---|---|---|---|---|---|---|---|")
        for app, cls in keys:
            if not groups.get((app, cls, "netns-real")):
                continue
            g = lambda cfg: Stat(groups.get((app, cls, cfg), []))
            c = re_of(groups, app, cls, "netns-vaced-1core", "netns-real")
            c2 = re_of(groups, app, cls, "netns-vaced-2core", "netns-real")
            ren[app, cls], ren2[app, cls] = c, c2
            s1 = sd_of(groups, app, cls, "netns-vaced-1core", "real-1core")
            s2 = sd_of(groups, app, cls, "netns-vaced-2core", "real")
            md.append(f"| {app.upper()} | {cls} | {fmt_spread(g('netns-real'))} | "
                      f"{fmt_spread(g('netns-vaced-1core'))} | {re_cell(c)} | "
                      f"{fmt_spread(g('netns-vaced-2core'))} | {re_cell(c2)} | "
                      f"{'–' if s1 is None else f'{s1:.2f}'} | {'–' if s2 is None else f'{s2:.2f}'} |")
        md.append("")

    # --- table 1b: the alternative description of the same target
    rea1, rea2 = {}, {}
    if any(groups.get((a, c, "alt-vaced-1core")) or groups.get((a, c, "alt-vaced-2core")) for a, c in keys):
        md.append("### The same real runs predicted with the alternative description (`alt_target` above)")
        md.append("")
        md.append("| app | class | real (vanilla, 2 cores) | VACED on 1 core | RE 1 core | VACED on 2 cores | RE 2 cores | slowdown 1 core | slowdown 2 cores |")
        md.append("|---|---|---|---|---|---|---|---|---|")
        for app, cls in keys:
            if not groups.get((app, cls, "real")):
                continue
            g = lambda cfg: Stat(groups.get((app, cls, cfg), []))
            a = re_of(groups, app, cls, "alt-vaced-1core", "real")
            b = re_of(groups, app, cls, "alt-vaced-2core", "real")
            rea1[app, cls], rea2[app, cls] = a, b
            s1 = sd_of(groups, app, cls, "alt-vaced-1core", "real-1core")
            s2 = sd_of(groups, app, cls, "alt-vaced-2core", "real")
            md.append(f"| {app.upper()} | {cls} | {fmt_spread(g('real'))} | {fmt_spread(g('alt-vaced-1core'))} | "
                      f"{re_cell(a)} | {fmt_spread(g('alt-vaced-2core'))} | {re_cell(b)} | "
                      f"{'–' if s1 is None else f'{s1:.2f}'} | {'–' if s2 is None else f'{s2:.2f}'} |")
        md.append("")

    # --- summary
    md.append("## Summary against the targets (mean |RE| ≤ 5 %, every |RE| ≤ 10 %)")
    md.append("")
    md.append(f"RE of the {ESTIMATOR}s; the last column: mean |RE| and how many within 10 % "
              f"with the {OTHER[ESTIMATOR]}s instead.")
    md.append("")
    md.append(f"| configuration | app × class | mean \\|RE\\| | worst RE | within 10 % | targets | "
              f"with {OTHER[ESTIMATOR]}s |")
    md.append("|---|---|---|---|---|---|---|")
    for label, vals in (("VACED on 1 core vs real", re1), ("VACED on 2 cores vs real", re2),
                        ("netns: VACED on 1 core vs real", ren), ("netns: VACED on 2 cores vs real", ren2),
                        ("alternative description, 1 core", rea1), ("alternative description, 2 cores", rea2)):
        line = summary_line(label, list(vals.values()))
        if line:
            md.append(line)
    for cls in CLASSES:
        for label, vals in (("1 core", re1), ("2 cores", re2), ("netns, 1 core", ren), ("netns, 2 cores", ren2),
                            ("alternative, 1 core", rea1), ("alternative, 2 cores", rea2)):
            line = summary_line(f"class {cls}, {label}", [v for (a, c), v in vals.items() if c == cls])
            if line:
                md.append(line)
    # the comparison's own noise: a configuration's odd repetitions
    # "predicting" its even ones, with the same statistic
    floor = []
    for cfg in ("real", "netns-real", "vaced-1core", "vaced-2core", "netns-vaced-1core", "netns-vaced-2core"):
        vals = []
        for app, cls in keys:
            rows = [r for r in groups.get((app, cls, cfg), []) if r["exit"] == "0" and r["verified"] == "yes" and r["time_s"]]
            odd = [float(r["time_s"]) for r in rows if int(r["rep"]) % 2]
            even = [float(r["time_s"]) for r in rows if int(r["rep"]) % 2 == 0]
            if odd and even:
                vals.append(est(odd) / est(even) - 1)
        if vals:
            floor.append(f"{cfg} {mean_abs(vals) * 100:.1f} % "
                         f"({within(vals)}/{len(vals)} within 10 %)")
    if floor:
        md.append("")
        md.append("Noise floor: the same comparison between a configuration's odd and even "
                  f"repetitions ({ESTIMATOR}s), mean |RE|: " + "; ".join(floor) + ".")
    sds = {}
    for label, v, r in SD_PAIRS:
        vals = [sd_of(groups, a, c, v, r) for a, c in keys]
        vals = [x for x in vals if x is not None]
        if vals:
            sds[label] = vals
    if sds:
        md.append("")
        md.append("Slowdown over all apps and classes: " + "; ".join(
            f"{k}: median {statistics.median(v):.2f}, range {min(v):.2f}–{max(v):.2f}" for k, v in sds.items()) + ".")
    md.append("")

    # --- real-run spread
    md.append("## Spread of the runs")
    md.append("")
    md.append("(max − min) / median of `TIME=` over the repetitions, per configuration; "
              "*others*: median number of CPUs (of 2) that other processes kept busy during "
              "the real runs (from /proc/stat, our job's own CPU time subtracted).")
    md.append("")
    cfgs = ["real", "real-1core", "netns-real", "vaced-1core", "vaced-2core", "netns-vaced-1core", "netns-vaced-2core",
            "alt-vaced-1core", "alt-vaced-2core"]
    cfgs = [c for c in cfgs if any(groups.get((a, k, c)) for a, k in keys)]
    md.append("| app | class | " + " | ".join(cfgs) + " | others, real | others, netns-real |")
    md.append("|---|---|" + "---|" * (len(cfgs) + 2))
    for app, cls in keys:
        cells = []
        for cfg in cfgs:
            st = Stat(groups.get((app, cls, cfg), []))
            cells.append("–" if not st.time else f"{(max(st.time) - min(st.time)) / st.med() * 100:.0f} %")
        for cfg in ("real", "netns-real"):
            o = [float(r["others_cpus"]) for r in groups.get((app, cls, cfg), []) if r.get("others_cpus")]
            cells.append(f"{statistics.median(o):.2f}" if o else "–")
        md.append(f"| {app.upper()} | {cls} | " + " | ".join(cells) + " |")
    md.append("")
    md.append("Mean ± standard deviation of `TIME=` over the repetitions (s):")
    md.append("")
    md.append("| app | class | " + " | ".join(cfgs) + " |")
    md.append("|---|---|" + "---|" * len(cfgs))
    for app, cls in keys:
        cells = []
        for cfg in cfgs:
            v = Stat(groups.get((app, cls, cfg), [])).time
            cells.append("–" if not v else f"{fmt_t(statistics.mean(v))} ± "
                         f"{fmt_t(statistics.stdev(v)) if len(v) > 1 else '–'}")
        md.append(f"| {app.upper()} | {cls} | " + " | ".join(cells) + " |")
    md.append("")
    md.append("![RE per app](re.png)")
    md.append("")
    md.append("![slowdown per app](slowdown.png)")
    md.append("")

    # --- the README's "Results" section (results/README-results.md, to paste)
    rd = ["## Results", "",
          "Validation against real runs (`bench/validate.sh`; full report with spreads, "
          "plots and the analysis of the misses in `results/validation.md`). Real target: "
          "this 2-core VM, 2 ranks one per core, vanilla MPICH; VACED predicts it from 1 host "
          "core and from 2. Second real target: 2 network namespaces (one rank each, pinned), "
          "TCP over a veth link shaped with `tc tbf`, predicted from 1 core and from 2 with a "
          "calibrated description of that link. Times are the apps' own `TIME=` (MPI_Wtime, virtual under "
          "VACED), median (min–max) of the repetitions (their mean ± standard deviation is "
          f"in `results/validation.md`); RE = predicted / real − 1 of the "
          f"{ESTIMATOR}s of the repetitions; slowdown = VACED / "
          "vanilla host wall time on the same host cores.", "",
          "| app | class | real (s) | RE, VACED on 1 core | RE, on 2 cores | real netns (s) | RE netns, 1 core | "
          "RE netns, 2 cores | slowdown 1 core / 2 cores |",
          "|---|---|---|---|---|---|---|---|---|"]
    for app, cls in keys:
        if not groups.get((app, cls, "real")):
            continue
        g = lambda cfg: Stat(groups.get((app, cls, cfg), []))
        s1 = sd_of(groups, app, cls, "vaced-1core", "real-1core")
        s2 = sd_of(groups, app, cls, "vaced-2core", "real")
        short = lambda v: "–" if v is None else f"{v[0] * 100:+.1f} %"
        rd.append(f"| {app.upper()} | {cls} | {fmt_spread(g('real'))} | {short(re1.get((app, cls)))} | "
                  f"{short(re2.get((app, cls)))} | {fmt_spread(g('netns-real'))} | {short(ren.get((app, cls)))} | "
                  f"{short(ren2.get((app, cls)))} | "
                  f"{'–' if s1 is None else f'{s1:.2f}'} / {'–' if s2 is None else f'{s2:.2f}'} |")
    rd.append("")
    for label, vals in (("VACED on 1 core", re1), ("VACED on 2 cores", re2), ("netns target, 1 core", ren),
                        ("netns target, 2 cores", ren2)):
        v = [x[0] for x in vals.values() if x is not None]
        if not v:
            continue
        others = [x[3] for x in vals.values() if x is not None]
        by_class = []
        for cls in CLASSES:
            c = [x[0] for (a, k), x in vals.items() if k == cls and x is not None]
            if c and len(c) < len(v):
                by_class.append(f"class {cls} {mean_abs(c) * 100:.1f} % ({within(c)} of {len(c)})")
        rd.append(f"- {label}: mean |RE| {mean_abs(v) * 100:.1f} %, "
                  f"worst {max(v, key=abs) * 100:+.1f} %, {within(v)} of {len(v)} within 10 %"
                  + (f"; {', '.join(by_class)}" if by_class else "")
                  + f". With the {OTHER[ESTIMATOR]}s: {mean_abs(others) * 100:.1f} %, "
                  f"{within(others)} of {len(others)}.")
    if floor:
        rd.append("- Noise floor (odd against even repetitions of one configuration, mean |RE|): "
                  + "; ".join(floor) + ". A target (mean |RE| <= 5 %, each <= 10 %) below a "
                  "configuration's own floor cannot be resolved by "
                  f"{max(reps) if reps else 0} repetitions on this shared VM; "
                  "`results/validation.md` has the analysis.")
    rd.append("")
    cmds = sorted(set(meta.get("command", [])))
    took = [int(x) for x in meta.get("elapsed_s", [])]
    rd.append("Regenerate with (`--help` for the options"
              + (f"; the run above took {round(max(took) / 60)} minutes on this 2-core VM" if took else "")
              + "):")
    rd.append("")
    for c in cmds or ["bench/validate.sh -c S,W -r 3"]:
        # runs before the harnesses moved to bench/ recorded results/validate.sh
        if c.startswith("results/validate.sh"):
            c = "bench/validate.sh" + c[len("results/validate.sh"):]
        rd.append(f"    {c}")
    rd.append("")
    rd.append("The harnesses are in `bench/`: `bench/validate.sh` (this table, `validation.md`), "
              "`bench/micro.sh` (`micro.md`, `micro.csv`), `bench/run.sh` (`bench.md`, `bench.csv`), "
              "their helpers in `bench/lib/`; `tests/mpich-suite/run.sh` (`mpich-suite.md`) and "
              "`tests/longrun/longrun.sh` (`longrun.md`). `results/` holds only their outputs and the "
              "notes on how each was obtained.")
    rd.append("")
    with open(os.path.join(out, "README-results.md"), "w") as f:
        f.write("\n".join(rd) + "\n")

    notes = os.path.join(out, "validation-notes.md")
    if os.path.exists(notes):
        md.append(open(notes).read().rstrip() + "\n")
    with open(os.path.join(out, "validation.md"), "w") as f:
        f.write("\n".join(md) + "\n")

    # --- plots
    dat = os.path.join(out, ".plot.dat")
    re_cols, sd_cols = [], []
    with open(dat, "w") as f:
        for app, cls in keys:
            vals = []
            for _, p, r in RE_PAIRS:
                v = re_of(groups, app, cls, p, r)
                vals += ["NaN"] * 3 if v is None else [f"{x * 100:.3f}" for x in v[:3]]
            for _, p, r in SD_PAIRS:
                v = sd_of(groups, app, cls, p, r)
                vals.append("NaN" if v is None else f"{v:.4f}")
            f.write(f"\"{app.upper()} {cls}\" " + " ".join(vals) + "\n")
    for i, (label, p, r) in enumerate(RE_PAIRS):
        if any(re_of(groups, a, c, p, r) for a, c in keys):
            re_cols.append((2 + 3 * i, label))
    for i, (label, p, r) in enumerate(SD_PAIRS):
        if any(sd_of(groups, a, c, p, r) for a, c in keys):
            sd_cols.append((2 + 3 * len(RE_PAIRS) + i, label))
    re_plot = ", ".join(f'"{dat}" using {c}:{c + 1}:{c + 2}' + (":xtic(1)" if j == 0 else "") + f' title "{t}"'
                        for j, (c, t) in enumerate(re_cols))
    sd_plot = ", ".join(f'"{dat}" using {c}' + (":xtic(1)" if j == 0 else "") + f' title "{t}"'
                        for j, (c, t) in enumerate(sd_cols))
    lim = max([40] + [abs(v) * 100 + 5 for d in (re1, re2, ren, ren2, rea1) for x in d.values() if x for v in x[:1]])
    lim = min(lim, 100)
    gp = f"""
set terminal pngcairo size 1200,560 font ",10"
set datafile missing "NaN"
set style data histogram
set style histogram errorbars gap 1 lw 1
set style fill solid 0.8 border -1
set key top left
set grid ytics
set xtics rotate by -30
set output "{out}/re.png"
set title "Relative error of VACED's predicted TIME ({ESTIMATOR} of the repetitions; bars: range over repetitions)"
set ylabel "RE = predicted / real - 1  (%)"
set yrange [-{lim}:{lim}]
set arrow 1 from graph 0, first 10 to graph 1, first 10 nohead dt 2 lc rgb "red"
set arrow 2 from graph 0, first -10 to graph 1, first -10 nohead dt 2 lc rgb "red"
set arrow 3 from graph 0, first 5 to graph 1, first 5 nohead dt 3 lc rgb "orange"
set arrow 4 from graph 0, first -5 to graph 1, first -5 nohead dt 3 lc rgb "orange"
plot {re_plot}
unset arrow
set output "{out}/slowdown.png"
set style histogram clustered gap 1
set title "Slowdown: VACED host wall time / vanilla wall time on the same host cores (median)"
set ylabel "slowdown"
set yrange [0:*]
set arrow 1 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb "black"
plot {sd_plot}
"""
    plots = ", re.png, slowdown.png"
    try:
        subprocess.run(["gnuplot"], input=gp, text=True, check=True)
    except (OSError, subprocess.CalledProcessError) as e:
        print(f"report.py: no plots ({e})", file=sys.stderr)
        plots = ""
    os.unlink(dat)
    print(f"report.py: wrote {out}/validation.md, README-results.md{plots}", file=sys.stderr)


main()
