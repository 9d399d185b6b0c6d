"""vaced report: a run's prediction as a page a person opens, DIR/report.html
with PNG plots: the job summary, each rank's breakdown, the top call sites,
the critical path's composition and a timeline of up to 64 ranks with
their messages.

Imported by the front end (vaced/tools/vaced) for `vaced report` and
`vaced run --report`.  The JSON and the traces are read with the standard
library; the plots are drawn with Debian's python3-matplotlib, in this
interpreter or, when it has none, in /usr/bin/python3, which runs this
file as a script (vaced_syspy.py).  Parts the JSON does not have (the
breakdown, call sites, the critical path) are named as not available; the
critical path is found from the traces when the JSON has none.
"""
import html
import json
import os
import sys

sys.dont_write_bytecode = True          # no __pycache__ in vaced/tools
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vaced_critpath                   # noqa: E402
import vaced_syspy                      # noqa: E402
import vaced_traces                     # noqa: E402

REPORT_HELP = """\
usage: vaced report DIR --json FILE [--trace TRACE_DIR]

Writes DIR/report.html and its PNG plots from a finished run: the job
summary; a stacked bar of each rank's predicted time by the breakdown's
terms (per_rank[].breakdown in the JSON) or, where the JSON has none, by
compute and communication; the top call sites (call_sites), said to be
not available when the JSON lacks them; the critical path's composition
by the same terms (critical_path in the JSON, else found from the
traces); and, from the run's traces, a timeline of up to 64 ranks
(computation, MPI calls, polling) with each message drawn from its send
to its receive and the critical path over them, in target time.

  DIR               the report's directory (created if missing; its
                    report.html and plots are replaced)
  --json FILE       the run's JSON: vaced run --json FILE, or VACED_JSON
  --trace TRACE_DIR the run's traces: vaced run --trace TRACE_DIR, or
                    VACED_TRACE (without it: no timeline)
  -h, --help        this text

vaced run --report DIR writes the same at the end of a run (tracing it).
Needs matplotlib (apt-get install python3-matplotlib).

Exit status: 0 written; 2 a usage error; 1 an unreadable JSON or trace,
an unwritable DIR or no matplotlib.

Examples:
  vaced run -n 8 --target paper-16 --json run.json --trace tr -- ./ring 8 10
  vaced report rep --json run.json --trace tr && chromium rep/report.html
"""

REPORT_VALUED = ("--json", "--trace")
BREAKDOWN_KEYS = vaced_traces.TERMS
MAX_TIMELINE_RANKS = 64
TOP_SITES = 10
SPAN_COLOURS = {"compute": "#4c72b0", "mpi": "#dd8452", "poll": "#55a868"}
SPAN_LABELS = {"compute": "computation", "mpi": "MPI call", "poll": "polling"}


class ReportError(Exception):
    """Input that cannot be reported, or a report that cannot be written."""


# --- What the JSON has ---------------------------------------------------

