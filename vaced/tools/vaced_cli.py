"""vaced_cli: the command-line front end of VACED (see MAIN_HELP below),
run by vaced/tools/vaced.

Dispatches the commands and holds what they share: the errors (Usage,
Failure), option parsing (ArgParser), targets and their check, and the C
tools built on first use (c_tool).  It checks a target description
itself; `run` is vaced_run.py (its summary vaced_summary.py), the other
commands vaced_*.py next to this file or the programs it starts
(vaced-calibrate, vaced-replay).  Target files are checked by
build/tools/vaced-check, a small C program built on first use from
vaced/tools/vaced-check.c and the library's own parser (vaced/src), so the
check is exactly the one the ranks make at MPI_Init.  Python 3 standard
library only.
"""
import argparse
import concurrent.futures
import glob
import os
import platform
import re
import subprocess
import sys
import tempfile

TOOLS = os.path.dirname(os.path.realpath(__file__))
ROOT = os.path.dirname(os.path.dirname(TOOLS))
TOPO_DIR = os.path.join(ROOT, "topo")
VACED_PREFIX = os.path.join(ROOT, "install", "vaced")

MAIN_HELP = """\
usage: vaced run -n P --target T [options] -- PROGRAM [ARGS...]
       vaced check-target T [-n P]
       vaced calibrate --name NAME --output FILE [options]
       vaced replay DIR --target T [--json FILE] [--quiet] [--uniform-compute]
       vaced sweep DIR --target T --vary KEY=V1,V2,... [--targets T1,T2,...] [options]
       vaced combine [--wake-up] [--median] OUT_DIR RECORD_DIR [RECORD_DIR...]
       vaced export-simgrid T -n P [-o DIR]
       vaced otf2 TRACE_DIR OUT_DIR
       vaced report DIR --json FILE [--trace TRACE_DIR]
       vaced critical-path TRACE_DIR [--json FILE]
       vaced --help | vaced run --help | vaced check-target --help | vaced calibrate --help
             | vaced sweep --help | vaced export-simgrid --help | vaced otf2 --help
             | vaced report --help | vaced critical-path --help

Predicts an MPI program's runtime on a target machine by running it with
VACED's patched MPICH on this host (docs/usage.md).

  run            run PROGRAM on P ranks and print the prediction summary
  check-target   validate a target description and summarise it
  calibrate      measure this host (or a hostfile's hosts) with unpatched
                 MPICH and write a target description of it
                 (vaced/tools/vaced-calibrate; its options pass through)
  replay         re-time an execution recorded with run --record DIR on
                 another target, without running the program again
                 (docs/replay.md)
  combine        several recorded executions as one record, each segment
                 the least of its measurements (--median: their median);
                 --wake-up first takes the wake-up penalty out
                 (vaced-combine; docs/replay.md#repeated-executions)
  sweep          replay such a record on variants of a target (keys varied
                 over values, other targets) and tabulate the predictions
                 and each key's effect (vaced/tools/vaced_sweep.py)
  export-simgrid write a SimGrid platform, host file and smpirun options
                 describing target T for P ranks, for SMPI side by side
                 (vaced/tools/vaced_export_simgrid.py)
  otf2           convert a run's traces (run --trace) into an OTF2 archive
                 for Vampir or ViTE (vaced/tools/vaced_otf2.py)
  report         write a run's report, an HTML page with plots, from its
                 JSON and traces (vaced/tools/vaced_report.py)
  critical-path  the chain of computation and messages across ranks that
                 ends at a traced run's prediction: its length, terms,
                 ranks and hops (vaced/tools/vaced_critpath.py)

Examples:
  vaced check-target paper-1024 -n 1024
  vaced run -n 16 --target paper-16 -- ./jacobi2d 1024 200
  vaced calibrate --name here --output here.topo --mpiexec-args "-bind-to core"
  vaced sweep rec --target paper-16 --vary bnet=0.5x,1x,2x --vary "latency=5 us,15 us"
"""


