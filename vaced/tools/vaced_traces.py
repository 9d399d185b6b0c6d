"""A run's per-rank traces (VACED_TRACE=DIR, vaced/src/report/trace.h),
read back for vaced otf2 and vaced report.  Python 3 standard library only.

Times are kept as integer picoseconds, parsed from the files' decimal
seconds digit by digit: the library writes its integer picoseconds with 12
decimals, and a float would round them.
"""
import gc
import os
import re

TRACE_NAME = re.compile(r"^vaced-trace\.(\d+)\.csv$")
HEADER = "kind,start_s,end_s"
SPAN_KINDS = ("compute", "mpi", "poll")
SECONDS = re.compile(r"^(-?)(\d+)(?:\.(\d{1,12}))?$")
TERMS = ("compute", "poll", "send_overhead", "recv_overhead", "copy", "network",
         "late_sender", "late_receiver", "collective_wait")
WAIT_FIXED = 14         # wait,FROM,CUT,TO,OVH,DIR,PEER,SEQ,SENT,LANDED,RSENT,RLANDED,LEAD,BEGIN


class TraceError(Exception):
    """A trace directory or file that cannot be read: FILE:LINE: reason."""


class Wait:
    """A wait's jump (a `wait` line): from_ps to to_ps, along `chain` up to
    cut_ps, then turns (ovh_ps of o_r, the rest copies).  dir is "recv",
    "send" or None (unnamed), with peer and seq; sent_ps/landed_ps its last
    packet's departure from peer and arrival here, rts_sent_ps/rts_landed_ps
    a rendezvous receive's request's (None: unknown).  chain: (lead,
    begin_ps, [(term, until_ps)])."""
    __slots__ = ("from_ps", "cut_ps", "to_ps", "ovh_ps", "dir", "peer", "seq", "sent_ps",
                 "landed_ps", "rts_sent_ps", "rts_landed_ps", "chain", "line")


class Rank:
    """One rank's trace: spans [(kind, start_ps, end_ps)] in file order,
    sends [(peer, seq, bytes, t_ps)], recvs [(peer, seq, bytes, t_ps, span)]
    where span is the index in spans of the first span written after the
    line (the MPI call that reported the receive, for most); steps
    [(start_ps, mid_ps, end_ps, term1, term2, line)] and waits [Wait], the
    advances of its clock inside MPI calls (none in traces written before
    the library wrote them); sites {id: (function, offset, module)}, the
    ids of blocking collectives' sites, and calls [(site id, start_ps,
    end_ps)] (the MPI calls by name, when the run kept its call tables)."""

    def __init__(self, rank):
        self.rank = rank
        self.path = None
        self.spans, self.sends, self.recvs = [], [], []
        self.steps, self.waits = [], []
        self.sites, self.calls, self.collective_sites = {}, [], set()

    @property
    def end_ps(self):
        return self.spans[-1][2] if self.spans else 0


def ps(text, signed=False):
    """Decimal seconds to integer picoseconds, exactly; ValueError if malformed
    (a sign only where `signed`: a model's estimate may precede the run)."""
    whole, _, frac = text.partition(".")
    if len(frac) == 12 and whole.isdigit() and frac.isdigit() and text.isascii():
        return int(whole) * 10 ** 12 + int(frac)       # the library's own format, fast
    m = SECONDS.match(text)
    if not m or (m.group(1) and not signed):
        raise ValueError(f"'{text}' is not a time in seconds")
    v = int(m.group(2)) * 10 ** 12 + int((m.group(3) or "").ljust(12, "0"))
    return -v if m.group(1) else v


def opt_ps(text):
    """A time or '-' (None)."""
    return None if text == "-" else ps(text, signed=True)


def term(text):
    if text not in TERMS:
        raise ValueError(f"'{text}' is not a breakdown term")
    return text


def parse_wait(fields, n):
    """A `wait` line's fields (ValueError if malformed)."""
    if len(fields) < WAIT_FIXED or (len(fields) - WAIT_FIXED) % 2:
        raise ValueError(f"a wait line has {WAIT_FIXED} fields and pairs of TERM,UNTIL after them")
    w = Wait()
    w.from_ps, w.cut_ps, w.to_ps, w.ovh_ps = (ps(x) for x in fields[1:5])
    if not w.from_ps <= w.cut_ps <= w.to_ps or not 0 <= w.ovh_ps <= w.to_ps - w.cut_ps:
        raise ValueError("a wait's FROM <= CUT <= TO and its OVH within TO - CUT")
    w.dir = None if fields[5] == "-" else fields[5]
    if w.dir not in (None, "recv", "send"):
        raise ValueError(f"'{fields[5]}' is not recv, send or -")
    w.peer, w.seq = int(fields[6]), int(fields[7])
    if w.dir and min(w.peer, w.seq) < 0:
        raise ValueError("a named wait with a negative peer or number")
    w.sent_ps, w.landed_ps, w.rts_sent_ps, w.rts_landed_ps = (opt_ps(x) for x in fields[8:12])
    spans, last = [], ps(fields[13], signed=True)
    for i in range(WAIT_FIXED, len(fields), 2):
        until = ps(fields[i + 1], signed=True)
        if until < last:
            raise ValueError("a wait's chain goes back in time")
        spans.append((term(fields[i]), until))
        last = until
    w.chain = (term(fields[12]), ps(fields[13], signed=True), spans)
    w.line = n
    return w


