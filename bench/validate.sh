#!/bin/bash
# Validation of VACED's predictions against real runs on local targets.
# Run bench/validate.sh --help for what it does.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RES=$ROOT/results    # where the outputs go (--out)
LIBDIR=$ROOT/bench/lib  # the helpers
VANILLA=$ROOT/install/vanilla
VACED=$ROOT/install/vaced
ALL_APPS=ep,is,cg,mg,ft,lu,stencil
ALL_CONFIGS=real,real-1core,vaced-1core,vaced-2core,netns-real,netns-vaced-1core,netns-vaced-2core
KNOWN_CONFIGS=$ALL_CONFIGS,alt-vaced-1core,alt-vaced-2core

usage() {
    cat <<EOF
usage: bench/validate.sh [options]

Runs the mini-apps of tests/apps on real 2-rank targets with vanilla MPICH
(install/vanilla) and predicts the same runs with VACED (install/vaced), then
writes the comparison.  For every app, class and repetition (the
configurations are interleaved, so slow drifts of the machine's load hit all
of them alike):

  real               vanilla, 2 ranks on this machine's 2 cores, one rank per
                     core (mpiexec -bind-to core): the real target; its TIME=
                     line is the real time
  real-1core         vanilla, 2 ranks on core 0 (taskset -c 0): only for the
                     1-core slowdown (same host configuration as vaced-1core)
  vaced-1core        VACED predicting the "real" target, hosted on core 0
  vaced-2core        VACED predicting the "real" target, hosted on cores 0-1
                     (-bind-to core, as "real")
  netns-real         vanilla, 2 network namespaces, one rank each, namespace I's
                     proxy and rank pinned to core I, TCP over veth shaped with
                     tc tbf (--rate): the network-emulated real target
  netns-vaced-1core  VACED predicting netns-real from core 0, with a target
                     description calibrated on that link
  netns-vaced-2core  the same from cores 0-1, one rank per core as in
                     netns-real: the link's model without the 1-core
                     hosting's missing memory contention
  alt-vaced-1core,   (only when asked for with --configs) as vaced-1core and
  alt-vaced-2core    vaced-2core, with the description --alt-target: another
                     description of the same real target, to compare models

Under VACED an app's MPI_Wtime is target time, so its TIME= line is the
prediction of the real run's TIME= line; the rank-0 "vaced: prediction" line
(whole program, MPI_Init to MPI_Finalize) is recorded too.
RE = predicted TIME / real TIME - 1, of the minima of the repetitions
(--estimator; the medians' RE is reported beside it);
slowdown = median VACED host wall time / median vanilla wall time with the
same host cores (vaced-1core / real-1core, vaced-2core / real,
netns-vaced-1core / real-1core, netns-vaced-2core / real).

Target descriptions:
  localhost target   --target FILE; else results/targets/here-2.topo, written
                     at the start of the run from a vanilla ping-pong on
                     localhost (-bind-to core, as "real") by
                     vaced/tools/vaced-calibrate if it exists, else by
                     bench/lib/fit.py: one node of 2 cores, hop 0 between
                     the ranks.
  netns target       --net-target FILE; else results/targets/netns-2.topo,
                     written at the start of the run from a vanilla exchange
                     (--net-pattern) across the namespaces, in the same way.
  Both are measured anew for every run (--reuse-targets keeps the files of an
  earlier one): the host drifts, its per-message time went from 6.8 us to
  13.4 us one way within a day, and an app made of small messages moves with
  it (MG S -36 % against a description 8 hours old, -9 % against a fresh one).
  Within a run they are measured again before an app and class when the last
  ones are older than --recalibrate-every minutes: the link's bandwidth
  measured 67, 77 and 93 MB/s in three runs of one morning, and a
  description from a slow moment mispredicted every app after it; a link
  measured below 0.9 of the run's best so far is measured again (up to
  twice) and the fastest measurement kept; so is a localhost description
  whose per-message time c is above 1.1 times the run's best so far (the
  first one is measured twice: c went from 28 to 38 us in minutes).  Each
  measurement is kept as TARGETS/NAME.RUN_ID.N.topo and named in the CSV's
  target column; NAME.topo is the latest.
The namespaces come from tests/netns/lib.sh and vaced/tools/netns-launcher
when they exist, else from bench/lib/netns-min.sh.  Needs root for them.