CHECK_HELP = """\
usage: vaced check-target T [-n P]

Loads target T with the library's own parser for a job of P ranks and
prints a summary: name, cores and nodes, the nodes the job uses, topology
and its keys, how many rank pairs are how many hops apart, bandwidths,
latencies and the eager threshold.  Without -n, P is the target's core
count (the whole machine; at most 1048576).  T is resolved as in `vaced run`.

Exit status: 0 valid; 1 invalid, with FILE:LINE: reason on stderr;
2 usage error or target not found.

Examples:
  vaced check-target paper-16
  vaced check-target ./my-cluster.topo -n 256
"""


class Usage(Exception):
    """A mistake on the command line: exit 2."""


class Failure(Exception):
    """A failed check or run: exit 1."""


def say(msg):
    sys.stderr.write("vaced: " + msg + "\n")    # one write: threads' lines stay whole
    sys.stderr.flush()


def page_reporting_devices(sysfs=None):
    """The virtio_balloon devices that report free pages to the host
    (VIRTIO_BALLOON_F_REPORTING, feature bit 5)."""
    drv = os.path.join(sysfs or os.environ.get("VACED_SYSFS", "/sys"), "bus/virtio/drivers/virtio_balloon")
    found = []
    for d in sorted(glob.glob(os.path.join(drv, "virtio*"))):
        try:
            with open(os.path.join(d, "features")) as f:
                bits = f.read().strip()
        except OSError:
            continue
        if len(bits) > 5 and bits[5] == "1":
            found.append(os.path.basename(d))
    return found


def note_page_reporting():
    """On a VM whose host takes freed memory back, a program's first
    touches cost 2 us a page in one run and 10 in the next: say so, since
    that moves the CPU time VACED measures (and real runs) by up to 20 %."""
    devs = page_reporting_devices()
    if devs:
        say(f"note: this machine reports freed memory to its host ({', '.join(devs)}, virtio_balloon free page "
            f"reporting): first touches of memory cost more in some runs than in others, which moved "
            f"memory-hungry programs' compute time (docs/usage.md, comparing with a real run). To stop it while "
            f"you measure, as root: echo {devs[0]} > /sys/bus/virtio/drivers/virtio_balloon/unbind "
            f"(and .../bind after)")


def positive_int(opt, value):
    if not re.fullmatch(r"[0-9]+", value) or int(value) < 1:
        raise Usage(f"{opt} needs a whole number of at least 1, got '{value}'")
    return int(value)


def resolve_target(spec):
    """A path (with a '/'), else NAME.topo in $VACED_TOPO_DIR or topo/ (the
    library's rule), else a file of that name here."""
    if "/" in spec:
        candidates = [spec]
    else:
        dirs = [d for d in (os.environ.get("VACED_TOPO_DIR"), TOPO_DIR) if d]
        candidates = [os.path.join(d, spec + ".topo") for d in dirs] + [spec]
    for c in candidates:
        if os.path.isfile(c):
            return c
    names = sorted(os.path.basename(p)[:-5] for p in glob.glob(os.path.join(TOPO_DIR, "*.topo")))
    raise Usage(f"target '{spec}' not found: give a file path or one of the names in "
                f"{TOPO_DIR}: {', '.join(names)}")


def checker():
    """build/tools/vaced-check, (re)built when a source is newer."""
    return c_tool("vaced-check")


