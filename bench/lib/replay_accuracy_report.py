#!/usr/bin/env python3
"""results/replay-accuracy.md from the output of tests/mpi/test_replay.py
(bench/replay-accuracy.sh runs both).

    replay_accuracy_report.py LOG COMMAND WHEN > results/replay-accuracy.md

Every row is labelled by the program the test ran (its first check line:
program, arguments, ranks, target), not by the section it sits in."""
import re
import sys

TOP = re.compile(r"^(ok  |FAIL) (\S.*)$")             # a check at the top level: a new subject
SUB = re.compile(r"^(ok  |FAIL)   (\S.*)$")            # a check about the current subject
RECORDS = re.compile(r"^(.*), (\d+) ranks on (\S+?)(?:\.topo)?: the live run records")
RECORDED = re.compile(r"^(.*), (\d+) ranks: recorded (.*)$")
SAME = re.compile(r"bit for bit \(live (\S+), replay (\S+)")
OTHER = re.compile(r"^on (\S+?)(?:\.topo)?: replay within .*\(live (\S+) s, replay (\S+) s, (\S+)%; flags (.*)\)$")
NOFLAG = re.compile(r"^on (\S+?)(?:\.topo)?: nothing flagged")
PROTO = re.compile(r"^(\S+) on (\S+?)(?:\.topo)?: every rank within (\S+) of the live run, nothing flagged "
                   r"\(worst rank (\S+)%, prediction live (\S+) s, replay (\S+) s; flags (.*)\)$")
ERROR = re.compile(r"^\s+\(its error against the live run: (\S+)\)")


def name(text):
    """A check's name without the detail check() appends: the " (...)"
    that closes at the end of the line."""
    for i in range(len(text)):
        if text.startswith(" (", i) and text.endswith(")"):
            depth = 0
            for j, c in enumerate(text[i + 1:], i + 1):
                depth += (c == "(") - (c == ")")
                if depth == 0:
                    break
            if j == len(text) - 1:
                return text[:i]
    return text


def recorded(text):
    """Where a record was made, from the test's words."""
    m = re.search(r"(\d+ KiB) threshold", text)
    return f"paper-16, eager threshold {m.group(1)}" if m else re.sub(r"^on | \(eager\)$", "", text)


def parse(lines):
    out = {"same": [], "other": [], "proto": [], "flagged": [], "totals": None}
    section = subject = None
    for line in lines:
        line = line.rstrip("\n")
        if line.startswith("== "):
            section, subject = line[3:], None
            continue
        if re.match(r"^\d+ passed, \d+ failed$", line):
            out["totals"] = line
            continue
        m = ERROR.match(line)
        if m and out["flagged"]:
            out["flagged"][-1]["error"] = m.group(1)
            continue
        sub = SUB.match(line)
        top = None if sub else TOP.match(line)
        if top:
            ok, text = top.group(1).strip() == "ok", top.group(2)
            m = RECORDS.match(text)
            if m:
                subject = dict(program=m.group(1).strip(), ranks=int(m.group(2)), target=m.group(3), section=section)
            elif RECORDED.match(text):
                m = RECORDED.match(text)
                subject = dict(program=m.group(1).strip(), ranks=int(m.group(2)), target=m.group(3), section=section)
            elif section and section.startswith("where the target changes"):
                out["flagged"].append(dict(check=name(text), ok=ok, error=""))
                subject = None
            elif section and "eager on the record" in section or section and "rendezvous on the record" in section:
                subject = None
            continue
        if not sub:
            continue
        ok, text = sub.group(1).strip() == "ok", sub.group(2)
        if section and section.startswith("where the target changes") and out["flagged"]:
            out["flagged"][-1]["check"] += "; " + name(text)
            out["flagged"][-1]["ok"] &= ok
            continue
        m = SAME.search(text)
        if m and subject:
            out["same"].append(dict(subject, live=m.group(1), replay=m.group(2), ok=ok))
            continue
        m = OTHER.match(text)
        if m and subject:
            out["other"].append(dict(subject, on=m.group(1), live=m.group(2), replay=m.group(3),
                                     diff=float(m.group(4)), flags=m.group(5), ok=ok))
            continue
        m = NOFLAG.match(text)
        if m and out["other"] and out["other"][-1]["on"] == m.group(1):
            out["other"][-1]["noflag_ok"] = ok
            continue
        m = PROTO.match(text)
        if m:
            out["proto"].append(dict(section=section, program=m.group(1), on=m.group(2), tol=m.group(3),
                                     worst=m.group(4), live=m.group(5), replay=m.group(6), flags=m.group(7),
                                     ranks=subject["ranks"] if subject else 16, ok=ok,
                                     recorded=recorded(subject["target"]) if subject else "paper-16"))
    return out


