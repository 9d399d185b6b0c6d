"""vaced_summary: what `vaced run` prints after the program's output
(the summary's rows, the top MPI functions and call sites) and the JSON
it writes, from the run's data.  Python 3 standard library only.
"""
import json
import os


def summary_table(data, o, wall, vanilla):
    per = data["per_rank"]
    slow = max(per, key=lambda r: r["total_s"])   # the first maximum, as the library's
    total = slow["total_s"] or 1.0
    rows = [("prediction", f"{data['prediction_s']:.9f} s")]
    wake = data.get("wake_up")
    if wake:
        rows.append(("", f"wake-up corrected (raw {data['prediction_raw_s']:.9f} s): cold segments "
                         f"{100 * wake['cold_share']:.1f} % of the computation, {100 * wake['removed_share']:.1f} % "
                         f"taken off, {100 * wake['uncorrected_share']:.1f} % not correctable"))
    rep = data.get("repeat")
    if rep:
        lo, hi = data["prediction_interval_s"]
        rows += [("", f"each segment the least of its {rep['executions']} executions' measurements "
                      f"({rep['combined_ranks']} of {data['ranks']} ranks combined)"),
                 ("executions", ", ".join(f"{p:.6f}" for p in data["predictions_s"])
                  + f" s; range {lo:.6f}-{hi:.6f} s ({100 * (hi - lo) / data['prediction_s']:.1f} %)")]
        if data.get("approximate"):
            rows.append(("", f"approximate: {data.get('not_modelled')}"))
    elif o["--repeat"] == 1:
        rows.append(("", "no interval: one execution (--repeat 2 or more gives one)"))
    else:
        rows.append(("", "no interval: the executions were not combined (see above)"))
    rows += [
        ("target", f"{data['target']} ({data['target_file']})"),
        ("ranks", str(data["ranks"])),
        ("slowest rank", f"{slow['rank']}: compute {slow['compute_s']:.9f} s "
                         f"({100 * slow['compute_s'] / total:.1f} %), communication "
                         f"{slow['communication_s']:.9f} s ({100 * slow['communication_s'] / total:.1f} %)"),
        ("over ranks", f"{'min':>14} {'mean':>14} {'max':>14}"),
    ]
    for label, key in (("  predicted", "total_s"), ("  compute", "compute_s"),
                       ("  communication", "communication_s")):
        v = [r[key] for r in per]
        rows.append((label, f"{min(v):12.9f} s {sum(v) / len(v):12.9f} s {max(v):12.9f} s"))
    n = o.get("--host-cores")
    cores = f"{n} host core{'s' * (n > 1)}, taskset -c 0-{n - 1}" if n else "all host CPUs"
    rows.append(("host wall time", f"{wall:.3f} s ({cores}"
                 + (f", hostfile {o['--hostfile']})" if "--hostfile" in o else ")")))
    if vanilla:
        rows.append(("slowdown", f"{wall / vanilla[0]:.2f} (host wall time / vanilla "
                                 f"{vanilla[0]:.3f} s, {vanilla[1]})"))
    if "--trace" in o:
        rows.append(("trace", os.path.join(o["--trace"], "vaced-trace.R.csv") + f", R = 0..{data['ranks'] - 1}"))
    uc = data.get("uniform_compute")
    if uc:
        change = f", {100 * uc['change']:+.1f} %" if uc["change"] is not None else ""
        rows.append(("uniform compute", f"{uc['prediction_s']:.9f} s{change} (computation uniform across "
                     f"ranks: {uc['groups']} groups of ranks with one sequence of calls)"))
    cp = data.get("critical_path")
    if cp:
        length = cp["length_s"] or 1.0
        top = sorted(((v, k) for k, v in cp["breakdown"].items() if v > 0), reverse=True)[:3]
        rows.append(("critical path", f"{cp['length_s']:.9f} s: "
                     + ", ".join(f"{k} {100 * v / length:.1f} %" for v, k in top)
                     + f"; {len(set(cp['ranks']))} ranks, {len(cp['hops'])} hops"
                     + ("; the first execution's" if data.get("prediction_raw_s") is not None else "")))
    tables = data.get("calls_table")
    if tables and tables != "on":     # say why no per-call table follows
        rows.append(("call tables", tables))
    # the library's tables are the first execution's; the estimate is a replay
    raw = data.get("prediction_raw_s")
    scope = f"; the first execution's, predicted {raw:.9f} s" if raw is not None else ""
    rule = "-" * 72
    return "\n".join(["vaced summary " + rule[14:]] + [f"{k:<16} {v}" for k, v in rows] + [rule]) + "\n" + \
        top_table(data.get("calls"), "MPI function", lambda c: c["function"], scope) + \
        top_table(data.get("call_sites"), "call site", site_label, scope)


def site_label(s):
    """'MPI_Send in conj_grad (cg.c:123)', or (cg+0x1a2b) without line information."""
    if s.get("file") and s.get("line"):
        where = f"{os.path.basename(s['file'])}:{s['line']}"
    else:       # no line: the offset tells apart the sites of one function
        where = f"{os.path.basename(s.get('module') or '?')}+{s.get('offset', '?')}"
    caller = s.get("caller")
    return s["function"] + (f" in {caller}" if caller else "") + (f" ({where})" if where else "")


def top_table(rows, what, label, scope="", top=10):
    """The top rows of the JSON's calls or call_sites by predicted time,
    with their main terms; '' when the run has none.  scope says which
    execution they measure when it is not the prediction's."""
    if not rows:
        return ""
    lines = [f"top {min(top, len(rows))} of {len(rows)} by {what} (time over all ranks; share of "
             f"all ranks' predicted time{scope})",
             f"  {'calls':>9} {'time (s)':>12} {'share':>7}  {what}: main terms"]
    for r in rows[:top]:
        terms = sorted(r["breakdown"].items(), key=lambda kv: -kv[1])
        main = ", ".join(f"{k} {100 * v / r['total_s']:.0f} %" for k, v in terms[:2]
                         if r["total_s"] > 0 and v >= 0.005 * r["total_s"])
        lines.append(f"  {r['calls']:>9} {r['total_s']:>12.6f} {100 * r['share']:>6.1f}%  "
                     f"{label(r)}" + (f": {main}" if main else ""))
    return "\n".join(lines) + "\n"


def to_json(data):
    """One key a line, one rank a line (as the library writes it)."""
    items = []
    for k, v in data.items():
        if isinstance(v, list) and v and all(isinstance(r, dict) for r in v):
            v = "[\n" + ",\n".join("    " + json.dumps(r) for r in v) + "\n  ]"
        else:
            v = json.dumps(v)
        items.append(f"  {json.dumps(k)}: {v}")
    return "{\n" + ",\n".join(items) + "\n}\n"
