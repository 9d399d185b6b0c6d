#!/usr/bin/env python3
"""vaced otf2 and vaced run --otf2 (vaced/tools/vaced_otf2.py) on real
programs of tests/mpi run with the patched MPICH: ring.c (eager and
rendezvous), pingpong.c and exchange.c (nonblocking, persistent, polled).
The archive is read back with Debian's otf2-print: every rank is a
location whose regions nest and end at its prediction; computation and
polling add up to its compute time; each message lies inside an MPI call;
the messages are those the program sends (count and size), inside the
regions of the MPI functions that send and receive them; each pair's
sends and receives match one to one, in order, of equal size, the receive
completing no earlier than the send.  Then bad input: help, usage errors,
a missing or garbled trace, an unwritable output directory (the prediction
still printed).

    python3 tests/tools/test_otf2.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from collections import defaultdict

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check as count, finish  # noqa: E402
# one execution a vaced run (the default is two) unless a check asks for more
os.environ["VACED_REPEAT"] = "1"

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
VACED = os.path.join(ROOT, "vaced", "tools", "vaced")
BIN = os.path.join(ROOT, "install", "vaced", "bin")
EVENT = re.compile(r"^(ENTER|LEAVE|MPI_SEND|MPI_RECV)\s+(\d+)\s+(\d+)\s+(.*)$")
REGION = re.compile(r'Region: "([^"]+)"')
PEER = re.compile(r"(?:Receiver|Sender): (\d+) .*Length: (\d+)")


def check(name, ok, why=""):
    return count(name, ok, "" if ok else why)


def vaced(*args, cwd=None, env=None):
    return subprocess.run([sys.executable, VACED] + list(args), capture_output=True, text=True, cwd=cwd,
                          env=env, timeout=600)


def detail(r):
    return f"status {r.returncode}: {(r.stdout + r.stderr)[-600:]}"


def ensure_otf2_tools():
    """otf2-print (Debian's otf2-tools) and python3-otf2, installed as root
    if missing; the reason they are not there, or None."""
    have = lambda: shutil.which("otf2-print") and subprocess.run(  # noqa: E731
        ["/usr/bin/python3", "-c", "import otf2"], capture_output=True).returncode == 0
    if have():
        return None
    if os.geteuid() != 0:
        return "otf2-print or python3-otf2 missing and this is not root: apt-get install otf2-tools python3-otf2"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    cmd = ["apt-get", "install", "-y", "-q", "otf2-tools", "python3-otf2"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    if r.returncode != 0:
        subprocess.run(["apt-get", "update", "-q"], capture_output=True, env=env)
        r = subprocess.run(cmd, capture_output=True, text=True, env=env)
    return None if have() else "apt-get install otf2-tools python3-otf2 failed: " + (r.stdout + r.stderr)[-300:]


def read_archive(path):
    """otf2-print's events: {location: [(what, t_ps, region or (peer, bytes))]}."""
    r = subprocess.run(["otf2-print", path], capture_output=True, text=True)
    if r.returncode != 0:
        return None
    ev = defaultdict(list)
    for line in r.stdout.splitlines():
        m = EVENT.match(line)
        if not m:
            continue
        what, loc, t, rest = m.group(1), int(m.group(2)), int(m.group(3)), m.group(4)
        if what in ("ENTER", "LEAVE"):
            ev[loc].append((what, t, REGION.search(rest).group(1)))
        else:
            p = PEER.search(rest)
            ev[loc].append((what, t, (int(p.group(1)), int(p.group(2)))))
    return ev


def walk(events):
    """One location's regions: (well nested, last time, {region: total ps},
    messages outside MPI, [(n messages in each MPI call)])."""
    stack, total, outside, per_call = [], defaultdict(int), 0, []
    nested, last = True, 0
    for what, t, x in events:
        nested = nested and t >= last
        last = t
        if what == "ENTER":
            stack.append((x, t))
            if x.startswith("MPI"):         # "MPI_Send", or "MPI" without call tables
                per_call.append(0)
        elif what == "LEAVE":
            if not stack or stack[-1][0] != x:
                nested = False
                continue
            name, start = stack.pop()
            if name not in [s[0] for s in stack]:
                total[name] += t - start
        elif stack and stack[-1][0].startswith("MPI"):
            per_call[-1] += 1
        else:
            outside += 1
    return nested and not stack, last, total, outside, per_call


def regions_of_messages(events):
    """[(MPI_SEND or MPI_RECV, the region it lies in)] of one location."""
    stack, out = [], []
    for what, t, x in events:
        if what == "ENTER":
            stack.append(x)
        elif what == "LEAVE":
            if stack:
                stack.pop()
        else:
            out.append((what, stack[-1] if stack else None))
    return out


def check_archive(label, archive, doc, ranks, expect):
    """The checks of one run's archive; expect(rank, sent {peer: [bytes]})
    says whether a rank's sends are the program's."""
    ev = read_archive(archive)
    if not check(f"{label}: otf2-print reads the archive, {ranks} locations", ev is not None and
                 sorted(ev) == list(range(ranks)), str(ev and sorted(ev))):
        return
    sends, recvs = defaultdict(list), defaultdict(list)
    for loc, events in ev.items():
        rank = doc["per_rank"][loc]
        nested, last, total, outside, per_call = walk(events)
        check(f"{label}: rank {loc}'s regions nest and end at its prediction",
              nested and abs(last - round(rank["total_s"] * 1e12)) <= 1, f"{last} ps vs {rank['total_s']} s")
        computed = (total["computation"] + total["polling"]) / 1e12
        check(f"{label}: rank {loc}'s computation and polling add up to its compute time",
              abs(computed - rank["compute_s"]) < 1e-9, f"{computed:.12f} vs {rank['compute_s']:.12f}")
        check(f"{label}: rank {loc}'s {sum(per_call)} messages are inside its {len(per_call)} MPI calls",
              outside == 0 and per_call, f"{outside} outside")
        for what, t, x in events:
            if what == "MPI_SEND":
                sends[(loc, x[0])].append((t, x[1]))
            elif what == "MPI_RECV":
                recvs[(x[0], loc)].append((t, x[1]))
        by_peer = defaultdict(list)
        for (s, d), v in sends.items():
            if s == loc:
                by_peer[d] += [b for _, b in v]
        check(f"{label}: rank {loc} sends what the program sends", expect(loc, by_peer),
              str({p: (len(v), sorted(set(v))) for p, v in by_peer.items()}))
    # MPI keeps order per communicator and tag only: a collective's 8-byte
    # message may be received before a point-to-point one sent earlier.
    # The messages of one size go in order (one context each, here).
    def by_size(events):
        out = defaultdict(list)
        for k, v in events.items():
            for t, b in v:
                out[(k, b)].append(t)
        return out
    sent, got = by_size(sends), by_size(recvs)
    bad = [(k, i) for k in sent.keys() | got.keys()
           for i, (s, r) in enumerate(zip(sent.get(k, []), got.get(k, []))) if r < s]
    unequal = [k for k in sent.keys() | got.keys() if len(sent.get(k, [])) != len(got.get(k, []))]
    check(f"{label}: each pair's {sum(map(len, sends.values()))} sends and receives pair up in order "
          "of each size (as many of each, received no earlier than sent)", not bad and not unequal,
          f"unequal counts {unequal[:3]}, received before sent {bad[:3]}")


def run_traced(label, tmp, ranks, argv, otf2_flag=True):
    """vaced run with --json, --trace and --otf2: (doc, archive) or None."""
    d = os.path.join(tmp, label.replace(" ", "-"))
    j, tr, o = d + ".json", d + "-trace", d + "-otf2"
    r = vaced("run", "-n", str(ranks), "--target", "paper-16", "--quiet", "--json", j, "--trace", tr,
              *(["--otf2", o] if otf2_flag else []), "--", *argv)
    if not check(f"{label}: vaced run exits 0" + (" and reports the archive" if otf2_flag else ""),
                 r.returncode == 0 and (not otf2_flag or "OTF2 archive " + o in r.stderr), detail(r)):
        return None
    with open(j) as f:
        return json.load(f), os.path.join(o, "traces.otf2"), tr


why = ensure_otf2_tools()
if not check("otf2-print and python3-otf2 are installed (otf2-tools, python3-otf2)", why is None, why or ""):
    finish()

with tempfile.TemporaryDirectory() as tmp:
    progs = {}
    for name in ("ring", "pingpong", "exchange"):
        exe = os.path.join(tmp, name)
        b = subprocess.run([os.path.join(BIN, "mpicc"), "-O2", "-g", "-o", exe,
                            os.path.join(ROOT, "tests", "mpi", name + ".c")], capture_output=True, text=True)
        if check(f"{name}.c builds with install/vaced's mpicc", b.returncode == 0, b.stderr[-300:]):
            progs[name] = exe

    def ring_expect(ranks, laps, size):
        # each rank sends laps + 1 (a warm-up lap) messages of `size` to the next
        return lambda r, sent: sent == {(r + 1) % ranks: [size] * (laps + 1)}

    if "ring" in progs:
        for ranks, size, laps in ((4, 8, 5), (4, 100000, 3), (8, 4096, 2)):
            out = run_traced(f"ring {ranks}x{size}B", tmp, ranks, [progs["ring"], str(size), str(laps)])
            if out:
                check_archive(f"ring {ranks}x{size}B", out[1], out[0], ranks, ring_expect(ranks, laps, size))
                # the ring's MPI calls: a send and a receive per lap, each with its one message
                ev = read_archive(out[1])
                calls = [walk(ev[loc])[4] for loc in range(ranks)]
                check(f"ring {ranks}x{size}B: every rank has {2 * (laps + 1)} MPI calls of one message each",
                      all(c == [1] * (2 * (laps + 1)) for c in calls), str([len(c) for c in calls]))
                # named by function: each send inside an MPI_Send, each receive inside an MPI_Recv
                named = [(what, stack_top) for loc in range(ranks) for what, stack_top in regions_of_messages(ev[loc])]
                check(f"ring {ranks}x{size}B: the MPI regions are named by function: sends in MPI_Send, "
                      "receives in MPI_Recv", named and all((w == "MPI_SEND") == (r == "MPI_Send") and
                                                            r in ("MPI_Send", "MPI_Recv") for w, r in named),
                      str(sorted(set(named))))
    if "pingpong" in progs:
        for size in (0, 1000, 300000):
            out = run_traced(f"pingpong {size}B", tmp, 2, [progs["pingpong"], str(size), "10"])
            if out:
                check_archive(f"pingpong {size}B", out[1], out[0], 2,
                              lambda r, sent, size=size: sent == {1 - r: [size] * 11})
    if "exchange" in progs:
        for mode, how, size in (("plain", "wait", 200000), ("persistent", "test", 1000), ("plain", "overlap", 5000)):
            label = f"exchange {mode} {how} {size}B"
            out = run_traced(label, tmp, 2, [progs["exchange"], mode, how, str(size), "10"])
            if out:
                # reps + 1 messages of `size` each way, and the MPI_Allreduce's 8 B ones
                check_archive(label, out[1], out[0], 2, lambda r, sent, size=size:
                              set(sent) == {1 - r} and sent[1 - r].count(size) == 11
                              and set(sent[1 - r]) <= {size, 8})

        # vaced otf2 on a finished run's traces, and VACED_OTF2 for vaced run
        out = run_traced("exchange again", tmp, 2, [progs["exchange"], "plain", "wait", "64", "5"], otf2_flag=False)
        if out:
            o = os.path.join(tmp, "later-otf2")
            r = vaced("otf2", out[2], o)
            check("vaced otf2 TRACE_DIR OUT_DIR: exit 0, one line naming the archive",
                  r.returncode == 0 and r.stdout.startswith("OTF2 archive " + o), detail(r))
            check_archive("vaced otf2", os.path.join(o, "traces.otf2"), out[0], 2,
                          lambda r, sent: sent[1 - r].count(64) == 6)
            r = vaced("otf2", out[2], o)
            check("vaced otf2 again into the same directory replaces the archive",
                  r.returncode == 0 and read_archive(os.path.join(o, "traces.otf2")) is not None, detail(r))
            env = dict(os.environ, VACED_OTF2=os.path.join(tmp, "env-otf2"))
            r = vaced("run", "-n", "2", "--target", "paper-16", "--quiet", "--", progs["exchange"], "plain",
                      "wait", "64", "3", env=env)
            check("VACED_OTF2=DIR: vaced run writes the archive there (no --trace needed)",
                  r.returncode == 0 and read_archive(os.path.join(tmp, "env-otf2", "traces.otf2")) is not None,
                  detail(r))
            check("VACED_OTF2 under vaced run: no note about mpiexec", "VACED_OTF2 is read by" not in r.stderr,
                  detail(r))
            r = subprocess.run([os.path.join(BIN, "mpiexec"), "-n", "2", progs["exchange"], "plain", "wait", "64",
                                "3"], capture_output=True, text=True, timeout=300,
                               env=dict(env, VACED_TARGET="paper-16", VACED_QUIET="1"))
            check("VACED_OTF2 under mpiexec: the prediction, then one note naming VACED_TRACE and vaced otf2",
                  r.returncode == 0 and "vaced: prediction" in r.stdout
                  and r.stderr.count("VACED_OTF2 is read by `vaced run`") == 1
                  and "VACED_TRACE=DIR" in r.stderr and "vaced otf2 DIR " + env["VACED_OTF2"] in r.stderr,
                  detail(r))

    # --- bad input -------------------------------------------------------
    r = vaced("otf2", "--help")
    check("vaced otf2 --help: usage", r.returncode == 0 and r.stdout.startswith("usage: vaced otf2"), detail(r))
    r = vaced("--help")
    check("vaced --help lists otf2", re.search(r"^  otf2 ", r.stdout, re.M), detail(r))
    r = vaced("run", "--help")
    check("vaced run --help has --otf2", re.search(r"^  --otf2 DIR ", r.stdout, re.M), detail(r))
    for args, why in ((["onlyone"], "needs a trace directory and an output directory"),
                      (["a", "b", "--bogus"], "unknown option '--bogus'")):
        r = vaced("otf2", *args)
        check(f"vaced otf2 {' '.join(args)}: exit 2, vaced otf2: {why}",
              r.returncode == 2 and r.stderr.startswith("vaced otf2: ") and why in r.stderr, detail(r))
    r = vaced("otf2", os.path.join(tmp, "no-such-trace"), os.path.join(tmp, "x"))
    check("a missing trace directory: exit 1, named", r.returncode == 1 and "no-such-trace: no such directory"
          in r.stderr, detail(r))
    garbled = os.path.join(tmp, "garbled")
    os.mkdir(garbled)
    with open(os.path.join(garbled, "vaced-trace.0.csv"), "w") as f:
        f.write("kind,start_s,end_s\ncompute,0.0,0.1\nsend,1,0,eight,0.05\n")
    r = vaced("otf2", garbled, os.path.join(tmp, "x"))
    check("a garbled trace line: exit 1, FILE:LINE", r.returncode == 1 and "vaced-trace.0.csv:3:" in r.stderr,
          detail(r))
    with open(os.path.join(garbled, "vaced-trace.2.csv"), "w") as f:
        f.write("kind,start_s,end_s\n")
    r = vaced("otf2", garbled, os.path.join(tmp, "x"))
    check("a rank's trace missing: exit 1, named", r.returncode == 1 and "vaced-trace.1.csv is missing" in r.stderr,
          detail(r))
    blocker = os.path.join(tmp, "a-file")
    open(blocker, "w").close()
    if "ring" in progs:
        r = vaced("run", "-n", "2", "--target", "paper-16", "--quiet", "--otf2", os.path.join(blocker, "sub"),
                  "--", progs["ring"], "8", "2")
        lines = [ln for ln in r.stderr.splitlines() if "--otf2" in ln]
        check("an unwritable --otf2 directory: the prediction and summary printed, one error line, exit 1",
              r.returncode == 1 and "vaced summary" in r.stdout and "vaced: prediction" in r.stdout
              and len(lines) == 1 and "cannot create the directory" in lines[0], detail(r))
finish()
