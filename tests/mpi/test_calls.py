#!/usr/bin/env python3
"""The per-call and per-call-site tables (docs/breakdown.md#per-call-and-per-call-site)
of real programs run on install/vaced.

1. tests/mpi/calls.c on 4 ranks through `vaced run`: each SITE marker's
   line is named (function, file, line), including MPI_Waitany, a
   binding MPICH does not inline, in a loop the compiler unrolls (two
   sites on one line, one row); call and rank counts are the
   program's; the receive that waits for rank 0's computation holds it as
   late_sender; every term but compute lies inside MPI calls, so the
   sites' terms add up to the ranks' breakdowns; the functions' table is
   the sites' folded; the front end prints both top tables.
2. tests/mpi/calls_f.f90: a Fortran program's sites, behind MPICH's
   Fortran bindings, are named by the .f90 file and line.
3. A program built without debug information: its sites keep the object
   file and offset, and the caller's name from the symbol table.

    python3 tests/mpi/test_calls.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import json
import os
import re
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
HERE = os.path.join(ROOT, "tests", "mpi")
TERMS = ("compute", "poll", "send_overhead", "recv_overhead", "copy", "network", "late_sender",
         "late_receiver", "collective_wait")
NP, REPS, MS = 4, 10, 5.0


def markers(path):
    """{name: line} of the SITE:name markers in a source file."""
    with open(path) as f:
        return {m.group(1): i for i, line in enumerate(f, 1) for m in [re.search(r"SITE:(\w+)", line)] if m}


def compile_(compiler, src, exe, *flags):
    r = subprocess.run([os.path.join(BIN, compiler), "-O2", *flags, src, "-o", exe],
                       capture_output=True, text=True)
    return check(f"{os.path.basename(src)} builds with {compiler} {' '.join(flags)}", r.returncode == 0,
                 r.stderr[-300:])


def live(np, argv):
    """(JSON or None, stderr) of an mpiexec run with VACED_JSON."""
    fd, js = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = dict(os.environ, VACED_TARGET="paper-16", VACED_JSON=js, VACED_QUIET="all")
    r = subprocess.run([os.path.join(BIN, "mpiexec"), "-n", str(np)] + argv, env=env, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, timeout=300)
    try:
        with open(js) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = None
    os.unlink(js)
    return data, r.stderr


def site(data, function, source, line):
    """The call site of `function` at source:line, or None."""
    for s in data.get("call_sites", []):
        if s["function"] == function and s["file"] and os.path.basename(s["file"]) == source \
                and s["line"] == line:
            return s
    return None


def check_sites(data, source, at, caller, expected):
    """Each (function, marker, calls, ranks) of `expected` is a site named
    at the marker's line of `source`, in `caller`, with those counts."""
    for function, name, calls, ranks in expected:
        s = site(data, function, source, at[name])
        check(f"{source}: {function} named at {source}:{at[name]} in {caller}, {calls} calls from {ranks} ranks",
              s and s["caller"] == caller and s["calls"] == calls and s["ranks"] == ranks,
              json.dumps(s) if s else "not found: " + ", ".join(
                  f"{x['function']}@{x['file']}:{x['line']}" for x in data["call_sites"]))


def check_sums(data, label):
    """Every term but compute lies inside MPI calls; the functions' table
    is the sites' folded."""
    ranks = [r["breakdown"] for r in data["per_rank"]]
    sites = data["call_sites"]
    worst = max(abs(sum(s["breakdown"][t] for s in sites) - sum(b[t] for b in ranks))
                for t in TERMS if t != "compute")
    check(f"{label}: the sites' terms other than compute add up to the ranks' breakdowns (within 1 ns)",
          worst <= 1e-9, f"worst term off by {worst:.3g} s")
    inside = sum(s["breakdown"]["compute"] for s in sites)
    check(f"{label}: the compute inside calls is part of the ranks' compute",
          0 <= inside <= sum(b["compute"] for b in ranks) + 1e-9)
    total = sum(r["total_s"] for r in data["per_rank"])
    check(f"{label}: each site's share is its time over all ranks' predicted time",
          all(abs(s["share"] - s["total_s"] / total) < 1e-5 for s in sites))
    folded = {}
    for s in sites:
        f = folded.setdefault(s["function"], [0, 0.0])
        f[0] += s["calls"]
        f[1] += s["total_s"]
    calls = {c["function"]: [c["calls"], c["total_s"]] for c in data["calls"]}
    check(f"{label}: the functions' table is the sites' folded by function",
          calls.keys() == folded.keys() and all(calls[k][0] == folded[k][0] and
                                               abs(calls[k][1] - folded[k][1]) < 1e-9 for k in calls))


