#!/usr/bin/env python3
"""bench/replay.sh's helpers: a record's size and events, and the report.

usage: replay_report.py logstat DIR
       replay_report.py report RUNS.csv OUTDIR [--command CMD] [--date D] [--cores N]
                                               [--kernel K] [--cpu MODEL] [--commit C]

logstat prints "FILES BYTES EVENTS" for the record in DIR: its
rank-NNNNNN.vlog files, their total size, and the sum of their trailers'
event counts (docs/replay.md, the log format: the trailer is the opcode
0x7f, the count as LEB128, 8 bytes of hash).  A file that is not a log or
has no trailer is an error (exit 1).

report reads RUNS.csv (every measurement of bench/replay.sh, long format:
part,app,class,ranks,target,rep,quantity,value) and writes OUTDIR/replay.md
(a table per part, the goals beside the figures) and OUTDIR/replay.csv (one
row per app and measure: median, min, max, n, unit, goal, met).

Arithmetic, per (part, app, class, ranks, target):
- recording overhead: per repetition recorded/plain - 1 (the two runs of a
  repetition ran one after the other), then the median and the range; in
  wall time (the goal's) and in the job's CPU time; the CPU time a recorded
  event costs, per rank count: least squares through the origin of
  (recorded - plain CPU time) on the record's events, every repetition;
- bytes per event: per record bytes/events, then the median;
- events a second: the median of the replays' --stats figures; a replay's
  time: events over that rate (--stats prints seconds to 3 decimals);
- replay/live: per repetition the replay's wall time over the live
  (recording) run's, then the median and the range; also the replay's own
  --stats time over the live run's wall time.
"""
import argparse
import csv
import glob
import os
import re
import statistics
import sys
from collections import OrderedDict

GOAL_OVERHEAD = 3.0        # %, at most
GOAL_RATE = 5.0            # million events a second, at least
GOAL_LIVE = 2.0            # %, under
MAGIC = b"VACEDLOG"
FROM = {"record": "part 1", "speed": "part 1", "live": "part 4"}
TRAILER = 0x7F


class Error(Exception):
    pass


# ---------------------------------------------------------------- logstat

def trailer_events(path):
    """The event count of one log's trailer: the file ends with 0x7f,
    LEB128 count, 8 bytes of hash."""
    with open(path, "rb") as f:
        head = f.read(8)
        if head != MAGIC:
            raise Error(f"{path}: not a VACED log (magic {head!r})")
        f.seek(0, os.SEEK_END)
        size = f.tell()
        f.seek(max(0, size - 8 - 11))      # a 64-bit LEB128 takes at most 10 bytes
        tail = f.read()
    if len(tail) < 8 + 2:
        raise Error(f"{path}: too short for a trailer")
    body = tail[:-8]
    i = len(body) - 1
    if body[i] & 0x80:
        raise Error(f"{path}: no trailer (the count's last byte has the continuation bit)")
    i -= 1
    while i >= 0 and body[i] & 0x80:
        i -= 1
    if i < 0 or body[i] != TRAILER:
        raise Error(f"{path}: no trailer (no opcode 0x7f before the count)")
    count, shift = 0, 0
    for b in body[i + 1:]:
        count |= (b & 0x7F) << shift
        shift += 7
    return count


def logstat(directory):
    files = sorted(glob.glob(os.path.join(directory, "rank-*.vlog")))
    if not files:
        raise Error(f"{directory}: no rank-NNNNNN.vlog files")
    size = sum(os.path.getsize(p) for p in files)
    events = sum(trailer_events(p) for p in files)
    return len(files), size, events


# ---------------------------------------------------------------- report

def load(path):
    """{(part, app, class, ranks, target): {quantity: {rep: value}}} in file order"""
    groups = OrderedDict()
    with open(path) as f:
        for r in csv.DictReader(f):
            key = (r["part"], r["app"], r["class"], int(r["ranks"]), r["target"])
            groups.setdefault(key, {}).setdefault(r["quantity"], OrderedDict())[r["rep"]] = r["value"]
    return groups


def nums(q):
    return [float(v) for v in q.values()]


def paired(a, b, f):
    """f(a[rep], b[rep]) for every repetition both have"""
    return [f(float(a[k]), float(b[k])) for k in a if k in b]


