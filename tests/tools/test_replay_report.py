#!/usr/bin/env python3
"""bench/lib/replay_report.py, the arithmetic of bench/replay.sh, on a
made-up runs CSV worked out by hand: recording overhead (paired per
repetition, median and range, against the 3 % goal; in CPU time too), bytes per event,
events a second (against 5 million), replay/live (against 2 %), and the
summary CSV; and its logstat on hand-made logs (the trailer's LEB128 event
count read from the end of the file).  No MPI needed.

    python3 tests/tools/test_replay_report.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import csv
import os
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
REPORT = os.path.join(ROOT, "bench", "lib", "replay_report.py")


def row_of(md, first_cells):
    for line in md.splitlines():
        if line.startswith("| " + " | ".join(first_cells) + " |"):
            return [c.strip() for c in line.strip("|").split("|")]
    return None


def section(md, title):
    """the text of the section headed ## TITLE..., up to the next one"""
    start = md.find("## " + title)
    if start < 0:
        return ""
    end = md.find("\n## ", start + 1)
    return md[start:end if end >= 0 else len(md)]


def vlog(path, count_leb, body=b"\x01\x80\x01\x02\x85\x03"):
    """a log: magic, a header's worth of bytes, events, the trailer (0x7f,
    the count, 8 bytes of hash whose bytes have the high bit set)"""
    with open(path, "wb") as f:
        f.write(b"VACEDLOG" + bytes(34) + body + b"\x7f" + count_leb + b"\xff" * 8)
    return os.path.getsize(path)


