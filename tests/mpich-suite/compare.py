#!/usr/bin/env python3
"""Compares the results of MPICH's test suite on the two builds.

Called by run.sh, not meant to be run by hand (but it can be: it only reads
files).  Reads, for each build B in (vanilla, vaced), the JUnit files that
MPICH's runtests wrote, RESULTS/B/DIR.junit.xml ("/" in DIR as "_"), and RESULTS/B/times.tsv
(directory, seconds, runtests exit status).  Writes OUT.md (summary) and
OUT.csv (one row per test), prints per-directory counts and the lists of
regressions and of tests that pass only on the patched build, and ends
with "N passed, M failed": a test is one test case (program, process count,
arguments, environment) compared across the builds; it passes when the
patched build passes it or both builds fail it, and fails (a regression)
when the unpatched build passes it and the patched build does not.
Exits 1 if there is a regression, 2 on a usage error.
"""
import argparse
import csv
import html
import os
import re
import sys

BUILDS = ("vanilla", "vaced")
TESTCASE = re.compile(r'<testcase name="([^"]*)"([^>]*)>')
TIME = re.compile(r'time="([0-9.eE+-]+)"')


def parse_junit(path):
    """[(id, dir, status, seconds, output)] in file order; status is pass,
    fail or skip.  Tolerates a file cut short (runtests killed)."""
    text = open(path, encoding="utf-8", errors="replace").read()
    out = []
    seen = {}
    matches = list(TESTCASE.finditer(text))
    for i, m in enumerate(matches):
        end = matches[i + 1].start() if i + 1 < len(matches) else len(text)
        body = text[m.end():end]
        name = html.unescape(m.group(1))
        # " - ./pt2pt/sendrecv1 4 args env" (runtests's own leading number is
        # empty or a count: drop everything up to the first "./")
        name = name[name.find("./") + 2:] if "./" in name else name.lstrip(" -0123456789")
        tid = " ".join(name.split())
        directory = tid.split("/", 1)[0]
        seen[tid] = seen.get(tid, 0) + 1
        if seen[tid] > 1:                       # the same line twice in a testlist
            tid = f"{tid} #{seen[tid]}"
        if "<failure" in body:
            status = "fail"
        elif "<skipped" in body:
            status = "skip"
        else:
            status = "pass"
        t = TIME.search(m.group(2))
        seconds = float(t.group(1)) if t else None
        output = [l[3:] for l in body.splitlines() if l.startswith("## ")
                  and not l.startswith("## Test output")]
        out.append((tid, directory, status, seconds, output))
    return out


NO_ERRORS = re.compile(r"^\s*No [Ee]rrors\s*$")
CRASH = re.compile(r"BAD TERMINATION|Assertion failed|[Ss]egmentation fault|signal \d+|Aborted|"
                   r"core dumped|Fatal error in|EXIT CODE: (?!0)")


def failure_kind(status, output):
    """What a failed test's output says went wrong, in a few words."""
    if status == "missing":
        return "not run"
    if status != "fail":
        return ""
    text = "\n".join(output)
    if "Failed to build" in text:
        return "build failure"
    if "HANG: no process of the job used CPU time" in text:
        return "hang (no CPU time: deadlock, ended by the watchdog)"
    if "TIMED OUT" in text or "timed out" in text or "Timeout" in text and "uptime:" in text:
        return "timeout (hang)"
    rest = [l for l in output if l.strip() and not l.startswith("vaced: ")]
    if len(rest) < len([l for l in output if l.strip()]) and rest and all(NO_ERRORS.match(l) for l in rest):
        return "extra output (vaced lines only)"
    if CRASH.search(text):
        return "crash or abort"
    if not any(NO_ERRORS.match(l) for l in output):
        return "no 'No Errors' (wrong result or error exit)"
    return "unexpected output"


def read_times(path):
    times = {}
    if os.path.exists(path):
        for line in open(path):
            f = line.rstrip("\n").split("\t")
            if len(f) >= 3:
                times[f[0]] = (float(f[1]), int(f[2]))
    return times