def test_c(tmp):
    src = os.path.join(HERE, "calls.c")
    exe = os.path.join(tmp, "calls")
    if not compile_("mpicc", src, exe, "-g"):
        return
    at = markers(src)
    js = os.path.join(tmp, "calls.json")
    r = subprocess.run([sys.executable, VACED, "run", "-n", str(NP), "--target", "paper-16", "--json", js,
                        "--", exe, str(MS), str(REPS)], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=300)
    try:
        with open(js) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = None
    if not check("calls.c: vaced run writes a JSON with calls and call_sites",
                 r.returncode == 0 and data and data.get("calls") and data.get("call_sites"),
                 r.stderr[-300:]):
        return
    check_sites(data, "calls.c", at, "main", (("MPI_Send", "send", 1, 1), ("MPI_Recv", "recv", 1, 1),
                                             ("MPI_Allreduce", "allreduce", REPS * NP, NP),
                                             ("MPI_Waitany", "waitany", 2 * NP, NP)))
    red = site(data, "MPI_Allreduce", "calls.c", at["allreduce"])
    if red:
        check("calls.c: ranks 2 and 3 wait in MPI_Allreduce for ranks 0 and 1: collective_wait, "
              "no late_sender", red["breakdown"]["collective_wait"] > 0.5 * MS / 1e3 and
              red["breakdown"]["late_sender"] == 0, json.dumps(red["breakdown"]))
    recv = site(data, "MPI_Recv", "calls.c", at["recv"])
    if recv:
        waited = recv["breakdown"]["late_sender"]
        before = data["per_rank"][0]["breakdown"]["compute"]
        check("calls.c: the receive that waits for rank 0's computation holds it as late_sender "
              "(within 10 % of rank 0's compute)", abs(waited - before) <= 0.1 * before,
              f"late_sender {waited:.6f} s, rank 0 compute {before:.6f} s")
    check_sums(data, "calls.c")
    label = f"MPI_Recv in main (calls.c:{at['recv']})"
    check("vaced run prints the top MPI functions and call sites",
          "by MPI function" in r.stdout and "by call site" in r.stdout and label in r.stdout,
          r.stdout[-600:])

    bare = os.path.join(tmp, "calls-nodebug")
    if compile_("mpicc", src, bare, "-g0"):
        data, err = live(NP, [bare, "1", "2"])
        sends = [s for s in (data or {}).get("call_sites", []) if s["function"] == "MPI_Send"]
        check("without debug information a site keeps its object file and offset, and its caller's name",
              len(sends) == 1 and sends[0]["file"] is None and sends[0]["line"] is None and
              sends[0]["module"] == os.path.realpath(bare) and sends[0]["offset"].startswith("0x") and
              sends[0]["caller"] == "main", json.dumps(sends) + err[-200:])


def test_fortran(tmp):
    src = os.path.join(HERE, "calls_f.f90")
    exe = os.path.join(tmp, "calls_f")
    if not compile_("mpif90", src, exe, "-g"):
        return
    at = markers(src)
    data, err = live(NP, [exe])
    if not check("calls_f.f90: the JSON has call_sites", data and data.get("call_sites"), err[-300:]):
        return
    check_sites(data, "calls_f.f90", at, "MAIN__", (("MPI_Send", "send", 1, 1), ("MPI_Recv", "recv", 1, 1),
                                                    ("MPI_Allreduce", "allreduce", REPS * NP, NP)))
    check_sums(data, "calls_f.f90")


MANY_SITES = 8000


def test_many_sites(tmp):
    """Rank 0 calls MPI_Comm_rank from MANY_SITES places of its own, the
    others from one: rank 0's table is far longer than the others', which
    finalize gathers by MPI_Gatherv (patch 0012: padding them all to its
    length for the tree would cost more); every site reaches the report."""
    src = os.path.join(tmp, "many_sites.c")
    with open(src, "w") as f:
        f.write("#include <mpi.h>\nint main(int argc, char **argv)\n{\n    int r, x;\n"
                "    MPI_Init(&argc, &argv);\n    MPI_Comm_rank(MPI_COMM_WORLD, &r);\n    if (r == 0) {\n")
        f.writelines("        MPI_Comm_rank(MPI_COMM_WORLD, &x);\n" for _ in range(MANY_SITES))
        f.write("    }\n    MPI_Finalize();\n    return 0;\n}\n")
    exe = os.path.join(tmp, "many_sites")
    if not compile_("mpicc", src, exe, "-g", "-O0"):
        return
    data, err = live(8, [exe])
    if not check("many_sites.c on 8 ranks: a report", data is not None, err[-300:]):
        return
    lines = {s["line"]: s for s in data["call_sites"] if s["function"] == "MPI_Comm_rank"}
    own = [lines.get(8 + i) for i in range(MANY_SITES)]
    check(f"many_sites.c: rank 0's {MANY_SITES} sites each named once, from one rank",
          all(s and s["calls"] == 1 and s["ranks"] == 1 for s in own),
          f"{sum(1 for s in own if s)} of {MANY_SITES} found")
    check("many_sites.c: the site every rank calls, from 8 ranks",
          lines.get(6) and lines[6]["calls"] == 8 and lines[6]["ranks"] == 8, json.dumps(lines.get(6)))
    check_sums(data, "many_sites.c")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_c(tmp)
        test_fortran(tmp)
        test_many_sites(tmp)
    finish()


main()
