#!/usr/bin/env bash
# Tests of the `vaced` front end (vaced/tools/vaced, vaced_cli.py): every error path, then
# real runs of tests/mpi/pingpong.c and cpuloop.c on install/vaced.
# Ends with "N passed, M failed"; exits non-zero if any failed.
#
#   tests/tools/test_vaced_cli.sh [ROOT]
set -euo pipefail

ROOT=$(cd "${1:-$(dirname "${BASH_SOURCE[0]}")/../..}" && pwd)
VACED=$ROOT/vaced/tools/vaced
BIN=$ROOT/build/tests/tools          # programs built here
# shellcheck source=check.sh
source "$ROOT/tests/tools/check.sh"
cd "$TMP"
# one execution a vaced run (the default is two) unless a check asks for more
export VACED_REPEAT=1

# expect NAME STATUS REGEX CMD...: CMD exits with STATUS and its stdout +
# stderr match the extended REGEX.  The output is kept in $out.
expect() {
    local name=$1 want=$2 regex=$3 st=0
    shift 3
    out=$("$@" 2>&1) || st=$?
    if [ "$st" -ne "$want" ]; then
        fail "$name: exit status $st, expected $want"
    elif ! grep -qE -- "$regex" <<<"$out"; then
        fail "$name: output does not match /$regex/"
    else
        ok "$name"
        return 0
    fi
    sed 's/^/    | /' <<<"$out" | head -n 20
    return 0
}

