"""vaced critical-path: the chain of work and messages, across ranks, that
ends at the prediction (docs/critical-path.md).  Python 3 standard library
only; imported by the front end (vaced/tools/vaced) for `vaced
critical-path`, `vaced run` and `vaced report`.

From the end of the slowest rank it walks back through that rank's
timeline.  The trace accounts for every picosecond of a rank: compute and
poll spans, and inside MPI calls the `step` lines (its own overheads and
copies) and `wait` lines (a wait's jump, split along the chain of the
completion that ended it, as the breakdown splits it).  Time on a rank is
the rank's own; a wait whose awaited packet landed after the wait began
was ended by that packet, so the path crosses to its sender at the moment
the packet left it, the chain's terms (overheads, copies, network)
covering the crossing.  Times stay continuous, so the path's length is the
prediction exactly, and its terms add up to it.
"""
import bisect
import json
import os
import subprocess
import sys

sys.dont_write_bytecode = True          # no __pycache__ in vaced/tools
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import vaced_traces                     # noqa: E402

TERMS = vaced_traces.TERMS
PS = 10 ** 12

CRITPATH_HELP = """\
usage: vaced critical-path TRACE_DIR [--json FILE]

Finds the critical path of a traced run (vaced run --trace TRACE_DIR, or
VACED_TRACE): the chain of computation and messages, across ranks, that
ends at the prediction.  Walking back from the slowest rank's end, time on
a rank is its own (computation, polling, overheads, copies) until a wait
that a late packet ended; the path then crosses to that packet's sender at
the moment it left.  Its length equals the prediction.  Prints its length,
its composition by the breakdown's terms, and the ranks and messages it
crosses (docs/critical-path.md).

  --json FILE   also write the path as JSON (the run JSON's critical_path)
  -h, --help    this text

Exit status: 0 found; 2 a usage error; 1 unreadable or incomplete traces
(FILE:LINE: reason).

Example:
  vaced run -n 4 --target paper-16 --trace tr -- ./ring 8 10
  vaced critical-path tr --json path.json
"""


class PathError(Exception):
    """Traces the path cannot be found in: FILE[:LINE]: reason."""


# --- A rank's timeline as pieces -----------------------------------------

class Piece:
    """[start, end] of a rank's clock: its own work of one `term`, or a
    wait's jump (`wait`: a vaced_traces.Wait).  `span` is the index in the
    rank's spans of the span it lies in (the MPI call, for steps and waits):
    where a composition by call site will look its call site up."""
    __slots__ = ("start", "end", "term", "wait", "span")

    def __init__(self, start, end, term=None, wait=None, span=None):
        self.start, self.end, self.term, self.wait, self.span = start, end, term, wait, span


def pieces_of(r):
    """The rank's pieces in time order, tiling [0, its end]; time of an MPI
    call no step or wait accounts for becomes a piece of term None."""
    calls = [(a, b, i) for i, (k, a, b) in enumerate(r.spans) if k == "mpi"]
    starts = [c[0] for c in calls]

    def call_of(t):
        i = bisect.bisect_right(starts, t) - 1
        return calls[i][2] if i >= 0 and calls[i][0] <= t <= calls[i][1] else None

    raw = [Piece(a, b, k, span=i) for i, (k, a, b) in enumerate(r.spans) if k != "mpi" and b > a]
    for a, mid, b, t1, t2, _ in r.steps:
        raw += [Piece(a, mid, t1, span=call_of(a)), Piece(mid, b, t2, span=call_of(a))]
    raw += [Piece(w.from_ps, w.to_ps, wait=w, span=call_of(w.from_ps)) for w in r.waits]
    raw.sort(key=lambda p: (p.start, p.end))
    out, t = [], 0
    for p in raw:
        if p.end <= p.start or p.end <= t:
            continue
        if p.start > t:                 # unaccounted: a trace of an older library
            out.append(Piece(t, p.start, None, span=call_of(t)))
        elif p.start < t:
            if p.wait is not None:
                raise PathError(f"{r.path}:{p.wait.line}: this wait overlaps the rank's "
                                "earlier time")
            p.start = t
        out.append(p)
        t = p.end
    if t < r.end_ps:
        out.append(Piece(t, r.end_ps, None, span=call_of(t)))
    return out


# --- The chain of a wait, as breakdown.c splits it -----------------------