def spread(vals):
    """max/min - 1, in %"""
    return (max(vals) / min(vals) - 1) * 100 if min(vals) > 0 else float("nan")


def thousands(n):
    return f"{int(round(n)):,}"


def summary(rows, key, measure, vals, unit, goal="", met=""):
    app_cls = key[1:]
    rows.append({"app": app_cls[0], "class": app_cls[1], "ranks": app_cls[2], "target": app_cls[3],
                 "measure": measure, "median": f"{statistics.median(vals):.6g}",
                 "min": f"{min(vals):.6g}", "max": f"{max(vals):.6g}", "n": len(vals),
                 "unit": unit, "goal": goal, "met": met})


def part_overhead(groups, rows):
    md = ["## 1. Recording cost", "",
          "Host wall time of `install/vaced/bin/mpiexec -n P app CLASS` without and with "
          "`VACED_RECORD` (a directory under /tmp), the two runs of a repetition one after the "
          "other (their order alternating), repetitions interleaved over the apps.  Plain and "
          "recorded: median (spread over the repetitions, max/min - 1).  Overhead: recorded/plain "
          "- 1 per repetition, its median and range.  *CPU*: the same for the job's CPU time (user + "
          "system of mpiexec, Hydra's proxy and the ranks), which other load on the machine "
          f"disturbs less than the wall time.  Goal: at most {GOAL_OVERHEAD:.0f} % (wall time).", "",
          "| app | class | ranks | target | plain (s) | recorded (s) | overhead (median) | overhead (min .. max) "
          f"| CPU overhead (median, min .. max) | goal ≤ {GOAL_OVERHEAD:.0f} % |",
          "|---|---|---|---|---|---|---|---|---|---|"]
    worst, per_event = {}, {}
    for key, q in groups.items():
        if key[0] != "record" or "plain_wall_s" not in q or "record_wall_s" not in q:
            continue
        plain, rec = q["plain_wall_s"], q["record_wall_s"]
        over = paired(rec, plain, lambda r, p: (r / p - 1) * 100)
        if not over:
            continue
        m = statistics.median(over)
        ok = m <= GOAL_OVERHEAD
        cpu = paired(q.get("record_cpu_s", {}), q.get("plain_cpu_s", {}), lambda r, p: (r / p - 1) * 100)
        cpu_cell = f"{statistics.median(cpu):+.1f} % ({min(cpu):+.1f} .. {max(cpu):+.1f})" if cpu else ""
        _, app, cls, p, target = key
        worst.setdefault(p, []).append((m, app))
        md.append(f"| {app} | {cls} | {p} | {target} "
                  f"| {statistics.median(nums(plain)):.3f} ({spread(nums(plain)):.1f} %) "
                  f"| {statistics.median(nums(rec)):.3f} ({spread(nums(rec)):.1f} %) "
                  f"| {m:+.1f} % | {min(over):+.1f} .. {max(over):+.1f} % | {cpu_cell} | {'met' if ok else 'not met'} |")
        summary(rows, key, "plain_wall_s", nums(plain), "s")
        summary(rows, key, "record_wall_s", nums(rec), "s")
        summary(rows, key, "recording_overhead", over, "%", f"<= {GOAL_OVERHEAD:g}", "yes" if ok else "no")
        if cpu:
            summary(rows, key, "recording_overhead_cpu", cpu, "%")
        # (CPU time recorded - plain, events) of every repetition, for the cost per event
        if "events" in q and "record_cpu_s" in q and "plain_cpu_s" in q:
            pc, rc = q["plain_cpu_s"], q["record_cpu_s"]
            per_event.setdefault(p, []).extend((float(q["events"][k]), float(rc[k]) - float(pc[k]))
                                               for k in q["events"] if k in pc and k in rc)
    if not worst:
        return []
    md.append("")
    for p, ms in worst.items():
        within = sum(m <= GOAL_OVERHEAD for m, _ in ms)
        top = max(ms)
        line = (f"At {p} ranks: {within} of {len(ms)} apps within the goal; the largest median "
                f"overhead {top[0]:+.1f} % ({top[1]}).")
        pts = per_event.get(p, [])
        sxx = sum(x * x for x, _ in pts)
        if sxx > 0:
            slope = sum(x * y for x, y in pts) / sxx
            line += (f"  CPU time per recorded event (least squares through the origin of the "
                     f"recorded - plain CPU time on the events, {len(pts)} repetitions): "
                     f"{slope * 1e9:,.0f} ns.")
        md.append(line)
    return md + [""]


