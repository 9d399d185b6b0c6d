"""Summary of bench/transport-ab.sh's runs: per app, ranks and variant, the
median and range of wall time, wall / (computation / cores), system time,
context switches and system calls, and the predictions' median and range
(a transport must not move them beyond the runs' spread)."""
import csv
import statistics
import sys


def span(xs, fmt):
    return f"{fmt % statistics.median(xs)} [{fmt % min(xs)}-{fmt % max(xs)}]"


def main(path, cores):
    rows = list(csv.DictReader(open(path)))
    groups = {}
    for r in rows:
        groups.setdefault((r["app"], int(r["ranks"])), {}).setdefault(r["variant"], []).append(r)
    print("| app | ranks | variant | runs | wall (s) | wall/lim | system (s) | ctx switches | syscalls | prediction (s) |")
    print("|---|---:|---|---:|---|---|---|---|---|---|")
    for (app, n), by in groups.items():
        for v, rs in by.items():
            f = lambda k: [float(r[k]) for r in rs]
            ratio = [float(r["wall_s"]) / (float(r["compute_sum_s"]) / cores) for r in rs]
            print(f"| {app} | {n} | {v} | {len(rs)} | {span(f('wall_s'), '%.2f')} | {span(ratio, '%.2f')} | "
                  f"{span(f('sys_s'), '%.2f')} | {span([x / 1e3 for x in f('context_switches')], '%.0fk')} | "
                  f"{span([x / 1e6 for x in f('syscalls')], '%.2fM')} | {span(f('prediction_s'), '%.4f')} |")


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
