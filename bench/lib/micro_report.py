#!/usr/bin/env python3
"""bench/micro.sh's report: micro.csv -> micro.md.

usage: micro_report.py CSV MD [TARGET COMMAND]

Per benchmark, size and configuration the best repetition counts (the
least time, the most bandwidth: noise on this shared machine only slows
runs down).  RE compares times: predicted / real - 1 for latencies, real /
predicted - 1 for bandwidths (a bandwidth is bytes over a time).
tests/apps/patterns' figures (named PATTERN-KIND: hot or stream
computation) make one table of their own and their own summary rows."""
import csv
import statistics
import sys

PREDICTED = [("vaced-2core", "VACED on 2 cores"), ("vaced-1core", "VACED on 1 core")]
ORDER = ["latency", "bw", "bibw", "allreduce", "alltoall", "bcast", "barrier"]


def best(values, unit):
    return max(values) if unit == "MB/s" else min(values)


def relative_error(pred, real, unit):
    return real / pred - 1 if unit == "MB/s" else pred / real - 1


def fmt_size(b):
    for unit, n in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if b >= n and b % n == 0:
            return f"{b // n} {unit}"
    return f"{b} B"


def load(path):
    figures = {}
    for r in csv.DictReader(open(path)):
        key = (r["bench"], int(r["size"]), r["config"])
        figures.setdefault(key, (r["unit"], []))[1].append(float(r["value"]))
    return figures


def summary_cells(res):
    if not res:
        return ["–", "–", "–"]
    worst = max(res, key=abs)
    return [f"{statistics.mean(abs(x) for x in res) * 100:.1f} %", f"{worst * 100:+.1f} %",
            f"{sum(abs(x) <= 0.10 for x in res)} of {len(res)}"]


def main():
    if len(sys.argv) not in (3, 5):
        sys.exit(__doc__)
    figures = load(sys.argv[1])
    configs = [(c, label) for c, label in PREDICTED if any(k[2] == c for k in figures)]
    names = sorted({k[0] for k in figures}, key=lambda b: (ORDER.index(b) if b in ORDER else len(ORDER), b))
    benches = [b for b in names if "-" not in b]
    patterns = [b for b in names if "-" in b]
    md = ["# Microbenchmarks: VACED's predictions against vanilla runs", ""]
    if len(sys.argv) == 5:
        md += [f"- command: `{sys.argv[4]}`", f"- target description: `{sys.argv[3]}`"]
    reps = max(len(v[1]) for v in figures.values()) if figures else 0
    md += [f"- repetitions: {reps}; the best of each configuration counts", "",
           "Real: vanilla MPICH, 2 ranks on this machine's 2 cores (`-bind-to core`). "
           "RE = predicted time / real time − 1 (bandwidths: real / predicted − 1); "
           "`**` marks |RE| > 10 %.", ""]
    summary = {}

    def row(bench, size, unit, first_cells):
        """the table cells of one figure, its REs noted in summary"""
        real = figures.get((bench, size, "real"))
        if not real:
            return None
        r = best(real[1], unit)
        cells = first_cells + [f"{r:.4g}"]
        for c, _ in configs:
            p = figures.get((bench, size, c))
            if not p:
                cells += ["–", "–"]
                continue
            v = best(p[1], unit)
            e = relative_error(v, r, unit)
            summary.setdefault((bench, c), []).append(e)
            cells += [f"{v:.4g}", f"{e * 100:+.1f} %" + (" **" if abs(e) > 0.10 else "")]
        return "| " + " | ".join(cells) + " |"

    for bench in benches:
        sizes = sorted({k[1] for k in figures if k[0] == bench})
        unit = next(figures[k][0] for k in figures if k[0] == bench)
        md.append(f"## {bench} ({unit})")
        md.append("")
        md.append("| size | real | " + " | ".join(f"{label} | RE" for _, label in configs) + " |")
        md.append("|---|---|" + "---|---|" * len(configs))
        md += [r for r in (row(bench, size, unit, [fmt_size(size)]) for size in sizes) if r]
        md.append("")
    if patterns:
        md += ["## patterns (us per iteration)", "",
               "tests/apps/patterns: each iteration is a fixed computation (about 100 us here: `hot`, "
               "arithmetic on registers; `stream`, a triad through 48 MiB) and the pattern's "
               "communication; `compute` is the computation alone.", "",
               "| pattern | computation | size | real | " + " | ".join(f"{label} | RE" for _, label in configs) + " |",
               "|---|---|---|---|" + "---|---|" * len(configs)]
        for kind in ("hot", "stream"):
            for bench in (b for b in patterns if b.endswith("-" + kind)):
                for size in sorted({k[1] for k in figures if k[0] == bench}):
                    r = row(bench, size, "us", [bench[:-len(kind) - 1], kind, fmt_size(size) if size else "–"])
                    if r:
                        md.append(r)
        md.append("")
    md.append("## Summary: mean |RE| over the sizes, worst RE, sizes within 10 %")
    md.append("")
    md.append("| benchmark | " + " | ".join(f"{label}: mean \\|RE\\| | worst | within 10 %"
                                            for _, label in configs) + " |")
    md.append("|---|" + "---|---|---|" * len(configs))
    groups = [(b, [b]) for b in benches] + [("all", benches)]
    if patterns:
        groups += [(f"patterns, {kind} computation", [b for b in patterns if b.endswith("-" + kind)])
                   for kind in ("hot", "stream")] + [("all patterns", patterns)]
    for name, members in groups:
        cells = [name]
        for c, _ in configs:
            cells += summary_cells([e for (b, cc), v in summary.items() if cc == c and b in members for e in v])
        md.append("| " + " | ".join(cells) + " |")
    md.append("")
    with open(sys.argv[2], "w") as f:
        f.write("\n".join(md) + "\n")
    print(f"micro_report.py: wrote {sys.argv[2]}", file=sys.stderr)


main()
