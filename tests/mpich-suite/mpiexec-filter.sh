#!/usr/bin/env bash
# mpiexec-filter.sh: the "mpiexec" that run.sh hands to MPICH's runtests
# (runtests -mpiexec=...).  It runs the real mpiexec, $MPICH_SUITE_MPIEXEC,
# with the same arguments, and drops from its merged output the one line
# that VACED's rank 0 prints at MPI_Finalize even with VACED_QUIET=1:
#
#   vaced: prediction 0.000437169 s on target paper-1024 (4 ranks; slowest rank 0: ...)
#
# (with, for a prediction the model marks approximate, the suffix
# " APPROXIMATE: not modelled: ..."), and the warning rank 0 prints on stderr
# the first time a program uses what the model does not time (README,
# "Output"; RMA windows, dynamic processes, MPI_Init_thread above FUNNELED,
# which MPICH itself asks for under MPIR_CVAR_ASYNC_PROGRESS=1):
#
#   vaced: warning: MPI_Win_create uses one-sided communication (RMA), which the model does not time: the prediction is approximate
#
# (likewise for a collective on gentran schedules, which the suite's
# testlist.cvar chooses with MPIR_CVAR_*_ALGORITHM=tsp_*)
# and the warning any rank prints when a wildcard receive (or Waitany) could
# not prove the target's first message (README, "Host order"):
#
#   vaced: warning: rank 2: MPI_Recv(MPI_ANY_SOURCE): the senders not yet heard from wait on other ranks, so the target's first message cannot be proven; it took the earliest one present: the prediction is approximate
#
# and the breakdown of all ranks' time rank 0 prints after the prediction
# (docs/breakdown.md):
#
#   vaced: breakdown (all ranks): compute 73.2 %, poll 0.0 %, ..., collective_wait 0.0 %
#
# and, with MPICH_SUITE_RANK_LINES=1 (run.sh's --rank-lines), every rank's
# line:
#
#   vaced: rank 1 of 4: predicted 0.000437169 s (compute ... s, communication ... s)
#
# runtests judges a test by its output ("No Errors" and nothing else), so
# these lines alone would fail tests of the patched build.  Only whole lines
# of exactly these forms are dropped: any other vaced output (errors, or a
# vaced line that split or joined a line of the program's) still reaches
# runtests and fails the test.  Dropped lines are
# appended to $MPICH_SUITE_DROPPED when it is set (run.sh counts them, to
# show the patched library really ran).  The exit status is mpiexec's.
# Used for both builds, so they are judged the same way.
#
# With MPICH_SUITE_STALL=S (run.sh's --stall, default 60; 0: off) a watchdog
# ends the job when its processes (mpiexec's descendants other than Hydra's
# proxies) have used no CPU time at all for S seconds: every process is
# blocked, a deadlock, which would otherwise sit until the test's time limit
# (180 s by default).  It prints
#
#   mpiexec-filter.sh: HANG: no process of the job used CPU time for 60 s (...); ended it
#
# so runtests fails the test.  A test that is merely slow uses CPU time and
# runs to its own limit.
set -uo pipefail

if [ -z "${MPICH_SUITE_MPIEXEC:-}" ] || [ ! -x "$MPICH_SUITE_MPIEXEC" ]; then
    echo "mpiexec-filter.sh: MPICH_SUITE_MPIEXEC must name an mpiexec (got '${MPICH_SUITE_MPIEXEC:-}')" >&2
    exit 127
fi

stall=${MPICH_SUITE_STALL:-0}
[[ $stall =~ ^[0-9]+$ ]] || stall=0