class Diagnoses:
    """diagnoses.txt: "test id :: note" for one test, or "re:REGEX :: note"
    for every test whose "id | failure kind" (the vaced build's failure, as
    the summary prints it) matches REGEX (Python re.search); an exact id
    wins over patterns, the first matching pattern over later ones."""

    def __init__(self, path):
        self.exact, self.patterns = {}, []
        if path and os.path.exists(path):
            for line in open(path, encoding="utf-8"):
                line = line.strip()
                if not line or line.startswith("#") or " :: " not in line:
                    continue
                tid, note = line.split(" :: ", 1)
                if tid.startswith("re:"):
                    self.patterns.append((re.compile(tid[3:].strip()), note.strip()))
                else:
                    self.exact[" ".join(tid.split())] = note.strip()

    def get(self, row):
        if row["id"] in self.exact:
            return self.exact[row["id"]]
        key = f"{row['id']} | {row['vaced_kind']}"
        for rx, note in self.patterns:
            if rx.search(key):
                return note
        return None


def fmt_s(x):
    return "" if x is None else f"{x:.1f}"


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--results", required=True, help="directory with vanilla/ and vaced/")
    ap.add_argument("--dirs", required=True, help="comma-separated directories, in order")
    ap.add_argument("--out", required=True, help="prefix of the .md and .csv files")
    ap.add_argument("--diagnoses", help="file of 'test id :: one-line diagnosis'")
    ap.add_argument("--title", default="MPICH test suite: patched (vaced) vs unpatched (vanilla)")
    ap.add_argument("--settings", action="append", default=[], help="a line for the settings list")
    ap.add_argument("--append", help="a Markdown file appended to the summary (the analysis of known regressions)")
    args = ap.parse_args()
    dirs = [d for d in args.dirs.split(",") if d]

    results = {}        # build -> {tid: (dir, status, seconds, output)}
    order = []          # test ids in first-seen order
    known = set()
    times = {}
    for b in BUILDS:
        results[b] = {}
        times[b] = read_times(os.path.join(args.results, b, "times.tsv"))
        for d in dirs:
            path = os.path.join(args.results, b, d.replace("/", "_") + ".junit.xml")
            if not os.path.exists(path):
                continue
            for tid, directory, status, seconds, output in parse_junit(path):
                results[b][tid] = (d, status, seconds, output)
                if tid not in known:
                    known.add(tid)
                    order.append(tid)

    rows = []
    for tid in order:
        d = (results["vanilla"].get(tid) or results["vaced"].get(tid))[0]
        st = {b: results[b][tid][1] if tid in results[b] else "missing" for b in BUILDS}
        sec = {b: results[b][tid][2] if tid in results[b] else None for b in BUILDS}
        if st["vanilla"] == "skip" and st["vaced"] in ("skip", "missing") or \
           st["vaced"] == "skip" and st["vanilla"] == "missing":
            verdict = "skipped"
        elif st["vanilla"] == "pass" and st["vaced"] == "pass":
            verdict = "pass"
        elif st["vanilla"] == "pass":
            verdict = "regression"
        elif st["vaced"] == "pass":
            verdict = "vaced-only"
        else:
            verdict = "both-fail"
        kind = {b: failure_kind(st[b], results[b][tid][3] if tid in results[b] else []) for b in BUILDS}
        rows.append(dict(id=tid, dir=d, vanilla=st["vanilla"], vaced=st["vaced"], verdict=verdict,
                         vanilla_s=sec["vanilla"], vaced_s=sec["vaced"],
                         vanilla_kind=kind["vanilla"], vaced_kind=kind["vaced"]))

    notes = Diagnoses(args.diagnoses)
    per_dir = []
    for d in dirs:
        r = [x for x in rows if x["dir"] == d and x["verdict"] != "skipped"]
        per_dir.append(dict(
            dir=d, tests=len(r),
            vanilla=sum(x["vanilla"] == "pass" for x in r),
            vaced=sum(x["vaced"] == "pass" for x in r),
            regressions=sum(x["verdict"] == "regression" for x in r),
            vaced_only=sum(x["verdict"] == "vaced-only" for x in r),
            skipped=sum(x["dir"] == d and x["verdict"] == "skipped" for x in rows),
            t_vanilla=times["vanilla"].get(d, (None, 0))[0],
            t_vaced=times["vaced"].get(d, (None, 0))[0],
            rc_vanilla=times["vanilla"].get(d, (None, None))[1],
            rc_vaced=times["vaced"].get(d, (None, None))[1]))
    counted = [x for x in rows if x["verdict"] != "skipped"]
    regressions = [x for x in counted if x["verdict"] == "regression"]
    vaced_only = [x for x in counted if x["verdict"] == "vaced-only"]
    both_fail = [x for x in counted if x["verdict"] == "both-fail"]
    total_t = {b: sum(p[f"t_{b}"] or 0 for p in per_dir) for b in BUILDS}
    dropped = {}        # prediction lines dropped by mpiexec-filter.sh
    warned = {}         # "vaced: warning: ... approximate" lines dropped by it
    for b in BUILDS:
        dropped[b] = warned[b] = 0
        for d in dirs:
            path = os.path.join(args.results, b, d.replace("/", "_") + ".dropped")
            if os.path.exists(path):
                for line in open(path, errors="replace"):
                    if line.startswith("vaced: warning: "):
                        warned[b] += 1
                    else:
                        dropped[b] += 1

    # stdout
    w = max([len(d) for d in dirs] + [9])
    print(f"{'directory':<{w}} {'tests':>5} {'vanilla':>7} {'vaced':>7} {'regr':>5} {'v-only':>6}"
          f" {'t_vanilla':>9} {'t_vaced':>8}")
    for p in per_dir:
        print(f"{p['dir']:<{w}} {p['tests']:>5} {p['vanilla']:>7} {p['vaced']:>7} {p['regressions']:>5}"
              f" {p['vaced_only']:>6} {fmt_s(p['t_vanilla']):>9} {fmt_s(p['t_vaced']):>8}")
    print(f"{'total':<{w}} {len(counted):>5} {sum(p['vanilla'] for p in per_dir):>7}"
          f" {sum(p['vaced'] for p in per_dir):>7} {len(regressions):>5} {len(vaced_only):>6}"
          f" {total_t['vanilla']:>9.1f} {total_t['vaced']:>8.1f}")
    for p in per_dir:
        for b in BUILDS:
            if p[f"rc_{b}"] is None:
                print(f"note: {p['dir']} was not run on {b}")
    kinds = {}
    for x in regressions:
        kinds[x["vaced_kind"]] = kinds.get(x["vaced_kind"], 0) + 1
    kinds_text = ", ".join(f"{n} {k}" for k, n in sorted(kinds.items(), key=lambda kv: -kv[1]))
    print(f"regressions (pass on vanilla, not on vaced): {len(regressions)}" +
          (f" ({kinds_text})" if kinds else ""))
    only_lines = sum(x["vaced_kind"] == "extra output (vaced lines only)" for x in regressions)
    if only_lines:
        print(f"  of which {only_lines} fail only by vaced's own output lines (the test printed No Errors);"
              f" {len(regressions) - only_lines} fail otherwise")
    unrun = {p["dir"] for p in per_dir if p["rc_vaced"] is None}
    for d in sorted(unrun):
        n = sum(x["dir"] == d for x in regressions)
        if n:
            print(f"  REGRESSION all {n} tests of {d} that pass on vanilla: vaced did not run {d}")
    for x in regressions:
        if x["dir"] in unrun:
            continue
        note = notes.get(x)
        print(f"  REGRESSION {x['id']}: vaced {x['vaced_kind']}" + (f"; {note}" if note else ""))
        out = results["vaced"].get(x["id"], (None, None, None, []))[3]
        for line in out[:4]:
            print(f"      | {line[:200]}")
    print(f"pass on vaced only (fail on vanilla): {len(vaced_only)}")
    for x in vaced_only:
        print(f"  vaced-only {x['id']}: vanilla {x['vanilla']}")
    print(f"fail on both: {len(both_fail)}" + (": " + ", ".join(x["id"] for x in both_fail[:8]) if both_fail else "") +
          (f", ... (all in {os.path.basename(args.out)}.md)" if len(both_fail) > 8 else ""))

    # CSV, one row per test
    os.makedirs(os.path.dirname(os.path.abspath(args.out)), exist_ok=True)
    with open(args.out + ".csv", "w", newline="") as f:
        wr = csv.writer(f)
        wr.writerow(["directory", "test", "vanilla", "vaced", "verdict", "vanilla_s", "vaced_s",
                     "vanilla_failure", "vaced_failure"])
        for x in rows:
            wr.writerow([x["dir"], x["id"], x["vanilla"], x["vaced"], x["verdict"],
                         fmt_s(x["vanilla_s"]), fmt_s(x["vaced_s"]), x["vanilla_kind"], x["vaced_kind"]])

    # Markdown summary
    with open(args.out + ".md", "w") as f:
        f.write(f"# {args.title}\n\n")
        f.write("Written by `tests/mpich-suite/run.sh`; one row per test in "
                f"`{os.path.basename(args.out)}.csv`.\n\n")
        for s in args.settings:
            f.write(f"- {s}\n")
        f.write(f"- wall time of the test runs: vanilla {total_t['vanilla']:.0f} s, "
                f"vaced {total_t['vaced']:.0f} s\n")
        f.write(f"- rank 0's `vaced: prediction` line, dropped by `mpiexec-filter.sh`, was seen in "
                f"{dropped['vaced']} vaced runs (and {dropped['vanilla']} vanilla runs); its warning that a "
                f"prediction is approximate (RMA, dynamic processes, threads, gentran schedules), dropped too, in "
                f"{warned['vaced']} vaced runs (and {warned['vanilla']} vanilla runs)\n\n")
        f.write("| directory | tests | vanilla pass | vaced pass | regressions | vaced only | "
                "skipped | vanilla s | vaced s |\n")
        f.write("|---|---:|---:|---:|---:|---:|---:|---:|---:|\n")
        for p in per_dir:
            f.write(f"| {p['dir']} | {p['tests']} | {p['vanilla']} | {p['vaced']} | {p['regressions']} | "
                    f"{p['vaced_only']} | {p['skipped']} | {fmt_s(p['t_vanilla'])} | {fmt_s(p['t_vaced'])} |\n")
        f.write(f"| **total** | {len(counted)} | {sum(p['vanilla'] for p in per_dir)} | "
                f"{sum(p['vaced'] for p in per_dir)} | {len(regressions)} | {len(vaced_only)} | "
                f"{sum(p['skipped'] for p in per_dir)} | {total_t['vanilla']:.0f} | {total_t['vaced']:.0f} |\n\n")
        f.write("*tests*: test cases run (program, process count, arguments, environment); "
                "*skipped*: marked xfail in MPICH's testlists, run by neither build.\n\n")
        f.write(f"## Regressions ({len(regressions)}): pass on vanilla, fail on vaced\n\n")
        if not regressions:
            f.write("None.\n")
        else:
            f.write(f"By what the output shows: {kinds_text}. *extra output (vaced lines only)*: the test "
                    "printed `No Errors` and nothing else but lines starting with `vaced: `, which runtests "
                    f"counts as a failure. Regressions other than those: **{len(regressions) - only_lines}**.\n\n")
        for d in sorted(unrun):
            n = sum(x["dir"] == d for x in regressions)
            if n:
                f.write(f"- all {n} tests of `{d}` that pass on vanilla: vaced did not run `{d}`\n")
        for x in regressions:
            if x["dir"] in unrun:
                continue
            note = notes.get(x)
            f.write(f"- `{x['id']}`: {x['vaced_kind']}" + (f"; {note}" if note else "") + "\n")
        f.write(f"\n## Pass on vaced only ({len(vaced_only)})\n\n")
        if not vaced_only:
            f.write("None.\n")
        for x in vaced_only:
            note = notes.get(x)
            f.write(f"- `{x['id']}` (vanilla: {x['vanilla']})" + (f": {note}" if note else "") + "\n")
        f.write(f"\n## Fail on both builds ({len(both_fail)})\n\n")
        if not both_fail:
            f.write("None.\n")
        for x in both_fail:
            note = notes.get(x)
            f.write(f"- `{x['id']}`: vanilla {x['vanilla_kind']}, vaced {x['vaced_kind']}" +
                    (f"; {note}" if note else "") + "\n")
        not_run = [(p["dir"], b) for p in per_dir for b in BUILDS if p[f"rc_{b}"] is None]
        if not_run:
            f.write("\n## Not run\n\n")
            for d, b in not_run:
                f.write(f"- {d} on {b}\n")
        if args.append and os.path.exists(args.append):
            f.write("\n" + open(args.append, encoding="utf-8").read())

    print(f"vaced prediction lines dropped by mpiexec-filter.sh: vaced {dropped['vaced']}, vanilla {dropped['vanilla']};"
          f" approximate-prediction warnings: vaced {warned['vaced']}, vanilla {warned['vanilla']}")
    print(f"summary: {args.out}.md, {args.out}.csv")
    print(f"{len(counted) - len(regressions)} passed, {len(regressions)} failed")
    return 1 if regressions else 0


if __name__ == "__main__":
    sys.exit(main())