Options:
  -a, --apps LIST       comma-separated apps (default $ALL_APPS)
  -c, --classes LIST    comma-separated classes S, W, A (default W,A: the validation
                        sizes; S is the tests' size, runs of milliseconds)
  -r, --reps R          repetitions of every configuration (default 5)
  --configs LIST        configurations to run (default all:
                        $ALL_CONFIGS)
  --target FILE         description of the localhost target
  --net-target FILE     description of the network-emulated target
  --alt-target FILE     description for the alt-vaced-* configurations
  --rate RATE           tc tbf rate of the emulated link (default 1gbit)
  --burst B             tc tbf bucket of the emulated link in bytes (default 4600,
                        three frames).  One frame (1600) cannot sustain 1 Gbit/s:
                        such a link carried 90 MB/s one way and 66 MB/s per
                        direction in an exchange, far from 1 GbE's 119 MB/s of
                        payload, and its two directions slowed each other;
                        with 4600 an exchange of 1 MB carries 104 MB/s each way
  --net-pattern P       exchange (default) or pingpong: what vaced-calibrate fits
                        the netns link to (its --pattern): both ranks sending at
                        once, as the apps' halo exchanges and all-to-alls do, or
                        one direction at a time
  --reuse-targets       use the generated descriptions of an earlier run when
                        they exist (the netns one if for the same --rate and
                        --burst),
                        instead of measuring them anew
  --recalibrate-every M measure the descriptions this run calibrates again
                        before an app and class when they are M minutes old
                        or more (default 5; 0: once, at the start)
  --calibrate-only      (re)write results/targets/here-2.topo and here-2-lat.topo
                        (the two cores as two 1-core nodes 1 hop apart, so that
                        each message pays the measured latency; for
                        --alt-target), and netns-2.topo if the netns
                        configurations are selected; then stop
  --append              add rows to results/validation.csv instead of
                        starting it anew (the report uses all rows; a newer
                        run of the same app, class and configuration
                        replaces older rows in the report)
  --report-only         only rewrite validation.md and the plots from
                        the existing CSV
  --timeout S           limit per run in seconds (default 900)
  --quiet-below C       before every repetition (the block of all configurations)
                        whose previous block saw other processes keep C CPUs
                        or more busy, wait until they keep fewer (sampled over
                        2 s from /proc/stat; default 0.5; 0: never wait), at
                        most --max-wait seconds (default 900)
  --priority N          set the nice value of this session's scheduling autogroup
                        (/proc/self/autogroup) to N, -20..19, for the run, then put
                        it back: with autogroups the kernel shares the CPUs between
                        sessions whatever a process's own nice value, so other
                        sessions' builds stretch a real run's wall time (VACED's
                        CPU-time predictions do not see that); a negative N lets
                        them stretch it less (root only; default: leave it)
  --rt                  run every job (and the calibrations) with the real-time
                        policy SCHED_RR 1 (chrt -r 1), after a --rt-gap pause: other
                        processes can then neither take turns on a core during a
                        run nor delay a rank's wake-up when its message arrives,
                        which on the shared host stretches the real runs' wall time
                        several-fold (VACED's CPU-time predictions do not see that);
                        the kernel still leaves 5 % of every second to others, and
                        the pause keeps a run clear of that limit (root only)
  --rt-gap S            pause before each run with --rt, seconds (default 1)
  --keep-page-reporting leave the VM's free page reporting on.  By default, as
                        root, a balloon device that reports free pages to the
                        host (virtio_balloon with VIRTIO_BALLOON_F_REPORTING)
                        is unbound for the run and bound again at the end:
                        the host takes reported pages away, and a program that
                        touches them again pays for it (IS A's 16466 first
                        touches took 0.19 s of system time in one run, 0.036 s
                        in the next), so runs disagreed by 20 % on nothing but
                        what ran before them (bench/lib/page-reporting.sh)
  --max-steal C         a run during which the hypervisor took away (steal time,
                        /proc/stat) more than C of the host's CPUs on average is
                        run again, after --steal-quiet seconds in a row without steal;
                        default 0.1.  The host's hypervisor throttles it after a few
                        seconds of full use: the real runs' wall time then
                        stretches by up to 3x (CG W 0.21 s -> 0.63 s) while
                        thread CPU time, which VACED uses, does not see it
  --steal-quiet S       seconds without steal before such a rerun (default 5)
  --steal-retries N     at most N reruns of a run for steal (default 4; the last
                        one is kept, with its steal in the CSV)
  --estimator E         min or median: the statistic of the repetitions that RE
                        compares (default min; both are reported, see
                        results/validation-notes.md)
  --out DIR             where the CSV, report, plots and the calibrated
                        descriptions (DIR/targets) go (default results/)
  -h, --help            this text

Writes DIR/validation.csv (one row per app, class, configuration and
repetition), DIR/validation.md (tables, summary, notes), DIR/re.png and
DIR/slowdown.png (gnuplot; installed with apt-get if missing).  Run logs go
to build/validate/logs/.  Apps are built into build/validate/{vanilla,vaced}.

Examples:
  bench/validate.sh -c S -r 3 -a ep,cg                    # a quick look
  bench/validate.sh -r 5 --rt                             # the committed table (W and A)
  bench/validate.sh -c S -r 5 --rt --append               # add class S
EOF
}

ORIG_CMD="bench/validate.sh$(printf ' %q' "$@")"
die() { echo "validate.sh: $*" >&2; exit 1; }
say() { echo "validate.sh: $*" >&2; }

APPS=$ALL_APPS CLASSES=W,A REPS=5 CONFIGS=$ALL_CONFIGS
CAL_ONLY=0 TARGET= NET_TARGET= ALT_TARGET= RATE=1gbit RECAL=1 RECAL_EVERY=5 APPEND=0 REPORT_ONLY=0 TMO=900 OUT=$RES
KEEP_PR=0 QUIET_BELOW=0.5 MAX_WAIT=900 PRIO= ESTIMATOR=min RT=0 RT_GAP=1 BURST=4600 NET_PATTERN=exchange MAX_STEAL=0.1 STEAL_RETRIES=4 STEAL_QUIET=5
while [[ $# -gt 0 ]]; do
    case $1 in
        -a|--apps) APPS=${2:?}; shift 2 ;;
        -c|--classes) CLASSES=${2:?}; shift 2 ;;
        -r|--reps) REPS=${2:?}; shift 2 ;;
        --configs) CONFIGS=${2:?}; shift 2 ;;
        --target) TARGET=$(realpath "${2:?}"); shift 2 ;;
        --net-target) NET_TARGET=$(realpath "${2:?}"); shift 2 ;;
        --alt-target) ALT_TARGET=$(realpath "${2:?}"); shift 2 ;;
        --rate) RATE=${2:?}; shift 2 ;;
        --net-pattern) NET_PATTERN=${2:?}; shift 2 ;;
        --burst) BURST=${2:?}; shift 2 ;;
        --recalibrate) RECAL=1; shift ;;    # the default; kept for old command lines
        --reuse-targets) RECAL=0; shift ;;
        --recalibrate-every) RECAL_EVERY=${2:?}; shift 2 ;;
        --calibrate-only) RECAL=1; CAL_ONLY=1; shift ;;
        --append) APPEND=1; shift ;;
        --report-only) REPORT_ONLY=1; shift ;;
        --timeout) TMO=${2:?}; shift 2 ;;
        --quiet-below) QUIET_BELOW=${2:?}; shift 2 ;;
        --max-wait) MAX_WAIT=${2:?}; shift 2 ;;
        --out) OUT=$(realpath -m "${2:?}"); shift 2 ;;
        --priority) PRIO=${2:?}; shift 2 ;;
        --estimator) ESTIMATOR=${2:?}; shift 2 ;;
        --rt) RT=1; shift ;;
        --keep-page-reporting) KEEP_PR=1; shift ;;
        --rt-gap) RT_GAP=${2:?}; shift 2 ;;
        --max-steal) MAX_STEAL=${2:?}; shift 2 ;;
        --steal-retries) STEAL_RETRIES=${2:?}; shift 2 ;;
        --steal-quiet) STEAL_QUIET=${2:?}; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps: a positive whole number, got '$REPS'"
