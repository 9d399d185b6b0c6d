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
# and the warning any rank prints when a wildcard receive (or Waitany) could
# not prove the target's first message (README, "Host order"):
#
#   vaced: warning: rank 2: MPI_Recv(MPI_ANY_SOURCE): the senders not yet heard from wait on other ranks, so the target's first message cannot be proven; it took the earliest one present: the prediction is approximate
#
# runtests judges a test by its output ("No Errors" and nothing else), so
# these lines alone would fail tests of the patched build.  Only lines of
# exactly these forms are dropped: any other vaced output (per-rank lines,
# errors) still reaches runtests and fails the test.  Such a line may also
# come in the middle of another process's line (see the comment below): it is
# then taken out and the interrupted line put back together.  Dropped lines are
# appended to $MPICH_SUITE_DROPPED when it is set (run.sh counts them, to
# show the patched library really ran).  The exit status is mpiexec's.
# Used for both builds, so they are judged the same way.
set -uo pipefail

if [ -z "${MPICH_SUITE_MPIEXEC:-}" ] || [ ! -x "$MPICH_SUITE_MPIEXEC" ]; then
    echo "mpiexec-filter.sh: MPICH_SUITE_MPIEXEC must name an mpiexec (got '${MPICH_SUITE_MPIEXEC:-}')" >&2
    exit 127
fi

"$MPICH_SUITE_MPIEXEC" "$@" 2>&1 |
    awk -v dropped="${MPICH_SUITE_DROPPED:-/dev/null}" '
        function vaced_line(l) {
            return l ~ /^vaced: prediction [0-9.]+ s on target .* \([0-9]+ ranks; slowest rank [0-9]+: [^)]*\)( APPROXIMATE: not modelled: .*)?$/ ||
                   l ~ /^vaced: warning: MPI_[A-Za-z_]+ uses (one-sided communication \(RMA\)|dynamic processes|MPI calls from several threads), which the model does not time: the prediction is approximate$/ ||
                   l ~ /^vaced: warning: rank [0-9]+: MPI_[A-Za-z_]+(\(MPI_ANY_SOURCE\))?: the senders not yet heard from wait on other ranks, so the target.s first message cannot be proven; it took the earliest one present: the prediction is approximate$/
        }
        # The start of a vaced line inside line l (0 if none ends the line).
        function glued_at(l,    i, rest, off) {
            off = 0
            rest = l
            while ((i = index(rest, "vaced: ")) > 0) {
                if (off + i > 1 && vaced_line(substr(rest, i)))
                    return off + i
                off += i
                rest = substr(rest, i + 1)
            }
            return 0
        }
        {
            line = held $0
            held = ""
            if (vaced_line(line)) {
                print line >>dropped; fflush(dropped); next
            }
            # A vaced line written while another process was half-way through
            # a line: MPICH makes stdout unbuffered, so puts(" No Errors")
            # writes " No Errors" and "\n" separately, and in a spawn test
            # the other job may write its line in between.  The vaced line is
            # dropped and the interrupted line joined to its rest (next line).
            if ((i = glued_at(line)) > 0) {
                print substr(line, i) >>dropped; fflush(dropped)
                held = substr(line, 1, i - 1)
                next
            }
            print line; fflush()
        }
        END { if (held != "") { print held; fflush() } }'
exit "${PIPESTATUS[0]}"
