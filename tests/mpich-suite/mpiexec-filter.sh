#!/usr/bin/env bash
# mpiexec-filter.sh: the "mpiexec" that run.sh hands to MPICH's runtests
# (runtests -mpiexec=...).  It runs the real mpiexec, $MPICH_SUITE_MPIEXEC,
# with the same arguments, and drops from its merged output the one line
# that VACED's rank 0 prints at MPI_Finalize even with VACED_QUIET=1:
#
#   vaced: prediction 0.000437169 s on target paper-1024 (4 ranks; slowest rank 0: ...)
#
# (with, for a prediction the model marks approximate, the suffix
# " APPROXIMATE: not modelled: ...").
# runtests judges a test by its output ("No Errors" and nothing else), so
# that line alone would fail every test of the patched build.  Only lines of
# exactly that form are dropped: any other vaced output (per-rank lines,
# errors) still reaches runtests and fails the test.  Dropped lines are
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
        /^vaced: prediction [0-9.]+ s on target .* \([0-9]+ ranks; slowest rank [0-9]+: [^)]*\)( APPROXIMATE: not modelled: .*)?$/ {
            print >>dropped; fflush(dropped); next
        }
        { print; fflush() }'
exit "${PIPESTATUS[0]}"
