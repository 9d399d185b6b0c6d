#!/bin/bash
# results/replay-accuracy.md: tests/mpi/test_replay.py's run (every replay
# against a live run with the record's compute), its output kept in
# results/replay-accuracy.log and turned into tables labelled by program.
#
#   bench/replay-accuracy.sh [--out DIR] [--report-only]   (default: results/)
#
# --report-only remakes the tables from DIR/replay-accuracy.log.  Exits
# non-zero if the test failed; the tables are written either way.
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
OUT=$ROOT/results
ONLY=
while (($#)); do
    case $1 in
        --out) OUT=$2; shift 2 ;;
        --report-only) ONLY=1; shift ;;
        *) echo "usage: bench/replay-accuracy.sh [--out DIR] [--report-only]" >&2; exit 2 ;;
    esac
done
LOG=$OUT/replay-accuracy.log
rc=0
if [[ -z $ONLY ]]; then
    # the run's date and commit head the log, for --report-only
    { date -u '+# %Y-%m-%d %H:%M UTC'; echo "# $(git -C "$ROOT" describe --always --dirty 2>/dev/null)"; } > "$LOG"
    python3 "$ROOT/tests/mpi/test_replay.py" "$ROOT" >> "$LOG" 2>&1
    rc=$?
fi
WHEN=$(sed -n '1s/^# //p' "$LOG")
REV=$(sed -n '2s/^# //p' "$LOG")
python3 "$ROOT/bench/lib/replay_accuracy_report.py" "$LOG" "bench/replay-accuracy.sh" \
    "$WHEN, at commit $REV; the test's output: replay-accuracy.log" > "$OUT/replay-accuracy.md"
tail -1 "$LOG"
exit $rc