def part_size(groups, rows):
    md = ["## 2. The record's size", "",
          "Every rank's `rank-NNNNNN.vlog` together: bytes, events (the sum of the trailers' "
          "counts) and bytes per event; medians over the records (part 1's repetitions, part 4's "
          "live runs), the spread of bytes per event (max/min - 1) in brackets.", "",
          "| app | class | ranks | from | records | bytes | events | bytes per event | bytes per rank |",
          "|---|---|---|---|---|---|---|---|---|"]
    n = 0
    for key, q in groups.items():
        if "bytes" not in q or "events" not in q:
            continue
        n += 1
        b, e = q["bytes"], q["events"]
        bpe = paired(b, e, lambda x, y: x / y if y else float("nan"))
        per_rank = paired(b, q["files"], lambda x, y: x / y) if "files" in q else [v / key[3] for v in nums(b)]
        part, app, cls, p, _ = key
        md.append(f"| {app} | {cls} | {p} | {FROM.get(part, part)} | {len(b)} | {thousands(statistics.median(nums(b)))} "
                  f"| {thousands(statistics.median(nums(e)))} "
                  f"| {statistics.median(bpe):.2f} ({spread(bpe):.1f} %) "
                  f"| {thousands(statistics.median(per_rank))} |")
        summary(rows, key, "record_bytes", nums(b), "bytes")
        summary(rows, key, "record_events", nums(e), "events")
        summary(rows, key, "bytes_per_event", bpe, "bytes")
    return md + [""] if n else []


