#!/usr/bin/env python3
"""Figures of bench/run.sh: reads DIR/bench-runs.csv and DIR/bench-meta.txt,
writes DIR/bench.csv (one row per figure) and DIR/bench.md, prints the
summary.  Usage: bench/report.py DIR"""
import csv
import math
import os
import statistics
import sys
from collections import defaultdict

OUT = sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", "results")
RUNS = os.path.join(OUT, "bench-runs.csv")
META = os.path.join(OUT, "bench-meta.txt")

meta = {}
if os.path.exists(META):
    for line in open(META):
        if "=" in line:
            k, v = line.rstrip("\n").split("=", 1)
            meta[k] = v
CORES = int(meta.get("cores", os.cpu_count() or 1))


def fnum(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return None


def metrics(s):
    d = {}
    for kv in (s or "").split(";"):
        if "=" in kv:
            k, v = kv.split("=", 1)
            d[k] = v
    return d


rows = []
with open(RUNS) as f:
    for r in csv.DictReader(f):
        r["m"] = metrics(r.get("metrics"))
        rows.append(r)


def med(xs):
    xs = [x for x in xs if x is not None]
    return statistics.median(xs) if xs else None


def fmt(x, nd=3):
    if x is None:
        return "-"
    if isinstance(x, str):
        return x
    if abs(x) >= 1000:
        return f"{x:.0f}"
    return f"{x:.{nd}f}"


figures = []   # rows of bench.csv


def fig(part, item, ranks, metric, unit, base_is, base, value_is, value, goal="", note=""):
    ratio = value / base if base and value is not None else None
    meets = ""
    if goal and ratio is not None:
        meets = "yes" if ratio <= float(goal.lstrip("<=")) else "no"
    figures.append(dict(part=part, item=item, ranks=ranks, metric=metric, unit=unit,
                        base_is=base_is, base=base, value_is=value_is, value=value,
                        ratio=ratio, goal=goal, meets=meets, note=note))
    return ratio


md = []
summary = []


def table(header, body):
    md.append("| " + " | ".join(header) + " |")
    md.append("|" + "|".join("---" for _ in header) + "|")
    for b in body:
        md.append("| " + " | ".join(b) + " |")
    md.append("")


# ------------------------------------------------------------ slowdown ----
sd = [r for r in rows if r["part"] == "slowdown"]
refused = sorted({(r["item"], int(r["ranks"])) for r in sd if r["m"].get("refused") is not None or r["metrics"] == "refused"})
ok = [r for r in sd if r["rc"] == "0" and r["metrics"] != "refused"]
groups = defaultdict(list)
for r in ok:
    groups[(r["item"], int(r["ranks"]), r["build"])].append(r)
items = sorted({(k[0], k[1]) for k in groups}, key=lambda k: (k[1], k[0]))
slow_ratios, cpu_ratios, sd_body, eff_body = [], [], [], []
eff = {"vanilla": [], "vaced": []}
eff_adj = {"vanilla": [], "vaced": []}
for it, p in items:
    a, b = groups.get((it, p, "vanilla"), []), groups.get((it, p, "vaced"), [])
    if not a or not b:
        continue
    wa, wb = med(fnum(r["wall_s"]) for r in a), med(fnum(r["wall_s"]) for r in b)
    ratio = fig("slowdown", it, p, "wall time, median", "s", "vanilla", wa, "vaced", wb, "<=1.10",
                f"{len(a)}+{len(b)} runs")
    slow_ratios.append(ratio)
    oth = med(fnum(r["others_cpus"]) for r in a + b)
    ca, cb = med(fnum(r["cpu_s"]) for r in a), med(fnum(r["cpu_s"]) for r in b)
    cratio = fig("cpu-slowdown", it, p, "CPU time of the job, median", "s", "vanilla", ca, "vaced", cb, "",
                 "less stretched by other jobs than wall time")
    if cratio is not None:
        cpu_ratios.append(cratio)
    sd_body.append([it, str(p), fmt(wa), fmt(wb), fmt(ratio), fmt(cratio), f"{len(a)}/{len(b)}", fmt(oth, 2)])
    e, ea = {}, {}
    for v, rs in (("vanilla", a), ("vaced", b)):
        es, eas = [], []
        for r in rs:
            w, c, o = fnum(r["wall_s"]), fnum(r["cpu_s"]), fnum(r["others_cpus"]) or 0.0
            if w and c:
                es.append(w / (c / CORES))
                free = CORES - o
                if free >= 0.25:
                    eas.append(w / (c / free))
        e[v], ea[v] = med(es), med(eas)
        if p > CORES:
            eff[v].append(e[v])
            if ea[v] is not None:
                eff_adj[v].append(ea[v])
    if p > CORES:
        fig("efficiency", it, p, "wall / (CPU time / cores), median", "", "vanilla", e["vanilla"], "vaced", e["vaced"],
            "", "goal <= 1.3 for each build")
        fig("efficiency-idle-based", it, p, "wall / (CPU time / (cores - others)) = 1 + idle CPU / job CPU, median", "",
            "vanilla", ea["vanilla"], "vaced", ea["vaced"], "",
            "lower bound on a shared machine (others: CPUs other processes used meanwhile)")
    eff_body.append([it, str(p), fmt(e["vanilla"], 2), fmt(e["vaced"], 2), fmt(ea["vanilla"], 2), fmt(ea["vaced"], 2),
                     "yes" if p > CORES else "no"])

if slow_ratios:
    mean_sd = sum(slow_ratios) / len(slow_ratios)
    max_sd = max(slow_ratios)
    geo_sd = math.exp(sum(math.log(x) for x in slow_ratios) / len(slow_ratios))
    figures.append(dict(part="slowdown-summary", item="all", ranks="", metric="mean of slowdowns", unit="",
                        base_is="", base="", value_is="", value="", ratio=mean_sd, goal="<=1.03",
                        meets="yes" if mean_sd <= 1.03 else "no", note=f"{len(slow_ratios)} app/rank combinations"))
    figures.append(dict(part="slowdown-summary", item="all", ranks="", metric="max of slowdowns", unit="",
                        base_is="", base="", value_is="", value="", ratio=max_sd, goal="<=1.10",
                        meets="yes" if max_sd <= 1.10 else "no", note=""))
    for p in sorted({p for _, p in items}):
        rp = [f["ratio"] for f in figures if f["part"] == "slowdown" and f["ranks"] == p]
        if rp:
            figures.append(dict(part="slowdown-summary", item=f"P={p}", ranks=p, metric="mean of slowdowns", unit="",
                                base_is="", base="", value_is="", value="", ratio=sum(rp) / len(rp), goal="", meets="",
                                note=f"{len(rp)} apps"))
    summary.append(f"slowdown (vaced/vanilla wall, median of runs): mean {mean_sd:.3f} (goal <= 1.03), "
                   f"max {max_sd:.3f} (goal <= 1.10), geometric mean {geo_sd:.3f}, over {len(slow_ratios)} app/rank combinations")
    for p in sorted({p for _, p in items}):
        rp = [f["ratio"] for f in figures if f["part"] == "slowdown" and f["ranks"] == p]
        if rp:
            summary.append(f"  with {p} ranks: mean {sum(rp) / len(rp):.3f}, max {max(rp):.3f}")
    if cpu_ratios:
        cm = sum(cpu_ratios) / len(cpu_ratios)
        figures.append(dict(part="cpu-slowdown-summary", item="all", ranks="", metric="mean of CPU-time ratios",
                            unit="", base_is="", base="", value_is="", value="", ratio=cm, goal="", meets="",
                            note=f"max {max(cpu_ratios):.3f}"))
        summary.append(f"CPU time of the job, vaced/vanilla: mean {cm:.3f}, max {max(cpu_ratios):.3f}")
    for v in ("vanilla", "vaced"):
        if eff[v]:
            em = sum(eff[v]) / len(eff[v])
            figures.append(dict(part="efficiency-summary", item=v, ranks=f">{CORES}", metric="mean host efficiency", unit="",
                                base_is="", base="", value_is="", value="", ratio=em, goal="<=1.3",
                                meets="yes" if em <= 1.3 else "no", note=f"max {max(eff[v]):.2f}"))
            line = f"host efficiency, oversubscribed runs, {v}: mean {em:.2f}, max {max(eff[v]):.2f} (goal <= 1.3)"
            if eff_adj[v]:
                ea_m = sum(eff_adj[v]) / len(eff_adj[v])
                figures.append(dict(part="efficiency-summary", item=v + " (idle-based)", ranks=f">{CORES}",
                                    metric="mean host efficiency, idle-based (lower bound)", unit="", base_is="", base="",
                                    value_is="", value="", ratio=ea_m, goal="<=1.3",
                                    meets="yes" if ea_m <= 1.3 else "no", note=f"max {max(eff_adj[v]):.2f}"))
                line += f"; idle-based (lower bound) mean {ea_m:.2f}, max {max(eff_adj[v]):.2f}"
                if ea_m < 1.05 and em > 1.3:
                    line += " (no CPU was idle during the runs: the bound is 1 by construction and says nothing)"
            summary.append(line)

# ------------------------------------------------------------ segments ----
# compute CPU time between MPI calls (bench/segtime.c), vanilla vs vaced
seg = [r for r in rows if r["part"] == "segments" and r["rc"] == "0"]
seg_body, seg_ratios = [], []
for it in sorted({r["item"] for r in seg}):
    a = [r["m"] for r in seg if r["item"] == it and r["build"] == "vanilla"]
    b = [r["m"] for r in seg if r["item"] == it and r["build"] == "vaced"]
    if not a or not b:
        continue
    # the least disturbed run of each build: other jobs on the VM stretch CPU time too, by up to 40 %
    spread = {v: (min(fnum(m.get("compute_cpu_s")) for m in ms), max(fnum(m.get("compute_cpu_s")) for m in ms))
              for v, ms in (("vanilla", a), ("vaced", b))}
    ca, cb = spread["vanilla"][0], spread["vaced"][0]
    ratio = fig("segments", it, 2, "compute CPU time between MPI calls, both ranks, minimum of the runs", "s",
                "vanilla", ca, "vaced", cb, "", "goal within 0.95-1.05")
    ma, mb = med(fnum(m.get("compute_cpu_s")) for m in a), med(fnum(m.get("compute_cpu_s")) for m in b)
    seg_ratios.append((it, ratio))
    # CPU time inside MPI per call: what VACED adds to every call, as the program sees it
    pa = med(fnum(m.get("mpi_cpu_s")) / int(m["mpi_calls"]) * 1e6 for m in a if int(m.get("mpi_calls", 0)))
    pb = med(fnum(m.get("mpi_cpu_s")) / int(m["mpi_calls"]) * 1e6 for m in b if int(m.get("mpi_calls", 0)))
    fig("segments-mpi", it, 2, "CPU time inside MPI calls per call, median", "us", "vanilla", pa, "vaced", pb, "", "")
    seg_body.append([it, f"{fmt(ca)}-{fmt(spread['vanilla'][1])}", fmt(ma), f"{fmt(cb)}-{fmt(spread['vaced'][1])}",
                     fmt(mb), fmt(ratio), "yes" if ratio is not None and abs(ratio - 1) <= 0.05 else "**no**",
                     fmt(mb / ma if ma and mb else None),
                     a[0].get("segments", "-"), fmt(pa, 2), fmt(pb, 2), f"{len(a)}/{len(b)}"])
if seg_ratios:
    outside = [f"{it} {r:.3f}" for it, r in seg_ratios if r is not None and abs(r - 1) > 0.05]
    summary.append("compute CPU time between MPI calls, vaced / vanilla (goal within 0.95-1.05): " +
                   ", ".join(f"{it} {r:.3f}" for it, r in seg_ratios if r is not None) +
                   (f"; outside: {', '.join(outside)}" if outside else "; all within"))

# ------------------------------------------------------------ pingpong ----
pp = [r for r in rows if r["part"] == "pingpong" and r["rc"] == "0"]
pp_v = {v: med(fnum(r["m"].get("median_us")) for r in pp if r["build"] == v) for v in ("vanilla", "vaced")}
pp_n = {v: sum(1 for r in pp if r["build"] == v) for v in ("vanilla", "vaced")}
pp_all = {v: sorted(fnum(r["m"].get("median_us")) for r in pp if r["build"] == v) for v in ("vanilla", "vaced")}
pp_min = {v: min((fnum(r["m"].get("min_us")) for r in pp if r["build"] == v and fnum(r["m"].get("min_us"))), default=None)
          for v in ("vanilla", "vaced")}
pp_ratio = None
if pp_min["vanilla"] and pp_min["vaced"]:
    fig("pingpong", "0-byte round trip, best round", 2, "round trip, minimum over all rounds", "us",
        "vanilla", pp_min["vanilla"], "vaced", pp_min["vaced"], "", "the least disturbed round of each build")
if pp_v["vanilla"] and pp_v["vaced"]:
    pp_ratio = fig("pingpong", "0-byte round trip", 2, "round trip, median of runs' medians", "us",
                   "vanilla", pp_v["vanilla"], "vaced", pp_v["vaced"], "<=1.5", "2 ranks, -bind-to core")
    per_call = (pp_v["vaced"] - pp_v["vanilla"]) / 4
    figures.append(dict(part="pingpong", item="overhead per MPI call", ranks=2, metric="(vaced - vanilla) / 4 calls",
                        unit="us", base_is="", base="", value_is="vaced", value=per_call, ratio=None, goal="",
                        meets="", note="a round trip is 2 MPI_Send + 2 MPI_Recv on its critical path"))
    summary.append(f"ping-pong 0 B round trip: vanilla {pp_v['vanilla']:.2f} us, vaced {pp_v['vaced']:.2f} us, "
                   f"ratio {pp_ratio:.3f} (goal <= 1.5); {per_call * 1000:.0f} ns more per MPI call")

clk = [r for r in rows if r["part"] == "clocks" and r["rc"] == "0"]
reads = {}
for v in ("vanilla", "vaced"):
    for rk in ("rank0", "rank1"):
        rs = sorted((r for r in clk if r["build"] == v and r["item"] == rk), key=lambda r: int(r["m"]["trips"]))
        if len(rs) >= 2:
            lo, hi = rs[0]["m"], rs[-1]["m"]
            dt = int(hi["trips"]) - int(lo["trips"])
            reads[(v, rk)] = {c: (int(hi[c]) - int(lo[c])) / dt
                              for c in ("clock_thread", "clock_process", "clock_mono", "clock_other")}
            reads[(v, rk)]["fixed_thread"] = int(lo["clock_thread"]) - reads[(v, rk)]["clock_thread"] * int(lo["trips"])
per_rt = {}
for v in ("vanilla", "vaced"):
    if (v, "rank0") in reads and (v, "rank1") in reads:
        per_rt[v] = {c: reads[(v, "rank0")][c] + reads[(v, "rank1")][c]
                     for c in ("clock_thread", "clock_process", "clock_mono", "clock_other")}
        figures.append(dict(part="clock-reads", item="per ping-pong iteration, both ranks", ranks=2,
                            metric="clock_gettime calls (THREAD_CPUTIME / PROCESS_CPUTIME / MONOTONIC / other)",
                            unit="calls", base_is="", base="", value_is=v,
                            value=per_rt[v]["clock_thread"], ratio=None, goal="", meets="",
                            note="/".join(f"{per_rt[v][c]:.2f}" for c in
                                          ("clock_thread", "clock_process", "clock_mono", "clock_other"))))

# ------------------------------------------------------------- cputime ----
cpt = [r for r in rows if r["part"] == "cputime"]
cpt_body = []
read_cost = {}
auto_note = ""
for r in cpt:
    if r["item"] == "auto-choice":
        auto_note = r["m"].get("note", "")
        continue
    mn, mi = fnum(r["m"].get("median_ns")), fnum(r["m"].get("min_ns"))
    un = r["m"].get("unavailable")
    read_cost[r["item"]] = mn
    figures.append(dict(part="cputime", item=r["item"], ranks=1, metric="ns per read, median of 9 rounds",
                        unit="ns", base_is="", base="", value_is="host", value=mn, ratio=None, goal="", meets="",
                        note=f"min {mi}" if mn is not None else f"unavailable: {un}"))
    cpt_body.append([r["item"], fmt(mn, 1) if mn is not None else "unavailable", fmt(mi, 1) if mi is not None else (un or "")])
# ns per clock_gettime call of each clock, as counted by bench/rankstat.c
rc_thread = read_cost.get("clock_gettime THREAD_CPUTIME")
rc_mono = read_cost.get("clock_gettime MONOTONIC")


def reads_cost_ns(n_thread, n_mono):
    """CPU time of the counted clock reads, or None without both costs."""
    if n_thread is None or n_mono is None or not rc_thread or not rc_mono:
        return None
    return n_thread * rc_thread + n_mono * rc_mono


def reads_text(n_thread, n_mono):
    return (f"{n_thread:.2f} CLOCK_THREAD_CPUTIME_ID x {rc_thread:.0f} ns + "
            f"{n_mono:.2f} CLOCK_MONOTONIC x {rc_mono:.0f} ns")


if "vaced" in per_rt and pp_v.get("vaced") and reads_cost_ns(0, 0) is not None:
    x = per_rt["vaced"]
    exp_us = reads_cost_ns(x["clock_thread"], x["clock_mono"]) / 1000
    summary.append(f"clock reads per ping-pong iteration (both ranks): {reads_text(x['clock_thread'], x['clock_mono'])}"
                   f" = {exp_us:.2f} us of the {pp_v['vaced'] - pp_v['vanilla']:.2f} us the round trip grew by")

# --------------------------------------------------------------- reads ----
reads_body = []
for r in sorted((r for r in rows if r["part"] == "reads" and r["rc"] == "0"), key=lambda r: (int(r["ranks"]), r["item"])):
    n = fnum(r["m"].get("clock_thread"))
    nm = fnum(r["m"].get("clock_mono"))
    p = int(r["ranks"])
    a, b = groups.get((r["item"], p, "vanilla"), []), groups.get((r["item"], p, "vaced"), [])
    ca, cb = med(fnum(x["cpu_s"]) for x in a), med(fnum(x["cpu_s"]) for x in b)
    delta = cb - ca if ca is not None and cb is not None else None
    est = reads_cost_ns(n, nm)
    est = est * 1e-9 if est is not None else None
    figures.append(dict(part="reads", item=r["item"], ranks=p,
                        metric="thread CPU-time clock reads of all ranks (whole run)",
                        unit="reads", base_is="", base="", value_is="vaced", value=n, ratio=None, goal="", meets="",
                        note=(f"{reads_text(n, nm)} = {est:.3f} s CPU; measured CPU growth {fmt(delta)} s"
                              if est is not None else "")))
    reads_body.append([r["item"], str(p), f"{n / 1e6:.3f}" if n is not None else "-",
                       f"{nm / 1e6:.3f}" if nm is not None else "-", fmt(est), fmt(delta),
                       fmt(est / delta * 100, 0) + " %" if est is not None and delta and delta > 0 else "-"])

# -------------------------------------------------------------- scale ----
def scale_group(label):
    g = defaultdict(list)
    for r in rows:
        if r["part"] == label:
            g[(r["item"], r["build"])].append(r)
    return g


def mm(rs, key, scale=1.0):
    return med(fnum(r["m"].get(key)) * scale if fnum(r["m"].get(key)) is not None else None for r in rs)


scale_body = []
sc = {}
for label in ("startup", "scale"):
    g = scale_group(label)
    for (item, v), rs in sorted(g.items()):
        good = [r for r in rs if r["rc"] == "0"]
        n = int(rs[0]["ranks"])
        d = dict(n=n, item=item, runs=len(rs), ok=len(good),
                 wall=med(fnum(r["wall_s"]) for r in good), cpu=med(fnum(r["cpu_s"]) for r in good),
                 others=med(fnum(r["others_cpus"]) for r in good),
                 hwm=mm(good, "hwm_sum_kb", 1 / 1048576), hwm_max=mm(good, "hwm_max_kb", 1 / 1024),
                 pss=mm(good, "pss_sum_kb", 1 / 1048576), drop=mm(good, "avail_drop_kb", 1 / 1048576),
                 fds_max=mm(good, "fds_max"), fds_sum=mm(good, "fds_sum"), fds0=mm(good, "fds_rank0"),
                 fdsl=mm(good, "fds_last"), pred=mm(good, "prediction_s"), time=mm(good, "time"),
                 rcs=",".join(sorted({r["rc"] for r in rs})))
        sc[(label, v)] = d
for label in ("startup", "scale"):
    a, b = sc.get((label, "vanilla")), sc.get((label, "vaced"))
    if not b:
        continue
    for key, metric, unit in (("wall", "wall time", "s"), ("cpu", "CPU time of all ranks", "s"),
                              ("hwm", "sum of ranks' peak RSS (VmHWM)", "GiB"),
                              ("pss", "sum of ranks' Pss at MPI_Finalize", "GiB"),
                              ("drop", "drop of MemAvailable (whole machine)", "GiB"),
                              ("fds_max", "max descriptors of a rank at MPI_Finalize", ""),
                              ("fds_sum", "descriptors of all ranks at MPI_Finalize", "")):
        fig(label, b["item"], b["n"], metric, unit, "vanilla", a[key] if a else None, "vaced", b[key])
        nd = 0 if key.startswith("fds") else 3     # counts
        scale_body.append([f"{label}: {b['item']}", metric + (f" ({unit})" if unit else ""),
                           fmt(a[key] if a else None, nd), fmt(b[key], nd),
                           fmt(b[key] / a[key]) if a and a[key] and b[key] is not None else "-"])
    if b.get("pred") is not None:
        figures.append(dict(part=label, item=b["item"], ranks=b["n"], metric="prediction (rank 0's line)", unit="s",
                            base_is="", base="", value_is="vaced", value=b["pred"], ratio=None, goal="", meets="",
                            note=f"target {meta.get('target', '')}; app TIME= {fmt(b['time'], 6)}"))

# -------------------------------------------------------------- netns ----
netns_body = []
nh = meta.get("netns_hosts", "4")
g1, g4 = scale_group("netns-1host"), scale_group(f"netns-{nh}hosts")
netns_diffs = []
for (item, v), rs in sorted(g1.items()):
    rs4 = g4.get((item, v), [])
    p1 = med(fnum(r["m"].get("prediction_s")) for r in rs if r["rc"] == "0")
    p4 = med(fnum(r["m"].get("prediction_s")) for r in rs4 if r["rc"] == "0")
    w1 = med(fnum(r["wall_s"]) for r in rs if r["rc"] == "0")
    w4 = med(fnum(r["wall_s"]) for r in rs4 if r["rc"] == "0")
    n = rs[0]["ranks"]
    r_ = fig("netns", item, n, f"prediction, 1 host vs {nh} netns hosts", "s", "1 host", p1, f"{nh} hosts", p4,
             "", "goal: within 2%")
    fig("netns", item, n, f"host wall time, 1 host vs {nh} netns hosts", "s", "1 host", w1, f"{nh} hosts", w4)
    if r_ is not None:
        netns_diffs.append((item, (r_ - 1) * 100))
    all1 = sorted(fnum(r["m"].get("prediction_s")) for r in rs if r["rc"] == "0")
    all4 = sorted(fnum(r["m"].get("prediction_s")) for r in rs4 if r["rc"] == "0")
    # the scale part's runs of the same program are single-host runs too
    all1s = sorted(fnum(r["m"].get("prediction_s")) for r in rows
                   if r["part"] == "scale" and r["item"] == item and r["build"] == v and r["rc"] == "0")
    spread = ", ".join(fmt(x, 4) for x in all1) + (f" (scale part: {', '.join(fmt(x, 4) for x in all1s)})" if all1s else "")
    netns_body.append([item, n, fmt(p1, 6), fmt(p4, 6), f"{(r_ - 1) * 100:+.3f} %" if r_ else "-",
                       spread, ", ".join(fmt(x, 4) for x in all4), fmt(w1), fmt(w4), f"{len(rs)}/{len(rs4)}"])
for item, d in netns_diffs:
    summary.append(f"netns: {item} prediction across {nh} hosts vs 1 host: {d:+.3f} % (goal within 2 %)")
netns_skipped = [r for r in rows if r["part"] == "netns"]

# ------------------------------------------------------- limits (text) ----
limits = []
b = sc.get(("scale", "vaced"))
st = sc.get(("startup", "vaced"))
if b and b["n"]:
    n = b["n"]
    memtot = fnum(meta.get("mem_total_kb"))
    memtot_g = memtot / 1048576 if memtot else None
    if b["pss"]:
        per_rank_mb = b["pss"] * 1024 / n
        line = (f"- **Memory.** {n} ranks of {b['item']} used {fmt(b['pss'], 2)} GiB in Pss at MPI_Finalize "
                f"({per_rank_mb:.1f} MiB a rank; the sum of peak RSS, {fmt(b['hwm'], 2)} GiB, counts the shared "
                f"library pages once per rank), and the machine's MemAvailable fell by {fmt(b['drop'], 2)} GiB "
                f"(with kernel memory: socket buffers, page tables; other jobs move it too).")
        if memtot_g:
            per = max(b["pss"], b["drop"] or 0) / n
            line += (f" At {per * 1024:.1f} MiB a rank, 90 % of this machine's {memtot_g:.1f} GiB hold about "
                     f"{int(memtot_g * 0.9 / per)} ranks of it (no swap here).")
        limits.append(line)
    if b["fds_max"] is not None:
        fmx, fsum = b["fds_max"], b["fds_sum"]
        slope = (b["fdsl"] - b["fds0"]) / (n - 1) if b["fdsl"] is not None and b["fds0"] is not None and n > 1 else None
        filemax = fnum(meta.get("file_max"))
        line = (f"- **File descriptors.** At MPI_Finalize rank 0 held {fmt(b['fds0'], 0)} descriptors and rank {n - 1} "
                f"{fmt(b['fdsl'], 0)}, {fmt(fsum, 0)} in all.")
        va = sc.get(("scale", "vanilla")) or {}
        if slope is not None and slope < 0.5:
            line += (f" They do not grow with the rank: Hydra's proxy keeps its pipes to the ranks' stdout and "
                     f"stderr close-on-exec (mpich-patches/0010). Vanilla MPICH's rank {n - 1} held "
                     f"{fmt(va.get('fdsl'), 0)}, {fmt(va.get('fds_sum'), 0)} in all: there every rank inherits the "
                     f"pipes of the ranks started before it, about P^2 descriptors a job, and fs.file-max "
                     f"({meta.get('file_max', '?')} here) stops one host near 1550 ranks. The proxy itself holds "
                     f"about 3 a rank, so `ulimit -n` must exceed 3P (the script raises it to 4P+1024).")
        elif slope:
            line += (f" They grow by {slope:.2f} a rank: Hydra's proxy starts the ranks one after another and "
                     f"every rank inherits the proxy's open pipes to the stdout/stderr of the ranks started "
                     f"before it (not close-on-exec), so rank r holds about 2r descriptors besides its own "
                     f"sockets (one per peer it talked to; few for this app). The same in vanilla MPICH. "
                     f"The last rank needs `ulimit -n` above about 2P (the script raises it to 4P+1024; this "
                     f"machine's limit was {meta.get('nofile', '?')}); with the usual default of 1024 the job "
                     f"fails near 500 ranks.")
            if filemax:
                pmax = int((-(fsum / n - n) + math.sqrt((fsum / n - n) ** 2 + 4 * filemax)) / 2) if fsum else None
                line += (f" The whole job holds about P^2 descriptors, so the system-wide limit fs.file-max = "
                         f"{int(filemax)} stops one host (one proxy) near P = {pmax} ranks: the first limit "
                         f"this machine meets (sysctl fs.file-max raises it; several Hydra proxies, i.e. "
                         f"hosts in a hostfile, divide the inheritance).")
        limits.append(line)
    if st and st["wall"]:
        limits.append(f"- **Start-up.** A {n}-rank job that only calls MPI_Init and MPI_Finalize takes "
                      f"{fmt(st['wall'], 1)} s wall and {fmt(st['cpu'], 1)} s CPU with VACED "
                      f"(vanilla {fmt(sc.get(('startup', 'vanilla'), {}).get('wall'), 1)} s): "
                      f"{st['wall'] / n * 1000:.1f} ms wall and {st['cpu'] / n * 1000:.0f} ms CPU a rank (fork and "
                      f"exec by the proxy, dynamic loading, PMI key exchange, connection set-up): "
                      f"{st['wall'] / b['wall'] * 100:.0f} % of the {b['item']} run's {fmt(b['wall'], 1)} s. "
                      f"Start-up, not the model, sets the floor of a big prediction's host time.")
    limits.append(f"- **Processes.** pid_max is {meta.get('pid_max', '?')}; a job uses P + 2 processes "
                  f"(each rank, mpiexec, one proxy), so not a limit below about 30000 ranks.")

# ------------------------------------------------------------- write ----
with open(os.path.join(OUT, "bench.csv"), "w", newline="") as f:
    w = csv.writer(f)
    cols = ["part", "item", "ranks", "metric", "unit", "base_is", "base", "value_is", "value", "ratio", "goal", "meets", "note"]
    w.writerow(cols)
    for x in figures:
        w.writerow([fmt(x[c], 6) if isinstance(x[c], float) else x[c] for c in cols])

H = []
H.append("# Host cost of VACED: slowdown, host efficiency, per-call overhead, scale")
H.append("")
H.append(f"Generated by `bench/run.sh` (run {meta.get('run_id', '?')}, {meta.get('date_utc', '?')}): "
         f"`{meta.get('command', 'bench/run.sh')}`. Every ratio is measured side by side within one run "
         f"(install/vaced against install/vanilla, the same MPICH 4.0.2 ch3:sock configure). "
         f"Figures: `results/bench.csv`; every run: `results/bench-runs.csv`; logs: `build/bench/logs/`.")
H.append("")
ms = meta.get("max_steal")
steal_note = (f"A run during which steal took more than {ms} CPUs on average was run again after "
              f"{meta.get('steal_quiet', '?')} s without steal (at most {meta.get('steal_retries', '?')} times; "
              f"`--max-steal`): {meta.get('steal_reruns', '0')} reruns in this "
              f"run; every run's steal is in bench-runs.csv (`steal_cpus`)."
              if ms not in (None, "", "0") else "Runs were not redone for steal (`--max-steal 0`).")
H.append(f"Machine: {CORES} cores ({meta.get('cpu_model', '?')}), {fnum(meta.get('mem_total_kb', 0)) / 1048576:.1f} GiB, "
         f"Linux {meta.get('kernel', '?')}. **Load** (1/5/15-min load average): {meta.get('load_start', '?')} at the "
         f"start, {meta.get('load_end', '?')} at the end; the run took {meta.get('duration_s', '?')} s. Other "
         f"processes kept "
         f"{fmt(med(fnum(r['others_cpus']) for r in rows if fnum(r['others_cpus']) is not None), 2)} of the "
         f"{CORES} CPUs busy during the median run (*others*, from /proc/stat: all CPU time less the job's own); "
         f"the load average also counts the job's own ranks (a 1024-rank run lifts it past 100), *others* does "
         f"not. Neither sees the time the hypervisor takes from this VM (steal), which on this machine can "
         f"stretch the same vanilla run 1.5x from one minute to the next: compare ratios within a run, not "
         f"times across runs. " + steal_note +
         (f" The VM's free page reporting: {meta['page_reporting']}." if meta.get("page_reporting") else ""))
H.append("")
H.append("## Summary")
H.append("")
for s in summary:
    H.append(("  - " + s.strip()) if s.startswith("  ") else ("- " + s))
H.append("")
md = H + md

if sd_body:
    md.append(f"## Slowdown: {meta.get('class', 'W')} class mini-apps, vaced / vanilla wall time")
    md.append("")
    md.append(f"Wall time of the whole `mpiexec` (start-up and verification included), median of the runs; "
              f"vanilla and vaced runs interleaved; VACED with `VACED_QUIET=all VACED_TARGET={meta.get('target', '')}`; "
              f"no binding (the same for both builds); both builds run the same executable file, built once "
              f"and copied afresh before every repetition, with the build's libraries chosen by `LD_LIBRARY_PATH` "
              f"(`bench/lib/apps.sh`: on this VM one file of a binary ran 25 % slower than a byte-identical copy "
              f"for as long as it stayed in the page cache). Goal: mean <= 1.03, max <= 1.10.")
    md.append("")
    md.append("*CPU ratio*: the same for the job's CPU time (all ranks, user + system), which other jobs stretch "
              "less than the wall time. *others*: CPUs other processes kept busy during the runs (median).")
    md.append("")
    table(["app", "ranks", "vanilla (s)", "vaced (s)", "slowdown", "CPU ratio", "runs", "others (CPUs)"], sd_body)
    if refused:
        md.append("Skipped (the app refuses the rank count): " + ", ".join(f"{i} with {p} ranks" for i, p in refused) + ".")
        md.append("")
    per_p = [f for f in figures if f["part"] == "slowdown-summary"]
    md.append("; ".join(f"{f['item']} {f['metric']}: {fmt(f['ratio'])}" for f in per_p) + ".")
    md.append("")
if seg_body:
    md.append(f"## Does VACED change how fast the program computes?")
    md.append("")
    md.append(f"VACED times computation by the CPU time it takes on the host, so nothing it does may speed up or slow "
              f"down the program's own code (libm's log2, called by the model, once made LU's loops 35 % faster "
              f"and its predictions 15-20 % low). `bench/segtime.c` (LD_PRELOAD, PMPI) sums each rank's thread "
              f"CPU time between MPI calls (*compute*) and inside them, the same way in both builds: class "
              f"{meta.get('seg_class', '?')}, 2 ranks on the 2 cores (`-bind-to core`), vanilla and vaced "
              f"interleaved, VACED on target `{os.path.basename(meta.get('seg_target', '?'))}`. Compute is the sum "
              f"over both ranks; *ratio* compares the minima of the runs, the least disturbed (other jobs on "
              f"this VM stretch CPU time too: one build's runs spread by up to 40 % in a busy hour), beside "
              f"it the ratio of the medians. Goal: ratio within 0.95-1.05.")
    md.append("")
    table(["app", "vanilla compute, min-max (s)", "median", "vaced compute, min-max (s)", "median", "ratio",
           "within 5 %", "ratio of medians", "segments", "vanilla us/call in MPI", "vaced us/call in MPI", "runs"], seg_body)
if reads_body:
    md.append("### Where the extra CPU time goes")
    md.append("")
    md.append(f"One more VACED run of each combination counts the clock reads of all ranks (`bench/rankstat.c`): "
              f"thread CPU-time reads ({fmt(rc_thread, 0) if rc_thread else '?'} ns each here) and wall-clock "
              f"reads ({fmt(rc_mono, 0) if rc_mono else '?'} ns; the `rseq` source reads one per CPU-time read and "
              f"the thread clock only to open a window, see below). Their cost is set beside the measured growth "
              f"of the job's CPU time (median vaced - median vanilla, from the table above; noisy).")
    md.append("")
    table(["app", "ranks", "thread reads (millions)", "wall reads (millions)", "reads x cost (s)",
           "measured CPU growth (s)", "share"], reads_body)
if eff_body:
    md.append("## Host efficiency")
    md.append("")
    md.append(f"wall / (CPU time of all ranks / {CORES} cores), median of the runs; 1.0 means the cores did nothing "
              f"but the job's work, the goal is <= 1.3 for oversubscribed runs (more ranks than cores). The CPU "
              f"time is /usr/bin/time's user + system time of `mpiexec` with its waited-for children (the proxy "
              f"and every rank). On a shared machine this is an upper bound: other jobs' CPU time stretches the wall "
              f"time. *Idle-based* divides by the cores other processes left free instead, "
              f"wall / (CPU time / (cores - others)) = 1 + (CPU time no process used) / (job's CPU time): the "
              f"time the job left cores idle. It is a lower bound (other jobs fill idle time the job would have "
              f"left), equal to the first on a quiet machine, and exactly 1 whenever the machine is saturated; "
              f"given when others left at least 0.25 cores.")
    md.append("")
    table(["app", "ranks", "vanilla", "vaced", "vanilla, idle-based", "vaced, idle-based", "oversubscribed"],
          eff_body)
if pp_v.get("vanilla"):
    md.append("## Per-call overhead")
    md.append("")
    md.append(f"0-byte ping-pong (`bench/pingpong.c`), 2 ranks bound to the 2 cores (`-bind-to core`), timed in "
              f"the program with `clock_gettime(CLOCK_MONOTONIC)`; each run reports the median of 5 rounds of "
              f"{meta.get('pp_iters', '?')} round trips; the table gives the median over runs (all runs' values "
              f"in brackets).")
    md.append("")
    rows_pp = [["vanilla", fmt(pp_v["vanilla"], 2), ", ".join(fmt(x, 2) for x in pp_all["vanilla"])],
               ["vaced", fmt(pp_v["vaced"], 2), ", ".join(fmt(x, 2) for x in pp_all["vaced"])]]
    rows_pp[0].insert(2, fmt(pp_min["vanilla"], 2))
    rows_pp[1].insert(2, fmt(pp_min["vaced"], 2))
    table(["build", "round trip (us)", "best round (us)", "runs (us)"], rows_pp)
    md.append(f"Ratio vaced / vanilla **{fmt(pp_ratio)}** (goal <= 1.5); "
              f"{(pp_v['vaced'] - pp_v['vanilla']) / 4 * 1000:.0f} ns per MPI call (a round trip has 4 on its "
              f"critical path: each rank's MPI_Send and MPI_Recv). Best rounds: ratio "
              f"{fmt(pp_min['vaced'] / pp_min['vanilla'] if pp_min['vanilla'] and pp_min['vaced'] else None)}.")
    md.append("")
if per_rt:
    md.append("### Clock reads per ping-pong iteration")
    md.append("")
    md.append("Counted with `bench/rankstat.c` (LD_PRELOAD wrapper of `clock_gettime`, by clock id) in both "
              "ranks, for 1000 and 11000 timed iterations; reads per iteration = difference of the counts / "
              "difference of the round trips (so the reads of MPI_Init, MPI_Finalize and the read-cost "
              "calibration cancel out).")
    md.append("")
    body = []
    for v in ("vanilla", "vaced"):
        for rk in ("rank0", "rank1"):
            if (v, rk) in reads:
                x = reads[(v, rk)]
                body.append([v, rk, fmt(x["clock_thread"], 2), fmt(x["clock_process"], 2), fmt(x["clock_mono"], 2),
                             fmt(x["clock_other"], 2), fmt(x["fixed_thread"], 0)])
    table(["build", "rank", "THREAD_CPUTIME", "PROCESS_CPUTIME", "MONOTONIC", "other", "THREAD_CPUTIME outside the loop"], body)
    md.append("Why 2 per MPI call: `vaced/src/clock/clock.c` reads the CPU-time source at the start of every outermost "
              "MPI call bracket (`vaced_activity_begin`, depth 0 -> 1: the computation segment since the last call "
              "ends) and at its end (`vaced_activity_end`, depth 1 -> 0: the next segment starts). Nested calls "
              "(a collective's sends, the progress engine inside MPI_Recv) only move the depth, and waiting in "
              "the progress engine reads nothing. A ping-pong iteration is MPI_Send + MPI_Recv on each rank: "
              "2 brackets x 2 reads = 4 reads a rank, 8 a round trip, all of them on the round trip's critical "
              "path. With the `rseq` source (`VACED_CPUTIME=auto` where perf-mmap is missing) each of them is a "
              "wall-clock read, and the thread clock is read only to open a window, after the thread was switched "
              "out or 50 us passed: here once a rank per iteration, at the end of MPI_Recv, which slept in poll. "
              "Opening a window also reads the wall clock once more, hence 5 a rank.")
    md.append("")
if cpt_body:
    md.append("### Cost of each CPU-time source")
    md.append("")
    md.append("`bench/cputime_bench.c` (compiled against `vaced/src`), ns per read, median and minimum of 9 rounds "
              "of 20000 reads, sources interleaved.")
    md.append("")
    table(["source", "median (ns)", "min (ns)"], cpt_body)
    if auto_note:
        md.append(f"`VACED_CPUTIME=auto` here: {auto_note}")
        md.append("")
    if "vaced" in per_rt and pp_v.get("vaced") and reads_cost_ns(0, 0) is not None:
        x = per_rt["vaced"]
        us = reads_cost_ns(x["clock_thread"], x["clock_mono"]) / 1000
        md.append(f"{reads_text(x['clock_thread'], x['clock_mono'])} = {us:.2f} us a round trip, against the measured "
                  f"{pp_v['vaced'] - pp_v['vanilla']:.2f} us growth: the clock reads are "
                  f"{'most' if us >= 0.5 * (pp_v['vaced'] - pp_v['vanilla']) else 'part'} of the "
                  f"per-call cost; the rest is VACED's bookkeeping (arrival time in every packet, the waits' "
                  f"history) and run-to-run noise.")
        md.append("")
if scale_body:
    b = sc.get(("scale", "vaced"))
    md.append(f"## Scale: {b['n'] if b else '?'} ranks on this machine")
    md.append("")
    md.append(f"`mpiexec -n N` of {meta.get('scale_app', '?')} class {meta.get('scale_class', '?')} (and of a job that "
              f"only calls MPI_Init and MPI_Finalize, *startup*), vanilla and vaced (target "
              f"{meta.get('target', '?')}), {meta.get('scale_reps', '?')} run(s) each, medians. Memory and "
              f"descriptors from `bench/rankstat.c` in every rank; MemAvailable sampled every 0.5 s.")
    md.append("")
    table(["run", "figure", "vanilla", "vaced", "vaced / vanilla"], scale_body)
    if b and b.get("pred") is not None:
        md.append(f"Prediction on {meta.get('target', '?')}: **{b['pred']:.6f} s** (rank 0's `vaced: prediction` "
                  f"line, MPI_Init to MPI_Finalize; the app's own TIME= line, its timed loop in target time: "
                  f"{fmt(b['time'], 6)} s). Exit status of the runs: vaced {b['rcs']}.")
        md.append("")
    if limits:
        md.append("### What limits the scale")
        md.append("")
        md.extend(limits)
        md.append("")
md.append("## Across emulated host nodes")
md.append("")
if netns_body:
    md.append(f"The same {netns_body[0][1]}-rank predictions on one host and across {nh} network namespaces "
              f"(tests/netns/lib.sh; Hydra through vaced/tools/netns-launcher, {int(netns_body[0][1]) // int(nh)} "
              f"ranks a namespace, unshaped veth links, all on this machine's cores). Goal: within 2 %.")
    md.append("")
    table(["program", "ranks", "prediction, 1 host (s)", f"prediction, {nh} hosts (s)", "difference",
           "1 host, every run", f"{nh} hosts, every run", "wall, 1 host (s)", f"wall, {nh} hosts (s)", "runs"],
          [[str(c) for c in x] for x in netns_body])
    md.append("The ring's prediction is communication only (1 MiB rendezvous messages, times from the target "
              "description): it is the check that the host placement does not enter the model. A prediction "
              "with computation (EP's class S runs a serial rerun on rank 0 after the timed loop, whose "
              "CPU time sets the whole-program prediction) also moves with the CPU time the host measures: "
              "compare the difference with the spread of one host's own runs (*every run*). A run of "
              "2026-11-22 (before the apps became one file for both builds and the CPU-time source was "
              "remembered per host) saw one host's runs spread by 25 % and the hosts differ by 11 %. "
              "While the hypervisor takes time from this VM (steal), the thread clock was seen to stand still "
              "and then jump by milliseconds, landing in whatever compute segment is being measured (the "
              "guest kernel subtracts steal, `CONFIG_PARAVIRT_TIME_ACCOUNTING`); runs with steal are "
              "therefore redone (above) and the medians of the runs are compared.")
    md.append("")
elif netns_skipped:
    md.append("Not run: " + "; ".join(r["m"].get("note", "skipped") for r in netns_skipped) + ".")
    md.append("")
else:
    md.append("Not run in this run (`--parts` without netns).")
    md.append("")
md.append("## Regenerate")
md.append("")
md.append("    bench/run.sh            # everything: about 20 minutes on 2 cores")
md.append("    bench/run.sh --quick    # about 5 minutes: 3 repetitions, EP IS MG FT STENCIL, 1 scale run, no netns")
md.append("    bench/run.sh --report-only   # rewrite bench.csv and bench.md from bench-runs.csv")
md.append("")
md.append("`bench/run.sh --help` lists the options (parts, apps, rank counts, repetitions, scale size).")
md.append("")
with open(os.path.join(OUT, "bench.md"), "w") as f:
    f.write("\n".join(md))

print("bench summary " + "-" * 60)
print(f"load average at start {meta.get('load_start', '?')}, at end {meta.get('load_end', '?')} ({CORES} cores)")
for s in summary:
    print(s)
for line in limits:
    print(line)
print(f"written: {os.path.join(OUT, 'bench.csv')}, {os.path.join(OUT, 'bench.md')}")
