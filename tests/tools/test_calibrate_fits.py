#!/usr/bin/env python3
"""The pure fits of vaced/tools/vaced-calibrate on made-up measurements,
against values worked out by hand: the wake-up (fit_wakeup) and Bmem's
factors by size (fit_mem_factors), the canary's coldness by computation
(overhead_coldness).  No MPI needed.

    python3 tests/tools/test_calibrate_fits.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import os
import sys
from importlib.machinery import SourceFileLoader

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check, finish  # noqa: E402

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
cal = SourceFileLoader("vaced_calibrate", os.path.join(ROOT, "vaced", "tools", "vaced-calibrate")).load_module()
US = 1e-6


def near(a, b):
    return a is not None and abs(a - b) <= 1e-9 * max(1.0, abs(b))


def rows(times_us, delays=cal.WAKEUP_DELAYS_US):
    return [{"delay_us": d, "oneway_median_s": t * US, "blocked_median_s": d * US, "samples": 320}
            for d, t in zip(delays, times_us)]


# a step from 18 to 30 us between 4 and 8 us of blocking
w = cal.fit_wakeup(rows([18, 18, 18, 25, 30, 30, 30, 30, 30, 30, 30]), 30 * US)
check("wake-up: a step is fitted", w["status"] == "fitted", w["status"])
check("wake-up: awake 18 us (median of the delays before the first above 24 us)", near(w["awake_s"], 18 * US))
check("wake-up: asleep 30 us (median of the larger half)", near(w["asleep_s"], 30 * US))
check("wake-up: the ramp starts at the last awake delay, 4 us", near(w["t_send_s"], 4 * US))
check("wake-up: the ramp ends at the first delay within 10 % of the step below asleep, 8 us",
      near(w["ramp_s"], 4 * US), f"ramp {w['ramp_s'] / US:g} us")
check("wake-up: wakeup_latency = c - awake = 12 us", near(w["wakeup_latency_s"], 12 * US))
# the order of the rows does not matter
w2 = cal.fit_wakeup(list(reversed(rows([18, 18, 18, 25, 30, 30, 30, 30, 30, 30, 30]))), 30 * US)
check("wake-up: rows in any order", near(w2["t_send_s"], 4 * US) and near(w2["awake_s"], 18 * US))
# no step of 10 %: nothing
w = cal.fit_wakeup(rows([20, 20.5, 19.8, 20.2, 21, 20.9, 21.5, 21, 20.7, 21.3, 21.9]), 30 * US)
check("wake-up: no step of 10 %, none fitted", w["status"].startswith("no step") and w["wakeup_latency_s"] is None,
      w["status"])
# the ping-pong's c no more than 5 % above the awake time: none
w = cal.fit_wakeup(rows([18, 18, 18, 25, 30, 30, 30, 30, 30, 30, 30]), 18.5 * US)
check("wake-up: c within 5 % of the awake time, none fitted", w["status"] != "fitted" and
      w["wakeup_latency_s"] is None, w["status"])

# the wake-up's ramp: no wake-up longer than the idle time before it
check("wakeup_ramp: 6 us kept when W 13 us <= after 14 us + 6 us", near(cal.stable_ramp(13 * US, 14 * US, 6 * US), 6 * US))
check("wakeup_ramp: stretched to W - after = 14 us when W 25 us > after 11 us + ramp 8 us",
      near(cal.stable_ramp(25 * US, 11 * US, 8 * US), 14 * US))

# bcpu_factors: c = 10 us, l = 2 us, Bmem 10 GB/s, Bcpu 1 GB/s
cf = dict(cal.fit_cpu_factors([(1000000, 1028 * US), (100000, 40 * US)], 10 * US, 2 * US, 10e9, 1e9, []))
check("bcpu_factors: 1 MB exchanged in 1028 us gets 2 (30 + 2000 / 2 - 2 us)", near(cf.get(1000000), 2.0))
check("bcpu_factors: 100 kB in 40 us, below its copies' 30 + 30 us, gets the factor that puts the CPU there: "
      "200 / 32 = 6.25", near(cf.get(100000), 6.25))
check("bcpu_factors: sizes in order", list(cf) == [100000, 1000000])
# Bmem 1000 GB/s: 100 MB exchanged in 330 us would need 2 s/Bcpu = 100 times less
cf = dict(cal.fit_cpu_factors([(10 ** 8, 330 * US)], 10 * US, 2 * US, 1e12, 1e9, []))
check("bcpu_factors: a factor above 100 (200 ms / 302 us) is held at 100", near(cf.get(10 ** 8), 100.0))

# bmem_factors: c = 20 us, Bmem 3 GB/s (3 s/Bmem = 1 ns/B)
c, bmem, thr = 20 * US, 3e9, 131072
pp = [{"size": s, "median_s": t * US} for s, t in
      ((0, 21), (1024, 21), (8192, 30), (65536, 40), (262144, 3 * 20 + 262.144 / 2), (1048576, 50))]
f = dict(cal.fit_mem_factors(pp, thr, "median_s", c, bmem))
check("bmem_factors: 1024 B (copies 1 us < 10 % of c), the largest size below the others, gets 1 (the line)",
      near(f.get(1024), 1.0) and 0 not in f, f"points {sorted(f)}")
check("bmem_factors: 8192 B (copies 8.2 us) gets 8.192 / (30 - 20) = 0.8192", near(f.get(8192), 0.8192))
check("bmem_factors: 65536 B eager gets 65.536 / 20 = 3.2768", near(f.get(65536), 3.2768))
check("bmem_factors: 262144 B rendezvous (n = 3) gets 2", near(f.get(262144), 2.0))
check("bmem_factors: 1 MiB measured below 3 c gets the largest factor, 100", near(f.get(1048576), 100.0))
f = dict(cal.fit_mem_factors(pp[2:], thr, "median_s", c, bmem))
check("bmem_factors: no size below the points, no point at 1", sorted(f) == [8192, 65536, 262144, 1048576],
      f"points {sorted(f)}")

# overhead_coldness: the mean of both ranks' medians, never decreasing in C, at most 100
oc = cal.overhead_coldness([{"compute_us": c_, "send_cold_median": s_, "recv_cold_median": r_}
                            for c_, s_, r_ in ((0, 1.0, 1.2), (10, 3.0, 4.0), (30, 3.0, 3.0),
                                               (100, 20.0, 30.0), (300, 150.0, 170.0))])
check("overhead_coldness: means, a dip held at the level before it, capped at 100",
      oc == [(0, 1.1), (10, 3.5), (30, 3.5), (100, 25.0), (300, 100.0)], str(oc))
check("overhead_coldness: none without a canary (a bench that reads 0 or none)",
      cal.overhead_coldness([{"compute_us": 0, "send_cold_median": 0, "recv_cold_median": 0}]) is None
      and cal.overhead_coldness([{"compute_us": 0}]) is None)

finish()
