#!/usr/bin/env python3
"""MPI called from several threads at once, on install/vaced
(docs/limits.md#mpi-from-several-threads).

1. tests/mpi/threads.c multiple: 4 ranks of 4 threads each, every thread
   exchanging on its own duplicate of MPI_COMM_WORLD (MPI_THREAD_MULTIPLE),
   RUNS times: every run exits 0 with the program's own check passed, no
   complaint about a table of MPI calls on stderr, and a JSON that marks
   the prediction approximate and says the call tables are off, with none
   of their rows (the tables raced the threads, and rank 0 refused them
   as malformed in about every other run of MPICH's threads/init/mult_session).
2. The same through `vaced run`: its summary and JSON come out whole.
3. threads.c multiple with one thread: the tables are on (the thread
   level alone turns nothing off).
4. threads.c funneled: the other threads' MPI_Wtime calls are left out of
   the tables, which stay on and count the main thread's calls exactly.

    python3 tests/mpi/test_threads.py [ROOT]
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
os.environ["VACED_REPEAT"] = "1"

BIN = os.path.join(ROOT, "install", "vaced", "bin")
VACED = os.path.join(ROOT, "vaced", "tools", "vaced")
NP, NT, ITERS, RUNS = 4, 4, 50, 20
OFF = f"off: several threads called MPI on {NP} of {NP} ranks"


def live(argv, tmp):
    """(exit status, stdout, stderr, JSON or None) of one mpiexec run."""
    js = os.path.join(tmp, "run.json")
    if os.path.exists(js):
        os.unlink(js)
    env = dict(os.environ, VACED_TARGET="paper-16", VACED_JSON=js, VACED_QUIET="0")
    r = subprocess.run([os.path.join(BIN, "mpiexec"), "-n", str(NP)] + argv, env=env, capture_output=True,
                       text=True, stdin=subprocess.DEVNULL, timeout=300)
    try:
        with open(js) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = None
    return r.returncode, r.stdout, r.stderr, data


def table_complaints(err):
    return [line for line in err.splitlines() if "table of MPI calls" in line]


def test_multiple(exe, tmp):
    failed = []
    for i in range(RUNS):
        rc, out, err, data = live([exe, "multiple", str(NT), str(ITERS)], tmp)
        why = None
        if rc != 0 or "threads: ok" not in out:
            why = f"exit {rc}, stdout {out[-200:]!r}, stderr {err[-300:]!r}"
        elif table_complaints(err):
            why = table_complaints(err)[0]
        elif data is None:
            why = "no valid JSON"
        elif data.get("calls_table") != OFF or "calls" in data or "call_sites" in data:
            why = f"calls_table {data.get('calls_table')!r}, keys {sorted(data)}"
        elif not data.get("approximate") or "several threads" not in data.get("not_modelled", ""):
            why = f"approximate {data.get('approximate')}, not_modelled {data.get('not_modelled')!r}"
        elif len(data.get("per_rank", [])) != NP or not data.get("prediction_s", 0) > 0:
            why = "per_rank or prediction_s missing"
        if why:
            failed.append(f"run {i + 1}: {why}")
    check(f"threads.c multiple, {NT} threads on {NP} ranks, {RUNS} runs: each passes its own check, "
          f"nothing on stderr about the call tables, a valid JSON with calls_table {OFF!r} and "
          f"the prediction approximate", not failed, "; ".join(failed[:3]))


def test_vaced_run(exe, tmp):
    js = os.path.join(tmp, "vaced-run.json")
    r = subprocess.run([sys.executable, VACED, "run", "-n", str(NP), "--target", "paper-16", "--json", js,
                        "--", exe, "multiple", str(NT), str(ITERS)], capture_output=True, text=True,
                       stdin=subprocess.DEVNULL, timeout=300)
    try:
        with open(js) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = None
    check("threads.c multiple through vaced run: exit 0, a summary that says why the tables are off, "
          "a JSON with the tables off",
          r.returncode == 0 and re.search(r"^call tables +" + re.escape(OFF) + "$", r.stdout, re.M)
          and data and data.get("calls_table") == OFF and not table_complaints(r.stderr),
          f"exit {r.returncode}: {r.stdout[-400:]} {r.stderr[-300:]}")


def calls_of(data):
    return {c["function"]: c["calls"] for c in (data or {}).get("calls", [])}


def test_one_thread(exe, tmp):
    rc, out, err, data = live([exe, "multiple", "1", str(ITERS)], tmp)
    calls = calls_of(data)
    check("threads.c multiple with one thread: the tables are on and count every round",
          rc == 0 and data and data.get("calls_table") == "on" and calls.get("MPI_Sendrecv") == NP * ITERS,
          f"exit {rc}, calls_table {(data or {}).get('calls_table')!r}, {calls}, {err[-200:]}")


def test_funneled(exe, tmp):
    rc, out, err, data = live([exe, "funneled", str(NT), str(ITERS)], tmp)
    calls = calls_of(data)
    # the main thread reads MPI_Wtime twice; the NT - 1 others twice each, left out
    check("threads.c funneled: the other threads' MPI_Wtime calls are left out, the tables stay on",
          rc == 0 and "threads: ok" in out and data and data.get("calls_table") == "on"
          and calls.get("MPI_Wtime") == 2 * NP and calls.get("MPI_Sendrecv") == NP * ITERS
          and calls.get("MPI_Allreduce") == NP * ITERS and not table_complaints(err),
          f"exit {rc}, calls_table {(data or {}).get('calls_table')!r}, {calls}, {err[-200:]}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        exe = os.path.join(tmp, "threads")
        r = subprocess.run([os.path.join(BIN, "mpicc"), "-O2", "-g", "-Wall", "-Wextra", "-pthread",
                            os.path.join(ROOT, "tests", "mpi", "threads.c"), "-o", exe],
                           capture_output=True, text=True)
        if check("threads.c builds with mpicc, without warnings", r.returncode == 0 and not r.stderr,
                 r.stderr[-300:]):
            test_multiple(exe, tmp)
            test_vaced_run(exe, tmp)
            test_one_thread(exe, tmp)
            test_funneled(exe, tmp)
    finish()


if __name__ == "__main__":
    main()