[[ $ESTIMATOR == min || $ESTIMATOR == median ]] || die "--estimator: min or median, got '$ESTIMATOR'"
if [[ -n $PRIO ]]; then
    [[ $PRIO =~ ^-?[0-9]+$ ]] && ((PRIO >= -20 && PRIO <= 19)) || die "--priority: -20..19, got '$PRIO'"
fi
[[ $RT_GAP =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--rt-gap: seconds, got '$RT_GAP'"
[[ $MAX_STEAL =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--max-steal: a number of CPUs, got '$MAX_STEAL'"
[[ $STEAL_RETRIES =~ ^[0-9]+$ ]] || die "--steal-retries: a whole number, got '$STEAL_RETRIES'"
[[ $BURST =~ ^[0-9]+$ ]] && ((BURST >= 1514)) || die "--burst: bytes, at least one 1514-byte frame, got '$BURST'"
[[ $NET_PATTERN == exchange || $NET_PATTERN == pingpong ]] || die "--net-pattern: exchange or pingpong, got '$NET_PATTERN'"
[[ $RECAL_EVERY =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--recalibrate-every: minutes, got '$RECAL_EVERY'"
[[ $STEAL_QUIET =~ ^[0-9]+$ ]] || die "--steal-quiet: a whole number of seconds, got '$STEAL_QUIET'"
RT_PRE=()
if [[ $RT == 1 ]]; then
    chrt -r 1 true 2> /dev/null || die "--rt: chrt -r 1 failed (needs root and util-linux)"
    RT_PRE=(chrt -r 1)
fi
IFS=, read -ra APP_LIST <<< "$APPS"
IFS=, read -ra CLASS_LIST <<< "$CLASSES"
IFS=, read -ra CONFIG_LIST <<< "$CONFIGS"
for a in "${APP_LIST[@]}"; do [[ ,$ALL_APPS, == *,$a,* ]] || die "unknown app '$a' (known: $ALL_APPS)"; done
for c in "${CLASS_LIST[@]}"; do [[ $c == [SWA] ]] || die "unknown class '$c' (known: S W A)"; done
for c in "${CONFIG_LIST[@]}"; do [[ ,$KNOWN_CONFIGS, == *,$c,* ]] || die "unknown configuration '$c' (known: $KNOWN_CONFIGS)"; done
if [[ ,$CONFIGS, == *,alt-* ]]; then [[ -f $ALT_TARGET ]] || die "the alt-vaced-* configurations need --alt-target FILE"; fi
has_config() { [[ ,$CONFIGS, == *,$1,* ]]; }
has_netns_config() { [[ ,$CONFIGS, == *,netns-* ]]; }

mkdir -p "$OUT"
CSV=$OUT/validation.csv
# the descriptions calibrated for this run go with its results
TGT=$OUT/targets
mkdir -p "$TGT"
WORK=$ROOT/build/validate
LOGS=$WORK/logs
mkdir -p "$LOGS"

report() {
    command -v gnuplot > /dev/null || {
        say "installing gnuplot-nox for the plots"
        apt-get install -y gnuplot-nox > "$WORK/apt-gnuplot.log" 2>&1 ||
            say "apt-get install gnuplot-nox failed (see $WORK/apt-gnuplot.log): no plots"
    }
    python3 "$LIBDIR/report.py" --estimator "$ESTIMATOR" "$CSV" "$OUT"
}

if [[ $REPORT_ONLY == 1 ]]; then
    [[ -s $CSV ]] || die "no $CSV to report on"
    report
    exit 0
fi

for p in "$VANILLA" "$VACED"; do
    [[ -x $p/bin/mpiexec ]] || die "$p/bin/mpiexec is missing: run ./build.sh first"
done
[[ $(nproc) -ge 2 ]] || die "needs at least 2 CPUs (cores 0 and 1)"

# ---------------------------------------------------------------- build ----
# shellcheck source=lib/apps.sh
source "$LIBDIR/apps.sh"
# shellcheck source=lib/page-reporting.sh
source "$LIBDIR/page-reporting.sh"
# shellcheck source=lib/topo-c.sh
source "$LIBDIR/topo-c.sh"
say "building the apps and a ping-pong into $WORK/build (one binary for both builds: bench/lib/apps.sh)"
apps_build "$WORK" "$WORK/build.log" "$ROOT/tests/mpi/pingpong.c"

# the installed libraries: a rebuild (./build.sh) during the run is flagged
lib_id() { sha1sum "$VANILLA/lib/libmpi.so.12" "$VACED/lib/libmpi.so.12" | cut -c1-12 | tr '\n' ' '; }
LIB_ID_START=$(lib_id)

# ---------------------------------------------------- network namespaces ----
NETNS_UP=0
NETNS_KIND=
NETNS_STATE=$WORK/netns
MPIEXEC_NET=()
NETNS_PRE=()
cleanup() {
    restore_prio
    page_reporting_restore
    if [[ $NETNS_UP == 1 ]]; then
        if [[ $NETNS_KIND == tests/netns/lib.sh* ]]; then
            netns_cleanup || true
            netns__release || true
        else
            vnet_down || true
        fi
        NETNS_UP=0
    fi
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# --priority: the autogroup is the whole session's; its nice value is put
# back by cleanup (every exit path)
PRIO_OLD=
restore_prio() { [[ -z $PRIO_OLD ]] || { echo "$PRIO_OLD" > /proc/self/autogroup 2> /dev/null || true; PRIO_OLD=; }; }
if [[ -n $PRIO ]]; then
    old=$(sed -n 's/.* nice \(-\{0,1\}[0-9]*\)$/\1/p' /proc/self/autogroup 2> /dev/null)
    [[ -n $old && -w /proc/self/autogroup ]] && echo "$PRIO" > /proc/self/autogroup 2> /dev/null ||
        die "--priority: cannot write /proc/self/autogroup (autogroups off, or not root)"
    PRIO_OLD=$old
    say "scheduling autogroup: $(cat /proc/self/autogroup) (was nice $old; put back at exit)"
fi
AUTOGROUP=$(cat /proc/self/autogroup 2> /dev/null || echo none)
if [[ $KEEP_PR == 1 ]]; then
    PAGE_REPORTING_STATE="left as it was (--keep-page-reporting)"
else
    page_reporting_off
fi

netns_setup() {
    [[ $(id -u) == 0 ]] || die "the netns configurations need root (ip netns, tc)"
    mkdir -p "$NETNS_STATE"
    if [[ -f $ROOT/tests/netns/lib.sh && -x $ROOT/vaced/tools/netns-launcher ]]; then
        # shellcheck source=../tests/netns/lib.sh
        VACED_NETNS_BURST=$BURST
        source "$ROOT/tests/netns/lib.sh"
        netns_setup 2 "$RATE" || die "tests/netns/lib.sh: netns_setup failed"
        netns_hostfile "$NETNS_STATE/hosts" 1
        # mpiexec runs inside host 0 (the bridge has no address in the root
        # namespace); one rank per host; host I's proxy and rank pinned to
        # CPU I by bench/lib/pin-launcher
        MPIEXEC_NET=(-f "$NETNS_STATE/hosts" -launcher ssh -launcher-exec "$LIBDIR/pin-launcher"
                     -iface "$NETNS_IFACE")
        NETNS_PRE=(ip netns exec "${NETNS_HOSTS[0]}")
        NETNS_KIND="tests/netns/lib.sh + vaced/tools/netns-launcher (tbf burst ${NETNS_BURST} B)"
        trap cleanup EXIT   # lib.sh's trap is replaced by ours, which calls netns_cleanup
    else
        # shellcheck source=lib/netns-min.sh
        source "$LIBDIR/netns-min.sh"
        vnet_up "$RATE" "$NETNS_STATE"
        MPIEXEC_NET=("${VNET_MPIEXEC_ARGS[@]}")
        NETNS_PRE=()
        NETNS_KIND="bench/lib/netns-min.sh (tbf burst $VNET_BURST)"
    fi
    NETNS_UP=1
    say "namespaces up: $NETNS_KIND, every link shaped with tbf rate $RATE"
}

# ----------------------------------------------------------------- runs ----
# run_cmd LOG CMD...: runs with a time limit; sets RC, WALL (seconds), CPU
# (user + system seconds of the job: mpiexec and everything it waited for),
# OTHERS (mean number of CPUs that other processes kept busy meanwhile, from
# /proc/stat) and STEAL (mean number of CPUs the hypervisor took away)
read_stat() { local _c u n s i w q sq st _; read -r _c u n s i w q sq st _ < /proc/stat; echo "$((u + n + s + q + sq)) $((i + w)) $st"; }
run_cmd() {
    local log=$1; shift
    local t0 t1 b0 b1 cpu
    b0=$(read_stat)
    t0=$EPOCHREALTIME
    set +e
    timeout --kill-after=10 "$TMO" /usr/bin/time -f "%U %S" -o "$log.rusage" "$@" > "$log" 2>&1
    RC=$?
    set -e
    t1=$EPOCHREALTIME
    b1=$(read_stat)
    cpu=$(tail -1 "$log.rusage" 2>/dev/null | awk 'NF == 2 { printf "%.2f", $1 + $2 }')
    CPU=${cpu:-}
    read -r WALL OTHERS STEAL < <(awk -v a="$t0" -v b="$t1" -v s0="$b0" -v s1="$b1" -v cpu="${cpu:-0}" -v hz="$(getconf CLK_TCK)" 'BEGIN {
        split(s0, x); split(s1, y); w = b - a
        busy = (y[1] - x[1]) / hz; steal = (y[3] - x[3]) / hz
        o = (busy - cpu) / w; if (o < 0) o = 0
        printf "%.6f %.2f %.2f\n", w, o, steal / w }')
    rm -f "$log.rusage"
}

# ping-pong round trips: pingpong_series KIND OUTFILE SIZES...
# KIND local (vanilla, 2 ranks, cores 0-1) or netns
pingpong_series() {
    local kind=$1 out=$2 s it rep line
    shift 2
    : > "$out"
    for rep in 1 2 3; do
        for s in "$@"; do
            if [[ $kind == local ]]; then
                it=$(( s >= 262144 ? 200 : 2000 ))
                run_cmd "$LOGS/pingpong.log" "$VANILLA/bin/mpiexec" -bind-to core -n 2 "$WORK/build/pingpong" "$s" "$it"
            else
                it=$(( s >= 262144 ? 20 : s >= 16384 ? 100 : 500 ))
                run_cmd "$LOGS/pingpong.log" "${NETNS_PRE[@]}" "$VANILLA/bin/mpiexec" "${MPIEXEC_NET[@]}" -n 2 "$WORK/build/pingpong" "$s" "$it"
            fi
            [[ $RC == 0 ]] || die "ping-pong ($kind, $s bytes) failed: see $LOGS/pingpong.log"
            line=$(grep -o 'roundtrip_s=[0-9.e+-]*' "$LOGS/pingpong.log") || die "no round trip in $LOGS/pingpong.log"
            echo "$s ${line#roundtrip_s=}" >> "$out"
        done
    done
}
SIZES=(0 64 1024 4096 16384 65536 98304 262144 1048576 4194304)

CALIBRATE=$ROOT/vaced/tools/vaced-calibrate
# wait_quiet: until the machine's busy CPUs (all processes; we run nothing
# meanwhile) fall below QUIET_BELOW, at most MAX_WAIT seconds.  It samples
# (2 s idle) only when other processes kept QUIET_BELOW CPUs or more busy
# during one of the previous repetition's runs (OTHERS_MAX), or before the
# first: idle gaps between runs make the next runs slower and more
# variable (measured: results/history.md).  The localhost calibration
# waits too, as the runs do: other jobs' load must not enter the
# description either.
WAITED=0
OTHERS_MAX=9
wait_quiet() {
    [[ $QUIET_BELOW != 0 ]] || return 0
    awk -v o="$OTHERS_MAX" -v q="$QUIET_BELOW" 'BEGIN { exit !(o >= q) }' || return 0
    local t0=$SECONDS b0 b1 busy
    while :; do
        b0=$(read_stat); sleep 2; b1=$(read_stat)
        busy=$(awk -v s0="$b0" -v s1="$b1" -v hz="$(getconf CLK_TCK)" 'BEGIN { split(s0, x); split(s1, y); printf "%.2f", (y[1] - x[1]) / hz / 2 }')
        if awk -v b="$busy" -v q="$QUIET_BELOW" 'BEGIN { exit !(b < q) }'; then
            break
        fi
        if ((SECONDS - t0 >= MAX_WAIT)); then
            say "the machine stayed busy ($busy CPUs) for $MAX_WAIT s: going on"
            break
        fi
        ((SECONDS - t0 >= 60 && (SECONDS - t0) % 60 < 7)) && say "waiting for a quieter machine ($busy CPUs busy)"
        sleep 5
    done
    WAITED=$((WAITED + SECONDS - t0))
}

BMEM_BPS=
# calibrate_here: prints the path of the localhost description, written if
# at the start of the run (with --reuse-targets only when missing) by
# vaced/tools/vaced-calibrate when it exists, else by bench/lib/fit.py
# from our own ping-pong
calibrate_here() {
    local f=$TGT/here-2.topo m=$TGT/here-2.pingpong.txt
    if [[ $RECAL == 1 || ! -s $f ]]; then
        wait_quiet
        say "calibrating the localhost target (vanilla ping-pong on this host)"
        if [[ -x $CALIBRATE ]]; then
            "${RT_PRE[@]}" python3 "$CALIBRATE" --name here-2 --output "$f" --force --mpiexec-args "-bind-to core" \
                --json "$TGT/here-2.calibrate.json" > "$WORK/calibrate-here.log" 2>&1 ||
                die "vaced-calibrate failed: see $WORK/calibrate-here.log"
        else
            pingpong_series local "$m" "${SIZES[@]}"
            python3 "$LIBDIR/fit.py" hop0 here-2 "$m" > "$f.tmp" 2> "$WORK/fit.err" || { cat "$WORK/fit.err" >&2; die "fit failed"; }
            mv "$f.tmp" "$f"
        fi
        # the same measurements as two 1-core nodes 1 hop apart, without the
        # overheads: a pure-latency model of the same ping-pong
        "$LIBDIR/latency-variant.sh" "$f" here-2-lat > "$TGT/here-2-lat.topo" ||
            die "bench/lib/latency-variant.sh failed on $f"
    fi
    echo "$f"
}

# The link's sizes for the fit: the tbf bucket (--burst) lets a message of
# up to a few kB through at the veth's own speed, faster than the shaped
# rate, which the model's latency + s/Bnet cannot follow: with 512-8192 B
# in the fit, Bnet came out above what the link carries and large
# exchanges slower than the model (measured: results/history.md).  So the
# fit takes the latency from 0-64 B and the bandwidth from 32 KiB up;
# vaced-calibrate measures 1-16 KiB as well (its --shape-sizes) for
# bnet_factors, which bend the line to every measured size.
NET_SIZES=0,8,64,32768,65536,114688,196608,262144,524288,1048576,2097152,4194304
# calibrate_net: the same for the netns link (with --reuse-targets, once per
# --rate and --burst)
calibrate_net() {
    local f=$TGT/netns-2.topo m=$TGT/netns-2.pingpong.txt here bmem
    if [[ $RECAL == 1 || ! -s $f ]] || ! grep -q "tbf rate $RATE burst $BURST B" "$f"; then
        say "calibrating the netns target (vanilla $NET_PATTERN across the namespaces)"
        if [[ -x $CALIBRATE && $NETNS_KIND == tests/netns/lib.sh* ]]; then
            "${RT_PRE[@]}" "${NETNS_PRE[@]}" python3 "$CALIBRATE" --hostfile "$NETNS_STATE/hosts" --name netns-2 \
                --output "$f.tmp" --force --cores-per-node 1 --hops 1 --pattern "$NET_PATTERN" \
                --sizes "$NET_SIZES" \
                --mpiexec-args "-launcher ssh -launcher-exec $LIBDIR/pin-launcher -iface $NETNS_IFACE" \
                --json "$TGT/netns-2.calibrate.json" > "$WORK/calibrate-net.log" 2>&1 ||
                die "vaced-calibrate failed: see $WORK/calibrate-net.log"
            { echo "# bench/validate.sh: 2 namespaces (tests/netns/lib.sh), every link shaped with"
              echo "# tc tbf rate $RATE burst ${NETNS_BURST} B; one rank per namespace."
              cat "$f.tmp"; } > "$f"
            rm -f "$f.tmp"
        else
            here=$(calibrate_here)
            bmem=$(awk '$1 == "bmem" { v = $3; u = $4; m = (u ~ /^G/) ? 1e9 : (u ~ /^M/) ? 1e6 : 1; print v * m }' "$here")
            pingpong_series netns "$m" "${SIZES[@]}"
            python3 "$LIBDIR/fit.py" net netns-2 "$m" "$bmem" "$RATE" > "$f.tmp" 2> "$WORK/fit.err" || { cat "$WORK/fit.err" >&2; die "fit failed"; }
            mv "$f.tmp" "$f"
        fi
    fi
    echo "$f"
}

# ------------------------------------------------------------- targets ----
if [[ $CAL_ONLY == 1 ]]; then
    say "wrote $(calibrate_here) and $TGT/here-2-lat.topo"
    if has_netns_config; then
        netns_setup
        say "wrote $(calibrate_net)"
    fi
    exit 0
fi
RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)
# The descriptions this run measures (not given, not reused) are measured
# again during the run (--recalibrate-every); every measurement is kept
# under its own name, NAME.RUN_ID.N.topo, which the CSV rows name.
OWN_TARGET=0 OWN_NET_TARGET=0 CAL_N=0 CAL_AT=$SECONDS
if [[ $APPEND == 0 ]]; then
    rm -f "$TGT"/here-2.20*.topo "$TGT"/netns-2.20*.topo
fi
# keep_version FILE: prints the path of round CAL_N's copy of FILE
keep_version() {
    local v=${1%.topo}.$RUN_ID.$CAL_N.topo
    cp "$1" "$v"
    echo "$v"
}
# topo_bnet FILE: the description's bnet in bytes per second
topo_bnet() {
    awk '$1 == "bnet" { m = ($4 ~ /^G/) ? 1e9 : ($4 ~ /^M/) ? 1e6 : ($4 ~ /^k/) ? 1e3 : 1; printf "%.0f", $3 * m }' "$1"
}
NET_BEST_BNET=0 HERE_BEST_C=0
# measure_targets: (re)writes the descriptions this run owns
measure_targets() {
    CAL_N=$((CAL_N + 1))
    if [[ $OWN_TARGET == 1 ]]; then
        # The same for the localhost target: a round whose per-message time
        # c is above 1.1 times the run's best so far is measured again (up to
        # twice), and the first round twice; the fastest is kept.
        local c try kept=$WORK/here-2.kept.topo
        TARGET=$(calibrate_here)
        c=$(topo_c "$TARGET")
        cp "$TARGET" "$kept"
        for try in 1 2; do
            if [[ $HERE_BEST_C == 0 ]]; then
                ((try == 1)) || break
                say "the first localhost round measured c = $c us: measuring once more"
            else
                c_above "$c" "$HERE_BEST_C" 1.1 || break
                say "the localhost round measured c = $c us, above 1.1 times this run's best $HERE_BEST_C us: measuring again"
            fi
            TARGET=$(calibrate_here)
            if c_above "$c" "$(topo_c "$TARGET")" 1; then
                c=$(topo_c "$TARGET")
                cp "$TARGET" "$kept"
            fi
        done
        cp "$kept" "$TARGET"
        "$LIBDIR/latency-variant.sh" "$TARGET" here-2-lat > "$TGT/here-2-lat.topo" ||
            die "bench/lib/latency-variant.sh failed on $TARGET"
        [[ $HERE_BEST_C != 0 ]] && ! c_above "$HERE_BEST_C" "$c" 1 || HERE_BEST_C=$c
        TARGET=$(keep_version "$TARGET")
        say "localhost target: $TARGET (c = $c us)"
    fi
    if [[ $OWN_NET_TARGET == 1 ]]; then
        NET_TARGET=$(calibrate_net)
        # A round that met a slow moment of the link (CPU time taken from
        # the VM for seconds) would describe a slower link than the runs
        # it predicts, compared by their fastest repetitions: measured
        # again, up to twice, when its bnet is below 0.9 of the run's best
        # so far, and the fastest measurement kept.
        local bnet try kept=$WORK/netns-2.kept.topo
        bnet=$(topo_bnet "$NET_TARGET")
        cp "$NET_TARGET" "$kept"
        for try in 1 2; do
            awk -v b="$bnet" -v best="$NET_BEST_BNET" 'BEGIN { exit !(b < 0.9 * best) }' || break
            say "the link measured $bnet B/s, below 0.9 of this run's best $NET_BEST_BNET B/s: measuring again"
            NET_TARGET=$(calibrate_net)
            if awk -v n="$(topo_bnet "$NET_TARGET")" -v b="$bnet" 'BEGIN { exit !(n > b) }'; then
                bnet=$(topo_bnet "$NET_TARGET")
                cp "$NET_TARGET" "$kept"
            fi
        done
        cp "$kept" "$NET_TARGET"
        awk -v b="$bnet" -v best="$NET_BEST_BNET" 'BEGIN { exit !(b > best) }' && NET_BEST_BNET=$bnet
        NET_TARGET=$(keep_version "$NET_TARGET")
        say "netns target: $NET_TARGET"
    fi
    CAL_AT=$SECONDS
}
[[ -n $TARGET || $RECAL == 0 ]] || OWN_TARGET=1
[[ -n $TARGET || $OWN_TARGET == 1 ]] || TARGET=$(calibrate_here)
[[ -z $ALT_TARGET ]] || say "alternative description: $ALT_TARGET"
if has_netns_config; then
    netns_setup
    [[ -n $NET_TARGET || $RECAL == 0 ]] || OWN_NET_TARGET=1
    [[ -n $NET_TARGET || $OWN_NET_TARGET == 1 ]] || NET_TARGET=$(calibrate_net)
fi
((OWN_TARGET + OWN_NET_TARGET == 0)) || measure_targets
[[ $OWN_TARGET == 1 ]] || say "localhost target: $TARGET"
[[ $OWN_NET_TARGET == 1 || -z $NET_TARGET ]] || say "netns target: $NET_TARGET"
RECAL_EVERY_S=$(awk -v m="$RECAL_EVERY" 'BEGIN { printf "%d", m * 60 }')

# -------------------------------------------------------------- measure ----
HEADER=run_id,app,class,config,rep,host_cores,target,time_s,prediction_s,pred_compute_s,pred_comm_s,wall_s,cpu_s,others_cpus,steal_cpus,verified,exit,load1,start_utc
if [[ $APPEND == 0 || ! -s $CSV ]]; then
    echo "$HEADER" > "$CSV"
elif [[ $(head -1 "$CSV") != "$HEADER" ]]; then
    die "$CSV has another header; run without --append"
fi

# one_run CONFIG APP CLASS REP: runs once and appends a CSV row
one_run() {
    local cfg=$1 app=$2 cls=$3 rep=$4
    local log=$LOGS/$app.$cls.$cfg.$rep.log json=$LOGS/$app.$cls.$cfg.$rep.json
    local bin cores target=- load start time pred comp comm ver
    local -a cmd env=()
    case $cfg in
        real)        cores=0-1; cmd=("$VANILLA/bin/mpiexec" -bind-to core -n 2) ;;
        real-1core)  cores=0;   cmd=(taskset -c 0 "$VANILLA/bin/mpiexec" -n 2) ;;
        netns-real)  cores=ns;  cmd=("${NETNS_PRE[@]}" "$VANILLA/bin/mpiexec" "${MPIEXEC_NET[@]}" -n 2) ;;
        vaced-1core) cores=0;   target=$TARGET; cmd=(taskset -c 0 "$VACED/bin/mpiexec" -n 2) ;;
        vaced-2core) cores=0-1; target=$TARGET; cmd=("$VACED/bin/mpiexec" -bind-to core -n 2) ;;
        netns-vaced-1core) cores=0; target=$NET_TARGET; cmd=(taskset -c 0 "$VACED/bin/mpiexec" -n 2) ;;
        netns-vaced-2core) cores=0-1; target=$NET_TARGET; cmd=("$VACED/bin/mpiexec" -bind-to core -n 2) ;;
        alt-vaced-1core) cores=0; target=$ALT_TARGET; cmd=(taskset -c 0 "$VACED/bin/mpiexec" -n 2) ;;
        alt-vaced-2core) cores=0-1; target=$ALT_TARGET; cmd=("$VACED/bin/mpiexec" -bind-to core -n 2) ;;
    esac
    rm -f "$json"
    bin=$WORK/run/$app
    if [[ $target == - ]]; then
        env=(env "$(mpi_lib vanilla)")
    else
        env=(env "$(mpi_lib vaced)" VACED_TARGET="$target" VACED_JSON="$json" VACED_QUIET=1)
    fi
    read -r load _ < /proc/loadavg
    start=$(date -u +%Y-%m-%dT%H:%M:%SZ)
    local try
    for ((try = 0; ; try++)); do
        [[ $RT == 0 ]] || sleep "$RT_GAP"
        run_cmd "$log" "${RT_PRE[@]}" "${env[@]}" "${cmd[@]}" "$bin" "$cls"
        awk -v s="$STEAL" -v m="$MAX_STEAL" 'BEGIN { exit !(s > m) }' && ((try < STEAL_RETRIES)) || break
        printf '  %-18s rep %d  steal %s CPUs during the run: again\n' "$cfg" "$rep" "$STEAL" >&2
        STEAL_RERUNS=$((STEAL_RERUNS + 1))
        wait_no_steal
    done
    time=$(sed -n 's/^APP=.* TIME=\([^ ]*\) .*/\1/p' "$log" | tail -1)
    ver=$(sed -n 's/^APP=.* VERIFIED=\([a-z]*\).*/\1/p' "$log" | tail -1)
    pred= comp= comm=
    if [[ $target != - ]]; then
        pred=$(sed -n 's/^vaced: prediction \([0-9.e+-]*\) s.*/\1/p' "$log" | tail -1)
        if [[ -s $json ]]; then
            read -r comp comm < <(python3 -c '
import json, sys
d = json.load(open(sys.argv[1]))
r = max(d["per_rank"], key=lambda r: r["total_s"])
print(r["compute_s"], r["communication_s"])' "$json") || true
        fi
    fi
    echo "$RUN_ID,$app,$cls,$cfg,$rep,$cores,$(basename "$target"),${time},${pred},${comp},${comm},$WALL,$CPU,$OTHERS,$STEAL,${ver:-none},$RC,$load,$start" >> "$CSV"
    printf '  %-18s rep %d  TIME=%-10s pred=%-12s wall=%7.3f s  cpu=%6s s  others=%4s  rc=%d %s\n' \
        "$cfg" "$rep" "${time:--}" "${pred:--}" "$WALL" "${CPU:--}" "$OTHERS" "$RC" "${ver:-}" >&2
    [[ $RC == 0 && $ver == yes ]] || say "$app $cls $cfg rep $rep: exit $RC, verified '${ver:-none}' (see $log)"
}

