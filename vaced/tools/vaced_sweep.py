"""vaced sweep: re-time one recorded execution on many variants of a target.

Run by the front end (vaced_cli), whose target tools resolve and check
targets, and build the replay tool, the way its other commands do.  Python 3 standard library only; matplotlib is
imported for --plot alone, in this process or, when this interpreter has
none, in the system's /usr/bin/python3 (Debian's python3-matplotlib), which
runs this file as a script on the plot's data.
"""
import csv
import itertools
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed

SWEEP_HELP = """\
usage: vaced sweep DIR --target T --vary KEY=V1,V2,... [--vary ...]
                   [--targets T1,T2,...] [--csv FILE] [--plot FILE.png] [--jobs N]
                   [--uniform-compute] [--stats]

Re-times the execution recorded in DIR (vaced run --record DIR) on variants
of target T, as `vaced replay` does for one target (docs/replay.md, Sweeps),
and prints one row per variant: the varied keys' values, the prediction and
its change against T's own replay.

  DIR              a record: DIR/rank-NNNNNN.vlog
  --target T       the base target: a path, or a name NAME for NAME.topo in
                   $VACED_TOPO_DIR or topo/ (as vaced run)
  --vary KEY=VALUES
                   a key of the target description (docs/targets.md) and its
                   values, separated by commas only (values may hold
                   blanks: bnet=2 GB/s,8 GB/s).  A value NUMx (0.5x, 2x)
                   multiplies the base target's value, keeping its unit.
                   Several --vary: every combination of their values.
                   Each variant is T with the KEY line replaced (or added)
                   and checked, as vaced check-target, for the record's ranks
  --targets T1,T2,...
                   also replay each of these whole targets, unchanged
  --csv FILE       write the table to FILE as CSV
  --plot FILE.png  draw the prediction against each varied key (log2 axis)
                   and the --targets as bars (needs matplotlib:
                   apt-get install python3-matplotlib)
  --jobs N         replays run at once (default: the CPUs this process may use);
                   each loads its record with its share of the CPUs
  --uniform-compute
                   every replay with computation uniform across ranks, as
                   vaced replay --uniform-compute (docs/replay.md)
  --stats          on stderr: the sweep's wall time, the sum of its
                   replays' wall times and their ratio (bench/sweep-speedup.sh)
  -h, --help       this text

A record written by vaced run --repeat N --record DIR keeps its executions'
predictions (DIR/estimate.json): a change smaller than their spread
((max - min) / combined prediction) is marked "inside spread": re-timing
another execution of the same program could reverse it.

After the table, one line per numeric key: the change of the prediction per
doubling of the key, fitted (log2 prediction against log2 value, least
squares) over the rows whose other keys have the base target's values.

Exit status: 0 success; 2 a usage error (no record, no target, an unknown
key, an empty or refused value); 1 an invalid target file or a failed
replay, with its message.

Examples:
  vaced sweep rec --target paper-16 --vary bnet=0.5x,1x,2x
  vaced sweep rec --target paper-16 --vary "latency=5 us,15 us,45 us" \\
            --vary cores_per_node=1,2,4 --targets paper-1024,torus-4x4x4 --csv sweep.csv
"""

SWEEP_VALUED = ("--target", "--vary", "--targets", "--csv", "--plot", "--jobs")
LOG_MAGIC = b"VACEDLOG"
FE = None      # the front end (vaced_cli), set by main: Usage, Failure, the target tools