# A JSON field of FILE (python3 expression on d, the loaded object).
jq_py() { python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"; }

# --- help ---------------------------------------------------------------
expect "no arguments: usage, status 2" 2 '^usage: vaced run' "$VACED"
expect "vaced --help" 0 'check-target' "$VACED" --help
expect "vaced run --help" 0 'Examples:' "$VACED" run --help
for opt in -n --target --host-cores --hostfile --json --trace --vanilla-time --vanilla --quiet --progress; do
    check_run "run --help explains $opt" grep -qE -- "^  $opt( |,|$)" <<<"$out"
done
expect "vaced check-target --help" 0 'usage: vaced check-target T' "$VACED" check-target --help
expect "vaced calibrate --help is vaced-calibrate's" 0 '^usage: vaced-calibrate' "$VACED" calibrate --help
expect "vaced calibrate passes a bad option to vaced-calibrate" 2 'unrecognized arguments: --frob' "$VACED" calibrate --frob

# --- usage errors (status 2), nothing launched ----------------------------
printf '#!/bin/sh\ntouch %s/launched\n' "$TMP" >marker.sh
chmod +x marker.sh
P=(-n 2 --target paper-16)
expect "unknown command" 2 "unknown command 'frob'" "$VACED" frob
expect "unknown option" 2 "unknown option '--frob'.*vaced run --help" "$VACED" run --frob "${P[@]}" -- ./marker.sh
expect "missing -- before the program" 2 "missing '--' before the program './marker.sh'" "$VACED" run "${P[@]}" ./marker.sh
expect "missing -- and program" 2 "missing '--'" "$VACED" run "${P[@]}"
expect "no program after --" 2 "no program after '--'" "$VACED" run "${P[@]}" --
expect "missing -n" 2 '-n P .* is required' "$VACED" run --target paper-16 -- ./marker.sh
expect "-n 0" 2 "-n needs a whole number of at least 1, got '0'" "$VACED" run -n 0 --target paper-16 -- ./marker.sh
expect "-n abc" 2 "got 'abc'" "$VACED" run -n abc --target paper-16 -- ./marker.sh
expect "option without value" 2 '--target needs a value' "$VACED" run -n 2 --target -- ./marker.sh
expect "missing --target" 2 '--target T is required' "$VACED" run -n 2 -- ./marker.sh
expect "program not found" 2 "program './nothere' not found" "$VACED" run "${P[@]}" -- ./nothere
printf 'x\n' >notexec
expect "program not executable" 2 "is not executable \(chmod \+x" "$VACED" run "${P[@]}" -- ./notexec
expect "program not in PATH" 2 "not found in PATH \(for a file here, write ./notexec\)" "$VACED" run "${P[@]}" -- notexec
expect "target not found lists the names" 2 "target 'nosuch' not found: .*paper-16.*torus-4x4x4" \
    "$VACED" run -n 2 --target nosuch -- ./marker.sh
expect "--host-cores beyond the host" 2 '--host-cores 100000 needs CPUs 0-99999' \
    "$VACED" run "${P[@]}" --host-cores 100000 -- ./marker.sh
expect "--host-cores 0" 2 'at least 1' "$VACED" run "${P[@]}" --host-cores 0 -- ./marker.sh
expect "hostfile not found" 2 "hostfile 'nohf' not found" "$VACED" run "${P[@]}" --hostfile nohf -- ./marker.sh
expect "--json in a missing directory" 2 'does not exist or is not writable' \
    "$VACED" run "${P[@]}" --json nodir/x.json -- ./marker.sh
expect "--vanilla-time not a number" 2 '--vanilla-time needs a time' "$VACED" run "${P[@]}" --vanilla-time abc -- ./marker.sh
expect "--vanilla-time 0" 2 '--vanilla-time needs a time' "$VACED" run "${P[@]}" --vanilla-time=0 -- ./marker.sh
expect "--vanilla with --vanilla-time" 2 'not both' "$VACED" run "${P[@]}" --vanilla --vanilla-time 1 -- ./marker.sh
expect "--repeat 65" 2 '--repeat N: at most 64 executions' "$VACED" run "${P[@]}" --repeat 65 -- ./marker.sh
expect "VACED_REPEAT not a number" 2 "VACED_REPEAT needs a whole number of at least 1, got 'two'" \
    env VACED_REPEAT=two "$VACED" run "${P[@]}" -- ./marker.sh

# --- invalid targets (status 1), checked before launching -----------------
printf 'name = bad\ncores = 4\ncores_per_node = 1\ntopology = hierarchy\ncolour = red\n' >bad.topo
expect "invalid target: file:line: reason" 1 '^vaced: \./bad\.topo:5: unknown key .colour.$' \
    "$VACED" run -n 2 --target ./bad.topo -- ./marker.sh
expect "target smaller than the job" 1 'paper-16\.topo:[0-9]+: the target has 16 cores, fewer than the job.s 17 ranks' \
    "$VACED" run -n 17 --target paper-16 -- ./marker.sh
check_run "nothing was launched by the failing commands" test ! -e "$TMP/launched"

# --- mpiexec missing: a copy of the tool in a tree without install/ --------
"$VACED" check-target paper-16 >/dev/null     # builds the checker if needed
mkdir -p fake/vaced/tools fake/build/tools
cp "$VACED" "$ROOT/vaced/tools/vaced_cli.py" "$ROOT/vaced/tools/vaced_jobsize.py" "$ROOT/vaced/tools/vaced_run.py" "$ROOT/vaced/tools/vaced_summary.py" "$ROOT/vaced/tools/vaced-check.c" fake/vaced/tools/
ln -s "$ROOT/vaced/src" "$ROOT/vaced/include" fake/vaced/
ln -s "$ROOT/topo" fake/topo
cp "$ROOT/build/tools/vaced-check" fake/build/tools/   # newer than the sources: not rebuilt
expect "mpiexec missing: run ./build.sh" 1 'install/vaced/bin/mpiexec is missing: run \./build\.sh' \
    fake/vaced/tools/vaced run "${P[@]}" -- ./marker.sh

# --- check-target ---------------------------------------------------------
expect "check-target paper-1024 -n 1024" 0 'hierarchy = 16' "$VACED" check-target paper-1024 -n 1024
for want in '^name +paper-1024$' '^cores +1024 \(12 per node, 86 nodes\)$' '^topology +hierarchy$' \
            '^ +3 hops +88080 pairs$' '^bnet +4\.16 GB/s$' '^latency +l\(h\) = 15 us \+ h x 0\.6 us$'; do
    check_run "check-target prints /$want/" grep -qE -- "$want" <<<"$out"
done
expect "check-target without -n: the whole target" 0 'checked for +1024 ranks \(the whole target\) on 64 nodes' \
    "$VACED" check-target "$ROOT/topo/torus-4x4x4.topo"
expect "check-target of a file here" 0 '^name +paper-16$' sh -c "cp '$ROOT/topo/paper-16.topo' p16.topo && '$VACED' check-target p16.topo"
{ cat "$ROOT/topo/paper-16.topo"; printf 'bnet_factors = 4096:1.5 65536:0.8\nbmem_factors = 131072:1.25\nwakeup_latency = 10 us\nwakeup_after = 20 us\nwakeup_ramp = 5 us\nnet_warmup_messages = 8\nbnet_warmup = 0.5 GB/s\nnet_warmup_min = 64 KiB\n'; } >shaped.topo
expect "check-target shows bnet_factors" 0 '^ +65536 B +[0-9.]+ MB/s \(x 0\.8\)$' "$VACED" check-target ./shaped.topo
check_run "check-target shows the warm-up in messages and its smallest message" \
    grep -qE 'first 8 messages .* at 500 MB/s' <<<"$out"
check_run "check-target shows net_warmup_min" grep -qE 'messages of 65536 B or more only' <<<"$out"
check_run "check-target shows bmem_factors" grep -qE '^ +131072 B +[0-9.]+ GB/s \(x 1\.25\)$' <<<"$out"
check_run "check-target shows the wake-up" grep -qE 'blocked in a wait for more than 20 us is handled 10 us late' <<<"$out"
check_run "check-target shows the wake-up's ramp" grep -qE 'over 5 us \(wakeup_ramp\)' <<<"$out"
expect "check-target invalid" 1 '^vaced: \./bad\.topo:5: unknown key' "$VACED" check-target ./bad.topo
expect "check-target not found" 2 "target 'nosuch' not found" "$VACED" check-target nosuch
expect "check-target -n x" 2 "got 'x'" "$VACED" check-target paper-16 -n x
expect "check-target two targets" 2 'one target' "$VACED" check-target paper-16 paper-1024
expect "check-target unknown option" 2 "unknown option '--foo'" "$VACED" check-target paper-16 --foo

# --- real runs ------------------------------------------------------------
MPICC=$ROOT/install/vaced/bin/mpicc
mkdir -p "$BIN"
cat >exit3.c <<'EOF'
#include <mpi.h>
int main(int argc, char **argv) { MPI_Init(&argc, &argv); MPI_Finalize(); return 3; }
EOF
if ! { "$MPICC" -O2 -o "$BIN/pingpong" "$ROOT/tests/mpi/pingpong.c" &&
       "$MPICC" -O2 -o "$BIN/cpuloop" "$ROOT/tests/mpi/cpuloop.c" &&
       "$MPICC" -O2 -o "$BIN/exit3" exit3.c; }; then
    fail "building the test programs with $MPICC (run ./build.sh)"
    echo "$passed passed, $failed failed"
    exit 1
fi

# 1. Plain run: the summary's prediction is the JSON's and the library's.
st=0
"$VACED" run -n 2 --target paper-16 --json run1.json -- "$BIN/pingpong" 1000 50 >run1.out 2>run1.err || st=$?
check_run "run: exit status 0" test "$st" -eq 0
check_run "run: the program's output passes through" grep -q '^pingpong bytes=1000 iters=50' run1.out
check_run "run: both rank lines shown" test "$(grep -c '^vaced: rank [01] of 2: predicted' run1.out)" -eq 2
summary=$(sed -nE 's/^prediction +([0-9.]+) s$/\1/p' run1.out)
library=$(sed -nE 's/^vaced: prediction ([0-9.]+) s on target paper-16 .*/\1/p' run1.out)
json=$(jq_py run1.json '"%.9f" % d["prediction_s"]')
check_run "run: summary prediction ($summary) = library rank-0 line ($library)" test -n "$summary" -a "$summary" = "$library"
check_run "run: summary prediction = JSON prediction_s ($json)" test "$summary" = "$json"
check_run "run: summary has target, ranks, split, min/mean/max, wall time" \
    grep -qzE 'target +paper-16 .*ranks +2.*slowest rank +[01]: compute .* %\), communication .*min +mean +max.*host wall time +[0-9.]+ s' run1.out
check_run "run: JSON keeps the library's fields and adds the run's" \
    test "$(jq_py run1.json 'd["ranks"], len(d["per_rank"]), d["target"], d["command"][1:], d["host_cores"], d["slowdown"], d["host_wall_s"] > 0')" \
    = "2 2 paper-16 ['1000', '50'] None None True"

check_run "run: one execution (VACED_REPEAT=1): no interval, said in the summary" \
    test "$(jq_py run1.json 'd["prediction_interval_s"]')" = None -a \
    "$(grep -c '^ *no interval: one execution (--repeat 2 or more gives one)$' run1.out)" -eq 1

# 1b. The default: two executions, each segment the least of its two
# measurements; their predictions and range in the summary and the JSON.
st=0
env -u VACED_REPEAT "$VACED" run -n 2 --target paper-16 --json run1b.json -- "$BIN/pingpong" 1000 50 \
    >run1b.out 2>run1b.err || st=$?
check_run "default run: exit status 0, two executions announced" \
    test "$st" -eq 0 -a "$(grep -cE '^vaced: execution [12] of 2' run1b.err)" -eq 2
check_run "default run: the first execution's output only" test "$(grep -c '^pingpong bytes=1000' run1b.out)" -eq 1
check_run "default run: two predictions, the first the library's line, a range that holds them and the estimate" \
    test "$(jq_py run1b.json 'len(d["predictions_s"]) == 2 and d["repeat"]["executions"] == 2
and "%.9f" % d["prediction_raw_s"] == "%.9f" % d["predictions_s"][0]
and d["prediction_interval_s"][0] <= min(d["predictions_s"] + [d["prediction_s"]])
and d["prediction_interval_s"][1] >= max(d["predictions_s"] + [d["prediction_s"]])')" = True
library=$(sed -nE 's/^vaced: prediction ([0-9.]+) s on target paper-16 .*/\1/p' run1b.out)
check_run "default run: prediction_raw_s is the library's line ($library)" \
    test "$(jq_py run1b.json '"%.9f" % d["prediction_raw_s"]')" = "$library"
check_run "default run: the summary's rows: the least of 2 executions, executions and range" \
    grep -qzE "prediction +[0-9.]+ s. +each segment the least of its 2 executions' measurements \(2 of 2 ranks combined\).executions +[0-9.]+, [0-9.]+ s; range" run1b.out

raw=$(jq_py run1b.json '"%.9f" % d["prediction_raw_s"]')
check_run "default run: the per-call tables say they are the first execution's" \
    test "$(grep -cF "share of all ranks' predicted time; the first execution's, predicted $raw s)" run1b.out)" -eq 2
