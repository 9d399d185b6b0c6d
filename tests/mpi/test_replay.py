#!/usr/bin/env python3
"""Record and replay (docs/replay.md) against live runs of install/vaced.

1. On the target it was recorded on, a replay gives every rank the live
   run's prediction bit for bit: the mini-apps (16 ranks on paper-16, 64
   on paper-1024) and the integration programs.
2. On other targets (the torus, fat tree and dragonfly files; bnet x0.5
   and x2; latency x0.5 and x4), the replay agrees within 1 % with a live
   run on that target whose compute segments are the record's
   (VACED_COMPUTE_FROM), so that the two differ by the model alone, and
   flags nothing: the mini-apps take one path whatever the timing.
3. A message whose protocol changes on the target is re-timed with the
   target's protocol: the replay agrees with the live run on that target
   and flags nothing, eager on the record and rendezvous there (is, cg,
   ft at 16 ranks with an 8 KiB threshold, mg and lu at 1 KiB; blocking
   and nonblocking messages) and the reverse (recorded at 1 KiB, replayed
   on paper-16): within 1 % for the mini-apps, 0.01 % for two ranks.
4. Where the target could change the recorded execution the replay says
   so: a wildcard race and a Waitany race (tests/mpi/race.c), a polling
   loop on MPI_Test, a program that relies on eager buffering; its error
   against the live run is printed.  A polling loop on MPI_Iprobe is the
   gap docs/replay.md names: it polls otherwise live, unflagged.
5. CH3's eager header, which the replay's protocol check assumes, is the
   one MPICH uses; the front end records and replays.

    python3 tests/mpi/test_replay.py [ROOT]
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
TOPO = os.path.join(ROOT, "topo")
APPS = ("ep", "is", "cg", "ft", "stencil", "mg", "lu")
EAGER_HEADER = 40       # vaced/src/replay/replay.c: VACED_EAGER_HEADER
# A mini-app's live run is not bit-reproducible under host load: an eager
# packet the target reads inside a wait may reach the host only after it
# (docs/limits.md, "What a wait reads"). The 1 % bound is the check;
# the two-rank programs, which have no such race, keep a tight one.
APP_TOL = 0.01


def take_json(path):
    """The JSON a run wrote to path (None if none), and the file removed."""
    try:
        with open(path) as f:
            data = json.load(f)
    except (OSError, ValueError):
        data = None
    os.unlink(path)
    return data


def live(np, argv, target, record=None, compute_from=None, timeout=300):
    """A live prediction: (status, JSON or None, stdout, stderr)."""
    fd, js = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    env = dict(os.environ, VACED_TARGET=target, VACED_JSON=js, VACED_QUIET="all")
    for k, v in (("VACED_RECORD", record), ("VACED_COMPUTE_FROM", compute_from)):
        if v:
            env[k] = v
        else:
            env.pop(k, None)
    try:
        r = subprocess.run([os.path.join(BIN, "mpiexec"), "-n", str(np)] + argv, env=env,
                           stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=timeout)
        rc, out, err = r.returncode, r.stdout, r.stderr
    except subprocess.TimeoutExpired:
        rc, out, err = -1, "", "timeout"
    return rc, take_json(js), out, err


def replay(record, target, extra=()):
    """vaced replay: (status, JSON or None, stderr)."""
    fd, js = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    r = subprocess.run([sys.executable, VACED, "replay", record, "--target", target, "--json", js,
                        "--quiet"] + list(extra), capture_output=True, text=True, timeout=300)
    return r.returncode, take_json(js), r.stderr


def ranks(data):
    return [p["total_s"] for p in data["per_rank"]] if data else None


def breakdowns(data):
    return [p.get("breakdown") for p in data["per_rank"]] if data else None


def last(text):
    """The last line of a tool's output, for a check's detail."""
    lines = [l for l in text.strip().splitlines() if l.strip()]
    return lines[-1][-300:] if lines else ""


def flags(stderr):
    return sorted(set(re.findall(r"approximate \(([a-z-]+)\)", stderr)))


def variant(tmp, base, name, **keys):
    """A copy of topo/BASE.topo with the given keys set."""
    path = os.path.join(tmp, name + ".topo")
    with open(os.path.join(TOPO, base + ".topo")) as f:
        lines = f.read().splitlines()
    out, left = [], dict(keys)
    for l in lines:
        k = l.split("=")[0].strip()
        if k == "name":
            l = "name = " + name
        elif k in left:
            l = f"{k} = {left.pop(k)}"
        out.append(l)
    out += [f"{k} = {v}" for k, v in left.items()]
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return path


def build(tmp):
    subprocess.run(["make", "-s", "-C", os.path.join(ROOT, "tests", "apps"), "PREFIX=" + os.path.join(ROOT, "install", "vaced"),
                    "OUT=" + os.path.join(tmp, "apps")], check=True, capture_output=True)
    exes = {}
    for name in ("ring", "exchange", "collectives", "nbcoll", "window", "adversarial", "race", "pingpong",
                 "sendsend", "critpath"):
        exe = os.path.join(tmp, name)
        subprocess.run([os.path.join(BIN, "mpicc"), "-O2", "-o", exe,
                        os.path.join(ROOT, "tests", "mpi", name + ".c"), "-lm"], check=True, capture_output=True)
        exes[name] = exe
    exe = os.path.join(tmp, "patterns")
    subprocess.run([os.path.join(BIN, "mpicc"), "-O2", "-o", exe, os.path.join(ROOT, "tests", "apps", "patterns.c"),
                    "-lm"], check=True, capture_output=True)
    exes["patterns"] = exe
    return exes


def uniform_compute(tmp, exes, target):
    """critpath allreduce: rank 1 computes 30 ms, the others 3 ms, then all
    meet in MPI_Allreduce.  With --uniform-compute rank 1's segment is its
    group's median, another rank's: the prediction loses the difference."""
    rec = os.path.join(tmp, "rec-imbalance")
    rc, data, _, err = live(4, [exes["critpath"], "allreduce"], target, record=rec)
    if not check("critpath allreduce, 4 ranks: the live run records", rc == 0 and data, last(err)):
        return
    rrc, rdata, _ = replay(rec, target)
    urc, udata, uerr = replay(rec, target, ["--uniform-compute"])
    check("  replayed as recorded: the live prediction, bit for bit",
          rrc == 0 and rdata and rdata["prediction_s"] == data["prediction_s"])
    if not check("  replayed with --uniform-compute: a note names the groups, the JSON the source",
                 urc == 0 and udata and re.search(r"uniform computation: .*\(\d+ groups? of ranks\)", uerr)
                 and udata.get("cpu_time_source") == "recorded, uniform across ranks", last(uerr)):
        return
    comp = [p["compute_s"] for p in data["per_rank"]]
    lost = comp[1] - sorted(comp)[1]           # rank 1's long segment against a short rank's
    got = data["prediction_s"] - udata["prediction_s"]
    check(f"  the prediction loses rank 1's extra computation (expected {lost * 1e3:.3f} ms, "
          f"lost {got * 1e3:.3f} ms)", abs(got - lost) <= 0.03 * lost)
    ucomp = [p["compute_s"] for p in udata["per_rank"]]
    check("  every rank's computation is now within 2 % of the others'",
          max(ucomp) <= 1.02 * min(ucomp), " ".join(f"{c * 1e3:.3f}" for c in ucomp))
    # the front end: record, replay and report in one command
    fd, js = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    r = subprocess.run([sys.executable, VACED, "run", "-n", "4", "--target", target, "--quiet",
                        "--uniform-compute", "--json", js, "--", exes["critpath"], "allreduce"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300)
    run = take_json(js)
    uc = run and run.get("uniform_compute")
    ok = r.returncode == 0 and uc and re.search(r"^uniform compute +\d", r.stdout, re.M)
    if check("vaced run --uniform-compute: the summary's line and the JSON's uniform_compute", ok,
             last(r.stderr + r.stdout)):
        comp = [p["compute_s"] for p in run["per_rank"]]
        lost = comp[1] - sorted(comp)[1]
        got = run["prediction_s"] - uc["prediction_s"]
        check(f"  it loses rank 1's extra computation (expected {lost * 1e3:.3f} ms, lost {got * 1e3:.3f} ms)",
              abs(got - lost) <= 0.03 * lost)


def repeated_executions(tmp, exes, target):
    """critpath allreduce under vaced run --repeat 3: rank 1 computes 30 ms
    and the others 3 ms in every execution, so the combination (each
    segment the least of its three measurements) keeps that imbalance;
    the JSON gives every execution's prediction and their range, and the
    combined record, replayed, gives the summary's prediction."""
    fd, js = tempfile.mkstemp(suffix=".json")
    os.close(fd)
    d = os.path.join(tmp, "rec-repeat")
    r = subprocess.run([sys.executable, VACED, "run", "-n", "4", "--target", target, "--quiet", "--repeat", "3",
                        "--record", d, "--json", js, "--", exes["critpath"], "allreduce"],
                       stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
    run = take_json(js)
    if not check("vaced run --repeat 3: three predictions, the first as prediction_raw_s, a range that "
                 "holds them and the combination",
                 r.returncode == 0 and run and len(run.get("predictions_s", [])) == 3
                 and run["prediction_raw_s"] == run["predictions_s"][0]
                 and run["prediction_interval_s"][0] <= min(run["predictions_s"] + [run["prediction_s"]])
                 and run["prediction_interval_s"][1] >= max(run["predictions_s"] + [run["prediction_s"]])
                 and run["repeat"] == {"executions": 3, "combined_ranks": 4}
                 and re.search(r"^executions +[0-9.]+, [0-9.]+, [0-9.]+ s; range", r.stdout, re.M),
                 last(r.stderr + r.stdout)):
        return
    comp = [p["compute_s"] for p in run["per_rank"]]
    check(f"  rank 1 keeps its 30 ms, the others their 3 ms (ms: {' '.join(f'{c * 1e3:.3f}' for c in comp)})",
          30e-3 <= comp[1] <= 30e-3 * 1.05 and all(3e-3 <= c <= 3e-3 * 1.5 for i, c in enumerate(comp) if i != 1))
    rrc, rdata, rerr = replay(d, target)
    check("  the combined record (--record DIR), replayed: the summary's prediction, bit for bit",
          rrc == 0 and rdata and rdata["prediction_s"] == run["prediction_s"], last(rerr))


def wake_up_correction(tmp, exes, target):
    """critpath allreduce, 4 ranks on one host core under vaced run --wake-up:
    the correction only takes time off (the estimate is at most the raw
    prediction) and keeps rank 1's 30 ms against the others' 3 ms; on 2
    ranks with a core each nothing is cold and nothing changes.  critpath
    ring on one core: each rank's spin after its receive follows a sleep,
    so most of the computation is cold.  (The allreduce's only cold segment
    is the few instructions after it, a share that rounds to 0.0 %.)"""
    for mode, np, cores, oversubscribed in (("allreduce", 4, "1", True), ("allreduce", 2, "2", False),
                                            ("ring", 4, "1", True)):
        fd, js = tempfile.mkstemp(suffix=".json")
        os.close(fd)
        r = subprocess.run([sys.executable, VACED, "run", "-n", str(np), "--target", target, "--quiet",
                            "--host-cores", cores, "--wake-up", "--json", js, "--", exes["critpath"], mode,
                            "8"], stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
        run = take_json(js)
        wake = run and run.get("wake_up")
        if not check(f"vaced run --wake-up, critpath {mode} on {np} ranks, {cores} host core(s): the summary's "
                     f"line and the JSON's wake_up", r.returncode == 0 and wake and
                     re.search(r"^ +wake-up corrected \(raw [0-9.]+ s\)", r.stdout, re.M),
                     last(r.stderr + r.stdout)):
            continue
        if mode == "ring":
            check(f"  most of the computation cold ({100 * wake['cold_share']:.1f} %), the estimate at most "
                  f"the raw prediction ({run['prediction_s']:.6f} <= {run['prediction_raw_s']:.6f} s)",
                  wake["cold_share"] >= 0.5 and run["prediction_s"] <= run["prediction_raw_s"])
        elif oversubscribed:
            comp = [p["compute_s"] for p in run["per_rank"]]
            check(f"  the estimate at most the raw prediction ({run['prediction_s']:.6f} <= "
                  f"{run['prediction_raw_s']:.6f} s), rank 1 keeps its 30 ms (ms: "
                  f"{' '.join(f'{c * 1e3:.3f}' for c in comp)})",
                  run["prediction_s"] <= run["prediction_raw_s"] and 30e-3 <= comp[1] <= 30e-3 * 1.05)
        else:
            check("  nothing cold, nothing changed", wake["cold_share"] == 0 and
                  run["prediction_s"] == run["prediction_raw_s"], str(wake))


def same_target(tmp, n, np, argv, target):
    """Record a live run, replay it on its own target: identical per rank."""
    rec = os.path.join(tmp, f"rec{n}")
    rc, data, _, err = live(np, argv, target, record=rec)
    if not check(f"{' '.join(os.path.basename(a) for a in argv[:1]) + ' ' + ' '.join(argv[1:])}, {np} ranks "
                 f"on {os.path.basename(target)}: the live run records", rc == 0 and data, last(err)):
        return None
    rrc, rdata, rerr = replay(rec, target)
    check(f"  its replay on the same target gives every rank's prediction bit for bit",
          rrc == 0 and ranks(rdata) == ranks(data) and rdata["prediction_s"] == data["prediction_s"],
          f"live {data['prediction_s']}, replay {rdata and rdata['prediction_s']} {last(rerr)}")
    check("  and every rank's breakdown bit for bit",
          rrc == 0 and breakdowns(data)[0] is not None and breakdowns(rdata) == breakdowns(data),
          next((f"rank {i}: live {a}, replay {b}" for i, (a, b) in
                enumerate(zip(breakdowns(data), breakdowns(rdata) or [])) if a != b), ""))
    check("  and notes nothing the target could change", not flags(rerr), last(rerr))
    return rec, data


def other_targets(tmp, rec, np, argv, targets, tol=0.01):
    """Replay rec on each target against a live run with rec's compute."""
    for t in targets:
        rc, data, _, err = live(np, argv, t, compute_from=rec)
        rrc, rdata, rerr = replay(rec, t)
        if not (rc == 0 and data and rrc == 0 and rdata):
            check(f"  {os.path.basename(t)}: live and replay both predict", False, last(err + rerr))
            continue
        diff = (rdata["prediction_s"] - data["prediction_s"]) / data["prediction_s"]
        check(f"  on {os.path.basename(t)}: replay within {tol:.0%} of the live run",
              abs(diff) <= tol, f"live {data['prediction_s']:.6f} s, replay {rdata['prediction_s']:.6f} s, "
              f"{diff:+.3%}; flags {flags(rerr) or 'none'}")
        # the mini-apps take one path whatever the timing (no wildcards,
        # polling or Waitany races): any flag is a false alarm
        check(f"  on {os.path.basename(t)}: nothing flagged", not flags(rerr) and not rdata["approximate"],
              f"flags {flags(rerr) or 'none'}, approximate {rdata['approximate']}; {last(rerr)}")


def protocol_change(rec, np, argv, target, tol):
    """Replay rec on target, whose eager threshold turns recorded eager
    messages rendezvous, against a live run there with rec's compute."""
    rc, data, _, err = live(np, argv, target, compute_from=rec)
    rrc, rdata, rerr = replay(rec, target)
    if not check(f"  {os.path.basename(argv[0])} on {os.path.basename(target)}: live and replay both predict",
                 rc == 0 and data and rrc == 0 and rdata, last(err + rerr)):
        return
    worst = max(abs(b - a) / a for a, b in zip(ranks(data), ranks(rdata)))
    check(f"  {os.path.basename(argv[0])} on {os.path.basename(target)}: every rank within {tol:.2%} of the "
          f"live run, nothing flagged", worst <= tol and not flags(rerr),
          f"worst rank {worst:.4%}, prediction live {data['prediction_s']:.9f} s, replay "
          f"{rdata['prediction_s']:.9f} s; flags {flags(rerr) or 'none'}")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        exes = build(tmp)
        apps = os.path.join(tmp, "apps")
        p16 = os.path.join(TOPO, "paper-16.topo")
        p1024 = os.path.join(TOPO, "paper-1024.topo")
        others16 = [os.path.join(TOPO, t + ".topo") for t in ("torus-4x4x4", "fattree-k16", "dragonfly-33x8x4")] + [
            variant(tmp, "paper-16", "p16-bnet-x0.5", bnet="2.08 GB/s"),
            variant(tmp, "paper-16", "p16-bnet-x2", bnet="8.32 GB/s"),
            variant(tmp, "paper-16", "p16-latency-x0.5", latency="7.5 us"),
            variant(tmp, "paper-16", "p16-latency-x4", latency="60 us")]
        others1024 = [os.path.join(TOPO, "torus-4x4x4.topo"),
                      variant(tmp, "paper-1024", "p1024-bnet-x2", bnet="8.32 GB/s"),
                      variant(tmp, "paper-1024", "p1024-latency-x4", latency="60 us")]

        n = 0
        print("== the mini-apps, 16 ranks, recorded on paper-16")
        for app in APPS:
            n += 1
            got = same_target(tmp, n, 16, [os.path.join(apps, app), "S"], p16)
            if got:
                other_targets(tmp, got[0], 16, [os.path.join(apps, app), "S"], others16)
        print("== the mini-apps, 64 ranks, recorded on paper-1024")
        for app in ("cg", "mg", "ft", "lu"):
            n += 1
            got = same_target(tmp, n, 64, [os.path.join(apps, app), "S"], p1024)
            if got:
                other_targets(tmp, got[0], 64, [os.path.join(apps, app), "S"], others1024)

        print("== integration programs, on the recorded target")
        for np, argv in ((2, ["exchange", "plain", "wait", "1024", "5"]),
                         (2, ["exchange", "plain", "test", "300000", "5"]),
                         (2, ["exchange", "persistent", "overlap", "200000", "5"]),
                         (4, ["collectives", "1024", "5"]), (4, ["nbcoll", "200000"]),
                         (2, ["window", "waitany", "1024", "16", "5"]),
                         (2, ["window", "waitsome", "200000", "8", "3"]),
                         (3, ["adversarial", "wildcard-blocked"]), (3, ["adversarial", "wildcard-unprovable"]),
                         (3, ["adversarial", "fig4b-req"]), (3, ["adversarial", "iprobe-early"]),
                         (3, ["adversarial", "mprobe-early"]), (3, ["adversarial", "testany-late-early"]),
                         (3, ["adversarial", "issend-test-early"]), (3, ["race"]),
                         (3, ["race", "100", "waitany"]),
                         (8, ["patterns", "-i", "3"])):
            n += 1
            same_target(tmp, n, np, [exes[argv[0]]] + argv[1:], p16)

        print("== where the target changes the execution, the replay says so")
        # Rank 1's message is first on race-near while its 100 us of
        # computation stays under the 3 ms latency it races against: a
        # margin no host stall (results/invariance-notes.md) should cross.
        race_near = variant(tmp, "paper-16", "race-near", cores_per_node="2", latency="3 ms")
        rec = os.path.join(tmp, "rec-race")
        rc, data, out, err = live(3, [exes["race"]], p16, record=rec)
        rc2, data2, out2, err2 = live(3, [exes["race"]], race_near, compute_from=rec)
        computed = (f"; rank 1 computed {data['per_rank'][1]['compute_s'] * 1e6:.0f} us, predictions "
                    f"{data['prediction_s']:.6f} / {data2['prediction_s'] if data2 else float('nan'):.6f} s"
                    if data else "")
        check("race: on paper-16 rank 2's message is first, where rank 1 shares rank 0's node rank 1's is",
              "first=2" in out and "first=1" in out2, (out + out2).replace("\n", " ") + last(err2) + computed)
        rrc, rdata, rerr = replay(rec, race_near)
        check("  the replay on that target is flagged: wildcard", rrc == 0 and "wildcard" in flags(rerr)
              and rdata["approximate"], last(rerr))
        if data2 and rdata:
            print(f"  (its error against the live run: "
                  f"{(rdata['prediction_s'] - data2['prediction_s']) / data2['prediction_s']:+.3%})")
        rec = os.path.join(tmp, "rec-race-waitany")
        argv = [exes["race"], "100", "waitany"]
        rc, data, out, err = live(3, argv, p16, record=rec)
        rc2, data2, out2, _ = live(3, argv, race_near, compute_from=rec)
        rrc, rdata, rerr = replay(rec, race_near)
        check("race by MPI_Waitany: the first completion changes with the target, and the replay says so",
              "first=2" in out and "first=1" in out2 and rrc == 0 and "waitany" in flags(rerr),
              last(rerr))
        if data2 and rdata:
            print(f"  (its error against the live run: "
                  f"{(rdata['prediction_s'] - data2['prediction_s']) / data2['prediction_s']:+.3%})")
        rec = os.path.join(tmp, "rec-poll")
        live(2, [exes["exchange"], "plain", "test", "300000", "5"], p16, record=rec)
        lat4 = others16[-1]
        rc2, data2, _, _ = live(2, [exes["exchange"], "plain", "test", "300000", "5"], lat4, compute_from=rec)
        rrc, rdata, rerr = replay(rec, lat4)
        check("a polling loop (MPI_Test) replayed with 4 times the latency is flagged: test",
              rrc == 0 and "test" in flags(rerr) and rdata["approximate"], last(rerr))
        if data2 and rdata:
            print(f"  (its error against the live run: "
                  f"{(rdata['prediction_s'] - data2['prediction_s']) / data2['prediction_s']:+.3%})")
        # MPI_Iprobe's answer is decided in the MPICH patch and not recorded
        # (docs/replay.md, Limits): with 4 times the latency the live run's
        # polling loop runs more often than the record's, and the replay,
        # which re-times the recorded polls, cannot flag it.  Should this
        # start to be flagged, the docs' Limits change with it.
        rec, live4 = os.path.join(tmp, "rec-iprobe"), os.path.join(tmp, "rec-iprobe-lat4")
        argv = [exes["patterns"], "-i", "20", "-s", "1024", "hot", "probe"]
        live(2, argv, p16, record=rec)
        rc2, data2, _, _ = live(2, argv, lat4, record=live4, compute_from=rec)
        rrc, rdata, rerr = replay(rec, lat4)

        def polls(d):
            dump = subprocess.run([sys.executable, VACED, "replay", d, "--dump", "1"],
                                  capture_output=True, text=True).stdout
            return len(re.findall(r"\btest_failed\b", dump))
        n_rec, n_live = polls(rec), polls(live4)
        check(f"an MPI_Iprobe polling loop with 4 times the latency polls otherwise live ({n_live} failed "
              f"probes against the record's {n_rec}); the replay does not see it: no test flag",
              rc2 == 0 and rrc == 0 and rdata and n_rec > 0 and n_live > n_rec and "test" not in flags(rerr),
              last(rerr))
        if data2 and rdata:
            print(f"  (its error against the live run: "
                  f"{(rdata['prediction_s'] - data2['prediction_s']) / data2['prediction_s']:+.3%})")
        print("== messages eager on the record and rendezvous on the target")
        eager8k = variant(tmp, "paper-16", "p16-eager-8k", eager_threshold="8 KiB")
        eager1k = variant(tmp, "paper-16", "p16-eager-1k", eager_threshold="1 KiB")
        for n, app, thr in ((2, "is", eager8k), (3, "cg", eager8k), (4, "ft", eager8k), (6, "mg", eager1k),
                            (7, "lu", eager1k)):        # same_target's records above
            protocol_change(os.path.join(tmp, f"rec{n}"), 16, [os.path.join(apps, app), "S"], thr, APP_TOL)
        for n, (np, argv) in enumerate(((2, ["pingpong", "4000", "20"]), (2, ["exchange", "plain", "wait", "4000", "5"]),
                                        (2, ["ring", "3000", "4"]), (2, ["window", "waitall", "4000", "8", "3"]))):
            rec = os.path.join(tmp, f"rec-rndv{n}")
            rc, _, _, err = live(np, [exes[argv[0]]] + argv[1:], p16, record=rec)
            if check(f"{' '.join(argv)}, {np} ranks: recorded on paper-16 (eager)", rc == 0, last(err)):
                protocol_change(rec, np, [exes[argv[0]]] + argv[1:], eager1k, 0.0001)
        print("== messages rendezvous on the record and eager on the target")
        for n, (np, argv) in enumerate(((2, ["pingpong", "4000", "20"]), (2, ["exchange", "plain", "wait", "4000", "5"]),
                                        (2, ["window", "waitall", "4000", "8", "3"]))):
            rec = os.path.join(tmp, f"rec-eager{n}")
            rc, _, _, err = live(np, [exes[argv[0]]] + argv[1:], eager1k, record=rec)
            if check(f"{' '.join(argv)}, {np} ranks: recorded with a 1 KiB threshold (rendezvous)", rc == 0, last(err)):
                protocol_change(rec, np, [exes[argv[0]]] + argv[1:], p16, 0.0001)
        for app in ("is", "mg"):
            rec = os.path.join(tmp, f"rec-eager-{app}")
            rc, _, _, err = live(16, [os.path.join(apps, app), "S"], eager1k, record=rec)
            if check(f"{app} S, 16 ranks: recorded with a 1 KiB threshold", rc == 0, last(err)):
                protocol_change(rec, 16, [os.path.join(apps, app), "S"], p16, APP_TOL)
        rec = os.path.join(tmp, "rec-sendsend")
        live(2, [exes["sendsend"], "4000"], p16, record=rec)
        rrc, rdata, rerr = replay(rec, eager1k)
        check("a program that relies on eager buffering (both send, then receive) replayed with "
              "rendezvous messages: the recorded protocol, flagged", rrc == 0 and rdata and
              "protocol" in flags(rerr) and rdata["approximate"], last(rerr))

        print("== uniform computation")
        uniform_compute(tmp, exes, p16)
        repeated_executions(tmp, exes, p16)
        wake_up_correction(tmp, exes, p16)

        print("== CH3's eager header; the front end")
        rec = os.path.join(tmp, "rec-thr")
        sizes = {}
        for b in (8192 - EAGER_HEADER, 8192 - EAGER_HEADER + 4):
            d = f"{rec}-{b}"
            live(2, [exes["ring"], str(b), "1"], eager8k, record=d)
            dump = subprocess.run([sys.executable, VACED, "replay", d, "--dump", "0"],
                                  capture_output=True, text=True).stdout
            sizes[b] = re.findall(r" sent peer=1 kind=(\d+) bytes=(\d+)", dump)
        check(f"with an 8 KiB threshold, {8192 - EAGER_HEADER} B go eager and {8192 - EAGER_HEADER + 4} B by "
              f"rendezvous: the eager header is {EAGER_HEADER} B",
              ("0", str(8192 - EAGER_HEADER)) in sizes[8192 - EAGER_HEADER] and
              any(k == "3" for k, _ in sizes[8192 - EAGER_HEADER + 4]), str(sizes))
        d = os.path.join(tmp, "rec-cli")
        r = subprocess.run([sys.executable, VACED, "run", "-n", "2", "--target", "paper-16", "--record", d,
                            "--quiet", "--", exes["pingpong"], "1024", "10"], capture_output=True, text=True,
                           stdin=subprocess.DEVNULL, timeout=300)
        files = sorted(os.listdir(d)) if os.path.isdir(d) else []
        check("vaced run --record DIR writes one file a rank",
              r.returncode == 0 and files == ["rank-000000.vlog", "rank-000001.vlog"], last(r.stderr))
        r = subprocess.run([sys.executable, VACED, "replay", d], capture_output=True, text=True)
        check("vaced replay without --target: exit 2 and the usage", r.returncode == 2 and "usage" in r.stderr)
    finish()


main()
