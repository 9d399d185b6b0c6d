#!/usr/bin/env bash
# bench/ab-replays.sh: does a change of libvaced keep every prediction bit
# for bit?  Records the mini-apps and the integration programs of
# tests/mpi with install/vaced (8 and 16 ranks, on paper-16 and on
# bench/lib/every-key.topo, which sets every optional key), then replays
# each record with the vaced-replay of an older commit and with the
# working tree's, on paper-16, paper-1024 and every-key.topo, as recorded
# and with --uniform-compute, and compares their JSON and output byte for
# byte.  Prints each difference and "N replays compared, M differ";
# exits 1 if any differ.
#
#   bench/ab-replays.sh [-w WORKDIR] [-k] OLD_COMMIT
#
#   OLD_COMMIT   the commit before the change (e.g. HEAD~3)
#   -w WORKDIR   where records and binaries go (default: a new temporary
#                directory, removed at the end unless -k)
#   -k           keep WORKDIR
set -uo pipefail

ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
P=$ROOT/install/vaced
WORK= KEEP=0
die() { echo "ab-replays.sh: $*" >&2; exit 2; }
usage() { sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit "${1:-0}"; }
while getopts "w:kh" opt; do
    case $opt in
        w) WORK=$OPTARG ;;
        k) KEEP=1 ;;
        h) usage 0 ;;
        *) usage 2 ;;
    esac
done
shift $((OPTIND - 1))
[ $# -eq 1 ] || usage 2
OLD=$(git -C "$ROOT" rev-parse --verify "$1^{commit}" 2>/dev/null) || die "no such commit: $1"
[ -x "$P/bin/mpiexec" ] || die "no install/vaced: run ./build.sh"
if [ -z "$WORK" ]; then
    WORK=$(mktemp -d)
    [ "$KEEP" = 1 ] || trap 'git -C "$ROOT" worktree remove --force "$WORK/old" 2>/dev/null; rm -rf "$WORK"' EXIT
fi
mkdir -p "$WORK/bin" "$WORK/apps" "$WORK/rec"

# The two replays: the old commit's sources, and the working tree's.
build_replay() {   # SRC_ROOT OUT
    (cd "$1" && cc -std=gnu11 -O2 -Ivaced/include -Ivaced/src -o "$2" vaced/tools/vaced-replay.c \
        vaced/src/*/*.c -lm -lpfm) || die "cannot build vaced-replay in $1"
}
git -C "$ROOT" worktree add --force --detach "$WORK/old" "$OLD" > /dev/null 2>&1 ||
    die "cannot check out $OLD in $WORK/old"
build_replay "$WORK/old" "$WORK/bin/replay-old"
build_replay "$ROOT" "$WORK/bin/replay-new"

# The programs, recorded by the installed library.
make -s -C "$ROOT/tests/apps" PREFIX="$P" OUT="$WORK/apps" > "$WORK/apps.log" 2>&1 ||
    die "building the mini-apps failed: see $WORK/apps.log"
PROGRAMS=(cg is mg stencil ft lu ep collectives nbcoll sendsend clocks)
for s in collectives nbcoll sendsend clocks; do
    "$P/bin/mpicc" -O2 -o "$WORK/apps/$s" "$ROOT/tests/mpi/$s.c" -lm >> "$WORK/apps.log" 2>&1 ||
        die "building tests/mpi/$s.c failed: see $WORK/apps.log"
done
TOPOS=("$ROOT/topo/paper-16.topo" "$ROOT/bench/lib/every-key.topo")
for a in "${PROGRAMS[@]}"; do
    for n in 8 16; do
        for t in "${TOPOS[@]}"; do
            r=$WORK/rec/$a-$n-$(basename "$t" .topo)
            VACED_QUIET=1 VACED_TARGET=$t VACED_RECORD=$r timeout 300 \
                "$P/bin/mpiexec" -n "$n" "$WORK/apps/$a" > "$r.log" 2>&1 ||
                die "recording $a on $n ranks failed: see $r.log"
        done
    done
    printf 'recorded %s\n' "$a"
done

# Each record replayed by both, compared.
n=0 bad=0
for r in "$WORK"/rec/*/; do
    r=${r%/}
    for t in "$ROOT/topo/paper-16.topo" "$ROOT/topo/paper-1024.topo" "$ROOT/bench/lib/every-key.topo"; do
        for u in "" --uniform-compute; do
            for side in old new; do
                o=$WORK/out-$side
                rm -rf "$o" && mkdir -p "$o"
                "$WORK/bin/replay-$side" "$r" --target "$t" --json "$o/j.json" $u > "$o/out" 2>&1
                echo "exit $?" >> "$o/out"
            done
            n=$((n + 1))
            if ! diff -r "$WORK/out-old" "$WORK/out-new" > "$WORK/diff"; then
                bad=$((bad + 1))
                echo "DIFFER: $(basename "$r") on $(basename "$t") ${u:-as recorded}"
                head -n 6 "$WORK/diff"
            fi
        done
    done
done
echo "$n replays compared, $bad differ"
[ "$bad" -eq 0 ]
