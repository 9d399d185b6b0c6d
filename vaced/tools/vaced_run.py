"""vaced_run: `vaced run` (RUN_HELP below), run by vaced_cli.

Checks the options, runs the program under the patched mpiexec once or
several times (recording each execution for the estimate), passes its
output through with whole rank lines, combines and replays the
executions, adds the critical path, the uniform-computation replay, the
OTF2 archive and the report, and prints the summary (vaced_summary) and
writes the JSON.  Python 3 standard library only.
"""
import json
import os
import re
import select
import shutil
import subprocess
import sys
import tempfile
import time

import vaced_jobsize
from vaced_cli import (ArgParser, Failure, ROOT, Usage, VACED_PREFIX, c_tool, c_tools,
                       check_target, note_page_reporting, positive_int, resolve_target, say,
                       tool_module)
from vaced_summary import summary_table, to_json


# vaced run's executions: with two, each segment the least of its two
# measurements, one execution's stalls do not decide the prediction, at
# twice the host time (results/segment-noise.md, section 7)
DEFAULT_REPEAT = 2


VANILLA_PREFIX = os.path.join(ROOT, "install", "vanilla")


RANK_LINE = re.compile(rb"^vaced: rank \d+ of \d+: predicted ")


RUN_HELP = """\
usage: vaced run -n P --target T [options] -- PROGRAM [ARGS...]

Runs PROGRAM (built with install/vaced/bin/mpicc, or against any MPICH 4.x)
on P ranks with install/vaced/bin/mpiexec, predicting its runtime on target
T.  The program's output is passed through; at the end a summary table
gives the prediction (the library's rank-0 line), the slowest rank's
compute/communication split, min/mean/max over ranks and the host wall time.

  -n P               number of ranks (the target must have at least P cores)
  --target T         target description: a path (anything with a '/'), or a
                     name NAME for NAME.topo in $VACED_TOPO_DIR or topo/
                     (as VACED_TARGET), or a file T in this directory.
                     Checked before anything is launched.
  --host-cores N     run the ranks on host CPUs 0..N-1 (taskset -c 0-(N-1));
                     with fewer than a node's cores, memory-bound computation
                     meets less traffic than on the target: predicted fast
  --hostfile F       pass -f F to mpiexec (ranks on several hosts; rank 0
                     must run on this host, where it writes the results)
  --json FILE        write the library's JSON plus host_wall_s, command,
                     host_cores, vanilla_time_s and slowdown to FILE
  --record DIR       every rank records what the model was told to
                     DIR/rank-NNNNNN.vlog (VACED_RECORD; DIR is created if
                     missing), for vaced replay on other targets
  --trace DIR        every rank writes its timeline to DIR/vaced-trace.R.csv
                     (VACED_TRACE; DIR is created if missing): its compute,
                     mpi and poll spans and its messages, in target seconds
                     (docs/usage.md, Trace).  The summary and the JSON
                     (critical_path) then give the run's critical path
  --otf2 DIR         also write the run's timelines as an OTF2 archive,
                     DIR/traces.otf2 (as vaced otf2; traces into a temporary
                     directory unless --trace).  VACED_OTF2=DIR in the
                     environment does the same
  --report DIR       also write DIR/report.html with plots (as vaced report;
                     traces as --otf2 does).  An OTF2 archive or report that
                     cannot be written is one line on stderr after the
                     summary, and the exit status 1
  --uniform-compute  also re-time the run with its computation uniform
                     across ranks (records it, to --record DIR or a
                     temporary directory, then vaced replay --uniform-compute):
                     the summary and the JSON (uniform_compute) give that
                     prediction, without the host's measurement noise
                     carried along exchanges, for programs whose ranks do
                     the same work (docs/replay.md)
  --repeat N         run the program N times (default 2, or $VACED_REPEAT;
                     a deterministic program), recording each execution,
                     and predict from their combination: each rank's k-th
                     compute segment re-timed as the least of its N
                     measurements (the host only ever adds to a segment),
                     so that one execution's stalls do not decide it while
                     each rank's own work stays.  The summary and the JSON
                     give every execution's prediction (predictions_s) and
                     their range with the combination's
                     (prediction_interval_s).  Only the first execution's
                     output is shown; --trace traces the first execution.
                     --repeat 1: one execution, its library line, no
                     interval
  --wake-up          also take the wake-up penalty out of the computation
                     (records the run, corrects each cold segment, replays):
                     on a host with more ranks than cores a rank that slept
                     in a wait pays for refilling caches that other ranks
                     used meanwhile, which a rank alone on its target core
                     does not (docs/replay.md#the-wake-up-correction).  The
                     summary gives both figures; the JSON has wake_up (the
                     cold segments' share of the computation, the share
                     taken off, the share it could not correct)

With two or more executions or --wake-up, prediction_s is the estimate's
(the replay of the corrected or combined record, which --record DIR then
receives) and prediction_raw_s the library's line of the first execution;
the traces, critical path and report describe the first execution as
measured.

  --vanilla-time S   the program's runtime in seconds without VACED: the
                     summary adds slowdown = host wall time / S
  --vanilla          measure that time: run the same command first with
                     install/vanilla (unpatched MPICH), then with VACED
  --quiet            hide the per-rank "vaced: rank R of P" lines (the
                     library's prediction line and the summary stay)
  --progress         print "R/P ranks finished" to stderr once a second even
                     when stderr is not a terminal (on a terminal: always)
  -h, --help         this text

The ranks get VACED_TARGET (the checked file), VACED_JSON (a temporary file
unless --json) and VACED_QUIET=0; other VACED_* variables (VACED_CPUTIME,
VACED_TOPO_DIR) pass through from the environment.  For large jobs the soft
limit of open files is raised to 4 P + 64, the hard limit, processes and
memory are checked before launching, and the ranks get, unless set,
MPIR_CVAR_CH3_RMA_OP_GLOBAL_POOL_SIZE=256,
MPIR_CVAR_CH3_RMA_TARGET_GLOBAL_POOL_SIZE=256 and
HWLOC_COMPONENTS=-pci,-linuxio (docs/limits.md, Large jobs).

Exit status: 0 success; 2 a usage error (bad option, missing '--', program
or target not found); 1 an invalid target file, a host that cannot hold the
job or a failed run; a program that exits non-zero gives its own status
(the summary is still printed when rank 0 reported).

Examples:
  vaced run -n 16 --target paper-16 -- ./jacobi2d 1024 200
  vaced run -n 64 --target topo/torus-4x4x4.topo --host-cores 2 --quiet \\
            --vanilla --json out.json -- ./stencil 64
"""


