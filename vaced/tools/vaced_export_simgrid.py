"""vaced export-simgrid: a SimGrid platform for SMPI that describes the same
target as a VACED description, as far as SMPI can (see HELP)."""
import os
import subprocess

import vaced_cli as cli

HELP = """\
usage: vaced export-simgrid T -n P [-o DIR]

Writes, for P ranks of target T (a description VACED accepts), the files
SMPI needs to simulate the same machine:

  DIR/platform.xml   one host per rank (speed 1 Gf), and for every ordered
                     pair of ranks a route through one FATPIPE link (no
                     sharing, as VACED has no congestion) whose latency and
                     bandwidth are VACED's for that pair: L(0) = l(hops), or
                     the same-node latency, and the rate of a large message
                     (bnet between nodes, bmem on one node); pairs with the
                     same figures share a link description
  DIR/hostfile       the hosts in rank order (smpirun -hostfile)
  DIR/smpirun.args   smpirun's options, one a line: the platform and host
                     file, -np P, SMPI's bandwidth and latency factors off,
                     the target's eager threshold as SMPI's detached and
                     asynchronous thresholds, MPICH's collective selector,
                     host speed 1 Gf (computation as measured), the
                     target's per-message overheads, the loopback at bmem

DIR defaults to ./simgrid-T-P.  Run a program with
  smpirun $(cat DIR/smpirun.args) ./program args

What SMPI does not describe, and VACED does: the sender's copy into its
send buffer at bmem, per-size factors (bnet_factors, bmem_factors), the
connection warm-up, the receiving CPU's turns, the wake-up, bcpu, the
injection queue, the early queue (docs/model.md).  Routes are P^2 lines:
at 256 ranks about 65,000.
"""


def parse(argv):
    """(T, P, DIR or None), or None once the help is printed."""
    ap = cli.ArgParser("export-simgrid", HELP)
    ap.add_argument("-n", type=cli.positive("-n"))
    ap.add_argument("-o")
    got = ap.parse(argv)
    if got is None:
        return None
    o, pos = got
    if len(pos) > 1:
        raise cli.Usage(f"takes one target, got '{pos[0]}' and '{pos[1]}'")
    if not pos or o.n is None:
        raise cli.Usage("needs a target and -n: vaced export-simgrid paper-16 -n 16")
    return pos[0], o.n, o.o


def model(path, ranks):
    """VACED's parameters and per-pair figures, from vaced-check --pairs."""
    r = subprocess.run([cli.checker(), "--pairs", path, str(ranks)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if r.returncode != 0:
        raise cli.Failure(r.stderr.strip() or f"target check failed (status {r.returncode})")
    params, pairs = {}, []
    for line in r.stdout.splitlines():
        f = line.split()
        if f[0] == "param":
            params[f[1]] = float(f[2])
        elif f[0] == "pair":
            pairs.append((int(f[1]), int(f[2]), float(f[3]), float(f[4])))
    return params, pairs


def write_platform(path, ranks, pairs):
    links = {}
    keys = [(f"{lat:.9g}", f"{bw:.9g}") for _, _, lat, bw in pairs]
    with open(path, "w") as f:
        f.write("<?xml version='1.0'?>\n"
                '<!DOCTYPE platform SYSTEM "https://simgrid.org/simgrid.dtd">\n'
                '<platform version="4.1">\n'
                '  <!-- written by vaced export-simgrid: one FATPIPE link per (latency, bandwidth) -->\n'
                '  <zone id="target" routing="Full">\n')
        for r in range(ranks):
            f.write(f'    <host id="r{r}" speed="1Gf"/>\n')
        for key in keys:
            if key not in links:
                links[key] = f"c{len(links)}"
                f.write(f'    <link id="{links[key]}" latency="{key[0]}s" bandwidth="{key[1]}Bps" '
                        'sharing_policy="FATPIPE"/>\n')
        for (a, b, _, _), key in zip(pairs, keys):
            f.write(f'    <route src="r{a}" dst="r{b}" symmetrical="NO"><link_ctn id="{links[key]}"/></route>\n')
        f.write("  </zone>\n</platform>\n")
    return len(links)


def main(argv):
    """vaced export-simgrid T -n P [-o DIR]; errors are vaced_cli's."""
    got = parse(argv)
    if got is None:
        return 0
    spec, ranks, out = got
    path = cli.resolve_target(spec)
    params, pairs = model(path, ranks)
    try:
        name = os.path.basename(path)[:-5] if path.endswith(".topo") else os.path.basename(path)
        out = out or f"simgrid-{name}-{ranks}"
        os.makedirs(out, exist_ok=True)
        platform = os.path.join(out, "platform.xml")
        nlinks = write_platform(platform, ranks, pairs)
        hostfile = os.path.join(out, "hostfile")
        with open(hostfile, "w") as f:
            f.writelines(f"r{r}\n" for r in range(ranks))
        eager = int(params["eager_threshold_B"])
        args = ["-platform", os.path.abspath(platform), "-hostfile", os.path.abspath(hostfile),
                "-np", str(ranks),
                "--cfg=smpi/bw-factor:0:1", "--cfg=smpi/lat-factor:0:1",
                f"--cfg=smpi/async-small-thresh:{eager}", f"--cfg=smpi/send-is-detached-thresh:{eager}",
                "--cfg=smpi/coll-selector:mpich", "--cfg=smpi/host-speed:1Gf",
                f"--cfg=smpi/os:0:{params['send_overhead_s']:.9g}:0",
                f"--cfg=smpi/or:0:{params['recv_overhead_s']:.9g}:0",
                "--cfg=network/loopback-lat:0", f"--cfg=network/loopback-bw:{params['bmem_Bps']:.9g}"]
        with open(os.path.join(out, "smpirun.args"), "w") as f:
            f.writelines(a + "\n" for a in args)
        print(f"vaced export-simgrid: {ranks} ranks of {name}: {out}/platform.xml ({ranks} hosts, "
              f"{nlinks} link kinds, {len(pairs)} routes), {out}/hostfile, {out}/smpirun.args")
        return 0
    except OSError as e:
        raise cli.Failure(str(e))
