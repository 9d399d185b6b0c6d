# Shared by the A/B cost benchmarks (bench/trace.sh, bench/calls-cost.sh):
# their options, the check that install/vaced exists, a scratch directory
# and one timed run.  The caller sets ROOT, VACED, REPS, ITERS, TARGET,
# OUT and defines usage(); ab_start NAME "$@" parses the arguments and
# sets TMP (removed at exit).

ab_start() {
    local name=$1
    shift
    while [ $# -gt 0 ]; do
        case $1 in
            --reps) REPS=$2; shift 2 ;;
            --iters) ITERS=$2; shift 2 ;;
            --target) TARGET=$2; shift 2 ;;
            --out) OUT=$2; shift 2 ;;
            -h|--help) usage; exit 0 ;;
            *) echo "bench/$name.sh: unknown option '$1' (see --help)" >&2; exit 2 ;;
        esac
    done
    [ -x "$VACED/bin/mpiexec" ] || { echo "bench/$name.sh: $VACED is missing: run ./build.sh" >&2; exit 1; }
    mkdir -p "$OUT"
    TMP=$(mktemp -d "/tmp/vaced-$name-bench.XXXXXX")
    trap 'rm -rf "$TMP"' EXIT
}

elapsed() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.6f\n", b - a }'; }

# one run of "$@" on TARGET, its output dropped: prints its wall time in seconds
wall() {
    local t0 t1
    t0=$(date +%s.%N)
    env VACED_TARGET="$TARGET" VACED_QUIET=all "$@" >/dev/null
    t1=$(date +%s.%N)
    elapsed "$t0" "$t1"
}