# wait_no_steal: until STEAL_QUIET seconds in a row pass in which the
# hypervisor took less than a quarter of MAX_STEAL from the idle guest (at
# most 60 s): its budget has refilled (one such second is not enough: the
# next run is stolen from again; and even an idle guest loses a little to
# steal: results/history.md)
STEAL_RERUNS=0 STEAL_WAITED=0
wait_no_steal() {
    local t0=$SECONDS a b clean=0 low
    low=$(awk -v m="$MAX_STEAL" -v hz="$(getconf CLK_TCK)" 'BEGIN { print int(m / 4 * hz) }')
    while ((clean < STEAL_QUIET && SECONDS - t0 < 60)); do
        read -r _ _ a < <(read_stat); sleep 1; read -r _ _ b < <(read_stat)
        if ((b - a > low)); then clean=0; else clean=$((clean + 1)); fi
    done
    STEAL_WAITED=$((STEAL_WAITED + SECONDS - t0))
}


t_all=$SECONDS
for cls in "${CLASS_LIST[@]}"; do
    for app in "${APP_LIST[@]}"; do
        if ((OWN_TARGET + OWN_NET_TARGET > 0 && RECAL_EVERY_S > 0 && SECONDS - CAL_AT >= RECAL_EVERY_S)); then
            measure_targets
        fi
        say "$app class $cls"
        for ((rep = 1; rep <= REPS; rep++)); do
            wait_quiet
            apps_stage "$WORK"
            OTHERS_MAX=0
            for cfg in "${CONFIG_LIST[@]}"; do
                one_run "$cfg" "$app" "$cls" "$rep"
                OTHERS_MAX=$(awk -v a="$OTHERS_MAX" -v b="$OTHERS" 'BEGIN { print (b > a) ? b : a }')
            done
        done
    done
