#!/bin/bash
# What does recording cost, how big is a record, how fast is a replay?
# Run bench/replay.sh --help.
set -euo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
VACED=$ROOT/install/vaced
OUT=$ROOT/results
APPS=ep,is,cg,ft,stencil,mg,lu
RANKS="16 64"
CLASSES="W S"
TARGETS="paper-16 paper-1024"
REPS=5
REPLAYS=3
LIVE_APPS=cg,mg
LIVE_CLASS=A
LIVE_RANKS=64
LIVE_TARGET=paper-1024
LIVE_REPS=3
PARTS=record,speed,live
TMPBASE=/tmp
WAIT_FOR='tests/run.sh|tests/mpi/|tests/tools/|test_replay.py|test_record_input|fuzz_record|build\.sh|vaced-replay|vaced_sweep'
SOURCE=
# the command line as given, an argument quoted only where a shell needs it
COMMAND=bench/replay.sh
for a in "$@"; do
    if [[ $a =~ ^[A-Za-z0-9_./,:=+-]+$ ]]; then COMMAND+=" $a"; else COMMAND+=" '${a//\'/\'\\\'\'}'"; fi
done

usage() {
    cat <<EOF
usage: bench/replay.sh [--apps LIST] [--ranks "16 64"] [--classes "W S"]
                       [--targets "paper-16 paper-1024"] [--reps N] [--replays N]
                       [--live-apps LIST] [--live-class C] [--live-ranks P]
                       [--live-target T] [--live-reps N] [--parts LIST]
                       [--vaced DIR] [--source REV|DIR] [--tmpdir DIR] [--wait-for REGEX]
                       [--out DIR]

The cost of recording a prediction (VACED_RECORD, docs/replay.md) and of
re-timing the record with vaced replay, on the mini-apps of tests/apps
(--apps, default $APPS), built with the install's compilers (--vaced).

  record  1. Recording cost: host wall time of install/vaced/bin/mpiexec -n P
          APP CLASS, without and with VACED_RECORD (a directory under
          --tmpdir, default $TMPBASE, deleted after use), for each P of --ranks
          (default "$RANKS") with the class and target at the same position
          of --classes ("$CLASSES") and --targets ("$TARGETS").  --reps N
          (default $REPS) repetitions; in each, every app and P runs plain and
          recorded one after the other (the order alternating from one
          repetition to the next).  Goal: median overhead at most 3 %.
          2. The record's size: its bytes and events (the trailers' counts),
          every recorded run.
  speed   3. Replay speed: the last repetition's records replayed --replays N
          times (default $REPLAYS, interleaved over the records) with
          taskset -c 0 vaced/tools/vaced replay DIR --target T --quiet --stats;
          million events a second.  Goal: at least 5 on one core.  Needs
          record in the same run.
  live    4. Replay against the live run: --live-apps (default $LIVE_APPS) at
          class $LIVE_CLASS (--live-class), $LIVE_RANKS ranks (--live-ranks) on
          $LIVE_TARGET (--live-target), --live-reps N (default $LIVE_REPS): the
          live run's wall time (recording), then its record's replay on the
          same target, on the CPUs the live run had (it loads the ranks'
          files in parallel).  Goal: replay/live under 2 %.

--vaced DIR measures another patched MPICH install than install/vaced,
such as a copy of it (its libraries are chosen with LD_LIBRARY_PATH, which
overrides the apps' RUNPATH).  vaced replay is vaced/tools/vaced, which
compiles its C tool from vaced/ as it is: a record must be read by the
sources that wrote it.  --source REV replays with vaced/ as committed at
REV (a snapshot in build/replay/src/), --source DIR with DIR/vaced/ (a
copy); for when vaced/ has changed since the install was built.  Part 4
checks the pair: the replay must give the live run's prediction.

--parts LIST chooses the parts (default $PARTS).  Before every measured
pair or replay the script waits while a process whose command line matches
--wait-for runs (pgrep -f; default '$WAIT_FOR'; '' does not wait): the
project's tests, fuzzers and builds would take the cores.  It stops if
the install's libmpi or the replay tool is rebuilt during the run.  An
app that refuses a rank count (exit 2) is skipped there.

Writes DIR/replay.runs.csv (every measurement), DIR/replay.csv (one row per
app and measure: median, min, max), DIR/replay.md (bench/lib/replay_report.py);
DIR defaults to results/.  Logs go to build/replay/logs/.  Progress on stderr.
EOF
}

