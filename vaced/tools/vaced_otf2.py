"""vaced otf2: a run's per-rank traces as an OTF2 archive, in target time.

Imported by the front end (vaced/tools/vaced) for `vaced otf2` and `vaced
run --otf2`.  The traces are read with the standard library
(vaced_traces.py); the archive is written with Debian's python3-otf2, in
this interpreter or, when it has none, in /usr/bin/python3, which runs
this file as a script (vaced_syspy.py).
"""
import bisect
import os
import shutil
import sys

sys.dont_write_bytecode = True          # no __pycache__ in vaced/tools
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vaced_syspy                      # noqa: E402
import vaced_traces                     # noqa: E402

OTF2_HELP = """\
usage: vaced otf2 TRACE_DIR OUT_DIR

Converts the per-rank traces of a run (vaced run --trace TRACE_DIR, or
VACED_TRACE=TRACE_DIR) into an OTF2 archive, OUT_DIR/traces.otf2 with
OUT_DIR/traces.def and OUT_DIR/traces/, for Vampir, ViTE or otf2-print.
Times are the target's, in picoseconds.  Each rank is a location ("rank
R"); its compute spans enter the region "computation", its MPI calls the
region of the MPI function's name ("MPI" where the run kept no call
tables: VACED_CALLS=0), its polling "polling"; each message is an MpiSend on its sender and an MpiRecv on its
receiver (communicator MPI_COMM_WORLD, world ranks, tag 0: the model does
not know tags), with its size.  A receive completed on the target while
its rank computed is placed at the start of the rank's next MPI call,
where the program learns of it.  OUT_DIR is created if missing; an
archive already in it is replaced.

  -h, --help   this text

Needs Debian's python3-otf2 (apt-get install python3-otf2; ./build.sh
installs it).

Exit status: 0 written; 2 a usage error; 1 unreadable traces, an
unwritable OUT_DIR or no OTF2 library.

Example:
  vaced run -n 4 --target paper-16 --trace tr -- ./ring 8 10
  vaced otf2 tr tr-otf2 && otf2-print tr-otf2/traces.otf2 | head
"""

ARCHIVE = "traces"

# Events at one time: spans end and start around the MPI calls, so that a
# message at a call's first or last instant is inside the call.
LEAVE_OTHER, ENTER_MPI, MESSAGE, LEAVE_MPI, ENTER_OTHER = range(5)


class ConvertError(Exception):
    """Traces that cannot be converted, or an archive that cannot be written."""


def in_call(starts, mpi, t):
    """Whether time t is inside one of the MPI calls `mpi` (starting at `starts`)."""
    i = bisect.bisect_right(starts, t) - 1
    return i >= 0 and mpi[i][1] <= t <= mpi[i][2]


def call_names(rank):
    """A function naming the MPI function whose call holds a span [a, b]
    of rank's ("MPI" where no call line does)."""
    calls = sorted((a, b, rank.sites[site][0]) for site, a, b in rank.calls)
    starts = [c[0] for c in calls]

    def name(a, b):
        i = bisect.bisect_right(starts, a) - 1
        return calls[i][2] if i >= 0 and b <= calls[i][1] else "MPI"
    return name


def rank_events(rank):
    """A rank's events in time order: (t, order, what, detail); `what` is
    enter/leave (detail: the span kind, or for an MPI call its function's
    name) or send/recv (detail: peer, bytes).  A receive completed while
    the rank computed moves to the start of its next MPI call; a message
    in no call gets a call of no length."""
    ev = []
    name = call_names(rank)
    for kind, a, b in rank.spans:
        is_mpi = kind == "mpi"
        region = name(a, b) if is_mpi else kind
        ev.append((a, ENTER_MPI if is_mpi else ENTER_OTHER, "enter", region))
        ev.append((b, LEAVE_MPI if is_mpi else LEAVE_OTHER, "leave", region))
    mpi = [s for s in rank.spans if s[0] == "mpi"]
    starts = [s[1] for s in mpi]
    msgs = [(t, "send", peer, size) for peer, _, size, t in rank.sends]
    for peer, _, size, t, _ in rank.recvs:
        later = bisect.bisect_right(starts, t)
        if not in_call(starts, mpi, t) and later < len(mpi):
            t = starts[later]
        msgs.append((t, "recv", peer, size))
    bare = set()
    for t, what, peer, size in msgs:
        ev.append((t, MESSAGE, what, (peer, size)))
        if not in_call(starts, mpi, t):
            bare.add(t)
    for t in bare:
        ev.append((t, ENTER_MPI, "enter", "MPI"))
        ev.append((t, LEAVE_MPI, "leave", "MPI"))
    ev.sort(key=lambda e: (e[0], e[1]))
    return ev