# The units of docs/targets.md, as factors to B/s, s and B.
UNITS = {
    "B/s": 1, "KB/s": 1e3, "kB/s": 1e3, "MB/s": 1e6, "GB/s": 1e9, "TB/s": 1e12,
    "KiB/s": 2.0 ** 10, "MiB/s": 2.0 ** 20, "GiB/s": 2.0 ** 30, "TiB/s": 2.0 ** 40,
    "bit/s": 1 / 8, "Kbit/s": 1e3 / 8, "kbit/s": 1e3 / 8, "Mbit/s": 1e6 / 8, "Gbit/s": 1e9 / 8,
    "Tbit/s": 1e12 / 8,
    "s": 1, "ms": 1e-3, "us": 1e-6, "ns": 1e-9, "ps": 1e-12,
    "B": 1, "KB": 1e3, "kB": 1e3, "MB": 1e6, "GB": 1e9, "KiB": 2.0 ** 10, "MiB": 2.0 ** 20,
    "GiB": 2.0 ** 30,
}
NUMBER = r"(?:[0-9]+\.?[0-9]*|\.[0-9]+)(?:[eE][-+]?[0-9]+)?"
QUANTITY = re.compile(r"(" + NUMBER + r")([ \t]*)([A-Za-z/]*)")
RELATIVE = re.compile(r"(" + NUMBER + r")[ \t]*x")


# --- the target file --------------------------------------------------------

def parse_lines(text):
    """[(key or None, value, line)] of a description, comments stripped."""
    out = []
    for line in text.splitlines():
        body = line.split("#", 1)[0]
        key, eq, value = body.partition("=")
        out.append((key.strip() if eq else None, value.strip(), line))
    return out


def base_values(text):
    return {k: v for k, v, _ in parse_lines(text) if k}


def quantity(value):
    """(number, blanks, unit) of 'NUMBER [UNIT]', or None."""
    m = QUANTITY.fullmatch(value.strip())
    if not m or (m.group(3) and m.group(3) not in UNITS):
        return None
    return float(m.group(1)), m.group(2), m.group(3)


def numeric(value):
    """A value in B/s, s, B or plain count; None if it is not a number with
    an optional known unit."""
    q = quantity(value) if value is not None else None
    return q[0] * UNITS.get(q[2], 1) if q else None


def absolute_mapping(value, base_dir):
    """`file PATH` relative to the base description's directory, absolute,
    since the variant is written elsewhere."""
    m = re.fullmatch(r"file[ \t]+(.+)", value)
    if m and not os.path.isabs(m.group(1)):
        return "file " + os.path.normpath(os.path.join(base_dir, m.group(1)))
    return value


def variant_text(base_text, base_dir, name, settings):
    """The base description with each KEY line of `settings` replaced (or
    appended), `name` set, and a mapping file's path made absolute."""
    def value_of(key, value):
        return absolute_mapping(value, base_dir) if key == "mapping" else value

    lines = []
    for key, value, line in parse_lines(base_text):
        if key == "name":
            line = f"name = {name}"
        elif key in settings:
            line = f"{key} = {value_of(key, settings[key])}    # vaced sweep (was: {value})"
        elif key == "mapping" and value_of(key, value) != value:
            line = f"mapping = {value_of(key, value)}"
        lines.append(line)
    base_keys = {k for k, _, _ in parse_lines(base_text)}
    lines += [f"{k} = {value_of(k, v)}    # vaced sweep" for k, v in settings.items() if k not in base_keys]
    return "\n".join(lines) + "\n"


# --- the command line -------------------------------------------------------

def split_list(opt, text):
    items = [v.strip() for v in text.split(",")]
    if not text.strip():
        raise_usage(f"{opt}: no values")
    if "" in items:
        raise_usage(f"{opt}: an empty value in '{text}' (values are separated by single commas)")
    return items


def raise_usage(msg):
    raise FE.Usage(msg)


def parse(argv):
    ap = FE.ArgParser("sweep", SWEEP_HELP)
    for name in SWEEP_VALUED:
        ap.add_argument(name, dest=name, action="append", default=[])
    for name in ("--uniform-compute", "--stats"):
        ap.add_argument(name, action="store_true")
    got = ap.parse(argv)
    if got is None:
        return {"help": True}
    ns, pos = got
    o = {"vary": getattr(ns, "--vary"), "dir": pos[0] if pos else None,
         "targets": [t for v in getattr(ns, "--targets") for t in split_list("--targets", v)],
         "uniform_compute": ns.uniform_compute, "stats": ns.stats}
    for name in SWEEP_VALUED:
        given = getattr(ns, name)
        if len(given) > 1 and name not in ("--vary", "--targets"):
            raise_usage(f"{name} is given twice")
        if given and name not in ("--vary", "--targets"):
            o[name] = given[0]
    if len(pos) > 1:
        raise_usage(f"one record directory only, got '{pos[0]}' and '{pos[1]}'")
    return o