need() { [ $# -ge 2 ] || { echo "replay.sh: option $1 needs a value (see --help)" >&2; exit 2; }; }
while [ $# -gt 0 ]; do
    case $1 in
        --apps) need "$@"; APPS=$2; shift 2 ;;
        --ranks) need "$@"; RANKS=$2; shift 2 ;;
        --classes) need "$@"; CLASSES=$2; shift 2 ;;
        --targets) need "$@"; TARGETS=$2; shift 2 ;;
        --reps) need "$@"; REPS=$2; shift 2 ;;
        --replays) need "$@"; REPLAYS=$2; shift 2 ;;
        --live-apps) need "$@"; LIVE_APPS=$2; shift 2 ;;
        --live-class) need "$@"; LIVE_CLASS=$2; shift 2 ;;
        --live-ranks) need "$@"; LIVE_RANKS=$2; shift 2 ;;
        --live-target) need "$@"; LIVE_TARGET=$2; shift 2 ;;
        --live-reps) need "$@"; LIVE_REPS=$2; shift 2 ;;
        --parts) need "$@"; PARTS=$2; shift 2 ;;
        --vaced) need "$@"; VACED=$(cd "$2" 2> /dev/null && pwd) || { echo "replay.sh: --vaced $2: no such directory" >&2; exit 2; }; shift 2 ;;
        --source) need "$@"; SOURCE=$2; shift 2 ;;
        --tmpdir) need "$@"; TMPBASE=$2; shift 2 ;;
        --wait-for) need "$@"; WAIT_FOR=$2; shift 2 ;;
        --out) need "$@"; OUT=$2; shift 2 ;;
        -h|--help) usage; exit 0 ;;
        *) echo "replay.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
    esac
done

die() { echo "replay.sh: $*" >&2; exit 1; }
say() { echo "[replay] $*" >&2; }

# ---- the options
read -ra ranks <<< "$RANKS"
read -ra classes <<< "$CLASSES"
read -ra targets <<< "$TARGETS"
IFS=, read -ra apps <<< "$APPS"
IFS=, read -ra live_apps <<< "$LIVE_APPS"
IFS=, read -ra parts <<< "$PARTS"
[[ ${#ranks[@]} -gt 0 && ${#ranks[@]} == "${#classes[@]}" && ${#ranks[@]} == "${#targets[@]}" ]] ||
    die "--ranks, --classes and --targets need as many words each (now ${#ranks[@]}, ${#classes[@]}, ${#targets[@]})"
for p in "${ranks[@]}" "$LIVE_RANKS"; do
    [[ $p =~ ^[1-9][0-9]*$ ]] || die "a rank count must be a positive integer, not '$p'"
done
for c in "${classes[@]}" "$LIVE_CLASS"; do
    [[ $c =~ ^[SWA-C]$ ]] || die "a class is S, W, A, B or C, not '$c'"
done
for n in "$REPS" "$REPLAYS" "$LIVE_REPS"; do
    [[ $n =~ ^[1-9][0-9]*$ ]] || die "--reps, --replays and --live-reps must be positive integers, not '$n'"
done
known=" ep is cg ft stencil mg lu "
for a in "${apps[@]}" "${live_apps[@]}"; do
    [[ $known == *" $a "* ]] || die "unknown app '$a' (the apps: ep is cg ft stencil mg lu)"
done
do_record=0 do_speed=0 do_live=0
for part in "${parts[@]}"; do
    case $part in
        record) do_record=1 ;;
        speed) do_speed=1 ;;
        live) do_live=1 ;;
        *) die "unknown part '$part' in --parts (record, speed, live)" ;;
    esac
done
[[ $do_speed == 0 || $do_record == 1 ]] || die "--parts speed replays the records of part record: give both"
[ -d "$TMPBASE" ] && [ -w "$TMPBASE" ] || die "--tmpdir $TMPBASE is not a writable directory"

