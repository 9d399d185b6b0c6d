#!/usr/bin/env python3
"""vaced run --report and vaced report (vaced/tools/vaced_report.py), looked
at in a real browser: tests/mpi/ring.c on 8 ranks is predicted with
--report; Debian's headless Chromium loads report.html (inside a probe page
that lists each image's natural size and place) and takes a screenshot, in
which every plot's region must hold a drawing (many colours, much ink)
while the page's empty margin holds none.  A run's JSON has the breakdown,
the call sites (ring.c built with -g: its lines named) and, from its
traces, the critical path, and the page draws them; the parts a JSON
lacks (a copy without them; the critical path without a trace) say "not
available"; given all (made-up values in a copy of the JSON) the page
draws them.  More
than 64 ranks: the timeline shows the first 64.  Bad input: help, usage
errors, a JSON that is no prediction, an unwritable report directory (the
prediction still printed).

    python3 tests/tools/test_html_report.py [ROOT]
Ends with "N passed, M failed"; exits non-zero if any failed."""
import html
import json
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile
import zlib

sys.dont_write_bytecode = True     # no __pycache__ in the tree
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from checks import check as count, finish  # noqa: E402
# one execution a vaced run (the default is two) unless a check asks for more
os.environ["VACED_REPEAT"] = "1"

ROOT = os.path.abspath(sys.argv[1] if len(sys.argv) > 1 else os.path.join(os.path.dirname(__file__), "..", ".."))
VACED = os.path.join(ROOT, "vaced", "tools", "vaced")
BIN = os.path.join(ROOT, "install", "vaced", "bin")
WIDTH = 1300        # the browser window; the page ends 1274 px from its left (1.5em + 1250)
TERMS = ("compute", "poll", "send_overhead", "recv_overhead", "copy", "network", "late_sender",
         "late_receiver", "collective_wait")


def check(name, ok, why=""):
    return count(name, ok, "" if ok else why)


def vaced(*args):
    return subprocess.run([sys.executable, VACED] + list(args), capture_output=True, text=True, timeout=600)


def detail(r):
    return f"status {r.returncode}: {(r.stdout + r.stderr)[-600:]}"


def browser():
    """Debian's chromium, installed as root if missing; (path, None) or (None, why)."""
    found = shutil.which("chromium")
    if found:
        return found, None
    if os.geteuid() != 0:
        return None, "chromium is missing and this is not root: apt-get install chromium"
    env = dict(os.environ, DEBIAN_FRONTEND="noninteractive")
    for cmd in (["apt-get", "install", "-y", "-q", "chromium"], ["apt-get", "update", "-q"],
                ["apt-get", "install", "-y", "-q", "chromium"]):
        subprocess.run(cmd, capture_output=True, env=env)
        if shutil.which("chromium"):
            return shutil.which("chromium"), None
    return None, "apt-get install chromium failed"


