#!/bin/bash
# What VACED costs on the host: slowdown against unpatched MPICH, efficiency
# of oversubscribed runs, per-call overhead, and a 1024-rank prediction.
# Run bench/run.sh --help for what it does.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
BENCH=$ROOT/bench
VANILLA=$ROOT/install/vanilla
VACED=$ROOT/install/vaced
ALL_APPS=ep,is,cg,mg,ft,lu,stencil
ALL_PARTS=slowdown,segments,reads,pingpong,cputime,scale,netns

usage() {
    cat <<EOF
usage: bench/run.sh [--quick] [options]

Measures the host cost of VACED side by side with the unpatched MPICH of
the same configure (install/vaced against install/vanilla, both ch3:sock),
in one run, and writes the figures as ratios.  Parts (--parts):

  slowdown  the mini-apps of tests/apps at class W with P = 2, 16 and 64
            ranks on this machine's cores (no binding: Hydra's default, the
            same for both builds); wall time of the whole mpiexec, runs
            interleaved (vanilla, vaced, vanilla, vaced ...) R times,
            medians.  slowdown = median vaced wall / median vanilla wall
            (goals: mean <= 1.03, max <= 1.10).  VACED runs with
            VACED_QUIET=all and VACED_TARGET=paper-1024.  Combinations an
            app refuses (exit 2, e.g. FT with 64 ranks at class W) are
            skipped.
            From the same runs, host efficiency = wall / (CPU time of all
            ranks / host cores): 1 means the cores did nothing but the
            ranks' work; goal <= 1.3 for the oversubscribed runs (P > cores).
            CPU time is /usr/bin/time's user + system time of mpiexec, which
            includes its proxy and every rank (waited-for children).  The
            CPU time other processes took meanwhile (from /proc/stat) is
            recorded too, and a load-corrected efficiency
            wall / (CPU time / (cores - others)).
  segments  does VACED change how fast the program computes?  The apps at
            class --seg-class (A), 2 ranks on the 2 cores (-bind-to core),
            vanilla and vaced interleaved R times, with bench/segtime.c
            (LD_PRELOAD, PMPI): the thread CPU time of each rank between MPI
            calls (compute) and inside them.  VACED runs with VACED_TARGET
            --seg-target (results/targets/here-2.topo: a calibrated
            description that uses every part of the model).  compute ratio
            = least vaced compute / least vanilla compute of the runs (the
            medians' ratio beside it; goal within 0.95-1.05): VACED times computation by the host's CPU time, so
            anything it does that speeds up or slows down the program's own
            code (libm's log2 once made LU's loops 35 % faster) is an error
            in every prediction.
  reads     one more VACED run of every app and rank count of the slowdown,
            counting the CPU-time reads of all ranks (bench/rankstat.c):
            reads x the cost of a read (part cputime) estimates the CPU time
            VACED's clock adds, to set beside the measured CPU-time growth.
  pingpong  0-byte ping-pong between 2 ranks on the 2 cores (-bind-to core),
            bench/pingpong.c, timed with clock_gettime(CLOCK_MONOTONIC) in
            the program (MPI_Wtime is target time under VACED); interleaved
            vanilla/vaced runs, median round trip; ratio goal <= 1.5.  Then
            counts the CPU-time reads VACED does per ping-pong iteration:
            bench/rankstat.c (LD_PRELOAD) counts clock_gettime calls by
            clock in every rank, for two iteration counts; reads per
            iteration = difference / difference of iterations.
  cputime   ns per read of every CPU-time source (bench/cputime_bench.c,
            compiled against vaced/src).
  scale     --scale-ranks (1024) ranks of --scale-app (ep) at class
            --scale-class (S) with install/vaced on target paper-1024, and
            the same run on install/vanilla: wall time, CPU time, peak
            memory (sum of the ranks' VmHWM and of their Pss at
            MPI_Finalize, from bench/rankstat.c; and the drop of the
            machine's MemAvailable, sampled every 0.5 s), file descriptors
            per rank, the prediction; and the start-up cost alone (a job
            that only calls MPI_Init and MPI_Finalize: bench/pingpong 0 0).
            Raises ulimit -n for it (Hydra's proxy holds 3 descriptors per
            rank and every rank inherits the proxy's pipes to the ranks
            started before it).
  netns     (needs root) the same 1024-rank predictions across 4 emulated
            host nodes (network namespaces of tests/netns/lib.sh, Hydra
            through vaced/tools/netns-launcher, 256 ranks a node) against
            one host: a ring (tests/mpi/ring.c, 1 MiB messages, 5 laps: its
            prediction is communication only, repeatable to 0.1% on one
            host) and --scale-app (its prediction holds computation timed by
            CPU time, which moves with the machine's load); goal within 2%.

Options:
  --quick               about 5 minutes: --reps 3, --apps ep,is,mg,ft,stencil
                        (CG and LU at 64 ranks take 10-15 s a run),
                        --pp-iters 10000, --scale-reps 1, parts
                        slowdown,reads,pingpong,cputime,scale
  --parts LIST          comma-separated parts (default all: $ALL_PARTS;
                        netns is skipped with a note when not root)
  -a, --apps LIST       apps for the slowdown (default $ALL_APPS)
  -p, --procs LIST      rank counts for the slowdown (default 2,16,64)
  -c, --class C         class for the slowdown (default W)
  -r, --reps R          repetitions of the slowdown and ping-pong (default 5)
  --target T            VACED_TARGET for every VACED run but the segments
                        part's (default paper-1024)
  --seg-class C         class of the segments part (default A)
  --seg-target T        VACED_TARGET of the segments part (default
                        results/targets/here-2.topo)
  --pp-iters N          round trips per timed round of the ping-pong
                        (default 20000; 5 rounds a run)
  --scale-ranks N       ranks of the scale and netns parts (default 1024)
  --scale-app APP       app of the scale part (default ep; must accept N ranks
                        at --scale-class)
  --scale-class C       class of the scale app (default S)
  --scale-reps R        repetitions of the scale and netns runs (default 3)
  --netns-hosts H       emulated host nodes of the netns part (default 4)
  --timeout S           limit per run in seconds (default 900)
  --max-steal C         a run during which the hypervisor took away (steal
                        time, /proc/stat) more than C CPUs on average is run
                        again once the VM has gone --steal-quiet seconds in a
                        row without steal (default 0.1; 0 = never): steal
                        stretches wall times and, through the thread clock's
                        steal accounting, the CPU time VACED measures
  --steal-retries N     at most N reruns of a run for steal (default 3; the
                        last one is kept, with its steal in bench-runs.csv)
  --steal-quiet S       seconds without steal before such a rerun (default 5)
  --priority N          set the nice value of this script's scheduling
                        autogroup (/proc/self/autogroup; with autogroups the
                        kernel shares the CPUs between sessions, whatever
                        a process's own nice value) to N, -20..19: on a
                        shared machine a negative N lets other sessions'
                        load stretch the measured jobs less (root only;
                        default: leave it)
  --keep-page-reporting leave the VM's free page reporting on (by default, as
                        root, a virtio_balloon device that reports free pages
                        is unbound for the run and bound again at the end:
                        bench/lib/page-reporting.sh says why)
  --quiet-below C       before every repetition wait until other processes
                        keep fewer than C CPUs busy (sampled over 2 s; default
                        0: do not wait), at most --max-wait s (default 600)
  --out DIR             where bench.csv, bench.md and bench-runs.csv go
                        (default results/)
  --append              add to DIR/bench-runs.csv instead of starting it anew
                        (e.g. one more part; the report takes every row, and
                        bench-meta.txt lists every command)
  --report-only         only rewrite bench.csv and bench.md from DIR/bench-runs.csv
  -h, --help            this text

Writes DIR/bench.csv (one row per figure: base and value side by side and
their ratio), DIR/bench.md (the tables, the machine's load, what limits the
scale) and DIR/bench-runs.csv (every run).  Logs and binaries go to
build/bench/.  Prints the summary at the end.

Examples:
  bench/run.sh --quick                               # about 5 minutes
  bench/run.sh                                       # everything, about 20 minutes
  bench/run.sh --parts pingpong,cputime -r 9         # per-call cost only
  bench/run.sh --parts scale --scale-ranks 512 --scale-app cg
EOF
}

die() { echo "bench/run.sh: $*" >&2; exit 1; }
say() { echo "bench/run.sh: $*" >&2; }

ARGS=("$@")
PARTS=$ALL_PARTS APPS=$ALL_APPS PROCS=2,16,64 CLASS=W REPS=5 TARGET=paper-1024
SEG_CLASS=A SEG_TARGET=$ROOT/results/targets/here-2.topo
PP_ITERS=20000 SCALE_N=1024 SCALE_APP=ep SCALE_CLASS=S SCALE_REPS=3 NETNS_N=4
TMO=900 PRIO= QUIET_BELOW=0 MAX_WAIT=600 OUT=$ROOT/results REPORT_ONLY=0 APPEND=0 QUICK=0
KEEP_PR=0 MAX_STEAL=0.1 STEAL_RETRIES=3 STEAL_QUIET=5 STEAL_RERUNS=0 STEAL=
set_parts=0 set_apps=0 set_reps=0 set_pp=0 set_sreps=0
while [[ $# -gt 0 ]]; do
    case $1 in
        --quick) QUICK=1; shift ;;
        --parts) PARTS=${2:?}; set_parts=1; shift 2 ;;
        -a|--apps) APPS=${2:?}; set_apps=1; shift 2 ;;
        -p|--procs) PROCS=${2:?}; shift 2 ;;
        -c|--class) CLASS=${2:?}; shift 2 ;;
        -r|--reps) REPS=${2:?}; set_reps=1; shift 2 ;;
        --target) TARGET=${2:?}; shift 2 ;;
        --seg-class) SEG_CLASS=${2:?}; shift 2 ;;
        --seg-target) SEG_TARGET=${2:?}; shift 2 ;;
        --pp-iters) PP_ITERS=${2:?}; set_pp=1; shift 2 ;;
        --scale-ranks) SCALE_N=${2:?}; shift 2 ;;
        --scale-app) SCALE_APP=${2:?}; shift 2 ;;
        --scale-class) SCALE_CLASS=${2:?}; shift 2 ;;
        --scale-reps) SCALE_REPS=${2:?}; set_sreps=1; shift 2 ;;
        --netns-hosts) NETNS_N=${2:?}; shift 2 ;;
        --timeout) TMO=${2:?}; shift 2 ;;
        --max-steal) MAX_STEAL=${2:?}; shift 2 ;;
        --steal-retries) STEAL_RETRIES=${2:?}; shift 2 ;;
        --steal-quiet) STEAL_QUIET=${2:?}; shift 2 ;;
        --priority) PRIO=${2:?}; shift 2 ;;
        --keep-page-reporting) KEEP_PR=1; shift ;;
        --quiet-below) QUIET_BELOW=${2:?}; shift 2 ;;
        --max-wait) MAX_WAIT=${2:?}; shift 2 ;;
        --out) OUT=$(realpath -m "${2:?}"); shift 2 ;;
        --report-only) REPORT_ONLY=1; shift ;;
        --append) APPEND=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