# CPU ticks (utime + stime) used so far by the descendants of process $1,
# Hydra's proxies left out; empty when it has none.
job_ticks() {
    local p stat rest total="" found=0
    local -A parent=() comm=() ticks=()
    for stat in /proc/[0-9]*/stat; do
        p=${stat#/proc/}; p=${p%/stat}
        { read -r rest <"$stat"; } 2>/dev/null || continue
        comm[$p]=${rest#*(}; comm[$p]=${comm[$p]%)*}
        rest=${rest##*) }               # state ppid ... (fields 3 on)
        read -r -a f <<<"$rest"
        parent[$p]=${f[1]}
        ticks[$p]=$(( f[11] + f[12] ))
    done
    local -a queue=("$1")
    total=0
    while [ ${#queue[@]} -gt 0 ]; do
        local q=${queue[0]}
        queue=("${queue[@]:1}")
        for p in "${!parent[@]}"; do
            [ "${parent[$p]}" = "$q" ] || continue
            queue+=("$p")
            if [ "${comm[$p]}" != hydra_pmi_prox ]; then
                total=$((total + ticks[$p]))
                found=1
            fi
        done
    done
    [ $found -eq 1 ] && echo "$total"
}

# Ends the job whose mpiexec's pid is in file $1 once its processes have
# used no CPU time for $stall seconds, and says so in $1.hang.  It runs with
# its output away from runtests' pipe: a sleep of it left behind when the
# filter ends must not hold the pipe open (runtests reads to its end).
watchdog() {
    local pidfile=$1 mp="" t last="" idle=0 step=2
    while [ -z "$mp" ]; do
        sleep 1
        mp=$(cat "$pidfile" 2>/dev/null)
    done
    while kill -0 "$mp" 2>/dev/null; do
        sleep $step
        t=$(job_ticks "$mp")
        if [ -n "$t" ] && [ "$t" = "$last" ]; then
            idle=$((idle + step))
        else
            idle=0
            last=$t
        fi
        if [ $idle -ge "$stall" ]; then
            echo "mpiexec-filter.sh: HANG: no process of the job used CPU time for $idle s (ticks $t); ended it" \
                >"$pidfile.hang"
            kill -TERM "$mp" 2>/dev/null
            sleep 10
            kill -KILL "$mp" 2>/dev/null
            return
        fi
    done
}

pidfile=""
wd=""
if [ "$stall" -gt 0 ]; then
    pidfile=$(mktemp)
    watchdog "$pidfile" </dev/null >/dev/null 2>&1 &
    wd=$!
fi

{
    "$MPICH_SUITE_MPIEXEC" "$@" 2>&1 &
    [ -n "$pidfile" ] && echo $! >"$pidfile"
    wait $!
} |
    awk -v dropped="${MPICH_SUITE_DROPPED:-/dev/null}" -v rank_lines="${MPICH_SUITE_RANK_LINES:-0}" '
        function vaced_line(l) {
            return l ~ /^vaced: prediction [0-9.]+ s on target .* \([0-9]+ ranks; slowest rank [0-9]+: [^)]*\)( APPROXIMATE: not modelled: .*)?$/ ||
                   l ~ /^vaced: breakdown \(all ranks\): compute [0-9.]+ %(, [a-z_]+ [0-9.]+ %)+$/ ||
                   l ~ /^vaced: warning: MPI_[A-Za-z_]+ uses (one-sided communication \(RMA\)|dynamic processes|MPI calls from several threads), which the model does not time: the prediction is approximate$/ ||
                   l ~ /^vaced: warning: a collective with a tsp_\* algorithm uses MPICH.s gentran schedules, which the model does not time: the prediction is approximate$/ ||
                   l ~ /^vaced: warning: rank [0-9]+: MPI_[A-Za-z_]+(\(MPI_ANY_SOURCE\))?: the senders not yet heard from wait on other ranks, so the target.s first message cannot be proven; it took the earliest one present: the prediction is approximate$/
        }
        {
            if (vaced_line($0) || (rank_lines && $0 ~ /^vaced: rank [0-9]+ of [0-9]+: predicted [0-9.]+ s \(compute [0-9.]+ s, communication [0-9.]+ s\)$/)) {
                print $0 >>dropped; fflush(dropped); next
            }
            print; fflush()
        }'
rc=${PIPESTATUS[0]}
if [ -n "$wd" ]; then
    kill "$wd" 2>/dev/null
    wait "$wd" 2>/dev/null
    # a job the watchdog ended fails, whatever mpiexec's status (124, as timeout(1))
    if [ -f "$pidfile.hang" ]; then
        cat "$pidfile.hang"
        rc=124
    fi
    rm -f "$pidfile" "$pidfile.hang"
fi
exit "$rc"