def c_tool(name):
    """build/tools/NAME from vaced/tools/NAME.c and the library's sources,
    (re)built when a source, or this file's way of building it, is newer."""
    binary = os.path.join(ROOT, "build", "tools", name)
    sources = [os.path.join(TOOLS, name + ".c")] + \
        glob.glob(os.path.join(ROOT, "vaced", "src", "*", "*.[ch]")) + \
        glob.glob(os.path.join(ROOT, "vaced", "include", "*.h"))
    if os.path.exists(binary) and os.path.getmtime(binary) >= \
            max(os.path.getmtime(s) for s in sources + [os.path.realpath(__file__)]):
        return binary
    os.makedirs(os.path.dirname(binary), exist_ok=True)
    # an optimized build takes seconds: a pause that says nothing looks hung
    say(f"building {os.path.relpath(binary, ROOT)} (after a change to its sources)"
        if os.path.exists(binary) else f"building {os.path.relpath(binary, ROOT)} (once)")
    fd, tmp = tempfile.mkstemp(dir=os.path.dirname(binary), prefix="." + name + ".")
    os.close(fd)
    cc = os.environ.get("CC", "cc").split()

    def command(opt):
        return cc + ["-std=gnu11"] + opt + ["-I" + os.path.join(ROOT, "vaced", "include"),
                                            "-I" + os.path.join(ROOT, "vaced", "src"), "-o", tmp] + \
            [s for s in sources if s.endswith(".c")] + ["-lm"]
    # On x86-64, -O3 and link-time optimization inline the model's small
    # calls across its files.  The arithmetic stays libvaced's: no
    # fast-math, and without -march the compiler has no fused multiply-add
    # to form where inlining brings a product and a sum together (arm64
    # has one: there the tool is built a file at a time, as libvaced is,
    # so that a replay repeats a live run bit for bit).  A compiler or
    # linker without LTO builds it as before.
    fast = platform.machine() in ("x86_64", "AMD64") and \
        not any(w.startswith(("-march", "-mfma")) for w in cc)
    try:
        r = subprocess.run(command(["-O3", "-flto"]), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True) if fast else None
        if r is None or r.returncode != 0:
            r = subprocess.run(command(["-O2"]), stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                               text=True)
    except OSError as e:
        os.unlink(tmp)
        raise Failure(f"cannot build {name}: {e} (install a C compiler, or set CC)")
    if r.returncode != 0:
        if os.path.exists(tmp):         # the compiler removes it on some errors
            os.unlink(tmp)
        raise Failure("cannot build " + binary + ":\n" + r.stdout +
                      "(run ./build.sh, which installs the compiler and libpfm4-dev)")
    os.chmod(tmp, 0o755)
    os.replace(tmp, binary)
    return binary


def c_tools(names):
    """c_tool of each name, the stale ones built side by side (a compiler
    process each); their paths."""
    with concurrent.futures.ThreadPoolExecutor(max(1, len(names))) as pool:
        return list(pool.map(c_tool, names))