if [[ $QUICK == 1 ]]; then
    [[ $set_parts == 1 ]] || PARTS=slowdown,reads,pingpong,cputime,scale
    [[ $set_apps == 1 ]] || APPS=ep,is,mg,ft,stencil
    [[ $set_reps == 1 ]] || REPS=3
    [[ $set_pp == 1 ]] || PP_ITERS=10000
    [[ $set_sreps == 1 ]] || SCALE_REPS=1
fi
posint() { [[ $2 =~ ^[1-9][0-9]*$ ]] || die "$1: a positive whole number, got '$2'"; }
posint --reps "$REPS"; posint --pp-iters "$PP_ITERS"; posint --scale-ranks "$SCALE_N"
posint --scale-reps "$SCALE_REPS"; posint --netns-hosts "$NETNS_N"; posint --timeout "$TMO"
[[ $MAX_STEAL =~ ^[0-9]+(\.[0-9]+)?$ ]] || die "--max-steal: a number of CPUs, got '$MAX_STEAL'"
[[ $STEAL_RETRIES =~ ^[0-9]+$ ]] || die "--steal-retries: a whole number, got '$STEAL_RETRIES'"
[[ $STEAL_QUIET =~ ^[0-9]+$ ]] || die "--steal-quiet: a whole number of seconds, got '$STEAL_QUIET'"
IFS=, read -ra PART_LIST <<< "$PARTS"
IFS=, read -ra APP_LIST <<< "$APPS"
IFS=, read -ra PROC_LIST <<< "$PROCS"
for p in "${PART_LIST[@]}"; do [[ ,$ALL_PARTS, == *,$p,* ]] || die "unknown part '$p' (known: $ALL_PARTS)"; done
for a in "${APP_LIST[@]}" "$SCALE_APP"; do [[ ,$ALL_APPS, == *,$a,* ]] || die "unknown app '$a' (known: $ALL_APPS)"; done
for p in "${PROC_LIST[@]}"; do posint --procs "$p"; done
for c in "$CLASS" "$SCALE_CLASS" "$SEG_CLASS"; do [[ $c == [SWABC] ]] || die "unknown class '$c' (known: S W A; B and C for ep)"; done
has_part() { [[ ,$PARTS, == *,$1,* ]]; }