def trace_files(d):
    """{rank: path} of the traces in directory d (a TraceError if none)."""
    if not os.path.isdir(d):
        raise TraceError(f"{d}: no such directory")
    files = {}
    for name in os.listdir(d):
        m = TRACE_NAME.match(name)
        if m:
            files[int(m.group(1))] = os.path.join(d, name)
    if not files:
        raise TraceError(f"{d}: no vaced-trace.R.csv files (a run with VACED_TRACE={d} or vaced run --trace {d})")
    missing = sorted(set(range(max(files) + 1)) - set(files))
    if missing:
        raise TraceError(f"{d}: vaced-trace.{missing[0]}.csv is missing ({len(missing)} of "
                         f"{max(files) + 1} ranks' files)")
    return files


def read_rank(rank, path):
    r = Rank(rank)
    r.path = path
    with open(path) as f:
        first = f.readline().rstrip("\n")
        if first != HEADER:
            raise TraceError(f"{path}:1: not a VACED trace (its first line is not '{HEADER}')")
        for n, line in enumerate(f, start=2):
            fields = line.rstrip("\n").split(",")
            kind = fields[0]
            try:
                if kind in SPAN_KINDS and len(fields) == 3:
                    a, b = ps(fields[1]), ps(fields[2])
                    if b < a:
                        raise ValueError("the span ends before it starts")
                    r.spans.append((kind, a, b))
                elif kind in ("send", "recv") and len(fields) == 5:
                    peer, seq, size = int(fields[1]), int(fields[2]), int(fields[3])
                    if min(peer, seq, size) < 0:
                        raise ValueError("a negative peer, number or size")
                    if kind == "send":
                        r.sends.append((peer, seq, size, ps(fields[4])))
                    else:
                        r.recvs.append((peer, seq, size, ps(fields[4]), len(r.spans)))
                elif kind == "site" and len(fields) >= 6:
                    site, function, coll, offset, module = line.rstrip("\n").split(",", 5)[1:]
                    if coll not in ("0", "1"):
                        raise ValueError(f"'{coll}' is not 0 or 1")
                    int(offset, 16)
                    r.sites[int(site)] = (function, offset, module)
                    if coll == "1":
                        r.collective_sites.add(int(site))
                elif kind == "call" and len(fields) == 4:
                    site, a, b = int(fields[1]), ps(fields[2]), ps(fields[3])
                    if site not in r.sites or b < a:
                        raise ValueError("a call from an undefined site, or ending before it starts")
                    r.calls.append((site, a, b))
                elif kind == "step" and len(fields) == 6:
                    a, mid, b = ps(fields[1]), ps(fields[2]), ps(fields[3])
                    if not a <= mid <= b:
                        raise ValueError("a step's START <= MID <= END")
                    r.steps.append((a, mid, b, term(fields[4]), term(fields[5]), n))
                elif kind == "wait":
                    r.waits.append(parse_wait(fields, n))
                elif line.strip():
                    raise ValueError(f"unknown line '{line.strip()[:60]}'")
            except ValueError as e:
                raise TraceError(f"{path}:{n}: {e}")
    return r


_last_read = (None, None)       # (the files' identity, their ranks)


def _files(d):
    """d's traces in rank order, [(rank, path)], and their identity (path,
    size, mtime, inode): a file changed is a different identity."""
    files = sorted(trace_files(d).items())
    return files, tuple((path, st.st_size, st.st_mtime_ns, st.st_ino)
                        for path, st in ((p, os.stat(p)) for _, p in files))


def _parsed(files):
    """read_rank of each (rank, path), with the cyclic garbage collector
    held off: the parse builds millions of tuples and no cycle, and the
    collector's full passes, which come as the heap grows, would walk
    every one built so far.  What is read is then frozen out of later
    passes, in which the critical path, the archive and the report would
    walk it again."""
    was = gc.isenabled()
    gc.disable()
    try:
        ranks = [read_rank(rank, path) for rank, path in files]
    finally:
        if was:
            gc.enable()
    gc.freeze()
    return ranks


def read_first(d, n):
    """The first n ranks' traces of directory d, and how many ranks it
    holds; from the last read_dir's when it read these files."""
    try:
        files, ident = _files(d)
        if _last_read[0] == ident:
            return _last_read[1][:n], len(files)
        return _parsed(files[:n]), len(files)
    except OSError as e:
        raise TraceError(f"{e.filename}: {e.strerror}")


def read_dir(d):
    """Every rank's trace in directory d, in rank order.  A run's critical
    path, OTF2 archive and report read the same traces in one process: the
    last directory read is kept, and read again only if a file changed."""
    global _last_read
    try:
        files, ident = _files(d)
        if _last_read[0] != ident:
            _last_read = (None, None)       # the old ranks may go before the new come
            _last_read = (ident, _parsed(files))
        return _last_read[1]
    except OSError as e:
        raise TraceError(f"{e.filename}: {e.strerror}")


def messages(ranks):
    """The messages both sides wrote, paired: [(sender, receiver, seq, bytes,
    sent_ps, received_ps)], and the lines of either side without the other."""
    sent = {(r.rank, peer, seq): (size, t) for r in ranks for peer, seq, size, t in r.sends}
    got = {(peer, r.rank, seq): (size, t) for r in ranks for peer, seq, size, t, _ in r.recvs}
    paired = [(s, d, k, sent[(s, d, k)][0], sent[(s, d, k)][1], got[(s, d, k)][1])
              for (s, d, k) in sorted(sent.keys() & got.keys())]
    return paired, sorted(sent.keys() ^ got.keys())
