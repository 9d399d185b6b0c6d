#!/usr/bin/env python3
"""vaced/tools/vaced_jobsize.py, the checks `vaced run` makes before a
large job, on made-up limits, /proc files and meminfo:

- the soft open-files limit raised to 4 P + 64 (kept when higher or
  unlimited); a hard limit below that raised when allowed, else refused
  with the need, the limit and the ranks that fit;
- processes: kernel.pid_max less the running processes;
- memory: P ranks at the floor against MemAvailable;
- the all-pairs note against fs.file-max;
- the ranks' environment defaults, never over the user's values.

    python3 tests/tools/test_jobsize.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import os
import sys
import tempfile

sys.dont_write_bytecode = True
ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
sys.path.insert(0, os.path.join(ROOT, "tests", "tools"))
sys.path.insert(0, os.path.join(ROOT, "vaced", "tools"))
from checks import check, finish  # noqa: E402
import vaced_jobsize as J  # noqa: E402

INF = -1


class Limits:
    """resource's getrlimit/setrlimit over made-up values; `raisable`:
    whether the hard limit may go up (CAP_SYS_RESOURCE)."""
    RLIMIT_NOFILE, RLIMIT_NPROC, RLIM_INFINITY = 7, 6, INF

    def __init__(self, soft, hard, raisable=False, nproc=(INF, INF)):
        self.v = {self.RLIMIT_NOFILE: (soft, hard), self.RLIMIT_NPROC: nproc}
        self.raisable = raisable

    def getrlimit(self, which):
        return self.v[which]

    def setrlimit(self, which, new):
        soft, hard = new
        old_hard = self.v[which][1]
        if hard != INF and (old_hard == INF or hard > old_hard) and not self.raisable:
            raise ValueError("not allowed to raise maximum limit")
        if soft != INF and hard != INF and soft > hard:
            raise ValueError("soft above hard")
        self.v[which] = new


def limit_message(fn):
    try:
        fn()
    except J.Limit as e:
        return str(e)
    return None


def test_open_files():
    need = 4 * 1024 + 64
    lim = Limits(1024, 20000)
    got = J.raise_open_files(1024, lim)
    check("soft 1024, hard 20000, 1024 ranks: soft raised to 4 P + 64", got == need and lim.v[7] == (need, 20000),
          f"{got}, {lim.v[7]}")
    lim = Limits(30000, 30000)
    check("a soft limit above the need is kept", J.raise_open_files(1024, lim) == 30000 and lim.v[7] == (30000, 30000))
    lim = Limits(INF, INF)
    check("an unlimited soft limit is kept", J.raise_open_files(4096, lim) == INF and lim.v[7] == (INF, INF))
    lim = Limits(1000, 1000, raisable=True)
    got = J.raise_open_files(1024, lim)
    check("hard 1000 with the right to raise it: both raised to the need", got == need and lim.v[7] == (need, need),
          f"{got}, {lim.v[7]}")
    lim = Limits(1000, 1000)
    msg = limit_message(lambda: J.raise_open_files(1024, lim))
    check("hard 1000 without the right: refused", msg is not None)
    check("... naming the need, the limit, the fix and (1000 - 64) / 4 ranks",
          msg and all(w in msg for w in ("-n 1024 needs 4160 open files", "hard limit is 1000", "ulimit -Hn 4160",
                                         "run at most 234 ranks")), msg)
    check("... and the limits are left as they were", lim.v[7] == (1000, 1000), str(lim.v[7]))
    lim = Limits(1000, 1000)
    check("hard 1000 is enough for 234 ranks (4 x 234 + 64 = 1000)", J.raise_open_files(234, lim) == 1000)
    check("... and not for 235", limit_message(lambda: J.raise_open_files(235, Limits(1000, 1000))) is not None)


def fake_proc(d, pids, pid_max=None, file_max=None):
    for p in range(1, pids + 1):
        os.makedirs(os.path.join(d, str(p)), exist_ok=True)
    os.makedirs(os.path.join(d, "self"), exist_ok=True)      # not a pid
    if pid_max is not None:
        os.makedirs(os.path.join(d, "sys", "kernel"), exist_ok=True)
        with open(os.path.join(d, "sys", "kernel", "pid_max"), "w") as f:
            f.write(f"{pid_max}\n")
    if file_max is not None:
        os.makedirs(os.path.join(d, "sys", "fs"), exist_ok=True)
        with open(os.path.join(d, "sys", "fs", "file-max"), "w") as f:
            f.write(f"{file_max}\n")


def test_processes():
    with tempfile.TemporaryDirectory() as d:
        fake_proc(d, 100, pid_max=5000)
        check("100 running, pid_max 5000: 4898 ranks fit (100 + 4898 + 2 = 5000)",
              limit_message(lambda: J.check_processes(4898, Limits(0, 0), d)) is None)
        msg = limit_message(lambda: J.check_processes(4899, Limits(0, 0), d))
        check("... 4899 do not, and the message names pid_max and the processes running",
              msg and "kernel.pid_max is 5000" in msg and "100 processes run now" in msg, msg)
        check("processes_now counts only numbered entries", J.processes_now(d) == 100, str(J.processes_now(d)))


def test_memory():
    with tempfile.TemporaryDirectory() as d:
        mi = os.path.join(d, "meminfo")
        with open(mi, "w") as f:
            f.write("MemTotal:       24684084 kB\nMemFree:        20000000 kB\nMemAvailable:    1536000 kB\n")
        check("MemAvailable 1536000 KiB holds 1000 ranks at 1536 KiB",
              limit_message(lambda: J.check_memory(1000, mi)) is None)
        msg = limit_message(lambda: J.check_memory(1001, mi))
        check("... not 1001, and the message gives the floor, what is available and the ranks that fit",
              msg and all(w in msg for w in ("1.5 MiB a rank", "1.46 GiB are available", "run at most 1000 ranks")), msg)
        with open(mi, "w") as f:
            f.write("MemTotal: 1 kB\n")
        check("no MemAvailable line: no refusal", limit_message(lambda: J.check_memory(10 ** 6, mi)) is None)


def test_all_pairs():
    with tempfile.TemporaryDirectory() as d:
        fake_proc(d, 1, file_max=1000000)
        # 1000 ranks: 1000 * 999 + 4 * 1000 + 64 = 1003064 > 1000000; 990: 980110 + 4024 = 984134
        note = J.all_pairs_note(1000, d)
        check("1000 ranks all talking need more than fs.file-max 1000000: a note naming both",
              note and "1003064 open files" in note and "(1000000)" in note, note)
        check("990 ranks: no note", J.all_pairs_note(990, d) is None)


def test_env():
    env = J.rank_env({"PATH": "/bin", "HWLOC_COMPONENTS": "mine"})
    check("the defaults are added", env.get("MPIR_CVAR_CH3_RMA_OP_GLOBAL_POOL_SIZE") == "256" and
          env.get("MPIR_CVAR_CH3_RMA_TARGET_GLOBAL_POOL_SIZE") == "256", str(env))
    check("a value the user set is kept", env["HWLOC_COMPONENTS"] == "mine" and env["PATH"] == "/bin")
    check("the empty string the user set is kept too",
          J.rank_env({"HWLOC_COMPONENTS": ""})["HWLOC_COMPONENTS"] == "")


test_open_files()
test_processes()
test_memory()
test_all_pairs()
test_env()
finish()