def part_speed(groups, rows):
    md = ["## 3. Replay speed", "",
          "`taskset -c 0 vaced/tools/vaced replay DIR --target T --quiet --stats` on the recorded "
          "target, the records of part 1's last repetition and part 4's: events, the replay's own "
          "time (--stats: reading the record and re-timing it, without the front end's start-up; "
          "events over the rate, median), million events a second (--stats), median and range.  "
          f"Goal: at least {GOAL_RATE:g} million a second on one core.", "",
          "| app | class | ranks | target | from | replays | events | replay (ms) | million events/s (median) "
          f"| min .. max | goal ≥ {GOAL_RATE:g} |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    met = total = 0
    for key, q in groups.items():
        if "replay_meps" not in q:
            continue
        rate = nums(q["replay_meps"])
        m = statistics.median(rate)
        ok = m >= GOAL_RATE
        met += ok
        total += 1
        part, app, cls, p, target = key
        ev = thousands(statistics.median(nums(q["replay_events"]))) if "replay_events" in q else "-"
        ms = paired(q.get("replay_events", {}), q["replay_meps"], lambda e, r: e / r / 1e3 if r else float("nan"))
        ms = (f"{statistics.median(ms):.3g}" if statistics.median(ms) < 1000 else
              f"{statistics.median(ms):,.0f}") if ms else "-"
        md.append(f"| {app} | {cls} | {p} | {target} | {FROM.get(part, part)} | {len(rate)} | {ev} | {ms} "
                  f"| {m:.2f} | {min(rate):.2f} .. {max(rate):.2f} | {'met' if ok else 'not met'} |")
        summary(rows, key, "replay_events_per_s", rate, "million/s", f">= {GOAL_RATE:g}", "yes" if ok else "no")
    if not total:
        return []
    return md + ["", f"{met} of {total} records replay at {GOAL_RATE:g} million events a second or more.", ""]


def part_live(groups, rows):
    md = ["## 4. Replay against the live run", "",
          "The live run (recording) and the replay of its record on the same target "
          "(on the CPUs the live run had: the replay loads the ranks' files in parallel), one after "
          "the other per repetition.  Live and replay: host wall time, "
          "median (the replay's: the whole `vaced replay` command).  Replay/live per repetition, "
          "its median and range; *core*: the replay's own --stats time over the live wall time.  "
          f"Goal: under {GOAL_LIVE:g} %.  *Same prediction*: the replay's job line gives the live "
          "run's prediction, in how many repetitions.", "",
          "| app | class | ranks | target | live (s) | replay (s) | replay / live (median) | min .. max "
          f"| core replay / live | goal < {GOAL_LIVE:g} % | same prediction |",
          "|---|---|---|---|---|---|---|---|---|---|---|"]
    n = 0
    for key, q in groups.items():
        if "live_wall_s" not in q or "replay_wall_s" not in q:
            continue
        live, rep = q["live_wall_s"], q["replay_wall_s"]
        ratio = paired(rep, live, lambda r, l: r / l * 100)
        if not ratio:
            continue
        core = paired(q.get("replay_s", {}), live, lambda r, l: r / l * 100)
        m = statistics.median(ratio)
        ok = m < GOAL_LIVE
        lp, rp = q.get("live_prediction_s", {}), q.get("replay_prediction_s", {})
        same = sum(1 for k in lp if k in rp and lp[k] == rp[k])
        _, app, cls, p, target = key
        core_cell = f"{statistics.median(core):.2f} %" if core else ""
        md.append(f"| {app} | {cls} | {p} | {target} | {statistics.median(nums(live)):.2f} "
                  f"| {statistics.median(nums(rep)):.3f} | {m:.2f} % | {min(ratio):.2f} .. {max(ratio):.2f} % "
                  f"| {core_cell} | {'met' if ok else 'not met'} | {same} of {len(lp)} |")
        summary(rows, key, "live_wall_s", nums(live), "s")
        summary(rows, key, "replay_wall_s", nums(rep), "s")
        summary(rows, key, "replay_over_live", ratio, "%", f"< {GOAL_LIVE:g}", "yes" if ok else "no")
        if core:
            summary(rows, key, "replay_core_over_live", core, "%", f"< {GOAL_LIVE:g}",
                    "yes" if statistics.median(core) < GOAL_LIVE else "no")
        rows.append({"app": app, "class": cls, "ranks": p, "target": target, "measure": "same_prediction",
                     "median": same, "min": "", "max": "", "n": len(lp), "unit": "runs", "goal": "", "met": ""})
        n += 1
    return md + [""] if n else []


def report(args):
    groups = load(args.runs)
    rows = []
    parts = part_overhead(groups, rows) + part_size(groups, rows) + part_speed(groups, rows) + \
        part_live(groups, rows)
    if not parts:
        raise Error(f"{args.runs}: no complete measurement to report")
    md = ["# Record and replay: recording cost, record size, replay speed", "",
          f"Produced by `{args.command}` on {args.date}, main at {args.commit}; every measurement "
          "in `replay.runs.csv`, the medians in `replay.csv`, how they were obtained in "
          "`replay-notes.md`.  Machine: "
          f"{args.cores} cores (`nproc`), {args.cpu}, kernel {args.kernel}.", ""] + parts
    os.makedirs(args.outdir, exist_ok=True)
    with open(os.path.join(args.outdir, "replay.md"), "w") as f:
        f.write("\n".join(md).rstrip("\n") + "\n")
    fields = ["app", "class", "ranks", "target", "measure", "median", "min", "max", "n", "unit", "goal", "met"]
    with open(os.path.join(args.outdir, "replay.csv"), "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=fields, lineterminator="\n")
        w.writeheader()
        w.writerows(rows)


def main():
    ap = argparse.ArgumentParser(description="bench/replay.sh's helpers (see the module's docstring)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    ls = sub.add_parser("logstat", help="FILES BYTES EVENTS of a record")
    ls.add_argument("dir")
    rp = sub.add_parser("report", help="replay.md and replay.csv from the runs")
    rp.add_argument("runs")
    rp.add_argument("outdir")
    rp.add_argument("--command", default="bench/replay.sh")
    rp.add_argument("--date", default="?")
    rp.add_argument("--cores", default="?")
    rp.add_argument("--kernel", default="?")
    rp.add_argument("--cpu", default="?")
    rp.add_argument("--commit", default="?")
    args = ap.parse_args()
    try:
        if args.cmd == "logstat":
            print(*logstat(args.dir))
        else:
            report(args)
    except (Error, OSError) as e:
        print(f"replay_report.py: {e}", file=sys.stderr)
        sys.exit(1)


if __name__ == "__main__":
    main()
