#!/usr/bin/env python3
"""The critical path (docs/critical-path.md) of programs whose path is
known by construction (tests/mpi/critpath.c), traced on paper-16 and found
by `vaced critical-path`:

1. Its length is the prediction within 1 ns, and its terms add up to it;
   no time of an MPI call is left unaccounted for by the trace.
2. It visits the expected ranks in the expected order and crosses them
   over the expected packets: a pipeline (eager: 0, 1, ..., P-1; with
   rendezvous, each message's request, its answer and its data), a token
   ring (0, 1, ..., P-1, 0), an imbalanced allreduce (it begins on the rank
   that computes long and ends on the slowest rank).
3. Its compute is the program's closed form: each expected rank's spin
   (the rank's longest compute spans in its trace, each near its nominal
   length) lies on the path, the path's compute is no less than their sum
   and no more than all compute of the ranks it visits, and equals the
   compute spans of the trace that its visits cover (within 1 ns).  Where
   every wait is followed, nothing is late_sender.
4. `vaced run --trace` puts the path in its JSON and summary.
5. Bad input: a missing or garbled trace, a trace without step and wait
   lines, usage errors: exit 1 or 2 with FILE:LINE, never a traceback.

    python3 tests/mpi/test_critical_path.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True
ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
from checks import check, finish  # noqa: E402
# one execution a vaced run (the default is two) unless a check asks for more
os.environ["VACED_REPEAT"] = "1"

BIN = os.path.join(ROOT, "install", "vaced", "bin")
VACED = os.path.join(ROOT, "vaced", "tools", "vaced")
TERMS = ("compute", "poll", "send_overhead", "recv_overhead", "copy", "network",
         "late_sender", "late_receiver", "collective_wait")
# tests/mpi/critpath.c
UNIT_MS, LONG_MS, SHORT_MS, LONG_RANK = 4, 30, 3, 1
NOMINAL_TOL = 0.10      # a spin's length against its nominal one (a CPU loop timed by MPI_Wtime)
RNDV_BYTES = 1 << 20    # above paper-16's eager threshold


def spin_ms(i):
    return (1 + i % 3) * UNIT_MS


def vaced(*args):
    return subprocess.run([sys.executable, VACED] + list(args), capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=300)


def detail(r):
    return f"rc={r.returncode} out={r.stdout[-400:]!r} err={r.stderr[-400:]!r}"


def traced(exe, np, args, d):
    """Runs exe traced into d; (its JSON, the path's JSON) or None."""
    os.makedirs(d, exist_ok=True)
    js = os.path.join(d, "run.json")
    env = dict(os.environ, VACED_TARGET="paper-16", VACED_TRACE=d, VACED_JSON=js, VACED_QUIET="all")
    r = subprocess.run([os.path.join(BIN, "mpiexec"), "-n", str(np), exe] + args, env=env,
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    if not check(f"{' '.join(args)} on {np} ranks: runs traced", r.returncode == 0 and os.path.exists(js),
                 detail(r)):
        return None
    out = os.path.join(d, "path.json")
    c = vaced("critical-path", d, "--json", out)
    if not check(f"{' '.join(args)}: vaced critical-path exits 0 and prints the length",
                 c.returncode == 0 and c.stdout.startswith("critical path: ") and os.path.exists(out), detail(c)):
        return None
    with open(js) as f, open(out) as g:
        return json.load(f), json.load(g)


def compute_spans(d, rank):
    """[(start_s, end_s)] of a rank's compute spans, from its trace."""
    out = []
    with open(os.path.join(d, f"vaced-trace.{rank}.csv")) as f:
        for line in f.read().splitlines()[1:]:
            k, *v = line.split(",")
            if k == "compute":
                out.append((float(v[0]), float(v[1])))
    return out


def covered_compute(d, visits):
    """The compute spans' time inside the path's visits."""
    total = 0.0
    spans = {}
    for v in visits:
        spans.setdefault(v["rank"], compute_spans(d, v["rank"]))
        for a, b in spans[v["rank"]]:
            total += max(0.0, min(b, v["end_s"]) - max(a, v["start_s"]))
    return total


def call_lines(function):
    """The lines of tests/mpi/critpath.c that call `function`."""
    with open(os.path.join(ROOT, "tests", "mpi", "critpath.c")) as f:
        return {i for i, line in enumerate(f, 1) if function + "(" in line}


def common(label, run, cp, d):
    """Checks 1 and 3's trace-side equality, for any program."""
    pred = run["prediction_s"]
    check(f"{label}: the path's length is the prediction within 1 ns",
          abs(cp["length_s"] - pred) < 1e-9, f"{cp['length_s']:.12f} vs {pred:.12f}")
    total = sum(cp["breakdown"][k] for k in TERMS)
    check(f"{label}: its nine terms add up to its length within 1 ns",
          set(cp["breakdown"]) == set(TERMS) and abs(total - cp["length_s"]) < 1e-9,
          f"{total:.12f} vs {cp['length_s']:.12f}")
    check(f"{label}: every MPI call's time on it is accounted for by the trace's step and wait lines",
          cp["unattributed_s"] == 0, str(cp["unattributed_s"]))
    slow = max(run["per_rank"], key=lambda r: r["total_s"])
    check(f"{label}: it ends on the slowest rank", cp["end_rank"] == slow["rank"],
          f"{cp['end_rank']} vs {slow['rank']}")
    v = cp["visits"]
    tiles = v and v[0]["start_s"] == 0 and all(abs(v[i]["start_s"] - v[i - 1]["end_s"]) < 1e-12
                                               for i in range(1, len(v)))
    check(f"{label}: its visits tile [0, its length]", tiles and abs(v[-1]["end_s"] - cp["length_s"]) < 1e-12,
          str(v[:3]))
    cov = covered_compute(d, v)
    check(f"{label}: its compute is the trace's compute spans its visits cover, within 1 ns",
          abs(cov - cp["breakdown"]["compute"]) < 1e-9, f"{cov:.12f} vs {cp['breakdown']['compute']:.12f}")
    sites = cp.get("call_sites", [])
    check(f"{label}: its time by call site adds up to its length within 1 ns",
          sites and abs(sum(x["total_s"] for x in sites) - cp["length_s"]) < 1e-9,
          f"{sum(x['total_s'] for x in sites):.12f} vs {cp['length_s']:.12f}")
    calls = [x for x in sites if x["function"]]
    check(f"{label}: its MPI time is at the program's calls, each named at a line of critpath.c that calls "
          "that function", calls and all(x["file"] and x["file"].endswith("critpath.c") and
                                         x["line"] in call_lines(x["function"]) for x in calls),
          str([x["site"] for x in sites]))


def closed_form(label, d, cp, expected, nominal):
    """expected {rank: [nominal ms of its spins]}: the path's compute against
    the spins read from the trace and against the nominal closed form."""
    want, inside = 0.0, True
    visits = cp["visits"]
    for rank, ms in expected.items():
        spans = sorted(compute_spans(d, rank), key=lambda s: s[0] - s[1])[:len(ms)]
        lengths = sorted(b - a for a, b in spans)
        check(f"{label}: rank {rank}'s spins are near their nominal {sorted(ms)} ms",
              len(lengths) == len(ms) and all(abs(x - m * 1e-3) < NOMINAL_TOL * m * 1e-3
                                              for x, m in zip(lengths, sorted(ms))),
              str([round(x * 1e3, 3) for x in lengths]))
        want += sum(lengths)
        for a, b in spans:
            inside &= any(v["rank"] == rank and v["start_s"] <= a + 1e-12 and b <= v["end_s"] + 1e-12
                          for v in visits)
    check(f"{label}: every expected spin lies on the path", inside)
    got = cp["breakdown"]["compute"]
    upper = sum(b - a for r in {v["rank"] for v in visits} for a, b in compute_spans(d, r))
    check(f"{label}: the path computes the spins' sum and no more than its ranks' compute "
          f"({want:.6f} s <= {got:.6f} s <= {upper:.6f} s)", want - 1e-9 <= got <= upper + 1e-9)
    check(f"{label}: the path's compute is the closed form {nominal:.3f} s within {100 * NOMINAL_TOL:.0f} %",
          abs(got - nominal) < NOMINAL_TOL * nominal, f"{got:.6f} s")


def test_pipeline(exe, tmp, np=5):
    d = os.path.join(tmp, "pipeline")
    got = traced(exe, np, ["pipeline", "8"], d)
    if got:
        run, cp = got
        label = f"pipeline (eager) on {np} ranks"
        common(label, run, cp, d)
        check(f"{label}: visits 0, 1, ..., {np - 1} in order", cp["ranks"] == list(range(np)), str(cp["ranks"]))
        check(f"{label}: crosses each message i-1 -> i once, by its data",
              [(h["from"], h["to"], h["packet"], h["message"]["seq"]) for h in cp["hops"]]
              == [(i - 1, i, "data", 0) for i in range(1, np)], str(cp["hops"])[:300])
        check(f"{label}: nothing on it is late_sender (every wait is followed)",
              cp["breakdown"]["late_sender"] == 0, str(cp["breakdown"]))
        closed_form(label, d, cp, {i: [spin_ms(i)] for i in range(np)},
                    sum(spin_ms(i) for i in range(np)) * 1e-3)
    d = os.path.join(tmp, "pipeline-rndv")
    got = traced(exe, np, ["pipeline", str(RNDV_BYTES)], d)
    if got:
        run, cp = got
        label = f"pipeline (rendezvous, {RNDV_BYTES} B) on {np} ranks"
        common(label, run, cp, d)
        want = [0] + [r for i in range(1, np) for r in (i, i - 1, i)]
        check(f"{label}: each message crosses as request, answer, data: ranks {want}",
              cp["ranks"] == want and [h["packet"] for h in cp["hops"]] == ["request", "answer", "data"] * (np - 1),
              f"{cp['ranks']} {[h['packet'] for h in cp['hops']]}")
        check(f"{label}: the data's copies and flight are on it",
              cp["breakdown"]["copy"] > 0 and cp["breakdown"]["network"] > 0, str(cp["breakdown"]))
        closed_form(label, d, cp, {i: [spin_ms(i)] for i in range(np)},
                    sum(spin_ms(i) for i in range(np)) * 1e-3)


def test_ring(exe, tmp, np=5):
    d = os.path.join(tmp, "ring")
    got = traced(exe, np, ["ring", "8"], d)
    if not got:
        return
    run, cp = got
    label = f"token ring on {np} ranks"
    common(label, run, cp, d)
    check(f"{label}: visits 0, 1, ..., {np - 1}, 0", cp["ranks"] == list(range(np)) + [0], str(cp["ranks"]))
    check(f"{label}: nothing on it is late_sender", cp["breakdown"]["late_sender"] == 0, str(cp["breakdown"]))
    expected = {i: [spin_ms(i)] for i in range(1, np)}
    expected[0] = [spin_ms(0), spin_ms(np)]
    closed_form(label, d, cp, expected, (sum(spin_ms(i) for i in range(np + 1))) * 1e-3)


def test_allreduce(exe, tmp, np=4):
    d = os.path.join(tmp, "allreduce")
    got = traced(exe, np, ["allreduce"], d)
    if not got:
        return
    run, cp = got
    label = f"imbalanced allreduce on {np} ranks"
    common(label, run, cp, d)
    check(f"{label}: begins on the rank that computes long ({LONG_RANK})", cp["ranks"][0] == LONG_RANK,
          str(cp["ranks"]))
    short = [r for r in range(np) if r != LONG_RANK]
    on_path = {b["rank"]: b["compute_s"] for b in cp["by_rank"]}
    check(f"{label}: no other rank's spin ({SHORT_MS} ms) is on it",
          all(on_path.get(r, 0) < 0.5 * SHORT_MS * 1e-3 for r in short), str(on_path))
    check(f"{label}: it crosses ranks inside the allreduce", len(cp["hops"]) >= 1, str(cp["hops"])[:200])
    closed_form(label, d, cp, {LONG_RANK: [LONG_MS]}, LONG_MS * 1e-3)


def test_run(exe, tmp):
    """Check 4: vaced run --trace adds it to the JSON and the summary."""
    js, tr = os.path.join(tmp, "run.json"), os.path.join(tmp, "run-trace")
    r = vaced("run", "-n", "3", "--target", "paper-16", "--quiet", "--json", js, "--trace", tr,
              "--", exe, "pipeline", "8")
    doc = json.load(open(js)) if r.returncode == 0 and os.path.exists(js) else {}
    cp = doc.get("critical_path") or {}
    check("vaced run --trace: the JSON's critical_path has the prediction's length and ranks 0, 1, 2",
          abs(cp.get("length_s", -1) - doc.get("prediction_s", 0)) < 1e-9 and cp.get("ranks") == [0, 1, 2],
          detail(r))
    check("vaced run --trace: the summary has a critical-path row",
          any(line.startswith("critical path ") and "3 ranks, 2 hops" in line for line in r.stdout.splitlines()),
          r.stdout[-600:])
    return tr


def test_bad_input(trace, tmp):
    """Check 5."""
    bad = os.path.join(tmp, "bad")

    def copy():
        shutil.rmtree(bad, ignore_errors=True)
        shutil.copytree(trace, bad)
        return bad

    def refused(label, r, want):
        check(f"bad input, {label}: exit 1 naming {want}, no traceback",
              r.returncode == 1 and want in r.stderr and "Traceback" not in r.stderr + r.stdout, detail(r))

    def edited(rank, kind, edit):
        """A fresh copy with rank's first KIND line edited; FILE:LINE: of it."""
        f = os.path.join(copy(), f"vaced-trace.{rank}.csv")
        lines = open(f).read().splitlines()
        n = next(i for i, x in enumerate(lines) if x.startswith(kind + ","))
        lines[n] = edit(lines[n])
        open(f, "w").write("\n".join(lines) + "\n")
        return f"vaced-trace.{rank}.csv:{n + 1}:"

    for label, rank, kind, edit in (
            ("a garbled wait line", 1, "wait", lambda x: x.replace(",recv,", ",sideways,")),
            ("a step that goes back", 0, "step", lambda x: "step,0.1,0.05,0.2,copy,copy"),
            ("a truncated wait line", 2, "wait", lambda x: x[:40]),
            ("a negative time in a span", 0, "compute", lambda x: "compute,-0.000000000001,0.000000000002")):
        where = edited(rank, kind, edit)
        refused(label, vaced("critical-path", bad), where)

    # one process reads a directory once, and again when a file changed
    sys.path.insert(0, os.path.join(ROOT, "vaced", "tools"))
    import vaced_traces
    copy()
    first = vaced_traces.read_dir(bad)
    f = os.path.join(bad, "vaced-trace.0.csv")
    with open(f, "a") as out:
        out.write("compute,%d.000000000000,%d.000000000000\n" % (10 ** 6, 10 ** 6 + 1))
    again = vaced_traces.read_dir(bad)
    check("a trace read again after a change gives the change; unchanged, the same ranks",
          again is not first and again[0].end_ps == (10 ** 6 + 1) * 10 ** 12 and
          first[0].end_ps < again[0].end_ps and vaced_traces.read_dir(bad) is again,
          f"{first[0].end_ps} {again[0].end_ps}")
    head, traced = vaced_traces.read_first(bad, 2)
    check("the first ranks of the directory last read are its ranks, not read again",
          traced == len(again) and len(head) == 2 and all(a is b for a, b in zip(head, again)))

    os.unlink(os.path.join(copy(), "vaced-trace.1.csv"))
    refused("a rank's trace missing", vaced("critical-path", bad), "vaced-trace.1.csv is missing")
    copy()
    for r in range(3):
        f = os.path.join(bad, f"vaced-trace.{r}.csv")
        kept = [x for x in open(f).read().splitlines() if not x.startswith(("step,", "wait,"))]
        open(f, "w").write("\n".join(kept) + "\n")
    refused("traces without step and wait lines (an older library)", vaced("critical-path", bad),
            "no step or wait lines")
    refused("no such directory", vaced("critical-path", os.path.join(tmp, "nowhere")), "no such directory")
    r = vaced("critical-path")
    check("usage: no directory: exit 2", r.returncode == 2 and "needs one trace directory" in r.stderr, detail(r))
    r = vaced("critical-path", trace, "--frobnicate")
    check("usage: an unknown option: exit 2", r.returncode == 2 and "unknown option" in r.stderr, detail(r))
    r = vaced("critical-path", "--help")
    check("vaced critical-path --help: usage", r.returncode == 0 and r.stdout.startswith("usage: vaced critical-path"),
          detail(r))
    r = vaced("critical-path", trace, "--json", os.path.join(tmp, "nowhere", "p.json"))
    refused("an unwritable --json", r, "p.json")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "critpath")
        b = subprocess.run([os.path.join(BIN, "mpicc"), "-O2", "-g", "-o", exe, os.path.join(ROOT, "tests", "mpi", "critpath.c")],
                           capture_output=True, text=True)
        if not check("critpath.c builds with install/vaced's mpicc", b.returncode == 0, b.stderr[-300:]):
            finish()
        test_pipeline(exe, tmp)
        test_ring(exe, tmp)
        test_allreduce(exe, tmp)
        trace = test_run(exe, tmp)
        if os.path.isdir(trace):
            test_bad_input(trace, tmp)
    finish()


main()