RUN_VALUED = ("-n", "--target", "--host-cores", "--hostfile", "--json", "--trace", "--record", "--repeat",
              "--vanilla-time", "--otf2", "--report")


RUN_FLAGS = ("--vanilla", "--quiet", "--progress", "--uniform-compute", "--wake-up")


def parse_run(argv):
    """{option: value} of `vaced run`'s options, "program": the words after
    '--', "help": True for --help."""
    if "--" in argv:
        cut = argv.index("--")
        argv, program = argv[:cut], argv[cut + 1:]
    else:
        program = None
    ap = ArgParser("run", RUN_HELP, prefix="run: ")
    for opt in RUN_VALUED:
        ap.add_argument(opt, dest=opt)
    for opt in RUN_FLAGS:
        ap.add_argument(opt, dest=opt, action="store_true")
    got = ap.parse(argv)
    if got is None:
        return {"help": True}
    ns, pos = got
    if pos:
        raise Usage(f"run: missing '--' before the program '{pos[0]}': "
                    f"vaced run -n P --target T [options] -- {pos[0]} ...")
    if program is None:
        raise Usage("run: missing '--' and the program: vaced run -n P --target T -- ./prog args")
    o = {k: v for k, v in vars(ns).items() if k.startswith("-") and v not in (None, False)}
    o["program"] = program
    return o