# ---- the tools
[ -x "$VACED/bin/mpiexec" ] && [ -x "$VACED/bin/mpicc" ] && [ -f "$VACED/lib/libmpi.so" ] ||
    die "$VACED is not an MPICH install (bin/mpiexec, bin/mpicc, lib/libmpi.so): run ./build.sh first"
command -v taskset > /dev/null || die "taskset is missing (Debian: util-linux)"
ALL_CPUS=$(taskset -cp $$ | sed 's/.*: //')
REPORT=$ROOT/bench/lib/replay_report.py
WORK=$ROOT/build/replay
LOGS=$WORK/logs
BIN=$WORK/apps
mkdir -p "$LOGS" "$OUT"
REPLAY=$ROOT/vaced/tools/vaced
replay_from="vaced/ as it is"
if [ -n "$SOURCE" ] && [ -d "$SOURCE" ]; then
    [ -x "$SOURCE/vaced/tools/vaced" ] || die "--source $SOURCE: no vaced/tools/vaced in it"
    REPLAY=$(cd "$SOURCE" && pwd)/vaced/tools/vaced
    replay_from="the copy of vaced/ in $SOURCE"
    say "vaced replay from $SOURCE/vaced"
elif [ -n "$SOURCE" ]; then
    rev=$(git -C "$ROOT" rev-parse --short --verify "$SOURCE^{commit}" 2>/dev/null) ||
        die "--source $SOURCE is neither a directory nor a commit"
    snap=$WORK/src/$rev
    if [ ! -x "$snap/vaced/tools/vaced" ]; then
        rm -rf "$snap" "$snap.part" && mkdir -p "$snap.part"
        git -C "$ROOT" archive "$rev" vaced | tar -x -C "$snap.part" && mv "$snap.part" "$snap" ||
            die "cannot take vaced/ of $rev into $snap"
    fi
    REPLAY=$snap/vaced/tools/vaced
    replay_from="vaced/ of $rev"
    say "vaced replay from vaced/ as committed at $rev ($snap)"
elif ! git -C "$ROOT" diff --quiet HEAD -- vaced 2> /dev/null; then
    say "note: vaced/ has uncommitted changes, which vaced replay compiles; if install/vaced was built" \
        "before them, the records it writes may not read (--source HEAD replays with the committed vaced/)"
fi
say "building the apps with $VACED's compilers into $BIN"
make -s -C "$ROOT/tests/apps" PREFIX="$VACED" OUT="$BIN" > "$LOGS/build.log" 2>&1 ||
    die "building the apps failed: see $LOGS/build.log"
# the replay tool is built on first use: build it now, outside the timings
"$REPLAY" replay --help > "$LOGS/replay-build.log" 2>&1 || die "vaced replay does not run: see $LOGS/replay-build.log"
# the apps must load $VACED's libmpi
LIBMPI=$VACED/lib/libmpi.so
env LD_LIBRARY_PATH="$VACED/lib" ldd "$BIN/mg" | grep -q "$LIBMPI" ||
    die "LD_LIBRARY_PATH=$VACED/lib does not select $VACED's libmpi for $BIN/mg"
# neither build may change during the run: the figures would mix two
TOOL=$(dirname "$(dirname "$(dirname "$REPLAY")")")/build/tools/vaced-replay
[ -x "$TOOL" ] || die "vaced replay built no $TOOL"
stamp() { stat -L -c '%y' "$1"; }
LIB_STAMP=$(stamp "$LIBMPI") TOOL_STAMP=$(stamp "$TOOL")
unchanged() {
    [ "$(stamp "$LIBMPI")" = "$LIB_STAMP" ] ||
        die "$VACED was rebuilt during the run ($LIBMPI: $(stamp "$LIBMPI")): start again (or measure a copy: --vaced)"
    [ "$(stamp "$TOOL")" = "$TOOL_STAMP" ] ||
        die "vaced replay was rebuilt during the run (vaced/ changed: $TOOL): start again (or give --source)"
}