with tempfile.TemporaryDirectory() as tmp:
    # ---- logstat: 300 = LEB128 ac 02, 127 = 7f, 16383 = ff 7f
    rec = os.path.join(tmp, "rec")
    os.mkdir(rec)
    size = vlog(os.path.join(rec, "rank-000000.vlog"), b"\xac\x02")
    size += vlog(os.path.join(rec, "rank-000001.vlog"), b"\x7f")
    size += vlog(os.path.join(rec, "rank-000002.vlog"), b"\xff\x7f")
    p = subprocess.run([sys.executable, REPORT, "logstat", rec], capture_output=True, text=True)
    check("logstat: files, bytes, the trailers' events (300 + 127 + 16383)",
          p.returncode == 0 and p.stdout.split() == ["3", str(size), str(300 + 127 + 16383)],
          f"exit {p.returncode}: {p.stdout.strip()} {p.stderr.strip()}")
    bad = os.path.join(tmp, "bad")
    os.mkdir(bad)
    with open(os.path.join(bad, "rank-000000.vlog"), "wb") as f:     # cut inside the count
        f.write(b"VACEDLOG" + bytes(34) + b"\x01\x7f\xac" + b"\xff" * 8)
    p = subprocess.run([sys.executable, REPORT, "logstat", bad], capture_output=True, text=True)
    check("logstat: a log without a whole trailer is refused with its path",
          p.returncode == 1 and "rank-000000.vlog" in p.stderr and "no trailer" in p.stderr, p.stderr.strip())
    with open(os.path.join(bad, "rank-000000.vlog"), "wb") as f:
        f.write(b"NOTALOG!" + bytes(50))
    p = subprocess.run([sys.executable, REPORT, "logstat", bad], capture_output=True, text=True)
    check("logstat: a file that is not a log is refused", p.returncode == 1 and "not a VACED log" in p.stderr,
          p.stderr.strip())
    p = subprocess.run([sys.executable, REPORT, "logstat", tmp], capture_output=True, text=True)
    check("logstat: a directory without logs is refused", p.returncode == 1 and "no rank-" in p.stderr,
          p.stderr.strip())

    # ---- the report
    runs = os.path.join(tmp, "runs.csv")
    rows = []
    w16 = ("W", "16", "paper-16")
    # cg: overheads +2, +5, 0 % -> median +2.0, range 0.0 .. +5.0; plain spread 2.00/1.00 - 1 = 100 %,
    # recorded spread 2.10/1.02 - 1 = 105.9 %
    # and in CPU time 10 -> 10.1, 10.3, 10.2: +1, +3, +2 % -> +2.0 (+1.0 .. +3.0)
    for rep, (pl, rc, cpu) in enumerate([(1.00, 1.02, 10.1), (2.00, 2.10, 10.3), (1.10, 1.10, 10.2)], 1):
        rows += [("record", "cg") + w16 + (rep, "plain_wall_s", pl), ("record", "cg") + w16 + (rep, "record_wall_s", rc),
                 ("record", "cg") + w16 + (rep, "plain_cpu_s", 10), ("record", "cg") + w16 + (rep, "record_cpu_s", cpu)]
    # cg's records: bytes 1000, 1200, 1100; events 500, 400, 550 -> bytes per event 2, 3, 2 (median 2.00,
    # spread 50 %); per rank 62.5, 75, 68.75 -> 69
    for rep, (b, e) in enumerate([(1000, 500), (1200, 400), (1100, 550)], 1):
        rows += [("record", "cg") + w16 + (rep, "files", 16), ("record", "cg") + w16 + (rep, "bytes", b),
                 ("record", "cg") + w16 + (rep, "events", e)]
    # ep: overheads 5, 4, 6 % -> median +5.0, beyond the goal; no CPU times, no size figures
    for rep, rc in enumerate([1.05, 1.04, 1.06], 1):
        rows += [("record", "ep") + w16 + (rep, "plain_wall_s", 1.0), ("record", "ep") + w16 + (rep, "record_wall_s", rc)]
    # speed: cg 10, 4, 6 -> 6.00 (met); ep 3, 4, 2 -> 3.00 (not met)
    for rep, (m, s) in enumerate([(10, 0.05), (4, 0.125), (6, 0.083)], 1):
        rows += [("speed", "cg") + w16 + (rep, "replay_meps", m), ("speed", "cg") + w16 + (rep, "replay_s", s),
                 ("speed", "cg") + w16 + (rep, "replay_events", 500)]
    for rep, m in enumerate([3, 4, 2], 1):
        rows += [("speed", "ep") + w16 + (rep, "replay_meps", m), ("speed", "ep") + w16 + (rep, "replay_events", 20)]
    # live: cg A 64: replay/live 0.3/20 = 1.5 %, 0.5/25 = 2.0 % -> median 1.75, met; core 0.2/20 = 0.25/25
    # = 1.00 %; predictions equal in 1 of 2; bytes 100, 300, events 50, 100 -> 2.50 per event, spread 50 %,
    # per rank 1.5625, 4.6875 -> 3
    a64 = ("A", "64", "paper-1024")
    for rep, (lw, rw, rs, lp, rp, b, e) in enumerate([(20, 0.3, 0.2, "0.5", "0.5", 100, 50),
                                                     (25, 0.5, 0.25, "0.6", "0.61", 300, 100)], 1):
        for q, v in [("live_wall_s", lw), ("replay_wall_s", rw), ("replay_s", rs), ("live_prediction_s", lp),
                     ("replay_prediction_s", rp), ("files", 64), ("bytes", b), ("events", e),
                     ("replay_meps", 8), ("replay_events", e)]:
            rows.append(("live", "cg") + a64 + (rep, q, v))
    with open(runs, "w") as f:
        f.write("part,app,class,ranks,target,rep,quantity,value\n")
        for r in rows:
            f.write(",".join(map(str, r)) + "\n")
    out = os.path.join(tmp, "out")
    p = subprocess.run([sys.executable, REPORT, "report", runs, out, "--command", "bench/replay.sh --reps 3",
                        "--date", "2026-01-02 03:04 UTC", "--cores", "2", "--kernel", "6.1", "--cpu", "Some CPU",
                        "--commit", "abc1234"], capture_output=True, text=True)
    check("replay_report.py report exits 0", p.returncode == 0, p.stderr.strip()[-300:])
    md = open(os.path.join(out, "replay.md")).read() if p.returncode == 0 else ""
    check("the command, date, commit and machine facts are stated",
          "`bench/replay.sh --reps 3` on 2026-01-02 03:04 UTC, main at abc1234" in md and
          "2 cores (`nproc`), Some CPU, kernel 6.1" in md, md[:400])

    s1 = section(md, "1. Recording cost")
    cg, ep = row_of(s1, ["cg", "W", "16"]), row_of(s1, ["ep", "W", "16"])
    check("overhead: a row per app", cg is not None and ep is not None and len(cg) == 10, f"{cg} {ep}")
    if cg and ep and len(cg) == 10:
        check("overhead: plain and recorded medians with their spreads",
              cg[4] == "1.100 (100.0 %)" and cg[5] == "1.100 (105.9 %)", f"{cg[4]} / {cg[5]}")
        check("overhead: paired per repetition, median and range", cg[6] == "+2.0 %" and cg[7] == "+0.0 .. +5.0 %",
              f"{cg[6]} / {cg[7]}")
        check("overhead: in CPU time, paired, median and range; none without CPU times",
              cg[8] == "+2.0 % (+1.0 .. +3.0)" and ep[8] == "", f"{cg[8]} / {ep[8]}")
        check("overhead: against the 3 % goal", cg[9] == "met" and ep[6] == "+5.0 %" and ep[9] == "not met",
              f"{cg[9]} {ep[6]} {ep[9]}")
    check("overhead: the summary per rank count",
          "At 16 ranks: 1 of 2 apps within the goal; the largest median overhead +5.0 % (ep)." in s1, s1[-200:])
    # CPU per event: (events, CPU difference) (500, 0.1), (400, 0.3), (550, 0.2) -> 280 / 712,500 s
    # = 392,982 ns (ep has no CPU times and no events: not in the fit)
    check("overhead: CPU time per recorded event, least squares through the origin",
          "least squares through the origin of the recorded - plain CPU time on the events, "
          "3 repetitions): 392,982 ns." in s1, s1[-300:])

    s2 = section(md, "2. The record's size")
    cg, ep, live = row_of(s2, ["cg", "W", "16"]), row_of(s2, ["ep", "W", "16"]), row_of(s2, ["cg", "A", "64"])
    check("size: a row per record set with bytes and events, none without", cg is not None and ep is None
          and live is not None, f"{cg} {ep} {live}")
    if cg and live:
        check("size: the part the records come from", cg[3] == "part 1" and live[3] == "part 4", f"{cg[3]} {live[3]}")
        check("size: medians of bytes and events", cg[4:7] == ["3", "1,100", "500"], str(cg))
        check("size: bytes per event, median of the per-record ratios, and its spread",
              cg[7] == "2.00 (50.0 %)" and live[7] == "2.50 (50.0 %)", f"{cg[7]} / {live[7]}")
        check("size: bytes per rank", cg[8] == "69" and live[8] == "3", f"{cg[8]} / {live[8]}")

    s3 = section(md, "3. Replay speed")
    cg, ep, live = row_of(s3, ["cg", "W", "16"]), row_of(s3, ["ep", "W", "16"]), row_of(s3, ["cg", "A", "64"])
    check("speed: a row per record", cg is not None and ep is not None and live is not None and len(cg) == 11,
          f"{cg} {ep} {live}")
    if cg and ep and live and len(cg) == 11:
        # replay times: 500 events at 10, 4, 6 million a second: 0.05, 0.125, 0.0833 ms; ep's 20 at 3, 4, 2:
        # 0.00667, 0.005, 0.01 ms
        check("speed: the part, replays, events and the median replay time",
              cg[4:8] == ["part 1", "3", "500", "0.0833"] and ep[7] == "0.00667" and live[4] == "part 4", f"{cg} {ep}")
        check("speed: median events a second and range, against 5 million",
              cg[8:11] == ["6.00", "4.00 .. 10.00", "met"] and ep[8] == "3.00" and ep[10] == "not met", f"{cg} {ep}")
    check("speed: how many records meet the goal",
          "2 of 3 records replay at 5 million events a second or more." in s3, s3[-120:])

    s4 = section(md, "4. Replay against the live run")
    cg = row_of(s4, ["cg", "A", "64"])
    check("live: a row per app", cg is not None and len(cg) == 11, str(cg))
    # speed: the live record's replay times, 50 and 100 events at 8 million a second: 0.00625, 0.0125 ms
    live3 = row_of(s3, ["cg", "A", "64"])
    check("speed: a median replay time of two", live3 is not None and live3[7] == "0.00938", str(live3))
    if cg and len(cg) == 11:
        check("live: medians of the live run and the replay", cg[4:6] == ["22.50", "0.400"], str(cg[4:6]))
        check("live: replay/live paired per repetition, median and range",
              cg[6:8] == ["1.75 %", "1.50 .. 2.00 %"], str(cg[6:8]))
        check("live: the core replay over live, the 2 % goal, equal predictions",
              cg[8:11] == ["1.00 %", "met", "1 of 2"], str(cg[8:11]))

    summary = list(csv.DictReader(open(os.path.join(out, "replay.csv")))) if p.returncode == 0 else []

    def srow(app, cls, measure):
        return next((r for r in summary if r["app"] == app and r["class"] == cls and r["measure"] == measure), None)
    r = srow("cg", "W", "recording_overhead")
    check("summary CSV: the overhead's median, range, count, goal",
          r is not None and (r["median"], r["min"], r["max"], r["n"], r["unit"], r["goal"], r["met"]) ==
          ("2", "0", "5", "3", "%", "<= 3", "yes"), str(r))
    r = srow("cg", "W", "bytes_per_event")
    check("summary CSV: bytes per event", r is not None and (r["median"], r["min"], r["max"]) == ("2", "2", "3"),
          str(r))
    r = srow("ep", "W", "replay_events_per_s")
    check("summary CSV: events a second", r is not None and (r["median"], r["goal"], r["met"]) ==
          ("3", ">= 5", "no"), str(r))
    r = srow("cg", "A", "replay_over_live")
    check("summary CSV: replay over live", r is not None and (r["median"], r["min"], r["max"], r["met"]) ==
          ("1.75", "1.5", "2", "yes"), str(r))
    r = srow("cg", "A", "same_prediction")
    check("summary CSV: equal predictions", r is not None and (r["median"], r["n"]) == ("1", "2"), str(r))

    # nothing to report is an error, not an empty page
    empty = os.path.join(tmp, "empty.csv")
    with open(empty, "w") as f:
        f.write("part,app,class,ranks,target,rep,quantity,value\n")
    p = subprocess.run([sys.executable, REPORT, "report", empty, os.path.join(tmp, "out2")],
                       capture_output=True, text=True)
    check("report: a runs file without a complete measurement is refused",
          p.returncode == 1 and "no complete measurement" in p.stderr, p.stderr.strip())
finish()