def record_ranks(d):
    """The job's rank count, from DIR/rank-000000.vlog's header."""
    if not os.path.isdir(d):
        raise_usage(f"record directory '{d}' not found (record one with vaced run --record DIR)")
    path = os.path.join(d, "rank-000000.vlog")
    try:
        with open(path, "rb") as f:
            head = f.read(20)
    except OSError as e:
        raise_usage(f"{path}: {e.strerror}: '{d}' is not a record (vaced run --record DIR)")
    if len(head) < 20 or head[:8] != LOG_MAGIC:
        raise_usage(f"{path}: not a VACED record (no VACEDLOG header)")
    ranks = struct.unpack_from("<I", head, 16)[0]
    if ranks < 1:
        raise_usage(f"{path}: the header gives {ranks} ranks")
    return ranks


def parse_vary(spec, base):
    """(KEY, [(value as written, value used)]) of one --vary."""
    key, eq, values = spec.partition("=")
    key = key.strip()
    if not eq or not key:
        raise_usage(f"--vary needs KEY=V1,V2,..., got '{spec}'")
    if not re.fullmatch(r"[a-z0-9_]+", key):
        raise_usage(f"vary {key}: not a key of a target description (keys are lower case: docs/targets.md)")
    if key == "name":
        raise_usage("vary name: the sweep names each variant itself")
    out = []
    for v in split_list(f"vary {key}", values):
        if "#" in v or any(ord(c) < 32 and c != "\t" or ord(c) == 127 for c in v):
            raise_usage(f"vary {key}={v}: a value cannot hold '#' or control characters")
        m = RELATIVE.fullmatch(v)
        if m:
            if key not in base:
                raise_usage(f"vary {key}={v}: a relative value needs '{key}' in the base target, "
                            f"which does not set it: give an absolute value, or check the key's name "
                            f"(docs/targets.md lists the keys)")
            q = quantity(base[key])
            if q is None:
                raise_usage(f"vary {key}={v}: the base target's value '{base[key]}' is not a number "
                            f"with an optional unit: give an absolute value")
            out.append((v, f"{q[0] * float(m.group(1)):.15g}{q[1]}{q[2]}"))
        else:
            out.append((v, v))
    return key, out


# --- checks and replays ------------------------------------------------------

def checker_message(msg, path):
    """The checker's 'FILE:LINE: reason' without the temporary file's name."""
    return re.sub("^" + re.escape(path) + r"(:[0-9]+)?: ", "", msg)