TMPROOT=$(mktemp -d "$TMPBASE/vaced-replay-bench.XXXXXX") || die "cannot create a directory in $TMPBASE"
trap 'rm -rf "$TMPROOT"' EXIT
# the measurements go to build/ and reach DIR with the report: a run that
# stops leaves DIR's files as they were
RUNS=$WORK/replay.runs.csv
echo "part,app,class,ranks,target,rep,quantity,value" > "$RUNS"

# wait_quiet: until no process matches --wait-for but this script (its
# subshells share its command line) and the processes that started it (a
# pattern given on the command line is in theirs)
own_cmd=$(tr '\0' ' ' < /proc/$$/cmdline)
ours=" $$ "
pid=$$
while [[ $pid -gt 1 ]]; do
    pid=$(sed -E 's/.*\) [A-Za-z] ([0-9]+) .*/\1/' "/proc/$pid/stat" 2> /dev/null) || break
    ours+="$pid "
done
busy() {
    local p
    for p in $(pgrep -f "$WAIT_FOR"); do
        [[ $ours == *" $p "* ]] && continue
        [[ $(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null) == "$own_cmd" ]] && continue
        BUSY=$(tr '\0' ' ' < "/proc/$p/cmdline" 2> /dev/null | cut -c 1-100) || continue
        return 0
    done
    return 1
}
wait_quiet() {
    [ -n "$WAIT_FOR" ] || return 0
    local said=0
    while busy; do
        if [ $said = 0 ]; then
            say "waiting for $BUSY (and any other match of --wait-for) to end"
            said=1
        fi
        sleep 20
    done
    [ $said = 0 ] || say "quiet again: going on"
}

# put PART APP CLASS P TARGET REP QUANTITY VALUE
put() { local IFS=,; echo "$*" >> "$RUNS"; }

elapsed() { awk -v s="$1" -v e="$2" 'BEGIN { printf "%.4f", e - s }'; }

# run_app LOG RECDIR APP CLASS P TARGET: one prediction run: its host wall
# time in WALL, the CPU time (user + system) of mpiexec and everything it
# waited for (Hydra's proxy, the ranks) in CPU, its exit status in RC, its
# prediction in PRED; RECDIR empty: not recorded
run_app() {
    local log=$1 rec=$2 app=$3 cls=$4 p=$5 target=$6 user sys TIMEFORMAT='%3R %3U %3S'
    local envs=(VACED_TARGET="$target" VACED_QUIET=1)
    if [ -n "$rec" ]; then envs+=(VACED_RECORD="$rec"); fi
    RC=0
    { time { env -u VACED_RECORD -u VACED_JSON -u VACED_TRACE "${envs[@]}" \
        LD_LIBRARY_PATH="$VACED/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" \
        "$VACED/bin/mpiexec" -n "$p" "$BIN/$app" "$cls" > "$log" 2>&1 || RC=$?; }; } 2> "$log.time"
    read -r WALL user sys < "$log.time" || die "no timing in $log.time"
    unchanged
    CPU=$(awk -v u="$user" -v s="$sys" 'BEGIN { printf "%.3f", u + s }')
    PRED=$(sed -nE 's/^vaced: prediction ([0-9.eE+-]+) s.*/\1/p' "$log" | tail -n 1)
}

# replay_rec LOG DIR TARGET [CPUS]: taskset -c CPUS (default 0) vaced
# replay; sets WALL, EVENTS, SECS, MEPS, PRED
replay_rec() {
    local log=$1 dir=$2 target=$3 cpus=${4:-0} start rc=0 stats
    start=$(date +%s.%N)
    VACED_TOPO_DIR=${VACED_TOPO_DIR:-$ROOT/topo} taskset -c "$cpus" "$REPLAY" replay "$dir" --target "$target" \
        --quiet --stats > "$log" 2> "$log.err" || rc=$?
    WALL=$(elapsed "$start" "$(date +%s.%N)")
    unchanged
    [ $rc = 0 ] || die "vaced replay $dir --target $target ($replay_from) failed (exit $rc): see $log.err;" \
        "does $replay_from match what $VACED was built from? (--source)"
    stats=$(sed -nE 's/^vaced replay: ([0-9]+) events in ([0-9.]+) s: ([0-9.]+) million events a second$/\1 \2 \3/p' "$log.err")
    [ -n "$stats" ] || die "vaced replay printed no --stats line: see $log.err"
    read -r EVENTS SECS MEPS <<< "$stats"
    PRED=$(sed -nE 's/^vaced: prediction ([0-9.eE+-]+) s.*/\1/p' "$log" | tail -n 1)
}