mkdir -p "$OUT"
RUNS=$OUT/bench-runs.csv
WORK=$ROOT/build/bench
LOGS=$WORK/logs
mkdir -p "$LOGS"

report() { python3 "$BENCH/report.py" "$OUT"; }
if [[ $REPORT_ONLY == 1 ]]; then
    [[ -s $RUNS ]] || die "no $RUNS to report on"
    report
    exit 0
fi

for p in "$VANILLA" "$VACED"; do
    [[ -x $p/bin/mpiexec ]] || die "$p/bin/mpiexec is missing: run ./build.sh first"
done
CORES=$(nproc)
T_START=$SECONDS
# the autogroup is the whole session's: its nice value is put back at exit
PRIO_OLD=
restore_prio() { [[ -z $PRIO_OLD ]] || { echo "$PRIO_OLD" > /proc/self/autogroup 2> /dev/null || true; PRIO_OLD=; }; }
if [[ -n $PRIO ]]; then
    [[ $PRIO =~ ^-?[0-9]+$ ]] && ((PRIO >= -20 && PRIO <= 19)) || die "--priority: -20..19, got '$PRIO'"
    old=$(sed -n 's/.* nice \(-\{0,1\}[0-9]*\)$/\1/p' /proc/self/autogroup 2> /dev/null)
    [[ -n $old && -w /proc/self/autogroup ]] && echo "$PRIO" > /proc/self/autogroup 2> /dev/null ||
        die "--priority: cannot write /proc/self/autogroup (autogroups off, or not root)"
    PRIO_OLD=$old
    say "scheduling autogroup: $(cat /proc/self/autogroup) (was nice $old; put back at exit)"
fi
AUTOGROUP=$(cat /proc/self/autogroup 2> /dev/null || echo none)
# shellcheck source=lib/page-reporting.sh
source "$ROOT/bench/lib/page-reporting.sh"
bench_cleanup() { ! declare -F stop_sampler > /dev/null || stop_sampler; restore_prio; page_reporting_restore; }
trap 'bench_cleanup' EXIT
if [[ $KEEP_PR == 1 ]]; then
    PAGE_REPORTING_STATE="left as it was (--keep-page-reporting)"
else
    page_reporting_off
fi

