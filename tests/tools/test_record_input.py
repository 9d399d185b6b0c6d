#!/usr/bin/env python3
"""vaced replay refuses a bad record: tests/mpi/ring.c recorded with 2
ranks on paper-16 (install/vaced, VACED_RECORD) replays; truncated at 20
offsets (header, path, events, trailer), each of 200 single-byte
corruptions (fixed seed), a record of another format version, a missing
rank's file, a 3-rank run's file, an empty or missing directory: refused
with exit status 1 and "FILE: offset N: reason" (a missing file: its name
and the record's rank count), never a signal, a hang (20 s) or silence.
The trailer's FNV-1a hash covers the events, so no corrupted event byte
may be accepted; the header's fields are checked against each other and
the other rank's.  A live run whose VACED_RECORD cannot be written still
predicts, and says why it records nothing.

Every replay runs with a 2 GiB address-space limit (RLIMIT_AS), so a
record that makes the replay allocate without bound fails its check
instead of the machine.

    python3 tests/tools/test_record_input.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import os
import random
import re
import resource
import shutil
import struct
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
VACED = os.path.join(ROOT, "vaced", "tools", "vaced")
BIN = os.path.join(ROOT, "install", "vaced", "bin")
TARGET = "paper-16"
TIMEOUT = 20                        # s, one replay
CORRUPTIONS = 200
SEED = 20261127
FIXED_HEADER = 42                   # vaced/src/record/log_format.h
FNV_OFFSET, FNV_PRIME = 0xcbf29ce484222325, 0x100000001b3
OFFSET_FORM = re.compile(r"rank-\d{6}\.vlog: offset \d+: \S")


def limit_memory():
    resource.setrlimit(resource.RLIMIT_AS, (2 << 30, 2 << 30))


def replay(rec, timeout=TIMEOUT):
    """(exit status, stdout, stderr) of vaced replay REC; status None: it hung."""
    try:
        r = subprocess.run([sys.executable, VACED, "replay", rec, "--target", TARGET],
                           capture_output=True, text=True, errors="replace", timeout=timeout,
                           preexec_fn=limit_memory)
    except subprocess.TimeoutExpired:
        return None, "", f"(no answer in {timeout} s)"
    return r.returncode, r.stdout, r.stderr


def show(status, err):
    what = "hung" if status is None else f"killed by signal {-status}" if status < 0 else f"exit {status}"
    err = err.strip()[-300:]
    return f"{what}: {err}" if err else what


def fnv1a(data):
    """The record's hash (log_format.h, vaced_log_hash): FNV-1a 64 over the
    8-byte little-endian words, the last 1 to 7 bytes one at a time."""
    h, n = FNV_OFFSET, len(data) // 8 * 8
    for (w,) in struct.iter_unpack("<Q", data[:n]):
        h = ((h ^ w) * FNV_PRIME) & 0xffffffffffffffff
    for b in data[n:]:
        h = ((h ^ b) * FNV_PRIME) & 0xffffffffffffffff
    return h


def leb(d, pos, end):
    """(value, position after) of the LEB128 at pos, or None."""
    v = shift = 0
    while pos < end and shift < 70:
        b = d[pos]
        pos += 1
        v |= (b & 0x7f) << shift
        shift += 7
        if not b & 0x80:
            return v, pos
    return None


def layout(d):
    """The file's regions: the events' start, the trailer's offset, the
    count's end, as the reader finds them (log_reader.c)."""
    body = FIXED_HEADER + struct.unpack_from("<H", d, 40)[0]
    for n in range(1, 11):
        at = len(d) - 8 - n - 1
        got = leb(d, at + 1, len(d) - 8) if at >= body and d[at] == 0x7f else None
        if got and got[1] == len(d) - 8 and fnv1a(d[:at + 1]) == struct.unpack_from("<Q", d, len(d) - 8)[0]:
            return body, at, got[1]
    raise ValueError("no trailer")


def region(off, body, trailer, count_end):
    for end, name in ((8, "magic"), (12, "version"), (16, "rank"), (20, "ranks"), (24, "flags"),
                      (32, "eager threshold"), (40, "target hash"), (42, "path length"),
                      (body, "target path"), (trailer, "event"), (trailer + 1, "trailer opcode"),
                      (count_end, "trailer count")):
        if off < end:
            return name
    return "trailer hash"


def case_dir(tmp, rec, name):
    d = os.path.join(tmp, name)
    shutil.rmtree(d, ignore_errors=True)
    shutil.copytree(rec, d)
    return d


def patch(path, fn):
    with open(path, "rb") as f:
        d = bytearray(f.read())
    d = fn(d)
    with open(path, "wb") as f:
        f.write(d)


def record(tmp, exe, ranks, rec, quiet="all"):
    env = dict(os.environ, VACED_TARGET=TARGET, VACED_RECORD=rec, VACED_QUIET=quiet)
    return subprocess.run([os.path.join(BIN, "mpiexec"), "-n", str(ranks), exe, "200000", "3"],
                          cwd=tmp, env=env, capture_output=True, text=True, timeout=300)