def chain_parts(chain, lo, hi):
    """[(term, a, b)] in time order: the chain's spans within [lo, hi]; before
    its begin its lead, after its end its last span's term
    (vaced_breakdown_split)."""
    lead, begin, spans = chain
    edges = [(lead, None, begin)]
    prev = begin
    for term, until in spans:
        edges.append((term, prev, until))
        prev = until
    edges.append((spans[-1][0] if spans else lead, prev, None))
    out = []
    for term, a, b in edges:
        a = lo if a is None else max(a, lo)
        b = hi if b is None else min(b, hi)
        if b > a:
            out.append((term, a, b))
    return out


def origin(w, t):
    """Where the path crosses from wait w, reached at time t: (time, packet)
    when a packet from w's peer that landed after the wait began (the wait
    waited for it) left its sender before t; else None."""
    if w.dir is None:
        return None
    if w.sent_ps is not None and w.landed_ps is not None and w.landed_ps > w.from_ps \
            and w.sent_ps < t:
        return w.sent_ps, "data" if w.dir == "recv" else "answer"
    if w.rts_sent_ps is not None and w.rts_landed_ps is not None and w.rts_landed_ps > w.from_ps \
            and w.rts_sent_ps < t:
        return w.rts_sent_ps, "request"
    return None


# --- The walk -------------------------------------------------------------

class Path:
    """The critical path, in time order: segments [(rank, start_ps, end_ps,
    term, span)] tiling [0, length_ps]; hops [dict] where it crossed ranks;
    unattributed_ps, time in MPI calls no step or wait accounted for (in
    the composition as late_sender)."""

    def __init__(self):
        self.segments, self.hops = [], []
        self.end_rank, self.length_ps, self.unattributed_ps = None, 0, 0

    def composition(self):
        """{term: ps}, every term."""
        comp = dict.fromkeys(TERMS, 0)
        for _, a, b, term, _ in self.segments:
            comp[term] += b - a
        return comp

    def visits(self):
        """[(rank, start_ps, end_ps)]: consecutive segments of one rank merged."""
        out = []
        for rank, a, b, _, _ in self.segments:
            if out and out[-1][0] == rank and out[-1][2] == a:
                out[-1] = (rank, out[-1][1], b)
            else:
                out.append((rank, a, b))
        return out

    def by_rank(self):
        """{rank: (total_ps, compute_ps)} of the path's time on each rank."""
        out = {}
        for rank, a, b, term, _ in self.segments:
            tot, comp = out.get(rank, (0, 0))
            out[rank] = (tot + b - a, comp + (b - a if term == "compute" else 0))
        return out


def find(ranks):
    """The critical path of a run's traces (vaced_traces.read_dir)."""
    if not ranks:
        raise PathError("no ranks")
    if not any(r.steps or r.waits for r in ranks) and any(k == "mpi" for r in ranks for k, _, _ in r.spans):
        raise PathError(f"{ranks[0].path}: no step or wait lines: traces of a library older than the "
                        "critical path (run the program again)")
    pieces = {r.rank: pieces_of(r) for r in ranks}
    ends = {rk: [p.end for p in ps_] for rk, ps_ in pieces.items()}
    path = Path()
    end_rank = max(ranks, key=lambda r: (r.end_ps, -r.rank))   # the first maximum, as the library's
    path.end_rank, path.length_ps = end_rank.rank, end_rank.end_ps
    rank, t = end_rank.rank, end_rank.end_ps
    back = []                           # segments, last first
    by_rank = {r.rank: r for r in ranks}
    while t > 0:
        i = bisect.bisect_left(ends[rank], t)
        if i == len(ends[rank]):
            # a sender whose message left its injection queue after the
            # rank ended: the breakdown's late_sender too
            end = ends[rank][-1] if ends[rank] else 0
            back.append((rank, end, t, "late_sender", None))
            t = end
            continue
        p = pieces[rank][i]
        if p.wait is None:
            term = p.term or "late_sender"
            if p.term is None:
                path.unattributed_ps += t - p.start
            back.append((rank, p.start, t, term, p.span))
            t = p.start
            continue
        w = p.wait
        if t > w.cut_ps:                # the CPU's turns after the latest completion
            lo = max(w.cut_ps, p.start)
            mid = w.cut_ps + w.ovh_ps
            for term, a, b in (("copy", max(mid, lo), t), ("recv_overhead", lo, min(mid, t))):
                if b > a:
                    back.append((rank, a, b, term, p.span))
            t = lo
            if t <= p.start:
                continue
        o = origin(w, t)
        lo = o[0] if o else p.start
        back += [(rank, a, b, term, p.span) for term, a, b in reversed(chain_parts(w.chain, lo, t))]
        if o:
            if not 0 <= w.peer < len(ranks):
                raise PathError(f"{by_rank[rank].path}:{w.line}: rank {w.peer} is not in the run")
            sender, receiver = (w.peer, rank) if w.dir == "recv" else (rank, w.peer)
            path.hops.append({"from": w.peer, "to": rank, "left_ps": o[0], "reached_ps": t,
                              "packet": o[1], "message": (sender, receiver, w.seq)})
            rank = w.peer
        t = lo
    path.segments = back[::-1]
    path.hops.reverse()
    return path