def load_json(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise ReportError(f"{path}: {e.strerror}")
    except ValueError as e:
        raise ReportError(f"{path}: not JSON: {e}")
    per = data.get("per_rank") if isinstance(data, dict) else None
    if not isinstance(per, list) or not per or \
            not all(isinstance(r, dict) and isinstance(r.get("total_s"), (int, float)) for r in per):
        raise ReportError(f"{path}: not a VACED prediction (no per_rank list with total_s)")
    return data


def breakdowns(data):
    """[{term: seconds}] per rank, or None unless every rank has one."""
    rows = [r.get("breakdown") for r in data["per_rank"]]
    if all(isinstance(b, dict) and b for b in rows):
        return [{k: float(b.get(k, 0) or 0) for k in BREAKDOWN_KEYS} for b in rows]
    return None


def call_sites(data):
    """The top call sites by predicted time: [(site, calls, total_s)], or None."""
    sites = data.get("call_sites")
    if not isinstance(sites, list) or not sites:
        return None
    rows = []
    for s in sites:
        if not isinstance(s, dict):
            continue
        where = f"{os.path.basename(s['file'])}:{s['line']}" if s.get("file") and s.get("line") else \
            f"{os.path.basename(s.get('module') or '?')}+{s.get('offset')}"
        name = (s.get("function") or "?") + (f" in {s['caller']}" if s.get("caller") else "")
        label = f"{name} ({where})"
        rows.append((label, s.get("calls"), float(s.get("total_s", 0) or 0)))
    rows.sort(key=lambda r: -r[2])
    return rows[:TOP_SITES] or None


def critical_path(data):
    """The critical path's composition {term: seconds}, or None."""
    cp = data.get("critical_path")
    comp = cp.get("breakdown") if isinstance(cp, dict) else None
    if isinstance(comp, dict) and comp:
        return {k: float(v) for k, v in comp.items() if isinstance(v, (int, float))}
    return None


def path_route(data):
    """The critical path's visits [(rank, start_s, end_s)] and hops [(from,
    to, left_s, reached_s)], for the timeline; ([], []) if the JSON has none."""
    cp = data.get("critical_path")
    if not isinstance(cp, dict):
        return [], []
    try:
        visits = [(int(v["rank"]), float(v["start_s"]), float(v["end_s"])) for v in cp.get("visits") or []]
        hops = [(int(h["from"]), int(h["to"]), float(h["left_s"]), float(h["reached_s"]))
                for h in cp.get("hops") or []]
    except (KeyError, TypeError, ValueError):
        return [], []
    return visits, hops


def summary_rows(data):
    per = data["per_rank"]
    slow = max(per, key=lambda r: r["total_s"])
    rows = [("prediction", f"{data.get('prediction_s', slow['total_s']):.9f} s"),
            ("target", str(data.get("target", "?"))),
            ("ranks", str(data.get("ranks", len(per))))]
    if data.get("command"):
        rows.append(("program", " ".join(map(str, data["command"]))))
    if "compute_s" in slow:
        rows.append(("slowest rank", f"{slow['rank']}: compute {slow['compute_s']:.9f} s, "
                                     f"communication {slow.get('communication_s', 0):.9f} s"))
    for label, key in (("predicted", "total_s"), ("compute", "compute_s"), ("communication", "communication_s")):
        v = [r[key] for r in per if isinstance(r.get(key), (int, float))]
        if v:
            rows.append((f"{label} over ranks", f"min {min(v):.9f} s, mean {sum(v) / len(v):.9f} s, "
                                                f"max {max(v):.9f} s"))
    if data.get("approximate"):
        rows.append(("approximate", f"yes: {data.get('not_modelled') or 'features the model does not time'}"))
    if isinstance(data.get("host_wall_s"), (int, float)):
        rows.append(("host wall time", f"{data['host_wall_s']:.3f} s"))
    return rows


# --- Plots (matplotlib) ---------------------------------------------------

def term_colour(term, plt):
    """A breakdown term's colour, the same in every plot of the page."""
    i = BREAKDOWN_KEYS.index(term) if term in BREAKDOWN_KEYS else len(BREAKDOWN_KEYS)
    return plt.get_cmap("tab10")(i % 10)


def plot_breakdown(data, plt, path):
    per = data["per_rank"]
    ranks = [r.get("rank", i) for i, r in enumerate(per)]
    split = breakdowns(data)
    if split:
        terms = [k for k in BREAKDOWN_KEYS if any(b[k] for b in split)] or list(BREAKDOWN_KEYS[:1])
        series = [(k, [b[k] for b in split]) for k in terms]
    else:
        series = [("compute", [r.get("compute_s", 0) for r in per]),
                  ("communication", [r.get("communication_s", r["total_s"] - r.get("compute_s", 0))
                                     for r in per])]
    fig, ax = plt.subplots(figsize=(10, 4.2))
    bottom = [0.0] * len(per)
    for term, values in series:
        ax.bar(ranks, values, bottom=bottom, label=term.replace("_", " "), color=term_colour(term, plt),
               width=0.8)
        bottom = [b + v for b, v in zip(bottom, values)]
    ax.set_xlabel("rank")
    ax.set_ylabel("predicted time (s)")
    ax.set_title("each rank's predicted time" + (" by the breakdown's terms" if split else
                                                   ": compute and communication"))
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return bool(split)


def plot_bars(labels, values, color, xlabel, title, plt, path):
    """Horizontal bars, the first label on top."""
    fig, ax = plt.subplots(figsize=(10, 0.4 * len(labels) + 1.2))
    ax.barh(labels[::-1], values[::-1], color=color)
    ax.set_xlabel(xlabel)
    ax.set_title(title)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_call_sites(rows, plt, path):
    plot_bars([r[0] if len(r[0]) <= 60 else r[0][:57] + "..." for r in rows], [r[2] for r in rows],
              "#4c72b0", "predicted time (s)", f"top {len(rows)} call sites", plt, path)


def plot_critical_path(comp, plt, path):
    """One bar, the path's length, stacked by its terms (the breakdown's
    colours and order)."""
    terms = [k for k in BREAKDOWN_KEYS if comp.get(k, 0) > 0] + \
        [k for k in comp if k not in BREAKDOWN_KEYS and comp[k] > 0]
    total = sum(comp.values()) or 1.0
    fig, ax = plt.subplots(figsize=(10, 2.6))
    left = 0.0
    for k in terms:
        ax.barh([0], [comp[k]], left=[left], color=term_colour(k, plt), height=0.6,
                label=f"{k.replace('_', ' ')} {100 * comp[k] / total:.1f} %")
        left += comp[k]
    ax.set_yticks([])
    ax.set_xlim(0, total)
    ax.set_xlabel("time on the critical path (s)")
    ax.set_title(f"the critical path's composition ({sum(comp.values()):.9f} s)")
    ax.legend(loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


def plot_timeline(ranks, traced, plt, path, route=([], [])):
    """The first ranks' timeline (of `traced` ranks in all); the messages drawn."""
    from matplotlib.collections import LineCollection
    from matplotlib.patches import Patch
    shown = ranks[:MAX_TIMELINE_RANKS]
    fig, ax = plt.subplots(figsize=(12, 0.28 * len(shown) + 1.8))
    for row, r in enumerate(shown):
        for kind in SPAN_COLOURS:
            bars = [(a / 1e12, (b - a) / 1e12) for k, a, b in r.spans if k == kind]
            if bars:
                ax.broken_barh(bars, (row - 0.35, 0.7), facecolors=SPAN_COLOURS[kind], linewidth=0)
    paired, _ = vaced_traces.messages(shown)
    rows = {r.rank: i for i, r in enumerate(shown)}
    lines = [((sent / 1e12, rows[s]), (got / 1e12, rows[d])) for s, d, _, _, sent, got in paired
             if s in rows and d in rows and s != d]
    if lines:
        ax.add_collection(LineCollection(lines, colors="black", linewidths=0.6, alpha=0.6))
    visits, hops = route
    drawn = [((a, rows[r]), (b, rows[r])) for r, a, b in visits if r in rows] + \
        [((a, rows[f]), (b, rows[t])) for f, t, a, b in hops if f in rows and t in rows]
    if drawn:
        ax.add_collection(LineCollection(drawn, colors="#d62728", linewidths=2.2, alpha=0.9, zorder=3))
    ax.set_yticks(range(len(shown)))
    ax.set_yticklabels([str(r.rank) for r in shown], fontsize=7 if len(shown) > 16 else 9)
    ax.set_ylim(len(shown) - 0.5, -0.5)
    ax.set_xlim(0, max(r.end_ps for r in shown) / 1e12 or 1)
    ax.set_xlabel("target time (s)")
    ax.set_ylabel("rank")
    ax.set_title(f"timeline of ranks 0-{len(shown) - 1}" + (f" of {traced}" if traced > len(shown) else "")
                 + f", {len(lines)} messages")
    handles = [Patch(color=c, label=SPAN_LABELS[k]) for k, c in SPAN_COLOURS.items()]
    handles.append(plt.Line2D([], [], color="black", linewidth=0.8, label="message"))
    if drawn:
        handles.append(plt.Line2D([], [], color="#d62728", linewidth=2.2, label="critical path"))
    ax.legend(handles=handles, loc="upper left", bbox_to_anchor=(1.0, 1.0), fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return len(lines)


# --- The page --------------------------------------------------------------

def section(title, body):
    return f"<h2>{html.escape(title)}</h2>\n{body}\n"


def image(name, alt):
    return f'<img src="{name}" alt="{html.escape(alt)}">'


def note(text):
    return f'<p class="na">{html.escape(text)}</p>'


def path_text(cp):
    """What the critical path crosses, in words (the parts the JSON has)."""
    ranks, hops = cp.get("ranks"), cp.get("hops")
    if not isinstance(ranks, list) or not isinstance(hops, list):
        return ""
    text = (f"<p>Its length is the prediction; it visits "
            f"{len(set(ranks))} ranks in {len(ranks)} visits ({html.escape(vaced_critpath.abbreviated(ranks))}) "
            f"and crosses between ranks {len(hops)} times; on the timeline it is drawn in red.</p>")
    sites = cp.get("call_sites")
    if isinstance(sites, list) and sites:
        rows = "".join(f"<tr><td>{html.escape(str(x.get('site')))}</td><td>{float(x.get('total_s', 0)):.9f}</td>"
                       f"<td>{100 * float(x.get('share', 0)):.1f} %</td></tr>" for x in sites[:TOP_SITES])
        text += ("<p>Its time by where the program spends it:</p><table><tr><th>call site</th>"
                 f"<th>time on the path (s)</th><th>share</th></tr>{rows}</table>")
    return text


def write_report(json_path, trace_dir, out_dir):
    """Draws the plots and writes the page (needs matplotlib); returns
    the path of report.html."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    data = load_json(json_path)
    ranks, traced = None, 0
    if trace_dir and critical_path(data) is None:
        ranks = vaced_traces.read_dir(trace_dir)        # the path needs every rank
        traced = len(ranks)
    elif trace_dir:                                     # the timeline needs its own
        ranks, traced = vaced_traces.read_first(trace_dir, MAX_TIMELINE_RANKS)
    parts = []
    rows = "".join(f"<tr><th>{html.escape(k)}</th><td>{html.escape(v)}</td></tr>" for k, v in summary_rows(data))
    parts.append(section("Job summary", f"<table>{rows}</table>"))

    has_split = plot_breakdown(data, plt, os.path.join(out_dir, "breakdown.png"))
    parts.append(section("Each rank's breakdown",
                         ("" if has_split else note("breakdown not available: this run's JSON has no "
                                                    "per_rank breakdown; the bars split compute and "
                                                    "communication")) + image("breakdown.png", "breakdown")))

    sites = call_sites(data)
    if sites:
        plot_call_sites(sites, plt, os.path.join(out_dir, "call_sites.png"))
        table = "".join(f"<tr><td>{html.escape(s)}</td><td>{'' if c is None else c}</td><td>{t:.9f}</td></tr>"
                        for s, c, t in sites)
        body = image("call_sites.png", "call sites") + \
            f"<table><tr><th>call site</th><th>calls</th><th>time (s)</th></tr>{table}</table>"
    else:
        tables = data.get("calls_table")
        body = note("call sites not available: " + (f"the run's call tables are {tables}"
                                                    if tables and tables != "on"
                                                    else "this run's JSON has no call_sites"))
    parts.append(section("Top call sites", body))

    why = "this run's JSON has no critical_path" + ("" if ranks else " and there is no trace")
    if critical_path(data) is None and ranks:
        try:
            data["critical_path"] = vaced_critpath.to_dict(vaced_critpath.find(ranks), ranks)
        except vaced_critpath.PathError as e:
            why = f"{e}"
    comp = critical_path(data)
    if comp:
        plot_critical_path(comp, plt, os.path.join(out_dir, "critical_path.png"))
        body = image("critical_path.png", "critical path") + path_text(data["critical_path"])
    else:
        body = note(f"critical path not available: {why}")
    parts.append(section("The critical path", body))

    if ranks:
        n = plot_timeline(ranks, traced, plt, os.path.join(out_dir, "timeline.png"), path_route(data))
        shown = f" (the first {MAX_TIMELINE_RANKS} shown)" if traced > MAX_TIMELINE_RANKS else ""
        body = image("timeline.png", "timeline") + \
            f"<p>{traced} ranks traced{shown}; {n} messages between the ranks shown drawn from send to receive.</p>"
    else:
        body = note("timeline not available: no trace (vaced report --trace DIR, or vaced run --report)")
    parts.append(section("Timeline", body))

    title = f"VACED prediction: {data.get('prediction_s', 0):.9f} s on {data.get('target', '?')}"
    page = f"""<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8"><title>{html.escape(title)}</title>
<style>
body {{ font-family: sans-serif; margin: 1.5em; max-width: 1250px; }}
table {{ border-collapse: collapse; margin: 0.5em 0; }}
th, td {{ text-align: left; padding: 0.15em 0.8em; border-bottom: 1px solid #ddd; }}
img {{ max-width: 100%; display: block; margin: 0.5em 0; }}
.na {{ color: #8a6d3b; background: #fcf8e3; padding: 0.4em; }}
</style></head>
<body>
<h1>{html.escape(title)}</h1>
{"".join(parts)}</body></html>
"""
    path = os.path.join(out_dir, "report.html")
    with open(path, "w") as f:
        f.write(page)
    return path


# --- The command ---------------------------------------------------------

def make_report(json_path, trace_dir, out_dir):
    """Checks the input, then writes the report where matplotlib is;
    returns the page's path.  ReportError if it cannot."""
    load_json(json_path)
    if trace_dir:
        try:
            vaced_traces.trace_files(trace_dir)
        except vaced_traces.TraceError as e:
            raise ReportError(str(e))
    try:
        how = vaced_syspy.interpreter("matplotlib", "the report needs matplotlib", "python3-matplotlib")
        vaced_syspy.writable_dir(out_dir)
        if how != "here":
            return vaced_syspy.run_script(how, os.path.abspath(__file__),
                                          [json_path, trace_dir or "", out_dir]).splitlines()[-1]
    except vaced_syspy.Failure as e:
        raise ReportError(str(e))
    try:
        return write_report(json_path, trace_dir, out_dir)
    except vaced_traces.TraceError as e:
        raise ReportError(str(e))
    except OSError as e:
        raise ReportError(f"{out_dir}: writing the report failed: {e.strerror}")


def main(argv):
    """vaced report DIR --json FILE [--trace TRACE_DIR]; errors are vaced_cli's."""
    import vaced_cli as cli
    got = cli.options(argv, REPORT_VALUED, "report", REPORT_HELP)
    if got is None:
        return 0
    o, pos = got
    if len(pos) != 1:
        raise cli.Usage("needs one report directory: vaced report DIR --json FILE [--trace TRACE_DIR]")
    if "--json" not in o:
        raise cli.Usage("--json FILE (the run's JSON) is required")
    out_dir = pos[0]
    trace = os.path.abspath(o["--trace"]) if "--trace" in o else None
    try:
        print("report " + make_report(os.path.abspath(o["--json"]), trace, os.path.abspath(out_dir)))
    except ReportError as e:
        raise cli.Failure(str(e))
    return 0


if __name__ == "__main__":      # run by an interpreter that has matplotlib; DIR is prepared
    try:
        print(write_report(sys.argv[1], sys.argv[2] or None, sys.argv[3]))
    except (ReportError, vaced_traces.TraceError) as e:
        print(e)
        sys.exit(1)
    except OSError as e:
        print(f"{sys.argv[3]}: writing the report failed: {e.strerror}")
        sys.exit(1)
