#!/bin/bash
# Microbenchmarks predicted by VACED against vanilla runs on this machine.
# Run bench/micro.sh --help for what it does.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
RES=$ROOT/results    # where the outputs go (--out)
LIBDIR=$ROOT/bench/lib  # the helpers
VANILLA=$ROOT/install/vanilla
VACED=$ROOT/install/vaced
ALL_CONFIGS=real,vaced-2core,vaced-1core

usage() {
    cat <<EOF
usage: bench/micro.sh [options]

Runs tests/apps/microbench (latency, bw, bibw, allreduce, alltoall, bcast,
barrier over message sizes, in the manner of the OSU Micro-Benchmarks) and
tests/apps/patterns (exchange, persistent, window, overlap, probe, ssend,
vector, iallreduce and collectives between fixed computations, hot in the
caches or streaming through memory: patterns the mini-apps do not use) with
2 ranks: vanilla MPICH on this machine's 2 cores, one rank per core (the real
target), and VACED predicting that target hosted on the same 2 cores and on
core 0.  Under VACED MPI_Wtime is target time, so every figure the benchmark
prints is a prediction of the vanilla run's figure.  The configurations are
interleaved in every repetition.

Writes OUT/micro.csv (one row per figure) and OUT/micro.md: per benchmark
and size the best repetition of each configuration (the least time, the
most bandwidth) and RE = predicted time / real time - 1 (for bandwidths:
real bandwidth / predicted bandwidth - 1, the same ratio of times).

options:
  -r, --reps N        repetitions (default 3)
  --target FILE       the target description; default: measured at the start
                      twice with vaced/tools/vaced-calibrate, the faster kept
                      (OUT/targets/micro-here-2.topo)
  --configs LIST      of $ALL_CONFIGS (default all)
  --max-bytes N       largest message (default 1048576)
  --iter-scale F      scales every benchmark's iteration count (default 1)
  --benches LIST      comma-separated (default all seven)
  --no-patterns       skip tests/apps/patterns
  --out DIR           default results/
  --rt                run everything under chrt -r 1, as validate.sh --rt
  -h, --help          this text

Needs ./build.sh's install/vanilla and install/vaced. About 4 minutes with
the defaults on this 2-core VM.
EOF
}

die() { echo "micro.sh: $*" >&2; exit 1; }
say() { echo "== $*" >&2; }

ORIG_CMD="bench/micro.sh $*"
REPS=3 TARGET= CONFIGS=$ALL_CONFIGS MAXB=1048576 SCALE=1 BENCHES= OUT=$RES RT=0 PATTERNS=1
while [[ $# -gt 0 ]]; do
    case $1 in
        -r|--reps) REPS=${2:?}; shift 2 ;;
        --target) TARGET=$(realpath "${2:?}"); shift 2 ;;
        --configs) CONFIGS=${2:?}; shift 2 ;;
        --max-bytes) MAXB=${2:?}; shift 2 ;;
        --iter-scale) SCALE=${2:?}; shift 2 ;;
        --benches) BENCHES=${2:?}; shift 2 ;;
        --out) OUT=$(realpath -m "${2:?}"); shift 2 ;;
        --rt) RT=1; shift ;;
        --no-patterns) PATTERNS=0; shift ;;
        -h|--help) usage; exit 0 ;;
        *) usage >&2; exit 2 ;;
    esac
done
[[ $REPS =~ ^[1-9][0-9]*$ ]] || die "--reps: a positive whole number, got '$REPS'"
[[ $MAXB =~ ^[0-9]+$ ]] && ((MAXB >= 8)) || die "--max-bytes: a number of bytes, at least 8, got '$MAXB'"
[[ $SCALE =~ ^[0-9]*\.?[0-9]+$ ]] || die "--iter-scale: a positive number, got '$SCALE'"
[[ -z $TARGET || -f $TARGET ]] || die "--target: no such file"
IFS=, read -ra CONFIG_LIST <<< "$CONFIGS"
for c in "${CONFIG_LIST[@]}"; do [[ ,$ALL_CONFIGS, == *,$c,* ]] || die "unknown configuration '$c' (known: $ALL_CONFIGS)"; done
[[ ,$CONFIGS, == *,real,* ]] || die "--configs must include real: it is what the predictions are compared with"
for p in "$VANILLA" "$VACED"; do
    [[ -x $p/bin/mpiexec ]] || die "$p/bin/mpiexec is missing: run ./build.sh first"
