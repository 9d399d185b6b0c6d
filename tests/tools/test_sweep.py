#!/usr/bin/env python3
"""vaced sweep (vaced/tools/vaced_sweep.py) on a record of tests/mpi/ring.c
(4 ranks, 65536 bytes, 20 laps, recorded on paper-16): the base row is a
direct `vaced replay`; bnet 0.5x/1x/2x order as they should and equal the
same values given absolutely; a two-key grid has every combination; each
--targets row is that target's direct replay; the CSV holds the table's
rows; bnet's sensitivity is negative and latency's positive; a protocol
change is re-timed (its row not approximate); a relative mapping file still resolves; --plot writes a PNG; bad input exits 2 and
names the problem; replays run side by side load with their share of
the CPUs (--stats).

    python3 tests/tools/test_sweep.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import csv
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check as count, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
VACED = os.path.join(ROOT, "vaced", "tools", "vaced")
BIN = os.path.join(ROOT, "install", "vaced", "bin")
ROW = re.compile(r"^(base|vary|target)  ")


def check(name, ok, why=""):
    """checks.check, with the details shown only on failure."""
    return count(name, ok, "" if ok else why)


def vaced(*args, cwd=None):
    return subprocess.run([sys.executable, VACED] + list(args), capture_output=True, text=True, cwd=cwd,
                          timeout=600)


def direct(rec, target, tmp, *extra):
    """prediction_s of `vaced replay REC --target TARGET [EXTRA...]`."""
    out = os.path.join(tmp, "direct.json")
    r = vaced("replay", rec, "--target", target, "--json", out, "--quiet", *extra)
    if r.returncode != 0:
        return None
    with open(out) as f:
        return json.load(f)["prediction_s"]


def sweep(rec, tmp, *args):
    """(result, CSV rows as dicts, table rows as lists of cells, sensitivities {key: %})."""
    out = os.path.join(tmp, "sweep.csv")
    if os.path.exists(out):
        os.unlink(out)
    r = vaced("sweep", rec, *args, "--csv", out)
    rows = []
    if r.returncode == 0 and os.path.exists(out):
        with open(out, newline="") as f:
            rows = list(csv.DictReader(f))
    table = [re.split(r"  +", line.strip()) for line in r.stdout.splitlines() if ROW.match(line)]
    sens = {m.group(1): float(m.group(2)) for m in
            re.finditer(r"^sensitivity: (\w+): ([-+0-9.]+) % per doubling", r.stdout, re.M)}
    return r, rows, table, sens


def detail(r):
    return f"status {r.returncode}: {(r.stdout + r.stderr)[-600:]}"


def matplotlib_here():
    """Whether the sweep can draw: this interpreter or /usr/bin/python3 imports matplotlib."""
    for py in (sys.executable, "/usr/bin/python3"):
        if os.access(py, os.X_OK) and subprocess.run([py, "-c", "import matplotlib"],
                                                     capture_output=True).returncode == 0:
            return True
    return False


def install_matplotlib():
    """apt-get install python3-matplotlib as root; the reason it failed, or None."""
    if os.geteuid() != 0:
        return "matplotlib is not importable and this is not root: apt-get install python3-matplotlib"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-q", "python3-matplotlib"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, env=env)
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0 or not matplotlib_here():
        return "apt-get install python3-matplotlib failed: " + (r.stdout + r.stderr)[-300:]
    return None


with tempfile.TemporaryDirectory() as tmp:
    ring = os.path.join(tmp, "ring")
    b = subprocess.run([os.path.join(BIN, "mpicc"), "-O2", "-o", ring, os.path.join(ROOT, "tests", "mpi", "ring.c")],
                       capture_output=True, text=True)
    rec = os.path.join(tmp, "rec")
    env = dict(os.environ, VACED_TARGET="paper-16", VACED_RECORD=rec, VACED_QUIET="all")
    r = subprocess.run([os.path.join(BIN, "mpiexec"), "-n", "4", ring, "65536", "20"], capture_output=True,
                       text=True, env=env, cwd=tmp, timeout=300) if b.returncode == 0 else b
    if not check("ring.c built and recorded on paper-16 (4 ranks, 65536 B, 20 laps)",
                 r.returncode == 0 and os.path.exists(os.path.join(rec, "rank-000003.vlog")),
                 (r.stdout + r.stderr)[-400:]):
        finish()

    r = vaced("sweep", "--help")
    check("vaced sweep --help: usage and every option", r.returncode == 0 and r.stdout.startswith("usage: vaced sweep")
          and all(re.search("^  " + o + "( |$)", r.stdout, re.M)
                  for o in ("--target", "--vary", "--targets", "--csv", "--plot", "--jobs")), detail(r))
    r = vaced("--help")
    check("vaced --help lists sweep", r.returncode == 0 and re.search(r"^  sweep ", r.stdout, re.M), detail(r))

    base = direct(rec, "paper-16", tmp)
    check("vaced replay of the record on paper-16 gives a prediction", base is not None and base > 0)

    # --- one key, relative and absolute -----------------------------------
    r, rows, table, sens = sweep(rec, tmp, "--target", "paper-16", "--vary", "bnet=0.5x,1x,2x")
    ok = check("--vary bnet=0.5x,1x,2x: exit 0, a base row and three rows",
               r.returncode == 0 and [x["point"] for x in rows] == ["base", "vary", "vary", "vary"], detail(r))
    if ok:
        pred = {x["bnet"]: float(x["prediction_s"]) for x in rows[1:]}
        check("the base row is paper-16's direct replay, to the last digit",
              float(rows[0]["prediction_s"]) == base and rows[0]["bnet"] == "4.16 GB/s",
              f"{rows[0]['prediction_s']} vs {base!r}")
        check("0.5x and 2x of 4.16 GB/s are written 2.08 GB/s and 8.32 GB/s",
              sorted(pred) == ["2.08 GB/s", "4.16 GB/s", "8.32 GB/s"], str(sorted(pred)))
        if len(pred) == 3:
            check("bnet 1x predicts the base exactly, change +0.00 %",
                  pred["4.16 GB/s"] == base and rows[2]["change_pct"] == "+0.00", str(rows[2]))
            check("bnet 0.5x is slower than the base, 2x faster",
                  pred["2.08 GB/s"] > base > pred["8.32 GB/s"], str(pred))
            check("the change column is 100 (p / base - 1)",
                  all(abs(float(x["change_pct"]) - 100 * (float(x["prediction_s"]) / base - 1)) < 0.006
                      for x in rows), str([x["change_pct"] for x in rows]))
        check("stdout's table has the CSV's rows (point, target, value, prediction to 9 digits, change)",
              len(table) == len(rows) and all(
                  t[:3] == [x["point"], x["target"], x["bnet"]] and t[3] == f"{float(x['prediction_s']):.9f}"
                  and t[4] == x["change_pct"] for t, x in zip(table, rows)), f"{table} {rows}")
        check("sensitivity: bnet is negative", sens.get("bnet", 0) < 0, r.stdout[-300:])
        changes = {x["bnet"]: abs(float(x["change_pct"])) for x in rows[1:]}
        edge = min(changes["2.08 GB/s"], changes["8.32 GB/s"])
        for spread, inside in ((edge / 2, {"4.16 GB/s"}), (2 * max(changes.values()), set(changes))):
            rec2 = os.path.join(tmp, f"rec-spread-{len(inside)}")
            shutil.copytree(rec, rec2)
            with open(os.path.join(rec2, "estimate.json"), "w") as f:       # as vaced run --repeat writes it
                json.dump({"prediction_s": base, "prediction_interval_s": [base, base * (1 + spread / 100)]}, f)
            r6, rows6, _, _ = sweep(rec2, tmp, "--target", "paper-16", "--vary", "bnet=0.5x,1x,2x")
            got = {x["bnet"] for x in rows6[1:] if x["inside_spread"] == "yes"}
            check(f"a record of executions {spread:.2f} % apart: the rows whose change is smaller are marked "
                  f"inside spread ({sorted(got)}), on stdout too",
                  r6.returncode == 0 and got == inside and rows6[0]["inside_spread"] == "no"
                  and re.search(r"^spread of the record's executions: [0-9.]+ %", r6.stdout, re.M)
                  and r6.stdout.count("inside spread") == len(inside), detail(r6))
        r2, rows2, _, _ = sweep(rec, tmp, "--target", "paper-16", "--vary", "bnet=2.08 GB/s,4.16 GB/s,8.32 GB/s")
        check("the absolute values 2.08, 4.16, 8.32 GB/s predict what 0.5x, 1x, 2x did",
              r2.returncode == 0 and {x["bnet"]: float(x["prediction_s"]) for x in rows2[1:]} == pred, detail(r2))
        r3, rows3, _, _ = sweep(rec, tmp, "--target", "paper-16", "--vary", "bnet=0.5x,1x,2x", "--jobs", "1")
        check("--jobs 1 gives the same rows", r3.returncode == 0 and rows3 == rows, detail(r3))
        # replays side by side share the CPUs for loading: each gets its share
        r5, rows5, _, _ = sweep(rec, tmp, "--target", "paper-16", "--vary", "bnet=0.5x,1x,2x", "--jobs", "2",
                                "--stats")
        m = re.search(r"^sweep: 4 replays, (\d+) at once, (\d+) loader threads? each: ([0-9.]+) s wall, "
                      r"the replays' own ([0-9.]+) s summed", r5.stderr, re.M)
        share = max(1, len(os.sched_getaffinity(0)) // 2)
        check(f"--jobs 2 --stats: 2 replays at once, {share} loader thread(s) each, the same rows",
              r5.returncode == 0 and rows5 == rows and m and m.group(1) == "2" and int(m.group(2)) == share
              and float(m.group(4)) > 0, detail(r5))
        bad = vaced("replay", rec, "--target", "paper-16", "--loaders", "0")
        check("vaced replay --loaders 0: exit 2, naming it", bad.returncode == 2 and "--loaders" in bad.stderr,
              detail(bad))
        uniform = direct(rec, "paper-16", tmp, "--uniform-compute")
        r4, rows4, _, _ = sweep(rec, tmp, "--target", "paper-16", "--vary", "bnet=1x", "--uniform-compute")
        check("--uniform-compute: the base row is vaced replay --uniform-compute's prediction, to the "
              f"last digit ({uniform!r}; as recorded {base!r})",
              r4.returncode == 0 and rows4 and uniform is not None and
              float(rows4[0]["prediction_s"]) == uniform, detail(r4))

    # --- a grid of two keys -----------------------------------------------
    r, rows, table, sens = sweep(rec, tmp, "--target", "paper-16", "--vary", "bnet=0.5x,1x,2x",
                                 "--vary", "latency=7.5 us,15 us,30 us,60 us")
    ok = check("--vary bnet (3 values) --vary latency (4 values): 12 grid rows and the base",
               r.returncode == 0 and len(rows) == 13 and [x["point"] for x in rows].count("vary") == 12, detail(r))
    if ok:
        combos = {(x["bnet"], x["latency"]) for x in rows if x["point"] == "vary"}
        check("the grid holds every combination once", len(combos) == 12, str(sorted(combos)))
        check("stdout's table has the CSV's 13 rows", len(table) == 13 and all(
            t[:4] == [x["point"], x["target"], x["bnet"], x["latency"]] for t, x in zip(table, rows)), str(table))
        check("sensitivity: bnet negative, latency positive",
              sens.get("bnet", 0) < 0 and sens.get("latency", 0) > 0, r.stdout[-300:])

    # --- a protocol change: re-timed, not approximate ------------------------
    r, rows, table, _ = sweep(rec, tmp, "--target", "paper-16", "--vary", "eager_threshold=32 KiB,1x")
    check("eager_threshold=32 KiB (65536 B messages turn rendezvous): re-timed so, no row approximate, "
          "that row slower by the handshake",
          r.returncode == 0 and [x["approximate"] for x in rows] == ["no", "no", "no"]
          and float(rows[1]["prediction_s"]) > float(rows[0]["prediction_s"]) == float(rows[2]["prediction_s"]),
          detail(r))

    # --- whole targets ------------------------------------------------------
    targets = [os.path.join(ROOT, "topo", "paper-1024.topo"), os.path.join(ROOT, "topo", "torus-4x4x4.topo")]
    r, rows, table, _ = sweep(rec, tmp, "--target", "paper-16", "--targets", ",".join(targets))
    ok = check("--targets with two files: exit 0, the base and one row each",
               r.returncode == 0 and [x["point"] for x in rows] == ["base", "target", "target"], detail(r))
    if ok:
        for t, x in zip(targets, rows[1:]):
            want = direct(rec, t, tmp)
            check(f"--targets {os.path.basename(t)}: its row is the direct replay, to the last digit",
                  x["target"] == t and want is not None and float(x["prediction_s"]) == want,
                  f"{x} vs {want!r}")

    # --- a mapping file relative to the base description -------------------
    tdir = os.path.join(tmp, "mapped")
    os.mkdir(tdir)
    with open(os.path.join(ROOT, "topo", "paper-16.topo")) as f:
        text = re.sub(r"(?m)^mapping\s*=.*$", "mapping = file order.map", f.read())
    with open(os.path.join(tdir, "mapped.topo"), "w") as f:
        f.write(text.replace("name            = paper-16", "name = mapped"))
    with open(os.path.join(tdir, "order.map"), "w") as f:
        f.write("3\n2\n1\n0\n")
    r, rows, _, _ = sweep(rec, tmp, "--target", os.path.join(tdir, "mapped.topo"), "--vary", "bnet=1x,2x")
    check("a base target with 'mapping = file order.map' (relative): its variants find the file, 1x = base",
          r.returncode == 0 and len(rows) == 3 and rows[1]["prediction_s"] == rows[0]["prediction_s"], detail(r))

    # --- the plot ------------------------------------------------------------
    why = None if matplotlib_here() else install_matplotlib()
    if check("matplotlib is importable for --plot (python3-matplotlib)", why is None, why or ""):
        png = os.path.join(tmp, "sweep.png")
        r = vaced("sweep", rec, "--target", "paper-16", "--vary", "bnet=0.5x,1x,2x", "--vary", "latency=0.5x,1x",
                  "--targets", "paper-1024", "--plot", png)
        magic = open(png, "rb").read(8) if os.path.exists(png) else b""
        check("--plot writes a PNG", r.returncode == 0 and magic == b"\x89PNG\r\n\x1a\n", detail(r))

    # --- errors --------------------------------------------------------------
    def refused(name, regex, *args):
        r = vaced("sweep", *args)
        check(f"{name}: exit 2, vaced sweep: naming it",
              r.returncode == 2 and re.search("^vaced sweep: .*" + regex, r.stderr, re.M) and not r.stdout,
              detail(r))

    refused("an unknown key", r"vary colour: unknown key 'colour'", rec, "--target", "paper-16", "--vary", "colour=1,2")
    refused("a relative value for a key the base does not set",
            r"vary send_overhead=2x: .*base target.* does not set it", rec, "--target", "paper-16",
            "--vary", "send_overhead=2x")
    refused("a relative value of a misspelt key: the message also suggests the key's name",
            r"vary lat=0\.5x: .*does not set it: give an absolute value, or check the key's name", rec,
            "--target", "paper-16", "--vary", "lat=0.5x")
    refused("a relative value of a key that is not a number", r"vary hops=2x: .*'0 3' is not a number", rec,
            "--target", "paper-16", "--vary", "hops=2x")
    refused("a value the checker refuses", r"vary bnet=-1 GB/s: 'bnet' must not be negative", rec,
            "--target", "paper-16", "--vary", "bnet=4 GB/s,-1 GB/s")
    refused("a missing record directory", r"record directory '.*no-such-rec' not found",
            os.path.join(tmp, "no-such-rec"), "--target", "paper-16", "--vary", "bnet=1x")
    refused("no --target", r"--target T is required", rec, "--vary", "bnet=1x")
    refused("an empty value list", r"vary bnet: no values", rec, "--target", "paper-16", "--vary", "bnet=")
    refused("an empty value in a list", r"an empty value", rec, "--target", "paper-16", "--vary", "bnet=1x,,2x")
    refused("a key of another topology", r"vary dims=2 2 2: key 'dims' does not apply", rec,
            "--target", "paper-16", "--vary", "dims=2 2 2")
finish()