# --- By call site -----------------------------------------------------------

OUTSIDE = "computation outside MPI calls"


def site_of(r, span, starts):
    """(key, collective) of span `span` of rank r: key the MPI call site
    (function, offset, module) whose call holds it, OUTSIDE for the
    program's computation, or None (an MPI call the trace does not name:
    VACED_CALLS=0); collective whether that call is a blocking collective."""
    if span is None:
        return None, False
    kind, a, b = r.spans[span]
    i = bisect.bisect_right(starts, a) - 1
    if i >= 0 and b <= r.calls_sorted[i][2]:
        site = r.calls_sorted[i][0]
        return r.sites[site], site in r.collective_sites
    return (OUTSIDE if kind in ("compute", "poll") else None), False


def attribute(path, ranks):
    """Each segment's call site (path.sites, in the segments' order); a
    blocking collective's late_sender becomes collective_wait, as in the
    breakdown (docs/breakdown.md#collectives)."""
    by_rank = {r.rank: r for r in ranks}
    starts = {}
    for r in ranks:
        r.calls_sorted = sorted(r.calls, key=lambda c: c[1])
        starts[r.rank] = [c[1] for c in r.calls_sorted]
    path.sites = []
    for i, (rank, a, b, term, span) in enumerate(path.segments):
        key, collective = site_of(by_rank[rank], span, starts[rank])
        if collective and term == "late_sender":
            path.segments[i] = (rank, a, b, "collective_wait", span)
        path.sites.append(key)


def symbolize(keys):
    """{(function, offset, module): (caller, file, line)} by addr2line (None
    where it cannot say), one run per object file."""
    names = {}
    by_module = {}
    for k in keys:
        by_module.setdefault(k[2], []).append(k)
    for module, ks in by_module.items():
        out = []
        if module:
            try:
                out = subprocess.run(["addr2line", "-f", "-C", "-e", module] + [k[1] for k in ks],
                                     capture_output=True, text=True, timeout=60).stdout.splitlines()
            except (OSError, subprocess.SubprocessError):
                out = []
        for i, k in enumerate(ks):
            fn, loc = (out[2 * i], out[2 * i + 1]) if len(out) >= 2 * i + 2 else ("??", "??:0")
            file, _, line = loc.split(" (")[0].rpartition(":")
            names[k] = (None if fn == "??" else fn, None if file in ("", "??") else file,
                        int(line) if line.isdigit() and int(line) > 0 else None)
    return names


def by_call_site(path):
    """The path's time by the program's MPI call site it is spent in, and
    by computation outside MPI calls (after attribute): [dict], heaviest
    first; their total_s add up to the path's length."""
    sums = {}
    for (rank, a, b, term, span), key in zip(path.segments, path.sites):
        terms = sums.setdefault(key, dict.fromkeys(TERMS, 0))
        terms[term] += b - a
    names = symbolize([k for k in sums if isinstance(k, tuple)])
    rows = []
    for key, terms in sums.items():
        total = sum(terms.values())
        row = {"function": None, "caller": None, "file": None, "line": None, "module": None, "offset": None}
        if key == OUTSIDE:
            row["site"] = OUTSIDE
        elif key is None:
            row["site"] = "MPI calls the trace does not name"
        else:
            caller, file, line = names[key]
            row.update(function=key[0], caller=caller, file=file, line=line, module=key[2] or None,
                       offset=key[1])
            where = f"{os.path.basename(file)}:{line}" if file and line else \
                f"{os.path.basename(key[2] or '?')}+{key[1]}"
            row["site"] = key[0] + (f" in {caller}" if caller else "") + f" ({where})"
        row.update(total_s=s(total), share=round(total / path.length_ps, 6) if path.length_ps else 0.0,
                   breakdown={k: s(v) for k, v in terms.items()})
        rows.append(row)
    rows.sort(key=lambda x: -x["total_s"])
    return rows