def prepare_out_dir(d):
    """Creates d if missing and removes an archive left in it;
    vaced_syspy.Failure or ConvertError with the reason if it cannot."""
    vaced_syspy.writable_dir(d)
    try:
        for name in (ARCHIVE + ".otf2", ARCHIVE + ".def"):
            if os.path.lexists(os.path.join(d, name)):
                os.unlink(os.path.join(d, name))
        if os.path.isdir(os.path.join(d, ARCHIVE)):
            shutil.rmtree(os.path.join(d, ARCHIVE))
    except OSError as e:
        raise ConvertError(f"{d}: cannot replace the archive in it: {e.strerror}")


def write_archive(ranks, out_dir):
    """Writes the archive (needs otf2); returns (events, messages sent)."""
    import otf2
    from otf2.enums import GroupType, LocationGroupType, LocationType, Paradigm, RegionRole

    with otf2.writer.open(out_dir, archive_name=ARCHIVE, timer_resolution=10 ** 12) as trace:
        defs = trace.definitions
        root = defs.system_tree_node("target")
        regions = {
            "compute": defs.region("computation", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER),
            "poll": defs.region("polling", region_role=RegionRole.FUNCTION, paradigm=Paradigm.USER),
        }

        def region(detail):     # an MPI function's, made when first seen
            if detail not in regions:
                regions[detail] = defs.region(detail, region_role=RegionRole.FUNCTION, paradigm=Paradigm.MPI)
            return regions[detail]
        locations = []
        for r in ranks:
            group = defs.location_group(f"rank {r.rank}", location_group_type=LocationGroupType.PROCESS,
                                        system_tree_parent=root)
            locations.append(defs.location(f"rank {r.rank}", type=LocationType.CPU_THREAD, group=group))
        defs.group("COMM_LOCATIONS", group_type=GroupType.COMM_LOCATIONS, paradigm=Paradigm.MPI,
                   members=locations)
        world = defs.comm("MPI_COMM_WORLD", group=defs.group(
            "MPI_COMM_WORLD", group_type=GroupType.COMM_GROUP, paradigm=Paradigm.MPI,
            members=list(range(len(ranks)))))
        count = sends = 0
        for r, loc in zip(ranks, locations):
            w = trace.event_writer_from_location(loc)
            for t, _, what, detail in rank_events(r):
                if what == "enter":
                    w.enter(t, region(detail))
                elif what == "leave":
                    w.leave(t, region(detail))
                elif what == "send":
                    w.mpi_send(t, detail[0], world, 0, detail[1])
                    sends += 1
                else:
                    w.mpi_recv(t, detail[0], world, 0, detail[1])
                count += 1
    return count, sends


def write_here(trace_dir, out_dir):
    """Reads trace_dir's traces and writes their archive in out_dir, in
    this interpreter (which has otf2), preparing out_dir only once the
    traces are read; returns the line that says what was written.
    ConvertError if it cannot."""
    try:
        ranks = vaced_traces.read_dir(trace_dir)
        prepare_out_dir(out_dir)
    except (vaced_syspy.Failure, vaced_traces.TraceError) as e:
        raise ConvertError(str(e))
    try:
        events, sends = write_archive(ranks, out_dir)
    except Exception as e:              # the library's errors have no common base
        raise ConvertError(f"{out_dir}: writing the OTF2 archive failed: {e}")
    return (f"OTF2 archive {os.path.join(out_dir, ARCHIVE + '.otf2')}: {len(ranks)} ranks, "
            f"{events} events, {sends} messages")


def convert(trace_dir, out_dir):
    """Writes the archive of trace_dir's traces in out_dir; returns the
    line that says what was written.  ConvertError if it cannot.  Another
    interpreter that has otf2 runs write_here as this file's script: it
    reads the traces, once (a run's traces take seconds to parse)."""
    try:
        vaced_traces.trace_files(trace_dir)     # a missing trace is said first
        how = vaced_syspy.interpreter("otf2", "writing OTF2 needs Debian's python3-otf2", "python3-otf2")
        if how != "here":
            return vaced_syspy.run_script(how, os.path.abspath(__file__), [trace_dir, out_dir])
    except (vaced_syspy.Failure, vaced_traces.TraceError) as e:
        raise ConvertError(str(e))
    return write_here(trace_dir, out_dir)


def main(argv):
    """vaced otf2 TRACE_DIR OUT_DIR; errors are vaced_cli's."""
    import vaced_cli as cli
    got = cli.options(argv, (), "otf2", OTF2_HELP)
    if got is None:
        return 0
    _, pos = got
    if len(pos) != 2:
        raise cli.Usage("needs a trace directory and an output directory: vaced otf2 TRACE_DIR OUT_DIR")
    try:
        print(convert(os.path.abspath(pos[0]), os.path.abspath(pos[1])))
    except ConvertError as e:
        raise cli.Failure(str(e))
    return 0


if __name__ == "__main__":      # run by convert() in an interpreter that has otf2
    try:
        print(write_here(sys.argv[1], sys.argv[2]))
    except ConvertError as e:
        print(e)
        sys.exit(1)