# logstat DIR P: the record in DIR (which must have P files) into FILES,
# BYTES, RECORDED (its events)
logstat() {
    local st
    st=$(python3 "$REPORT" logstat "$1") || die "cannot read the record in $1"
    read -r FILES BYTES RECORDED <<< "$st"
    [ "$FILES" = "$2" ] || die "the record in $1 has $FILES files for $2 ranks"
}

declare -A skip=() kept=() kept_events=()
wall_plain='' wall_record=''

# ---- 1 and 2: recording cost, the record's size
if [ $do_record = 1 ]; then
    say "part 1: recording cost; part 2: the record's size (${#apps[@]} apps, P = ${ranks[*]}, $REPS repetitions)"
    for ((rep = 1; rep <= REPS; rep++)); do
        for i in "${!ranks[@]}"; do
            p=${ranks[$i]} cls=${classes[$i]} target=${targets[$i]}
            for app in "${apps[@]}"; do
                [ -z "${skip[$app-$i]:-}" ] || continue
                wait_quiet
                rec=$TMPROOT/$app-$cls-$p-$rep
                mkdir "$rec"
                if ((rep % 2)); then order="plain record"; else order="record plain"; fi
                for v in $order; do
                    log=$LOGS/$app-$cls-$p-$rep-$v.log
                    if [ "$v" = plain ]; then run_app "$log" "" "$app" "$cls" "$p" "$target"
                    else run_app "$log" "$rec" "$app" "$cls" "$p" "$target"; fi
                    if [ "$RC" = 2 ]; then
                        say "$app class $cls refuses $p ranks: skipped"
                        skip[$app-$i]=1
                        rm -rf "$rec"
                        continue 2
                    fi
                    [ "$RC" = 0 ] || die "$app class $cls at $p ranks ($v, repetition $rep) failed (exit $RC): see $log"
                    [ -n "$PRED" ] || die "$app class $cls at $p ranks ($v) printed no prediction: see $log"
                    printf -v "wall_$v" %s "$WALL"
                    put record "$app" "$cls" "$p" "$target" "$rep" "${v}_wall_s" "$WALL"
                    put record "$app" "$cls" "$p" "$target" "$rep" "${v}_cpu_s" "$CPU"
                done
                logstat "$rec" "$p"
                put record "$app" "$cls" "$p" "$target" "$rep" files "$FILES"
                put record "$app" "$cls" "$p" "$target" "$rep" bytes "$BYTES"
                put record "$app" "$cls" "$p" "$target" "$rep" events "$RECORDED"
                say "rep $rep/$REPS $app $cls P=$p: plain $wall_plain s, recorded $wall_record s" \
                    "($(awk -v r="$wall_record" -v p="$wall_plain" 'BEGIN { printf "%+.1f", (r / p - 1) * 100 }') %)," \
                    "record $BYTES bytes, $RECORDED events"
                if ((rep == REPS)) && [ $do_speed = 1 ]; then
                    kept[$app-$i]=$rec
                    kept_events[$app-$i]=$RECORDED
                else
                    rm -rf "$rec"
                fi
            done
        done
    done
fi

# ---- 3: replay speed
if [ $do_speed = 1 ]; then
    say "part 3: replay speed ($REPLAYS replays of each record, taskset -c 0)"
    for ((r = 1; r <= REPLAYS; r++)); do
        for i in "${!ranks[@]}"; do
            p=${ranks[$i]} cls=${classes[$i]} target=${targets[$i]}
            for app in "${apps[@]}"; do
                rec=${kept[$app-$i]:-}
                [ -n "$rec" ] || continue
                wait_quiet
                replay_rec "$LOGS/replay-$app-$cls-$p-$r.log" "$rec" "$target"
                put speed "$app" "$cls" "$p" "$target" "$r" replay_events "$EVENTS"
                put speed "$app" "$cls" "$p" "$target" "$r" replay_s "$SECS"
                put speed "$app" "$cls" "$p" "$target" "$r" replay_meps "$MEPS"
                put speed "$app" "$cls" "$p" "$target" "$r" replay_wall_s "$WALL"
                say "replay $r/$REPLAYS $app $cls P=$p: $EVENTS events in $SECS s, $MEPS million a second (command $WALL s)"
                [ "$EVENTS" = "${kept_events[$app-$i]}" ] ||
                    say "note: $app $cls P=$p: the replay counts $EVENTS events, the record's trailers ${kept_events[$app-$i]}"
            done
        done
    done
    for rec in "${kept[@]}"; do rm -rf "$rec"; done