def writable_dir(opt, path):
    """The absolute path of directory `path`, created if missing."""
    d = os.path.abspath(path)
    try:
        os.makedirs(d, exist_ok=True)
    except OSError as e:
        raise Usage(f"{opt} {d}: cannot create the directory: {e.strerror}")
    if not os.access(d, os.W_OK):
        raise Usage(f"{opt} {d}: the directory is not writable")
    return d


def check_run_options(o):
    """Everything that can be checked before launching."""
    if "-n" not in o:
        raise Usage("run: -n P (the number of ranks) is required")
    o["-n"] = positive_int("-n", o["-n"])
    if "--target" not in o:
        raise Usage("run: --target T is required (a .topo path or a name such as paper-16)")
    if not o["program"]:
        raise Usage("run: no program after '--'")
    if "--host-cores" in o:
        n = o["--host-cores"] = positive_int("--host-cores", o["--host-cores"])
        have = os.sched_getaffinity(0)
        if not set(range(n)) <= have:
            raise Usage(f"--host-cores {n} needs CPUs 0-{n - 1}, but this process may use CPUs "
                        f"{','.join(map(str, sorted(have)))}")
    if "--hostfile" in o and not os.path.isfile(o["--hostfile"]):
        raise Usage(f"hostfile '{o['--hostfile']}' not found")
    if "--json" in o:
        d = os.path.dirname(os.path.abspath(o["--json"]))
        if not os.path.isdir(d) or not os.access(d, os.W_OK):
            raise Usage(f"--json {o['--json']}: directory {d} does not exist or is not writable")
    for opt in ("--trace", "--record"):
        if opt in o:
            o[opt] = writable_dir(opt, o[opt])
    if "--otf2" not in o and os.environ.get("VACED_OTF2"):
        o["--otf2"] = os.environ["VACED_OTF2"]
    for opt in ("--otf2", "--report"):     # checked when written: the prediction comes first
        if opt in o:
            o[opt] = os.path.abspath(o[opt])
    where, value = "--repeat", o.get("--repeat")
    if value is None:
        env = os.environ.get("VACED_REPEAT")
        where, value = ("VACED_REPEAT", env) if env else ("--repeat", str(DEFAULT_REPEAT))
    o["--repeat"] = positive_int(where, value)
    if o["--repeat"] > 64:
        raise Usage(f"{where} N: at most 64 executions")
    if "--vanilla-time" in o:
        try:
            o["--vanilla-time"] = float(o["--vanilla-time"])
        except ValueError:
            o["--vanilla-time"] = -1.0
        if not o["--vanilla-time"] > 0 or o["--vanilla-time"] == float("inf"):
            raise Usage("--vanilla-time needs a time in seconds greater than 0")
        if o.get("--vanilla"):
            raise Usage("give --vanilla or --vanilla-time S, not both")
    prog = o["program"][0]
    if "/" in prog:
        if not os.path.isfile(prog):
            raise Usage(f"program '{prog}' not found")
        if not os.access(prog, os.X_OK):
            raise Usage(f"program '{prog}' is not executable (chmod +x {prog}?)")
    elif not shutil.which(prog):
        raise Usage(f"program '{prog}' not found in PATH (for a file here, write ./{prog})")
    o["target_path"] = resolve_target(o["--target"])
    check_target(o["target_path"], o["-n"], quiet=True)
    for prefix in [VACED_PREFIX] + ([VANILLA_PREFIX] if o.get("--vanilla") else []):
        if not os.access(os.path.join(prefix, "bin", "mpiexec"), os.X_OK):
            raise Failure(f"{prefix}/bin/mpiexec is missing: run ./build.sh in {ROOT} first")
    try:
        for note in vaced_jobsize.prepare(o["-n"], local="--hostfile" not in o):
            say(note)
    except vaced_jobsize.Limit as e:
        raise Failure(str(e))