def chromium(exe, *args):
    return subprocess.run([exe, "--headless", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--allow-file-access-from-files", f"--user-data-dir={PROFILE}"] + list(args),
                          capture_output=True, text=True, timeout=120)


PROBE = """<!DOCTYPE html><html><body style="margin:0">
<iframe id="f" src="report.html" style="border:0;width:%dpx;height:20000px"></iframe>
<pre id="probe"></pre>
<script>
document.getElementById("f").onload = function () {
  var d = this.contentDocument, out = {height: d.documentElement.scrollHeight, images: []};
  var imgs = d.images, pending = imgs.length;
  function done() {
    for (var i = 0; i < imgs.length; i++) {
      var r = imgs[i].getBoundingClientRect();
      out.images.push({src: imgs[i].getAttribute("src"), w: imgs[i].naturalWidth, h: imgs[i].naturalHeight,
                       complete: imgs[i].complete, x: r.left, y: r.top, cw: r.width, ch: r.height});
    }
    document.getElementById("probe").textContent = "PROBE" + JSON.stringify(out) + "END";
  }
  done();
};
</script></body></html>
""" % WIDTH


def probe(exe, report_dir):
    """What Chromium made of the page's images: {height, images: [...]}, or None."""
    with open(os.path.join(report_dir, "probe.html"), "w") as f:
        f.write(PROBE)
    r = chromium(exe, "--virtual-time-budget=10000", "--dump-dom",
                 "file://" + os.path.join(report_dir, "probe.html"))
    m = re.search(r"PROBE(.*)END", r.stdout)
    return json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&")) if m else None


def png_size(path):
    with open(path, "rb") as f:
        head = f.read(24)
    return struct.unpack(">II", head[16:24]) if head[:8] == b"\x89PNG\r\n\x1a\n" else None


def read_png(path):
    """A non-interlaced 8-bit RGB or RGBA PNG (Chromium's screenshots) as
    (width, height, rows of (r, g, b) tuples)."""
    with open(path, "rb") as f:
        data = f.read()
    pos, idat, w = 8, b"", None
    while pos < len(data):
        n, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + n]
        if kind == b"IHDR":
            w, h, depth, colour = struct.unpack(">IIBB", body[:10])
            assert depth == 8 and colour in (2, 6), "not 8-bit RGB(A)"
            bpp = 3 if colour == 2 else 4
        elif kind == b"IDAT":
            idat += body
        pos += 12 + n
    raw, stride, prev, rows = zlib.decompress(idat), w * bpp, bytearray(w * bpp), []
    for y in range(h):
        ftype, line = raw[y * (stride + 1)], bytearray(raw[y * (stride + 1) + 1:(y + 1) * (stride + 1)])
        for i in range(stride):
            a = line[i - bpp] if i >= bpp else 0
            b, c = prev[i], prev[i - bpp] if i >= bpp else 0
            if ftype == 1:
                line[i] = (line[i] + a) & 255
            elif ftype == 2:
                line[i] = (line[i] + b) & 255
            elif ftype == 3:
                line[i] = (line[i] + (a + b) // 2) & 255
            elif ftype == 4:
                p = a + b - c
                pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
                line[i] = (line[i] + (a if pa <= pb and pa <= pc else b if pb <= pc else c)) & 255
        rows.append([tuple(line[i:i + 3]) for i in range(0, stride, bpp)])
        prev = line
    return w, h, rows


def ink(shot, x, y, w, h):
    """In a region of the screenshot: (share of pixels not near white, distinct colours)."""
    _, _, rows = shot
    px = [p for row in rows[int(y):int(y + h)] for p in row[int(x):int(x + w)]]
    if not px:
        return 0.0, 0
    dark = sum(1 for p in px if min(p) < 230)
    return dark / len(px), len(set(px))


def look(exe, report_dir, label, expect):
    """Chromium's view of report_dir/report.html: every image loaded at its
    file's size and drawn on screen; the images are `expect`."""
    seen = probe(exe, report_dir)
    if not check(f"{label}: Chromium loads the page and reports its images", seen is not None):
        return
    srcs = sorted(i["src"] for i in seen["images"])
    check(f"{label}: the page shows {', '.join(expect)}", srcs == sorted(expect), str(srcs))
    for i in seen["images"]:
        size = png_size(os.path.join(report_dir, i["src"]))
        check(f"{label}: {i['src']} loaded, natural size {i['w']}x{i['h']} = the file's",
              i["complete"] and i["w"] > 0 and i["h"] > 0 and size == (i["w"], i["h"]), f"{i} vs {size}")
    shot_path = os.path.join(report_dir, "shot.png")
    r = chromium(exe, f"--window-size={WIDTH},{seen['height'] + 20}", f"--screenshot={shot_path}",
                 "file://" + os.path.join(report_dir, "report.html"))
    if not check(f"{label}: Chromium takes a screenshot", os.path.exists(shot_path), r.stderr[-300:]):
        return
    shot = read_png(shot_path)
    for i in seen["images"]:
        share, colours = ink(shot, i["x"], i["y"], i["cw"], i["ch"])
        check(f"{label}: {i['src']} is drawn on screen ({100 * share:.1f} % ink, {colours} colours)",
              i["cw"] > 200 and i["ch"] > 100 and share > 0.03 and colours > 20, str(i))
    share, colours = ink(shot, 1280, 0, 20, shot[1])
    check(f"{label}: the page's empty right margin is blank in the same screenshot (the check can fail)",
          share == 0 and colours <= 2, f"{share} {colours}")


with tempfile.TemporaryDirectory() as tmp:
    PROFILE = os.path.join(tmp, "chromium-profile")
    exe, why = browser()
    if not check("Debian's chromium is installed", exe, why or ""):
        finish()
    ring = os.path.join(tmp, "ring")
    b = subprocess.run([os.path.join(BIN, "mpicc"), "-O2", "-g", "-o", ring, os.path.join(ROOT, "tests", "mpi", "ring.c")],
                       capture_output=True, text=True)
    if not check("ring.c builds with install/vaced's mpicc", b.returncode == 0, b.stderr[-300:]):
        finish()

    # --- vaced run --report, without the breakdown ------------------------
    rep, j, tr = os.path.join(tmp, "rep"), os.path.join(tmp, "run.json"), os.path.join(tmp, "tr")
    r = vaced("run", "-n", "8", "--target", "paper-16", "--quiet", "--json", j, "--trace", tr, "--report", rep,
              "--", ring, "65536", "4")
    check("vaced run --report: exit 0, the summary, one line naming the page",
          r.returncode == 0 and "vaced summary" in r.stdout
          and f"vaced: report {rep}/report.html" in r.stderr, detail(r))
    page = open(os.path.join(rep, "report.html")).read() if os.path.exists(os.path.join(rep, "report.html")) else ""
    doc = json.load(open(j)) if os.path.exists(j) else {"prediction_s": -1, "per_rank": []}
    check("the page names the prediction and target",
          f"{doc['prediction_s']:.9f} s on paper-16" in page, page[:300])
    check("the run's JSON has each rank's breakdown: the page draws it, not 'breakdown not available'",
          all("breakdown" in x for x in doc["per_rank"]) and "breakdown not available" not in page)
    check("the run's JSON has call sites: the page lists them (ring.c's lines), not 'call sites not available'",
          doc.get("call_sites") and "call sites not available" not in page and
          re.search(r"MPI_\w+ in main \(ring\.c:\d+\)", page), re.findall(r"<td>MPI_[^<]*</td>", page)[:3])
    check("the run's JSON has the critical path (its length the prediction): the page draws it",
          abs(doc.get("critical_path", {}).get("length_s", -1) - doc["prediction_s"]) < 1e-9
          and "critical path not available" not in page, str(doc.get("critical_path"))[:300])
    if doc["per_rank"]:         # an older run's JSON, without the breakdown and call tables
        old = {k: v for k, v in doc.items() if k not in ("calls", "call_sites")}
        old["per_rank"] = [{k: v for k, v in x.items() if k != "breakdown"} for x in doc["per_rank"]]
        j0 = os.path.join(tmp, "old.json")
        with open(j0, "w") as f:
            json.dump(old, f)
        r = vaced("report", os.path.join(tmp, "rep0"), "--json", j0)
        page0 = os.path.join(tmp, "rep0", "report.html")
        text0 = open(page0).read() if os.path.exists(page0) else ""
        check("from a JSON without the breakdown and call sites the page says 'breakdown not available' "
              "and 'call sites not available'", r.returncode == 0 and "breakdown not available" in text0
              and "call sites not available" in text0, detail(r))
        threaded = dict(old, calls_table="off: several threads called MPI on 2 of 2 ranks")
        with open(j0, "w") as f:
            json.dump(threaded, f)
        r = vaced("report", os.path.join(tmp, "rep0s"), "--json", j0)
        page0s = os.path.join(tmp, "rep0s", "report.html")
        text0s = html.unescape(open(page0s).read()) if os.path.exists(page0s) else ""
        check("from a JSON whose call tables are off the page says why",
              r.returncode == 0 and "the run's call tables are off: several threads called MPI" in text0s, detail(r))
        old.pop("critical_path", None)
        with open(j0, "w") as f:
            json.dump(old, f)
        r = vaced("report", os.path.join(tmp, "rep0"), "--json", j0)
        check("from a JSON without a critical path and no trace the page says 'critical path not available'",
              r.returncode == 0 and "critical path not available" in open(page0).read(), detail(r))
        r = vaced("report", os.path.join(tmp, "rep0t"), "--json", j0, "--trace", tr)
        page0t = os.path.join(tmp, "rep0t", "report.html")
        check("from a JSON without a critical path but with the trace the page finds and draws it",
              r.returncode == 0 and os.path.exists(page0t) and "critical path not available" not in open(page0t).read()
              and os.path.exists(os.path.join(tmp, "rep0t", "critical_path.png")), detail(r))
    check("the timeline says how many messages it draws (4 + 1 laps of 8)",
          "8 ranks traced; 40 messages" in page, re.findall(r"<p>.*traced.*</p>", page))
    look(exe, rep, "run --report", ["breakdown.png", "call_sites.png", "critical_path.png", "timeline.png"])

    # --- vaced report from a JSON with a breakdown, call sites, critical path
    if doc["per_rank"]:
        for rank in doc["per_rank"]:        # made-up terms that add up to each rank's time
            rest = rank["total_s"] - rank["compute_s"]
            rank["breakdown"] = dict(zip(TERMS, [rank["compute_s"], 0, rest * 0.1, rest * 0.1, rest * 0.05,
                                                 rest * 0.5, rest * 0.15, rest * 0.05, rest * 0.05]))
        doc["call_sites"] = [{"function": "MPI_Send", "file": "ring.c", "line": 29, "calls": 5, "total_s": 1e-4},
                             {"function": "MPI_Recv", "file": "ring.c", "line": 30, "calls": 5, "total_s": 3e-4}]
        doc["critical_path"] = {"breakdown": {"compute": 2e-5, "network": 5e-4, "late_sender": 1e-4}}
        j2, rep2 = os.path.join(tmp, "full.json"), os.path.join(tmp, "rep2")
        with open(j2, "w") as f:
            json.dump(doc, f)
        r = vaced("report", rep2, "--json", j2, "--trace", tr)
        check("vaced report DIR --json --trace: exit 0, names the page",
              r.returncode == 0 and r.stdout.strip() == f"report {rep2}/report.html", detail(r))
        page = open(os.path.join(rep2, "report.html")).read() if r.returncode == 0 else ""
        check("with a breakdown, call sites and a critical path nothing is 'not available'",
              page and "not available" not in page, page[:300])
        check("the call sites' table lists the top site first", page.find("MPI_Recv (ring.c:30)") <
              page.find("MPI_Send (ring.c:29)") and "MPI_Send (ring.c:29)" in page)
        look(exe, rep2, "vaced report", ["breakdown.png", "call_sites.png", "critical_path.png", "timeline.png"])
        r = vaced("report", os.path.join(tmp, "rep3"), "--json", j2)
        check("vaced report without --trace: the timeline is not available",
              r.returncode == 0 and "timeline not available" in open(os.path.join(tmp, "rep3", "report.html")).read(),
              detail(r))

    # --- more ranks than the timeline shows -------------------------------
    r = vaced("run", "-n", "72", "--target", "paper-1024", "--quiet", "--report", os.path.join(tmp, "rep72"),
              "--", ring, "8", "1")
    page = open(os.path.join(tmp, "rep72", "report.html")).read() if r.returncode == 0 else ""
    check("72 ranks: the timeline draws the first 64 and says so",
          "72 ranks traced (the first 64 shown); 126 messages" in page, detail(r) + str(re.findall(r"<p>.*</p>", page)))

    # --- bad input ---------------------------------------------------------
    r = vaced("report", "--help")
    check("vaced report --help: usage and options", r.returncode == 0 and r.stdout.startswith("usage: vaced report")
          and all(re.search("^  " + o + " ", r.stdout, re.M) for o in ("--json", "--trace")), detail(r))
    r = vaced("--help")
    check("vaced --help lists report", re.search(r"^  report ", r.stdout, re.M), detail(r))
    r = vaced("run", "--help")
    check("vaced run --help has --report", re.search(r"^  --report DIR ", r.stdout, re.M), detail(r))
    for args, why in (([os.path.join(tmp, "x")], "--json FILE (the run's JSON) is required"),
                      (["--json", j], "needs one report directory"),
                      (["a", "--json", j, "--colour"], "unknown option '--colour'")):
        r = vaced("report", *args)
        check(f"vaced report {' '.join(args)[-40:]}: exit 2, {why}",
              r.returncode == 2 and r.stderr.startswith("vaced report: ") and why in r.stderr, detail(r))
    notjson = os.path.join(tmp, "not.json")
    with open(notjson, "w") as f:
        f.write('{"ranks": 3}')
    r = vaced("report", os.path.join(tmp, "x"), "--json", notjson)
    check("a JSON that is no prediction: exit 1, named", r.returncode == 1 and "not a VACED prediction" in r.stderr,
          detail(r))
    blocker = os.path.join(tmp, "a-file")
    open(blocker, "w").close()
    r = vaced("report", os.path.join(blocker, "sub"), "--json", j)
    check("vaced report into an unwritable directory: exit 1, one line",
          r.returncode == 1 and r.stderr.count("\n") == 1 and "cannot create the directory" in r.stderr, detail(r))
    r = vaced("run", "-n", "2", "--target", "paper-16", "--quiet", "--report", os.path.join(blocker, "sub"),
              "--", ring, "8", "2")
    lines = [ln for ln in r.stderr.splitlines() if "--report" in ln]
    check("an unwritable --report directory: the prediction and summary printed, one error line, exit 1",
          r.returncode == 1 and "vaced summary" in r.stdout and "vaced: prediction" in r.stdout
          and len(lines) == 1 and "cannot create the directory" in lines[0], detail(r))
finish()