def check_target(path, ranks, quiet):
    """Runs the checker; raises Failure with its FILE:LINE: reason."""
    r = subprocess.run([checker()] + (["-q"] if quiet else []) + [path, str(ranks)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise Failure(r.stderr.strip() or f"target check failed (status {r.returncode})")
    return r.stdout


def cmd_check_target(argv):
    ap = ArgParser("check-target", CHECK_HELP, prefix="check-target: ")
    ap.add_argument("-n", type=positive("-n"), default=0)
    got = ap.parse(argv)
    if got is None:
        return 0
    o, pos = got
    if len(pos) > 1:
        raise Usage(f"check-target takes one target, got '{pos[0]}' and '{pos[1]}'")
    if not pos:
        raise Usage("check-target needs a target: vaced check-target paper-16 [-n P]")
    print(check_target(resolve_target(pos[0]), o.n, quiet=False), end="")
    return 0


class ArgParser(argparse.ArgumentParser):
    """argparse as the commands use it: the help is the command's own
    text; a mistake raises Usage, in the words the commands have always
    used; no abbreviated options; arguments that are not options come back
    in order, for the command to check."""

    def __init__(self, command, help_text, prefix=""):
        super().__init__(prog="vaced " + command, add_help=False, allow_abbrev=False)
        self.command, self.help_text, self.prefix = command, help_text, prefix
        self.add_argument("-h", "--help", action="store_true")

    def error(self, message):
        m = re.match(r"argument ([^:]+): expected one argument", message)
        if m:
            raise Usage(f"{m.group(1).split('/')[-1]} needs a value (see vaced {self.command} --help)")
        m = re.match(r"argument [^:]+: (.*)", message)
        raise Usage(m.group(1) if m else f"{self.prefix}{message}")

    def parse(self, argv):
        """(options, other arguments), or None once the help is printed."""
        if {"-h", "--help"} & set(argv):
            print(self.help_text, end="")
            return None
        o, rest = self.parse_known_args(argv)
        for a in rest:
            if a.startswith("-") and a != "-":
                raise Usage(f"{self.prefix}unknown option '{a}' (see vaced {self.command} --help)")
        return o, rest


def positive(opt):
    """An argparse type: a whole number of at least 1, named in the error."""
    def check(value):
        try:
            return positive_int(opt, value)
        except Usage as e:
            raise argparse.ArgumentTypeError(str(e))
    return check


def options(argv, valued, command, help_text):
    """The {name: value} of argv's options of `valued` and its other
    arguments, in order, or None once the help is printed (the commands
    vaced_*.py run)."""
    ap = ArgParser(command, help_text)
    for opt in valued:
        ap.add_argument(opt, dest=opt)
    got = ap.parse(argv)
    if got is None:
        return None
    ns, pos = got
    return {k: v for k, v in vars(ns).items() if k.startswith("-") and v is not None}, pos


def cmd_replay(argv):
    """vaced replay DIR --target T ...: the C replay does the work; its
    options and errors are its own."""
    if {"-h", "--help"} & set(argv):
        os.execv(c_tool("vaced-replay"), ["vaced-replay", "--help"])
    args = list(argv)
    for i, a in enumerate(args[:-1]):
        if a == "--target":
            args[i + 1] = resolve_target(args[i + 1])
    os.execv(c_tool("vaced-replay"), ["vaced-replay"] + args)


def tool_module(name):
    """vaced/tools/NAME.py, imported (no __pycache__ in vaced/tools)."""
    sys.dont_write_bytecode = True
    if TOOLS not in sys.path:
        sys.path.insert(0, TOOLS)
    return __import__(name)


def cmd_module(command, name, argv):
    """A command whose module, next to this file, does the work with this
    module's Usage and Failure; its errors are "vaced COMMAND: reason"."""
    try:
        return tool_module(name).main(argv)
    except Usage as e:
        print(f"vaced {command}: {e}", file=sys.stderr, flush=True)
        return 2
    except Failure as e:
        print(f"vaced {command}: {e}", file=sys.stderr, flush=True)
        return 1


def cmd_calibrate(argv):
    """vaced-calibrate parses, checks and documents its own options."""
    if not {"-h", "--help"} & set(argv):
        note_page_reporting()
    os.execv(sys.executable, [sys.executable, os.path.join(TOOLS, "vaced-calibrate")] + argv)


COMMANDS = {
    "run": lambda argv: tool_module("vaced_run").cmd_run(argv),
    "check-target": cmd_check_target,
    "calibrate": cmd_calibrate,
    "replay": cmd_replay,
    "combine": lambda argv: os.execv(c_tool("vaced-combine"), ["vaced-combine"] + list(argv)),
    "sweep": lambda argv: cmd_module("sweep", "vaced_sweep", argv),
    "export-simgrid": lambda argv: cmd_module("export-simgrid", "vaced_export_simgrid", argv),
    "otf2": lambda argv: cmd_module("otf2", "vaced_otf2", argv),
    "report": lambda argv: cmd_module("report", "vaced_report", argv),
    "critical-path": lambda argv: cmd_module("critical-path", "vaced_critpath", argv),
}


def main(argv):
    try:
        if not argv:
            sys.stderr.write(MAIN_HELP)
            return 2
        if argv[0] in ("-h", "--help", "help"):
            print(MAIN_HELP, end="")
            return 0
        if argv[0] not in COMMANDS:
            raise Usage(f"unknown command '{argv[0]}' (commands: {', '.join(COMMANDS)}; see vaced --help)")
        return COMMANDS[argv[0]](argv[1:])
    except Usage as e:
        say(str(e))
        return 2
    except Failure as e:
        say(str(e))
        return 1
    except KeyboardInterrupt:
        say("interrupted")
        return 130