def program(row):
    return row["program"]


def main():
    log, command, when = sys.argv[1:4]
    with open(log) as f:
        d = parse(f.readlines())
    p = print
    p("# Record and replay: replays against live runs with the record's compute")
    p()
    p("A consistency check of the replay: each record is replayed and compared with a live run on the")
    p("same target whose ranks take the record's compute segments (`VACED_COMPUTE_FROM`), so that the")
    p("two differ by what the replay approximates alone (docs/replay.md). What a user sees, a replay")
    p("against ordinary live runs (their own computation), is")
    p("[replay-vs-live.md](replay-vs-live.md). Produced by")
    p(f"`{command}` ({when}; the test's checks: {d['totals'] or 'no totals: the run did not finish'});")
    p("notes in [replay-accuracy-notes.md](replay-accuracy-notes.md).")
    p()
    p("## On the recorded target")
    p()
    p("The mini-apps at class S, then the test's integration programs (tests/mpi/*.c,")
    p("tests/apps/patterns.c), each replayed on the target it was recorded on.")
    p()
    p("| program | ranks | target | live (s) | replay (s) | bit for bit |")
    p("|---|---|---|---|---|---|")
    for r in d["same"]:
        p(f"| {program(r)} | {r['ranks']} | {r['target']} | {r['live']} | {r['replay']} | "
          f"{'yes' if r['ok'] else 'NO'} |")
    p()
    p("## On other targets")
    p()
    p("| app | ranks | recorded on | replayed on | live (s) | replay (s) | difference | flags |")
    p("|---|---|---|---|---|---|---|---|")
    for r in d["other"]:
        p(f"| {program(r)} | {r['ranks']} | {r['target']} | {r['on']} | {r['live']} | {r['replay']} | "
          f"{r['diff']:+.3f} % | {r['flags']} |")
    if d["other"]:
        worst = max(d["other"], key=lambda r: abs(r["diff"]))
        flagged = sum(1 for r in d["other"] if r["flags"] != "none")
        p()
        p(f"Largest difference: {abs(worst['diff']):.3f} % over {len(d['other'])} replays "
          f"({program(worst)}, {worst['ranks']} ranks, {worst['on']}; the test's bound: 1 %); "
          f"{flagged} flagged.")
    p()
    p("## Protocol changes")
    p()
    p("Eager on the record and rendezvous on the target (a lower eager threshold), and the reverse;")
    p("each against a live run there with the record's compute. p16-eager-8k and p16-eager-1k are")
    p("paper-16 with its eager threshold (128 KiB) at 8 KiB and 1 KiB. Worst rank: the largest")
    p("difference of one rank's prediction.")
    p()
    p("| program | ranks | recorded on | replayed on | live (s) | replay (s) | worst rank | flags |")
    p("|---|---|---|---|---|---|---|---|")
    for r in d["proto"]:
        p(f"| {r['program']} | {r['ranks']} | {r['recorded']} | {r['on']} | {r['live']} | {r['replay']} | "
          f"{r['worst']} % | {r['flags']} |")
    p()
    p("## Where the target changes the execution")
    p()
    p("| case | the test's check | replay vs live (record's compute) |")
    p("|---|---|---|")
    for r in d["flagged"]:
        p(f"| {r['check']} | {'ok' if r['ok'] else 'FAIL'} | {r['error'] or '-'} |")


if __name__ == "__main__":
    main()