# --------------------------------------------------------------- build ----
# shellcheck source=lib/apps.sh
source "$ROOT/bench/lib/apps.sh"
say "building the apps, bench/pingpong.c and bench/rankstat.c into $WORK (one binary for both builds: bench/lib/apps.sh)"
apps_build "$WORK" "$WORK/build.log" "$BENCH/pingpong.c" "$ROOT/tests/mpi/ring.c"
apps_stage "$WORK"
# rankstat.so forwards libmpi's clock reads from outside libmpi, where
# VACED would answer with target time: its runs set VACED_HOST_CLOCKS=1.
if [[ ! $WORK/rankstat.so -nt $BENCH/rankstat.c ]]; then
    gcc -O2 -Wall -Wextra -shared -fPIC -o "$WORK/rankstat.so" "$BENCH/rankstat.c" -ldl ||
        die "building bench/rankstat.c failed"
fi
if [[ ! $WORK/segtime.so -nt $BENCH/segtime.c ]]; then
    gcc -O2 -Wall -Wextra -shared -fPIC -I"$VANILLA/include" -o "$WORK/segtime.so" "$BENCH/segtime.c" ||
        die "building bench/segtime.c failed"
fi

lib_id() { sha1sum "$VANILLA/lib/libmpi.so.12" "$VACED/lib/libmpi.so.12" | cut -c1-12 | tr '\n' ' '; }
LIB_ID_START=$(lib_id)

# ---------------------------------------------------------------- runs ----
RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)
HEADER=run_id,part,item,ranks,build,rep,rc,wall_s,cpu_s,others_cpus,load1,metrics
if [[ $APPEND == 0 || ! -s $RUNS ]]; then
    echo "$HEADER" > "$RUNS"
    PREV_META=
elif [[ $(head -1 "$RUNS") != "$HEADER" ]]; then
    die "$RUNS has another header; run without --append"
else
    PREV_META=$(cat "$OUT/bench-meta.txt" 2> /dev/null || true)
fi
prev() { sed -n "s/^$1=//p" <<< "$PREV_META" | head -1; }

# run_cmd LOG CMD...: runs with a time limit; sets RC, WALL (s), CPU (user +
# system s of the job: mpiexec and everything it waited for), OTHERS (mean
# CPUs other processes kept busy meanwhile, from /proc/stat) and STEAL (mean
# CPUs the hypervisor took away). A run with more steal than --max-steal is
# run again after a stretch without steal (at most --steal-retries times).
read_stat() { local _c u n s i w q sq st _; read -r _c u n s i w q sq st _ < /proc/stat; echo "$((u + n + s + q + sq)) $st"; }
run_once() {
    local log=$1; shift
    local t0 t1 b0 b1 s0 s1 cpu
    read -r b0 s0 < <(read_stat)
    t0=$EPOCHREALTIME
    set +e
    timeout --kill-after=10 "$TMO" /usr/bin/time -f "%U %S" -o "$log.rusage" "$@" > "$log" 2>&1
    RC=$?
    set -e
    t1=$EPOCHREALTIME
    read -r b1 s1 < <(read_stat)
    cpu=$(tail -1 "$log.rusage" 2>/dev/null | awk 'NF == 2 { printf "%.3f", $1 + $2 }')
    CPU=${cpu:-}
    read -r WALL OTHERS STEAL < <(awk -v a="$t0" -v b="$t1" -v x0="$b0" -v x1="$b1" -v y0="$s0" -v y1="$s1" \
        -v cpu="${cpu:-0}" -v hz="$(getconf CLK_TCK)" 'BEGIN {
        w = b - a; o = ((x1 - x0) / hz - cpu) / w; if (o < 0) o = 0
        printf "%.6f %.2f %.2f\n", w, o, (y1 - y0) / hz / w }')
    rm -f "$log.rusage"
}
# Waits (at most --max-wait s) until the VM has had --steal-quiet seconds in a row without steal.
wait_no_steal() {
    local t0=$SECONDS quiet=0 a b
    read -r _ a < <(read_stat)
    while ((quiet < STEAL_QUIET && SECONDS - t0 < MAX_WAIT)); do
        sleep 1
        read -r _ b < <(read_stat)
        if ((b == a)); then quiet=$((quiet + 1)); else quiet=0; fi
        a=$b
    done
    WAITED=$((WAITED + SECONDS - t0))
}
run_cmd() {
    local try
    for ((try = 0; ; try++)); do
        run_once "$@"
        awk -v s="$STEAL" -v m="$MAX_STEAL" 'BEGIN { exit !(m > 0 && s > m) }' && ((try < STEAL_RETRIES)) || break
        printf '  steal %s CPUs during %s: again\n' "$STEAL" "${1##*/}" >&2
        STEAL_RERUNS=$((STEAL_RERUNS + 1))
        wait_no_steal
    done
}

# row PART ITEM RANKS BUILD REP METRICS: one line of bench-runs.csv from the last run_cmd
row() {
    local load
    read -r load _ < /proc/loadavg
    local m=$6
    [[ -z $STEAL ]] || m+="${m:+;}steal_cpus=$STEAL"
    echo "$RUN_ID,$1,$2,$3,$4,$5,$RC,$WALL,$CPU,$OTHERS,$load,$m" >> "$RUNS"
}