with tempfile.TemporaryDirectory() as tmp:
    exe = os.path.join(tmp, "ring")
    b = subprocess.run([os.path.join(BIN, "mpicc"), "-O2", "-o", exe, os.path.join(ROOT, "tests", "mpi", "ring.c")],
                       capture_output=True, text=True)
    if not check("install/vaced's mpicc builds tests/mpi/ring.c", b.returncode == 0, b.stderr[-300:]):
        finish()
    rec, rec3 = os.path.join(tmp, "rec"), os.path.join(tmp, "rec3")
    r2, r3 = record(tmp, exe, 2, rec), record(tmp, exe, 3, rec3)
    files = [os.path.join(rec, f"rank-{i:06d}.vlog") for i in range(2)]
    if not check("VACED_RECORD: 2-rank and 3-rank runs of ring.c record one file a rank",
                 r2.returncode == 0 and r3.returncode == 0 and all(map(os.path.isfile, files)) and
                 os.path.isfile(os.path.join(rec3, "rank-000002.vlog")), r2.stderr[-300:] + r3.stderr[-300:]):
        finish()

    status, out, err = replay(rec, timeout=600)     # the first one builds build/tools/vaced-replay
    check("the untouched record replays: exit 0 and a prediction line",
          status == 0 and re.search(r"^vaced: prediction [0-9.]+ s on target paper-16", out, re.M),
          show(status, err))
    data = []
    for f in files:
        with open(f, "rb") as fh:
            data.append(fh.read())
    lay = [layout(d) for d in data]

    # --- truncations: header, path, events, trailer ---------------------
    rank, size = 1, len(data[1])
    body, trailer, count_end = lay[1]
    cuts = [0, 7, 20, 41, FIXED_HEADER + 1, body - 1]
    cuts += [body + (trailer - body) * k // 11 for k in range(1, 11)]
    cuts += [trailer, trailer + 1, size - 8, size - 1]
    bad = []
    for i, cut in enumerate(cuts):
        rank = i % 2                # both ranks' files, alternately
        body, trailer, count_end = lay[rank]
        cut = min(cut, len(data[rank]) - 1)
        d = case_dir(tmp, rec, "cut")
        patch(os.path.join(d, f"rank-{rank:06d}.vlog"), lambda x: x[:cut])
        status, out, err = replay(d)
        name = f"rank-{rank:06d}.vlog"
        if not (status == 1 and name in err and "offset" in err):
            bad.append(f"{name} cut at {cut} ({region(cut, body, trailer, count_end)}): {show(status, err)}")
    check(f"a rank's file truncated at {len(cuts)} offsets (header, path, events, trailer): "
          "exit 1, naming the file and the offset", not bad, "; ".join(bad[:3]))

    # --- single-byte corruptions ------------------------------------------
    rng = random.Random(SEED)
    by_region, failures = {}, {}
    signals = []
    for _ in range(CORRUPTIONS):
        rank = rng.randrange(2)
        off = rng.randrange(len(data[rank]))
        xor = rng.randrange(1, 256)
        where = region(off, *lay[rank])
        by_region[where] = by_region.get(where, 0) + 1
        d = case_dir(tmp, rec, "flip")
        path = os.path.join(d, f"rank-{rank:06d}.vlog")

        def flip(x):
            x[off] ^= xor
            return x
        patch(path, flip)
        status, out, err = replay(d)
        what = f"rank {rank} byte {off} ({where}) ^ 0x{xor:02x}: {show(status, err)}"
        if status is None or status < 0:
            signals.append(what)
            continue
        ok = status == 1 and OFFSET_FORM.search(err)
        if where == "ranks" and rank == 0 and status == 1 and not ok:
            # rank 0's header gives the record's rank count: a missing rank's file of that count
            k = struct.unpack_from("<I", data[0][:off] + bytes([data[0][off] ^ xor]) + data[0][off + 1:], 16)[0]
            ok = re.search(r"rank-\d{6}\.vlog: .*\(the record has %d ranks\)" % k, err)
        if not ok:
            failures.setdefault(where, []).append(what)
    check(f"{CORRUPTIONS} single-byte corruptions (seed {SEED}): no signal, no hang ({TIMEOUT} s each)",
          not signals, "; ".join(signals[:3]))
    spread = ", ".join(f"{k} {v}" for k, v in sorted(by_region.items(), key=lambda kv: -kv[1]))
    print(f"     corrupted bytes by region: {spread}")
    groups = [("event bytes: refused with FILE: offset N: (the trailer's hash covers them)", ["event"]),
              ("header bytes (magic, version, rank, ranks, flags, eager threshold, target hash, "
               "path length): refused by the header checks",
               ["magic", "version", "rank", "ranks", "flags", "eager threshold", "target hash", "path length"]),
              ("target path bytes: refused (no silent acceptance)", ["target path"]),
              ("trailer bytes: refused with FILE: offset N:", ["trailer opcode", "trailer count", "trailer hash"])]
    for name, regions in groups:
        n = sum(by_region.get(r, 0) for r in regions)
        bad = [w for r in regions for w in failures.get(r, [])]
        check(f"corrupted {name} ({n - len(bad)} of {n})", not bad, "; ".join(bad[:3]))

    # The trailer's event count is outside the hash: a wrong count must be
    # refused as the rest is, with the offset.
    d = case_dir(tmp, rec, "count")
    _, trailer, _ = lay[0]
    patch(os.path.join(d, "rank-000000.vlog"), lambda x: x[:trailer + 1] + bytes([x[trailer + 1] ^ 1]) + x[trailer + 2:])
    status, out, err = replay(d)
    check("the trailer's event count off by one: exit 1 with FILE: offset N:",
          status == 1 and OFFSET_FORM.search(err), show(status, err))

    # A changed rank count is a corrupted header (the hash covers it) ...
    d = case_dir(tmp, rec, "ranks")
    patch(os.path.join(d, "rank-000000.vlog"), lambda x: x[:16] + struct.pack("<I", 0x200002) + x[20:])
    status, out, err = replay(d)
    check("rank 0's rank count corrupted to 2097154: exit 1, rank-000000.vlog refused with its offset",
          status == 1 and "rank-000000.vlog" in err and OFFSET_FORM.search(err), show(status, err))

    # ... and a consistent rank 0 of a job of 2097154 ranks, with the other
    # files missing, is refused at the first missing file, before the
    # replay allocates for all of them.
    d = case_dir(tmp, rec, "ranks-sealed")
    _, trailer, _ = lay[0]

    def reseal(x):
        x = x[:16] + struct.pack("<I", 0x200002) + x[20:]
        return x[:-8] + struct.pack("<Q", fnv1a(x[:trailer + 1]))
    patch(os.path.join(d, "rank-000000.vlog"), reseal)
    os.unlink(os.path.join(d, "rank-000001.vlog"))
    status, out, err = replay(d)
    check("a record of 2097154 ranks with one file: exit 1 naming rank-000001.vlog and the count "
          "(within 20 s and 2 GiB)",
          status == 1 and "rank-000001.vlog" in err and "2097154 ranks" in err, show(status, err))

    # --- other records ----------------------------------------------------
    d = case_dir(tmp, rec, "version")
    patch(os.path.join(d, "rank-000000.vlog"), lambda x: x[:8] + struct.pack("<I", 2) + x[12:])
    status, out, err = replay(d)
    check("format version 2: exit 1, \"format version 2\"",
          status == 1 and "format version 2" in err and OFFSET_FORM.search(err), show(status, err))

    d = case_dir(tmp, rec, "missing")
    os.unlink(os.path.join(d, "rank-000001.vlog"))
    status, out, err = replay(d)
    check("rank-000001.vlog deleted: exit 1, naming it and the record's 2 ranks",
          status == 1 and "rank-000001.vlog" in err and "2 ranks" in err, show(status, err))

    d = case_dir(tmp, rec, "foreign")
    shutil.copy(os.path.join(rec3, "rank-000001.vlog"), os.path.join(d, "rank-000001.vlog"))
    status, out, err = replay(d)
    check("a 3-rank run's file as rank-000001.vlog: exit 1, the header's rank count differs",
          status == 1 and re.search(r"rank-000001\.vlog: offset \d+: rank 1 of 3\b", err), show(status, err))

    d = os.path.join(tmp, "empty")
    os.mkdir(d)
    status, out, err = replay(d)
    check("an empty directory: exit 1 with its path", status == 1 and d in err, show(status, err))
    d = os.path.join(tmp, "no-such-dir")
    status, out, err = replay(d)
    check("a missing directory: exit 1 with its path", status == 1 and d in err, show(status, err))

    # --- a record that cannot be written ---------------------------------
    plain = os.path.join(tmp, "plain-file")
    open(plain, "w").close()
    r = record(tmp, exe, 2, os.path.join(plain, "rec"), quiet="1")
    check("VACED_RECORD under a regular file: the live run exits 0 and predicts",
          r.returncode == 0 and re.search(r"^vaced: prediction [0-9.]+ s", r.stdout, re.M),
          r.stderr.strip()[-300:])
    check("... and says on stderr that it records nothing, and why",
          re.search(r"vaced: record .*plain-file/rec: .*Not a directory", r.stderr), r.stderr.strip()[-300:])

    # --- the fuzzer's finds (tests/fuzz/record-crashes), kept as regressions
    crashes = os.path.join(ROOT, "tests", "fuzz", "record-crashes")
    for name in sorted(f for f in os.listdir(crashes) if f.endswith(".vlog")):
        d = os.path.join(tmp, "crash-" + name[:-5])
        os.mkdir(d)
        shutil.copy(os.path.join(crashes, name), os.path.join(d, "rank-000000.vlog"))
        status, out, err = replay(d)
        check(f"the fuzzer's {name}: exit 1 with FILE: offset N: (or the missing file)",
              status == 1 and (OFFSET_FORM.search(err) or "No such file" in err), show(status, err))
finish()
