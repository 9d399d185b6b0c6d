"""A run's per-rank traces (VACED_TRACE=DIR, vaced/src/report/trace.h),
read back for vaced otf2 and vaced report.  Python 3 standard library only.

Times are kept as integer picoseconds, parsed from the files' decimal
seconds digit by digit: the library writes its integer picoseconds with 12
decimals, and a float would round them.
"""
import os
import re

TRACE_NAME = re.compile(r"^vaced-trace\.(\d+)\.csv$")
HEADER = "kind,start_s,end_s"
SPAN_KINDS = ("compute", "mpi", "poll")
SECONDS = re.compile(r"^(\d+)(?:\.(\d{1,12}))?$")


class TraceError(Exception):
    """A trace directory or file that cannot be read: FILE:LINE: reason."""


class Rank:
    """One rank's trace: spans [(kind, start_ps, end_ps)] in file order,
    sends [(peer, seq, bytes, t_ps)], recvs [(peer, seq, bytes, t_ps, span)]
    where span is the index in spans of the first span written after the
    line (the MPI call that reported the receive, for most); sites {id:
    (function, offset, module)} and calls [(site id, start_ps, end_ps)]
    (the MPI calls by name, when the run kept its call tables)."""

    def __init__(self, rank):
        self.rank = rank
        self.spans, self.sends, self.recvs = [], [], []
        self.sites, self.calls = {}, []

    @property
    def end_ps(self):
        return self.spans[-1][2] if self.spans else 0


def ps(text):
    """Decimal seconds to integer picoseconds, exactly; ValueError if malformed."""
    m = SECONDS.match(text)
    if not m:
        raise ValueError(f"'{text}' is not a time in seconds")
    return int(m.group(1)) * 10 ** 12 + int((m.group(2) or "").ljust(12, "0"))


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
                elif kind == "site" and len(fields) >= 5:
                    site, function, offset, module = line.rstrip("\n").split(",", 4)[1:]
                    int(offset, 16)
                    r.sites[int(site)] = (function, offset, module)
                elif kind == "call" and len(fields) == 4:
                    site, a, b = int(fields[1]), ps(fields[2]), ps(fields[3])
                    if site not in r.sites or b < a:
                        raise ValueError("a call from an undefined site, or ending before it starts")
                    r.calls.append((site, a, b))
                elif line.strip():
                    raise ValueError(f"unknown line '{line.strip()[:60]}'")
            except ValueError as e:
                raise TraceError(f"{path}:{n}: {e}")
    return r


def read_dir(d):
    """Every rank's trace in directory d, in rank order."""
    try:
        return [read_rank(rank, path) for rank, path in sorted(trace_files(d).items())]
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