def launcher(o, prefix):
    cmd = []
    if "--host-cores" in o:
        cmd += ["taskset", "-c", f"0-{o['--host-cores'] - 1}"]
    cmd += [os.path.join(prefix, "bin", "mpiexec"), "-n", str(o["-n"])]
    if "--hostfile" in o:
        cmd += ["-f", o["--hostfile"]]
    return cmd + o["program"]


def with_mpi_library(env, prefix):
    """env whose loader finds prefix's libmpi first: a program built with
    either install's (or any MPICH-ABI) compilers runs on that install's
    library, as the compilers' DT_RUNPATH yields to LD_LIBRARY_PATH."""
    return dict(env, LD_LIBRARY_PATH=os.path.join(prefix, "lib") +
                (":" + env["LD_LIBRARY_PATH"] if env.get("LD_LIBRARY_PATH") else ""))


def loaded_mpi_library(program, env):
    """The libmpi the loader gives program under env (ldd), or None."""
    try:
        r = subprocess.run(["ldd", program], env=env, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                           text=True, timeout=30)
    except (OSError, subprocess.TimeoutExpired):
        return None
    m = re.search(r"libmpi\.so\S*\s+=>\s+(\S+)", r.stdout)
    return m and os.path.realpath(m.group(1))


def no_prediction_reason(o, env, status):
    """Why rank 0 may have written no prediction, for the error line."""
    if status != 0:
        return f"mpiexec exit status {status}; see the output above"
    program = shutil.which(o["program"][0]) or o["program"][0]
    lib = loaded_mpi_library(program, env)
    if lib and not lib.startswith(os.path.realpath(VACED_PREFIX) + os.sep):
        return (f"{o['program'][0]} loads {lib}, not VACED's library in {VACED_PREFIX}/lib: "
                "it was linked with an RPATH to another MPI; rebuild it with "
                f"{VACED_PREFIX}/bin/mpicc (or mpif90)")
    return "mpiexec exit status 0; see the output above"


def time_vanilla(o):
    """Wall time of the same command on install/vanilla; output discarded."""
    say("timing the program on install/vanilla (unpatched MPICH) first")
    env = with_mpi_library(vaced_jobsize.rank_env(os.environ), VANILLA_PREFIX)
    with tempfile.TemporaryFile() as log:
        t0 = time.monotonic()
        r = subprocess.run(launcher(o, VANILLA_PREFIX), env=env, stdout=log, stderr=log)
        wall = time.monotonic() - t0
        if r.returncode != 0:
            log.seek(0)
            tail = log.read().decode(errors="replace").splitlines()[-20:]
            raise Failure(f"the vanilla run failed (status {r.returncode}); its last output:\n"
                          + "\n".join(tail))
    return wall


class Streams:
    """Forwards the program's stdout and stderr line by line, counts the rank
    lines (they come at MPI_Finalize) and draws the progress line."""

    def __init__(self, proc, ranks, quiet, progress):
        self.out = {proc.stdout.fileno(): sys.stdout.buffer, proc.stderr.fileno(): sys.stderr.buffer}
        self.stdout_fd = proc.stdout.fileno()
        self.pending = {fd: b"" for fd in self.out}
        self.ranks, self.quiet, self.progress = ranks, quiet, progress
        self.tty = sys.stderr.isatty()
        self.finished = 0
        self.drawn = False
        self.start = self.last = time.monotonic()

    def run(self):
        open_fds = list(self.out)
        while open_fds:
            ready, _, _ = select.select(open_fds, [], [], 1.0 if self.progress else None)
            for fd in ready:
                chunk = os.read(fd, 65536)
                data = self.pending[fd] + chunk
                cut = len(data) if not chunk or len(data) > 65536 else data.rfind(b"\n") + 1
                self.pending[fd] = data[cut:]
                if not chunk:
                    open_fds.remove(fd)
                self.forward(fd, data[:cut])
            now = time.monotonic()
            if self.progress and open_fds and now - self.last >= 1.0:
                self.last = now
                self.draw(now)
        self.clear()

    def forward(self, fd, data):
        if not data:
            return
        self.clear()
        for line in data.splitlines(keepends=True):
            if fd == self.stdout_fd and RANK_LINE.match(line):
                self.finished += 1
                if self.quiet:
                    continue
            self.out[fd].write(line)
        self.out[fd].flush()

    def draw(self, now):
        text = f"vaced: {self.finished}/{self.ranks} ranks finished, {now - self.start:.0f} s elapsed"
        sys.stderr.write("\r" + text + "\033[K" if self.tty else text + "\n")
        sys.stderr.flush()
        self.drawn = self.tty

    def clear(self):
        if self.drawn:
            sys.stderr.write("\r\033[K")
            sys.stderr.flush()
            self.drawn = False