# --- Output ---------------------------------------------------------------

def s(v):
    """Picoseconds as seconds, 12 decimals (exact in the JSON's text)."""
    return round(v / PS, 12)


def to_dict(path, ranks):
    """The JSON's critical_path."""
    attribute(path, ranks)
    comp = path.composition()
    return {
        "length_s": s(path.length_ps),
        "end_rank": path.end_rank,
        "breakdown": {k: s(v) for k, v in comp.items()},
        "ranks": [v[0] for v in path.visits()],
        "visits": [{"rank": r, "start_s": s(a), "end_s": s(b)} for r, a, b in path.visits()],
        "hops": [{"from": h["from"], "to": h["to"], "packet": h["packet"],
                  "message": {"sender": h["message"][0], "receiver": h["message"][1], "seq": h["message"][2]},
                  "left_s": s(h["left_ps"]), "reached_s": s(h["reached_ps"])} for h in path.hops],
        "by_rank": [{"rank": r, "total_s": s(tot), "compute_s": s(c)}
                    for r, (tot, c) in sorted(path.by_rank().items())],
        "unattributed_s": s(path.unattributed_ps),
        "call_sites": by_call_site(path),
    }


def of_dir(trace_dir):
    """The critical path of a trace directory as the JSON's dict; PathError
    (FILE:LINE: reason) if the traces cannot give it."""
    try:
        ranks = vaced_traces.read_dir(trace_dir)
        return to_dict(find(ranks), ranks)
    except vaced_traces.TraceError as e:
        raise PathError(str(e))


def abbreviated(seq, head=12, tail=4):
    seq = [str(x) for x in seq]
    if len(seq) <= head + tail + 1:
        return " -> ".join(seq)
    return " -> ".join(seq[:head]) + f" -> ... ({len(seq) - head - tail} more) -> " + " -> ".join(seq[-tail:])


def summary(cp):
    """A few lines for a person: length, composition, ranks and hops."""
    length = cp["length_s"] or 1.0
    lines = [f"critical path: {cp['length_s']:.9f} s, ending on rank {cp['end_rank']}"]
    for k in TERMS:
        v = cp["breakdown"][k]
        if v > 0:
            lines.append(f"  {k:<16} {v:.9f} s {100 * v / length:5.1f} %")
    ranks = cp["ranks"]
    hops = cp["hops"]
    msgs = len({(h["message"]["sender"], h["message"]["receiver"], h["message"]["seq"]) for h in hops})
    lines.append(f"  visits {len(set(ranks))} rank{'s' * (len(set(ranks)) != 1)} in {len(ranks)} "
                 f"visit{'s' * (len(ranks) != 1)}: {abbreviated(ranks)}")
    lines.append(f"  crosses ranks {len(hops)} time{'s' * (len(hops) != 1)} over {msgs} "
                 f"message{'s' * (msgs != 1)}")
    for row in cp.get("call_sites", [])[:5]:
        lines.append(f"  {100 * row['share']:5.1f} % {row['total_s']:.9f} s  {row['site']}")
    if cp["unattributed_s"] > 0:
        lines.append(f"  note: {cp['unattributed_s']:.9f} s of MPI calls no step or wait line accounts "
                     "for (counted as late_sender)")
    return "\n".join(lines) + "\n"


def main(argv):
    """vaced critical-path TRACE_DIR [--json FILE]; errors are vaced_cli's."""
    import vaced_cli as cli
    got = cli.options(argv, ("--json",), "critical-path", CRITPATH_HELP)
    if got is None:
        return 0
    o, pos = got
    out = o.get("--json")
    if len(pos) != 1:
        raise cli.Usage("needs one trace directory: vaced critical-path TRACE_DIR [--json FILE]")
    try:
        cp = of_dir(pos[0])
    except PathError as e:
        raise cli.Failure(str(e))
    sys.stdout.write(summary(cp))
    if out:
        try:
            with open(out, "w") as f:
                f.write("{\n" + ",\n".join(f"  {json.dumps(k)}: {json.dumps(v)}" for k, v in cp.items()) + "\n}\n")
        except OSError as e:
            raise cli.Failure(f"{out}: {e.strerror}")
    return 0