done
[[ $(nproc) -ge 2 ]] || die "needs at least 2 CPUs (cores 0 and 1)"
RT_PRE=()
if [[ $RT == 1 ]]; then
    chrt -r 1 true 2> /dev/null || die "--rt: chrt -r 1 failed (needs root and util-linux)"
    RT_PRE=(chrt -r 1)
fi

WORK=$ROOT/build/micro
mkdir -p "$WORK/logs" "$OUT/targets"
# shellcheck source=lib/apps.sh
source "$LIBDIR/apps.sh"
say "building tests/apps/microbench and tests/apps/patterns into $WORK/build"
apps_build "$WORK" "$WORK/build.log" "$ROOT/tests/apps/microbench.c" "$ROOT/tests/apps/patterns.c"
PROGRAMS=(microbench)
[[ $PATTERNS == 1 ]] && PROGRAMS+=(patterns)

if [[ -z $TARGET ]]; then
    # shellcheck source=lib/topo-c.sh
    source "$LIBDIR/topo-c.sh"
    TARGET=$OUT/targets/micro-here-2.topo
    # measured twice, the faster kept: one measurement can meet a slow
    # moment of the VM (bench/lib/topo-c.sh)
    for try in 1 2; do
        say "calibrating the localhost target (vaced-calibrate, vanilla ping-pong on this host), $try of 2"
        "${RT_PRE[@]}" python3 "$ROOT/vaced/tools/vaced-calibrate" --name micro-here-2 --output "$WORK/calibrated.$try.topo" \
            --force --mpiexec-args "-bind-to core" > "$WORK/calibrate.$try.log" 2>&1 ||
            die "vaced-calibrate failed: see $WORK/calibrate.$try.log"
    done
    c1=$(topo_c "$WORK/calibrated.1.topo") c2=$(topo_c "$WORK/calibrated.2.topo")
    best=1 which=first
    c_above "$c1" "$c2" 1 && best=2 which=second
    cp "$WORK/calibrated.$best.topo" "$TARGET"
    say "c = $c1 us, then $c2 us: keeping the $which"
fi
say "target: $TARGET"

RUN_ID=$(date -u +%Y%m%dT%H%M%SZ)
CSV=$OUT/micro.csv
echo "run_id,config,rep,bench,size,value,unit,target" > "$CSV"
ARGS=(-m "$MAXB" -s "$SCALE")
if [[ -n $BENCHES ]]; then
    IFS=, read -ra B <<< "$BENCHES"
    ARGS+=("${B[@]}")
fi
t0=$SECONDS
for ((rep = 1; rep <= REPS; rep++)); do
    apps_stage "$WORK"
    for cfg in "${CONFIG_LIST[@]}"; do
        env=(env "$(mpi_lib vanilla)") tgt=-
        case $cfg in
            real)        cmd=("$VANILLA/bin/mpiexec" -bind-to core -n 2) ;;
            vaced-2core) cmd=("$VACED/bin/mpiexec" -bind-to core -n 2) ;;
            vaced-1core) cmd=(taskset -c 0 "$VACED/bin/mpiexec" -n 2) ;;
        esac
        if [[ $cfg == vaced-* ]]; then
            env=(env "$(mpi_lib vaced)" VACED_TARGET="$TARGET" VACED_QUIET=1) tgt=$(basename "$TARGET")
        fi
        s=$SECONDS
        for prog in "${PROGRAMS[@]}"; do
            log=$WORK/logs/$prog.$cfg.$rep.log args=()
            [[ $prog == microbench ]] && args=("${ARGS[@]}")
            timeout 1800 "${RT_PRE[@]}" "${env[@]}" "${cmd[@]}" "$WORK/run/$prog" "${args[@]}" > "$log" 2>&1 ||
                die "$prog, $cfg rep $rep failed (exit $?): see $log"
            grep -q '^MICRO=done VERIFIED=yes' "$log" || die "$prog, $cfg rep $rep: the program's data check failed: see $log"
            sed -n 's/^MICRO=\([a-z-]*\) SIZE=\([0-9]*\) VALUE=\([0-9.e+-]*\) UNIT=\(.*\)$/\1,\2,\3,\4/p' "$log" |
                sed "s|^|$RUN_ID,$cfg,$rep,|; s|\$|,$tgt|" >> "$CSV"
        done
        printf '  %-12s rep %d  %3d s\n' "$cfg" "$rep" $((SECONDS - s)) >&2
    done
done
say "measurements took $((SECONDS - t0)) s"
python3 "$LIBDIR/micro_report.py" "$CSV" "$OUT/micro.md" "$TARGET" "$ORIG_CMD"