def run_once(cmd, env, o, show):
    """(exit status, host wall seconds) of one execution.  Its output is
    passed through (show), or kept and its last lines printed if it fails;
    KeyboardInterrupt after mpiexec has stopped."""
    t0 = time.monotonic()
    if not show:
        with tempfile.TemporaryFile() as log:
            status = subprocess.run(cmd, env=env, stdout=log, stderr=log).returncode
            if status != 0:
                log.seek(0)
                sys.stderr.write("\n".join(log.read().decode(errors="replace").splitlines()[-20:]) + "\n")
        return (128 - status if status < 0 else status), time.monotonic() - t0
    proc = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    streams = Streams(proc, o["-n"], o.get("--quiet", False),
                      o.get("--progress", False) or sys.stderr.isatty())
    try:
        streams.run()
        status = proc.wait()
    except KeyboardInterrupt:           # the terminal sent SIGINT to mpiexec too
        streams.clear()
        proc.wait()
        raise
    return (128 - status if status < 0 else status), time.monotonic() - t0


def read_json(path):
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def cmd_run(argv):
    o = parse_run(argv)
    if o.get("help"):
        return 0
    check_run_options(o)
    note_page_reporting()
    vanilla = None
    if "--vanilla-time" in o:
        vanilla = (o["--vanilla-time"], "given")
    elif o.get("--vanilla"):
        vanilla = (time_vanilla(o), "measured")
    repeat = o["--repeat"]
    tmpdir = tempfile.mkdtemp(prefix="vaced-run.")
    env = dict(with_mpi_library(vaced_jobsize.rank_env(os.environ), VACED_PREFIX),
               VACED_TARGET=os.path.abspath(o["target_path"]), VACED_QUIET="0")
    env.pop("VACED_OTF2", None)         # the front end's, not the library's
    trace_dir = o.get("--trace")
    if not trace_dir and ("--otf2" in o or "--report" in o):
        trace_dir = os.path.join(tmpdir, "trace")
        os.mkdir(trace_dir)
    record_dir = o.get("--record")
    estimate = repeat > 1 or o.get("--wake-up")
    if (o.get("--uniform-compute") or estimate) and not record_dir:
        record_dir = os.path.join(tmpdir, "record")
    cmd = launcher(o, VACED_PREFIX)
    # the replay's tools, built now if stale, not after the executions
    c_tools((["vaced-combine"] if estimate else []) +
            (["vaced-replay"] if estimate or o.get("--uniform-compute") else []))
    outputs_failed = False
    try:
        executions = []                 # (record dir, library JSON) of each
        wall = 0.0
        for i in range(repeat):
            lib_json = os.path.join(tmpdir, f"vaced-{i}.json")
            run_env = dict(env, VACED_JSON=lib_json)
            if trace_dir and i == 0:
                run_env["VACED_TRACE"] = trace_dir
            if estimate:                # with the call sites the classes of segments need
                executions.append((os.path.join(tmpdir, f"execution-{i}"), lib_json))
                run_env.update(VACED_RECORD=executions[-1][0], VACED_RECORD_SITES="1")
            elif record_dir:
                run_env["VACED_RECORD"] = record_dir
            if repeat > 1:
                say(f"execution {i + 1} of {repeat}" + (" (its output follows)" if i == 0 else ""))
            try:
                status, took = run_once(cmd, run_env, o, show=i == 0)
            except KeyboardInterrupt:
                say("interrupted")
                return 130
            wall += took
            if status != 0:
                break
        data = read_json(os.path.join(tmpdir, "vaced-0.json"))
        if data is None:
            say(f"rank 0 reported no prediction ({no_prediction_reason(o, env, status)})")
            return status or 1
        if estimate and status == 0:
            outputs_failed = not add_estimate(data, executions, record_dir, o["target_path"], tmpdir,
                                              wake_up=o.get("--wake-up", False))
        data.setdefault("prediction_interval_s", None)
        if trace_dir:
            say_reading_traces(trace_dir, o)
            add_critical_path(data, trace_dir)
        if o.get("--uniform-compute"):
            outputs_failed = not add_uniform_compute(data, record_dir, o["target_path"], tmpdir) \
                or outputs_failed
        sys.stdout.write(summary_table(data, o, wall, vanilla))
        sys.stdout.flush()
        data.update(host_wall_s=round(wall, 6), command=o["program"],
                    host_cores=o.get("--host-cores"), hostfile=o.get("--hostfile"),
                    vanilla_time_s=vanilla and round(vanilla[0], 6),
                    vanilla_time_source=vanilla and vanilla[1],
                    slowdown=vanilla and round(wall / vanilla[0], 6),
                    exit_status=status)
        if "--json" in o:
            try:
                with open(o["--json"], "w") as f:
                    f.write(to_json(data))
            except OSError as e:
                raise Failure(f"cannot write --json {o['--json']}: {e.strerror}")
        outputs_failed = write_outputs(o, data, trace_dir, tmpdir) or outputs_failed
    finally:
        shutil.rmtree(tmpdir, ignore_errors=True)
    if status != 0:
        say(f"the program exited with status {status}")
    return status or (1 if outputs_failed else 0)