check_run "one execution: the tables' header names no execution" \
    test "$(grep -c "^top .*(time over all ranks; share of all ranks' predicted time)$" run1.out)" -eq 2

# 1c. A program linked by install/vanilla's compilers (DT_RUNPATH) runs on
# VACED's library; one whose DT_RPATH forces another libmpi is named.
VANILLA=$ROOT/install/vanilla
if "$VANILLA/bin/mpicc" -O2 -o "$BIN/pingpong-vanilla" "$ROOT/tests/mpi/pingpong.c" &&
   cc -O2 -o "$BIN/pingpong-rpath" "$ROOT/tests/mpi/pingpong.c" -I"$VANILLA/include" -L"$VANILLA/lib" \
       -Wl,--disable-new-dtags,-rpath,"$VANILLA/lib" -lmpi; then
    expect "a program built by vanilla's mpicc: predicted on VACED's library" 0 '^prediction +[0-9.]+ s$' \
        "$VACED" run -n 2 --target paper-16 --quiet -- "$BIN/pingpong-vanilla" 1000 50
    expect "a program whose RPATH loads another libmpi: the error names it" 1 \
        "rank 0 reported no prediction \(.*pingpong-rpath loads $VANILLA/lib/libmpi\.so.*not VACED's library.*rebuild it with" \
        "$VACED" run -n 2 --target paper-16 --quiet -- "$BIN/pingpong-rpath" 1000 50
else
    fail "building pingpong with install/vanilla's mpicc and with an RPATH to it"
fi

# 2. Quiet, on 1 host core, with progress and a given vanilla time.  The
# progress line comes once a second: the loop is sized from this host's
# speed (a short run's own CPU time) so that each rank computes 1 s, 2 s
# for the two on one core, whatever the host.
probe=$("$VACED" run -n 1 --target paper-16 --quiet -- "$BIN/cpuloop" 20000000 2>/dev/null |
        sed -n 's/^cpuloop rank=0 cpu_s=\([0-9.]*\).*/\1/p')
iters=$(awk -v c="${probe:-0}" 'BEGIN { print (c > 0 ? int(20000000 * 1.0 / c) + 1 : 300000000) }')
st=0
"$VACED" run -n 2 --target "$ROOT/topo/paper-16.topo" --host-cores 1 --quiet --progress --vanilla-time 0.5 \
    --json run2.json -- "$BIN/cpuloop" "$iters" >run2.out 2>run2.err || st=$?
check_run "quiet run: exit status 0" test "$st" -eq 0
check_run "quiet run: no rank lines" test "$(grep -c '^vaced: rank' run2.out || true)" -eq 0
check_run "quiet run: the library's prediction line stays" grep -q '^vaced: prediction ' run2.out
check_run "quiet run: progress lines on stderr" grep -qE '^vaced: [0-2]/2 ranks finished, [0-9]+ s elapsed$' run2.err
check_run "quiet run: ran on 1 host core" grep -qE '^host wall time +[0-9.]+ s \(1 host core, taskset -c 0-0\)$' run2.out
check_run "quiet run: slowdown = wall / 0.5" \
    test "$(jq_py run2.json 'abs(d["slowdown"] - d["host_wall_s"] / 0.5) < 1e-4 and d["host_cores"] == 1')" = True
check_run "quiet run: slowdown row" grep -qE '^slowdown +[0-9.]+ \(host wall time / vanilla 0\.500 s, given\)$' run2.out

# 2b. --trace: the directory is made, one timeline per rank ending at the rank's prediction.
st=0
"$VACED" run -n 2 --target paper-16 --trace tr/sub --json run3.json -- "$BIN/pingpong" 1000 50 >run3.out 2>run3.err || st=$?
check_run "trace run: exit status 0" test "$st" -eq 0
check_run "trace run: the summary names the files" grep -qE "^trace +$TMP/tr/sub/vaced-trace.R.csv, R = 0..1$" run3.out
for r in 0 1; do
    check_run "trace run: rank $r's timeline ends at its prediction" \
        test "$(python3 -c 'import json,sys
d = json.load(open(sys.argv[1])); r = int(sys.argv[2])
lines = open(sys.argv[3]).read().split()
spans = [ln for ln in lines[1:] if ln.split(",")[0] in ("compute", "mpi", "poll")]
end = float(spans[-1].split(",")[2])
print(lines[0] == "kind,start_s,end_s" and abs(end - d["per_rank"][r]["total_s"]) < 1e-9)' run3.json $r tr/sub/vaced-trace.$r.csv)" = True
done
touch notadir
expect "--trace under a file" 2 'cannot create the directory' \
    "$VACED" run "${P[@]}" --trace notadir/x -- ./marker.sh

# 3. --vanilla measures the unpatched run; a hostfile; a target file here.
cp "$ROOT/topo/paper-16.topo" p16.topo
echo "localhost:2" >hosts
expect "run with --vanilla and --hostfile" 0 '^slowdown +[0-9.]+ \(host wall time / vanilla [0-9.]+ s, measured\)$' \
    "$VACED" run -n 2 --target p16.topo --hostfile hosts --vanilla --quiet -- "$BIN/pingpong" 1000 50
check_run "the vanilla run printed nothing of its own" test "$(grep -c '^pingpong bytes' <<<"$out")" -eq 1

# 4. The program's own non-zero status comes back, after the summary.
expect "program exit status 3 is propagated" 3 'the program exited with status 3' "$VACED" run -n 2 --target paper-16 -- "$BIN/exit3"
check_run "... and the summary is still printed" grep -qE '^prediction +[0-9.]+ s$' <<<"$out"
expect "a program failing before MPI: its status, no summary" 4 'rank 0 reported no prediction' \
    "$VACED" run -n 2 --target paper-16 -- sh -c 'exit 4'

# 5. A message above the description's calibrated_max: the job line, the
# JSON and the sending ranks say its cost is extrapolated; a replay on a
# description without the key says nothing of it (the record keeps no note).
{ cat "$ROOT/topo/paper-16.topo"; echo 'calibrated_max = 512 B'; } >cal512.topo
{ cat "$ROOT/topo/paper-16.topo"; echo 'calibrated_max = 1000 B'; } >cal1000.topo
expect "check-target shows calibrated_max" 0 '^calibrated up to 512 B \(calibrated_max\)' "$VACED" check-target ./cal512.topo
st=0
"$VACED" run -n 2 --target ./cal512.topo --json cal.json --record calrec -- "$BIN/pingpong" 1000 20 >cal.out 2>cal.err || st=$?
check_run "above calibrated_max: exit status 0" test "$st" -eq 0
check_run "above calibrated_max: the job line says so" grep -qE '^vaced: prediction .*APPROXIMATE.*calibrated_max' cal.out
check_run "above calibrated_max: the JSON says so" \
    test "$(jq_py cal.json 'd["approximate"], "calibrated_max" in d["not_modelled"]')" = "True True"
check_run "above calibrated_max: each sending rank notes it once" \
    test "$(grep -c 'rank [01] sends messages larger than the target.s calibrated_max' cal.err)" -eq 2
st=0
"$VACED" run -n 2 --target ./cal1000.topo --json cal2.json -- "$BIN/pingpong" 1000 20 >cal2.out 2>cal2.err || st=$?
check_run "at calibrated_max: no note" test "$st-$(jq_py cal2.json 'd["approximate"]')-$(grep -c calibrated_max cal2.err || true)" = "0-False-0"
st=0
"$VACED" replay calrec --target paper-16 --json calr.json --quiet >calr.out 2>calr.err || st=$?
check_run "replay without calibrated_max: no note" test "$st-$(jq_py calr.json 'd["approximate"]')" = "0-False"
st=0
"$VACED" replay calrec --target ./cal512.topo --json calr2.json --quiet >calr2.out 2>calr2.err || st=$?
check_run "replay with calibrated_max: the note, decided anew" test "$st-$(jq_py calr2.json 'd["approximate"]')" = "0-True"

# 5. A VM whose balloon device reports freed memory to the host gets a note
#    (VACED_SYSFS: a made-up /sys with one such device; feature bit 5).
for bits in 0110010100000000 0110000100000000; do
    mkdir -p "sys.$bits/bus/virtio/drivers/virtio_balloon/virtio7"
    echo "$bits" >"sys.$bits/bus/virtio/drivers/virtio_balloon/virtio7/features"
done
expect "free page reporting: a note naming the device and how to stop it" 0 \
    'note: this machine reports freed memory to its host \(virtio7.*echo virtio7 > /sys/bus/virtio/drivers/virtio_balloon/unbind' \
    env VACED_SYSFS="$TMP/sys.0110010100000000" "$VACED" run -n 2 --target paper-16 --quiet -- "$BIN/pingpong" 1000 50
expect "without the feature bit: a run, no note" 0 '^prediction ' \
    env VACED_SYSFS="$TMP/sys.0110000100000000" "$VACED" run -n 2 --target paper-16 --quiet -- "$BIN/pingpong" 1000 50
check_run "... and no note" test "$(grep -c 'reports freed memory' <<<"$out" || true)" -eq 0

finish