fi

# ---- 4: replay against the live run
if [ $do_live = 1 ]; then
    say "part 4: replay against the live run (${live_apps[*]}, class $LIVE_CLASS, $LIVE_RANKS ranks, $LIVE_TARGET, $LIVE_REPS repetitions)"
    p=$LIVE_RANKS cls=$LIVE_CLASS target=$LIVE_TARGET
    for ((rep = 1; rep <= LIVE_REPS; rep++)); do
        for app in "${live_apps[@]}"; do
            [ -z "${skip[live-$app]:-}" ] || continue
            wait_quiet
            rec=$TMPROOT/live-$app-$rep
            mkdir "$rec"
            log=$LOGS/live-$app-$cls-$p-$rep.log
            run_app "$log" "$rec" "$app" "$cls" "$p" "$target"
            if [ "$RC" = 2 ]; then
                say "$app class $cls refuses $p ranks: skipped"
                skip[live-$app]=1
                rm -rf "$rec"
                continue
            fi
            [ "$RC" = 0 ] || die "$app class $cls at $p ranks (live, repetition $rep) failed (exit $RC): see $log"
            [ -n "$PRED" ] || die "$app class $cls at $p ranks (live) printed no prediction: see $log"
            live_wall=$WALL live_cpu=$CPU live_pred=$PRED
            logstat "$rec" "$p"
            replay_rec "$LOGS/live-replay-$app-$cls-$p-$rep.log" "$rec" "$target" "$ALL_CPUS"
            rm -rf "$rec"
            [ "$EVENTS" = "$RECORDED" ] ||
                say "note: $app $cls P=$p: the replay counts $EVENTS events, the record's trailers $RECORDED"
            for kv in "live_wall_s $live_wall" "live_cpu_s $live_cpu" "live_prediction_s $live_pred" "files $FILES" "bytes $BYTES" \
                      "events $RECORDED" "replay_events $EVENTS" "replay_s $SECS" "replay_meps $MEPS" \
                      "replay_wall_s $WALL" "replay_prediction_s $PRED"; do
                put live "$app" "$cls" "$p" "$target" "$rep" "${kv% *}" "${kv#* }"
            done
            say "rep $rep/$LIVE_REPS $app $cls P=$p: live $live_wall s, replay $WALL s" \
                "($(awk -v r="$WALL" -v l="$live_wall" 'BEGIN { printf "%.2f", r / l * 100 }') %; --stats $SECS s)," \
                "prediction $live_pred / replayed $PRED, $RECORDED events, $BYTES bytes"
        done
    done
fi

cpu=$(sed -nE 's/^model name[[:space:]]*: *//p' /proc/cpuinfo | head -n 1)
commit=$(git -C "$ROOT" rev-parse --short HEAD 2>/dev/null || echo unknown)
git -C "$ROOT" diff --quiet HEAD -- vaced mpich-patches 2>/dev/null || commit="$commit (vaced/ or mpich-patches/ modified in the working tree)"
commit="$commit; replays with $replay_from"
cp "$RUNS" "$OUT/replay.runs.csv"
python3 "$REPORT" report "$OUT/replay.runs.csv" "$OUT" --command "$COMMAND" --date "$(date -u '+%Y-%m-%d %H:%M UTC')" \
    --cores "$(nproc)" --kernel "$(uname -r)" --cpu "${cpu:-unknown CPU}" --commit "$commit" ||
    die "the report failed"
say "wrote $OUT/replay.runs.csv, $OUT/replay.csv and $OUT/replay.md"
