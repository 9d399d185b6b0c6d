#!/usr/bin/env python3
"""bench/lib/micro_report.py, bench/micro.sh's arithmetic, on a made-up
CSV worked out by hand: the best repetition (least time, most bandwidth),
RE of times for latencies and bandwidths alike, the summary per benchmark
and over all; tests/apps/patterns' figures in a table and summary rows of
their own.  No MPI needed.

    python3 tests/tools/test_micro_report.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import os
import re
import subprocess
import sys
import tempfile

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
REPORT = os.path.join(ROOT, "bench", "lib", "micro_report.py")

# (bench, size, unit): configuration -> the repetitions' figures
FIGURES = {
    ("latency", 1, "us"): {"real": [10, 12, 11], "vaced-2core": [10.5, 11, 12], "vaced-1core": [9, 8.5, 10]},
    ("bw", 1024, "MB/s"): {"real": [100, 90, 95], "vaced-2core": [80, 79, 78], "vaced-1core": [125, 120, 110]},
    ("exchange-hot", 1024, "us"): {"real": [200, 210], "vaced-2core": [216, 230], "vaced-1core": [190, 184]},
    ("exchange-stream", 1024, "us"): {"real": [100, 110], "vaced-2core": [100, 101], "vaced-1core": [130, 140]},
}

with tempfile.TemporaryDirectory() as tmp:
    csv_path, md_path = os.path.join(tmp, "m.csv"), os.path.join(tmp, "m.md")
    with open(csv_path, "w") as f:
        f.write("run_id,config,rep,bench,size,value,unit,target\n")
        for (bench, size, unit), cfgs in FIGURES.items():
            for cfg, values in cfgs.items():
                for rep, v in enumerate(values, 1):
                    f.write(f"20260101T000000Z,{cfg},{rep},{bench},{size},{v},{unit},t.topo\n")
    p = subprocess.run([sys.executable, REPORT, csv_path, md_path], capture_output=True, text=True)
    check("micro_report.py exits 0", p.returncode == 0, p.stderr.strip()[-300:])
    md = open(md_path).read() if os.path.exists(md_path) else ""
    row = lambda head: next((l for l in md.splitlines() if l.startswith(head)), "no row")

    # latency: best real 10, VACED 2 cores 10.5 (+5 %), 1 core 8.5 (-15 %)
    check("latency 1 B: the least times, RE +5.0 % and -15.0 % **",
          row("| 1 B |") == "| 1 B | 10 | 10.5 | +5.0 % | 8.5 | -15.0 % ** |", row("| 1 B |"))
    # bw: best real 100 MB/s, VACED 80 (time +25 %), 125 (time -20 %)
    check("bw 1 KiB: the most bandwidth, RE of the times +25.0 % ** and -20.0 % **",
          row("| 1 KiB |") == "| 1 KiB | 100 | 80 | +25.0 % ** | 125 | -20.0 % ** |", row("| 1 KiB |"))
    check("summary, latency", row("| latency |") == "| latency | 5.0 % | +5.0 % | 1 of 1 | 15.0 % | -15.0 % | 0 of 1 |",
          row("| latency |"))
    check("summary over all: the microbenchmarks only",
          row("| all |") == "| all | 15.0 % | +25.0 % | 1 of 2 | 17.5 % | -20.0 % | 0 of 2 |", row("| all |"))
    # patterns: exchange-hot best real 200, VACED 216 (+8 %), 184 (-8 %);
    # exchange-stream 100, 100 (0 %), 130 (+30 %)
    check("pattern exchange, hot: one row with its computation",
          row("| exchange | hot |") == "| exchange | hot | 1 KiB | 200 | 216 | +8.0 % | 184 | -8.0 % |",
          row("| exchange | hot |"))
    check("pattern exchange, stream",
          row("| exchange | stream |") == "| exchange | stream | 1 KiB | 100 | 100 | +0.0 % | 130 | +30.0 % ** |",
          row("| exchange | stream |"))
    check("no section of its own for a pattern", "## exchange" not in md)
    check("summary of the patterns",
          row("| all patterns |") == "| all patterns | 4.0 % | +8.0 % | 2 of 2 | 19.0 % | +30.0 % | 1 of 2 |",
          row("| all patterns |"))
    check("summary of the patterns with hot computation",
          row("| patterns, hot computation |") ==
          "| patterns, hot computation | 8.0 % | +8.0 % | 1 of 1 | 8.0 % | -8.0 % | 1 of 1 |",
          row("| patterns, hot computation |"))
    check("the sections come in the benchmark order", re.search(r"## latency.*## bw", md, re.S) is not None)

finish()
