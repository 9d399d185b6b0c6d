#!/usr/bin/env python3
"""Fit a VACED target description to measured MPI ping-pong round trips.

usage: fit.py hop0 NAME MEASUREMENTS > FILE.topo
       fit.py net  NAME MEASUREMENTS BMEM_B_PER_S RATE > FILE.topo

MEASUREMENTS: lines "BYTES ROUNDTRIP_S", several per size (repetitions); per
size the fastest is used (the machine is shared: the minimum is the best
estimate of the unloaded link).  One-way time t(s) = round trip / 2.

VACED's model (README "How it works", docs/model.md) for a blocking
one-way message of s bytes between two ranks h hops apart:
  h = 0:  3 s/Bmem                      (send copy + L(s,0) + receive copy)
  h > 0:  k l(h) + s/Bnet + 2 s/Bmem    k = 1 eager, 3 rendezvous (REQ, ACK, DATA)
Both fits minimise the sum of squared relative errors over all measured sizes
(0 B to 4 MiB: every size counts alike, as the apps' messages span that range).
hop0: both ranks on one node: t(s) = 3 s/Bmem has no latency term, so it
      cannot fit small messages at all; Bmem is fitted to the sizes >= 64 KiB
      only (relative least squares through the origin), and the 0-byte
      one-way time, the latency lost at hop 0, is reported.
net:  two single-core nodes 1 hop apart: l(1) and 1/Bnet are fitted, Bmem
      given (from the hop0 fit).
"""
import os
import sys

sys.dont_write_bytecode = True       # no __pycache__ in the tree
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "vaced", "tools"))
from vaced_fit import wls  # noqa: E402  (the fit vaced-calibrate makes)

EAGER = 131072          # MPICH's MPIR_CVAR_CH3_EAGER_MAX_MSG_SIZE, the topo default


def load(path):
    by = {}
    for line in open(path):
        f = line.split()
        if len(f) >= 2:
            by.setdefault(int(f[0]), []).append(float(f[1]))
    return sorted((s, min(v) / 2) for s, v in by.items())


def table(pts, model):
    out = ["# measured one-way times (fastest round trip / 2) and the fitted model:",
           "#   bytes      measured_us   model_us   model/measured-1"]
    for s, t in pts:
        m = model(s)
        out.append(f"#   {s:<10d} {t * 1e6:11.2f} {m * 1e6:10.2f}   {m / t - 1:+7.1%}")
    return out


def main():
    mode, name, path = sys.argv[1:4]
    pts = load(path)
    if len(pts) < 3:
        sys.exit("fit.py: too few sizes")
    if mode == "hop0":
        t0 = pts[0][1]
        big = [(s, t) for s, t in pts if s >= 65536]
        slope = wls([(s,) for s, _ in big], [t for _, t in big])[0][0]      # 3/Bmem
        bmem = 3 / slope
        model = lambda s: 3 * s / bmem
        head = [f"# {name}: this machine's 2 cores as a 2-core target: one node, hop 0 between",
                "# the ranks, so a message costs 3 s/Bmem and no latency (docs/model.md).",
                "# Written by bench/validate.sh from a vanilla MPICH (ch3:sock) ping-pong on",
                "# localhost (cores 0-1): one-way = 3 s/Bmem fitted to the sizes >= 64 KiB (least",
                f"# squares of relative errors).  The {t0 * 1e6:.2f} us one-way time of a {pts[0][0]}-byte message,",
                "# the per-message latency, cannot be expressed at hop 0: every message is",
                "# predicted about that much faster than it is.",
                ]
        body = [f"name            = {name}",
                "cores           = 2",
                "cores_per_node  = 2",
                "topology        = hierarchy",
                "hops            = 0 1            # 0 between the two ranks (same node)",
                f"bmem            = {bmem / 1e9:.4f} GB/s",
                "bnet            = 1 GB/s         # unused: no two nodes",
                "latency         = 1 us           # unused",
                "latency_per_hop = 1 ns           # unused",
                "eager_threshold = 128 KiB",
                "mapping         = block"]
    elif mode == "net":
        bmem = float(sys.argv[4])
        rate = sys.argv[5]
        # the copies' 2 s/Bmem are known: fit the rest, weighing by the whole t
        (lat, inv), _ = wls([(1 if s <= EAGER else 3, s) for s, _ in pts],
                            [t - 2 * s / bmem for s, t in pts], [1 / (t * t) for _, t in pts])
        lh = 1e-9
        if inv <= 0 or lat <= lh:
            sys.exit(f"fit.py: implausible fit (l = {lat}, 1/Bnet = {inv})")
        bnet = 1 / inv
        model = lambda s: (1 if s <= EAGER else 3) * lat + s / bnet + 2 * s / bmem
        head = [f"# {name}: two single-core nodes joined by a veth link shaped with",
                f"# tc tbf rate {rate} (bench/validate.sh's network-emulated target: 2 network",
                "# namespaces, one rank each, vanilla MPICH ch3:sock over TCP).",
                "# Fitted from a vanilla ping-pong across the namespaces: one-way =",
                "# k l(1) + s/Bnet + 2 s/Bmem, k = 1 eager / 3 rendezvous; l(1) and Bnet by least",
                "# squares of relative errors over 0 B .. 4 MiB, Bmem from the localhost fit.",
                f"# l(1) = {lat * 1e6:.2f} us, Bnet = {bnet / 1e6:.2f} MB/s.",
                ]
        body = [f"name            = {name}",
                "cores           = 2",
                "cores_per_node  = 1",
                "topology        = hierarchy",
                "hops            = 0 1            # the two nodes are 1 hop apart",
                f"bmem            = {bmem / 1e9:.4f} GB/s",
                f"bnet            = {bnet / 1e6:.3f} MB/s",
                f"latency         = {(lat - lh) * 1e6:.3f} us      # l0; l(1) = l0 + 1 ns",
                "latency_per_hop = 1 ns",
                "eager_threshold = 128 KiB",
                "mapping         = block"]
    else:
        sys.exit(__doc__)
    print("\n".join(head + table(pts, model) + body))
    print(f"bmem_Bps={bmem:.6e}", file=sys.stderr)


main()