WAITED=0
wait_quiet() {
    [[ $QUIET_BELOW != 0 ]] || return 0
    local t0=$SECONDS b0 b1 busy
    while :; do
        read -r b0 _ < <(read_stat); sleep 2; read -r b1 _ < <(read_stat)
        busy=$(awk -v s0="$b0" -v s1="$b1" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.2f", (s1 - s0) / hz / 2 }')
        awk -v b="$busy" -v q="$QUIET_BELOW" 'BEGIN { exit !(b < q) }' && break
        if ((SECONDS - t0 >= MAX_WAIT)); then
            say "the machine stayed busy ($busy CPUs) for $MAX_WAIT s: going on"
            break
        fi
        sleep 3
    done
    WAITED=$((WAITED + SECONDS - t0))
}

vaced_env=(env "$(mpi_lib vaced)" VACED_TARGET="$TARGET")
LOAD_START=$(cut -d' ' -f1-3 /proc/loadavg)

# ------------------------------------------------------------ slowdown ----
if has_part slowdown; then
    say "slowdown: apps $APPS, class $CLASS, ranks $PROCS, $REPS repetitions (vanilla, vaced interleaved)"
    declare -A refused=()
    for ((rep = 1; rep <= REPS; rep++)); do
        wait_quiet
        apps_stage "$WORK"
        for P in "${PROC_LIST[@]}"; do
            for app in "${APP_LIST[@]}"; do
                [[ -z ${refused[$app.$P]:-} ]] || continue
                for v in vanilla vaced; do
                    log=$LOGS/slowdown.$app.$CLASS.$P.$v.$rep.log
                    if [[ $v == vanilla ]]; then
                        run_cmd "$log" env "$(mpi_lib vanilla)" "$VANILLA/bin/mpiexec" -n "$P" "$WORK/run/$app" "$CLASS"
                    else
                        run_cmd "$log" "${vaced_env[@]}" VACED_QUIET=all "$VACED/bin/mpiexec" -n "$P" "$WORK/run/$app" "$CLASS"
                    fi
                    if [[ $RC == 2 ]] && ! grep -q '^APP=' "$log"; then
                        say "  $app with $P ranks at class $CLASS: refused by the app (exit 2), skipped: $(grep -m1 -v '^$' "$log" | cut -c1-100)"
                        refused[$app.$P]=1
                        echo "$RUN_ID,slowdown,$app.$CLASS,$P,$v,$rep,2,,,,,refused" >> "$RUNS"
                        break
                    fi
                    time=$(sed -n 's/^APP=.* TIME=\([^ ]*\) .*/\1/p' "$log" | tail -1)
                    ver=$(sed -n 's/^APP=.* VERIFIED=\([a-z]*\).*/\1/p' "$log" | tail -1)
                    row slowdown "$app.$CLASS" "$P" "$v" "$rep" "time=${time};verified=${ver:-none}"
                    printf '  rep %d  %-8s P=%-3d %-8s wall %7.3f s  cpu %7s s  others %4s  rc %d %s\n' \
                        "$rep" "$app" "$P" "$v" "$WALL" "${CPU:--}" "$OTHERS" "$RC" "${ver:-}" >&2
                    [[ $RC == 0 && $ver == yes ]] || say "  $app P=$P $v rep $rep: exit $RC, verified '${ver:-none}' (see $log)"
                done
            done
        done
    done
fi

# ------------------------------------------------------------ segments ----
if has_part segments; then
    say "segments: compute CPU time between MPI calls, apps $APPS, class $SEG_CLASS, 2 ranks on cores 0-1, $REPS repetitions (vanilla, vaced interleaved; bench/segtime.c)"
    for ((rep = 1; rep <= REPS; rep++)); do
        wait_quiet
        apps_stage "$WORK"
        for app in "${APP_LIST[@]}"; do
            for v in vanilla vaced; do
                st=$WORK/segments.$app.$v
                rm -rf "$st"; mkdir -p "$st"
                log=$LOGS/segments.$app.$SEG_CLASS.$v.$rep.log
                env=(env "$(mpi_lib "$v")" LD_PRELOAD="$WORK/segtime.so" SEGTIME_DIR="$st")
                [[ $v == vanilla ]] || env+=(VACED_TARGET="$SEG_TARGET" VACED_QUIET=all)
                run_cmd "$log" "${env[@]}" "$ROOT/install/$v/bin/mpiexec" -bind-to core -n 2 "$WORK/run/$app" "$SEG_CLASS"
                [[ $RC == 0 && -s $st/rank.0 && -s $st/rank.1 ]] || die "segments: $app ($v) failed: see $log"
                m=$(cat "$st"/rank.* | awk '
                    { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                      k++; c += v["compute_cpu_s"]; s += v["segments"]; m += v["mpi_cpu_s"]; n += v["mpi_calls"] }
                    END { printf "ranks_reported=%d;compute_cpu_s=%.6f;segments=%d;mpi_cpu_s=%.6f;mpi_calls=%d", k, c, s, m, n }')
                time=$(sed -n 's/^APP=.* TIME=\([^ ]*\) .*/\1/p' "$log" | tail -1)
                row segments "$app.$SEG_CLASS" 2 "$v" "$rep" "$m;time=$time"
                printf '  rep %d  %-8s %-8s %s\n' "$rep" "$app" "$v" "${m//;/ }" >&2
            done
        done
    done
fi

# --------------------------------------------------------------- reads ----
if has_part reads; then
    say "reads: CPU-time reads of every app and rank count (one vaced run each, LD_PRELOAD bench/rankstat.so)"
    for P in "${PROC_LIST[@]}"; do
        for app in "${APP_LIST[@]}"; do
            st=$WORK/reads.$app.$CLASS.$P
            rm -rf "$st"; mkdir -p "$st"
            log=$LOGS/reads.$app.$CLASS.$P.log
            run_cmd "$log" "${vaced_env[@]}" VACED_QUIET=all VACED_HOST_CLOCKS=1 LD_PRELOAD="$WORK/rankstat.so" RANKSTAT_DIR="$st" RANKSTAT_CLOCKS=1 \
                "$VACED/bin/mpiexec" -n "$P" "$WORK/run/$app" "$CLASS"
            [[ $RC != 2 ]] || grep -q '^APP=' "$log" || continue     # a rank count the app refuses
            m=$(cat "$st"/rank.* 2> /dev/null | awk '
                { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
                  k++; t += v["clock_thread"]; p += v["clock_process"]; m += v["clock_mono"] }
                END { printf "ranks_reported=%d;clock_thread=%d;clock_process=%d;clock_mono=%d", k, t, p, m }')
            row reads "$app.$CLASS" "$P" vaced 1 "$m"
            printf '  %-8s P=%-3d %s\n' "$app" "$P" "$m" >&2
        done
    done
fi

# ------------------------------------------------------------ pingpong ----
# total round trips of "pingpong 0 ITERS ROUNDS": warm-up + timed
trips() { local w=$(($1 / 10)); ((w > 10)) || w=10; echo $((w + $1 * $2)); }
if has_part pingpong; then
    say "pingpong: 0 bytes, 2 ranks on cores 0-1, $PP_ITERS round trips x 5 rounds a run, $REPS runs each (interleaved)"
    for ((rep = 1; rep <= REPS; rep++)); do
        wait_quiet
        for v in vanilla vaced; do
            log=$LOGS/pingpong.$v.$rep.log
            env=(env "$(mpi_lib vanilla)")
            [[ $v == vanilla ]] || env=("${vaced_env[@]}" VACED_QUIET=all)
            run_cmd "$log" "${env[@]}" "$ROOT/install/$v/bin/mpiexec" -bind-to core -n 2 "$WORK/run/pingpong" 0 "$PP_ITERS" 5
            med=$(sed -n 's/^pingpong bytes=.* median_us=\([0-9.]*\) .*/\1/p' "$log")
            mn=$(sed -n 's/^pingpong bytes=.* min_us=\([0-9.]*\) .*/\1/p' "$log")
            [[ $RC == 0 && -n $med ]] || die "ping-pong ($v) failed: see $log"
            row pingpong rtt0 2 "$v" "$rep" "median_us=$med;min_us=$mn"
            printf '  rep %d  %-8s round trip %8.3f us (median of 5 rounds)\n' "$rep" "$v" "$med" >&2
        done
    done
    say "pingpong: counting clock_gettime calls per iteration (LD_PRELOAD bench/rankstat.so)"
    for v in vanilla vaced; do
        for it in 1000 11000; do
            st=$WORK/clocks.$v.$it
            rm -rf "$st"; mkdir -p "$st"
            env=(env "$(mpi_lib "$v")" VACED_HOST_CLOCKS=1 LD_PRELOAD="$WORK/rankstat.so" RANKSTAT_DIR="$st" RANKSTAT_CLOCKS=1)
            [[ $v == vanilla ]] || env+=(VACED_TARGET="$TARGET" VACED_QUIET=all)
            run_cmd "$LOGS/clocks.$v.$it.log" "${env[@]}" "$ROOT/install/$v/bin/mpiexec" -bind-to core -n 2 "$WORK/run/pingpong" 0 "$it" 1
            [[ $RC == 0 && -s $st/rank.0 && -s $st/rank.1 ]] || die "clock count ($v) failed: see $LOGS/clocks.$v.$it.log"
            for r in 0 1; do
                m=$(sed 's/^rank=[0-9]* pid=[0-9]* //; s/ /;/g' "$st/rank.$r")
                row clocks "rank$r" 2 "$v" "$it" "trips=$(trips "$it" 1);$m"
            done
        done
    done
fi

# ------------------------------------------------------------- cputime ----
if has_part cputime; then
    say "cputime: ns per read of every CPU-time source (bench/cputime_bench.c)"
    cb=$WORK/cputime_bench
    if cc -std=gnu11 -O2 -Wall -Wextra -Werror -I"$ROOT/vaced/src" "$ROOT/vaced/src/cputime/cputime.c" \
        "$ROOT/vaced/src/cputime/cputime_perf.c" "$ROOT/vaced/src/cputime/cputime_rseq.c" "$BENCH/cputime_bench.c" -pthread -o "$cb" > "$LOGS/cputime-build.log" 2>&1; then
        RC=0 WALL= CPU= OTHERS=
        "$cb" 20000 9 > "$LOGS/cputime.log" 2>&1 || RC=$?
        cat "$LOGS/cputime.log" >&2
        # "  NAME   MEDIAN   MIN" or "  NAME unavailable: WHY"
        while IFS= read -r line; do
            if [[ $line =~ ^\ \ (.+[^ ])\ +([0-9.]+)\ +([0-9.]+)$ ]]; then
                row cputime "${BASH_REMATCH[1]//,/}" 1 host 1 "median_ns=${BASH_REMATCH[2]};min_ns=${BASH_REMATCH[3]}"
            elif [[ $line =~ ^\ \ (.+[^ ])\ +unavailable:\ (.*)$ ]]; then
                row cputime "${BASH_REMATCH[1]//,/}" 1 host 1 "unavailable=${BASH_REMATCH[2]//[,;]/ }"
            elif [[ $line == init\(\"auto\"\)* ]]; then
                row cputime auto-choice 1 host 1 "note=$(echo "$line" | tr ',;' '  ')"
            fi
        done < "$LOGS/cputime.log"
    else
        say "cputime: bench/cputime_bench.c does not build (see $LOGS/cputime-build.log): skipped"
    fi
fi

# -------------------------------------------------------------- scale ----
# raise the descriptor limit: the proxy holds ~3 per rank, rank r inherits ~2r
raise_nofile() {
    local need=$(( 4 * $1 + 1024 )) soft hard
    soft=$(ulimit -Sn) hard=$(ulimit -Hn)
    if [[ $hard != unlimited && $hard -lt $need ]]; then
        ulimit -Hn "$need" 2> /dev/null || say "cannot raise the hard limit of open files to $need (it is $hard)"
        hard=$(ulimit -Hn)
    fi
    if [[ $soft != unlimited && $soft -lt $need ]]; then
        ulimit -Sn "$([[ $hard == unlimited || $hard -ge $need ]] && echo "$need" || echo "$hard")"
    fi
    NOFILE=$(ulimit -Sn)
}

MEMSAMPLER=
stop_sampler() { [[ -z $MEMSAMPLER ]] || { kill "$MEMSAMPLER" 2> /dev/null || true; wait "$MEMSAMPLER" 2> /dev/null || true; MEMSAMPLER=; }; }
# scale_run LABEL BUILD REP PREFIX_CMD... -- PROGRAM ARGS...: one big run with
# rankstat and a MemAvailable sampler; appends a row of part LABEL
scale_run() {
    local label=$1 v=$2 rep=$3 item=$4; shift 4
    local st=$WORK/scale.$label.$v.$rep log=$LOGS/scale.$label.$v.$rep.log memf avail0 availmin m pred time ver
    rm -rf "$st"; mkdir -p "$st"
    memf=$st.mem
    avail0=$(awk '/^MemAvailable/ { print $2 }' /proc/meminfo)
    (while :; do awk '/^MemAvailable/ { print $2 }' /proc/meminfo; sleep 0.5; done > "$memf") &
    MEMSAMPLER=$!
    local env=(env "$(mpi_lib "$v")" VACED_HOST_CLOCKS=1 LD_PRELOAD="$WORK/rankstat.so" RANKSTAT_DIR="$st")
    [[ $v == vanilla ]] || env+=(VACED_TARGET="$TARGET" VACED_QUIET=1)
    run_cmd "$log" "${env[@]}" "$@"
    stop_sampler
    availmin=$(sort -n "$memf" | head -1)
    m=$(cat "$st"/rank.* 2> /dev/null | awk -v n="$SCALE_N" '
        { for (i = 1; i <= NF; i++) { split($i, kv, "="); v[kv[1]] = kv[2] }
          k++; hwm += v["vmhwm_kb"]; if (v["pss_kb"] > 0) pss += v["pss_kb"]
          if (v["vmhwm_kb"] > hmax) hmax = v["vmhwm_kb"]
          if (v["fds"] > fmax) fmax = v["fds"]; if (fmin == "" || v["fds"] < fmin) fmin = v["fds"]
          fsum += v["fds"]
          if (v["rank"] == 0) f0 = v["fds"]; if (v["rank"] == n - 1) flast = v["fds"] }
        END { printf "ranks_reported=%d;hwm_sum_kb=%d;hwm_max_kb=%d;pss_sum_kb=%d;fds_min=%d;fds_max=%d;fds_sum=%d;fds_rank0=%s;fds_last=%s",
              k, hwm, hmax, pss, fmin, fmax, fsum, f0, flast }')
    pred=$(sed -n 's/^vaced: prediction \([0-9.e+-]*\) s.*/\1/p' "$log" | tail -1)
    time=$(sed -n 's/^APP=.* TIME=\([^ ]*\) .*/\1/p' "$log" | tail -1)
    ver=$(sed -n 's/^APP=.* VERIFIED=\([a-z]*\).*/\1/p' "$log" | tail -1)
    [[ -n $time ]] || time=$(sed -n 's/^ring .* lap_s=\([0-9.e+-]*\).*/\1/p' "$log" | tail -1)
    row "$label" "$item" "$SCALE_N" "$v" "$rep" "$m;avail_drop_kb=$((avail0 - ${availmin:-$avail0}));prediction_s=${pred};time=${time};verified=${ver}"
    printf '  %-8s %-8s rep %d  wall %8.3f s  cpu %8s s  others %4s  rc %d  prediction %s\n' \
        "$label" "$v" "$rep" "$WALL" "${CPU:--}" "$OTHERS" "$RC" "${pred:--}" >&2
    [[ $RC == 0 ]] || say "  $label $v rep $rep: exit $RC (see $log)"
}

if has_part scale || has_part netns; then
    raise_nofile "$SCALE_N"
    say "open files limit (ulimit -n) for the big runs: $NOFILE; fs.file-max $(cat /proc/sys/fs/file-max)"
fi
if has_part scale; then
    say "scale: $SCALE_N ranks of $SCALE_APP class $SCALE_CLASS, target $TARGET, $SCALE_REPS repetition(s)"
    for ((rep = 1; rep <= SCALE_REPS; rep++)); do
        wait_quiet
        for v in vanilla vaced; do
            scale_run startup "$v" "$rep" init-finalize "$ROOT/install/$v/bin/mpiexec" -n "$SCALE_N" "$WORK/run/pingpong" 0 0
        done
        for v in vanilla vaced; do
            scale_run scale "$v" "$rep" "$SCALE_APP.$SCALE_CLASS" "$ROOT/install/$v/bin/mpiexec" -n "$SCALE_N" "$WORK/run/$SCALE_APP" "$SCALE_CLASS"
        done
    done
fi

# -------------------------------------------------------------- netns ----
if has_part netns; then
    if [[ $(id -u) != 0 ]]; then
        say "netns: needs root (network namespaces): skipped"
        echo "$RUN_ID,netns,skipped,$SCALE_N,,,,,,,,note=needs root" >> "$RUNS"
    elif [[ ! -f $ROOT/tests/netns/lib.sh || ! -x $ROOT/vaced/tools/netns-launcher ]]; then
        say "netns: tests/netns/lib.sh or vaced/tools/netns-launcher missing: skipped"
        echo "$RUN_ID,netns,skipped,$SCALE_N,,,,,,,,note=no netns tools" >> "$RUNS"
    else
        ((SCALE_N % NETNS_N == 0)) || die "--scale-ranks $SCALE_N is not a multiple of --netns-hosts $NETNS_N"
        say "netns: $SCALE_N ranks on 1 host and across $NETNS_N namespaces ($((SCALE_N / NETNS_N)) a host), vaced, target $TARGET"
        # shellcheck source=../tests/netns/lib.sh
        source "$ROOT/tests/netns/lib.sh"
        netns_setup "$NETNS_N" || die "tests/netns/lib.sh: netns_setup failed"
        netns_on_cleanup bench_cleanup
        netns_hostfile "$WORK/netns-hosts" $((SCALE_N / NETNS_N))
        NET=(-f "$WORK/netns-hosts" -launcher ssh -launcher-exec "$ROOT/vaced/tools/netns-launcher" -iface "$NETNS_IFACE")
        for ((rep = 1; rep <= SCALE_REPS; rep++)); do
            wait_quiet
            for prog in ring "$SCALE_APP"; do
                if [[ $prog == ring ]]; then args=("$WORK/run/ring" 1048576 5); item=ring.1MiB.5laps
                else args=("$WORK/run/$prog" "$SCALE_CLASS"); item=$prog.$SCALE_CLASS; fi
                scale_run netns-1host vaced "$rep" "$item" "$VACED/bin/mpiexec" -n "$SCALE_N" "${args[@]}"
                scale_run "netns-${NETNS_N}hosts" vaced "$rep" "$item" \
                    ip netns exec "${NETNS_HOSTS[0]}" "$VACED/bin/mpiexec" "${NET[@]}" -n "$SCALE_N" "${args[@]}"
            done
        done
        netns_cleanup || true
    fi
fi

LIB_ID_END=$(lib_id)
LOAD_END=$(cut -d' ' -f1-3 /proc/loadavg)
[[ $LIB_ID_START == "$LIB_ID_END" ]] || say "WARNING: install/vanilla or install/vaced changed during the run"
{
    echo "run_id=$RUN_ID"
    echo "command=${PREV_META:+$(prev command); }bench/run.sh ${ARGS[*]}"
    echo "parts=${PREV_META:+$(prev parts),}$PARTS"
    echo "apps=$APPS"
    echo "procs=$PROCS"
    echo "class=$CLASS"
    echo "reps=$REPS"
    echo "target=$TARGET"
    echo "seg_class=$SEG_CLASS"
    echo "seg_target=$SEG_TARGET"
    echo "pp_iters=$PP_ITERS"
    echo "scale_ranks=$SCALE_N"
    echo "scale_app=$SCALE_APP"
    echo "scale_class=$SCALE_CLASS"
    echo "scale_reps=$SCALE_REPS"
    echo "netns_hosts=$NETNS_N"
    echo "cores=$CORES"
    echo "cpu_model=$(sed -n 's/^model name\s*: //p' /proc/cpuinfo | head -1)"
    echo "mem_total_kb=$(awk '/^MemTotal/ { print $2 }' /proc/meminfo)"
    echo "kernel=$(uname -r)"
    echo "file_max=$(cat /proc/sys/fs/file-max)"
    echo "pid_max=$(cat /proc/sys/kernel/pid_max)"
    echo "nofile=${NOFILE:-$(ulimit -Sn)}"
    echo "autogroup=$AUTOGROUP"
    echo "page_reporting=$PAGE_REPORTING_STATE"
    echo "load_start=${PREV_META:+$(prev load_start); }$LOAD_START"
    echo "load_end=${PREV_META:+$(prev load_end); }$LOAD_END"
    echo "libs_start=$LIB_ID_START"
    echo "libs_end=$LIB_ID_END"
    echo "duration_s=${PREV_META:+$(prev duration_s) + }$((SECONDS - T_START))"
    echo "waited_s=$WAITED"
    echo "max_steal=$MAX_STEAL"
    echo "steal_quiet=$STEAL_QUIET"
    echo "steal_retries=$STEAL_RETRIES"
    echo "steal_reruns=$STEAL_RERUNS"
    echo "date_utc=$(date -u +%Y-%m-%dT%H:%M:%SZ)"
} > "$OUT/bench-meta.txt"
say "measurements took $((SECONDS - T_START)) s ($WAITED s waiting for a quieter machine)"
report