class Sweep:
    def __init__(self, o):
        self.dir = o["dir"]
        self.uniform = o.get("uniform_compute", False)
        self.ranks = record_ranks(self.dir)
        self.base_path = FE.resolve_target(o["--target"])
        FE.check_target(self.base_path, self.ranks, quiet=True)
        with open(self.base_path, encoding="utf-8", errors="surrogateescape") as f:
            self.base_text = f.read()
        self.base = base_values(self.base_text)
        self.base_name = self.base.get("name", os.path.basename(self.base_path))
        self.base_dir = os.path.dirname(os.path.abspath(self.base_path))
        self.vary = []
        for spec in o["vary"]:
            key, values = parse_vary(spec, self.base)
            if key in (k for k, _ in self.vary):
                raise_usage(f"vary {key}: given twice (list all its values in one --vary)")
            self.vary.append((key, values))
        self.targets = [(t, FE.resolve_target(t)) for t in o["targets"]]
        for _, path in self.targets:
            FE.check_target(path, self.ranks, quiet=True)
        if not self.vary and not self.targets:
            raise_usage("nothing to sweep: give --vary KEY=V1,V2,... or --targets T1,T2,...")
        self.tmp, self.written = None, 0

    def write_variant(self, settings):
        label = ", ".join(f"{k}={v}" for k, v in settings.items())
        self.written += 1
        path = os.path.join(self.tmp, f"variant-{self.written:05d}.topo")
        with open(path, "w", encoding="utf-8", errors="surrogateescape") as f:
            f.write(variant_text(self.base_text, self.base_dir, f"{self.base_name} {label}", settings))
        return path

    def refusal(self, settings):
        """The variant's path, and the checker's reason for refusing it or None."""
        path = self.write_variant(settings)
        try:
            FE.check_target(path, self.ranks, quiet=True)
        except FE.Failure as e:
            return path, checker_message(str(e), path)
        return path, None

    def check_variant(self, combo):
        """The variant of one grid point, checked for the record's ranks; a
        refusal names the value at fault if that value alone is refused for
        the same reason, else the point (keys that go together are varied
        together)."""
        settings = {k: used for (k, _), (_, used) in zip(self.vary, combo)}
        path, msg = self.refusal(settings)
        if msg is None:
            return path
        for (key, _), (written, used) in zip(self.vary, combo):
            if len(combo) > 1 and self.refusal({key: used})[1] != msg:
                continue
            if msg.startswith("unknown key"):
                raise_usage(f"vary {key}: {msg} (docs/targets.md lists the keys)")
            raise_usage(f"vary {key}={written}: {msg}" if written == used
                        else f"vary {key}={written} ({used}): {msg}")
        raise_usage("vary " + ", ".join(f"{k}={v}" for k, v in settings.items()) + ": " + msg)

    def points(self):
        """[(kind, target shown, {key: value used}, target path)]: the base,
        the grid, the --targets."""
        out = [("base", self.base_name, {k: self.base.get(k) for k, _ in self.vary}, self.base_path)]
        for combo in itertools.product(*(values for _, values in self.vary)) if self.vary else ():
            settings = {k: used for (k, _), (_, used) in zip(self.vary, combo)}
            out.append(("vary", self.base_name, settings, self.check_variant(combo)))
        for spec, path in self.targets:
            out.append(("target", spec, {}, path))
        return out

    def replay(self, tool, path, n, loaders):
        out = os.path.join(self.tmp, f"replay-{n:05d}.json")
        start = time.monotonic()
        r = subprocess.run([tool, self.dir, "--target", path, "--json", out, "--quiet",
                            "--loaders", str(loaders)] +
                           (["--uniform-compute"] if self.uniform else []),
                           stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        self.replay_s[n] = time.monotonic() - start
        if r.returncode != 0:
            return None, (r.stderr.strip() or r.stdout.strip() or f"status {r.returncode}")
        try:
            with open(out) as f:
                return json.load(f), None
        except (OSError, ValueError) as e:
            return None, f"no JSON report ({e})"

    def run(self, jobs, stats=False):
        self.tmp = tempfile.mkdtemp(prefix="vaced-sweep.")
        try:
            points = self.points()
            tool = FE.c_tool("vaced-replay")     # built once, before the replays run at once
            results = [None] * len(points)
            self.replay_s = [0.0] * len(points)
            # the replays at once share the CPUs: each loads its record with
            # its share, not one thread a CPU each
            at_once = max(1, min(jobs, len(points)))
            loaders = max(1, len(os.sched_getaffinity(0)) // at_once)
            tty = sys.stderr.isatty()
            start = time.monotonic()
            with ThreadPoolExecutor(max_workers=jobs) as pool:
                futures = {pool.submit(self.replay, tool, p[3], n, loaders): n
                           for n, p in enumerate(points)}
                done = 0
                for fut in as_completed(futures):
                    n = futures[fut]
                    data, err = fut.result()
                    if err is not None:
                        for f in futures:
                            f.cancel()
                        if tty:
                            sys.stderr.write("\r\033[K")
                        kind, shown, settings, _ = points[n]
                        what = ", ".join(f"{k}={v}" for k, v in settings.items()) if kind == "vary" else shown
                        raise FE.Failure(f"the replay on {what} failed:\n{err}")
                    results[n] = data
                    done += 1
                    if tty:
                        sys.stderr.write(f"\rsweep: {done}/{len(points)} done\033[K")
                        sys.stderr.flush()
            if tty:
                sys.stderr.write("\r\033[K")
                sys.stderr.flush()
            if stats:
                wall, total = time.monotonic() - start, sum(self.replay_s)
                sys.stderr.write(f"sweep: {len(points)} replays, {at_once} at once, {loaders} loader "
                                 f"thread{'s' if loaders > 1 else ''} each: {wall:.3f} s wall, the "
                                 f"replays' own {total:.3f} s summed ({total / wall:.2f}x)\n")
        finally:
            shutil.rmtree(self.tmp, ignore_errors=True)
        return [Row(p, d, results[0]["prediction_s"]) for p, d in zip(points, results)]


class Row:
    def __init__(self, point, data, base_s):
        self.kind, self.target, self.settings, _ = point
        self.prediction = data["prediction_s"]
        self.change = 100 * (self.prediction / base_s - 1) if base_s else float("nan")
        self.approximate = bool(data.get("approximate"))
        self.inside = False             # its change lies inside the executions' spread


def executions_spread(record_dir):
    """(max - min) / prediction of the executions vaced run --repeat
    combined into record_dir, in percent; None without them."""
    try:
        with open(os.path.join(record_dir, "estimate.json")) as f:
            est = json.load(f)
        lo, hi = est["prediction_interval_s"]
        return 100 * (hi - lo) / est["prediction_s"]
    except (OSError, ValueError, KeyError, TypeError, ZeroDivisionError):
        return None


def mark_inside(rows, spread):
    for r in rows[1:]:
        r.inside = spread is not None and abs(r.change) < spread


def note(r):
    return ", ".join(w for w, on in (("approximate", r.approximate), ("inside spread", r.inside)) if on)


# --- output ----------------------------------------------------------------

def table_rows(keys, rows):
    """The header and the cells, shared by stdout and the CSV."""
    head = ["point", "target"] + keys + ["prediction_s", "change_pct", "approximate", "inside_spread"]
    cells = []
    for r in rows:
        vals = [r.settings.get(k) if r.kind != "target" else "" for k in keys]
        cells.append([r.kind, r.target] + [v if v is not None else "" for v in vals] +
                     [repr(r.prediction), f"{r.change:+.2f}", "yes" if r.approximate else "no",
                      "yes" if r.inside else "no"])
    return head, cells


def format_table(keys, rows):
    head, cells = table_rows(keys, rows)
    head = head[:-4] + ["prediction (s)", "change (%)", ""]
    shown = [c[:-4] + [f"{r.prediction:.9f}", c[-3], note(r)] for c, r in zip(cells, rows)]
    shown = [[v if v != "" or i >= len(head) - 1 else "-" for i, v in enumerate(c)] for c in shown]
    widths = [max(len(str(x[i])) for x in [head] + shown) for i in range(len(head))]
    right = {len(head) - 3, len(head) - 2}
    lines = []
    for c in [head] + shown:
        lines.append("  ".join(str(v).rjust(w) if i in right else str(v).ljust(w)
                               for i, (v, w) in enumerate(zip(c, widths))).rstrip())
    return "\n".join(lines) + "\n"


def same(a, b):
    na, nb = numeric(a), numeric(b)
    if na is not None and nb is not None:
        return abs(na - nb) <= 1e-12 * max(abs(na), abs(nb))
    return a is not None and b is not None and a.strip() == b.strip()


def slice_points(key, keys, rows, base):
    """[(value, row)] for `key`, the other varied keys at the base's values:
    the base row and such grid rows, one row per distinct value."""
    pts = []
    for r in rows:
        if r.kind == "target":
            continue
        if all(same(r.settings.get(k), base.get(k)) for k in keys if k != key):
            v = r.settings.get(key)
            if numeric(v) is not None and not any(same(v, p[0]) for p in pts):
                pts.append((v, r))
    return pts


def sensitivity(key, keys, rows, base):
    """The line for `key`, or None if its values are not numeric."""
    values = [r.settings.get(key) for r in rows if r.kind == "vary"]
    if any(numeric(v) is None for v in values):
        return None
    pts = [(numeric(v), r.prediction) for v, r in slice_points(key, keys, rows, base)]
    pts = [(x, y) for x, y in pts if x > 0 and y > 0]
    if len(pts) < 2:
        others = [k for k in keys if k != key]
        unset = [k for k in others if base.get(k) is None]
        why = (f"the base target does not set {', '.join(unset)}" if unset else
               "add the base's " + ", ".join(f"{k}={base[k]}" for k in others) + " to the lists")
        return (f"sensitivity: {key}: no fit: fewer than two of its values with the other keys at the "
                f"base target's values ({why})")
    xs = [math.log2(x) for x, _ in pts]
    ys = [math.log2(y) for _, y in pts]
    mx, my = sum(xs) / len(xs), sum(ys) / len(ys)
    slope = sum((x - mx) * (y - my) for x, y in zip(xs, ys)) / sum((x - mx) ** 2 for x in xs)
    return f"sensitivity: {key}: {100 * (2 ** slope - 1):+.1f} % per doubling ({len(pts)} points)"


def plot_spec(keys, rows, base):
    """The plot's data, plain JSON: one panel per key, one for --targets."""
    panels = []
    base_row = rows[0]
    for key in keys:
        unit = None
        for v in [base.get(key)] + [r.settings.get(key) for r in rows if r.kind == "vary"]:
            q = quantity(v) if v is not None else None
            if q:
                unit = q[2]
                break
        numeric_axis = all(numeric(r.settings.get(key)) is not None and numeric(r.settings.get(key)) > 0
                           for r in rows if r.kind == "vary")
        lines = {}
        for r in rows:
            if r.kind != "vary":
                continue
            others = ", ".join(f"{k}={r.settings[k]}" for k in keys if k != key)
            at_base = all(same(r.settings.get(k), base.get(k)) for k in keys if k != key)
            line = lines.setdefault(others, {"label": others or key, "at_base": at_base, "x": [], "y": []})
            v = r.settings.get(key)
            line["x"].append(numeric(v) / UNITS.get(unit or "", 1) if numeric_axis else v)
            line["y"].append(r.prediction)
        bv = base.get(key)
        marker = None
        if bv is not None and (not numeric_axis or numeric(bv)):
            marker = numeric(bv) / UNITS.get(unit or "", 1) if numeric_axis else bv
        panels.append({"kind": "key", "key": key, "unit": unit or "", "log2": numeric_axis,
                       "lines": list(lines.values()), "base_x": marker, "base_y": base_row.prediction})
    targets = [r for r in rows if r.kind == "target"]
    if targets:
        panels.append({"kind": "bars", "names": [base_row.target + " (base)"] + [r.target for r in targets],
                       "values": [base_row.prediction] + [r.prediction for r in targets]})
    return panels


def draw_plot(panels, path):
    """The figure; needs matplotlib."""
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    cols = min(3, len(panels))
    nrows = (len(panels) + cols - 1) // cols
    fig, axes = plt.subplots(nrows, cols, figsize=(5.2 * cols, 4 * nrows), squeeze=False)
    for ax, p in zip(axes.flat, panels):
        if p["kind"] == "key":
            for line in sorted(p["lines"], key=lambda l: not l["at_base"]):
                pts = sorted(zip(line["x"], line["y"])) if p["log2"] else list(zip(line["x"], line["y"]))
                ax.plot([x for x, _ in pts], [y for _, y in pts], "o-",
                        lw=2 if line["at_base"] else 1, alpha=1 if line["at_base"] else 0.5,
                        label=line["label"] if len(p["lines"]) > 1 else None)
            if p["base_x"] is not None:
                ax.plot([p["base_x"]], [p["base_y"]], "*", ms=14, color="black", label="base target")
            else:
                ax.axhline(p["base_y"], color="black", ls="--", lw=1, label="base target")
            if p["log2"]:
                ax.set_xscale("log", base=2)
            ax.set_xlabel(p["key"] + (f" ({p['unit']})" if p["unit"] else ""))
            ax.set_ylabel("prediction (s)")
            ax.set_title(p["key"])
            ax.legend(fontsize="small")
        else:
            colours = ["black"] + ["C0"] * (len(p["values"]) - 1)
            ax.bar(range(len(p["values"])), p["values"], color=colours)
            ax.set_xticks(range(len(p["values"])))
            ax.set_xticklabels(p["names"], rotation=30, ha="right", fontsize="small")
            ax.set_ylabel("prediction (s)")
            ax.set_title("targets")
        ax.grid(True, alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.set_visible(False)
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)


SYSTEM_PYTHON = "/usr/bin/python3"


def plotter():
    """How to draw: 'here', the path of another interpreter that has
    matplotlib, or None."""
    try:
        import importlib.util
        if importlib.util.find_spec("matplotlib") is not None:
            return "here"
    except (ImportError, ValueError):
        pass
    if os.access(SYSTEM_PYTHON, os.X_OK) and \
            os.path.realpath(SYSTEM_PYTHON) != os.path.realpath(sys.executable):
        r = subprocess.run([SYSTEM_PYTHON, "-c", "import matplotlib"],
                           stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        if r.returncode == 0:
            return SYSTEM_PYTHON
    return None


def plot(how, panels, path):
    try:
        if how == "here":
            draw_plot(panels, path)
            return
        with tempfile.NamedTemporaryFile("w", suffix=".json", prefix="vaced-sweep-plot.") as f:
            json.dump(panels, f)
            f.flush()
            r = subprocess.run([how, "-B", os.path.abspath(__file__), f.name, path],
                               stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise FE.Failure(f"--plot {path}: {how} could not draw it:\n{r.stdout.strip()}")
    except (OSError, ValueError) as e:
        raise FE.Failure(f"--plot {path}: {e}")


# --- the command -----------------------------------------------------------

def check_output_path(opt, path):
    d = os.path.dirname(os.path.abspath(path))
    if not os.path.isdir(d) or not os.access(d, os.W_OK):
        raise_usage(f"{opt} {path}: directory {d} does not exist or is not writable")


def main(argv):
    global FE
    import vaced_cli as FE
    o = parse(argv)
    if o.get("help"):
        return 0
    if o["dir"] is None:
        raise_usage("no record directory: vaced sweep DIR --target T --vary KEY=V1,V2,...")
    if "--target" not in o:
        raise_usage("--target T is required (the base target: a .topo path or a name such as paper-16)")
    jobs = FE.positive_int("--jobs", o["--jobs"]) if "--jobs" in o else len(os.sched_getaffinity(0))
    for opt in ("--csv", "--plot"):
        if opt in o:
            check_output_path(opt, o[opt])
    sweep = Sweep(o)
    how = None
    if "--plot" in o:
        how = plotter()
        if how is None:
            raise FE.Failure(f"--plot needs matplotlib, which neither {sys.executable} nor {SYSTEM_PYTHON} "
                             "can import: apt-get install python3-matplotlib (or pip install matplotlib)")
    rows = sweep.run(jobs, o.get("stats", False))
    spread = executions_spread(o["dir"])
    mark_inside(rows, spread)
    keys = [k for k, _ in sweep.vary]
    sys.stdout.write(format_table(keys, rows))
    if spread is not None:
        print(f"spread of the record's executions: {spread:.2f} % (changes inside it are marked)")
    for key in keys:
        line = sensitivity(key, keys, rows, sweep.base)
        if line:
            print(line)
    sys.stdout.flush()
    if "--csv" in o:
        head, cells = table_rows(keys, rows)
        try:
            with open(o["--csv"], "w", newline="") as f:
                w = csv.writer(f)
                w.writerow(head)
                w.writerows(cells)
        except OSError as e:
            raise FE.Failure(f"cannot write --csv {o['--csv']}: {e.strerror}")
    if "--plot" in o:
        plot(how, plot_spec(keys, rows, sweep.base), o["--plot"])
    return 0



if __name__ == "__main__":      # the plot, drawn by an interpreter that has matplotlib
    with open(sys.argv[1]) as spec:
        draw_plot(json.load(spec), sys.argv[2])