def add_estimate(data, executions, record_dir, target, tmpdir, wake_up):
    """The recorded executions, corrected for the wake-up penalty (wake_up)
    and combined (vaced-combine into record_dir), then replayed: data's
    prediction and ranks become the estimate's, the first execution's
    prediction is kept as prediction_raw_s; a step that fails is one line
    on stderr (False: data keeps the library's prediction)."""
    preds = []
    for _, lib_json in executions:
        d = read_json(lib_json)
        if d is None:
            say("an execution reported no prediction: the prediction is the library's")
            return False
        preds.append(d["prediction_s"])
    os.makedirs(record_dir, exist_ok=True)
    r = subprocess.run([c_tool("vaced-combine")] + ["--wake-up"] * wake_up + [record_dir] +
                       [d for d, _ in executions], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    m = re.search(r"(\d+) of (\d+) ranks", r.stdout)
    w = re.search(r"cold segments ([0-9.]+) % .*, ([0-9.]+) % taken off, ([0-9.]+) % in classes", r.stdout)
    if r.returncode != 0 or not m or (wake_up and not w):
        say("vaced-combine: " + (r.stderr.strip().splitlines() or ["failed"])[-1]
            + "; the prediction is the library's")
        return False
    out = os.path.join(tmpdir, "estimate.json")
    r = subprocess.run([c_tool("vaced-replay"), record_dir, "--target", target, "--json", out, "--quiet"],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    est = read_json(out)
    if r.returncode != 0 or est is None:
        say("the corrected record's replay failed: " + (r.stderr.strip().splitlines() or ["no prediction"])[-1]
            + "; the prediction is the library's")
        return False
    data.update(prediction_raw_s=data["prediction_s"], prediction_s=est["prediction_s"],
                per_rank=est["per_rank"], cold_start_share=est.get("cold_start_share"))
    if est.get("approximate"):
        # the combined segments can reorder what the record fixed (a
        # rendezvous answer, a test): the replay's notes say where
        sys.stderr.write("".join(ln + "\n" for ln in r.stderr.splitlines() if "approximate" in ln))
        data["approximate"] = True
        data["not_modelled"] = "; ".join(x for x in (data.get("not_modelled"), est.get("not_modelled")) if x)
    if wake_up:
        data["wake_up"] = {"cold_share": float(w.group(1)) / 100, "removed_share": float(w.group(2)) / 100,
                           "uncorrected_share": float(w.group(3)) / 100}
    both = preds + [est["prediction_s"]]
    data.update(predictions_s=preds,
                prediction_interval_s=[min(both), max(both)] if len(preds) > 1 else None)
    if len(preds) > 1:
        data["repeat"] = {"executions": len(preds), "combined_ranks": int(m.group(1))}
    with open(os.path.join(record_dir, "estimate.json"), "w") as f:     # for vaced sweep
        json.dump({k: data.get(k) for k in ("prediction_s", "prediction_raw_s", "predictions_s",
                                            "prediction_interval_s", "wake_up")}, f, indent=1)
    return True


def add_uniform_compute(data, record_dir, target, tmpdir):
    """The run re-timed with uniform computation, into
    data["uniform_compute"]; a replay that fails is one line on stderr
    (False)."""
    out = os.path.join(tmpdir, "uniform.json")
    r = subprocess.run([c_tool("vaced-replay"), record_dir, "--target", target, "--json", out, "--quiet",
                        "--uniform-compute"], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        with open(out) as f:
            pred = json.load(f)["prediction_s"]
    except (OSError, ValueError, KeyError):
        pred = None
    if r.returncode != 0 or pred is None:
        say("--uniform-compute: the replay failed: " + (r.stderr.strip().splitlines() or ["no prediction"])[-1])
        return False
    groups = re.search(r"\((\d+) groups? of ranks\)", r.stderr)
    data["uniform_compute"] = {"prediction_s": pred,
                               "change": pred / data["prediction_s"] - 1 if data["prediction_s"] else None,
                               "groups": int(groups.group(1)) if groups else None}
    return True


def say_reading_traces(trace_dir, o):
    """One line before the traces' long reads: what is read, for what."""
    try:
        files = [os.path.join(trace_dir, f) for f in os.listdir(trace_dir)]
        size = sum(os.path.getsize(f) for f in files if os.path.isfile(f))
    except OSError:
        return
    uses = ["the critical path"] + ["the OTF2 archive"] * ("--otf2" in o) + ["the report"] * ("--report" in o)
    say(f"reading {size / 1e6:.0f} MB of traces ({len(files)} files) for " +
        (", ".join(uses[:-1]) + " and " + uses[-1] if len(uses) > 1 else uses[0]))


def add_critical_path(data, trace_dir):
    """The run's critical path from its traces, into data["critical_path"];
    traces it cannot be found in are one line on stderr."""
    vaced_critpath = tool_module("vaced_critpath")
    try:
        data["critical_path"] = vaced_critpath.of_dir(trace_dir)
    except vaced_critpath.PathError as e:
        say(f"critical path: {e}")


def write_outputs(o, data, trace_dir, tmpdir):
    """The OTF2 archive and the report of a finished run, each reported in
    one line; True if one could not be written."""
    failed = False
    if "--otf2" in o:
        vaced_otf2 = tool_module("vaced_otf2")
        try:
            say(vaced_otf2.convert(trace_dir, o["--otf2"]))
        except vaced_otf2.ConvertError as e:
            say(f"--otf2: {e}")
            failed = True
    if "--report" in o:
        vaced_report = tool_module("vaced_report")
        run_json = os.path.join(tmpdir, "run.json")
        with open(run_json, "w") as f:
            f.write(to_json(data))
        try:
            say("report " + vaced_report.make_report(run_json, trace_dir, o["--report"]))
        except vaced_report.ReportError as e:
            say(f"--report: {e}")
            failed = True
    return failed