done
say "measurements took $((SECONDS - t_all)) s, $WAITED s of it waiting for a quieter machine; $STEAL_RERUNS runs redone for steal time ($STEAL_WAITED s of waiting)"

LIB_ID_END=$(lib_id)
if [[ $LIB_ID_START != "$LIB_ID_END" ]]; then
    say "WARNING: install/vanilla or install/vaced changed during the run ($LIB_ID_START -> $LIB_ID_END)"
    echo "# WARNING: an install changed during run $RUN_ID" >> "$WORK/lib-changed.txt"
fi
{
    echo "run_id=$RUN_ID"
    echo "libs_start=$LIB_ID_START"
    echo "libs_end=$LIB_ID_END"
    echo "target=$TARGET"
    echo "net_target=$NET_TARGET"
    echo "targets_measured=$(cd "$TGT" && ls -- *."$RUN_ID".*.topo 2> /dev/null | tr '\n' ' ')"
    echo "recalibrate_every_min=$RECAL_EVERY"
    echo "alt_target=$ALT_TARGET"
    echo "netns=$NETNS_KIND"
    echo "rate=$RATE"
    echo "net_pattern=$NET_PATTERN"
    echo "command=$ORIG_CMD"
    echo "autogroup=$AUTOGROUP"
    echo "page_reporting=$PAGE_REPORTING_STATE"
    echo "estimator=$ESTIMATOR"
    echo "binaries=one file per app for real and VACED runs, copied afresh every repetition, libmpi by LD_LIBRARY_PATH (bench/lib/apps.sh)"
    echo "rt=$([[ $RT == 1 ]] && echo "chrt -r 1, gap $RT_GAP s" || echo no)"
    echo "steal=runs with more than $MAX_STEAL CPUs of steal time rerun, up to $STEAL_RETRIES times; $STEAL_RERUNS reruns"
    echo "elapsed_s=$SECONDS"
} > "$OUT/validation.$RUN_ID.meta"
cleanup
report
